package bitfield

import (
	"math/rand/v2"
	"testing"
)

// reference implementation: bit by bit, independent of the window arithmetic.
func slowGet(b []byte, off, bit, width int) uint64 {
	var v uint64
	for i := 0; i < width; i++ {
		p := off*8 + bit + i
		if b[p/8]>>(p%8)&1 != 0 {
			v |= 1 << i
		}
	}
	return v
}

func TestGetPutAgainstBitByBit(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for n := 0; n < 20000; n++ {
		size := 8 + r.IntN(64)
		width := 1 + r.IntN(57)
		bit := r.IntN(8)
		maxOff := (size*8 - bit - width) / 8
		if maxOff < 0 {
			continue
		}
		off := r.IntN(maxOff + 1)
		f, err := Make(off, bit, width, size)
		if err != nil {
			t.Fatalf("Make(%d,%d,%d,%d): %v", off, bit, width, size, err)
		}
		b := make([]byte, size)
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		if got, want := f.Get(b), slowGet(b, off, bit, width); got != want {
			t.Fatalf("Get(off=%d bit=%d w=%d) = %#x, want %#x", off, bit, width, got, want)
		}
		before := append([]byte(nil), b...)
		v := r.Uint64()
		f.Put(b, v)
		if got := slowGet(b, off, bit, width); got != v&f.Mask() {
			t.Fatalf("after Put: %#x, want %#x", got, v&f.Mask())
		}
		// every bit outside the range is untouched
		for p := 0; p < size*8; p++ {
			if p >= off*8+bit && p < off*8+bit+width {
				continue
			}
			if (b[p/8]^before[p/8])>>(p%8)&1 != 0 {
				t.Fatalf("Put(off=%d bit=%d w=%d) changed bit %d", off, bit, width, p)
			}
		}
	}
}

func TestSigned(t *testing.T) {
	f, _ := Make(2, 0, 32, 8)
	b := []byte{0, 0, 0xfe, 0xff, 0xff, 0xff, 0, 0}
	if got := f.GetSigned(b); got != -2 {
		t.Fatalf("GetSigned = %d, want -2", got)
	}
	if !f.FitsSigned(-1<<31) || f.FitsSigned(1<<31) || f.FitsSigned(-1<<31-1) {
		t.Fatal("FitsSigned bounds wrong for 32 bits")
	}
}

func TestMakeErrors(t *testing.T) {
	for _, c := range []struct{ off, bit, width, size int }{
		{0, 0, 8, 4}, {63, 0, 16, 64}, {0, 0, 0, 8}, {0, 0, 65, 16}, {0, 7, 64, 16},
	} {
		if _, err := Make(c.off, c.bit, c.width, c.size); err == nil {
			t.Errorf("Make(%v) succeeded, want error", c)
		}
	}
}

func TestLaneAgainstBitByBit(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for n := 0; n < 20000; n++ {
		size := 8 * (1 + r.IntN(8))
		width := 1 + r.IntN(64)
		start := r.IntN(size*8 - width + 1)
		off, bit := start/8, start%8
		l, err := MakeLane(off, bit, width, size)
		if err != nil {
			t.Fatal(err)
		}
		b := make([]byte, size)
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		lanes := make([]uint64, size/8)
		LoadLanes(lanes, b)
		if got, want := l.Get(lanes), slowGet(b, off, bit, width); got != want {
			t.Fatalf("Get(off=%d bit=%d w=%d) = %#x, want %#x", off, bit, width, got, want)
		}
		zero := make([]uint64, size/8)
		v := r.Uint64()
		l.Or(zero, v)
		out := make([]byte, size)
		StoreLanes(out, zero)
		for p := 0; p < size*8; p++ {
			in := p >= start && p < start+width
			set := out[p/8]>>(p%8)&1 != 0
			want := in && v>>(p-start)&1 != 0
			if set != want {
				t.Fatalf("Or(off=%d bit=%d w=%d): bit %d = %v", off, bit, width, p, set)
			}
		}
	}
}
