package check

import (
	"fmt"

	"ndma/isa"
)

// DMA_DIRECT2D 0xb8 and PSEUDO_DMA_DIRECT2D 0xd4 — field-tables §3.2, §3.3,
// §4.1, §8.4; source document 003 §1.2 (is_valid_dma_memcpy_direct_general).

func (c *checker) direct2D() {
	pseudo := c.in.Opcode() == isa.OpPseudoDMADirect2D
	compute := uint64(0)
	gathers := false // a pseudo gather (dge_op 1, 3) moves as many rows as it has indices, not src rows
	if pseudo {
		c.enumOn(pDGEOpcode, "dge_op", isa.DGEOpcode)
		op := c.u("dge_op")
		gathers = op == 1 || op == 3
	} else {
		compute = c.u("compute_op")
	}
	shape := map[string]bool{}
	for _, leg := range []string{"src", "dst"} {
		a := c.addr8(leg + "_start_addr")
		shape[leg] = a.ShapeFromReg()
		if shape[leg] {
			c.shapeReg(leg)
		}
		c.boundReg(pBoundReg, leg+"_bound_reg", leg+"_start_addr")
	}
	c.memcpyDtypes("in_dtype", "out_dtype")
	c.configs("dma_configs")
	in, out := c.u("in_dtype"), c.u("out_dtype")
	if compute == 0 && in == out {
		if !shape["src"] && !shape["dst"] && !gathers {
			s, d := c.legBytes("src"), c.legBytes("dst")
			if s != d {
				c.failf(pEqualBytes, "dst_num_elem", fmt.Sprintf("%d bytes", d), "must move as many bytes as the src: %d (Σ num·elem_size, no cast or compute)", s)
			}
		}
		return
	}
	c.cce(shape["src"] || shape["dst"] || gathers)
}

// shapeReg checks the shape-from-register rules of one leg (§4.1).
func (c *checker) shapeReg(leg string) {
	if s := c.i(leg + "_step_elem[0]"); s < 0 || s >= 4 {
		c.failf(pShapeReg, leg+"_step_elem[0]", fmt.Sprint(s), "holds the $S shape register: 0..3 (NUM_DGE_SHAPE_REGISTERS = 4)")
	}
	n0, n1, s1 := c.u(leg+"_num_elem[0]"), c.u(leg+"_num_elem[1]"), c.i(leg+"_step_elem[1]")
	if n0 != 0 || n1 != 0 || s1 != 0 {
		c.fail(pShapeRegZero, leg+"_num_elem", fmt.Sprintf("[%d, %d], step_elem[1] %d", n0, n1, s1), "must be 0 when the shape comes from a register")
	}
}

// legBytes is Σ num·elem_size of a 2-D leg.
func (c *checker) legBytes(leg string) uint64 {
	return c.u(leg+"_num_elem[0]") * c.u(leg+"_num_elem[1]") * c.elemBytes(leg+"_elem_size")
}

// cce checks is_valid_dma_cce (§3.2, §11.4): aligned immediate starts and
// steps, element sizes in whole dtype elements, equal element counts.
func (c *checker) cce(shapeFromReg bool) {
	var elems [2]uint64
	for k, leg := range []string{"src", "dst"} {
		dt := c.u(map[string]string{"src": "in_dtype", "dst": "out_dtype"}[leg])
		size := uint64(c.dtypeBytes(dt))
		if size == 0 {
			return // the dtype itself is the problem
		}
		if a, ok := c.immAddr(leg + "_start_addr"); ok && a%size != 0 {
			c.failf(pCCE, leg+"_start_addr", fmt.Sprintf("%#x", a), "must be aligned to the %d-byte %s for in-flight compute or cast", size, isa.DType.Format(dt))
		}
		for d := 0; d < 2; d++ {
			p := fmt.Sprintf("%s_step_elem[%d]", leg, d)
			if c.u(fmt.Sprintf("%s_num_elem[%d]", leg, d)) <= 1 {
				continue // a dimension of one element never steps (real NEFF words carry step 1 there)
			}
			if s := c.i(p); s%int64(size) != 0 {
				c.failf(pCCE, p, fmt.Sprint(s), "must be a multiple of the %d-byte %s", size, isa.DType.Format(dt))
			}
		}
		e := c.elemBytes(leg + "_elem_size")
		if e%size != 0 {
			c.failf(pCCE, leg+"_elem_size", fmt.Sprint(e), "must hold whole %d-byte %s elements", size, isa.DType.Format(dt))
		}
		elems[k] = c.legBytes(leg) / size
	}
	if !shapeFromReg && elems[0] != elems[1] {
		c.failf(pCCE, "dst_num_elem", fmt.Sprintf("%d elements", elems[1]), "a cast or compute moves element for element: the src has %d", elems[0])
	}
}
