package isa

import "fmt"

// COMPACT_CONTROL_INST (0xb6) — field-tables §3.11, source document 000 §3g.
// Each of the 15 slots is a 4-byte CCINST union whose member is chosen by the
// CCOP in byte 0. Ranges of CCOP are OBSERVED; individual codes inside a range,
// and the member layouts the sources do not give, are ndma's choices
// (INFERRED, RATIONALE.md).

type ccop struct {
	code uint64
	name string
	typ  uint64 // CCINST_TYPE
	prov Prov
}

// CCINST_TYPE values.
const (
	CCTypeALU    = 0
	CCTypeMOV    = 1
	CCTypeMOVIMM = 2
	CCTypeBR     = 3
	CCTypeBL     = 4
	CCTypeMEM    = 5
	CCTypeSEMR   = 6
	CCTypeSEMU   = 7
	CCTypeNOP    = 8
)

func ccopTable() []ccop {
	var t []ccop
	add := func(code uint64, typ uint64, p Prov, names ...string) {
		for i, n := range names {
			t = append(t, ccop{code + uint64(i), n, typ, p})
		}
	}
	add(0x00, CCTypeNOP, Observed, "NOP")
	add(0x01, CCTypeMOV, Observed, "MOV")
	add(0x02, CCTypeMOVIMM, Observed, "MOV_IMM_LO", "MOV_IMM_HI", "MOV_IMM_LO_S")
	alu7 := []string{"ADD", "SUB", "MUL", "DIV", "MOD", "MAX", "MIN"}
	suffixed := func(sfx string) []string {
		out := make([]string, len(alu7))
		for i, n := range alu7 {
			out[i] = n + sfx
		}
		return out
	}
	add(0x10, CCTypeALU, Observed, alu7...)
	add(0x18, CCTypeALU, Inferred, suffixed("S")...)  // spelling of the saturating forms
	add(0x20, CCTypeALU, Inferred, suffixed("64")...) // "ADD64..MIN64=0x20..0x26": the ends named, the rest spelled as the 32-bit ones
	add(0x28, CCTypeALU, Inferred, suffixed("64S")...)
	add(0x30, CCTypeALU, Observed, "ADDF", "SUBF", "MULF", "DIVF", "TRUNCF", "MAXF", "MINF",
		"ABS_VALUEF", "ABS_MAXF", "ABS_MINF")
	add(0x3a, CCTypeALU, Inferred, "ABS_VALUE", "ABS_MAX", "ABS_MIN", "ABS_VALUE64", "ABS_MAX64", "ABS_MIN64")
	add(0x40, CCTypeALU, Observed, "ASL", "ASR", "LSL", "LSR", "ROL", "ROR")
	add(0x46, CCTypeALU, Inferred, "ASR64", "LSL64", "LSR64", "ROL64")
	add(0x4a, CCTypeALU, Observed, "CLZ", "CLZ64")
	add(0x50, CCTypeALU, Inferred, "LOGICAL_AND", "LOGICAL_OR", "LOGICAL_XOR", "LOGICAL_NOT",
		"BITWISE_AND", "BITWISE_OR", "BITWISE_NOT", "BITWISE_XOR")
	conds := []string{"EQ", "NE", "LT", "LE", "GT", "GE"}
	for i, cmp := range []string{"CMP", "CMPS", "CMP64", "CMP64S", "CMPF"} {
		names := make([]string, len(conds))
		for j, c := range conds {
			names[j] = cmp + "_" + c
		}
		add(0x60+uint64(8*i), CCTypeALU, Inferred, names...)
	}
	for i, base := range []string{"REL_IMM", "REL_REG", "REG64"} {
		p := Inferred
		if i == 0 {
			p = Observed
		}
		code := 0x90 + uint64(4*i)
		add(code, CCTypeBR, p, "BR_"+base, "BR_"+base+"_T", "BR_"+base+"_F")
		add(code+3, CCTypeBL, p, "BL_"+base)
	}
	add(0xa0, CCTypeMEM, Observed, "LDR", "LDRH", "LDRHS", "LDRB", "LDRBS", "STR", "STRH", "STRB",
		"LDRD", "LDRQ", "STRD", "STRQ")
	add(0xb0, CCTypeSEMR, Observed, "SEM_READ")
	add(0xb1, CCTypeSEMU, Observed, "SEM_WRITE", "SEM_ADD")
	// 000 §3g names these codes of an otherwise unspelled range explicitly:
	// "64-bit ALU ADD64..MIN64=0x20..0x26", "integer abs ABS_VALUE..ABS_MIN64=0x3a..0x3f", "logical/bitwise
	// LOGICAL_AND..BITWISE_XOR=0x50..0x57", "compares CMP*_EQ..GE=0x60..0x85".
	for i := range t {
		if ccopNamed[t[i].code] == t[i].name {
			t[i].prov = Observed
		}
	}
	return t
}

// ccopNamed are the CCOP codes 000 §3g spells out inside a range whose other
// members' names are ndma's (INFERRED).
var ccopNamed = map[uint64]string{0x20: "ADD64", 0x26: "MIN64", 0x3a: "ABS_VALUE", 0x3f: "ABS_MIN64", 0x50: "LOGICAL_AND", 0x57: "BITWISE_XOR", 0x60: "CMP_EQ"}

// ccOpEnum is the CCOP enum (the op byte of every CCINST).
var ccOpEnum, ccopType = func() (*Enum, map[uint64]uint64) {
	var vals []EnumValue
	types := map[uint64]uint64{}
	for _, o := range ccopTable() {
		vals = append(vals, ev(o.code, o.name, o.prov))
		types[o.code] = o.typ
	}
	return newEnum("CCOP", Observed, vals...), types
}()

// CCOpType is the CCINST_TYPE member that a CCOP code decodes by, and false
// for an op byte no CCOP names.
func CCOpType(op uint8) (uint64, bool) {
	t, ok := ccopType[uint64(op)]
	return t, ok
}

func opField() armField {
	return armField{Name: "op", Shift: 0, Width: 8, Enum: ccOpEnum, Prov: Observed}
}

// ccMembers are the CCINST union members, indexed by CCINST_TYPE.
var ccMembers = [...]arm{
	CCTypeALU:    {Name: "ALU", Prov: Observed, Note: "CCALU {op, src0, src1, dst}", Fields: []armField{opField(), af("src0", 8, 8, Observed), af("src1", 16, 8, Observed), af("dst", 24, 8, Observed)}},
	CCTypeMOV:    {Name: "MOV", Prov: Inferred, Note: "CCMOV {op, dst, src, pad}: order not found", Fields: []armField{opField(), af("dst", 8, 8, Inferred), af("src", 16, 8, Inferred), af("reserved", 24, 8, Inferred)}},
	CCTypeMOVIMM: {Name: "MOVIMM", Prov: Observed, Note: "CCMOV_IMM {op, dst, imm u16}", Fields: []armField{opField(), af("dst", 8, 8, Observed), af("imm", 16, 16, Observed)}},
	CCTypeBR:     {Name: "BR", Prov: Inferred, Note: "CCBR {op, cc_src, target}; CCBR_TARGET = signed slot offset (INFERRED)", Fields: []armField{opField(), af("cc_src", 8, 8, Observed), {Name: "target", Shift: 16, Width: 16, Signed: true, Prov: Inferred}}},
	CCTypeBL:     {Name: "BL", Prov: Inferred, Note: "CCBL {op, dst, target}: order not found", Fields: []armField{opField(), af("dst", 8, 8, Inferred), {Name: "target", Shift: 16, Width: 16, Signed: true, Prov: Inferred}}},
	CCTypeMEM:    {Name: "MEM", Prov: Observed, Note: "CCMEM {op, srcdst, addr_reg, addr_imm}", Fields: []armField{opField(), af("srcdst", 8, 8, Observed), af("addr_reg", 16, 8, Observed), af("addr_imm", 24, 8, Observed)}},
	CCTypeSEMR:   {Name: "SEMR", Prov: Inferred, Note: "CCSEMR {op, dst, semid, pad}: order not found", Fields: []armField{opField(), af("dst", 8, 8, Inferred), af("semid", 16, 8, Inferred), af("reserved", 24, 8, Inferred)}},
	CCTypeSEMU:   {Name: "SEMU", Prov: Inferred, Note: "CCSEMU {op, semid, src0, imm}: order not found", Fields: []armField{opField(), af("semid", 8, 8, Inferred), af("src0", 16, 8, Inferred), af("imm", 24, 8, Inferred)}},
	CCTypeNOP:    {Name: "NOP", Prov: Inferred, Note: "op + 3 bytes of padding", Fields: []armField{opField(), af("reserved", 8, 24, Inferred)}},
}

// ccRaw decodes a slot whose op byte no CCOP names.
var ccRaw = arm{Name: "RAW", Prov: Inferred, Note: "op byte not in CCOP: kept as bytes", Fields: []armField{opField(), af("bytes", 8, 24, Inferred)}}

func ccArm(v uint64) *arm {
	t, ok := CCOpType(uint8(v))
	if !ok {
		return &ccRaw
	}
	return &ccMembers[t]
}

// CCInst is one decoded compact control instruction.
type CCInst uint32

// Op is the CCOP byte.
func (c CCInst) Op() uint8 { return uint8(c) }

// Member is the CCINST_TYPE member name ("ALU", "MOVIMM", …, "RAW").
func (c CCInst) Member() string { return ccArm(uint64(c)).Name }

// Get returns a member field by name (e.g. "dst"), sign-extended where signed.
func (c CCInst) Get(name string) (int64, error) {
	a := ccArm(uint64(c))
	for _, f := range a.Fields {
		if f.Name == name {
			x := f.get(uint64(c))
			if f.Signed {
				return f.signedValue(x), nil
			}
			return int64(x), nil
		}
	}
	return 0, fmt.Errorf("CCINST member %s has no field %q", a.Name, name)
}

// cciLayout is the layout of the 0xb6 COMPACT_CONTROL_INST word (§3.11): the header
// (byte 1 read as inst_word_len, INFERRED: see cciLeafLabels) and 15 CCINST slots.
var cciLayout = (&Struct{Name: "CTRL_CCI", Size: 64, Prov: Observed, Fields: []Field{
	headerField(),
	Field{Name: "insts", Off: 4, Size: 4, Count: 15, Kind: KCCInst, Prov: Observed, Note: "CCINST union, member chosen by the CCOP byte"},
}}).finish()

// leafLabel relabels one leaf of a layout whose shared sub-struct says
// otherwise (describe prints it).
type leafLabel struct {
	Prov Prov
	Note string
}

// leafLabels are the per-layout relabels of shared sub-struct leaves.
var leafLabels = map[*Struct]map[string]leafLabel{
	// 000 §3g: "CCIHEADER { opcode; reserved[1]; debug_cmd; debug_hint }".
	cciLayout: {"header.inst_word_len": {Inferred, "source document 000 §3g (docs/sources.md): reserved[1] of CCIHEADER; ndma reads it as the common header's inst_word_len (0x10, docs/field-tables.md §1)"}},
}
