package mem

import (
	"bytes"
	"testing"
	"unsafe"

	"ndma/isa"
)

// Provide takes the absent whole pages from a page boundary, stops at a
// present page or a lazy range, provides nothing off a boundary or outside
// HBM, and counts pages but no traffic: the memory reads as before.
func TestProvidePages(t *testing.T) {
	for _, tc := range []struct {
		name  string
		addr  uint64
		n     int
		setup func(m *Memory)
		want  int
	}{
		{"whole pages and a tail", hbm0 + 2*PageSize, 5*PageSize + 100, nil, 5 * PageSize},
		{"less than a page", hbm0, PageSize - 1, nil, 0},
		{"off a page boundary", hbm0 + 8, 3 * PageSize, nil, 0},
		{"on chip", 0, 3 * PageSize, nil, 0},
		{"a present page", hbm0, 6 * PageSize, func(m *Memory) { m.Write(hbm0+3*PageSize+5, []byte{1}) }, 3 * PageSize},
		{"an attached page first", hbm0, 6 * PageSize, func(m *Memory) { m.Attach(hbm0, pattern(PageSize, 3)) }, 0},
		{"a lazy range", hbm0, 6 * PageSize, func(m *Memory) { m.Lazy(hbm0+4*PageSize+9, 10, "g", genK(2)) }, 4 * PageSize},
	} {
		m := New(isa.Cayman)
		if tc.setup != nil {
			tc.setup(m)
		}
		before := m.Snapshot()
		pages, stats := m.Pages(), m.Stats
		data := make([]byte, tc.n)
		if got := m.Provide(tc.addr, data); got != tc.want {
			t.Errorf("%s: provided %d bytes, want %d", tc.name, got, tc.want)
			continue
		}
		if m.Pages() != pages+tc.want/PageSize || m.Stats != stats {
			t.Errorf("%s: %d pages → %d, stats %v → %v", tc.name, pages, m.Pages(), stats, m.Stats)
		}
		after := m.Snapshot()
		for k, b := range before { // what was there reads the same; the provided pages read as zero
			if !bytes.Equal(after[k], b) {
				t.Errorf("%s: %s changed", tc.name, k)
			}
		}
		for k, b := range after {
			if _, ok := before[k]; !ok && !bytes.Equal(b, make([]byte, len(b))) {
				t.Errorf("%s: new %s is not zero", tc.name, k)
			}
		}
	}
}

// Provided pages are the memory's storage in place: writes land in data
// (never moved away as an attached page's are), reads and views hand out
// data's own bytes, one run across the pages; a copy of an attached page
// onto one shares the attached page and leaves data alone.
func TestProvideInPlace(t *testing.T) {
	m := New(isa.Cayman)
	data := make([]byte, 4*PageSize+100)
	if n := m.Provide(hbm0+PageSize, data); n != 4*PageSize {
		t.Fatalf("provided %d bytes", n)
	}
	src := pattern(2*PageSize, 9)
	if err := m.Write(hbm0+PageSize+PageSize/2, src); err != nil { // across two provided pages
		t.Fatal(err)
	}
	if !bytes.Equal(data[PageSize/2:PageSize/2+len(src)], src) {
		t.Error("the write did not land in the provided data")
	}
	if err := m.Update(hbm0+PageSize, 8, func(dst []byte, _ int) { dst[0]++ }); err != nil {
		t.Fatal(err)
	}
	if data[0] != 1 {
		t.Errorf("an update in place: data[0] = %d, want 1", data[0])
	}
	var pieces [][]byte
	m.ViewAttached(hbm0+PageSize, 4*PageSize, func(b []byte) error { pieces = append(pieces, b); return nil },
		func(b []byte) (int, error) { t.Error("a provided page handed out as attached"); return 0, nil })
	if len(pieces) != 1 || len(pieces[0]) != 4*PageSize || unsafe.SliceData(pieces[0]) != &data[0] {
		t.Errorf("View handed %d pieces, not data's own 4 pages in one", len(pieces))
	}
	if p := m.Peek(hbm0+2*PageSize, 10); p == nil || unsafe.SliceData(p) != &data[PageSize] {
		t.Error("Peek is not data's own bytes")
	}
	// an attached page copied onto provided page 4 (hbm0+4·PageSize): shared, data untouched there
	att := pattern(PageSize, 10)
	if m.Attach(hbm0+8*PageSize, att) != PageSize {
		t.Fatal("not attached")
	}
	if err := m.Copy(hbm0+4*PageSize, hbm0+8*PageSize, PageSize); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, PageSize)
	m.Read(hbm0+4*PageSize, got)
	if !bytes.Equal(got, att) || !bytes.Equal(data[3*PageSize:4*PageSize], make([]byte, PageSize)) {
		t.Error("the copy onto the provided page: not the attached bytes, or data written")
	}
	if m.Pages() != 5 {
		t.Errorf("%d pages, want 5 (4 provided, 1 attached)", m.Pages())
	}
}
