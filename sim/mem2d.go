package sim

import (
	"fmt"

	"ndma/internal/control"
	"ndma/isa"
)

// The sequencer scalar movers (field-tables §3.12): TENSOR_LOAD and
// TENSOR_STORE are no DMA — the sequencer moves at most 32 elements itself,
// no DGE, no descriptor, done at issue. The engines' model: the element walk
// is cut into contiguous runs, each run one access of the scalar port, the
// elements staged in slot order (RATIONALE.md, INFERRED). Package ref holds
// the same meaning element by element; the two are compared in the tests.

func (x *Machine) mem2D(in *isa.Inst) error {
	name := in.Def().Mnemonic()
	fault := func(format string, a ...any) error {
		return &Fault{Mnemonic: name, DMA: -1, Desc: -1, Err: fmt.Errorf(format, a...)}
	}
	events, err := control.Events(x.state(), in)
	if err != nil {
		return err
	}
	v, _ := in.Mem2D()
	size, ok := isa.Mem2DElemBytes(uint8(v.DType()), x.Mem.Gen)
	num := [2]uint64{v.NumElem(0), v.NumElem(1)}
	step := [2]int64{v.StepElem(0), v.StepElem(1)}
	n := int(num[0] * num[1])
	src := v.SrcDatasrc()
	load := in.Opcode() == isa.OpTensorLoad
	switch {
	case !ok:
		return fault("has_valid_mem2d_dtype: %s is not a 1-, 2-, 4- or 8-byte type: %w", v.DType(), ErrUnsupported)
	case n > isa.Mem2DMaxElems:
		return fault("has_valid_mem2d_num_elem: %d elements, more than %d", n, isa.Mem2DMaxElems)
	case load && src != isa.DataSrcRegister:
		return fault("has_valid_mem2d_datasrc: a TENSOR_LOAD takes src_datasrc REGISTER, not %s", src)
	case src != isa.DataSrcRegister && src != isa.DataSrcImmediate:
		return fault("src_datasrc %s: neither REGISTER nor IMMEDIATE", src)
	case src == isa.DataSrcImmediate && n > isa.Mem2DImmCap(size):
		return fault("has_valid_mem2d_immediate_count: %d immediates of %d bytes, the data bytes hold %d", n, size, isa.Mem2DImmCap(size))
	}
	start, err := x.scalarAddr(v.StartAddr())
	if err != nil {
		return fault("start_addr: %w", err)
	}
	lo, hi, ok := isa.Mem2DSpan(start, num, step, size)
	switch {
	case !ok:
		return fault("start_addr %#x: the walk leaves the address space", start)
	case n > 0 && !isa.SameMem2DRegion(lo, hi):
		return fault("has_valid_mem2d_region: the span %#x..%#x is not inside one aligned 16 MiB region", lo, hi)
	}
	// the runs: [address, bytes, first slot]
	type run struct {
		a    uint64
		n, k int
	}
	var runs []run
	for k := 0; k < n; k++ {
		i0, i1 := int64(k)%int64(num[0]), int64(k)/int64(num[0])
		a := uint64(int64(start) + (i0*step[0]+i1*step[1])*int64(size))
		if r := len(runs) - 1; r >= 0 && runs[r].a+uint64(runs[r].n) == a {
			runs[r].n += size
		} else {
			runs = append(runs, run{a: a, n: size, k: k})
		}
	}
	for _, r := range runs {
		if err := x.Mem.Check(r.a, r.n); err != nil {
			return fault("slot %d at %#x: %w", r.k, r.a, err)
		}
	}
	regOf := func(k int) (int, error) {
		r := int(v.Data(k))
		if r+size/8 > 63 { // an 8-byte element is the pair r, r+1
			return 0, fault("has_valid_mem2d_registers: data[%d] = %d: registers are 0..63", k, r)
		}
		return r, nil
	}
	stage := make([]byte, n*size) // slot k at k·size, little-endian
	if load {
		for _, r := range runs {
			if err := x.Mem.Read(r.a, stage[r.k*size:r.k*size+r.n]); err != nil {
				return fault("slot %d at %#x: %w", r.k, r.a, err)
			}
		}
		for _, r := range runs {
			x.eff.Reads = append(x.eff.Reads, [2]uint64{r.a, r.a + uint64(r.n)})
		}
		regs := x.Regs
		for k := 0; k < n; k++ {
			r, err := regOf(k)
			if err != nil {
				return err
			}
			e := stage[k*size : k*size+size]
			for h := 0; h < size; h += 4 { // 32-bit registers: a pair for 8 bytes
				var w uint32
				for j := min(size, h+4) - 1; j >= h; j-- {
					w = w<<8 | uint32(e[j])
				}
				regs[r+h/4] = w
			}
		}
		x.Regs = regs
	} else {
		for k := 0; k < n; k++ {
			e := stage[k*size : k*size+size]
			if src == isa.DataSrcImmediate {
				for j := range e {
					e[j] = byte(v.Data(k*size + j))
				}
				continue
			}
			r, err := regOf(k)
			if err != nil {
				return err
			}
			for j := range e {
				e[j] = byte(x.Regs[r+j/4] >> (8 * (j % 4)))
			}
		}
		for _, r := range runs {
			if err := x.Mem.Write(r.a, stage[r.k*size:r.k*size+r.n]); err != nil {
				return fault("slot %d at %#x: %w", r.k, r.a, err)
			}
			x.eff.Writes = append(x.eff.Writes, [2]uint64{r.a, r.a + uint64(r.n)})
		}
	}
	x.Tracef("%s: %d elements in %d runs, %#x..%#x", name, n, len(runs), lo, hi)
	x.eff.Bytes = uint64(n * size) // no DMA ring: the elements moved, as the reference counts them
	x.eff.Changes = append(x.eff.Changes, events...)
	return nil
}

// scalarAddr is the Neuron address an ADDR8 names for the sequencer: the
// immediate, or the register pair reg_hi:reg_lo (field-tables §4.1, §11.2).
func (x *Machine) scalarAddr(a isa.Addr8) (uint64, error) {
	if a.ShapeFromReg() {
		return 0, fmt.Errorf("a $S shape register: %w", ErrUnsupported)
	}
	if v, ok := a.Imm(); ok {
		return v, nil
	}
	if a.Form() != "reg" {
		return 0, fmt.Errorf("address form %q: %w", a.Form(), ErrUnsupported)
	}
	_, fields := a.Arm()
	var lo, hi uint64
	for _, f := range fields {
		switch f.Name {
		case "reg_lo":
			lo = f.Value
		case "reg_hi":
			hi = f.Value
		}
	}
	if lo >= 64 || hi >= 64 {
		return 0, fmt.Errorf("register r%d/r%d: there are 64", lo, hi)
	}
	return uint64(x.Regs[hi])<<32 | uint64(x.Regs[lo]), nil
}
