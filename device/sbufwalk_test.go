package device

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"ndma/isa"
)

// sbufWalkRef is sbufWalk as the rule reads (field-tables §11.2: each
// element inside one partition's active bytes of the NEFF's SB space,
// neff.md §4.7), element by element in (j, i) order: the reference the
// inline test of sbufWalk is held to.
func sbufWalkRef(gen isa.Gen, w isa.Leg2D, base uint64) string {
	m := isa.Map(gen)
	active := min(m.SBUFActive, 1<<18)
	for j := int64(0); j < w.Num[1]; j++ {
		for i := int64(0); i < w.Num[0]; i++ {
			o := int64(base) + i*w.Step[0] + j*w.Step[1]
			if o < 0 {
				return fmt.Sprintf("element (%d, %d) starts below address 0", i, j)
			}
			if o/(1<<18) >= int64(m.Partitions) || uint64(o%(1<<18))+uint64(w.Elem) > active {
				return fmt.Sprintf("element (%d, %d) at %#x (%d bytes) is not inside one SBUF partition's %d active bytes", i, j, o, w.Elem, active)
			}
		}
	}
	return ""
}

// sbufWalk finds the first element outside the SBUF map, or none, as the
// element-by-element reference does, on random walks of up to 65536
// elements (in range and out, negative steps included), on each generation.
func TestSbufWalkIsElementByElement(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 7))
	found := 0
	for n := range 20000 {
		gen := []isa.Gen{isa.Cayman, isa.Mariana, isa.MarianaPlus}[n%3]
		w := isa.Leg2D{Elem: int64(1 + rng.IntN(4096)), Num: [2]int64{int64(1 + rng.IntN(256)), int64(1 + rng.IntN(256))}}
		for d := range 2 {
			switch rng.IntN(3) {
			case 0:
				w.Step[d] = int64(rng.IntN(1 << 19)) // across partitions
			case 1:
				w.Step[d] = int64(rng.IntN(4096)) - 512 // within one, some backwards
			default:
				w.Step[d] = int64(1<<18) * int64(rng.IntN(3)) // whole partitions
			}
		}
		base := uint64(rng.IntN(1 << 18))
		if rng.IntN(4) == 0 {
			base += uint64(rng.IntN(128)) << 18
		}
		want := sbufWalkRef(gen, w, base)
		if got := sbufWalk(gen, w, base); got != want {
			t.Fatalf("%v walk %+v from %#x: %q, want %q", gen, w, base, got, want)
		}
		if want != "" {
			found++
		}
	}
	if found < 1000 || found > 19000 {
		t.Errorf("%d of 20000 walks leave the map: want both outcomes often", found)
	}
}
