package control

// The word rules both executors refuse under one name: the engines check them
// before their lowering, ref before its walk, so a word one refuses never
// runs on the other (FuzzExecDiffRaw).

import (
	"errors"
	"fmt"

	"ndma/isa"
)

// XposeRules are a DMA_TRANSPOSE's type and tile rules both executors
// refuse under one name (the engines before their lowering, so a word ref
// refuses never runs there): one type, no cast (000 §8d); a 2- or 4-byte
// type (ndma's tile model, INFERRED: 000 §3d gives tile_src_cols limits for
// no other); a tile of rows and columns. rule is validate's predicate name.
func XposeRules(v isa.XposeView, g isa.Gen) (rule string, err error) {
	dt := v.OutDType()
	if v.InDType() != dt {
		return "has_valid_xpose_dtypes_temporary", fmt.Errorf("in %s, out %s: a transpose moves one type, no cast", v.InDType(), dt)
	}
	if bits, ok := isa.DTypeBits(uint8(dt), g); !ok || bits != 16 && bits != 32 {
		return "has_valid_xpose_dtype_size", fmt.Errorf("%s: a transpose moves a 2- or 4-byte type", dt)
	}
	if v.TileSrcRows() == 0 || v.TileSrcCols() == 0 {
		return "has_valid_xpose_tile_cols_temporary", fmt.Errorf("tile_src_rows %d × tile_src_cols %d: no tiles", v.TileSrcRows(), v.TileSrcCols())
	}
	return "", nil
}

// GatherXposeRules are a DMA_GATHER_TRANSPOSE's type and shape rules both
// executors refuse under one name: one 2-byte type, turned by the DRE
// (§3.7); dst_num_elem = {N, L}, N the indices and L = elem_size/2 the
// gathered row's elements (field-tables §11.5).
func GatherXposeRules(v isa.GatherXposeView, g isa.Gen) (rule string, err error) {
	lo, hi := v.DType().DTypeLo(), v.DType().DTypeHi()
	if bits, ok := isa.DTypeBits(uint8(hi), g); !ok || bits != 16 || lo != hi {
		return "is_valid_dma_gather_transpose_dtype", fmt.Errorf("%s/%s: one 2-byte type", lo, hi)
	}
	if n, l := v.SrcNumElem(1), v.ElemSize()/2; v.DstNumElem(0) != n || v.DstNumElem(1) != l {
		return "is_valid_dma_gather_transpose_num_idx", fmt.Errorf("dst_num_elem [%d, %d] must be [%d, %d]", v.DstNumElem(0), v.DstNumElem(1), n, l)
	}
	return "", nil
}

// IndirectRules are a DMA_INDIRECT's rules both executors refuse under one
// name: no indirect_mode past SRC_DST (field-tables §2.5).
func IndirectRules(v isa.Indirect1DView) (rule string, err error) {
	if mode := v.Flags().IndirectMode(); mode > isa.IndirectModeSrcDst {
		return "has_valid_indirect_mode", fmt.Errorf("indirect_mode %d", mode)
	}
	return "", nil
}

// OpcodeRule refuses, on both executors, a word whose opcode the
// generation does not have (the catalog's presence row, field-tables §3;
// validate's has_valid_opcode_for_gen): DMA_TRANSPOSE on SUNDA (000 §3d:
// nc >= V3) ran on ref and was refused by the engines' lowering (L1).
func OpcodeRule(in *isa.Inst, g isa.Gen) (rule string, err error) {
	d := in.Def()
	if g != isa.GenAny && d.GensKnown && !d.Gens.Has(g) {
		return "has_valid_opcode_for_gen", fmt.Errorf("%s exists on %s only, not on %s (%s)", d.Mnemonic(), d.Gens, g, g.Version())
	}
	return ShapeRegRule(in)
}

// ErrShapeRegister is a word with an address whose shape comes from a $S
// shape register (the SHAPE_REG marker bit 0x40, field-tables §4.1): valid,
// but no source gives what a shape register holds or how its dimensions
// map onto num/step, so neither executor runs it (docs/sim.md, Shape
// registers).
var ErrShapeRegister = errors.New("its shape comes from a $S shape register, whose contents no source gives: not run")

// ShapeRegRule refuses, on both executors alike, a word any of whose ADDR8
// or ADDR4 fields takes its shape from a $S register; rule is the field.
func ShapeRegRule(in *isa.Inst) (rule string, err error) {
	ls := in.Layout().Leaves()
	for i := range ls {
		l := &ls[i]
		switch l.Field.Kind {
		case isa.KAddr8, isa.KPseudoAddr8:
			if a := (isa.Addr8{Raw: in.Leaf(i), Pseudo: l.Field.Kind == isa.KPseudoAddr8}); a.ShapeFromReg() {
				return l.Path, fmt.Errorf("%w: %w", ErrShapeRegister, isa.ErrUnsupported)
			}
		case isa.KAddr4:
			if isa.Addr4(in.Leaf(i)).Marker()&isa.MarkerShapeReg != 0 {
				return l.Path, fmt.Errorf("%w: %w", ErrShapeRegister, isa.ErrUnsupported)
			}
		}
	}
	return "", nil
}

// shapeLeg is one leg of a DGE word as ShapeRules reads it.
type shapeLeg struct {
	name string // "src", "dst"
	num  [2]uint64
	step [2]int64
	dims int   // 1 (DMA_INDIRECT) or 2
	elem int64 // bytes per element
	// stepName is the field dimension d's step is read from, when not
	// name+"_step_elem[d]" ("": a step the word does not carry)
	stepName [2]string
}

// Broken is a rule a word breaks: the rule (validate's predicate), the
// field, its value and what is allowed.
type Broken struct{ Rule, Field, Value, Want string }

func (b Broken) Error() string { return b.Field + " = " + b.Value + ": " + b.Want }

// ShapeRules is the first of ShapeBroken, as the executors refuse it.
func ShapeRules(in *isa.Inst, g isa.Gen) (rule string, err error) {
	if bs := ShapeBroken(in, g); len(bs) > 0 {
		return bs[0].Rule, bs[0]
	}
	return "", nil
}

// ShapeBroken lists the element counts and steps of a DGE word (DMAMEMCPY,
// DMA_TRANSPOSE, DMA_INDIRECT, DMA_GATHER_TRANSPOSE) both executors refuse
// under one name (M8), checked after the kind's own rules (XposeRules, …),
// and validate reports:
//
//   - has_valid_num_elem: a count of 0 (num_elem[0], num_elem[1]; an
//     INDIRECT's one) — the DGE has nothing to generate: ref ran such a word
//     as a zero-byte move, the engines' lowering refused it.
//   - has_whole_elem_steps: on a generation with a DGE (not SUNDA, whose
//     POOL kernel writes byte descriptors), a step of a dimension of more
//     than one element that is no whole number of elements — DIMPUSH counts
//     in elements (field-tables §11.3).
//
// A leg whose shape comes from a $S register (num_elem 0 by rule, §4.1) is
// left to the executors, which refuse it as unsupported.
func ShapeBroken(in *isa.Inst, g isa.Gen) []Broken {
	var legs [2]shapeLeg
	switch {
	case in.Opcode() == isa.OpDMAMemcpy:
		v, _ := in.Direct2D()
		if v.SrcStartAddr().ShapeFromReg() || v.DstStartAddr().ShapeFromReg() {
			return nil
		}
		src, dst, _ := in.Legs2D()
		for k, l := range [2]isa.Leg2D{src, dst} {
			legs[k] = shapeLeg{name: [2]string{"src", "dst"}[k], num: [2]uint64{uint64(l.Num[0]), uint64(l.Num[1])}, step: l.Step, dims: 2, elem: l.Elem}
		}
	case in.Opcode() == isa.OpDMATranspose:
		v, _ := in.Xpose()
		if v.SrcStartAddr().ShapeFromReg() || v.DstStartAddr().ShapeFromReg() {
			return nil
		}
		bits, _ := isa.DTypeBits(uint8(v.OutDType()), g)
		e := int64(max(bits/8, 1))
		legs[0] = shapeLeg{name: "src", num: [2]uint64{v.SrcNumElem(0), v.SrcNumElem(1)}, step: [2]int64{v.SrcStepElem(0), v.SrcStepElem(1)}, dims: 2, elem: e}
		legs[1] = shapeLeg{name: "dst", num: [2]uint64{v.DstNumElem(0), v.DstNumElem(1)}, step: [2]int64{v.DstStepElem(0), v.DstStepElem(1)}, dims: 2, elem: e}
	case in.Opcode() == isa.OpDMAIndirect:
		v, _ := in.Indirect1D()
		if v.SrcStartAddr().ShapeFromReg() || v.DstStartAddr().ShapeFromReg() {
			return nil
		}
		legs[0] = shapeLeg{name: "src", num: [2]uint64{v.SrcNumElem(), 1}, step: [2]int64{v.SrcStepElem()}, dims: 1, elem: isa.ElemBytes(v.SrcElemSize())}
		legs[1] = shapeLeg{name: "dst", num: [2]uint64{v.DstNumElem(), 1}, step: [2]int64{v.DstStepElem()}, dims: 1, elem: isa.ElemBytes(v.DstElemSize())}
	case in.Opcode() == isa.OpDMAGatherTranspose:
		v, _ := in.GatherXpose()
		if v.SrcStartAddr().ShapeFromReg() || v.DstStartAddr().ShapeFromReg() {
			return nil
		}
		legs[0] = shapeLeg{name: "src", num: [2]uint64{v.SrcNumElem(0), v.SrcNumElem(1)}, step: [2]int64{v.SrcStepElem(0), v.SrcStepElem(1)}, dims: 2, elem: 2}
		legs[1] = shapeLeg{name: "dst", num: [2]uint64{v.DstNumElem(0), v.DstNumElem(1)}, step: [2]int64{2, v.DstStepElem1()}, dims: 2, elem: 2,
			stepName: [2]string{"", "dst_step_elem_1"}}
	default:
		return nil
	}
	var out []Broken
	for _, l := range legs {
		for d := 0; d < l.dims; d++ {
			if l.num[d] == 0 {
				field := fmt.Sprintf("%s_num_elem[%d]", l.name, d)
				if l.dims == 1 {
					field = l.name + "_num_elem"
				}
				out = append(out, Broken{"has_valid_num_elem", field, "0", "must not be 0: nothing to move (the DGE generates no descriptor for an empty leg)"})
			}
		}
	}
	if g == isa.Sunda {
		return out
	}
	for _, l := range legs {
		for d := 0; d < l.dims; d++ {
			if l.num[d] > 1 && l.step[d]%l.elem != 0 {
				field := l.stepName[d]
				switch {
				case field != "":
				case l.dims == 1:
					field = l.name + "_step_elem"
				default:
					field = fmt.Sprintf("%s_step_elem[%d]", l.name, d)
				}
				out = append(out, Broken{"has_whole_elem_steps", field, fmt.Sprint(l.step[d]),
					fmt.Sprintf("must be a multiple of the %d-byte element where the dimension has more than one: the DGE counts in elements (docs/field-tables.md §11.3)", l.elem)})
			}
		}
	}
	return out
}
