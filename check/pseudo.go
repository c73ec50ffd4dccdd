package check

import "fmt"

// PSEUDO_DMA_EXT 0xda — field-tables §3.4.

func (c *checker) pseudoExt() {
	v, _ := c.in.PseudoExt()
	if n := v.IdxNumActiveChannels(); n != 0 { // index fields are checked only when used
		c.idxChannels("idx_num_active_channels", n)
		c.indirectFlags("flags", v.Flags(), false)
		c.idxAddr4("src_idx_start_addr", v.SrcIdxStartAddr())
		c.idxAddr4("dst_idx_start_addr", v.DstIdxStartAddr())
	}
	if r := v.TileSrcRows(); r != 0 && r != 16 {
		c.failf(pExtTile, "tile_src_rows", fmt.Sprint(r), "must be 16 or 0")
	}
	if k := v.TileSrcCols(); k != 0 && k != 128 {
		c.failf(pExtTile, "tile_src_cols", fmt.Sprint(k), "must be 128 or 0")
	}
}
