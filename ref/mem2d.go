package ref

import (
	"errors"
	"fmt"

	"ndma/isa"
)

// MEM_2D: TENSOR_LOAD (memory → registers) and TENSOR_STORE (registers or
// immediates → memory), the sequencer scalar movers of field-tables §3.12.
// Element (i0, i1) is at start_addr + (i0·step_elem[0] + i1·step_elem[1])·size
// and takes slot k = i1·num_elem[0] + i0 of data; registers hold elements
// zero-extended, an 8-byte element a register pair (RATIONALE.md, INFERRED).

var errMem2D = errors.New("MEM_2D")

func (w *word) mem2D() error {
	deltas, err := w.events()
	if err != nil {
		return err
	}
	v, _ := w.in.Mem2D()
	load := w.in.Opcode() == isa.OpTensorLoad
	size, ok := isa.Mem2DElemBytes(uint8(v.DType()), w.x.Mem.Gen)
	if !ok {
		return w.fault(-1, "has_valid_mem2d_dtype", fmt.Errorf("%s: an element of 1, 2, 4 or 8 bytes: %w", v.DType(), errMem2D))
	}
	n0, n1 := int(v.NumElem(0)), int(v.NumElem(1))
	if n0*n1 > isa.Mem2DMaxElems {
		return w.fault(-1, "has_valid_mem2d_num_elem", fmt.Errorf("num_elem %d × %d: the product must be ≤ 32: %w", n0, n1, errMem2D))
	}
	imm := v.SrcDatasrc() == isa.DataSrcImmediate
	switch {
	case load && v.SrcDatasrc() != isa.DataSrcRegister:
		return w.fault(-1, "has_valid_mem2d_datasrc", fmt.Errorf("a TENSOR_LOAD writes registers: src_datasrc %s: %w", v.SrcDatasrc(), errMem2D))
	case !load && !imm && v.SrcDatasrc() != isa.DataSrcRegister:
		return w.fault(-1, "src_datasrc", fmt.Errorf("src_datasrc %s is neither REGISTER nor IMMEDIATE: %w", v.SrcDatasrc(), errMem2D))
	case imm && n0*n1*size > 32:
		return w.fault(-1, "has_valid_mem2d_immediate_count", fmt.Errorf("%d immediates of %d bytes do not fit the 32 data bytes: %w", n0*n1, size, errMem2D))
	}
	start, err := w.addr8("start_addr", v.StartAddr())
	if err != nil {
		return err
	}
	// every element's address, the lowest and highest byte touched, and the
	// register(s) of its slot, before anything moves (a fault has no effect)
	type elem struct {
		addr uint64
		reg  int
	}
	var els []elem
	lo, hi := uint64(1<<64-1), uint64(0)
	for i1 := 0; i1 < n1; i1++ {
		for i0 := 0; i0 < n0; i0++ {
			k := len(els)
			a := int64(start) + (int64(i0)*v.StepElem(0)+int64(i1)*v.StepElem(1))*int64(size)
			if a < 0 {
				return w.fault(k, "start_addr", fmt.Errorf("element (%d, %d) at %d: below address 0: %w", i0, i1, a, ErrBounds))
			}
			e := elem{addr: uint64(a), reg: int(v.Data(k))}
			if !imm && (e.reg > 63 || size == 8 && e.reg > 62) {
				return w.fault(k, "has_valid_mem2d_registers", fmt.Errorf("data[%d] = register %d: there are 64 (an 8-byte element uses a pair): %w", k, e.reg, errMem2D))
			}
			if err := w.x.Mem.Check(e.addr, size); err != nil {
				return w.fault(k, "start_addr", fmt.Errorf("element (%d, %d) at %#x: %w", i0, i1, e.addr, err))
			}
			lo, hi = min(lo, e.addr), max(hi, e.addr+uint64(size)-1)
			els = append(els, e)
		}
	}
	if len(els) > 0 && lo/isa.Mem2DRegion != hi/isa.Mem2DRegion {
		return w.fault(-1, "has_valid_mem2d_region", fmt.Errorf("the span %#x..%#x crosses a 16 MiB boundary: %w", lo, hi, ErrBounds))
	}
	var b [8]byte
	if load {
		vals := make([]uint64, len(els))
		for k, e := range els {
			if err := w.x.Mem.Read(e.addr, b[:size]); err != nil {
				return w.fault(k, "start_addr", err)
			}
			for j := size - 1; j >= 0; j-- {
				vals[k] = vals[k]<<8 | uint64(b[j])
			}
		}
		for k, e := range els { // all reads done: the registers change
			w.x.Regs[e.reg] = uint32(vals[k])
			if size == 8 {
				w.x.Regs[e.reg+1] = uint32(vals[k] >> 32)
			}
		}
	} else {
		for k, e := range els {
			if imm {
				for j := 0; j < size; j++ {
					b[j] = byte(v.Data(k*size + j))
				}
			} else {
				x := uint64(w.x.Regs[e.reg])
				if size == 8 {
					x |= uint64(w.x.Regs[e.reg+1]) << 32
				}
				for j := 0; j < size; j++ {
					b[j] = byte(x >> (8 * j))
				}
			}
			if err := w.x.Mem.Write(e.addr, b[:size]); err != nil { // checked above: cannot fail
				return w.fault(k, "start_addr", err)
			}
		}
	}
	w.x.Stats.Lanes += len(els)
	w.x.Stats.BytesMoved += uint64(len(els) * size)
	w.x.Tracef("%s: %d elements of %d bytes at %#x..%#x", w.name, len(els), size, lo, hi)
	w.apply(deltas)
	return nil
}
