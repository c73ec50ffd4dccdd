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
