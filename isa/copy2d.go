package isa

// DMA_COPY2D, opcode 0xb9 DMA_MEMCPY2 (MAVERICK) — field-tables §3.8, source
// document 000 §3b. No EVENTS block: the wait is built in.

// copy2DLayout is the layout of the 0xb9 word.
var copy2DLayout = (&Struct{Name: "DMA_COPY2D", Size: 64, Prov: Observed, Fields: []Field{
	headerField(),
	u32(4, "wait_sema_value", Observed, "immediate or register threshold"),
	u8(8, "wait_sema_idx", Observed, ""),
	enum8(9, "wait_sema_mode", waitModeEnum, Observed, ""),
	sub(10, "dma_engines", dmaEngineConfigLayout, Observed, ""),
	sub(11, "dma_flags", dmaFlagsLayout, Observed, ""),
	sub(12, "addr_mode", dmaAddrModePairLayout, Observed, "low nibble src, high nibble dst"),
	sub(13, "sema_update_mode", dmaSemaUpdatesLayout, Observed, "low nibble rd_done, high nibble wr_done"),
	u16(14, "rd_done_sema_update_idx", Observed, ""),
	dmaAddr(16, "src_start_addr", "addr_mode.src", Observed, "arm chosen by addr_mode.src"),
	i32(24, "src_step_elem", Observed, "signed byte strides").arr(2),
	u16(32, "src_num_elem", Observed, "").arr(2),
	u16(36, "src_elem_size", Observed, ""),
	u16(38, "wr_done_sema_update_idx", Observed, "not contiguous with rd_done's"),
	dmaAddr(40, "dst_start_addr", "addr_mode.dst", Observed, "arm chosen by addr_mode.dst"),
	i32(48, "dst_step_elem", Observed, "signed byte strides").arr(2),
	u16(56, "dst_num_elem", Observed, "").arr(2),
	u16(60, "dst_elem_size", Observed, ""),
	u8(62, "remote_core_id", Observed, "REG_NUM: cross-core target"),
	reserved(63, 1, "reserved", Observed, "must be 0"),
}}).finish()
