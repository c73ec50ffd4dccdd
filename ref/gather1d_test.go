package ref

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"ndma/isa"
)

// gather1D adds a gather's dst lanes in one step up to the first skipped
// one; both legs must be the elems the lane-by-lane loop of indirect1D
// builds — every lane's src element then its dst element through add1, the
// lanes §11.5 skips (index past the leg or the bound register, errors off)
// left out — rows, counts and faults alike, for dst steps equal to the
// element (one row), larger, half of it, zero and negative, and src indices
// that run on (merged rows).
func TestGather1DIsLaneByLane(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 17))
	for trial := range 500 {
		lanes, size, sn := 1+r.IntN(40), 4*(1+r.IntN(4)), 1+r.IntN(64)
		is := make([]uint32, lanes)
		start := uint32(r.IntN(sn))
		for j := range is {
			switch r.IntN(6) {
			case 0:
				is[j] = uint32(sn + r.IntN(8)) // past the leg
			case 1, 2:
				is[j] = start + uint32(j) // running on
			default:
				is[j] = uint32(r.IntN(sn))
			}
		}
		ss := int64(size) * int64(1+r.IntN(2))
		ds := []int64{int64(size), int64(size), 2 * int64(size), int64(size) / 2, 0, -int64(size)}[r.IntN(6)]
		sb := bound{on: r.IntN(2) == 0, limit: uint64(r.IntN(70)), reg: 3}
		errorsOn := r.IntN(4) == 0
		sa, da := uint64(0x1000), uint64(0x100000)

		w1, w2 := &word{x: New(isa.Cayman), name: "DMA_INDIRECT"}, &word{x: New(isa.Cayman), name: "DMA_INDIRECT"}
		s1, d1 := elems{size: size, rows: make([]row, 0, lanes)}, elems{size: size}
		err1 := w1.gather1D(&s1, &d1, is, sa, ss, sn, sb, errorsOn, da, ds)
		// the loop of indirect1D before gather1D, for a gather
		s2, d2 := elems{size: size, rows: make([]row, 0, lanes)}, elems{size: size}
		var err2 error
		for j := 0; j < lanes; j++ {
			s := is[j]
			ok := true
			if int(s) >= sn || sb.on && uint64(s) > sb.limit {
				if ok, err2 = w2.indexOK(j, s, sn, sb, errorsOn, "src index"); err2 != nil {
					break
				}
			}
			if !ok {
				w2.x.Stats.Skipped++
				continue
			}
			s2.add1(uint64(int64(sa) + int64(s)*ss))
			d2.add1(uint64(int64(da) + int64(j)*ds))
		}
		if fmt.Sprint(err1) != fmt.Sprint(err2) {
			t.Fatalf("trial %d: error %v, lane by lane %v", trial, err1, err2)
		}
		if err1 != nil {
			continue
		}
		if w1.x.Stats.Skipped != w2.x.Stats.Skipped || !reflect.DeepEqual(s1.rows, s2.rows) || s1.n != s2.n ||
			!reflect.DeepEqual(append([]row{}, d1.rows...), append([]row{}, d2.rows...)) || d1.n != d2.n {
			t.Fatalf("trial %d (ds %d, size %d, indices %v):\nsrc %v (%d)\n    %v (%d)\ndst %v (%d)\n    %v (%d)", trial, ds, size, is, s1.rows, s1.n, s2.rows, s2.n, d1.rows, d1.n, d2.rows, d2.n)
		}
	}
}
