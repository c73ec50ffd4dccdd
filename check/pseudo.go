package check

import "fmt"

// PSEUDO_DMA_EXT 0xda — field-tables §3.4.

func (c *checker) pseudoExt() {
	if c.u("idx_num_active_channels") != 0 { // index fields are checked only when used
		c.idxChannels("idx_num_active_channels")
		c.indirectFlags("flags", false)
		c.idxAddr4("src_idx_start_addr")
		c.idxAddr4("dst_idx_start_addr")
	}
	if r := c.u("tile_src_rows"); r != 0 && r != 16 {
		c.failf(pExtTile, "tile_src_rows", fmt.Sprint(r), "must be 16 or 0")
	}
	if k := c.u("tile_src_cols"); k != 0 && k != 128 {
		c.failf(pExtTile, "tile_src_cols", fmt.Sprint(k), "must be 128 or 0")
	}
}
