package isa

// DMA_IMMEDIATE, opcode 0xba (MAVERICK) — field-tables §3.9, source document
// 000 §3c: up to three raw 16-byte SDMA descriptors carried in the word.

// immediateLayout is the layout of the 0xba word.
var immediateLayout = (&Struct{Name: "DMA_IMMEDIATE", Size: 64, Prov: Observed, Fields: []Field{
	headerField(),
	u32(4, "wait_sema_value", Observed, ""),
	u8(8, "wait_sema_idx", Observed, ""),
	enum8(9, "wait_sema_mode", waitModeEnum, Observed, ""),
	sub(10, "dma_engines", dmaEngineConfigLayout, Observed, "engine_count must be ONE (prose)"),
	sub(11, "dma_flags", dmaFlagsLayout, Observed, "tdg and wr_done_sync must be 0 (prose)"),
	sub(12, "descriptor_flags", descFlagsLayout, Observed, ""),
	u8(13, "descriptor_reg", Observed, "first of 4 registers per REGISTER-mode descriptor").arr(3),
	rawBytes(16, 16, "descriptor_imm", Observed, "DESCRIPTOR_RAW: one SDMA BD each").arr(3),
}}).finish()
