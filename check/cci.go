package check

import (
	"fmt"
	"strings"

	"ndma/isa"
)

// CTRL_CCI 0xb6 — source document 000 §3g (is_valid_ctrl_cci), field-tables §3.11.

const cciSlots = 15

var ccRegFields = map[string]bool{"dst": true, "src0": true, "src1": true, "src": true, "cc_src": true, "srcdst": true, "addr_reg": true}

func (c *checker) cci() {
	v, _ := c.in.CCI()
	if t := v.Header().DebugHint(); t != 0 && (c.gen == isa.Maverick || c.gen == isa.GenAny) {
		c.failf(pTileIdxZero, "header.debug_hint", fmt.Sprint(t), "the tile index (byte 3 on MAVERICK) must be 0")
	}
	for k := 0; k < cciSlots; k++ {
		path := fmt.Sprintf("insts[%d]", k)
		inst := v.Insts(k)
		op := inst.Op()
		if isa.CCOp().NameOf(uint64(op)) == "" {
			c.fail(pCCOp, path+".op", fmt.Sprintf("%#02x", op), "not a CCOP")
			continue
		}
		member, fields := isa.CCInstFields(uint32(inst))
		for _, f := range fields {
			switch {
			case ccRegFields[f.Name] && f.Value >= regCount:
				c.failf(pCCOperands, path+"."+f.Name, fmt.Sprint(f.Value), "a register number: r0..r63")
			case f.Name == "reserved" && f.Value != 0:
				c.fail(pCCOperands, path+".reserved", fmt.Sprintf("%#x", f.Value), fmt.Sprintf("the %s member's padding must be 0", member))
			case f.Name == "target" && strings.Contains(isa.CCOp().NameOf(uint64(op)), "_REL_IMM"):
				if t := int64(k) + f.Int; t < 0 || t >= cciSlots {
					c.fail(pCCBranch, path+".target", fmt.Sprint(f.Int), fmt.Sprintf("slot %d%+d = %d is outside the word's 15 slots", k, f.Int, t))
				}
			}
		}
	}
}
