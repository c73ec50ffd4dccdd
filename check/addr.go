package check

import (
	"fmt"

	"ndma/isa"
)

// Address rules shared by the DMA words (field-tables §4.1, §4.2, §2.3).

// addr8Forms are the markers a real ADDR8 defines (§4.1): imm, SHAPE_REG,
// ADDR_REG, ADDR_SHAPE_REG and the table forms; PSEUDO_ADDR8 adds VAR_ID.
func validMarker8(m uint8, pseudo bool) bool {
	switch m &^ isa.MarkerShapeReg {
	case 0, isa.MarkerAddrReg, isa.MarkerAddrTbl, isa.MarkerAddrTbl | isa.MarkerOffsetReg,
		isa.MarkerAddrTbl | isa.MarkerOffsetWide, isa.MarkerAddrTbl | isa.MarkerOffsetReg | isa.MarkerOffsetWide:
		return true
	case isa.MarkerVarID:
		return pseudo
	}
	return false
}

// addr8 checks is_valid_addr8 for the ADDR8 a of field path.
func (c *checker) addr8(path string, a isa.Addr8) {
	form, fields := a.Arm()
	marker := a.Marker()
	switch {
	case !validMarker8(marker, a.Pseudo):
		c.failf(pAddr8, path, fmt.Sprintf("marker %#x", marker), "not an ADDR8 form (imm 0x00, SHAPE_REG 0x40, ADDR_REG 0x80/0xc0, tables 0x20/0x60 [+0x08/+0x04]%s)", map[bool]string{true: ", VAR_ID 0x10/0x50", false: ""}[a.Pseudo])
	case form == "raw":
		c.fail(pAddr8, path, fmt.Sprintf("marker %#x", marker), "a marker combination no source defines")
	default:
		for _, f := range fields {
			if f.Name == "reserved" && f.Value != 0 {
				c.failf(pAddr8, path+"."+f.Name, fmt.Sprintf("%#x", f.Value), "the %s form's reserved bits must be 0", form)
			}
		}
	}
}

// wideOffset reports an ADDR8 in wide-offset mode, which reads its bound
// register and the next one (§2.3).
func wideOffset(a isa.Addr8) bool { return a.Marker()&isa.MarkerOffsetWide != 0 }

// boundReg checks the BOUND_CHECK_REG b of field path (§2.3): inert (all
// zero) or enabled with a register the address form can use; wide-offset
// mode (wide) reads bc_reg+1 too.
func (c *checker) boundReg(predicate, path string, b isa.BoundCheckRegView, wide bool) bool {
	reg, dis, en := b.BCReg(), b.BCDisableOOBErrorNotif(), b.BCEnabled()
	if en == 0 && (reg != 0 || dis != 0) {
		c.failf(predicate, path+".bc_enabled", "0", "a bound register is either all zero (inert) or enabled (bc_reg = %d, bc_disable_oob_error_notif = %d)", reg, dis)
		return false
	}
	if en == 1 && wide && reg >= 63 {
		c.failf(predicate, path+".bc_reg", fmt.Sprint(reg), "wide-offset mode reads bc_reg and bc_reg+1: bc_reg must be <= 62")
		return false
	}
	return true
}

// sbufAddr reports whether an immediate address lies in SBUF on the generation.
func (c *checker) sbufAddr(a uint64) bool {
	r, _, _ := isa.Map(c.gen).Split(a)
	return r == isa.SBUF
}

// dtypeBytes is the size of a DTYPE in bytes (0 when not a whole-byte type).
func (c *checker) dtypeBytes(d isa.DTypeCode) int {
	bits, ok := isa.DTypeBits(uint8(d), c.gen)
	if !ok || bits%8 != 0 {
		return 0
	}
	return bits / 8
}

// configs checks the DMA_CONFIGS d of field path (§2.4).
func (c *checker) configs(path string, d isa.DMAConfigsView) {
	if p := d.PriorityClass(); p > 4 {
		c.failf(pConfigs, path+".priority_class", fmt.Sprint(p), "must be 0..4")
	}
}

// memcpyDtypes checks are_valid_memcpy_dtypes (§3.2) of a word's in_dtype and
// out_dtype: no 64-bit types, no FP32R input, and on v4+ only the basic types.
func (c *checker) memcpyDtypes(in, out isa.DTypeCode) {
	for k, d := range []isa.DTypeCode{in, out} {
		p := []string{"in_dtype", "out_dtype"}[k]
		switch {
		case d == isa.DTypeUint64 || d == isa.DTypeInt64:
			c.failf(pMemcpyDtypes, p, d.String(), "UINT64/INT64 are not memcpy dtypes")
		case k == 0 && d == isa.DTypeFP32R:
			c.failf(pMemcpyDtypes, p, "FP32R", "FP32R is output-only")
		case (c.gen == isa.Mariana || c.gen == isa.MarianaPlus || c.gen == isa.Maverick) && (d < isa.DTypeInt8 || d > isa.DTypeFP8Exp5):
			c.failf(pMemcpyDtypes, p, d.String(), "v4+ memcpy takes the basic types only (INT8 … FP8_EXP5)")
		}
	}
}
