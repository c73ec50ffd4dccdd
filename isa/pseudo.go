package isa

// PSEUDO_DMA_DIRECT2D 0xd4 and its PSEUDO_DMA_EXT 0xda extension —
// field-tables §3.3, §3.4; neff.md §5.3–§5.4 (the var/table arms).

// pseudoDirect2DLayout is the layout of the compiler's 0xd4 word.
var pseudoDirect2DLayout = (&Struct{Name: "PSEUDO_DMA_DIRECT2D", Size: 64, Prov: Observed, Fields: direct2DFields(true)}).finish()

// pseudoExtLayout is the layout of the 0xda word that must follow a 0xd4 (no header).
var pseudoExtLayout = (&Struct{Name: "PSEUDO_DMA_EXT", Size: 64, Prov: Carried, Fields: []Field{
	u8(0, "opcode", Observed, "0xda; no normal header"),
	sub(1, "flags", dmaIndirectFlagsLayout, Observed, ""),
	u8(2, "idx_num_active_channels", Observed, "index fields checked only when ≠ 0"),
	enum8(3, "compute_op", dgeComputeOpEnum, Observed, ""),
	addr4(4, "src_idx_start_addr", Observed, ""),
	addr4(8, "dst_idx_start_addr", Carried, ""),
	u32(12, "src_bound_size_bytes", Carried, ""),
	u32(16, "dst_bound_size_bytes", Carried, ""),
	i32(20, "tile_src_row_step", Observed, ""),
	u8(24, "tile_src_rows", Observed, "16 or 0"),
	u8(25, "tile_src_cols", Observed, "128 or 0"),
	reserved(26, 30, "reserved", Observed, ""),
	u32(56, "src_bound_size_bytes_upper", Carried, ""),
	u32(60, "dst_bound_size_bytes_upper", Carried, ""),
}}).finish()
