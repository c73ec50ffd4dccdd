package mem

import (
	"bytes"
	"testing"

	"ndma/isa"
)

// Reserve changes no byte — written, lazy or zero — and makes the absent
// pages of the range one extent: a copy across all of them is then one
// piece of host memory (backing covers the whole range in one call).
func TestReserve(t *testing.T) {
	m := New(isa.Cayman)
	const base = hbm0 + 3*PageSize
	const n = 80 * PageSize // 5 MiB: past hugemem.Min
	if err := m.Lazy(base+10*PageSize, 4*PageSize+100, "g", genK(1)); err != nil {
		t.Fatal(err)
	}
	if err := m.Write(base+40*PageSize+7, []byte("written")); err != nil {
		t.Fatal(err)
	}
	before := make([]byte, n)
	if err := m.Read(base, before); err != nil {
		t.Fatal(err)
	}
	pages := m.Pages()
	if err := m.Reserve(base, n); err != nil {
		t.Fatal(err)
	}
	after := make([]byte, n)
	if err := m.Read(base, after); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(before, after) {
		t.Fatal("Reserve changed bytes")
	}
	if got := m.Pages(); got != pages+80-1 { // page 40 was there already
		t.Errorf("pages %d → %d, want %d more", pages, got, 80-1)
	}
	// the pages before and after the written one are two extents
	r, part, off := m.Map.Split(base)
	if _, c := m.backing(r, part, off, 40*PageSize, look); c != 40*PageSize {
		t.Errorf("pages 0–39 of the range: one piece of %d bytes, want %d", c, 40*PageSize)
	}
	if err := m.Reserve(m.Map.HBMEnd-8, 16); err == nil {
		t.Error("Reserve past the HBM window: no error")
	}
}

// ReserveDense reserves only a large hull at most 4× the bytes written.
func TestReserveDense(t *testing.T) {
	for _, tc := range []struct {
		hull  uint64
		bytes int64
		want  int // pages
	}{
		{8 << 20, 8 << 20, 128},
		{8 << 20, 2 << 20, 128},
		{8 << 20, 2<<20 - 1, 0},   // sparser than 1 in 4
		{512 << 10, 512 << 10, 0}, // small: the pieces allocate themselves
	} {
		m := New(isa.Cayman)
		m.ReserveDense(hbm0, hbm0+tc.hull, tc.bytes)
		if got := m.Pages(); got != tc.want {
			t.Errorf("hull %d, %d bytes: %d pages, want %d", tc.hull, tc.bytes, got, tc.want)
		}
	}
}
