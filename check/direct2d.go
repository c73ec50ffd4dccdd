package check

import (
	"fmt"

	"ndma/isa"
)

// DMA_DIRECT2D 0xb8 and PSEUDO_DMA_DIRECT2D 0xd4 — field-tables §3.2, §3.3,
// §4.1, §8.4; source document 003 §1.2 (is_valid_dma_memcpy_direct_general).

// direct2DWord is what the rules read of either word (the two share every
// field but byte 15 and the address kinds, §3.3), per leg src then dst.
type direct2DWord struct {
	addr    [2]isa.Addr8
	bound   [2]isa.BoundCheckRegView
	leg     [2]isa.Leg2D
	dtype   [2]isa.DTypeCode // in_dtype, out_dtype
	configs isa.DMAConfigsView
}

var legNames = [2]string{"src", "dst"}

func (c *checker) direct2D() {
	var w direct2DWord
	compute := isa.DGEComputeOpNone
	gathers := false // a pseudo gather (dge_op 1, 3) moves as many rows as it has indices, not src rows
	if p, ok := c.in.PseudoDirect2D(); ok {
		enumOn(c, pDGEOpcode, "dge_op", p.DGEOp())
		op := p.DGEOp()
		gathers = op == isa.DGEOpcodeDMAIndirect1D || op == isa.DGEOpcodeDMAGatherTranspose
		w = direct2DWord{addr: [2]isa.Addr8{p.SrcStartAddr(), p.DstStartAddr()}, bound: [2]isa.BoundCheckRegView{p.SrcBoundReg(), p.DstBoundReg()},
			dtype: [2]isa.DTypeCode{p.InDType(), p.OutDType()}, configs: p.DMAConfigs()}
	} else {
		d, _ := c.in.Direct2D()
		compute = d.ComputeOp()
		w = direct2DWord{addr: [2]isa.Addr8{d.SrcStartAddr(), d.DstStartAddr()}, bound: [2]isa.BoundCheckRegView{d.SrcBoundReg(), d.DstBoundReg()},
			dtype: [2]isa.DTypeCode{d.InDType(), d.OutDType()}, configs: d.DMAConfigs()}
	}
	w.leg[0], w.leg[1], _ = c.in.Legs2D()
	var shape [2]bool
	for k, leg := range legNames {
		a := w.addr[k]
		c.addr8(leg+"_start_addr", a)
		shape[k] = a.ShapeFromReg()
		if shape[k] {
			c.shapeReg(leg, w.leg[k])
		}
		c.boundReg(pBoundReg, leg+"_bound_reg", w.bound[k], wideOffset(a))
	}
	c.memcpyDtypes(w.dtype[0], w.dtype[1])
	c.configs("dma_configs", w.configs)
	if compute == isa.DGEComputeOpNone && w.dtype[0] == w.dtype[1] {
		if !shape[0] && !shape[1] && !gathers {
			s, d := w.leg[0].Bytes(), w.leg[1].Bytes()
			if s != d {
				c.failf(pEqualBytes, "dst_num_elem", fmt.Sprintf("%d bytes", d), "must move as many bytes as the src: %d (Σ num·elem_size, no cast or compute)", s)
			}
		}
		return
	}
	c.cce(&w, shape[0] || shape[1] || gathers)
}

// shapeReg checks the shape-from-register rules of one leg (§4.1).
func (c *checker) shapeReg(leg string, l isa.Leg2D) {
	if s := l.Step[0]; s < 0 || s >= 4 {
		c.failf(pShapeReg, leg+"_step_elem[0]", fmt.Sprint(s), "holds the $S shape register: 0..3 (NUM_DGE_SHAPE_REGISTERS = 4)")
	}
	n0, n1, s1 := l.Num[0], l.Num[1], l.Step[1]
	if n0 != 0 || n1 != 0 || s1 != 0 {
		c.fail(pShapeRegZero, leg+"_num_elem", fmt.Sprintf("[%d, %d], step_elem[1] %d", n0, n1, s1), "must be 0 when the shape comes from a register")
	}
}

// cce checks is_valid_dma_cce (§3.2, §11.4): aligned immediate starts and
// steps, element sizes in whole dtype elements, equal element counts.
func (c *checker) cce(w *direct2DWord, shapeFromReg bool) {
	var elems [2]int64
	for k, leg := range legNames {
		dt, l := w.dtype[k], w.leg[k]
		size := int64(c.dtypeBytes(dt))
		if size == 0 {
			return // the dtype itself is the problem
		}
		if a, ok := w.addr[k].Imm(); ok && a%uint64(size) != 0 {
			c.failf(pCCE, leg+"_start_addr", fmt.Sprintf("%#x", a), "must be aligned to the %d-byte %s for in-flight compute or cast", size, dt)
		}
		for d := 0; d < 2; d++ {
			if l.Num[d] <= 1 {
				continue // a dimension of one element never steps (real NEFF words carry step 1 there)
			}
			if s := l.Step[d]; s%size != 0 {
				c.failf(pCCE, fmt.Sprintf("%s_step_elem[%d]", leg, d), fmt.Sprint(s), "must be a multiple of the %d-byte %s", size, dt)
			}
		}
		if l.Elem%size != 0 {
			c.failf(pCCE, leg+"_elem_size", fmt.Sprint(l.Elem), "must hold whole %d-byte %s elements", size, dt)
		}
		elems[k] = l.Bytes() / size
	}
	if !shapeFromReg && elems[0] != elems[1] {
		c.failf(pCCE, "dst_num_elem", fmt.Sprintf("%d elements", elems[1]), "a cast or compute moves element for element: the src has %d", elems[0])
	}
}
