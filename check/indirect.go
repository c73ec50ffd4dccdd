package check

import (
	"fmt"

	"ndma/isa"
)

// DMA_INDIRECT1D 0xbb — field-tables §3.5, §2.3, §9.4.

func (c *checker) indirect1D() {
	c.idxChannels("idx_num_active_channels")
	shape := false
	for _, leg := range []string{"src", "dst"} {
		a := c.addr8(leg + "_start_addr")
		shape = shape || a.ShapeFromReg()
		if n := c.u(leg + "_num_elem"); n > 4096 && !a.ShapeFromReg() {
			c.failf(pIndirectNum, leg+"_num_elem", fmt.Sprint(n), "must be <= 4096 unless the shape comes from a register")
		}
		c.idxAddr4(leg + "_idx_start_addr")
		c.idxBoundReg(leg+"_idx_bound_reg", "flags.idx_bound_is_err")
	}
	c.indirectFlags("flags", shape)
	c.memcpyDtypes("in_dtype", "out_dtype")
	c.configs("dma_configs")
}

func (c *checker) idxChannels(path string) {
	if n := c.u(path); n != 128 {
		c.failf(pIdxChannels, path, fmt.Sprint(n), "must be 128 (POOLING_NUM_CHANNELS)")
	}
}

// idxAddr4 checks an index address: a register form, or an immediate in SBUF
// partition 0 (§3.5).
func (c *checker) idxAddr4(path string) {
	if c.isRegAddr(path) {
		return
	}
	a, _ := c.immAddr(path)
	r, part, _ := isa.Map(c.gen).Split(a)
	if r != isa.SBUF || part != 0 {
		c.fail(pIdxAddr4, path, fmt.Sprintf("%#x", a), "UINT32 indices come from a register or SBUF partition 0")
	}
}

// idxBoundReg checks an index bound register: the plain rule, plus the
// coupling with idx_bound_is_err (§2.3) when errPath is set.
func (c *checker) idxBoundReg(path, errPath string) {
	if !c.boundReg(pIdxBoundReg, path, "") {
		return
	}
	if errPath != "" && c.u(path+".bc_enabled") == 1 && c.u(path+".bc_disable_oob_error_notif") == 1 && c.u(errPath) == 0 {
		c.failf(pIdxBoundReg, path+".bc_disable_oob_error_notif", "1", "with idx_bound_is_err = 0 out-of-bounds indices are skipped, not errors: bc_disable_oob_error_notif must be 0 (field-tables §9.4)")
	}
}

// indirectFlags checks DMA_INDIRECT_FLAGS (§3.5): the mode, and the dims.
func (c *checker) indirectFlags(path string, shapeFromReg bool) {
	mode := c.u(path + ".indirect_mode")
	if !c.enumOn(pIndirectMode, path+".indirect_mode", isa.IndirectMode) {
		return
	}
	g, s := c.u(path+".gather_dim"), c.u(path+".scatter_dim")
	switch {
	case mode == 0 && s != 0:
		c.failf(pIndirectDims, path+".scatter_dim", isa.IndirectDim.Format(s), "SRC (gather) mode: scatter_dim must be X (0)")
	case mode == 1 && g != 0:
		c.failf(pIndirectDims, path+".gather_dim", isa.IndirectDim.Format(g), "DST (scatter) mode: gather_dim must be X (0)")
	case !shapeFromReg && g != 0:
		c.failf(pIndirectDims, path+".gather_dim", isa.IndirectDim.Format(g), "with immediate (non shape-register) addresses the indirect dim must be X")
	case !shapeFromReg && s != 0:
		c.failf(pIndirectDims, path+".scatter_dim", isa.IndirectDim.Format(s), "with immediate (non shape-register) addresses the indirect dim must be X")
	}
}
