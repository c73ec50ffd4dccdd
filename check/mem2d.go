package check

import (
	"fmt"

	"ndma/isa"
)

// MEM_2D 0xaa TENSOR_LOAD / 0xab TENSOR_STORE, PSEUDO 0xcd/0xce, and the
// EXTENDED 0xf0 RDMA words — field-tables §3.12. No source document names a
// predicate for them: every name here is ndma's (INFERRED).

var (
	pMem2DDtype   = pred("has_valid_mem2d_dtype", isa.Inferred)
	pMem2DNumElem = pred("has_valid_mem2d_num_elem", isa.Inferred)
	pMem2DDataSrc = pred("has_valid_mem2d_datasrc", isa.Inferred)
	pMem2DImmCap  = pred("has_valid_mem2d_immediate_count", isa.Inferred)
	pMem2DRegs    = pred("has_valid_mem2d_registers", isa.Inferred)
	pMem2DRegion  = pred("has_valid_mem2d_region", isa.Inferred)
	pAlignAddr8   = pred("is_aligned_start_addr8", isa.Carried)
	pRDMAStart    = pred("is_valid_rdma_desc_start", isa.Inferred)
	pRDMAMask     = pred("has_valid_dma_engine_mask", isa.Inferred)
)

func (c *checker) mem2D() {
	var dt isa.DTypeCode
	var src isa.DataSrcCode
	var num [2]uint64
	var step [2]int64
	var data func(int) uint64
	var start *isa.Addr8
	if v, ok := c.in.Mem2D(); ok {
		dt, src, data = v.DType(), v.SrcDatasrc(), v.Data
		num, step = [2]uint64{v.NumElem(0), v.NumElem(1)}, [2]int64{v.StepElem(0), v.StepElem(1)}
		a := v.StartAddr()
		start = &a
	} else if v, ok := c.in.PseudoMem2D(); ok {
		dt, src, data = v.DType(), v.SrcDatasrc(), v.Data
		num, step = [2]uint64{v.NumElem(0), v.NumElem(1)}, [2]int64{v.StepElem(0), v.StepElem(1)}
	} else {
		return
	}
	load := c.in.Opcode() == isa.OpTensorLoad || c.in.Opcode() == isa.OpPseudoTensorLoad
	n := num[0] * num[1]
	if n > isa.Mem2DMaxElems {
		c.failf(pMem2DNumElem, "num_elem", fmt.Sprintf("[%d, %d]", num[0], num[1]), "num_elem[0] × num_elem[1] = %d: the product must be ≤ %d", n, isa.Mem2DMaxElems)
		n = isa.Mem2DMaxElems
	}
	if load && src != isa.DataSrcRegister {
		c.failf(pMem2DDataSrc, "src_datasrc", src.String(), "a TENSOR_LOAD writes registers: src_datasrc must be REGISTER (0)")
	}
	size, ok := isa.Mem2DElemBytes(uint8(dt), c.gen)
	if !ok {
		c.failf(pMem2DDtype, "dtype", dt.String(), "an element of 1, 2, 4 or 8 bytes (the immediate caps name no other size)")
		return
	}
	if src == isa.DataSrcImmediate {
		if limit := uint64(isa.Mem2DImmCap(size)); n > limit {
			c.failf(pMem2DImmCap, "num_elem", fmt.Sprintf("[%d, %d]", num[0], num[1]), "%d immediates of %d bytes: the 32 data bytes hold at most %d", n, size, limit)
		}
	} else if src == isa.DataSrcRegister {
		last := uint64(regCount - 1) // an 8-byte element is a register pair id, id+1 (INFERRED)
		if size == 8 {
			last--
		}
		for k := 0; k < int(n); k++ {
			if r := data(k); r > last {
				c.failf(pMem2DRegs, fmt.Sprintf("data[%d]", k), fmt.Sprint(r), "a register number: 0..%d", last)
			}
		}
	}
	if start == nil {
		return
	}
	c.addr8("start_addr", *start)
	imm, isImm := start.Imm()
	if !isImm || start.ShapeFromReg() {
		return // register and table forms are trusted at run time (§4.1)
	}
	if imm%uint64(size) != 0 {
		c.failf(pAlignAddr8, "start_addr", fmt.Sprintf("%#x", imm), "an immediate ADDR8 must be aligned to the element size (%d bytes)", size)
	}
	lo, hi, ok := isa.Mem2DSpan(imm, num, step, size)
	if !ok {
		c.failf(pMem2DRegion, "start_addr", fmt.Sprintf("%#x", imm), "the walk leaves the address space")
	} else if n > 0 && !isa.SameMem2DRegion(lo, hi) {
		c.failf(pMem2DRegion, "start_addr", fmt.Sprintf("%#x", imm), "the span %#x..%#x crosses a 16 MiB boundary: the whole span must lie in one aligned 16 MiB region", lo, hi)
	}
}

// extended checks an EXTENDED_INST: RDMA_DESC_START has its rest reserved,
// RDMA_DESC_GEN a one-engine mask (field-tables §3.12).
func (c *checker) extended() {
	v, ok := c.in.Extended()
	if !ok {
		return
	}
	switch v.ExtendedOpcode() {
	case isa.ExtendedOpcodeRDMADescStart:
		lay := c.in.Layout()
		for i, l := range lay.Leaves() {
			if l.Off >= 14 && !l.Field.Reserved && c.in.Leaf(i) != 0 {
				c.failf(pRDMAStart, l.Path, fmt.Sprintf("%#x", c.in.Leaf(i)), "RDMA_DESC_START: every byte after completion_info is reserved (must be 0)")
			}
		}
	case isa.ExtendedOpcodeRDMADescGen:
		if m := v.DMAEngineMask(); m == 0 || m > 16 || m&(m-1) != 0 {
			c.failf(pRDMAMask, "dma_engine_mask", fmt.Sprintf("%#x", m), "a power of 2 ≤ 16")
		}
	}
}
