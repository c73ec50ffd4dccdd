package check

import (
	"fmt"

	"ndma/isa"
)

// DMA_GATHER_XPOSE 0xf1 — source document 000 §3e (is_valid_dma_gather_transpose),
// field-tables §3.7, §11.5.

func (c *checker) gatherXpose() {
	c.idxChannels("idx_num_active_channels")
	c.configs("dma_configs")
	c.addr8("src_start_addr")
	c.addr8("dst_start_addr")
	c.boundReg(pBoundReg, "dst_bound_reg", "dst_start_addr")
	c.boundReg(pBoundReg, "src_idx_bound_reg", "") // the no-flags variant: no idx_bound_is_err coupling
	lo, hi := c.u("dtype.dtype_lo"), c.u("dtype.dtype_hi")
	if lo != hi || c.dtypeBytes(lo) != 2 {
		c.fail(pGatherDtype, "dtype", fmt.Sprintf("%s/%s", isa.DType.Format(lo), isa.DType.Format(hi)), "dtype_lo == dtype_hi, a 2-byte type (BFLOAT16, FP16, …)")
	}
	e := c.u("elem_size")
	if e < 2 || e > 256 || e%2 != 0 {
		c.failf(pGatherElem, "elem_size", fmt.Sprint(e), "must be even, 2..256")
	}
	n := c.u("src_num_elem[1]")
	switch {
	case n%16 != 0:
		c.failf(pGatherNumIdx, "src_num_elem[1]", fmt.Sprint(n), "the index count must be a multiple of 16")
	case c.u("dst_num_elem[0]") != n:
		c.fail(pGatherNumIdx, "dst_num_elem[0]", fmt.Sprint(c.u("dst_num_elem[0]")), fmt.Sprintf("must equal src_num_elem[1] = %d (the index count)", n))
	case e >= 2 && e%2 == 0 && c.u("dst_num_elem[1]") != e/2:
		c.fail(pGatherNumIdx, "dst_num_elem[1]", fmt.Sprint(c.u("dst_num_elem[1]")), fmt.Sprintf("must be elem_size / 2 = %d (the gathered row length, §11.5)", e/2))
	}
	if a, ok := c.immAddr("src_idx_start_addr"); ok && a%4 != 0 {
		c.fail(pGatherAlign, "src_idx_start_addr", fmt.Sprintf("%#x", a), "UINT32 indices: 4-byte aligned")
	}
	if a, ok := c.immAddr("src_start_addr"); ok && a%2 != 0 {
		c.fail(pGatherAlign, "src_start_addr", fmt.Sprintf("%#x", a), "must be 2-byte aligned")
	}
	if a, ok := c.immAddr("dst_start_addr"); ok && (!c.sbufAddr(a) || a%32 != 0) {
		c.fail(pGatherAlign, "dst_start_addr", fmt.Sprintf("%#x", a), "must be a 32-byte aligned SBUF address")
	}
	if s, dn := c.i("dst_step_elem_1"), c.u("dst_num_elem[1]"); s%32 != 0 && dn != 1 {
		c.failf(pGatherDstStep, "dst_step_elem_1", fmt.Sprint(s), "must be a multiple of 32 unless dst_num_elem[1] == 1")
	}
	if g := c.u("flags.gather_dim"); g != 1 {
		c.failf(pGatherDim, "flags.gather_dim", isa.IndirectDim.Format(g), "must be Y")
	}
}
