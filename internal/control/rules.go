package control

// The word rules both executors refuse under one name: the engines check them
// before their lowering, ref before its walk, so a word one refuses never
// runs on the other (FuzzExecDiffRaw).

import (
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
