package isa

// The shared sub-structs of every 64-byte word (field-tables §2).

// headerLayout is the 4-byte instruction header (§2.1).
var headerLayout = &Struct{Name: "HEADER", Size: 4, Prov: Observed, Fields: []Field{
	u8(0, "opcode", Observed, "NEURON_ISA_TPB_OPCODE"),
	u8(1, "inst_word_len", Observed, "length in 4-byte words; always 0x10"),
	u8(2, "debug_cmd", Observed, "bits 1:0 TRACE_MODE, bit 7 halt_en (TONGA header)"),
	u8(3, "debug_hint", Observed, "software trace hint; on MAVERICK ndma reads it as the tile index (docs/field-tables.md §11.1, INFERRED)"),
}}

// eventsLayout is the 8-byte EVENTS block at offset 4 (§2.2).
var eventsLayout = &Struct{Name: "EVENTS", Size: 8, Prov: Observed, Fields: []Field{
	enum8(0, "wait_mode", waitModeEnum, Observed, ""),
	u8(1, "wait_idx", Observed, "semaphore index"),
	enum8(2, "update_mode", updateModeEnum, Observed, ""),
	u8(3, "update_idx", Observed, "semaphore index"),
	u32(4, "semaphore_value", Observed, "wait threshold, also the update immediate"),
}}

// boundCheckRegLayout is BOUND_CHECK_REG (§2.3).
var boundCheckRegLayout = &Struct{Name: "BOUND_CHECK_REG", Size: 1, Prov: Observed, Fields: []Field{
	bits(0, 6, "bc_reg", Observed, "register holding the upper limit"),
	bits(6, 1, "bc_disable_oob_error_notif", Observed, ""),
	bits(7, 1, "bc_enabled", Observed, ""),
}}

// dmaConfigsLayout is DMA_CONFIGS (§2.4).
var dmaConfigsLayout = &Struct{Name: "DMA_CONFIGS", Size: 1, Prov: Observed, Fields: []Field{
	bits(0, 3, "priority_class", Observed, "0..4; 0 = default packet size"),
	bits(3, 5, "reserved", Observed, "must be 0").resv(),
}}

// dTypePairLayout is DTYPE_PAIR (§2.5).
var dTypePairLayout = &Struct{Name: "DTYPE_PAIR", Size: 1, Prov: Carried, Fields: []Field{
	bits(0, 4, "dtype_lo", Observed, "src DTYPE").enum(dTypeEnum),
	bits(4, 4, "dtype_hi", Observed, "dst DTYPE").enum(dTypeEnum),
}}

// dmaIndirectFlagsLayout is DMA_INDIRECT_FLAGS (§2.5).
var dmaIndirectFlagsLayout = &Struct{Name: "DMA_INDIRECT_FLAGS", Size: 1, Prov: Observed, Fields: []Field{
	bits(0, 2, "indirect_mode", Carried, "").enum(indirectModeEnum),
	bits(2, 1, "idx_bound_is_err", Carried, ""),
	bits(3, 1, "non_unique_dst_idx", Carried, ""),
	bits(4, 2, "gather_dim", Observed, "").enum(indirectDimEnum),
	bits(6, 2, "scatter_dim", Carried, "").enum(indirectDimEnum),
}}

// dmaGatherTransposeFlagsLayout is DMA_GATHER_TRANSPOSE_FLAGS (§2.5).
var dmaGatherTransposeFlagsLayout = &Struct{Name: "DMA_GATHER_TRANSPOSE_FLAGS", Size: 1, Prov: Carried, Fields: []Field{
	bits(0, 2, "gather_dim", Observed, "").enum(indirectDimEnum),
	bits(2, 6, "reserved", Observed, "").resv(),
}}

// dmaEngineConfigLayout is the v5 DMA_ENGINE_CONFIG (§2.5).
var dmaEngineConfigLayout = &Struct{Name: "DMA_ENGINE_CONFIG", Size: 1, Prov: Carried, Fields: []Field{
	bits(0, 5, "start_id", Observed, ""),
	bits(5, 2, "engine_count", Observed, "fan = 1 << value").enum(dmaEngineCountEnum),
	bits(7, 1, "reserved", Observed, "").resv(),
}}

// dmaFlagsLayout is the v5 DMA_FLAGS (§2.5; queue_id is 3 bits, §10.3).
var dmaFlagsLayout = &Struct{Name: "DMA_FLAGS", Size: 1, Prov: Observed, Fields: []Field{
	bits(0, 1, "tdg", Observed, ""),
	bits(1, 1, "wr_done_sync", Observed, "").enum(semaSyncEnum),
	bits(2, 3, "queue_id", Observed, "0..7 (header comment \"4b\" is stale)"),
	bits(5, 3, "reserved", Observed, "").resv(),
}}

// dmaAddrModePairLayout is the v5 DMA_ADDR_MODE_PAIR (§2.5).
var dmaAddrModePairLayout = &Struct{Name: "DMA_ADDR_MODE_PAIR", Size: 1, Prov: Observed, Fields: []Field{
	{Name: "src", Size: 1, Bit: 0, Bits: 4, Kind: KUint, Enum: dmaAddrModeEnum, Prov: Observed, Note: "low nibble (member name INFERRED)"},
	{Name: "dst", Size: 1, Bit: 4, Bits: 4, Kind: KUint, Enum: dmaAddrModeEnum, Prov: Observed, Note: "high nibble (member name INFERRED)"},
}}

// dmaSemaUpdatesLayout is the v5 DMA_SEMA_UPDATES (§2.5).
var dmaSemaUpdatesLayout = &Struct{Name: "DMA_SEMA_UPDATES", Size: 1, Prov: Observed, Fields: []Field{
	bits(0, 4, "rd_done", Observed, "").enum(dmaSemaUpdateModeEnum),
	bits(4, 4, "wr_done", Observed, "").enum(dmaSemaUpdateModeEnum),
}}

// descFlagsLayout is the v5 DESC_FLAGS (§2.5).
var descFlagsLayout = &Struct{Name: "DESC_FLAGS", Size: 1, Prov: Observed, Fields: []Field{
	bits(0, 2, "num_descriptors", Observed, "1..3"),
	bits(2, 1, "desc0_src", Observed, "").enum(dmaDescModeEnum),
	bits(3, 1, "desc1_src", Observed, "").enum(dmaDescModeEnum),
	bits(4, 1, "desc2_src", Observed, "").enum(dmaDescModeEnum),
	bits(5, 3, "reserved", Observed, "").resv(),
}}

// headerField and eventsField are the first two rows of most words.
func headerField() Field { return sub(0, "header", headerLayout, Observed, "") }
func eventsField() Field { return sub(4, "events", eventsLayout, Observed, "") }

func boundReg(off int, name, note string) Field {
	return sub(off, name, boundCheckRegLayout, Observed, note)
}
func dtype(off int, name string, p Prov, note string) Field {
	return enum8(off, name, dTypeEnum, p, note)
}
