package isa

import (
	"strings"
	"testing"
)

var allLayouts = []*Struct{direct2DLayout, pseudoDirect2DLayout, pseudoExtLayout, copy2DLayout, immediateLayout, indirect1DLayout, xposeLayout, gatherXposeLayout, testESLayout, cciLayout, rawLayout}

// The tables themselves: every layout is 64 bytes, its leaves tile all 512
// bits without overlap, names are unique (Check, run again here so that a
// failure names the table), paths resolve.
func TestLayoutTables(t *testing.T) {
	for _, lay := range allLayouts {
		if lay.Size != WordSize {
			t.Errorf("%s: %d bytes, want 64", lay.Name, lay.Size)
		}
		if err := lay.Check(); err != nil {
			t.Error(err)
		}
		bits := 0
		for _, l := range lay.leaves {
			bits += l.Bits
			if i, ok := lay.LeafIndex(l.Path); !ok || &lay.leaves[i] != &l && lay.leaves[i].Path != l.Path {
				t.Errorf("%s: path %s does not resolve to itself", lay.Name, l.Path)
			}
		}
		if bits != 512 {
			t.Errorf("%s: leaves cover %d bits, want 512", lay.Name, bits)
		}
	}
}

// Check must catch the mistakes it exists for.
func TestCheckCatchesBadTables(t *testing.T) {
	mk := func(fields ...Field) error {
		s := &Struct{Name: "T", Size: 16, Fields: fields}
		return s.build()
	}
	cases := map[string][]Field{
		"overlaps":    {u32(0, "a", Observed, ""), u32(2, "b", Observed, ""), reserved(6, 10, "r", Observed, "")},
		"not covered": {u32(0, "a", Observed, ""), u32(8, "b", Observed, "")},
		"used twice":  {u32(0, "a", Observed, ""), u32(4, "a", Observed, ""), reserved(8, 8, "r", Observed, "")},
		"runs past":   {u32(0, "a", Observed, ""), reserved(4, 8, "r", Observed, ""), u32(14, "b", Observed, "")},
	}
	for want, fields := range cases {
		err := mk(fields...)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: Check = %v", want, err)
		}
	}
}

// Every enum: names non-empty and unique, values unique, and every value a
// field of that enum can hold in a named range of the spec has its name.
func TestEnums(t *testing.T) {
	enums := []*Enum{dTypeEnum, waitModeEnum, updateModeEnum, traceModeEnum, dgeOpcodeEnum, dgeComputeOpEnum, indirectDimEnum, indirectModeEnum,
		dmaEngineCountEnum, dmaDescModeEnum, semaSyncEnum, testEvtSemModeEnum, dataSrcEnum, lncSizeFmtEnum, neuronEngineEnum, dmaAddrModeEnum,
		dmaSemaUpdateModeEnum, ccInstTypeEnum, ccOpEnum}
	for _, e := range enums {
		names, vals := map[string]bool{}, map[uint64]bool{}
		for _, v := range e.Values {
			if v.Name == "" {
				t.Errorf("%s: value %#x has no name", e.Name, v.Value)
			}
			if names[strings.ToUpper(v.Name)] || vals[v.Value] {
				t.Errorf("%s: %s (%#x) listed twice", e.Name, v.Name, v.Value)
			}
			names[strings.ToUpper(v.Name)], vals[v.Value] = true, true
			if got, ok := e.Parse(strings.ToLower(v.Name)); !ok || got != v.Value {
				t.Errorf("%s: Parse(%q) = %#x, %v", e.Name, strings.ToLower(v.Name), got, ok)
			}
		}
	}
	// Dense ranges the spec gives in full are fully named.
	dense := []struct {
		e      *Enum
		lo, hi uint64
	}{
		{dTypeEnum, 0x00, 0x16}, {dTypeEnum, 0x19, 0x1f}, {dgeComputeOpEnum, 0, 4}, {dgeOpcodeEnum, 0, 3}, {dmaAddrModeEnum, 0, 0xb},
		{testEvtSemModeEnum, 0, 4}, {ccInstTypeEnum, 0, 8}, {ccOpEnum, 0x10, 0x16}, {ccOpEnum, 0x18, 0x1e}, {ccOpEnum, 0x20, 0x26},
		{ccOpEnum, 0x28, 0x2e}, {ccOpEnum, 0x30, 0x4b}, {ccOpEnum, 0x50, 0x57}, {ccOpEnum, 0x90, 0x9b}, {ccOpEnum, 0xa0, 0xab},
		{ccOpEnum, 0xb0, 0xb2}, {waitModeEnum, 0, 5}, {waitModeEnum, 0x81, 0x85}, {waitModeEnum, 0x91, 0x95},
	}
	for _, d := range dense {
		for v := d.lo; v <= d.hi; v++ {
			if d.e.NameOf(v) == "" {
				t.Errorf("%s: %#x has no name", d.e.Name, v)
			}
		}
	}
	// The compare block: 5 kinds × EQ..GE in 8-slot groups ends exactly at 0x85 (§3.11).
	if ccOpEnum.NameOf(0x85) != "CMPF_GE" || ccOpEnum.NameOf(0x60) != "CMP_EQ" {
		t.Errorf("compare block: 0x60 = %s, 0x85 = %s", ccOpEnum.NameOf(0x60), ccOpEnum.NameOf(0x85))
	}
	// Every CCOP decodes by a CCINST member.
	for _, v := range ccOpEnum.Values {
		if _, ok := CCOpType(uint8(v.Value)); !ok {
			t.Errorf("CCOP %s has no CCINST member", v.Name)
		}
	}
}

func TestDTypeBits(t *testing.T) {
	for _, c := range []struct {
		d    uint8
		g    Gen
		bits int
		ok   bool
	}{
		{0x06, Sunda, 16, true}, {0x0A, Cayman, 32, true}, {0x0B, Mariana, 32, true}, {0x01, Maverick, 64, true},
		{0x10, Cayman, 0, false}, {0x10, Mariana, 4, true}, {0x11, MarianaPlus, 0, false}, {0x11, Maverick, 8, true},
		{0x00, Cayman, 0, false}, {0x19, Maverick, 0, false}, {0x17, Maverick, 0, false},
	} {
		bits, ok := DTypeBits(c.d, c.g)
		if bits != c.bits || ok != c.ok {
			t.Errorf("DTypeBits(%#x, %s) = %d, %v; want %d, %v", c.d, c.g, bits, ok, c.bits, c.ok)
		}
	}
}

func TestGenParse(t *testing.T) {
	for in, want := range map[string]Gen{"cayman": Cayman, "v3": Cayman, "CAYMAN": Cayman, "nc-v5": Maverick,
		"sunda": Sunda, "v2": Sunda, "mariana": Mariana, "v4": Mariana, "v4+": MarianaPlus, "mariana_plus": MarianaPlus,
		"Mariana+": MarianaPlus, "maverick": Maverick,
		// instance families, docs/neff.md §4.2
		"trn1": Sunda, "Inf2": Sunda, "TRN2": Cayman, "trn3": Mariana} {
		if g, err := ParseGen(in); err != nil || g != want {
			t.Errorf("ParseGen(%q) = %v, %v; want %v", in, g, err, want)
		}
	}
	for _, bad := range []string{"", "v6", "trainium", "tonga", "trn4", "inf1"} {
		if _, err := ParseGen(bad); err == nil {
			t.Errorf("ParseGen(%q) succeeded", bad)
		}
	}
	// a near miss names the nearest spelling and lists the valid ones
	_, err := ParseGen("trn5")
	for _, want := range []string{`unknown generation "trn5"`, "did you mean trn1", "sunda, v2, trn1, inf2, cayman, v3, trn2"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseGen(trn5) = %v, want it to contain %q", err, want)
		}
	}
	for _, g := range allGens {
		back, err := ParseGen(g.String())
		if err != nil || back != g {
			t.Errorf("ParseGen(%s) round trip: %v %v", g, back, err)
		}
	}
}

// Presence per generation, from field-tables §3.0 and source document 000 §6.
func TestCatalogPresence(t *testing.T) {
	want := map[Opcode]string{
		0xb8: "v2 v3 v4 v4+ v5", 0xb9: "v5", 0xba: "v5", 0xbb: "v2 v3 v4 v4+ v5", 0xbd: "v3 v4 v4+ v5",
		0xf1: "v3 v4 v4+ v5", 0xb4: "v4 v4+ v5", 0xb6: "v5", 0xd4: "v2 v3 v4 v4+ v5",
	}
	for op, gens := range want {
		if got := Lookup(op).Gens.String(); got != gens {
			t.Errorf("%s: gens %q, want %q", Lookup(op).Name, got, gens)
		}
	}
	for name, op := range map[string]Opcode{"DMAMEMCPY": 0xb8, "dma_memcpy": 0xb8, "DMA_DIRECT2D": 0xb8, "OPCODE_DMA_MEMCPY": 0xb8,
		"0xbd": 0xbd, "dma_gather_xpose": 0xf1, "CTRL_CCI": 0xb6, "189": 0xbd, "PSEUDO_DMA_EXT": 0xda} {
		d, err := LookupName(name)
		if err != nil || d.Opcode != op {
			t.Errorf("LookupName(%q) = %v, %v; want %#x", name, d, err, op)
		}
	}
	if _, err := LookupName("DMA_FROBNICATE"); err == nil {
		t.Error("LookupName accepted an unknown name")
	}
	// Struct names of the decoded rows are the spec's.
	for op, st := range map[Opcode]string{0xb8: "DMA_DIRECT2D", 0xb9: "DMA_COPY2D", 0xba: "DMA_IMMEDIATE", 0xbb: "DMA_INDIRECT1D",
		0xbd: "DMA_DIRECT2D_XPOSE", 0xf1: "DMA_GATHER_XPOSE", 0xb4: "CTRL_TEST_ES", 0xb6: "CTRL_CCI",
		0xd4: "PSEUDO_DMA_DIRECT2D", 0xda: "PSEUDO_DMA_EXT"} {
		if got := Lookup(op).StructName(); got != st {
			t.Errorf("%#x: struct %s, want %s", op, got, st)
		}
	}
}

// The address builders agree with the arm decoding (and with field-tables
// §11.2 / neff.md §5.4 bit positions, written out here).
func TestAddrBuilders(t *testing.T) {
	for _, c := range []struct {
		got, want uint64
		form      string
		pseudo    bool
	}{
		{ImmAddr8(0x1_0000_0040), 0x0000_0001_0000_0040, "imm", false},
		{RegAddr8(4, 5), 0x8000_0000_0000_0504, "reg", false},
		{VarAddr8(3, 0x40), 0x1000_0003_0000_0040, "var", true},
		{TableAddr8(2, 0x8000), 0x2000_0002_0000_8000, "tbl", true},
	} {
		if c.got != c.want {
			t.Errorf("%s: %#x, want %#x", c.form, c.got, c.want)
		}
		if f := (Addr8{Raw: c.got, Pseudo: c.pseudo}).Form(); f != c.form {
			t.Errorf("%#x decodes as %s, want %s", c.got, f, c.form)
		}
	}
}
