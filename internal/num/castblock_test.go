package num

import (
	"math/rand/v2"
	"os"
	"testing"
)

// encodeF32 to an FP8 format (its table, fp8Encoder) is the codec's encode
// for every fp32 with each table index's top bits — the index's own
// representative and, for a sticky index, the lowest, the highest and
// the half-way lower bits and random ones — and for random fp32 bits; with
// NDMA_EXHAUSTIVE=1, for all 2³² of them.
func TestFP8EncoderIsEncode(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 8))
	for f, ft := range fp8Formats {
		sh := 22 - ft.m
		low := uint32(1)<<sh - 1
		var xs []uint32
		for top := range uint32(1) << (10 + ft.m) {
			xs = append(xs, top<<sh) // sticky 0
			for _, l := range []uint32{1, low, 1 << (sh - 1), 1<<(sh-1) | 1, low >> 1, 1 + r.Uint32()%low} {
				xs = append(xs, top<<sh|l)
			}
		}
		for range 1 << 16 {
			xs = append(xs, r.Uint32())
		}
		check := func(xs []uint32) {
			got := make([]byte, len(xs))
			encodeF32(dtInfo{kind: kFP8, size: 1, fp8: FP8(f)}, got, xs)
			for j, x := range xs {
				if want := uint8(encode(x, ft)); got[j] != want {
					t.Fatalf("format %d: fp32 %#08x: table %#02x, encode %#02x", f, x, got[j], want)
				}
			}
		}
		check(xs)
		if os.Getenv("NDMA_EXHAUSTIVE") == "1" {
			xs := make([]uint32, 1<<20)
			for hi := range uint32(1) << 12 {
				for j := range xs {
					xs[j] = hi<<20 | uint32(j)
				}
				check(xs)
			}
		}
	}
}

// FuzzCastSlice: any bytes, repeated to a run long enough for the block
// path (castViaF32) and cut at any scalar count, cast between any two float
// formats through ApplySlice, are Convert's, scalar for scalar, and the
// byte past the run is not written.
func FuzzCastSlice(f *testing.F) {
	f.Add([]byte{0, 0, 0x80, 0x3F}, uint8(0), uint8(3), uint16(1500))
	f.Add([]byte{0x7F, 0xC0, 0x01, 0x80, 0xFF, 0x00}, uint8(4), uint8(2), uint16(4097))
	floats := []uint8{FP32, BFLOAT16, FP16, FP8_EXP3, FP8_EXP4, FP8_EXP5, FP8_EXP2}
	f.Fuzz(func(t *testing.T, b []byte, in, out uint8, count uint16) {
		if len(b) == 0 {
			return
		}
		ic, oc := floats[int(in)%len(floats)], floats[int(out)%len(floats)]
		si, _ := Size(ic)
		so, _ := Size(oc)
		n := int(count) % 9000
		src := make([]byte, n*si)
		for i := range src {
			src[i] = b[i%len(b)]
		}
		dst := make([]byte, n*so+1)
		dst[n*so] = 0xA5
		if err := ApplySlice(OpNone, ic, oc, dst[:n*so], src); err != nil {
			t.Fatal(err)
		}
		for k := range n {
			want, err := Convert(ic, oc, GetLE(src[k*si:], si))
			if err != nil {
				t.Fatal(err)
			}
			if got := GetLE(dst[k*so:], so); got != want {
				t.Fatalf("%#x → %#x scalar %d of %d (%#x): %#x, Convert %#x", ic, oc, k, n, GetLE(src[k*si:], si), got, want)
			}
		}
		if dst[n*so] != 0xA5 {
			t.Fatalf("%#x → %#x: the byte past %d scalars written", ic, oc, n)
		}
	})
}

// A bf16 or fp16 run cast to an FP8 format (one table of every source
// code, from16Table) is Convert's for every one of the 2¹⁶ source codes.
func TestFrom16IsConvert(t *testing.T) {
	src := make([]byte, 2<<16)
	for h := range 1 << 16 {
		src[2*h], src[2*h+1] = byte(h), byte(h>>8)
	}
	for _, in := range []uint8{BFLOAT16, FP16} {
		for _, out := range []uint8{FP8_EXP3, FP8_EXP4, FP8_EXP5, FP8_EXP2} {
			dst := make([]byte, 1<<16)
			if err := ApplySlice(OpNone, in, out, dst, src); err != nil {
				t.Fatal(err)
			}
			for h := range 1 << 16 {
				want, err := Convert(in, out, uint64(h))
				if err != nil {
					t.Fatal(err)
				}
				if uint64(dst[h]) != want {
					t.Fatalf("%#x → %#x: code %#04x → %#02x, Convert %#02x", in, out, h, dst[h], want)
				}
			}
		}
	}
}
