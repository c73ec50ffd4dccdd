package control

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
