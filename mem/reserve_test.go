package mem

import (
	"bytes"
	"testing"
	"unsafe"

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

// Peek hands out stored bytes in one piece without a copy, and nil where
// the bytes are not stored as one piece: absent, lazy, across two extents.
func TestPeek(t *testing.T) {
	m := New(isa.Cayman)
	m.Write(hbm0+100, []byte("stored bytes"))
	if b := m.Peek(hbm0+100, 12); string(b) != "stored bytes" {
		t.Errorf("Peek of stored bytes = %q", b)
	}
	if b := m.Peek(hbm0+100, 12); b != nil {
		b2 := m.Peek(hbm0+100, 12)
		if &b[0] != &b2[0] {
			t.Error("Peek copied: two calls gave two slices")
		}
	}
	m.Lazy(hbm0+4*PageSize, 100, "g", genK(1))
	m.Write(hbm0+2*PageSize-4, []byte{1, 2, 3, 4, 5, 6, 7, 8}) // two pages written apart: two extents
	for _, tc := range []struct {
		name string
		addr uint64
		n    int
	}{
		{"absent", hbm0 + 8*PageSize, 16},
		{"lazy", hbm0 + 4*PageSize, 16},
		{"two extents", hbm0 + PageSize - 4, 8},
		{"past the window", m.Map.HBMEnd - 4, 8},
	} {
		if b := m.Peek(tc.addr, tc.n); b != nil {
			t.Errorf("%s: Peek = %d bytes, want nil", tc.name, len(b))
		}
	}
	r0 := m.Stats.Read[isa.HBM]
	m.Peek(hbm0+100, 12)
	if m.Stats.Read[isa.HBM] != r0+12 {
		t.Error("Peek does not count its read")
	}
}

// CopyRows of empty rows moves nothing and does not panic (FuzzCopyStrided
// found it); a bad address is still refused.
func TestCopyRowsEmpty(t *testing.T) {
	m := New(isa.Cayman)
	if k, err := m.CopyRows([]uint64{hbm0, hbm0 + 64}, []uint64{hbm0 + 4096, hbm0 + 8192}, 0); k != 0 || err != nil {
		t.Errorf("CopyRows of 0 bytes: %d, %v", k, err)
	}
	if m.Pages() != 0 {
		t.Errorf("%d pages stored", m.Pages())
	}
	if _, err := m.CopyRows([]uint64{m.Map.HBMEnd + 64}, []uint64{hbm0}, 0); err == nil {
		t.Error("CopyRows to an unmapped address: no error")
	}
}

// A dense destination over many SBUF partitions takes them from the one
// slab from the first (adjacent backings, active bytes apart); a memory
// that touches a few partitions keeps allocating them one by one.
func TestReserveDenseSBUFSlab(t *testing.T) {
	m := New(isa.Cayman)
	st, act := m.Map.SBUFStride, m.Map.SBUFActive
	m.ReserveDense(0, 127*st+act, int64(128*act))
	for _, p := range []uint64{0, 1} {
		if err := m.Write(p*st, []byte{1}); err != nil {
			t.Fatal(err)
		}
	}
	a, b := m.Peek(0, 1), m.Peek(st, 1)
	if a == nil || b == nil || uintptr(unsafe.Pointer(&b[0]))-uintptr(unsafe.Pointer(&a[0])) != uintptr(act) {
		t.Fatalf("partitions 0 and 1 are not adjacent in one slab after a dense reservation of all 128")
	}
	n := New(isa.Cayman)
	for _, p := range []uint64{0, 1} {
		if err := n.Write(p*st, []byte{1}); err != nil {
			t.Fatal(err)
		}
	}
	if n.slabs[0] != nil {
		t.Fatalf("two partitions written without a reservation made the slab")
	}
}

// FillPieces keeps the pieces Fill hands out (a range across two HBM pages
// allocated apart: two), counted written once; CopyToPieces writes any window of the
// range into them, and Read sees exactly those bytes.
func TestFillPieces(t *testing.T) {
	m := New(isa.Cayman)
	const n = 1000
	at := m.Map.HBMBase + PageSize - 300
	for _, a := range []uint64{at + 300, at} { // the two pages allocated apart: two extents
		if err := m.Write(a, []byte{1}); err != nil {
			t.Fatal(err)
		}
	}
	before := m.Stats.Written[isa.HBM]
	ps, err := m.FillPieces(nil, at, n)
	if err != nil || len(ps) != 2 || ps[0].Off != 0 || ps[1].Off != 300 || len(ps[0].B)+len(ps[1].B) != n {
		t.Fatalf("pieces %d (err %v), want two, at 0 and 300", len(ps), err)
	}
	if w := m.Stats.Written[isa.HBM] - before; w != n {
		t.Fatalf("%d bytes counted written, want %d", w, n)
	}
	want := make([]byte, n)
	for _, win := range [][2]int{{0, 100}, {250, 400}, {300, 1000}, {100, 250}} { // before, across, after the page's end
		data := make([]byte, win[1]-win[0])
		for i := range data {
			data[i] = byte(win[0] + i + 1)
		}
		CopyToPieces(ps, win[0], data)
		copy(want[win[0]:], data)
	}
	got := make([]byte, n)
	if err := m.Read(at, got); err != nil || !bytes.Equal(got, want) {
		t.Fatalf("read back %v, err %v", got[:8], err)
	}
}
