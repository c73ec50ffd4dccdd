package check

import (
	"fmt"

	"ndma/isa"
)

// DMA_DIRECT2D_XPOSE 0xbd — source document 000 §3d (is_valid_dma_transpose),
// field-tables §3.6, §11.5. (has_valid_dma_transpose_nc is the presence rule.)

func (c *checker) xpose() {
	v, _ := c.in.Xpose()
	for k, leg := range legNames {
		a := [2]isa.Addr8{v.SrcStartAddr(), v.DstStartAddr()}[k]
		c.addr8(leg+"_start_addr", a)
		c.boundReg(pBoundReg, leg+"_bound_reg", [2]isa.BoundCheckRegView{v.SrcBoundReg(), v.DstBoundReg()}[k], wideOffset(a))
	}
	c.configs("dma_configs", v.DMAConfigs())
	if r := v.TileSrcRows(); r != 16 {
		c.failf(pXposeRows, "tile_src_rows", fmt.Sprint(r), "must be 16")
	}
	in, out := v.InDType(), v.OutDType()
	size := c.dtypeBytes(out)
	if in != out { // 000 §8d: assert(i->in_dtype == i->out_dtype); // has_valid_xpose_dtypes_temporary (no cast)
		c.fail(pXposeDtypes, "out_dtype", out.String(), fmt.Sprintf("must equal in_dtype (%s): no cast in a transpose", in))
	}
	if size != 2 && size != 4 { // ndma's rule, not the documents' (RATIONALE.md "Document conflicts")
		c.fail(pXposeDtypeSize, "out_dtype", out.String(), "ndma moves 2- and 4-byte types only: source document 000 §3d (docs/sources.md) gives tile_src_cols limits for 2- and 4-byte types alone, and the executors model no other (INFERRED)")
	}
	maxCols := uint64(128) // 000 §8d: tile_src_cols <= (dtype_bytes(i->out_dtype) == 2 ? 128 : 64)
	if size != 2 {
		maxCols = 64
	}
	cols := v.TileSrcCols()
	if cols < 1 || cols > maxCols {
		c.fail(pXposeCols, "tile_src_cols", fmt.Sprint(cols), fmt.Sprintf("must be 1..%d for a %d-byte type", maxCols, size))
	}
	if a, ok := v.DstStartAddr().Imm(); ok && (!c.sbufAddr(a) || a%32 != 0) {
		c.fail(pXposeDstAddr, "dst_start_addr", fmt.Sprintf("%#x", a), "must be a 32-byte aligned SBUF address (the xbar writes SBUF)")
	}
	if s, n := v.DstStepElem(1), v.DstNumElem(1); s%32 != 0 && n != 1 {
		c.fail(pXposeDstStep, "dst_step_elem[1]", fmt.Sprint(s), "must be a multiple of 32 unless dst_num_elem[1] == 1 (dst_step_elem "+isa.XposeDstStepRule+")")
	}
	sn0, sn1 := v.SrcNumElem(0), v.SrcNumElem(1)
	dn0, dn1 := v.DstNumElem(0), v.DstNumElem(1)
	switch {
	case dn0 != sn1 || dn1 != sn0:
		c.fail(pXposeShape, "dst_num_elem", fmt.Sprintf("[%d, %d]", dn0, dn1), fmt.Sprintf("must be {src_num_elem[1], src_num_elem[0]} = [%d, %d]", sn1, sn0))
	case sn1%16 != 0:
		c.failf(pXposeShape, "src_num_elem[1]", fmt.Sprint(sn1), "must be a multiple of 16 (tile_src_rows)")
	case cols >= 1 && cols <= maxCols && sn0%cols != 0:
		c.fail(pXposeShape, "tile_src_cols", fmt.Sprint(cols), fmt.Sprintf("must divide src_num_elem[0] = %d", sn0))
	case v.TileSrcRowStep() != v.SrcStepElem(1):
		c.fail(pXposeShape, "tile_src_row_step", fmt.Sprint(v.TileSrcRowStep()), fmt.Sprintf("must equal src_step_elem[1] = %d", v.SrcStepElem(1)))
	}
}
