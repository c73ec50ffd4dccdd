package mem

import (
	"math/rand/v2"
	"testing"

	"ndma/isa"
)

// Two memories equal but for what the tracked writes did: comparing only
// the touched partitions and pages finds what comparing all of memory finds.
func TestFirstDifferenceIn(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	m := isa.Map(isa.Cayman)
	addr := func() uint64 {
		switch r.IntN(3) {
		case 0:
			a, _ := m.Join(isa.SBUF, r.IntN(128), uint64(r.IntN(int(m.SBUFActive)-64)))
			return a
		case 1:
			a, _ := m.Join(isa.PSUM, r.IntN(128), uint64(r.IntN(int(m.PSUMActive)-64)))
			return a
		}
		return m.HBMBase + uint64(r.IntN(1<<30))
	}
	for trial := 0; trial < 300; trial++ {
		a, b := New(isa.Cayman), New(isa.Cayman)
		for k := 0; k < 20; k++ { // the same history in both, untracked
			at, v := addr(), []byte{byte(r.Uint32()), byte(r.Uint32())}
			a.Write(at, v)
			b.Write(at, v)
		}
		ta, tb := NewTouched(), NewTouched()
		a.Track(ta)
		b.Track(tb)
		for k := 0; k < 1+r.IntN(4); k++ {
			at, v := addr(), []byte{byte(r.Uint32()), byte(r.Uint32()), byte(r.Uint32())}
			a.Write(at, v)
			if r.IntN(2) == 0 {
				v[r.IntN(3)]++
			}
			b.Write(at, v)
			if r.IntN(5) == 0 {
				b.Copy(addr(), at, 3)
			}
		}
		if r.IntN(4) == 0 {
			b.Sems[r.IntN(256)]++
		}
		want, wok := FirstDifference(a, b, true)
		got, gok := FirstDifferenceIn(a, b, ta, tb)
		if wok != gok || want != got {
			t.Fatalf("trial %d: FirstDifferenceIn %v %+v, FirstDifference %v %+v", trial, gok, got, wok, want)
		}
	}
}
