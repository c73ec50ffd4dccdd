package mem

import (
	"testing"

	"ndma/isa"
)

// TestShareOnchip: the caller's array is the region — a write through the
// memory lands at partition·active + offset in it, a write to it reads
// back through the memory — and a wrong length or region is refused.
func TestShareOnchip(t *testing.T) {
	for _, g := range []isa.Gen{isa.Sunda, isa.Cayman, isa.Mariana} {
		m := New(g)
		mp := isa.Map(g)
		for _, tc := range []struct {
			r      isa.Region
			active uint64
			base   uint64
			stride uint64
		}{{isa.SBUF, mp.SBUFActive, 0, mp.SBUFStride}, {isa.PSUM, mp.PSUMActive, mp.PSUMBase, mp.PSUMStride}} {
			data := make([]byte, uint64(mp.Partitions)*tc.active)
			if err := m.ShareOnchip(tc.r, data[1:]); err == nil {
				t.Fatalf("%v %v: a short array was accepted", g, tc.r)
			}
			if err := m.ShareOnchip(tc.r, data); err != nil {
				t.Fatal(err)
			}
			addr := tc.base + 3*tc.stride + 16
			if err := m.Write(addr, []byte{1, 2, 3}); err != nil {
				t.Fatal(err)
			}
			if at := 3*tc.active + 16; data[at] != 1 || data[at+2] != 3 {
				t.Fatalf("%v %v: the write is not in the shared array at %d", g, tc.r, at)
			}
			data[127*tc.active+tc.active-1] = 9
			b := make([]byte, 1)
			if err := m.Read(tc.base+127*tc.stride+tc.active-1, b); err != nil || b[0] != 9 {
				t.Fatalf("%v %v: read %v %v, want the array's 9", g, tc.r, b, err)
			}
		}
		if err := m.ShareOnchip(isa.HBM, nil); err == nil {
			t.Fatal("HBM was accepted")
		}
	}
}
