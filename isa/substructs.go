package isa

// The shared sub-structs of every 64-byte word (field-tables §2).

// Header is the 4-byte instruction header (§2.1).
var Header = &Struct{Name: "HEADER", Size: 4, Prov: Observed, Fields: []Field{
	u8(0, "opcode", Observed, "NEURON_ISA_TPB_OPCODE"),
	u8(1, "inst_word_len", Observed, "length in 4-byte words; always 0x10"),
	u8(2, "debug_cmd", Observed, "bits 1:0 TRACE_MODE, bit 7 halt_en (TONGA header)"),
	u8(3, "debug_hint", Observed, "software trace hint; on MAVERICK ndma reads it as the tile index (§11.1, INFERRED)"),
}}

// Events is the 8-byte EVENTS block at offset 4 (§2.2).
var Events = &Struct{Name: "EVENTS", Size: 8, Prov: Observed, Fields: []Field{
	enum8(0, "wait_mode", WaitMode, Observed, ""),
	u8(1, "wait_idx", Observed, "semaphore index"),
	enum8(2, "update_mode", UpdateMode, Observed, ""),
	u8(3, "update_idx", Observed, "semaphore index"),
	u32(4, "semaphore_value", Observed, "wait threshold, also the update immediate"),
}}

// BoundCheckReg is BOUND_CHECK_REG (§2.3).
var BoundCheckReg = &Struct{Name: "BOUND_CHECK_REG", Size: 1, Prov: Observed, Fields: []Field{
	bits(0, 6, "bc_reg", Observed, "register holding the upper limit"),
	bits(6, 1, "bc_disable_oob_error_notif", Observed, ""),
	bits(7, 1, "bc_enabled", Observed, ""),
}}

// DMAConfigs is DMA_CONFIGS (§2.4).
var DMAConfigs = &Struct{Name: "DMA_CONFIGS", Size: 1, Prov: Observed, Fields: []Field{
	bits(0, 3, "priority_class", Observed, "0..4; 0 = default packet size"),
	bits(3, 5, "reserved", Observed, "must be 0").resv(),
}}

// DTypePair is DTYPE_PAIR (§2.5).
var DTypePair = &Struct{Name: "DTYPE_PAIR", Size: 1, Prov: Carried, Fields: []Field{
	bits(0, 4, "dtype_lo", Observed, "src DTYPE").enum(DType),
	bits(4, 4, "dtype_hi", Observed, "dst DTYPE").enum(DType),
}}

// DMAIndirectFlags is DMA_INDIRECT_FLAGS (§2.5).
var DMAIndirectFlags = &Struct{Name: "DMA_INDIRECT_FLAGS", Size: 1, Prov: Observed, Fields: []Field{
	bits(0, 2, "indirect_mode", Carried, "").enum(IndirectMode),
	bits(2, 1, "idx_bound_is_err", Carried, ""),
	bits(3, 1, "non_unique_dst_idx", Carried, ""),
	bits(4, 2, "gather_dim", Observed, "").enum(IndirectDim),
	bits(6, 2, "scatter_dim", Carried, "").enum(IndirectDim),
}}

// DMAGatherTransposeFlags is DMA_GATHER_TRANSPOSE_FLAGS (§2.5).
var DMAGatherTransposeFlags = &Struct{Name: "DMA_GATHER_TRANSPOSE_FLAGS", Size: 1, Prov: Carried, Fields: []Field{
	bits(0, 2, "gather_dim", Observed, "").enum(IndirectDim),
	bits(2, 6, "reserved", Observed, "").resv(),
}}

// DMAEngineConfig is the v5 DMA_ENGINE_CONFIG (§2.5).
var DMAEngineConfig = &Struct{Name: "DMA_ENGINE_CONFIG", Size: 1, Prov: Carried, Fields: []Field{
	bits(0, 5, "start_id", Observed, ""),
	bits(5, 2, "engine_count", Observed, "fan = 1 << value").enum(DMAEngineCount),
	bits(7, 1, "reserved", Observed, "").resv(),
}}

// DMAFlags is the v5 DMA_FLAGS (§2.5; queue_id is 3 bits, §10.3).
var DMAFlags = &Struct{Name: "DMA_FLAGS", Size: 1, Prov: Observed, Fields: []Field{
	bits(0, 1, "tdg", Observed, ""),
	bits(1, 1, "wr_done_sync", Observed, "").enum(SemaSync),
	bits(2, 3, "queue_id", Observed, "0..7 (header comment \"4b\" is stale)"),
	bits(5, 3, "reserved", Observed, "").resv(),
}}

// DMAAddrModePair is the v5 DMA_ADDR_MODE_PAIR (§2.5).
var DMAAddrModePair = &Struct{Name: "DMA_ADDR_MODE_PAIR", Size: 1, Prov: Observed, Fields: []Field{
	{Name: "src", Size: 1, Bit: 0, Bits: 4, Kind: KUint, Enum: DMAAddrMode, Prov: Observed, Note: "low nibble (member name INFERRED)"},
	{Name: "dst", Size: 1, Bit: 4, Bits: 4, Kind: KUint, Enum: DMAAddrMode, Prov: Observed, Note: "high nibble (member name INFERRED)"},
}}

// DMASemaUpdates is the v5 DMA_SEMA_UPDATES (§2.5).
var DMASemaUpdates = &Struct{Name: "DMA_SEMA_UPDATES", Size: 1, Prov: Observed, Fields: []Field{
	bits(0, 4, "rd_done", Observed, "").enum(DMASemaUpdateMode),
	bits(4, 4, "wr_done", Observed, "").enum(DMASemaUpdateMode),
}}

// DescFlags is the v5 DESC_FLAGS (§2.5).
var DescFlags = &Struct{Name: "DESC_FLAGS", Size: 1, Prov: Observed, Fields: []Field{
	bits(0, 2, "num_descriptors", Observed, "1..3"),
	bits(2, 1, "desc0_src", Observed, "").enum(DMADescMode),
	bits(3, 1, "desc1_src", Observed, "").enum(DMADescMode),
	bits(4, 1, "desc2_src", Observed, "").enum(DMADescMode),
	bits(5, 3, "reserved", Observed, "").resv(),
}}

// headerField and eventsField are the first two rows of most words.
func headerField() Field { return sub(0, "header", Header, Observed, "") }
func eventsField() Field { return sub(4, "events", Events, Observed, "") }

func boundReg(off int, name, note string) Field { return sub(off, name, BoundCheckReg, Observed, note) }
func dtype(off int, name string, p Prov, note string) Field {
	return enum8(off, name, DType, p, note)
}
