package num

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"
)

// The fp32 → binary16 slice cast (VCVTPS2PH where the CPU has F16C) is the
// codec, scalar for scalar: every sign and exponent with the low bits that
// decide the rounding (round bit, sticky bits, ties) in every mantissa high
// half — subnormal results, overflow to Inf, NaNs of every payload among
// them — in runs of every length and offset, a NaN block anywhere.
func TestF32ToF16Slice(t *testing.T) {
	if !hasF16C {
		t.Log("no F16C here: the Go loop alone is tested")
	}
	checkNarrowSlice(t, FP16, fmtF16)
}

// The fp32 → bfloat16 slice cast (AVX2 where the CPU has it) is the codec
// in the same way.
func TestF32ToBF16Slice(t *testing.T) {
	if !hasBF16AVX2 {
		t.Log("no AVX2 here: the Go loop alone is tested")
	}
	checkNarrowSlice(t, BFLOAT16, fmtBF16)
}

func checkNarrowSlice(t *testing.T, out uint8, ft format) {
	lows := []uint32{0, 1, 0x0FFF, 0x1000, 0x1001, 0x1FFF, 0x2000, 0x2001, 0x3000, 0x7FFF, 0x8000, 0xFFFF}
	xs := make([]uint32, 0, len(lows)<<16)
	for hi := uint32(0); hi < 1<<16; hi++ {
		for _, lo := range lows {
			xs = append(xs, hi<<16|lo)
		}
	}
	check := func(what string, xs []uint32, off int) {
		t.Helper()
		src, dst := make([]byte, 4*len(xs)+off)[off:], make([]byte, 2*len(xs)+off)[off:]
		for i, x := range xs {
			binary.LittleEndian.PutUint32(src[4*i:], x)
		}
		if err := ApplySlice(OpNone, FP32, out, dst, src); err != nil {
			t.Fatal(err)
		}
		for i, x := range xs {
			if got, want := binary.LittleEndian.Uint16(dst[2*i:]), uint16(encode(x, ft)); got != want {
				t.Fatalf("%s, offset %d, scalar %d: %#08x → %#04x, want %#04x", what, off, i, x, got, want)
			}
		}
	}
	check("every exponent and sign", xs, 0)
	r := rand.New(rand.NewPCG(16, 3))
	for k := range 200 { // shorter runs, shuffled: NaN blocks here and there, tails of every length
		n := r.IntN(300)
		run := make([]uint32, n)
		for i := range run {
			run[i] = xs[r.IntN(len(xs))]
			if r.IntN(4) != 0 { // mostly ordinary values: whole blocks the kernel takes
				run[i] = r.Uint32() & 0xC7FFFFFF
			}
		}
		check("random runs", run, k%4)
	}
}

// FuzzNarrowSlice: any bytes, as fp32 scalars from any offset, cast to
// binary16 and to bfloat16 through the slice path (F16C, AVX2 kernels where
// the CPU has them) are the codec's, scalar for scalar, and the bytes past
// the last whole scalar are not written.
func FuzzNarrowSlice(f *testing.F) {
	f.Add([]byte{0, 0, 0x80, 0x3F}, uint8(0))
	nan := make([]byte, 4*70)
	for i := range 70 {
		binary.LittleEndian.PutUint32(nan[4*i:], uint32(i)<<13|0x3F000000)
	}
	binary.LittleEndian.PutUint32(nan[4*40:], 0x7FC00001)
	f.Add(nan, uint8(1))
	f.Add(make([]byte, 4*33+3), uint8(3))
	f.Fuzz(func(t *testing.T, b []byte, off uint8) {
		k := int(off % 4)
		if len(b) < k {
			return
		}
		src := b[k:]
		n := len(src) / 4
		for _, c := range []struct {
			out uint8
			ft  format
		}{{FP16, fmtF16}, {BFLOAT16, fmtBF16}} {
			dst := make([]byte, 2*n+1)
			dst[2*n] = 0xA5
			if err := ApplySlice(OpNone, FP32, c.out, dst[:2*n], src); err != nil {
				t.Fatal(err)
			}
			for i := range n {
				x := binary.LittleEndian.Uint32(src[4*i:])
				if got, want := binary.LittleEndian.Uint16(dst[2*i:]), uint16(encode(x, c.ft)); got != want {
					t.Fatalf("out %#x, scalar %d of %d: %#08x → %#04x, want %#04x", c.out, i, n, x, got, want)
				}
			}
			if dst[2*n] != 0xA5 {
				t.Fatalf("out %#x: the byte past %d scalars written", c.out, n)
			}
		}
	})
}

// F16sToF32 (the F16C block path and its table tail) widens every binary16
// as the scalar codec does: equal bits, NaN for NaN.
func TestF16sToF32(t *testing.T) {
	src := make([]byte, 2<<16)
	for h := range 1 << 16 {
		src[2*h], src[2*h+1] = byte(h), byte(h>>8)
	}
	for _, n := range []int{1 << 16, 1<<16 - 5, 15, 17} {
		dst := make([]float32, n)
		F16sToF32(dst, src)
		for h, got := range dst {
			want := F16ToF32(uint16(h))
			if math.Float32bits(got) != math.Float32bits(want) && !(want != want && got != got) {
				t.Fatalf("n %d: %#04x widened to %#08x, want %#08x", n, h, math.Float32bits(got), math.Float32bits(want))
			}
		}
	}
}
