package mem

import (
	"bytes"
	"errors"
	"strings"
	"testing"

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
