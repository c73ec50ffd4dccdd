package mem

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"ndma/internal/testutil"
	"strings"
	"testing"

	"ndma/internal/hugemem"
	"ndma/isa"
)

// The boundaries below are field-tables §7 and §11.2 worked by hand: SBUF
// stride 256 KiB (v2–v4) / 1 MiB (v5), active 192/224/256/512 KiB, PSUM at
// 0x2000000 with a 32 KiB stride and 16 KiB active (none on v5), HBM
// [4 GiB, 128 GiB).
func TestCheckBoundaries(t *testing.T) {
	tests := []struct {
		gen   isa.Gen
		addr  uint64
		n     int
		where string // "" = the access is allowed
		why   string
	}{
		{isa.Sunda, 0x2FFFF, 1, "", ""},
		{isa.Sunda, 0x30000, 1, "sbuf partition 0 offset 0x30000", "beyond the 192 KiB"},
		{isa.Cayman, 3<<18 + 0x37FFF, 1, "", ""},
		{isa.Cayman, 3<<18 + 0x37FF0, 17, "sbuf partition 3 offset 0x37ff0", "beyond the 224 KiB"},
		{isa.Cayman, 127<<18 + 0x38000, 1, "sbuf partition 127 offset 0x38000", "224 KiB"},
		{isa.Mariana, 0x3FFFF, 1, "", ""},
		{isa.Mariana, 0x3FFFF, 2, "sbuf partition 0 offset 0x3ffff", "256 KiB"},
		{isa.Mariana, 0x2000000, 16 << 10, "", ""},
		{isa.Mariana, 0x2000000 + 5<<15 + 0x3FFF, 2, "psum partition 5 offset 0x3fff", "16 KiB"},
		{isa.Cayman, 0x2400000, 1, "unmapped", "not in SBUF"},
		{isa.Maverick, 5<<20 + 0x7FFFF, 1, "", ""},
		{isa.Maverick, 5<<20 + 0x80000, 1, "sbuf partition 5 offset 0x80000", "512 KiB"},
		{isa.Maverick, 0x2000000, 1, "", ""}, // v5: partition 32, not PSUM
		{isa.Maverick, 0x8000000, 1, "unmapped", ""},
		{isa.Cayman, 0x1_0000_0000, 3 * PageSize, "", ""},
		{isa.Cayman, 0x20_0000_0000 - 1, 1, "", ""},
		{isa.Cayman, 0x20_0000_0000 - 1, 2, "hbm offset", "runs past the HBM window"},
		{isa.Cayman, 0x20_0000_0000, 1, "unmapped", ""},
		{isa.Cayman, 0xFFFF_FFFF, 1, "unmapped", ""},
	}
	for _, tc := range tests {
		m := New(tc.gen)
		err := m.Check(tc.addr, tc.n)
		if tc.where == "" {
			if err != nil {
				t.Errorf("%s Check(%#x, %d) = %v, want ok", tc.gen, tc.addr, tc.n, err)
			}
			continue
		}
		var f *Fault
		if !errors.As(err, &f) {
			t.Errorf("%s Check(%#x, %d) = %v, want a Fault", tc.gen, tc.addr, tc.n, err)
			continue
		}
		if !strings.Contains(f.Where, tc.where) || !strings.Contains(f.Reason, tc.why) {
			t.Errorf("%s Check(%#x, %d) = %q, want where %q and reason %q", tc.gen, tc.addr, tc.n, err, tc.where, tc.why)
		}
		// Read, Write and Copy refuse the same access, and a refused write
		// changes nothing (no half-written result).
		before := m.Snapshot()
		if err := m.Write(tc.addr, make([]byte, tc.n)); err == nil {
			t.Errorf("%s Write(%#x, %d) succeeded where Check faults", tc.gen, tc.addr, tc.n)
		}
		if err := m.Read(tc.addr, make([]byte, tc.n)); err == nil {
			t.Errorf("%s Read(%#x, %d) succeeded where Check faults", tc.gen, tc.addr, tc.n)
		}
		if !equalSnap(before, m.Snapshot()) {
			t.Errorf("%s: a refused access changed memory", tc.gen)
		}
	}
}

// A write that starts in range and runs out of it must leave nothing behind.
func TestWriteAtomicAtEdge(t *testing.T) {
	m := New(isa.Cayman)
	end := m.Map.HBMEnd
	src := bytes.Repeat([]byte{0xAB}, 2*PageSize)
	if err := m.Write(end-PageSize-10, src); err == nil {
		t.Fatal("Write across the end of HBM succeeded")
	}
	if m.Pages() != 0 {
		t.Errorf("a refused Write allocated %d pages", m.Pages())
	}
	if err := m.Copy(end-PageSize-10, 0x1_0000_0000, 2*PageSize); err == nil {
		t.Fatal("Copy across the end of HBM succeeded")
	}
	if m.Pages() != 0 || m.Stats.Written != [4]uint64{} {
		t.Errorf("a refused Copy wrote: %d pages, stats %v", m.Pages(), m.Stats.Written)
	}
	// SBUF: the last 8 bytes of partition 2's active window plus 8 beyond.
	a := uint64(2<<18 + 0x38000 - 8)
	if err := m.Write(a, make([]byte, 16)); err == nil {
		t.Fatal("Write beyond the active partition succeeded")
	}
	if got := m.Snapshot(); len(got) != 1 { // only "sems"
		t.Errorf("a refused SBUF write touched %d regions", len(got)-1)
	}
}

// Bytes written across HBM page and SBUF partition layouts read back the
// same, through Read and through Copy, and untouched memory reads as zero
// without being allocated.
func TestReadWriteCopy(t *testing.T) {
	m := New(isa.Cayman)
	pattern := make([]byte, PageSize+100)
	for i := range pattern {
		pattern[i] = byte(i*7 + i>>8)
	}
	base := uint64(0x1_0000_0000 + 5*PageSize - 50) // straddles pages 5, 6 and 7
	if err := m.Write(base, pattern); err != nil {
		t.Fatal(err)
	}
	if m.Pages() != 3 {
		t.Errorf("Pages() = %d, want 3 (the write covers pages 5, 6, 7)", m.Pages())
	}
	got := make([]byte, len(pattern))
	if err := m.Read(base, got); err != nil || !bytes.Equal(got, pattern) {
		t.Fatalf("Read back: err %v, equal %v", err, bytes.Equal(got, pattern))
	}
	zero := make([]byte, 4096)
	for i := range zero {
		zero[i] = 0xFF
	}
	if err := m.Read(0x1_0000_0000+100*PageSize, zero); err != nil || !bytes.Equal(zero, make([]byte, 4096)) {
		t.Errorf("untouched HBM did not read as zero (err %v)", err)
	}
	if m.Pages() != 3 {
		t.Errorf("a read allocated pages: %d", m.Pages())
	}

	// HBM → SBUF partition 9, then SBUF → another HBM spot across a page.
	sb := uint64(9<<18 + 0x100)
	if err := m.Copy(sb, base+10, 1000); err != nil {
		t.Fatal(err)
	}
	back := uint64(0x1_0000_0000 + 40*PageSize - 300)
	if err := m.Copy(back, sb, 1000); err != nil {
		t.Fatal(err)
	}
	got = make([]byte, 1000)
	if err := m.Read(back, got); err != nil || !bytes.Equal(got, pattern[10:1010]) {
		t.Errorf("HBM→SBUF→HBM copy differs (err %v)", err)
	}
	// Copying untouched memory writes zeros over what was there.
	if err := m.Copy(back, 0x1_0000_0000+200*PageSize, 1000); err != nil {
		t.Fatal(err)
	}
	if err := m.Read(back, got); err != nil || !bytes.Equal(got, make([]byte, 1000)) {
		t.Errorf("copy of untouched memory did not zero the destination")
	}
	// Stats: region-indexed byte counts of everything above.
	wantW := [4]uint64{isa.SBUF: 1000, isa.HBM: uint64(len(pattern)) + 1000 + 1000}
	if m.Stats.Written != wantW {
		t.Errorf("Stats.Written = %v, want %v", m.Stats.Written, wantW)
	}
}

func equalSnap(a, b map[string][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if !bytes.Equal(v, b[k]) {
			return false
		}
	}
	return true
}

// CopyRows against a naive row-by-row Read/Write on a second memory: random
// gathers (rows across page boundaries, untouched rows, SBUF and HBM mixed)
// and contiguous runs leave the same bytes and the same stats.
func TestCopyRowsAgainstNaive(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	for trial := 0; trial < testutil.Trials(40); trial++ {
		n := []int{4, 512, 3000, PageSize + 8}[trial%4]
		rows := 1 + r.IntN(200)
		a, b := New(isa.Cayman), New(isa.Cayman)
		data := make([]byte, 64*PageSize)
		for i := range data {
			data[i] = byte(r.Uint32())
		}
		for _, m := range []*Memory{a, b} {
			if err := m.Write(0x1_0000_0000, data[:40*PageSize]); err != nil { // pages 40.. stay untouched
				t.Fatal(err)
			}
			if err := m.Write(3<<18, data[:4096]); err != nil {
				t.Fatal(err)
			}
		}
		src, dst := make([]uint64, rows), make([]uint64, rows)
		contiguous := trial%3 == 0
		strided := trial%5 == 4 // rows a constant step apart on both sides (copyStrided)
		ss, ds := uint64(n+r.IntN(3*n)), uint64(n+r.IntN(3*n))
		if strided {
			rows = 8 + r.IntN(200)
			for uint64(rows)*ss > 39*PageSize {
				rows /= 2
			}
			src, dst = make([]uint64, rows), make([]uint64, rows)
		}
		dbase := uint64(0x1_0100_0000)
		if trial%2 == 1 {
			dbase += 100 // mid-page: no page past the rows may be allocated (found by FuzzExecDiff)
		}
		for k := range src {
			switch {
			case strided:
				src[k], dst[k] = 0x1_0000_0000+uint64(k)*ss, dbase+uint64(k)*ds
			case contiguous:
				src[k], dst[k] = 0x1_0000_0000+uint64(k*n), dbase+uint64(k*n)
			case n <= 4096 && r.IntN(4) == 0: // an SBUF row
				src[k] = uint64(r.IntN(8))<<18 + uint64(r.IntN(4096-n+1))
				dst[k] = dbase + uint64(k*n)
			default:
				src[k] = 0x1_0000_0000 + uint64(r.IntN(60*PageSize))
				dst[k] = dbase + uint64(k*n)
			}
		}
		a.Stats, b.Stats = Stats{}, Stats{}
		if k, err := a.CopyRows(dst, src, n); err != nil {
			t.Fatalf("trial %d: CopyRows row %d: %v", trial, k, err)
		}
		buf := make([]byte, n)
		for k := range src {
			if err := b.Read(src[k], buf); err != nil {
				t.Fatal(err)
			}
			if err := b.Write(dst[k], buf); err != nil {
				t.Fatal(err)
			}
		}
		if !equalSnap(a.Snapshot(), b.Snapshot()) {
			t.Fatalf("trial %d (n %d, %d rows, contiguous %v): memory differs from the naive copy", trial, n, rows, contiguous)
		}
		if a.Stats != b.Stats {
			t.Errorf("trial %d: stats %v, naive %v", trial, a.Stats, b.Stats)
		}
	}
}

// A bad row anywhere refuses the whole CopyRows and names the row.
func TestCopyRowsFault(t *testing.T) {
	m := New(isa.Cayman)
	src := []uint64{0x1_0000_0000, 0x1_0000_1000, 2<<18 + 0x37FFF, 0x1_0000_2000}
	dst := []uint64{0x1_0001_0000, 0x1_0001_1000, 0x1_0001_2000, 0x1_0001_3000}
	before := m.Snapshot()
	k, err := m.CopyRows(dst, src, 2)
	if err == nil || k != 2 || !strings.Contains(err.Error(), "sbuf partition 2 offset 0x37fff") {
		t.Fatalf("CopyRows = row %d, %v; want row 2 at sbuf partition 2 offset 0x37fff", k, err)
	}
	src[2] = 0x1_0000_3000
	dst[3] = 0x20_0000_0000 - 1 // its second byte is past HBM
	if k, err := m.CopyRows(dst, src, 2); err == nil || k != 3 || !strings.Contains(err.Error(), "runs past the HBM window") {
		t.Fatalf("CopyRows = row %d, %v; want row 3 past the HBM window", k, err)
	}
	if _, err := m.CopyRows(dst, src[:3], 2); err == nil {
		t.Fatal("CopyRows accepted 3 src rows for 4 dst rows")
	}
	if !equalSnap(before, m.Snapshot()) || m.Pages() != 0 {
		t.Fatal("a refused CopyRows changed memory")
	}
}

// Pages allocated at different times are separate extents even where their
// addresses follow each other; accesses across them must not merge them.
func TestExtentsAcrossSeparatePages(t *testing.T) {
	m := New(isa.Cayman)
	base := uint64(0x1_0000_0000)
	want := make([]byte, 7*PageSize)
	write := func(off uint64, b []byte) {
		t.Helper()
		if err := m.Write(base+off, b); err != nil {
			t.Fatal(err)
		}
		copy(want[off:], b)
	}
	write(2*PageSize+5, []byte{1})                              // page 2 alone
	write(3*PageSize+7, []byte{2})                              // page 3 alone
	write(PageSize-3, bytes.Repeat([]byte{3}, 4*PageSize))      // pages 0–1 one extent, 2–3 present, 4 alone
	write(4*PageSize-9, bytes.Repeat([]byte{4}, 2*PageSize+20)) // spans 3–6: 5–6 a new extent
	if m.Pages() != 7 {
		t.Errorf("Pages() = %d, want 7", m.Pages())
	}
	got := make([]byte, len(want))
	if err := m.Read(base, got); err != nil || !bytes.Equal(got, want) {
		t.Fatalf("read back across separate extents differs (err %v)", err)
	}
	// a copy across them, both directions of overlap-free placement
	if err := m.Copy(base+0x100_0000+3, base+1, 7*PageSize-1); err != nil {
		t.Fatal(err)
	}
	got = make([]byte, 7*PageSize-1)
	if err := m.Read(base+0x100_0000+3, got); err != nil || !bytes.Equal(got, want[1:]) {
		t.Fatalf("copy across separate extents differs (err %v)", err)
	}
}

// View hands out exactly what Read returns — over written extents, single
// pages, untouched pages, a lazy range and SBUF — and stops at f's error;
// an extent of hugemem.Min bytes or more reads and copies as a small one.
func TestViewIsRead(t *testing.T) {
	m := New(isa.Cayman)
	const base = 0x1_0000_0000
	big := make([]byte, hugemem.Min+3*PageSize)
	for i := range big {
		big[i] = byte(i*13 + i>>12)
	}
	if err := m.Write(base+PageSize/2, big); err != nil { // one extent past hugemem.Min
		t.Fatal(err)
	}
	if err := m.Write(base+0x2000000, []byte{1, 2, 3}); err != nil { // a lone page
		t.Fatal(err)
	}
	if err := m.Lazy(base+0x3000000, 5*PageSize, "v", genK(2)); err != nil {
		t.Fatal(err)
	}
	if err := m.Write(0x40000*3+100, []byte{9, 8, 7}); err != nil { // SBUF partition 3
		t.Fatal(err)
	}
	for _, c := range []struct {
		addr uint64
		n    int
	}{{base, len(big) + PageSize}, {base + 0x1fff000, 0x2000}, {base + 0x2fff000, 6 * PageSize}, {0x40000 * 3, 4096}, {0x40000 * 5, 64}} {
		want := make([]byte, c.n)
		if err := m.Read(c.addr, want); err != nil {
			t.Fatal(err)
		}
		var got []byte
		if err := m.View(c.addr, c.n, func(b []byte) error { got = append(got, b...); return nil }); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("View(%#x, %d) differs from Read", c.addr, c.n)
		}
	}
	stop := errors.New("stop")
	calls := 0
	if err := m.View(base+0x2fff000, 6*PageSize, func([]byte) error { calls++; return stop }); err != stop || calls != 1 {
		t.Fatalf("View after f's error: %v, %d calls", err, calls)
	}
	if err := m.View(0x40000*3+0x37000, 0x2000, func([]byte) error { t.Fatal("f called on a refused range"); return nil }); err == nil {
		t.Fatal("View beyond the partition's active bytes: no error")
	}
	// the huge-page extent copies like any other
	if err := m.Copy(base+0x8000000, base+PageSize/2, len(big)); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, len(big))
	if err := m.Read(base+0x8000000, got); err != nil || !bytes.Equal(got, big) {
		t.Fatalf("copy of a huge-page extent: %v", err)
	}
}

// Update hands f what Read would return there and keeps what f leaves —
// over a written page, an untouched one and a lazy range (its generated
// bytes) — in pieces that end on page boundaries; a refused range calls f never.
func TestUpdateIsReadModifyWrite(t *testing.T) {
	const base = 0x1_0000_0000
	mk := func() *Memory {
		m := New(isa.Cayman)
		if err := m.Write(base+100, []byte{1, 2, 3, 4}); err != nil {
			t.Fatal(err)
		}
		if err := m.Lazy(base+2*PageSize, 2*PageSize, "v", genK(5)); err != nil {
			t.Fatal(err)
		}
		return m
	}
	a, b := mk(), mk()
	const lo, n = base + 50, 4*PageSize - 100
	old := make([]byte, n)
	if err := a.Read(lo, old); err != nil {
		t.Fatal(err)
	}
	for i := range old {
		old[i] = old[i]*3 + byte(i)
	}
	if err := a.Write(lo, old); err != nil {
		t.Fatal(err)
	}
	err := b.Update(lo, n, func(d []byte, off int) {
		if (lo+uint64(off))%PageSize != 0 && off != 0 {
			t.Fatalf("a piece starts at %#x, not on a page boundary", lo+uint64(off))
		}
		for i := range d {
			d[i] = d[i]*3 + byte(off+i)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	ga, gb := make([]byte, 5*PageSize), make([]byte, 5*PageSize)
	a.Read(base, ga)
	b.Read(base, gb)
	if !bytes.Equal(ga, gb) {
		t.Fatal("Update differs from Read, change, Write")
	}
	if err := b.Update(0x40000*2+0x37000, 0x2000, func([]byte, int) { t.Fatal("f called on a refused range") }); err == nil {
		t.Fatal("Update beyond the partition's active bytes: no error")
	}
}

// Strided rows whose span crosses from one SBUF partition into the next
// (each row valid, the gap between them not): copied row by row, no panic.
func TestCopyRowsAcrossPartitions(t *testing.T) {
	a, b := New(isa.Cayman), New(isa.Cayman)
	src, dst := make([]uint64, 10), make([]uint64, 10)
	for k := range src {
		src[k], dst[k] = 0x1_0000_0000+uint64(k)*0x10000, uint64(k)*0x10000 // SBUF rows 0x40000 apart per 4: partitions 0, 1, 2
	}
	for _, m := range []*Memory{a, b} {
		if err := m.Write(0x1_0000_0000, make([]byte, 11*0x10000)); err != nil {
			t.Fatal(err)
		}
		if err := m.Write(0, []byte{1}); err != nil { // partition 0 present
			t.Fatal(err)
		}
	}
	// 16 KiB rows 64 KiB apart: 0x30000 + 16 KiB is within 224 KiB, 0x40000 is partition 1 (dense enough for copyStrided, but its span crosses the partitions' gap: the general path)
	if k, err := a.CopyRows(dst, src, 0x4000); err != nil {
		t.Fatalf("row %d: %v", k, err)
	}
	buf := make([]byte, 0x4000)
	for k := range src {
		b.Read(src[k], buf)
		b.Write(dst[k], buf)
	}
	if !equalSnap(a.Snapshot(), b.Snapshot()) {
		t.Fatal("memory differs from the naive copy")
	}
	// the same with the rows as sources
	if k, err := a.CopyRows(src, dst, 0x4000); err != nil {
		t.Fatalf("row %d: %v", k, err)
	}
}
