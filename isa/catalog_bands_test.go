package isa

import (
	"strings"
	"testing"
)

// Issue 16 item 6. 000 §1: "The contiguous DMA sub-band (MAVERICK superset;
// 0xb7 is the band boundary, absent): 0xb3 POLL_SEM | 0xb4 TEST_EVENT_SEM |
// 0xb5 BRANCH_PREFETCH_HINT | 0xb6 COMPACT_CONTROL_INST | (0xb7 absent) |
// 0xb8 DMAMEMCPY | 0xb9 DMA_MEMCPY2 | 0xba DMA_IMMEDIATE | 0xbb DMA_INDIRECT |
// 0xbc RANGE_SELECT | 0xbd DMA_TRANSPOSE | 0xbe GET_SEQUENCE_BOUNDS | 0xbf SB2SB_COLLECTIVE"
func TestMaverickSupersetBand(t *testing.T) {
	band := map[Opcode]string{
		0xb3: "POLL_SEM", 0xb4: "TEST_EVENT_SEM", 0xb5: "BRANCH_PREFETCH_HINT", 0xb6: "COMPACT_CONTROL_INST",
		0xb8: "DMAMEMCPY", 0xb9: "DMA_MEMCPY2", 0xba: "DMA_IMMEDIATE", 0xbb: "DMA_INDIRECT",
		0xbc: "RANGE_SELECT", 0xbd: "DMA_TRANSPOSE", 0xbe: "GET_SEQUENCE_BOUNDS", 0xbf: "SB2SB_COLLECTIVE",
	}
	for op, name := range band {
		d := Lookup(op)
		if d.Name != name {
			t.Errorf("%#02x is %q, 000 §1 says %s", uint8(op), d.Name, name)
		}
		if got := d.Presence(Maverick); got != "Y" {
			t.Errorf("%s on v5: %q, want Y (MAVERICK superset)", name, got)
		}
	}
	// The four neighbours: present on v5, v2..v4 not stated.
	for _, op := range []Opcode{0xb3, 0xb5, 0xbc, 0xbe} {
		d := Lookup(op)
		if d.Decoded() {
			t.Errorf("%s is decoded; the documents give no layout", d.Name)
		}
		for _, g := range []Gen{Sunda, Cayman, Mariana, MarianaPlus} {
			if got := d.Presence(g); got != "?" {
				t.Errorf("%s on %s: %q, want ? (not stated)", d.Name, g, got)
			}
		}
	}
	b7 := Lookup(0xb7)
	if b7.Known() || !b7.Absent || !strings.Contains(b7.Note, "absent") {
		t.Errorf("0xb7: known %v absent %v note %q; 000 §1 says absent", b7.Known(), b7.Absent, b7.Note)
	}
	for _, g := range allGens {
		if got := b7.Presence(g); got != "-" {
			t.Errorf("0xb7 on %s: %q, want -", g, got)
		}
	}
}

// Issue 16 item 7. 000 §4: "On SUNDA it is a POOL software kernel
// (dma_memcopy @0x01002f80, independently confirmed in the SUNDA EXTISA_0
// kernel_info_table @0x02000760, 18 entries). On CAYMAN+ it drops out of the
// 17-entry POOL table (@0x02000380) and is served by the SEQ handler + the DGE
// descriptor-gen layer instead … [HIGH/OBSERVED for the SUNDA funcVA; MED for
// the CAYMAN+ exact decode-arm VA — FLIX-desynced, carried]"; "0xb4
// TEST_EVENT_SEM and 0xb6 COMPACT_CONTROL_INST are NX SEQUENCER control-spine
// ops"; "The MAVERICK NX decode arms for 0xb9/0xba/0xb6 are not carved —
// their chains are INFERRED from the struct fields."
func TestCatalogDispatch(t *testing.T) {
	b8 := Lookup(OpDMAMemcpy)
	s := b8.DispatchOn(Sunda)
	if s == nil || s.Path != DispatchPool || s.Conf != "HIGH/OBSERVED" ||
		!strings.Contains(s.Detail, "dma_memcopy @0x01002f80") || !strings.Contains(s.Detail, "@0x02000760 (18 entries") ||
		!strings.Contains(s.Detail, "opcode at entry+3, funcVA at entry+4") {
		t.Errorf("0xb8 on SUNDA: %+v", s)
	}
	for _, g := range []Gen{Cayman, Mariana, MarianaPlus} {
		c := b8.DispatchOn(g)
		if c == nil || c.Path != DispatchSeqDGE || !strings.Contains(c.Conf, "MED/CARRIED") ||
			!strings.Contains(c.Detail, "@0x02000380 (17 entries)") {
			t.Errorf("0xb8 on %s: %+v", g, c)
		}
	}
	want := map[Opcode]map[Gen]struct {
		path DispatchPath
		conf string
	}{
		0xb8: {Maverick: {DispatchSeqDGE, "INFERRED"}},
		0xb9: {Maverick: {DispatchSeqDGE, "INFERRED"}},
		0xba: {Maverick: {DispatchSeqDGE, "INFERRED"}},
		0xbd: {Cayman: {DispatchSeqDGE, "HIGH/OBSERVED"}, Maverick: {DispatchSeqDGE, "INFERRED"}},
		0xf1: {Mariana: {DispatchSeqDGE, "HIGH/OBSERVED"}, Maverick: {DispatchSeqDGE, "INFERRED"}},
		0xb4: {Mariana: {DispatchNXControl, "HIGH/OBSERVED"}, Maverick: {DispatchNXControl, "HIGH/OBSERVED"}},
		0xb6: {Maverick: {DispatchNXControl, "HIGH/OBSERVED header / interior INFERRED"}},
	}
	for op, gs := range want {
		for g, w := range gs {
			x := Lookup(op).DispatchOn(g)
			if x == nil || x.Path != w.path || x.Conf != w.conf {
				t.Errorf("%s on %s: %+v, want %v %s", Lookup(op).Name, g, x, w.path, w.conf)
			}
		}
	}
	// 000 §9: "none of the other six appear in any carved table" — no POOL
	// kernel for any of the six on any generation.
	for _, op := range []Opcode{0xb9, 0xba, 0xbd, 0xf1, 0xb4, 0xb6} {
		for _, x := range Lookup(op).Dispatch {
			if x.Path == DispatchPool {
				t.Errorf("%s has a POOL kernel on %s", Lookup(op).Name, x.Gens)
			}
		}
	}
	// No dispatch where an opcode is absent.
	for i := range catalog {
		d := &catalog[i]
		for _, x := range d.Dispatch {
			if d.GensKnown && x.Gens&^d.Gens != 0 {
				t.Errorf("%s: dispatch on %s beyond its generations %s", d.Name, x.Gens, d.Gens)
			}
		}
	}
}

// Issue 16 item 8. 000 §7: "On SUNDA the index-tensor movers 0x68 GATHER,
// 0xe7 INDIRECT_COPY, 0x79 EMBEDDING_UPDATE, 0x74 TENSOR_SCALAR_ADDR are POOL
// kernel_info_table kernels that also move data by index (via the IVP HW
// vector-gather or the DGE). … [HIGH/CARRIED]"
func TestSundaGatherKernels(t *testing.T) {
	for op, name := range map[Opcode]string{0x68: "GATHER", 0xe7: "INDIRECT_COPY", 0x79: "EMBEDDING_UPDATE", 0x74: "TENSOR_SCALAR_ADDR"} {
		d := Lookup(op)
		if d.Name != name || d.Decoded() || d.Prov != Carried {
			t.Errorf("%#02x: %q decoded %v prov %s; want %s, known not decoded, CARRIED", uint8(op), d.Name, d.Decoded(), d.Prov, name)
		}
		if got, err := LookupName(strings.ToLower(name)); err != nil || got != d {
			t.Errorf("LookupName(%q): %v", name, err)
		}
		if d.Presence(Sunda) != "Y" || d.Presence(Maverick) != "?" {
			t.Errorf("%s presence SUNDA %q v5 %q; want Y, ? (not stated)", name, d.Presence(Sunda), d.Presence(Maverick))
		}
		x := d.DispatchOn(Sunda)
		if x == nil || x.Path != DispatchPool || x.Conf != "HIGH/CARRIED" || d.DispatchOn(Cayman) != nil {
			t.Errorf("%s dispatch: %+v", name, x)
		}
	}
}
