package isa

// DMA_INDIRECT1D, opcode 0xbb DMA_INDIRECT — field-tables §3.5 (body identical
// SUNDA..MAVERICK).

// indirect1DLayout is the layout of the 0xbb word.
var indirect1DLayout = (&Struct{Name: "DMA_INDIRECT1D", Size: 64, Prov: Observed, Fields: []Field{
	headerField(),
	eventsField(),
	u8(12, "semaphore", Observed, ""),
	u8(13, "sem_increment", Observed, ""),
	u8(14, "idx_num_active_channels", Observed, "must be 128"),
	sub(15, "flags", dmaIndirectFlagsLayout, Observed, ""),
	addr8(16, "src_start_addr", Observed, "gather table base"),
	i32(24, "src_step_elem", Observed, "signed byte stride"),
	u16(28, "src_num_elem", Observed, "≤ 4096 unless shape-from-register"),
	u16(30, "src_elem_size", Observed, ""),
	addr8(32, "dst_start_addr", Observed, ""),
	i32(40, "dst_step_elem", Observed, "signed byte stride"),
	u16(44, "dst_num_elem", Observed, "≤ 4096"),
	u16(46, "dst_elem_size", Observed, ""),
	addr4(48, "src_idx_start_addr", Observed, "UINT32 indices: register or SBUF partition 0"),
	addr4(52, "dst_idx_start_addr", Observed, "UINT32 indices: register or SBUF partition 0"),
	dtype(56, "in_dtype", Observed, ""),
	dtype(57, "out_dtype", Observed, ""),
	boundReg(58, "src_idx_bound_reg", "bounds the index, not the data"),
	sub(59, "dst_idx_bound_reg", boundCheckRegLayout, Carried, "bounds the index, not the data"),
	enum8(60, "compute_op", dgeComputeOpEnum, Observed, "ADD + DST + non_unique_dst_idx = scatter-add"),
	sub(61, "dma_configs", dmaConfigsLayout, Observed, ""),
	reserved(62, 2, "reserved", Observed, "must be 0"),
}}).finish()
