package isa

// Address unions (field-tables §4.1, §4.2, §2.5 and ndma's §11.2 arm layouts).
//
// A union is kept as its raw value; the arm is chosen from the marker bits
// (or, for DMA_ADDR_UNION, from the sibling DMA_ADDR_MODE nibble). Every bit
// pattern maps to exactly one arm, so any address round-trips.

// ADDR8 marker bits (§4.1, byte 7, mask 0xFC).
const (
	MarkerMask       = 0xFC
	MarkerOffsetWide = 0x04
	MarkerOffsetReg  = 0x08
	MarkerVarID      = 0x10 // PSEUDO_ADDR8 only
	MarkerAddrTbl    = 0x20
	MarkerShapeReg   = 0x40
	MarkerAddrReg    = 0x80
)

// ADDR4 marker bits (§4.2, byte 3 & 0xE0).
const (
	Addr4MarkerMask = 0xE0
	Addr4ImmMask    = 0x1FFFFFFF // TPB_PARTITION_ADDR_MASK
)

var (
	addr8Imm = arm{Name: "imm", Prov: Inferred, Note: "bytes 0-6 plus marker bits 0-1 as address bits 56-57 (docs/field-tables.md §11.2)",
		Fields: []armField{af("addr", 0, 58, Inferred)}}
	addr8Reg = arm{Name: "reg", Marker: MarkerAddrReg, Prov: Inferred, Note: "address = r[reg_lo] | r[reg_hi] << 32 (docs/field-tables.md §11.2)",
		Fields: []armField{af("reg_lo", 0, 8, Inferred), af("reg_hi", 8, 8, Inferred), af("reserved", 16, 42, Inferred)}}
	addr8Tbl = arm{Name: "tbl", Marker: MarkerAddrTbl, Prov: Inferred, Note: "table / offset-register arm, kept as its raw payload (docs/field-tables.md §11.2)",
		Fields: []armField{af("payload", 0, 58, Inferred)}}
	addr8Raw = arm{Name: "raw", Prov: Inferred, Note: "a marker combination no source defines, kept as raw payload",
		Fields: []armField{af("payload", 0, 58, Inferred)}}
	pseudoVar = arm{Name: "var", Marker: MarkerVarID, Prov: Observed, Note: "NEFF variable id + byte offset (docs/neff.md §5.4; var_id width INFERRED)",
		Fields: []armField{af("var_offset", 0, 32, Observed), af("var_id", 32, 16, Inferred), af("reserved", 48, 10, Inferred)}}
	pseudoTbl = arm{Name: "tbl", Marker: MarkerAddrTbl, Prov: Observed, Note: "byte offset + index into the subgraph's dge-table list (docs/neff.md §5.4)",
		Fields: []armField{af("offset", 0, 32, Observed), af("index", 32, 16, Inferred), af("reserved", 48, 10, Inferred)}}

	// The ADDR4 arms are field-tables §4.2's (CARRIED): 000 says only "ADDR4
	// is its 4-byte form", 003 only that an index address is an ADDR4.
	addr4Imm = arm{Name: "imm", Prov: Carried, Note: "PartitionOffset = value & 0x1FFFFFFF",
		Fields: []armField{af("addr", 0, 29, Carried)}}
	addr4Reg = arm{Name: "reg", Marker: MarkerAddrReg, Prov: Carried, Note: "ADDR_REG4 {regnum@0, reserved0[2]@1..2, marker@3}",
		Fields: []armField{af("reg", 0, 8, Carried), af("reserved", 8, 21, Carried)}}

	dmaAddrImm = arm{Name: "imm64", Prov: Observed, Note: "DMA_ADDR_MODE IMM64",
		Fields: []armField{af("addr", 0, 64, Observed)}}
	dmaAddrRegs = arm{Name: "regs", Prov: Inferred, Note: "DMA_ADDR_STRUCT, byte order = declaration order (docs/field-tables.md §2.5)",
		Fields: []armField{af("base_reg", 0, 8, Inferred), af("offset_reg", 8, 8, Inferred), af("inc_reg", 16, 8, Inferred),
			af("reserved", 24, 8, Inferred), af("offset_imm", 32, 32, Inferred)}}
)

// Addr8Arm returns the arm that a raw ADDR8 (pseudo: PSEUDO_ADDR8) value
// decodes by.
func addr8Arm(v uint64, pseudo bool) *arm {
	m := byte(v>>56) & MarkerMask
	switch {
	case m&MarkerVarID != 0:
		if pseudo && m&(MarkerAddrReg|MarkerAddrTbl|MarkerOffsetReg|MarkerOffsetWide) == 0 {
			return &pseudoVar
		}
		return &addr8Raw
	case m&MarkerAddrReg != 0:
		if m&(MarkerAddrTbl|MarkerOffsetReg|MarkerOffsetWide) == 0 {
			return &addr8Reg
		}
		return &addr8Raw
	case m&MarkerAddrTbl != 0:
		if pseudo {
			if m&(MarkerOffsetReg|MarkerOffsetWide) == 0 {
				return &pseudoTbl
			}
			return &addr8Raw
		}
		return &addr8Tbl
	case m&(MarkerOffsetReg|MarkerOffsetWide) != 0:
		return &addr8Raw
	}
	return &addr8Imm
}

func addr4Arm(v uint64) *arm {
	if byte(v>>24)&MarkerAddrReg != 0 {
		return &addr4Reg
	}
	return &addr4Imm
}

func dmaAddrArm(mode uint64) *arm {
	if mode == 0 { // DMA_ADDR_MODE_IMM64
		return &dmaAddrImm
	}
	return &dmaAddrRegs
}

// Addr8 is a decoded ADDR8 or PSEUDO_ADDR8 value.
type Addr8 struct {
	Raw    uint64
	Pseudo bool
}

// Marker is byte 7 & 0xFC.
func (a Addr8) Marker() uint8 { return byte(a.Raw>>56) & MarkerMask }

// Form is the arm name: "imm", "reg", "tbl", "var" or "raw".
func (a Addr8) Form() string { return addr8Arm(a.Raw, a.Pseudo).Name }

// ShapeFromReg reports the SHAPE_REG bit: num/step come from $S (§4.1).
func (a Addr8) ShapeFromReg() bool { return a.Marker()&MarkerShapeReg != 0 }

// Imm is the immediate address (58 bits) and whether the form is immediate.
func (a Addr8) Imm() (uint64, bool) {
	return a.Raw & (1<<58 - 1), a.Form() == "imm"
}

// Var is the PSEUDO_ADDR8 variable arm: id and byte offset.
func (a Addr8) Var() (id uint16, off uint32, ok bool) {
	return uint16(a.Raw >> 32), uint32(a.Raw), a.Form() == "var" && a.Pseudo
}

// Table is the PSEUDO_ADDR8 dge-table arm: index into the subgraph's
// dge-table list and byte offset (field-tables §11.2, neff.md §5.4).
func (a Addr8) Table() (index uint16, off uint32, ok bool) {
	return uint16(a.Raw >> 32), uint32(a.Raw), a.Pseudo && a.Form() == "tbl"
}

// Addr4 is a decoded ADDR4 value (field-tables §4.2).
type Addr4 uint32

// Marker is byte 3 & 0xE0.
func (a Addr4) Marker() uint8 { return byte(a>>24) & Addr4MarkerMask }

// Form is the arm name: "imm" or "reg".
func (a Addr4) Form() string { return addr4Arm(uint64(a)).Name }

// Imm is the PartitionOffset (value & 0x1FFFFFFF) and whether the form is immediate.
func (a Addr4) Imm() (uint64, bool) { return uint64(a) & Addr4ImmMask, a.Form() == "imm" }

// Reg is the ADDR_REG4 register number and whether the form is a register.
func (a Addr4) Reg() (uint8, bool) { return uint8(a), a.Form() == "reg" }

// ImmAddr8 builds an immediate ADDR8 (marker 0) of address a (< 2^58).
func ImmAddr8(a uint64) uint64 {
	return mustArm(KAddr8, "imm", map[string]uint64{"addr": a & (1<<58 - 1)})
}

// VarAddr8 builds a PSEUDO_ADDR8 variable arm.
func VarAddr8(id uint16, off uint32) uint64 {
	return mustArm(KPseudoAddr8, "var", map[string]uint64{"var_id": uint64(id), "var_offset": uint64(off)})
}

// TableAddr8 builds a PSEUDO_ADDR8 dge-table arm.
func TableAddr8(index uint16, off uint32) uint64 {
	return mustArm(KPseudoAddr8, "tbl", map[string]uint64{"index": uint64(index), "offset": uint64(off)})
}

// RegAddr8 builds an ADDR_REG arm: address = r[lo] | r[hi] << 32.
func RegAddr8(lo, hi uint8) uint64 {
	return mustArm(KAddr8, "reg", map[string]uint64{"reg_lo": uint64(lo), "reg_hi": uint64(hi)})
}

// mustArm is BuildArm for arguments whose types already bound the values.
func mustArm(kind Kind, arm string, vals map[string]uint64) uint64 {
	v, err := BuildArm(kind, arm, 0, vals)
	if err != nil {
		panic(err)
	}
	return v
}
