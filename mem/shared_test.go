package mem

import (
	"bytes"
	"runtime"
	"strconv"
	"testing"

	"ndma/isa"
)

// Two cores on one HBM: an HBM write by either reads back on both, while
// SBUF, PSUM, semaphores and events stay each core's own (§11.6: each core
// has its own 256 semaphores and events).
func TestSharedHBM(t *testing.T) {
	h := NewHBM()
	a, b := NewCore(isa.Cayman, h), NewCore(isa.Cayman, h)
	if a.HBM() != h || b.HBM() != h {
		t.Fatal("HBM() is not the HBM the core was made with")
	}
	hbmAddr := uint64(0x1_0000_0000 + 3*PageSize - 2) // straddles the window's pages 2 and 3
	if err := a.Write(hbmAddr, []byte{1, 2, 3, 4}); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, 4)
	if err := b.Read(hbmAddr, got); err != nil || !bytes.Equal(got, []byte{1, 2, 3, 4}) {
		t.Fatalf("core b reads %v (err %v) where core a wrote 1 2 3 4", got, err)
	}
	if err := b.Write(hbmAddr+1, []byte{9}); err != nil {
		t.Fatal(err)
	}
	if err := a.Read(hbmAddr, got); err != nil || !bytes.Equal(got, []byte{1, 9, 3, 4}) {
		t.Fatalf("core a reads %v (err %v), want 1 9 3 4", got, err)
	}
	if a.Pages() != 2 || b.Pages() != 2 || h.Pages() != 2 {
		t.Errorf("Pages() = %d, %d, HBM %d; want 2 each (pages 2 and 3)", a.Pages(), b.Pages(), h.Pages())
	}
	// A copy by core b from HBM into its SBUF, and the same HBM bytes in
	// core a's SBUF stay zero.
	sb := uint64(7<<18 + 0x40) // partition 7 (256 KiB stride, §7), offset 0x40
	if err := b.Copy(sb, hbmAddr, 4); err != nil {
		t.Fatal(err)
	}
	if err := b.Read(sb, got); err != nil || !bytes.Equal(got, []byte{1, 9, 3, 4}) {
		t.Fatalf("core b's SBUF holds %v (err %v)", got, err)
	}
	if err := a.Read(sb, got); err != nil || !bytes.Equal(got, make([]byte, 4)) {
		t.Fatalf("core a's SBUF holds %v (err %v): SBUF must not be shared", got, err)
	}
	ps := uint64(0x2000000 + 2<<15) // PSUM partition 2 (32 KiB stride)
	if err := a.Write(ps, []byte{5}); err != nil {
		t.Fatal(err)
	}
	if err := b.Read(ps, got[:1]); err != nil || got[0] != 0 {
		t.Fatalf("core b's PSUM holds %d (err %v): PSUM must not be shared", got[0], err)
	}
	a.Sems[3], a.Events[4] = 7, true
	if b.Sems[3] != 0 || b.Events[4] {
		t.Fatal("semaphores or events are shared")
	}
	// Stats are per core: core b wrote 1 HBM byte and 4 SBUF bytes.
	if want := [4]uint64{isa.SBUF: 4, isa.HBM: 1}; b.Stats.Written != want {
		t.Errorf("core b Stats.Written = %v, want %v", b.Stats.Written, want)
	}
	// Each core's Snapshot holds the shared HBM pages and its own partitions.
	sa, sbn := a.Snapshot(), b.Snapshot()
	page2 := strconv.Itoa((0x1_0000_0000 + 2*PageSize) / PageSize) // Snapshot keys count pages from address 0
	for _, k := range []string{"hbm" + page2, "hbm" + strconv.Itoa((0x1_0000_0000+3*PageSize)/PageSize), "psum2", "sems"} {
		if _, ok := sa[k]; !ok {
			t.Errorf("core a's Snapshot lacks %q", k)
		}
	}
	if _, ok := sa["sbuf7"]; ok {
		t.Error("core a's Snapshot holds core b's SBUF partition 7")
	}
	if !bytes.Equal(sa["hbm"+page2], sbn["hbm"+page2]) {
		t.Error("the two cores' snapshots of one shared page differ")
	}
	// New and NewCore(g, nil) each have an HBM of their own.
	c, d := New(isa.Cayman), NewCore(isa.Cayman, nil)
	if c.HBM() == d.HBM() || c.HBM() == h || c.HBM() == nil || d.HBM() == nil {
		t.Fatal("New / NewCore(g, nil) do not make an HBM of their own")
	}
	if err := c.Read(hbmAddr, got); err != nil || !bytes.Equal(got, make([]byte, 4)) {
		t.Fatalf("a core of its own HBM reads %v", got)
	}
}

// The shared HBM costs what is touched, whichever core touches it: one byte
// on each of 300 pages spread over the whole 124 GiB window is 300 pages and
// about 300 × 64 KiB plus one 96 KiB table leaf per 256 MiB region touched.
func TestSharedHBMFootprint(t *testing.T) {
	h := NewHBM()
	cores := []*Memory{NewCore(isa.Mariana, h), NewCore(isa.Mariana, h), NewCore(isa.Mariana, h)}
	const n = 300
	window := uint64(0x20_0000_0000 - 0x1_0000_0000)
	step := window / n &^ (PageSize - 1) // page-aligned, so every write is its own page
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	leaves := map[uint64]bool{}
	for i := uint64(0); i < n; i++ {
		a := 0x1_0000_0000 + i*step + 17
		if err := cores[i%3].Write(a, []byte{byte(i)}); err != nil {
			t.Fatal(err)
		}
		leaves[a/PageSize/hbmLeaf] = true
	}
	runtime.ReadMemStats(&after)
	for i, c := range cores {
		if c.Pages() != n {
			t.Errorf("core %d: Pages() = %d, want %d", i, c.Pages(), n)
		}
	}
	grew := after.TotalAlloc - before.TotalAlloc
	want := uint64(n*PageSize) + uint64(len(leaves))*hbmLeaf*24 // a leaf is 4096 slice headers
	if grew < n*PageSize || grew > want+1<<20 {
		t.Errorf("allocated %d bytes for %d pages in %d leaves, want about %d", grew, n, len(leaves), want)
	}
	// every byte is back, read by a core that did not write it
	for i := uint64(0); i < n; i++ {
		var b [1]byte
		if err := cores[(i+1)%3].Read(0x1_0000_0000+i*step+17, b[:]); err != nil || b[0] != byte(i) {
			t.Fatalf("page %d: read %d (err %v), want %d", i, b[0], err, byte(i))
		}
	}
}

// Fill hands out the memory's own pages in address order with each piece's
// offset: what it writes reads back as one Write of the same bytes would.
func TestFillInPlace(t *testing.T) {
	const base = 0x1_0000_0000 + PageSize - 100
	want := make([]byte, 2*PageSize+300)
	for i := range want {
		want[i] = byte(i*31 + i>>8)
	}
	m := New(isa.Cayman)
	next := 0
	err := m.Fill(base, len(want), func(dst []byte, off int) {
		if off != next {
			t.Fatalf("piece at offset %d, want %d", off, next)
		}
		copy(dst, want[off:])
		next += len(dst)
	})
	if err != nil || next != len(want) {
		t.Fatalf("err %v, %d of %d bytes", err, next, len(want))
	}
	got := make([]byte, len(want))
	if err := m.Read(base, got); err != nil || !bytes.Equal(got, want) {
		t.Fatalf("read back differs (%v)", err)
	}
	if err := m.Fill(0x30000000, 4, func([]byte, int) { t.Fatal("filled an unmapped range") }); err == nil {
		t.Fatal("unmapped range accepted")
	}
}
