package check

import (
	"fmt"

	"ndma/isa"
)

// DMA_INDIRECT1D 0xbb — field-tables §3.5, §2.3, §9.4.

func (c *checker) indirect1D() {
	v, _ := c.in.Indirect1D()
	c.idxChannels("idx_num_active_channels", v.IdxNumActiveChannels())
	shape := false
	legs := [2]struct {
		addr  isa.Addr8
		num   uint64
		idx   isa.Addr4
		bound isa.BoundCheckRegView
	}{
		{v.SrcStartAddr(), v.SrcNumElem(), v.SrcIdxStartAddr(), v.SrcIdxBoundReg()},
		{v.DstStartAddr(), v.DstNumElem(), v.DstIdxStartAddr(), v.DstIdxBoundReg()},
	}
	for k, leg := range legNames {
		l := &legs[k]
		c.addr8(leg+"_start_addr", l.addr)
		shape = shape || l.addr.ShapeFromReg()
		if n := l.num; n > 4096 && !l.addr.ShapeFromReg() {
			c.failf(pIndirectNum, leg+"_num_elem", fmt.Sprint(n), "must be <= 4096 unless the shape comes from a register")
		}
		c.idxAddr4(leg+"_idx_start_addr", l.idx)
		c.idxBoundReg(leg+"_idx_bound_reg", l.bound, v.Flags().IdxBoundIsErr())
	}
	c.indirectFlags("flags", v.Flags(), shape)
	c.memcpyDtypes(v.InDType(), v.OutDType())
	c.configs("dma_configs", v.DMAConfigs())
}

// idxChannels checks the idx_num_active_channels n of field path.
func (c *checker) idxChannels(path string, n uint64) {
	if n != 128 {
		c.failf(pIdxChannels, path, fmt.Sprint(n), "must be 128 (POOLING_NUM_CHANNELS)")
	}
}

// idxAddr4 checks the index address a of field path: a register form, or an
// immediate in SBUF partition 0 (§3.5).
func (c *checker) idxAddr4(path string, a isa.Addr4) {
	imm, ok := a.Imm()
	if !ok { // the register form
		return
	}
	r, part, _ := isa.Map(c.gen).Split(imm)
	if r != isa.SBUF || part != 0 {
		c.fail(pIdxAddr4, path, fmt.Sprintf("%#x", imm), "UINT32 indices come from a register or SBUF partition 0")
	}
}

// idxBoundReg checks the index bound register b of field path: the plain
// rule, plus the coupling with idx_bound_is_err (§2.3, §9.4).
func (c *checker) idxBoundReg(path string, b isa.BoundCheckRegView, idxBoundIsErr uint64) {
	if !c.boundReg(pIdxBoundReg, path, b, false) {
		return
	}
	if b.BCEnabled() == 1 && b.BCDisableOOBErrorNotif() == 1 && idxBoundIsErr == 0 {
		c.failf(pIdxBoundReg, path+".bc_disable_oob_error_notif", "1", "with idx_bound_is_err = 0 out-of-bounds indices are skipped, not errors: bc_disable_oob_error_notif must be 0 (docs/field-tables.md §9.4)")
	}
}

// indirectFlags checks the DMA_INDIRECT_FLAGS f of field path (§3.5): the
// mode, and the dims.
func (c *checker) indirectFlags(path string, f isa.DMAIndirectFlagsView, shapeFromReg bool) {
	mode := f.IndirectMode()
	if !enumOn(c, pIndirectMode, path+".indirect_mode", mode) {
		return
	}
	g, s := f.GatherDim(), f.ScatterDim()
	switch {
	case mode == isa.IndirectModeSrc && s != isa.IndirectDimX:
		c.failf(pIndirectDims, path+".scatter_dim", s.String(), "SRC (gather) mode: scatter_dim must be X (0)")
	case mode == isa.IndirectModeDst && g != isa.IndirectDimX:
		c.failf(pIndirectDims, path+".gather_dim", g.String(), "DST (scatter) mode: gather_dim must be X (0)")
	case !shapeFromReg && g != isa.IndirectDimX:
		c.failf(pIndirectDims, path+".gather_dim", g.String(), "with immediate (non shape-register) addresses the indirect dim must be X")
	case !shapeFromReg && s != isa.IndirectDimX:
		c.failf(pIndirectDims, path+".scatter_dim", s.String(), "with immediate (non shape-register) addresses the indirect dim must be X")
	}
}
