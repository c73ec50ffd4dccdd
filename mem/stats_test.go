package mem

import (
	"testing"

	"ndma/isa"
)

// Two memories' traffic added is the bytes each access moved, counted here
// by hand: 64 written and 16 read on SBUF in one, 8 written and 8 read on
// HBM in the other.
func TestStatsAdd(t *testing.T) {
	a, b := New(isa.Cayman), New(isa.Cayman)
	if err := a.Write(0, make([]byte, 64)); err != nil {
		t.Fatal(err)
	}
	if err := a.Read(0, make([]byte, 16)); err != nil {
		t.Fatal(err)
	}
	hbm := b.Map.HBMBase
	if err := b.Write(hbm, make([]byte, 8)); err != nil {
		t.Fatal(err)
	}
	if err := b.Read(hbm, make([]byte, 8)); err != nil {
		t.Fatal(err)
	}
	var sum Stats
	sum.Add(a.Stats)
	sum.Add(b.Stats)
	var want Stats
	want.Written[isa.SBUF], want.Read[isa.SBUF] = 64, 16
	want.Written[isa.HBM], want.Read[isa.HBM] = 8, 8
	if sum != want {
		t.Errorf("sum %+v, want %+v", sum, want)
	}
}
