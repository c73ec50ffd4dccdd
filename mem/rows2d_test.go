package mem

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"ndma/isa"
)

// flat is the test's model of the memory a trial touches: spans of address
// space as plain bytes, copied one byte at a time.
type flat struct {
	segs []flatSeg
}

type flatSeg struct {
	a uint64
	b []byte
}

func (f *flat) byteAt(a uint64) *byte {
	for i := range f.segs {
		if s := &f.segs[i]; a >= s.a && a-s.a < uint64(len(s.b)) {
			return &s.b[a-s.a]
		}
	}
	panic(fmt.Sprintf("address %#x outside the model", a))
}

// has reports whether the model holds every byte of [a, a+n) (its rows are
// valid memory).
func (f *flat) has(a uint64, n int) bool {
	for _, s := range f.segs {
		if a >= s.a && a-s.a <= uint64(len(s.b)) && uint64(len(s.b))-(a-s.a) >= uint64(n) {
			return true
		}
	}
	return false
}

// write sets [a, a+len(b)), which one span holds.
func (f *flat) write(a uint64, b []byte) {
	for i := range f.segs {
		if s := &f.segs[i]; a >= s.a && a-s.a <= uint64(len(s.b)) && uint64(len(s.b))-(a-s.a) >= uint64(len(b)) {
			copy(s.b[a-s.a:], b)
			return
		}
	}
	panic(fmt.Sprintf("[%#x, +%d) outside the model", a, len(b)))
}

// copyRow is one row of a strided copy, byte by byte.
func (f *flat) copyRow(dst, src uint64, n int) {
	tmp := make([]byte, n) // a row reads before it writes (the legs are disjoint anyway)
	for i := range tmp {
		tmp[i] = *f.byteAt(src + uint64(i))
	}
	f.write(dst, tmp)
}

// trialMem is the memory of a trial: an HBM area of 16 pages (the src half
// and the dst half), some of it a lazy range, some pages stored whole, some
// in part, some absent; SBUF partitions 0–3, some written, some absent.
type trialMem struct {
	m    *Memory
	hbmA uint64 // the HBM area: [hbmA, hbmA+16 pages)
}

const trialPages = 16

func newTrial(model *flat, lazy bool, writes [][2]int, data []byte) trialMem {
	m := New(isa.Cayman)
	hbmA := uint64(hbm0 + 5*PageSize)
	if model != nil {
		model.segs = append(model.segs, flatSeg{hbmA, make([]byte, trialPages*PageSize)})
		for p := range 4 {
			model.segs = append(model.segs, flatSeg{uint64(p) * m.Map.SBUFStride, make([]byte, m.Map.SBUFActive)})
		}
	}
	if lazy { // pages 1.5 to 6.25 of the src half, and page 12 on of the dst half
		for _, l := range [][2]int{{PageSize * 3 / 2, PageSize*6 + PageSize/4}, {12 * PageSize, 14*PageSize + 77}} {
			if err := m.Lazy(hbmA+uint64(l[0]), l[1]-l[0], "", genK(l[0])); err != nil {
				panic(err)
			}
			if model != nil {
				model.write(hbmA+uint64(l[0]), want(l[0], 0, l[1]-l[0]))
			}
		}
	}
	for _, w := range writes { // [offset in the area (or −1 − SBUF offset), length]
		a := hbmA + uint64(w[0])
		if w[0] < 0 {
			a = uint64(-1 - w[0])
		}
		if err := m.Write(a, data[:w[1]]); err != nil {
			panic(err)
		}
		if model != nil {
			model.write(a, data[:w[1]])
		}
	}
	return trialMem{m, hbmA}
}

// copyRef is the reference a strided copy is held to: CopyRows of its rows,
// or, when the dst rows overlap one another (which CopyRows' rows must not:
// a lazy source's owed bytes would land after the later rows), CopyRows'
// checks and then each row read and written in order.
func copyRef(m *Memory, dst, src []uint64, n int, overlap bool) (int, error) {
	if !overlap {
		return m.CopyRows(dst, src, n)
	}
	if k, err := m.CheckRows(src, n); err != nil {
		return k, err
	}
	if k, err := m.CheckRows(dst, n); err != nil {
		return k, err
	}
	buf := make([]byte, n)
	for i := range src {
		m.Read(src[i], buf)
		m.Write(dst[i], buf)
	}
	return 0, nil
}

// A strided copy of random rows — sizes 1 B to past a page, steps positive,
// negative, zero and shorter than a row, spans across 64 KiB pages and SBUF
// partitions, sources stored, partly stored, absent and lazy — leaves the
// bytes a byte-by-byte model of the rows in order leaves, and the stats,
// touched units and pages CopyRows of the same rows records; a bad row
// refuses the copy as CopyRows does (same row, same error, nothing
// changed).
func TestCopyStridedAgainstModel(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 2))
	data := make([]byte, 2*PageSize)
	for i := range data {
		data[i] = byte(r.Uint32())
	}
	sizes := []int{1, 2, 3, 4, 7, 8, 16, 32, 63, 64, 65, 100, 128, 4096, 5000, PageSize + 300}
	faults, moved := 0, 0
	for trial := range 200 {
		lazy := trial%3 != 0
		var writes [][2]int
		for p := range trialPages {
			switch r.IntN(4) {
			case 0: // absent
			case 1:
				writes = append(writes, [2]int{p * PageSize, PageSize})
			default: // part of a page: the page is stored, the rest of it zero (or generated)
				off := r.IntN(PageSize)
				writes = append(writes, [2]int{p*PageSize + off, 1 + r.IntN(PageSize-off)})
			}
		}
		for p := range 3 { // SBUF partitions 0–2 written in part; 3 absent
			if r.IntN(3) > 0 {
				writes = append(writes, [2]int{-1 - p*int(isa.Map(isa.Cayman).SBUFStride) - r.IntN(1000), 1 + r.IntN(5000)})
			}
		}
		model := &flat{}
		a := newTrial(model, lazy, writes, data)
		b := newTrial(nil, lazy, writes, data)
		ta, tb := NewTouched(), NewTouched()
		a.m.Track(ta)
		b.m.Track(tb)
		for cp := range 3 { // three copies: later ones read what earlier ones wrote
			n := sizes[r.IntN(len(sizes))]
			count := 1 + r.IntN(300)
			if r.IntN(4) == 0 {
				count = 1 + r.IntN(8)
			}
			step := func(zeroOK bool) int64 {
				switch r.IntN(9) {
				case 0:
					if zeroOK {
						return 0
					}
					return int64(n)
				case 1:
					return -int64(n + r.IntN(200))
				case 2:
					return int64(n)
				case 3:
					return int64(PageSize + r.IntN(3000)) // a page or more between rows
				case 4:
					return int64(max(1, n/2)) // overlapping rows
				case 5:
					return int64(a.m.Map.SBUFStride) + int64(r.IntN(64)) // one row a partition
				default:
					return int64(n + r.IntN(3*n+1))
				}
			}
			ss, ds := step(true), step(true)
			// places: the src half of the HBM area, the dst half, or SBUF
			place := func(half int, step int64) uint64 {
				span := int64(count-1) * step
				lo := int64(0)
				if span < 0 {
					lo = -span
				}
				if r.IntN(8) == 0 { // to the end of SBUF partition 1 or 3: a later row (or the first) runs past its active bytes
					return uint64(int64(half*2+1)*int64(a.m.Map.SBUFStride) + int64(a.m.Map.SBUFActive) - int64(r.IntN(n*count/2+n)))
				}
				if r.IntN(3) == 0 { // SBUF: half 0 partitions 0–1, half 1 partitions 2–3
					return uint64(int64(half)*2*int64(a.m.Map.SBUFStride) + lo + int64(r.IntN(4096)))
				}
				return uint64(int64(a.hbmA) + int64(half*trialPages/2*PageSize) + lo + int64(r.IntN(PageSize*3)))
			}
			sa, da := place(0, ss), place(1, ds)
			src, dst := make([]uint64, count), make([]uint64, count)
			valid, disjoint := true, true // every row in the model; the legs in their halves
			mid := a.hbmA + trialPages/2*PageSize
			for i := range count {
				src[i], dst[i] = at(sa, ss, i), at(da, ds, i)
				valid = valid && model.has(src[i], n) && model.has(dst[i], n)
				if src[i]+uint64(n) > mid && src[i] < a.m.Map.HBMEnd || dst[i] < mid && dst[i] >= a.hbmA ||
					src[i] < a.hbmA && src[i]/a.m.Map.SBUFStride > 1 || dst[i] < a.hbmA && dst[i]/a.m.Map.SBUFStride < 2 {
					disjoint = false // a leg strays into the other's half: the legs might overlap
				}
			}
			if !disjoint || !valid && r.IntN(4) > 0 {
				continue
			}
			var before map[string][]byte
			if !valid {
				before = a.m.Snapshot()
			}
			a.m.Stats, b.m.Stats = Stats{}, Stats{} // the model's reads below count too
			ka, errA := a.m.CopyStrided(da, ds, sa, ss, n, count)
			kb, errB := copyRef(b.m, dst, src, n, count > 1 && ds < int64(n) && ds > -int64(n))
			what := fmt.Sprintf("trial %d copy %d: %d rows of %d, src %#x step %d, dst %#x step %d", trial, cp, count, n, sa, ss, da, ds)
			if (errA == nil) != (errB == nil) || errA != nil && (ka != kb || errA.Error() != errB.Error()) {
				t.Fatalf("%s: CopyStrided row %d %v, CopyRows row %d %v", what, ka, errA, kb, errB)
			}
			if errA != nil {
				if valid {
					t.Fatalf("%s: refused valid rows: %v", what, errA)
				}
				faults++
				if !equalSnap(before, a.m.Snapshot()) || a.m.Stats != (Stats{}) || b.m.Stats != (Stats{}) {
					t.Fatalf("%s: a refused copy changed memory or stats", what)
				}
				continue
			}
			if !valid { // valid memory the model does not hold: CopyRows is the reference from here on
				if !equalSnap(a.m.Snapshot(), b.m.Snapshot()) || a.m.Stats != b.m.Stats {
					t.Fatalf("%s: memory or stats differ from CopyRows'", what)
				}
				break
			}
			moved++
			for i := range count {
				model.copyRow(dst[i], src[i], n)
			}
			if a.m.Stats != b.m.Stats {
				t.Fatalf("%s: stats %v, CopyRows %v", what, a.m.Stats, b.m.Stats)
			}
			if a.m.Pages() != b.m.Pages() {
				t.Fatalf("%s: %d pages, CopyRows %d", what, a.m.Pages(), b.m.Pages())
			}
			if !reflect.DeepEqual(ta, tb) {
				t.Fatalf("%s: touched %v, CopyRows %v", what, ta, tb)
			}
			for _, s := range model.segs {
				got := make([]byte, len(s.b))
				if err := a.m.Read(s.a, got); err != nil {
					t.Fatal(err)
				}
				if i, _, _, ok := firstByte(got, s.b); ok {
					gb := make([]byte, len(s.b))
					b.m.Read(s.a, gb)
					t.Fatalf("%s: byte %#x is %#x, the model %#x, CopyRows %#x", what, s.a+uint64(i), got[i], s.b[i], gb[i])
				}
			}
		}
		if !equalSnap(a.m.Snapshot(), b.m.Snapshot()) {
			t.Fatalf("trial %d: memory differs from CopyRows'", trial)
		}
	}
	t.Logf("%d refused copies, %d made", faults, moved)
	if faults < 15 || moved < 200 {
		t.Fatalf("%d refused copies and %d made: the trials do not cover both", faults, moved)
	}
}

// The fast path's own cases against the model: dense rows across one HBM
// extent and across separately allocated pages, a broadcast source (step
// 0), descending legs, and a lazy source, every row size the copy loop
// special-cases.
func TestCopyStridedLoop(t *testing.T) {
	for _, n := range []int{1, 2, 4, 8, 16, 32, 64, 24, 200} {
		for _, c := range []struct {
			name   string
			ss, ds int64
			lazy   bool
		}{
			{"strided src", 2 * int64(n), int64(n), false},
			{"strided dst", int64(n), 3 * int64(n), false},
			{"broadcast", 0, int64(n), false},
			{"descending", -2 * int64(n), -int64(n) - 5, false},
			{"lazy src", int64(n) + 3, int64(n), true},
		} {
			count := 3 * PageSize / (2 * n) // across pages on both sides, within the halves
			for int64(count)*max(c.ss, -c.ss, c.ds, -c.ds) > 7*PageSize {
				count /= 2
			}
			model := &flat{}
			var writes [][2]int
			for p := 0; p < trialPages/2; p += 2 { // every other src page stored: extents end
				writes = append(writes, [2]int{p * PageSize, PageSize})
			}
			data := make([]byte, PageSize)
			for i := range data {
				data[i] = byte(i*7 + i>>8)
			}
			a := newTrial(model, c.lazy, writes, data)
			sa, da := a.hbmA+10, a.hbmA+trialPages/2*PageSize+100
			if c.ss < 0 {
				sa += uint64(-c.ss) * uint64(count)
			}
			if c.ds < 0 {
				da += uint64(-c.ds) * uint64(count)
			}
			if _, err := a.m.CopyStrided(da, c.ds, sa, c.ss, n, count); err != nil {
				t.Fatalf("%s, n %d: %v", c.name, n, err)
			}
			for i := range count {
				model.copyRow(at(da, c.ds, i), at(sa, c.ss, i), n)
			}
			if want := uint64(count * n); a.m.Stats.Read[isa.HBM] != want || a.m.Stats.Written[isa.HBM] != want+uint64(len(writes)*PageSize) {
				t.Fatalf("%s, n %d: stats %v, want %d read and %d written", c.name, n, a.m.Stats, want, want+uint64(len(writes)*PageSize))
			}
			got := make([]byte, len(model.segs[0].b))
			a.m.Read(model.segs[0].a, got)
			if !bytes.Equal(got, model.segs[0].b) {
				i, _, _, _ := firstByte(got, model.segs[0].b)
				t.Fatalf("%s, n %d: byte %#x is %#x, the model %#x", c.name, n, model.segs[0].a+uint64(i), got[i], model.segs[0].b[i])
			}
		}
	}
}

// Copies of a MiB and more whose rows are whole 16-byte blocks on 16-byte
// boundaries take the stores that bypass the cache (rowsNT on amd64): the
// same bytes as the model, rows ascending, descending and repeated, the
// 64-byte loop and the 16-byte one; an unaligned destination takes the
// ordinary loop.
func TestCopyStridedLarge(t *testing.T) {
	const srcA, dstA = hbm0, hbm0 + 64<<20
	const span = 24 << 20 // each leg's area
	data := make([]byte, span)
	r := rand.New(rand.NewPCG(3, 4))
	for i := range data {
		data[i] = byte(r.Uint32())
	}
	m := New(isa.Cayman)
	if err := m.Write(srcA, data); err != nil {
		t.Fatal(err)
	}
	model := &flat{segs: []flatSeg{{srcA, append([]byte(nil), data...)}, {dstA, make([]byte, span)}}}
	for _, c := range []struct {
		n      int
		ss, ds int64
		dOff   uint64
	}{
		{64, 128, 64, 0},
		{64, -192, 64, 0},
		{64, 0, 80, 0},
		{48, 96, 48, 0},
		{4096, 4096 + 160, 4096 + 16, 0},
		{16, 64, 16, 0},
		{64, 128, 64, 3}, // unaligned: the ordinary loop
		{80, 160, 96, 0}, // a 64-byte block and a 16-byte one a row
		{208, -208, 224, 0},
	} {
		count := (2<<20)/c.n + 3 // not a multiple of the four rows the 64-byte loop takes at a time
		sa, da := uint64(srcA+100), dstA+c.dOff
		if c.ss < 0 {
			sa += uint64(-c.ss) * uint64(count)
		}
		if _, err := m.CopyStrided(da, c.ds, sa, c.ss, c.n, count); err != nil {
			t.Fatal(err)
		}
		for i := range count {
			model.copyRow(at(da, c.ds, i), at(sa, c.ss, i), c.n)
		}
		got := make([]byte, span)
		m.Read(dstA, got)
		if i, _, _, ok := firstByte(got, model.segs[1].b); ok {
			t.Fatalf("%d rows of %d, steps %d and %d: dst byte %#x is %#x, the model %#x", count, c.n, c.ss, c.ds, i, got[i], model.segs[1].b[i])
		}
	}
}

// FuzzCopyStrided: any strided copy of disjoint legs over the trial memory
// (HBM pages stored, in part, absent and lazy; SBUF partitions) does what
// copyRef does — CopyRows of the rows, or row by row when the dst rows
// overlap: the same error and row, bytes, stats, touched units and pages.
func FuzzCopyStrided(f *testing.F) {
	f.Add(uint32(100), int32(128), uint32(70000), int32(64), uint16(64), uint16(300), uint8(0))
	f.Add(uint32(5000), int32(-200), uint32(3), int32(0), uint16(8), uint16(40), uint8(7))
	f.Add(uint32(0), int32(262144), uint32(1<<19), int32(16), uint16(4096), uint16(4), uint8(2))
	f.Add(uint32(65530), int32(16), uint32(65536*9-8), int32(16), uint16(16), uint16(2000), uint8(13))
	f.Fuzz(func(t *testing.T, so uint32, ss int32, do uint32, ds int32, n16, count16 uint16, layout uint8) {
		n, count := int(n16)%(PageSize+1000), int(count16)%3000
		if n == 0 {
			return // CopyRows' rows hold a byte at least (of 0 bytes it panics: found here)
		}
		var writes [][2]int
		for p := range trialPages { // stored, in part, absent, as layout's bits say
			switch (int(layout) + p*5) % 3 {
			case 0:
				writes = append(writes, [2]int{p * PageSize, PageSize})
			case 1:
				writes = append(writes, [2]int{p*PageSize + 4000, 9000})
			}
		}
		writes = append(writes, [2]int{-1 - 17, 3000})
		data := make([]byte, PageSize)
		for i := range data {
			data[i] = byte(i*5 + i>>9)
		}
		lazy := layout&8 != 0
		a, b := newTrial(nil, lazy, writes, data), newTrial(nil, lazy, writes, data)
		base := func(sbuf bool, off uint32) uint64 { // HBM area halves, or SBUF partitions 0–1 / 2–3
			if sbuf {
				return uint64(off) % (4 << 20)
			}
			return a.hbmA + uint64(off)%(trialPages*PageSize)
		}
		sa, da := base(layout&16 != 0, so), base(layout&32 != 0, do)
		if count > 0 && n > 0 { // the legs must not overlap: skip a pair whose spans meet
			s, d := stridedSpan(sa, int64(ss), n, count), stridedSpan(da, int64(ds), n, count)
			if !s.ok || !d.ok || s.lo < d.hi && d.lo < s.hi {
				return
			}
		}
		src, dst := make([]uint64, count), make([]uint64, count)
		for i := range count {
			src[i], dst[i] = at(sa, int64(ss), i), at(da, int64(ds), i)
		}
		ta, tb := NewTouched(), NewTouched()
		a.m.Track(ta)
		b.m.Track(tb)
		ka, errA := a.m.CopyStrided(da, int64(ds), sa, int64(ss), n, count)
		kb, errB := copyRef(b.m, dst, src, n, count > 1 && int64(ds) < int64(n) && int64(ds) > -int64(n))
		if (errA == nil) != (errB == nil) || errA != nil && (ka != kb || errA.Error() != errB.Error()) {
			t.Fatalf("CopyStrided row %d %v, reference row %d %v", ka, errA, kb, errB)
		}
		if a.m.Stats != b.m.Stats || a.m.Pages() != b.m.Pages() || !reflect.DeepEqual(ta, tb) {
			t.Fatalf("stats %v / %v, pages %d / %d, touched equal %v", a.m.Stats, b.m.Stats, a.m.Pages(), b.m.Pages(), reflect.DeepEqual(ta, tb))
		}
		if !equalSnap(a.m.Snapshot(), b.m.Snapshot()) {
			t.Fatal("memory differs from the reference's")
		}
	})
}
