package isa

// DMA_GATHER_XPOSE, opcode 0xf1 DMA_GATHER_TRANSPOSE (CAYMAN+) — field-tables
// §3.7, source document 000 §3e.

// gatherXposeLayout is the layout of the 0xf1 word.
var gatherXposeLayout = (&Struct{Name: "DMA_GATHER_XPOSE", Size: 64, Prov: Observed, Fields: []Field{
	headerField(),
	eventsField(),
	u8(12, "semaphore", Observed, ""),
	sub(13, "dma_configs", dmaConfigsLayout, Observed, ""),
	u8(14, "idx_num_active_channels", Observed, "must be 128"),
	boundReg(15, "src_idx_bound_reg", "index bound (no flags coupling)"),
	addr8(16, "src_start_addr", Observed, "HBM or SBUF, 2-byte aligned"),
	i32(24, "src_step_elem", Observed, "signed byte strides").arr(2),
	u16(32, "src_num_elem", Observed, "[1] = number of indices, %16 == 0").arr(2),
	addr4(36, "src_idx_start_addr", Observed, "UINT32 index tensor, 4-byte aligned"),
	addr8(40, "dst_start_addr", Observed, "SBUF, 32-byte aligned"),
	reserved(48, 3, "reserved", Observed, "must be 0"),
	boundReg(51, "dst_bound_reg", ""),
	i32(52, "dst_step_elem_1", Observed, "dst dim-0 step is implicit: sizeof(dtype_hi)"),
	u16(56, "dst_num_elem", Observed, "[0] == src_num_elem[1]").arr(2),
	u16(60, "elem_size", Observed, "2..256, even"),
	sub(62, "dtype", dTypePairLayout, Observed, "lo == hi, 2-byte types only"),
	sub(63, "flags", dmaGatherTransposeFlagsLayout, Observed, "gather_dim must be Y"),
}}).finish()
