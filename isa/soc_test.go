package isa

import "testing"

// SoC addresses per field-tables §11.2, by hand: SBUF a → 0x20_0000_0000 + a,
// PSUM a → 0x28_0200_0000 + (a − 0x2000000), HBM a → a, core c + c·0x10_0000_0000.
func TestSoC(t *testing.T) {
	tests := []struct {
		gen  Gen
		a    uint64
		core int
		soc  uint64
	}{
		{Cayman, 1<<18 + 0x10, 0, 0x20_0004_0010},
		{Cayman, 0x2000000, 0, 0x28_0200_0000},
		{Cayman, 0x2000000 + 2<<15 + 8, 0, 0x28_0201_0008},
		{Cayman, 0x2000000 + 2<<15 + 8, 3, 0x58_0201_0008},
		{Cayman, 0x1_0000_0040, 0, 0x1_0000_0040},
		{Maverick, 127<<20 + 0x7FFFF, 1, 0x30_07F7_FFFF},
	}
	for _, tc := range tests {
		m := Map(tc.gen)
		got, err := m.SoC(tc.a, tc.core)
		if err != nil || got != tc.soc {
			t.Errorf("%s SoC(%#x, %d) = %#x, %v; want %#x", tc.gen, tc.a, tc.core, got, err, tc.soc)
		}
		a, c, err := m.FromSoC(tc.soc)
		if err != nil || a != tc.a || c != tc.core {
			t.Errorf("%s FromSoC(%#x) = %#x, core %d, %v; want %#x, core %d", tc.gen, tc.soc, a, c, err, tc.a, tc.core)
		}
	}
	bad := []struct {
		gen Gen
		soc uint64
	}{
		{Cayman, 0x28_0000_0000},   // RESERVED_SBUF decode aperture
		{Cayman, 0x28_0270_1800},   // EVT_SEM: not memory ndma reads or writes
		{Maverick, 0x28_0200_0000}, // v5 has no PSUM
		{Cayman, 0x20_0200_0000},   // the pad above a 32 MiB SBUF
		{Cayman, 0xFFFF_FFFF},      // below HBM
	}
	for _, tc := range bad {
		if a, c, err := Map(tc.gen).FromSoC(tc.soc); err == nil {
			t.Errorf("%s FromSoC(%#x) = %#x, core %d; want an error", tc.gen, tc.soc, a, c)
		}
	}
	// every region boundary of every generation round-trips
	for _, g := range []Gen{Sunda, Cayman, Mariana, MarianaPlus, Maverick} {
		m := Map(g)
		edges := []uint64{0, m.SBUFSize - 1, m.HBMBase, m.HBMEnd - 1}
		if m.PSUMSize > 0 {
			edges = append(edges, m.PSUMBase, m.PSUMBase+m.PSUMSize-1)
		}
		for _, a := range edges {
			for core := 0; core < 8; core++ {
				s, err := m.SoC(a, core)
				if err != nil {
					t.Fatal(err)
				}
				b, c, err := m.FromSoC(s)
				wantCore := core
				if a >= m.HBMBase {
					wantCore = 0 // HBM is shared
				}
				if err != nil || b != a || c != wantCore {
					t.Errorf("%s: FromSoC(SoC(%#x, %d)) = %#x, core %d, %v", g, a, core, b, c, err)
				}
			}
		}
	}
}
