package num

import (
	"encoding/binary"
	"sync"
	"unsafe"
)

// The casts castFloats has no loop of its own for (FP8 to or from
// anything, bf16 ↔ fp16) go through fp32 a block at a time: the block
// decoded exactly into fp32 bits by a loop of the source's kind, then
// rounded to the destination by a loop of its kind — the codec's decode
// and encode, as Convert composes them, with no call per scalar.

// castBlock is the scalars of one pass (16 KiB of fp32 bits: in L1 between
// the two loops).
const castBlock = 4096

// castViaF32 is castFloats of any two float kinds through fp32, on a
// little-endian host (hostLE: the buffer's fp32 scalars are viewed as the
// bytes a run holds); a 2-byte kind to an FP8 format goes through one
// table of every source code.
func castViaF32(ii, oi dtInfo, dst, src []byte, n int) {
	if (ii.kind == kBF16 || ii.kind == kFP16) && oi.kind == kFP8 {
		t := from16Table(ii.kind, oi.fp8)
		src, dst = src[:2*n], dst[:n]
		for j := range dst {
			dst[j] = t[binary.LittleEndian.Uint16(src[2*j:])]
		}
		return
	}
	var buf [castBlock]uint32
	si, so := int(ii.size), int(oi.size)
	for k := 0; k < n; k += castBlock {
		x := buf[:min(castBlock, n-k)]
		decodeF32(ii, x, src[k*si:])
		encodeF32(oi, dst[k*so:], x)
	}
}

// decodeF32 decodes len(x) scalars of kind i from b into fp32 bits (exact).
func decodeF32(i dtInfo, x []uint32, b []byte) {
	switch i.kind {
	case kFP32: // the bytes as they are: a copy
		copy(bytesOf(x), b[:4*len(x)])
	case kBF16:
		b = b[:2*len(x)]
		for j := range x {
			x[j] = uint32(binary.LittleEndian.Uint16(b[2*j:])) << 16
		}
	case kFP16:
		t := f16Table()
		b = b[:2*len(x)]
		for j := range x {
			x[j] = t[binary.LittleEndian.Uint16(b[2*j:])]
		}
	default:
		t := &fp8Dec[i.fp8]
		b = b[:len(x)]
		for j := range x {
			x[j] = t[b[j]]
		}
	}
}

// encodeF32 rounds the fp32 bits x to kind i (RNE, the codec's encode) into b.
func encodeF32(i dtInfo, b []byte, x []uint32) {
	switch i.kind {
	case kFP32:
		copy(b[:4*len(x)], bytesOf(x))
	case kBF16:
		toBF16(b, bytesOf(x), len(x))
	case kFP16:
		toF16(b, bytesOf(x), len(x))
	default:
		e := fp8Encoder(i.fp8)
		t, sh, low := e.t, e.sh, uint32(1)<<e.sh-1
		b = b[:len(x)]
		for j, v := range x {
			b[j] = t[uint16(v>>sh<<1|(v&low+low)>>sh)]
		}
	}
}

// bytesOf is the bytes of x: on a little-endian host, its fp32 scalars as
// a run holds them.
func bytesOf(x []uint32) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(x))), 4*len(x))
}

// fp8Enc is encode to one FP8 format as a table. Rounding fp32 bits to a
// format of m mantissa bits depends only on the top 10 + m bits (sign,
// exponent, the m kept bits and the round bit; in the format's subnormal
// range fewer bits are kept and the round bit sits higher, still among
// them) and on whether any bit below them is set (the sticky bit): NaN and
// Inf, told apart by that sticky bit, keep at most the top m payload bits.
// t's index is those top bits, then the sticky bit; t[k] is encode of the
// fp32 with those top bits and, for a sticky 1, only the lowest bit set
// (TestFP8EncoderIsEncode checks it against encode).
type fp8Enc struct {
	t  *[1 << 16]uint8 // 2^(11+m) codes (m ≤ 5), at most the index's 16 bits: no bounds check
	sh uint32          // 22 − m: the bits below the top ones
}

var (
	fp8Encs     [4]*fp8Enc
	fp8EncsOnce [4]sync.Once
)

// fp8Encoder returns format f's table, built on its first use (2^(11+m)
// encodes: 0.2–1 ms).
func fp8Encoder(f FP8) *fp8Enc {
	fp8EncsOnce[f].Do(func() {
		ft := fp8Formats[f]
		e := &fp8Enc{t: new([1 << 16]uint8), sh: 22 - ft.m}
		for k := range 1 << (11 + ft.m) {
			x := uint32(k>>1)<<e.sh | uint32(k&1)
			e.t[k] = uint8(encode(x, ft))
		}
		fp8Encs[f] = e
	})
	return fp8Encs[f]
}

// from16[k][f] is the FP8 format f code of every bf16 (k 0) or fp16 (k 1)
// code: encode of its exact fp32 value, as the block path computes it
// (64 KiB a table, built on first use).
var (
	from16     [2][4]*[1 << 16]uint8
	from16Once [2][4]sync.Once
)

func from16Table(kind uint8, f FP8) *[1 << 16]uint8 {
	k := 0
	if kind == kFP16 {
		k = 1
	}
	from16Once[k][f].Do(func() {
		t, ft := new([1 << 16]uint8), fp8Formats[f]
		for h := range 1 << 16 {
			x := uint32(h) << 16
			if k == 1 {
				x = f16Table()[h]
			}
			t[h] = uint8(encode(x, ft))
		}
		from16[k][f] = t
	})
	return from16[k][f]
}
