package mem

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"ndma/isa"
)

// pattern is n bytes no two pages of which are alike.
func pattern(n, seed int) []byte {
	b := make([]byte, n)
	r := rand.New(rand.NewPCG(uint64(seed), 7))
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// pageCase is a run of bytes Attach or Provide is given, on a memory set
// up before, and the bytes it takes.
type pageCase struct {
	name  string
	addr  uint64
	n     int
	setup func(m *Memory)
	want  int
}

// pageCases are the cases Attach and Provide share (with attached, the
// case of an attached page first, which Provide steps back from).
func pageCases(attached bool) []pageCase {
	cs := []pageCase{
		{"whole pages and a tail", hbm0 + 2*PageSize, 5*PageSize + 100, nil, 5 * PageSize},
		{"less than a page", hbm0, PageSize - 1, nil, 0},
		{"off a page boundary", hbm0 + 8, 3 * PageSize, nil, 0},
		{"on chip", 0, 3 * PageSize, nil, 0},
		{"a present page", hbm0, 6 * PageSize, func(m *Memory) { m.Write(hbm0+3*PageSize+5, []byte{1}) }, 3 * PageSize},
		{"a lazy range", hbm0, 6 * PageSize, func(m *Memory) { m.Lazy(hbm0+4*PageSize+9, 10, "g", genK(2)) }, 4 * PageSize},
	}
	if attached {
		cs = append(cs, pageCase{"an attached page first", hbm0, 6 * PageSize, func(m *Memory) { m.Attach(hbm0, pattern(PageSize, 3)) }, 0})
	}
	return cs
}

// memory is a fresh memory set up for the case.
func (tc pageCase) memory() *Memory {
	m := New(isa.Cayman)
	if tc.setup != nil {
		tc.setup(m)
	}
	return m
}

// Attach takes whole pages from a page boundary, stops at a present page
// or a lazy range, and attaches nothing off a boundary or outside HBM.
func TestAttachPages(t *testing.T) {
	for _, tc := range pageCases(false) {
		m := tc.memory()
		pages := m.Pages()
		data := pattern(tc.n, 1)
		if got := m.Attach(tc.addr, data); got != tc.want {
			t.Errorf("%s: attached %d bytes, want %d", tc.name, got, tc.want)
			continue
		}
		if m.Pages() != pages+tc.want/PageSize {
			t.Errorf("%s: %d pages → %d", tc.name, pages, m.Pages())
		}
		got := make([]byte, tc.want)
		m.Read(tc.addr, got)
		if !bytes.Equal(got, data[:tc.want]) {
			t.Errorf("%s: the attached pages do not read as the data", tc.name)
		}
		var viewed []byte // View hands attached pages out through its bounce buffer: the same bytes
		m.View(tc.addr, len(data), func(b []byte) error { viewed = append(viewed, b...); return nil })
		if !bytes.Equal(viewed[:tc.want], data[:tc.want]) || len(viewed) != len(data) {
			t.Errorf("%s: View of the attached pages differs from the data", tc.name)
		}
	}
}

// Attached pages read as the data and behave as memory under every kind of
// write — Write, Fill, Update, Combine, Copy, CopyRows, across the attached end and
// across two attachments side by side — checked against a flat model; the
// data itself is never written (a write moves the pages to memory of their
// own first).
func TestAttachWritesNeverReachData(t *testing.T) {
	const pages = 150 // two attachments: 100 pages (past ownChunk) and 50 after them
	base := uint64(hbm0 + 16*PageSize)
	a, b := pattern(100*PageSize, 2), pattern(50*PageSize+77, 3)
	a0, b0 := bytes.Clone(a), bytes.Clone(b)
	m := New(isa.Cayman)
	if m.Attach(base, a) != len(a) || m.Attach(base+uint64(len(a)), b) != 50*PageSize {
		t.Fatal("attach")
	}
	model := append(bytes.Clone(a), b[:50*PageSize]...)
	model = append(model, make([]byte, 4*PageSize)...) // the pages after: plain memory
	r := rand.New(rand.NewPCG(9, 9))
	for step := range 480 {
		off, n := r.IntN(len(model)-1), 1+r.IntN(3*PageSize)
		n = min(n, len(model)-off)
		switch step % 6 {
		case 5:
			m.Combine(base+uint64(off), n, func(d, old []byte, o int) {
				if len(old) != len(d) {
					t.Fatalf("step %d: Combine handed %d old bytes for %d", step, len(old), len(d))
				}
				for i := range d {
					d[i] = old[i] ^ byte(o+i+1) // every byte written, from old alone
				}
			})
			for i := range n {
				model[off+i] ^= byte(i + 1)
			}
		case 0:
			w := pattern(n, step)
			m.Write(base+uint64(off), w)
			copy(model[off:], w)
		case 1:
			w := pattern(n, step)
			m.Fill(base+uint64(off), n, func(d []byte, o int) { copy(d, w[o:]) })
			copy(model[off:], w)
		case 2:
			m.Update(base+uint64(off), n, func(d []byte, o int) {
				for i := range d {
					d[i] += byte(o + i)
				}
			})
			for i := range n {
				model[off+i] += byte(i)
			}
		case 3:
			src := r.IntN(len(model) - n + 1)
			if src < off+n && off < src+n {
				continue // Copy's ranges must not overlap
			}
			m.Copy(base+uint64(off), base+uint64(src), n)
			copy(model[off:off+n], model[src:src+n])
		case 4:
			k := 1 + r.IntN(8)
			rn := 1 + r.IntN(PageSize/4)
			var dst, src []uint64
			for i := range k {
				d, s := off+i*rn*2, r.IntN(len(model)-rn)
				if d+rn > len(model) {
					break
				}
				dst, src = append(dst, base+uint64(d)), append(src, base+uint64(s))
			}
			lo, hi := len(model), 0
			for _, d := range dst {
				lo, hi = min(lo, int(d-base)), max(hi, int(d-base)+rn)
			}
			clash := false
			for _, s := range src {
				if int(s-base) < hi && lo < int(s-base)+rn {
					clash = true
				}
			}
			if clash || len(dst) == 0 {
				continue
			}
			m.CopyRows(dst, src, rn)
			for i := range dst {
				copy(model[dst[i]-base:dst[i]-base+uint64(rn)], model[src[i]-base:src[i]-base+uint64(rn)])
			}
		}
		if !bytes.Equal(a, a0) || !bytes.Equal(b, b0) {
			t.Fatalf("step %d: a write reached the attached data", step)
		}
	}
	got := make([]byte, len(model))
	m.Read(base, got)
	if !bytes.Equal(got, model) {
		t.Fatal("memory differs from the model")
	}
	if p := m.Pages(); p < pages || p > pages+4 {
		t.Errorf("%d pages, want the %d attached and at most the 4 after them", p, pages)
	}
}

// A copy of attached pages shares them (no bytes move); afterwards each
// side is memory of its own: writing one leaves the other and the data as
// they were. The copy's head and tail (partial pages) are copied as usual.
func TestCopySharesAttachedPages(t *testing.T) {
	m := New(isa.Cayman)
	a, b := uint64(hbm0), uint64(hbm0+0x4000_0000)
	data := pattern(10*PageSize, 5)
	data0 := bytes.Clone(data)
	if m.Attach(a, data) != len(data) {
		t.Fatal("attach")
	}
	pages := m.Pages()
	// from a+100 to b+100: pages 1–8 whole on both sides, a head and a tail
	n := 9*PageSize - 50
	if err := m.Copy(b+100, a+100, n); err != nil {
		t.Fatal(err)
	}
	if m.Pages() != pages+10 { // 8 shared, the head's and the tail's pages stored
		t.Errorf("pages %d → %d, want 10 more", pages, m.Pages())
	}
	want := append(make([]byte, 100), data[100:100+n]...)
	got := make([]byte, len(want))
	m.Read(b, got)
	if !bytes.Equal(got, want) {
		t.Fatal("the copy does not read as the source")
	}
	m.Write(b+3*PageSize+1, []byte{0xee, 0xef}) // inside a shared page, the copy's side
	m.Write(a+5*PageSize+9, []byte{0xdd})       // the source's side
	want[3*PageSize+1], want[3*PageSize+2] = 0xee, 0xef
	m.Read(b, got)
	if !bytes.Equal(got, want) {
		t.Error("after the writes the copy reads wrong")
	}
	src := make([]byte, len(data))
	m.Read(a, src)
	if exp := bytes.Clone(data0); true {
		exp[5*PageSize+9] = 0xdd
		if !bytes.Equal(src, exp) {
			t.Error("after the writes the source reads wrong")
		}
	}
	if !bytes.Equal(data, data0) {
		t.Error("a write reached the attached data")
	}
}

// Combine over attached pages hands the mapping's bytes as old and the new
// storage as dst — apart, so the pages are not copied before f writes them —
// while the bytes of the moved pages outside the range are copied; elsewhere
// old is dst itself. The result, the stats and the pages stored are
// Update's over the same memory, and the data is never written.
func TestCombineAttached(t *testing.T) {
	const pages = 100
	base := uint64(hbm0 + 4*PageSize)
	data := pattern(pages*PageSize, 11)
	data0 := bytes.Clone(data)
	mc, mu := New(isa.Cayman), New(isa.Cayman)
	if mc.Attach(base, data) != len(data) || mu.Attach(base, bytes.Clone(data)) != len(data) {
		t.Fatal("attach")
	}
	// from inside page 2 to inside page 90 (past the attached end's head:
	// the moved chunks' bytes before and after the range must be copied),
	// then on past the attached end into plain memory
	for _, c := range []struct{ off, n int }{{2*PageSize + 10, 88 * PageSize}, {95*PageSize + 3, 10 * PageSize}} {
		a := base + uint64(c.off)
		apart, inPlace := 0, 0
		mc.Combine(a, c.n, func(d, old []byte, o int) {
			if len(old) != len(d) {
				t.Fatalf("Combine handed %d old bytes for %d", len(old), len(d))
			}
			if &old[0] == &d[0] {
				inPlace += len(d)
			} else {
				apart += len(d)
				if at := c.off + o; at >= pages*PageSize || !bytes.Equal(old, data0[at:at+len(d)]) {
					t.Fatalf("old at offset %d is not the attached data", o)
				}
			}
			for i := range d {
				d[i] = old[i] + byte(o+i)
			}
		})
		mu.Update(a, c.n, func(d []byte, o int) {
			for i := range d {
				d[i] += byte(o + i)
			}
		})
		attached := min(c.n, pages*PageSize-c.off)
		if apart != attached || inPlace != c.n-attached {
			t.Errorf("range at %d: %d bytes apart, %d in place; want %d and %d", c.off, apart, inPlace, attached, c.n-attached)
		}
	}
	gc, gu := make([]byte, 120*PageSize), make([]byte, 120*PageSize)
	mc.Read(hbm0, gc)
	mu.Read(hbm0, gu)
	if !bytes.Equal(gc, gu) {
		t.Error("Combine's memory differs from Update's")
	}
	if mc.Stats != mu.Stats || mc.Pages() != mu.Pages() {
		t.Errorf("Combine: stats %+v, %d pages; Update: %+v, %d pages", mc.Stats, mc.Pages(), mu.Stats, mu.Pages())
	}
	if !bytes.Equal(data, data0) {
		t.Error("a write reached the attached data")
	}
}

// A large attached run (320 pages: one extent of 5 ownChunks, taken in one
// access, its head and tail bytes copied) moves to memory of its own under
// Combine and under Write with the same bytes as a flat model.
func TestOwnLargeExtent(t *testing.T) {
	const n = 20 << 20
	data := pattern(n, 12)
	data0 := bytes.Clone(data)
	for _, combine := range []bool{true, false} {
		m := New(isa.Cayman)
		if m.Attach(hbm0, data) != n {
			t.Fatal("attach")
		}
		want := bytes.Clone(data0)
		if combine {
			m.Combine(hbm0+1, n-2, func(d, old []byte, o int) {
				for i := range d {
					d[i] = old[i] ^ byte(o+i)
				}
			})
			for i := 1; i < n-1; i++ {
				want[i] ^= byte(i - 1)
			}
		} else {
			w := pattern(n-2, 13)
			m.Write(hbm0+1, w)
			copy(want[1:], w)
		}
		got := make([]byte, n)
		m.Read(hbm0, got)
		if !bytes.Equal(got, want) {
			t.Errorf("combine %v: memory differs from the model", combine)
		}
	}
	if !bytes.Equal(data, data0) {
		t.Error("a write reached the attached data")
	}
}

// ViewAttached hands the attached pieces to g in place — bytes of the
// attached data itself — and whatever g leaves, with every other piece, to
// f: together, in address order, the bytes Read returns.
func TestViewAttached(t *testing.T) {
	m := New(isa.Cayman)
	a := uint64(hbm0)
	data := pattern(4*PageSize, 9)
	if m.Attach(a, data) != len(data) {
		t.Fatal("attach")
	}
	if err := m.Write(a+PageSize+10, []byte{1, 2, 3}); err != nil { // page 1 becomes the memory's own
		t.Fatal(err)
	}
	lo, n := a+100, 5*PageSize-300 // into the absent page after the attached ones
	want := make([]byte, n)
	if err := m.Read(lo, want); err != nil {
		t.Fatal(err)
	}
	var got []byte
	inPlace, calls := 0, 0
	err := m.ViewAttached(lo, n, func(b []byte) error { got = append(got, b...); return nil }, func(b []byte) (int, error) {
		if &b[0] != &data[int(uint64(len(got))+lo-a)] {
			t.Fatalf("g was handed a piece that is not the attached data's own bytes")
		}
		if calls++; calls%2 == 0 {
			return 0, nil // this one left to f, through the bounce buffer
		}
		k := (len(b) + 1) / 2 // half of it, the rest offered again
		got, inPlace = append(got, b[:k]...), inPlace+k
		return k, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("the pieces of f and g are not Read's bytes in order")
	}
	if inPlace == 0 || inPlace >= len(want) {
		t.Fatalf("g took %d of %d bytes: the attached pages 0, 2 and 3 hold some of them, not all", inPlace, len(want))
	}
}
