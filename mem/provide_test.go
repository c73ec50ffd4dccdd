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
	for _, tc := range pageCases(true) {
		m := tc.memory()
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

// FuzzProvide: any sequence of writes, copies (page-aligned ones share an
// attached page), in-place updates and row copies reads the same in a
// memory whose HBM pages 8..23 are provided (a zero buffer) as in one
// where they are allocated as usual — and a provided page still stored in
// the buffer holds its bytes there (what a dump written in place keeps).
func FuzzProvide(f *testing.F) {
	f.Add([]byte{0, 9, 0, 0, 1, 1, 2, 10, 3, 0, 4, 0, 0, 3, 5, 17})
	f.Add([]byte{1, 8, 0, 1, 1, 20, 16, 2, 3, 9, 0, 200, 2, 8, 100, 7})
	f.Add([]byte{2, 12, 0, 5, 5, 0, 3, 3, 1, 22, 2, 1, 0, 23, 255, 255})
	f.Fuzz(func(t *testing.T, ops []byte) {
		const pages = 32
		mk := func() *Memory {
			m := New(isa.Cayman)
			m.Attach(hbm0, pattern(8*PageSize, 1))            // pages 0..7 attached
			m.Write(hbm0+24*PageSize, pattern(2*PageSize, 2)) // 24..25 stored
			return m
		}
		a, b := mk(), mk()
		buf := make([]byte, 16*PageSize)
		if n := a.Provide(hbm0+8*PageSize, buf); n != 16*PageSize {
			t.Fatalf("provided %d bytes", n)
		}
		addr := func(p, o byte) uint64 { return hbm0 + uint64(p)%pages*PageSize + uint64(o)*257%PageSize }
		for i := 0; i+4 <= len(ops) && i < 64; i += 4 {
			op, p, o, x := ops[i]%5, ops[i+1], ops[i+2], ops[i+3]
			at := addr(p, o)
			n := (int(x) + 1) * 613 % (3 * PageSize)
			if at+uint64(n) > hbm0+pages*PageSize {
				n = int(hbm0 + pages*PageSize - at)
			}
			for _, m := range []*Memory{a, b} {
				switch op {
				case 0:
					m.Write(at, pattern(n, int(x)))
				case 1: // page to page: shares where the source is attached
					src, dst := hbm0+uint64(p)%pages*PageSize, hbm0+uint64(x)%pages*PageSize
					if src != dst {
						m.Copy(dst, src, PageSize)
					}
				case 2:
					m.Update(at, n, func(d []byte, _ int) {
						for k := range d {
							d[k] += x
						}
					})
				case 3: // an unaligned copy, ranges apart
					src := addr(x, o)
					if src+uint64(n) <= at || at+uint64(n) <= src {
						if src+uint64(n) <= hbm0+pages*PageSize {
							m.Copy(at, src, n)
						}
					}
				case 4: // rows gathered into the range
					rows := []uint64{addr(x, 0), addr(x+3, 1), addr(x+9, 2)}
					dst := []uint64{at, at + 4096, at + 8192}
					if dst[2]+4096 <= hbm0+pages*PageSize && rows[2]+4096 <= hbm0+pages*PageSize {
						overlap := false
						for _, s := range rows {
							overlap = overlap || s < dst[2]+4096 && dst[0] < s+4096
						}
						if !overlap {
							m.CopyRows(dst, rows, 4096)
						}
					}
				}
			}
		}
		ga, gb := make([]byte, pages*PageSize), make([]byte, pages*PageSize)
		a.Read(hbm0, ga)
		b.Read(hbm0, gb)
		if !bytes.Equal(ga, gb) {
			t.Fatal("the memory with provided pages reads differently")
		}
		if a.Stats != b.Stats {
			t.Fatalf("stats %v / %v", a.Stats, b.Stats)
		}
		for p := 8; p < 24; p++ {
			if s := a.Peek(hbm0+uint64(p)*PageSize, PageSize); s != nil && unsafe.SliceData(s) == &buf[(p-8)*PageSize] && !bytes.Equal(s, ga[p*PageSize:(p+1)*PageSize]) {
				t.Fatalf("page %d: in the buffer, yet not its bytes", p)
			}
		}
	})
}
