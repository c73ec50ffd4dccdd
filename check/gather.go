package check

import (
	"fmt"

	"ndma/isa"
)

// DMA_GATHER_XPOSE 0xf1 — source document 000 §3e (is_valid_dma_gather_transpose),
// field-tables §3.7, §11.5.

func (c *checker) gatherXpose() {
	v, _ := c.in.GatherXpose()
	c.idxChannels("idx_num_active_channels", v.IdxNumActiveChannels())
	c.configs("dma_configs", v.DMAConfigs())
	c.addr8("src_start_addr", v.SrcStartAddr())
	c.addr8("dst_start_addr", v.DstStartAddr())
	c.boundReg(pBoundReg, "dst_bound_reg", v.DstBoundReg(), wideOffset(v.DstStartAddr()))
	c.boundReg(pBoundReg, "src_idx_bound_reg", v.SrcIdxBoundReg(), false) // the no-flags variant: no idx_bound_is_err coupling
	lo, hi := v.DType().DTypeLo(), v.DType().DTypeHi()
	if lo != hi || c.dtypeBytes(lo) != 2 {
		c.fail(pGatherDtype, "dtype", fmt.Sprintf("%s/%s", lo, hi), "dtype_lo == dtype_hi, a 2-byte type (BFLOAT16, FP16, …)")
	}
	e := v.ElemSize() // 2..256 itself: no "0 means 64 KiB" here (§3.7)
	if e < 2 || e > 256 || e%2 != 0 {
		c.failf(pGatherElem, "elem_size", fmt.Sprint(e), "must be even, 2..256")
	}
	n := v.SrcNumElem(1)
	switch {
	case n%16 != 0:
		c.failf(pGatherNumIdx, "src_num_elem[1]", fmt.Sprint(n), "the index count must be a multiple of 16")
	case v.DstNumElem(0) != n:
		c.fail(pGatherNumIdx, "dst_num_elem[0]", fmt.Sprint(v.DstNumElem(0)), fmt.Sprintf("must equal src_num_elem[1] = %d (the index count)", n))
	case e >= 2 && e%2 == 0 && v.DstNumElem(1) != e/2:
		c.fail(pGatherRowLen, "dst_num_elem[1]", fmt.Sprint(v.DstNumElem(1)), fmt.Sprintf("must be elem_size / 2 = %d, the gathered row length (docs/field-tables.md §11.5 dst_num_elem = {N, L}; source document 000 §3e does not state it, docs/sources.md: INFERRED)", e/2))
	}
	if a, ok := v.SrcIdxStartAddr().Imm(); ok && a%4 != 0 {
		c.fail(pGatherAlign, "src_idx_start_addr", fmt.Sprintf("%#x", a), "UINT32 indices: 4-byte aligned")
	}
	if a, ok := v.SrcStartAddr().Imm(); ok && a%2 != 0 {
		c.fail(pGatherAlign, "src_start_addr", fmt.Sprintf("%#x", a), "must be 2-byte aligned")
	}
	if a, ok := v.DstStartAddr().Imm(); ok && (!c.sbufAddr(a) || a%32 != 0) {
		c.fail(pGatherAlign, "dst_start_addr", fmt.Sprintf("%#x", a), "must be a 32-byte aligned SBUF address")
	}
	if s, dn := v.DstStepElem1(), v.DstNumElem(1); s%32 != 0 && dn != 1 {
		c.failf(pGatherDstStep, "dst_step_elem_1", fmt.Sprint(s), "must be a multiple of 32 unless dst_num_elem[1] == 1")
	}
	if g := v.Flags().GatherDim(); g != isa.IndirectDimY {
		c.failf(pGatherDim, "flags.gather_dim", g.String(), "must be Y")
	}
}
