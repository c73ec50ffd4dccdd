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

// addr8 checks is_valid_addr8 for one field and returns the decoded address.
func (c *checker) addr8(path string) isa.Addr8 {
	a, err := c.in.Addr8(path)
	if err != nil {
		panic(err)
	}
	i, _ := c.in.Layout().LeafIndex(path)
	form, marker, fields := c.in.UnionArm(i)
	switch {
	case !validMarker8(uint8(marker), a.Pseudo):
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
	return a
}

// immAddr returns an immediate address field's value, if the field holds one.
func (c *checker) immAddr(path string) (uint64, bool) {
	i, _ := c.in.Layout().LeafIndex(path)
	form, _, fields := c.in.UnionArm(i)
	if form != "imm" && form != "imm64" {
		return 0, false
	}
	return fields[0].Value, true
}

// isRegAddr reports a register (or DMA register-mode) address form.
func (c *checker) isRegAddr(path string) bool {
	i, _ := c.in.Layout().LeafIndex(path)
	form, _, _ := c.in.UnionArm(i)
	return form == "reg" || form == "regs"
}

// boundReg checks a BOUND_CHECK_REG (§2.3): inert (all zero) or enabled with a
// register the address form can use; wide-offset mode reads bc_reg+1 too.
func (c *checker) boundReg(predicate, path, addrPath string) bool {
	reg, dis, en := c.u(path+".bc_reg"), c.u(path+".bc_disable_oob_error_notif"), c.u(path+".bc_enabled")
	if en == 0 && (reg != 0 || dis != 0) {
		c.failf(predicate, path+".bc_enabled", "0", "a bound register is either all zero (inert) or enabled (bc_reg = %d, bc_disable_oob_error_notif = %d)", reg, dis)
		return false
	}
	if en == 1 && addrPath != "" {
		if a, err := c.in.Addr8(addrPath); err == nil && a.Marker()&isa.MarkerOffsetWide != 0 && reg >= 63 {
			c.failf(predicate, path+".bc_reg", fmt.Sprint(reg), "wide-offset mode reads bc_reg and bc_reg+1: bc_reg must be <= 62")
			return false
		}
	}
	return true
}

// sbufAddr reports whether an immediate address lies in SBUF on the generation.
func (c *checker) sbufAddr(a uint64) bool {
	r, _, _ := isa.Map(c.gen).Split(a)
	return r == isa.SBUF
}

// dtypeBytes is the size of a DTYPE in bytes (0 when not a whole-byte type).
func (c *checker) dtypeBytes(d uint64) int {
	bits, ok := isa.DTypeBits(uint8(d), c.gen)
	if !ok || bits%8 != 0 {
		return 0
	}
	return bits / 8
}

// configs checks DMA_CONFIGS (§2.4).
func (c *checker) configs(path string) {
	if p := c.u(path + ".priority_class"); p > 4 {
		c.failf(pConfigs, path+".priority_class", fmt.Sprint(p), "must be 0..4")
	}
}

// memcpyDtypes checks are_valid_memcpy_dtypes (§3.2): no 64-bit types, no FP32R
// input, and on v4+ only the basic types.
func (c *checker) memcpyDtypes(in, out string) {
	for _, p := range []string{in, out} {
		d := c.u(p)
		switch {
		case d == 0x01 || d == 0x0C:
			c.failf(pMemcpyDtypes, p, isa.DType.Format(d), "UINT64/INT64 are not memcpy dtypes")
		case p == in && d == 0x0B:
			c.failf(pMemcpyDtypes, p, "FP32R", "FP32R is output-only")
		case (c.gen == isa.Mariana || c.gen == isa.MarianaPlus || c.gen == isa.Maverick) && (d < 0x02 || d > 0x0F):
			c.failf(pMemcpyDtypes, p, isa.DType.Format(d), "v4+ memcpy takes the basic types only (INT8 … FP8_EXP5)")
		}
	}
}

// elemBytes is an elem_size field (0 means 65536).
func (c *checker) elemBytes(path string) uint64 {
	if v := c.u(path); v != 0 {
		return v
	}
	return 65536
}
