package isa

import (
	"fmt"
	"strconv"
	"strings"

	"ndma/internal/suggest"
)

// The opcode catalog — field-tables §3.0, source document 000 §1 and §7,
// neff.md §5.1 (the opcodes a real NEFF stream holds).

// Opcode is byte 0 of a word.
type Opcode uint8

// The opcodes ndma decodes.
const (
	OpDMAMemcpy          Opcode = 0xb8
	OpDMAMemcpy2         Opcode = 0xb9
	OpDMAImmediate       Opcode = 0xba
	OpDMAIndirect        Opcode = 0xbb
	OpDMATranspose       Opcode = 0xbd
	OpDMAGatherTranspose Opcode = 0xf1
	OpTestEventSem       Opcode = 0xb4
	OpCompactControlInst Opcode = 0xb6
	OpPseudoDMADirect2D  Opcode = 0xd4
	OpPseudoExtension    Opcode = 0xda
	OpPseudoDMATrigger   Opcode = 0xc1
	OpTensorLoad         Opcode = 0xaa
	OpTensorStore        Opcode = 0xab
	OpPseudoTensorStore  Opcode = 0xcd
	OpPseudoTensorLoad   Opcode = 0xce
	OpExtendedInst       Opcode = 0xf0
)

// OpDef is one catalog row.
type OpDef struct {
	Opcode  Opcode
	Name    string   // the NEURON_ISA_TPB_OPCODE enum name
	Aliases []string // other spellings that resolve (e.g. the JSON key)
	Layout  *Struct  // nil: known, not decoded (decodes by Raw); with ByGen, the layout for GenAny
	// ByGen, when set, gives the layout per generation: a generation no row
	// lists decodes by Raw (docs/compute.md gives the compute layouts for
	// SUNDA and CAYMAN only). Layout is then what GenAny decodes by: the
	// table every listed generation shares, or nil where they differ.
	ByGen   []GenLayout
	DGEKind int  // DGE_OPCODE the word lowers to; -1 = none
	DGEProv Prov // provenance of DGEKind
	// EngineDMA marks a DMA word that lowers to no DGE program (DGEKind -1):
	// the engines run 0xb9's own 2-D walk and 0xba's raw descriptors.
	EngineDMA bool
	Gens      GenSet // presence per generation (0 with GensKnown false: not stated)
	// GensKnown is false where no source states the generations.
	GensKnown bool
	// PresentOn lists generations a source states the opcode present on
	// where the whole set is not stated (GensKnown false): those print "Y",
	// the others "?" (000 §1's MAVERICK superset band, §7's SUNDA kernels).
	PresentOn GenSet
	// Absent: a source states no generation has the opcode (0xb7, 000 §1).
	Absent  bool
	Pseudo  bool // compiler→runtime word, never executed by hardware
	Control bool // control plane, not a DMA
	Prov    Prov
	Note    string
	// Dispatch is how the opcode is served, per generation, as source 000
	// §4/§7/§9 states it (nil: no document says).
	Dispatch []Dispatch
}

// DispatchPath is one of source 000 §4's dispatch surfaces.
type DispatchPath uint8

// The dispatch surfaces of 000 §4: "(i) a POOL software kernel iff it
// appears in the carved Q7-POOL kernel_info_table (opcode at entry+3, funcVA
// at entry+4); else (ii) SEQ/engine-native (decoded by the NX sequencer /
// per-engine decode arm, no funcVA hop). The five DMA opcodes additionally
// (iii) emit DGE descriptors." 0xb4/0xb6 are "NX SEQUENCER control-spine ops".
const (
	DispatchPool      DispatchPath = iota + 1 // POOL software kernel (kernel_info_table)
	DispatchSeqDGE                            // NX sequencer + DGE descriptor generation
	DispatchNXControl                         // NX sequencer control spine, no DGE
)

func (p DispatchPath) String() string {
	switch p {
	case DispatchPool:
		return "pool-kernel"
	case DispatchSeqDGE:
		return "seq+dge"
	case DispatchNXControl:
		return "nx-control"
	}
	return "?"
}

// Dispatch is one dispatch fact: the generations it holds on, the surface,
// the document's detail and its confidence label verbatim ("HIGH/OBSERVED",
// "MED/CARRIED", …; 000's convention: CARRIED = re-used from a sibling
// firmware decode at its confidence).
type Dispatch struct {
	Gens   GenSet
	Path   DispatchPath
	Detail string
	Conf   string
}

// DispatchOn is the dispatch fact for generation g, or nil.
func (d *OpDef) DispatchOn(g Gen) *Dispatch {
	for i := range d.Dispatch {
		if d.Dispatch[i].Gens.Has(g) {
			return &d.Dispatch[i]
		}
	}
	return nil
}

// Presence is "Y" (present), "-" (absent) or "?" (no source states it) on g.
func (d *OpDef) Presence(g Gen) string {
	switch {
	case d.GensKnown && d.Gens.Has(g):
		return "Y"
	case d.GensKnown:
		return "-"
	case d.PresentOn.Has(g) && g != GenAny:
		return "Y"
	case d.Absent:
		return "-"
	}
	return "?"
}

// GenLayout is one row of OpDef.ByGen: the layout of the opcode on Gens.
type GenLayout struct {
	Gens   GenSet
	Layout *Struct
}

// Decoded reports whether the opcode has a layout table of its own (on at
// least one generation).
func (d *OpDef) Decoded() bool { return d.Layout != nil || len(d.ByGen) > 0 }

// DecodedOn reports whether a word of the opcode decodes by a table of its
// own on g (not by Raw).
func (d *OpDef) DecodedOn(g Gen) bool { return d.layoutOn(g) != rawLayout }

// LayoutOn is the table a word of the opcode decodes by on g (Raw when it
// has none there).
func (d *OpDef) LayoutOn(g Gen) *Struct { return d.layoutOn(g) }

// layoutOn is LayoutOn.
func (d *OpDef) layoutOn(g Gen) *Struct {
	if d.ByGen != nil && g != GenAny {
		for i := range d.ByGen {
			if d.ByGen[i].Gens.Has(g) {
				return d.ByGen[i].Layout
			}
		}
		return rawLayout
	}
	return d.layout()
}

// layout is the table a word of this opcode decodes by.
func (d *OpDef) layout() *Struct {
	if d.Layout != nil {
		return d.Layout
	}
	return rawLayout
}

// StructName is the spec struct name ("DMA_DIRECT2D"), or "" when not decoded.
func (d *OpDef) StructName() string {
	if d.Layout != nil {
		return d.Layout.Name
	}
	if len(d.ByGen) > 0 {
		return d.ByGen[0].Layout.Name
	}
	return ""
}

// Mnemonic is the enum name, or "0xNN" for an opcode no source names.
func (d *OpDef) Mnemonic() string {
	if d.Name != "" {
		return d.Name
	}
	return fmt.Sprintf("0x%02x", uint8(d.Opcode))
}

// Known reports whether any source names the opcode.
func (d *OpDef) Known() bool { return d.Name != "" }

// catalog lists every named opcode in opcode order of the DMA cluster first,
// then its neighbours.
var catalog = []OpDef{
	{Opcode: 0xb8, Name: "DMAMEMCPY", Aliases: []string{"DMA_MEMCPY"}, Layout: direct2DLayout, DGEKind: 0, DGEProv: Observed, Gens: AllGens, GensKnown: true, Prov: Observed, Note: "SUNDA: POOL kernel dma_memcopy; CAYMAN+: SEQ + DGE", Dispatch: []Dispatch{
		{Gens: 1 << Sunda, Path: DispatchPool, Detail: "dma_memcopy @0x01002f80, in the SUNDA EXTISA_0 kernel_info_table @0x02000760 (18 entries; opcode at entry+3, funcVA at entry+4)", Conf: "HIGH/OBSERVED"},
		{Gens: v3ToV4, Path: DispatchSeqDGE, Detail: "not in the CAYMAN_0 kernel_info_table @0x02000380 (17 entries): SEQ handler + DGE descriptor-gen; the decode-arm VA is FLIX-desynced", Conf: "HIGH/OBSERVED table; MED/CARRIED decode-arm VA"},
		{Gens: OnlyV5, Path: DispatchSeqDGE, Detail: "CAYMAN+ SEQ handler + DGE; MAVERICK dispatch interiors not re-disassembled", Conf: "INFERRED"},
	}},
	{Opcode: 0xb9, Name: "DMA_MEMCPY2", Layout: copy2DLayout, DGEKind: -1, EngineDMA: true, Gens: OnlyV5, GensKnown: true, Prov: Observed, Dispatch: mavSeqDGE},
	{Opcode: 0xba, Name: "DMA_IMMEDIATE", Layout: immediateLayout, DGEKind: -1, EngineDMA: true, Gens: OnlyV5, GensKnown: true, Prov: Observed, Dispatch: mavSeqDGE},
	{Opcode: 0xbb, Name: "DMA_INDIRECT", Layout: indirect1DLayout, DGEKind: 1, DGEProv: Observed, Gens: AllGens, GensKnown: true, Prov: Observed},
	{Opcode: 0xbd, Name: "DMA_TRANSPOSE", Layout: xposeLayout, DGEKind: 2, DGEProv: Observed, Gens: FromV3, GensKnown: true, Prov: Observed, Dispatch: xposeSeqDGE},
	{Opcode: 0xf1, Name: "DMA_GATHER_TRANSPOSE", Layout: gatherXposeLayout, DGEKind: 3, DGEProv: Observed, Gens: FromV3, GensKnown: true, Prov: Observed, Dispatch: xposeSeqDGE},
	{Opcode: 0xb4, Name: "TEST_EVENT_SEM", Layout: testESLayout, DGEKind: -1, Gens: FromV4, GensKnown: true, Control: true, Prov: Observed, Dispatch: []Dispatch{
		{Gens: FromV4, Path: DispatchNXControl, Detail: "NX SEQUENCER control-spine; no POOL kernel, no DGE descriptor", Conf: "HIGH/OBSERVED"},
	}},
	{Opcode: 0xb6, Name: "COMPACT_CONTROL_INST", Layout: cciLayout, DGEKind: -1, Gens: OnlyV5, GensKnown: true, Control: true, Prov: Observed, Dispatch: []Dispatch{
		{Gens: OnlyV5, Path: DispatchNXControl, Detail: "NX SEQUENCER control-spine (packed scalar-bytecode bundle); the MAVERICK NX decode arm is not carved", Conf: "HIGH/OBSERVED header / interior INFERRED"},
	}},
	{Opcode: 0xd4, Name: "PSEUDO_DMA_DIRECT2D", Layout: pseudoDirect2DLayout, DGEKind: -1, Gens: AllGens, GensKnown: true, Pseudo: true, Prov: Observed, Note: "carries dge_op; resolved by the runtime"},
	{Opcode: 0xc1, Name: "PSEUDO_DMA_TRIGGER", Layout: pseudoTriggerLayout, DGEKind: -1, Gens: AllGens, Pseudo: true, Prov: Observed, Note: "style-A NEFF trigger: queue name + dma[] block id (docs/neff.md §5.2); generations not stated"},
	{Opcode: 0xda, Name: "PSEUDO_EXTENSION", Layout: pseudoExtLayout, DGEKind: -1, Gens: AllGens, GensKnown: true, Pseudo: true, Prov: Carried, Note: "positional: belongs to the 0xd4 before it"},

	// Known, not decoded (field-tables §3.0, §3.12).
	{Opcode: 0xc4, Name: "PSEUDO_DMAMEMCPY_FULL_IND", DGEKind: -1, Pseudo: true, Prov: Carried},
	{Opcode: 0xf0, Name: "EXTENDED_INST", Layout: extendedLayout, DGEKind: -1, Gens: FromV3, GensKnown: true, Prov: Carried, Note: "ext-op 8 RDMA_DESC_GEN, 9 RDMA_DESC_START (docs/field-tables.md §3.12)"},
	{Opcode: 0xbf, Name: "SB2SB_COLLECTIVE", DGEKind: -1, Gens: FromV3, GensKnown: true, Prov: Observed},
	{Opcode: 0xaa, Name: "TENSOR_LOAD", Layout: mem2DLayout, DGEKind: -1, Gens: AllGens, GensKnown: true, Prov: Observed, Note: "MEM_2D, sequencer scalar load: memory → registers"},
	{Opcode: 0xab, Name: "TENSOR_STORE", Layout: mem2DLayout, DGEKind: -1, Gens: AllGens, GensKnown: true, Prov: Observed, Note: "MEM_2D, sequencer scalar store: registers or immediates → memory"},
	// The 0xb3..0xbf band is the "MAVERICK superset" (000 §1): present on v5;
	// v2..v4 presence not stated; 0xb7 is absent (opTable).
	{Opcode: 0xb3, Name: "POLL_SEM", DGEKind: -1, PresentOn: OnlyV5, Control: true, Prov: Observed, Note: bandNote},
	{Opcode: 0xb5, Name: "BRANCH_PREFETCH_HINT", DGEKind: -1, PresentOn: OnlyV5, Control: true, Prov: Observed, Note: bandNote},
	{Opcode: 0xbc, Name: "RANGE_SELECT", DGEKind: -1, PresentOn: OnlyV5, Prov: Observed, Note: bandNote},
	{Opcode: 0xbe, Name: "GET_SEQUENCE_BOUNDS", DGEKind: -1, PresentOn: OnlyV5, Prov: Observed, Note: bandNote},

	// SUNDA POOL software gather kernels (000 §7, HIGH/CARRIED): known, not
	// decoded; other generations not stated.
	{Opcode: 0x68, Name: "GATHER", DGEKind: -1, PresentOn: 1 << Sunda, Prov: Carried, Note: sundaGatherNote, Dispatch: sundaGatherKernel},
	{Opcode: 0xe7, Name: "INDIRECT_COPY", DGEKind: -1, PresentOn: 1 << Sunda, Prov: Carried, Note: sundaGatherNote, Dispatch: sundaGatherKernel},
	{Opcode: 0x79, Name: "EMBEDDING_UPDATE", DGEKind: -1, PresentOn: 1 << Sunda, Prov: Carried, Note: sundaGatherNote, Dispatch: sundaGatherKernel},
	{Opcode: 0x74, Name: "TENSOR_SCALAR_ADDR", DGEKind: -1, PresentOn: 1 << Sunda, Prov: Carried, Note: sundaGatherNote, Dispatch: sundaGatherKernel},
	{Opcode: 0xa0, Name: "EVENT_SEMAPHORE", Layout: eventSemLayout, ByGen: v2v3(eventSemLayout), DGEKind: -1, Gens: AllGens, GensKnown: true, Control: true, Prov: Observed, Note: "a standalone wait (docs/compute.md §11)"},
	{Opcode: 0xa4, Name: "NOP", Layout: ctrlNoLayout, ByGen: v2v3(ctrlNoLayout), DGEKind: -1, Gens: AllGens, GensKnown: true, Control: true, Prov: Observed, Note: "EVENTS only (docs/compute.md §6)"},
	{Opcode: 0xa5, Name: "WRITE", DGEKind: -1, Control: true, Prov: Observed},
	{Opcode: 0xa6, Name: "NOTIFY", DGEKind: -1, Control: true, Prov: Carried},
	{Opcode: 0xa7, Name: "MOVE", DGEKind: -1, Control: true, Prov: Observed},
	{Opcode: 0xa8, Name: "ALU_OP", DGEKind: -1, Control: true, Prov: Carried},
	{Opcode: 0xa9, Name: "COMPARE_BRANCH", DGEKind: -1, Control: true, Prov: Carried},
	{Opcode: 0xb1, Name: "SET_ORDERING_MODE", Layout: ctrlEmptyLayout, ByGen: v2v3(ctrlEmptyLayout), DGEKind: -1, PresentOn: v2v3Set, Control: true, Prov: Observed, Note: "first word of every NEFF stream (docs/neff.md §5.1); bytes 2..63 zero (docs/compute.md §11)"},
	{Opcode: 0xb2, Name: "MOVE_SHAPE", DGEKind: -1, Control: true, Prov: Carried},
	{Opcode: 0xcc, Name: "PSEUDO_BRANCH_LABEL", Layout: ctrlEmptyLayout, ByGen: v2v3(ctrlEmptyLayout), DGEKind: -1, PresentOn: 1 << Cayman, Pseudo: true, Prov: Observed, Note: "second word of every CAYMAN NEFF stream (docs/neff.md §5.1); bytes 2..63 zero (docs/compute.md §11)"},
	{Opcode: 0xcd, Name: "PSEUDO_TENSOR_STORE", Layout: pseudoMem2DLayout, DGEKind: -1, Pseudo: true, Prov: Carried, Note: "relocated to 0xab TENSOR_STORE"},
	{Opcode: 0xce, Name: "PSEUDO_TENSOR_LOAD", Layout: pseudoMem2DLayout, DGEKind: -1, Pseudo: true, Prov: Observed, Note: "relocated to 0xaa TENSOR_LOAD (source document 000 §2, docs/sources.md: \"0xce → 0xaa\")"},

	{Opcode: 0xc8, Name: "PSEUDO_TRIGGER_COLLECTIVE", DGEKind: -1, Pseudo: true, Prov: Observed, Note: "TONGA-era (docs/field-tables.md §9.1)"},
	{Opcode: 0x6b, Name: "STREAM_TRANSPOSE", DGEKind: -1, Prov: Observed, Note: "DVE 32x32 lane transpose, unrelated to 0xbd/0xf1"},
	{Opcode: 0x01, Name: "LDWEIGHTS", ByGen: []GenLayout{{1 << Sunda, ldweightsV2Layout}, {1 << Cayman, ldweightsV3Layout}}, DGEKind: -1, Gens: AllGens, GensKnown: true, Prov: Observed, Note: "PE: load the stationary operand (docs/compute.md §3); SUNDA and CAYMAN differ at bytes 34, 36, 46"},
	{Opcode: 0x02, Name: "MATMUL", ByGen: []GenLayout{{1 << Sunda, matmulV2Layout}, {1 << Cayman, matmulV3Layout}}, DGEKind: -1, Gens: AllGens, GensKnown: true, Prov: Observed, Note: "PE: out = stationary.T @ moving into PSUM (docs/compute.md §4); SUNDA and CAYMAN differ at bytes 34, 36, 40, 46"},
	{Opcode: 0x21, Name: "ACTIVATE", Layout: activateLayout, ByGen: []GenLayout{{v2v3Set | 1<<Mariana, activateLayout}}, DGEKind: -1, Gens: AllGens, GensKnown: true, Prov: Observed, Note: "ACT: out = F(scale·in + bias) (docs/compute.md §5); the same bytes v2..v4"},
	{Opcode: 0x23, Name: "ACTIVATION_TABLE_LOAD", Layout: ctrlNoLayout, ByGen: v2v3(ctrlNoLayout), DGEKind: -1, Gens: AllGens, GensKnown: true, Prov: Observed, Note: "ACT: select the resident function set (docs/compute.md §6)"},
	{Opcode: 0x26, Name: "ACTIVATE_MULTIPASS", DGEKind: -1, Gens: OnlyV5, GensKnown: true, Prov: Observed},
	{Opcode: 0x41, Name: "TENSOR_TENSOR", Aliases: []string{"TENSOR_TENSOR_ARITH_OP"}, Layout: tensorTensorLayout, DGEKind: -1, Gens: AllGens, GensKnown: true, Prov: Observed, Note: "DVE: dst = op(src0, src1) (docs/compute.md §7); the same bytes v2..v5"},
	{Opcode: 0x51, Name: "TENSOR_TENSOR_BITVEC_OP", Aliases: []string{"TENSOR_TENSOR_BITVEC"}, Layout: tensorTensorLayout, DGEKind: -1, Gens: AllGens, GensKnown: true, Prov: Observed, Note: "integer bitwise twin of 0x41 (docs/compute.md §7)"},
	{Opcode: 0x42, Name: "TENSOR_REDUCE", Aliases: []string{"TENSOR_REDUCE_ARITH_OP"}, Layout: tensorReduceLayout, DGEKind: -1, Gens: AllGens, GensKnown: true, Prov: Observed, Note: "DVE: reduce op_dim of src with op (docs/compute.md §9); the same bytes v2..v5"},
	{Opcode: 0x43, Name: "TENSOR_SCALAR", Aliases: []string{"TENSOR_SCALAR_ARITH_OP"}, Layout: tensorScalarLayout, DGEKind: -1, Gens: AllGens, GensKnown: true, Prov: Observed, Note: "out = op1(op0(x, s0), s1) (docs/compute.md §8); the same bytes v2..v5"},
	{Opcode: 0x53, Name: "TENSOR_SCALAR_BITVEC_OP", Aliases: []string{"TENSOR_SCALAR_BITVEC"}, Layout: tensorScalarLayout, DGEKind: -1, Gens: AllGens, GensKnown: true, Prov: Inferred, Note: "integer bitwise twin of 0x43 (docs/compute.md §8); the source writes it \"_BITVEC_OP\" after TENSOR_SCALAR_ARITH_OP, the spelling is ndma's"},
	{Opcode: 0x44, Name: "TENSOR_SCALAR_PTR_ARITH_OP", Aliases: []string{"TENSOR_SCALAR_PTR"}, Layout: tensorScalarLayout, DGEKind: -1, Gens: AllGens, GensKnown: true, Prov: Inferred, Note: "the name and struct from the public ISA documentation family, not the two source documents: the deprecated pointer-only form of 0x43, the same struct S3D3_TS (docs/compute.md §8)"},
	{Opcode: 0x54, Name: "TENSOR_SCALAR_PTR_BITVEC_OP", Aliases: []string{"TENSOR_SCALAR_PTR_BITVEC"}, Layout: tensorScalarLayout, DGEKind: -1, Gens: AllGens, GensKnown: true, Prov: Inferred, Note: "the name and struct from the public ISA documentation family, not the two source documents: the deprecated pointer-only form of 0x53, the same struct S3D3_TS (docs/compute.md §8)"},
	{Opcode: 0x46, Name: "COPY", Layout: tensorReduceLayout, DGEKind: -1, Gens: AllGens, GensKnown: true, Prov: Observed, Note: "DVE/ACT: bit-exact element move (docs/compute.md §9); the same bytes v2..v5"},
	{Opcode: 0x47, Name: "CAST", Layout: tensorReduceLayout, DGEKind: -1, Gens: AllGens, GensKnown: true, Prov: Observed, Note: "DVE/ACT: convert through FP32 (docs/compute.md §9); the same bytes v2..v5"},
	{Opcode: 0x49, Name: "MEMSET", Layout: memsetLayout, ByGen: v2v3(memsetLayout), DGEKind: -1, Gens: AllGens, GensKnown: true, Prov: Observed, Note: "DVE: constant fill (docs/compute.md §10)"},
	{Opcode: 0xf3, Name: "TENSOR_TENSOR_INT_WIDE", DGEKind: -1, Gens: OnlyV5, GensKnown: true, Prov: Observed},
	{Opcode: 0xf4, Name: "TENSOR_SCALAR_INT_WIDE", DGEKind: -1, Gens: OnlyV5, GensKnown: true, Prov: Observed},
}

// Shared catalog values (000 §1, §4, §7, §9).
var (
	// v2v3Set: docs/compute.md gives the compute layouts for SUNDA and CAYMAN.
	v2v3Set  = GenSet(1<<Sunda | 1<<Cayman)
	v3ToV4   = FromV3 &^ OnlyV5
	bandNote = "MAVERICK superset band (source document 000 §1, docs/sources.md): present on v5; v2..v4 not stated"
	// 000 §4: "The MAVERICK NX decode arms for 0xb9/0xba/0xb6 are not carved —
	// their chains are INFERRED from the struct fields."
	mavSeqDGE = []Dispatch{{Gens: OnlyV5, Path: DispatchSeqDGE, Detail: "in no carved kernel_info_table; the MAVERICK NX decode arm is not carved", Conf: "INFERRED"}}
	// 000 §9 claim 5: "none of the other six appear in any carved table".
	xposeSeqDGE = []Dispatch{
		{Gens: v3ToV4, Path: DispatchSeqDGE, Detail: "in no carved kernel_info_table: SEQ/engine-native, emits DGE descriptors", Conf: "HIGH/OBSERVED"},
		{Gens: OnlyV5, Path: DispatchSeqDGE, Detail: "in no carved kernel_info_table; MAVERICK dispatch interiors not re-disassembled", Conf: "INFERRED"},
	}
	sundaGatherNote   = "SUNDA POOL software gather kernel (source document 000 §7, docs/sources.md): moves data by index via the IVP HW vector-gather or the DGE; SUNDA-era counterpart of the CAYMAN+ 0xbb/0xf1 DGE descriptors"
	sundaGatherKernel = []Dispatch{{Gens: 1 << Sunda, Path: DispatchPool, Detail: "SUNDA POOL kernel_info_table kernel (index-tensor mover)", Conf: "HIGH/CARRIED"}}
)

// v2v3 is a ByGen of one layout on SUNDA and CAYMAN.
func v2v3(s *Struct) []GenLayout { return []GenLayout{{v2v3Set, s}} }

// opTable maps every byte to a definition; bytes no source names get a
// nameless row that decodes by Raw (header, EVENTS, payload bytes: a word
// of another engine is listed, its EVENTS honoured). A nameless byte in
// 0xc0..0xdf is still a pseudo word: every pseudo opcode has top bits 0b110
// and the runtime relies on it (field-tables §2.1).
var opTable = func() (t [256]*OpDef) {
	for i := range catalog {
		d := &catalog[i]
		if t[d.Opcode] != nil {
			panic(fmt.Sprintf("isa: opcode %#02x listed twice", d.Opcode))
		}
		t[d.Opcode] = d
	}
	for i := range t {
		if t[i] == nil {
			t[i] = &OpDef{Opcode: Opcode(i), DGEKind: -1, Prov: Inferred, Pseudo: IsPseudoOpcode(Opcode(i))}
		}
	}
	// 000 §1: "The contiguous DMA sub-band (MAVERICK superset; 0xb7 is the
	// band boundary, absent)". It stays nameless (a 0xb7 word is listed raw
	// with the is_known_opcode warning, never a header error) and says so.
	t[0xb7].Absent = true
	t[0xb7].Prov = Observed
	t[0xb7].Note = "absent on every generation: the band boundary of the 0xb3..0xbf MAVERICK superset (source document 000 §1, docs/sources.md)"
	return t
}()

// IsPseudoOpcode reports whether op has the pseudo opcodes' top bits 0b110
// (0xc0..0xdf, field-tables §2.1).
func IsPseudoOpcode(op Opcode) bool { return op&0xe0 == 0xc0 }

// Lookup returns the definition of an opcode byte (never nil).
func Lookup(op Opcode) *OpDef { return opTable[op] }

// opNames maps every spelling (enum name, alias, struct name; upper and
// lower case) to its row.
var opNames = func() map[string]*OpDef {
	m := map[string]*OpDef{}
	for i := range catalog {
		d := &catalog[i]
		names := append([]string{d.Name}, d.Aliases...)
		if n := d.StructName(); n != "" && m[n] == nil {
			names = append(names, n) // a shared struct name (MEM_2D) resolves to its first opcode
		}
		for _, n := range names {
			m[n], m[strings.ToLower(n)] = d, d
		}
	}
	return m
}()

// LookupName resolves an opcode by enum name, alias, struct name
// (case-insensitively, with or without OPCODE_) or number ("0xb8", "184").
func LookupName(s string) (*OpDef, error) {
	if d, ok := opNames[s]; ok {
		return d, nil
	}
	t := strings.TrimSpace(s)
	if n, err := strconv.ParseUint(t, 0, 8); err == nil {
		return opTable[n], nil
	}
	if d, ok := opNames[strings.TrimPrefix(strings.ToUpper(t), "OPCODE_")]; ok {
		return d, nil
	}
	e := suggest.Unknown("opcode", s, opcodeNames())
	e.Sentinel = ErrUnknownOpcode
	return nil, e
}

// opcodeNames are the mnemonics of the opcodes with a layout, in catalog
// order: what an unknown opcode's message lists.
func opcodeNames() []string {
	var out []string
	for i := range catalog {
		if catalog[i].Decoded() {
			out = append(out, catalog[i].Name)
		}
	}
	return out
}

// String is the mnemonic.
func (o Opcode) String() string { return opTable[o].Mnemonic() }
