package dge

import (
	"fmt"

	"ndma/isa"
)

// Relocation of the sequencer scalar movers' pseudo forms — field-tables
// §3.12: "Pseudo 0xcd/0xce replace start_addr by var_id u32@16 + var_offset
// u32@20"; source document 000: "0xce → 0xaa has on the TensorLoad page".
// 0xce PSEUDO_TENSOR_LOAD becomes 0xaa TENSOR_LOAD, 0xcd PSEUDO_TENSOR_STORE
// 0xab TENSOR_STORE; start_addr is the immediate ADDR8 of the variable's
// base + var_offset, every other field is copied (RATIONALE.md).

// mem2DTarget is the resolved opcode of each pseudo scalar mover.
var mem2DTarget = map[isa.Opcode]isa.Opcode{
	isa.OpPseudoTensorLoad:  isa.OpTensorLoad,
	isa.OpPseudoTensorStore: isa.OpTensorStore,
}

// IsPseudoMem2D reports whether op is 0xcd or 0xce.
func IsPseudoMem2D(op isa.Opcode) bool { _, ok := mem2DTarget[op]; return ok }

// relocateMem2D turns a 0xcd/0xce into its 0xab/0xaa. The span must lie in
// one aligned 16 MiB region once placed (§3.12), which only the placement
// decides: it is checked here.
func relocateMem2D(in *isa.Inst, vars *Vars) (isa.Inst, error) {
	p, ok := in.PseudoMem2D()
	if !ok {
		return isa.Inst{}, fmt.Errorf("%s: %w", in.Def().Mnemonic(), ErrNotPseudo)
	}
	id := p.VarID()
	if id > 0xffff {
		return isa.Inst{}, fmt.Errorf("var_id %d: NEFF variable ids are 16-bit: %w", id, ErrMissingVar)
	}
	base, ok := vars.Base[uint16(id)]
	if !ok {
		return isa.Inst{}, fmt.Errorf("var_id: variable %d: %w", id, ErrMissingVar)
	}
	addr := base + p.VarOffset()
	if addr>>58 != 0 {
		return isa.Inst{}, fmt.Errorf("var_id: variable %d + %#x = %#x does not fit an ADDR8 immediate", id, p.VarOffset(), addr)
	}
	out := isa.New(in.Gen, mem2DTarget[in.Opcode()])
	v, _ := out.Mem2D()
	// the two layouts share every path but start_addr / var_id / var_offset
	lay, play := out.Layout(), in.Layout()
	for i, l := range lay.Leaves() {
		if l.Path == "start_addr" {
			v.SetStartAddr(isa.ImmAddr8(addr))
			continue
		}
		j, ok := play.LeafIndex(l.Path)
		if !ok {
			return isa.Inst{}, fmt.Errorf("relocating to %s: no %s in %s", lay.Name, l.Path, play.Name)
		}
		if l.Path == "header.opcode" {
			continue
		}
		if err := out.SetLeaf(i, in.Leaf(j)); err != nil {
			return isa.Inst{}, fmt.Errorf("relocating to %s: %w", l.Path, err)
		}
	}
	if size, ok := isa.Mem2DElemBytes(uint8(v.DType()), in.Gen); ok {
		lo, hi, ok := isa.Mem2DSpan(addr, [2]uint64{v.NumElem(0), v.NumElem(1)}, [2]int64{v.StepElem(0), v.StepElem(1)}, size)
		if n := v.NumElem(0) * v.NumElem(1); !ok || n > 0 && !isa.SameMem2DRegion(lo, hi) {
			return isa.Inst{}, fmt.Errorf("variable %d + %#x: the span %#x..%#x is not inside one aligned 16 MiB region (docs/field-tables.md §3.12)", id, p.VarOffset(), lo, hi)
		}
	}
	return out, nil
}

// Mem2DInVariable checks that the elements of a 0xcd/0xce stay inside its
// variable of size bytes (neff.md §4.4: a variable's own bytes; size 0: not
// checked — the state buffer is addressed per partition), so that a NEFF
// run never writes a neighbour variable through it.
func Mem2DInVariable(in *isa.Inst, size uint64) error {
	p, ok := in.PseudoMem2D()
	if !ok || size == 0 {
		return nil
	}
	es, ok := isa.Mem2DElemBytes(uint8(p.DType()), in.Gen)
	num := [2]uint64{p.NumElem(0), p.NumElem(1)}
	if !ok || num[0]*num[1] == 0 {
		return nil
	}
	lo, hi, ok := isa.Mem2DSpan(p.VarOffset(), num, [2]int64{p.StepElem(0), p.StepElem(1)}, es)
	if !ok || hi >= size {
		return fmt.Errorf("var_id %d: the elements span bytes %#x..%#x of a %d-byte variable", p.VarID(), lo, hi, size)
	}
	return nil
}
