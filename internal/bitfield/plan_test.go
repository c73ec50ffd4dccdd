package bitfield

import (
	"math/rand/v2"
	"testing"
)

// A plan over random tilings of a buffer decodes each field as the bit-by-bit
// reference does, and encodes back to the identical bytes.
func TestPlanRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for n := 0; n < 3000; n++ {
		size := 8 * (1 + r.IntN(8))
		p, err := NewPlan(size)
		if err != nil {
			t.Fatal(err)
		}
		type fld struct{ start, width int }
		var fs []fld
		for pos := 0; pos < size*8; {
			w := min(1+r.IntN(64), size*8-pos)
			if _, err := p.Add(pos/8, pos%8, w); err != nil {
				t.Fatal(err)
			}
			fs = append(fs, fld{pos, w})
			pos += w
		}
		b := make([]byte, size)
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		var v [MaxFields]uint64
		p.Decode(b, &v)
		for i, f := range fs {
			if want := slowGet(b, f.start/8, f.start%8, f.width); v[i] != want {
				t.Fatalf("field %d (bit %d, width %d) = %#x, want %#x", i, f.start, f.width, v[i], want)
			}
		}
		out := make([]byte, size)
		p.Encode(out, &v)
		if string(out) != string(b) {
			t.Fatalf("encode(decode(b)) != b\n got %x\nwant %x", out, b)
		}
	}
	// Fields need not be added in offset order.
	p, _ := NewPlan(16)
	p.Add(8, 0, 32)
	p.Add(0, 0, 64)
	p.Add(12, 0, 32)
	b := []byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}
	var v [MaxFields]uint64
	p.Decode(b, &v)
	out := make([]byte, 16)
	p.Encode(out, &v)
	if string(out) != string(b) || v[0] != 0x0c0b0a09 {
		t.Fatalf("unordered plan: %x, v %x", out, v[:3])
	}
	if _, err := NewPlan(12); err == nil {
		t.Error("NewPlan(12) accepted a partial lane")
	}
}
