package isa

import "strings"

// The enums of field-tables §5 (and the small ones of §2, §3.11, §6.1).
// Values source document 000 or 003 (or neff.md, from real NEFF bytes) names
// are OBSERVED; values only field-tables gives are CARRIED (issue 16 item
// 12); names ndma chose are INFERRED and listed in RATIONALE.md.

// DTypeInfo is the per-value size of a DTYPE (field-tables §5.1).
type DTypeInfo struct {
	Bits int // element width in bits: 4, 8, 16, 32, 64; 0 = no size (INVALID, CPTC)
}

// dTypeEnum is the DTYPE enum (1 byte).
var dTypeEnum = newEnum("DTYPE", Observed,
	ev(0x00, "INVALID", Observed),
	ev(0x01, "UINT64", Carried).note("rejected by plain is_valid_dtype"),
	ev(0x02, "INT8", Observed),
	ev(0x03, "UINT8", Observed),
	ev(0x04, "INT16", Carried),
	ev(0x05, "UINT16", Carried),
	ev(0x06, "BFLOAT16", Observed),
	ev(0x07, "FP16", Observed),
	ev(0x08, "INT32", Observed),
	ev(0x09, "UINT32", Observed).note("index dtype for DGE gathers"),
	ev(0x0A, "FP32", Observed),
	ev(0x0B, "FP32R", Carried).note("output-only FP22 partial; 4 bytes (SDMA size table says 0)"),
	ev(0x0C, "INT64", Carried),
	ev(0x0D, "FP8_EXP3", Carried).note("E3M4"),
	ev(0x0E, "FP8_EXP4", Carried).note("E4M3"),
	ev(0x0F, "FP8_EXP5", Carried).note("E5M2"),
	ev(0x10, "FP4_EXP2", Carried).gens(FromV4),
	ev(0x11, "FP8_EXP2", Carried).gens(OnlyV5).note("E2M5"),
	ev(0x12, "INT4", Carried).gens(OnlyV5),
	ev(0x13, "SFP8_E8", Carried).gens(OnlyV5).note("scale-only"),
	ev(0x14, "SFP8_E7", Carried).gens(OnlyV5).note("scale-only"),
	ev(0x15, "SFP8_E6", Carried).gens(OnlyV5).note("scale-only"),
	ev(0x16, "SFP8_E5", Carried).gens(OnlyV5).note("scale-only"),
	ev(0x19, "CPTC1", Carried).gens(FromV4),
	ev(0x1A, "CPTC2", Carried).gens(FromV4),
	ev(0x1B, "CPTC3", Carried).gens(FromV4),
	ev(0x1C, "CPTC4", Carried).gens(FromV4),
	ev(0x1D, "CPTC5", Carried).gens(FromV4),
	ev(0x1E, "CPTC6", Carried).gens(FromV4),
	ev(0x1F, "CPTC7", Carried).gens(FromV4),
)

var dtypeBits = map[uint64]int{
	0x01: 64, 0x02: 8, 0x03: 8, 0x04: 16, 0x05: 16, 0x06: 16, 0x07: 16, 0x08: 32, 0x09: 32,
	0x0A: 32, 0x0B: 32, 0x0C: 64, 0x0D: 8, 0x0E: 8, 0x0F: 8, 0x10: 4, 0x11: 8, 0x12: 4,
	0x13: 8, 0x14: 8, 0x15: 8, 0x16: 8,
}

// DTypeBits is the element width of DTYPE d in bits on generation g, and
// whether d is a sized type defined on g (GenAny: on any generation).
func DTypeBits(d uint8, g Gen) (int, bool) {
	v, ok := dTypeEnum.Lookup(uint64(d))
	if !ok || !v.Gens.Has(g) {
		return 0, false
	}
	b, ok := dtypeBits[uint64(d)]
	return b, ok
}

// waitModeEnum is EVENTS.wait_mode and COPY2D/IMMEDIATE wait_sema_mode (§5.5).
// 000 §3b gives the compare bands: "NONE=0x0 / EQ/LT/LE/GT/GE_IMM=0x1..0x5 /
// EQ/LT/LE/GT/GE_REG=0x81..0x85 / …_REG_OFFSET=0x91..0x95" (OBSERVED); only
// field-tables §5.5 gives 0xfe UNORDERED (CARRIED).
var waitModeEnum = newEnum("WAIT_MODE", Observed,
	ev(0x00, "NONE", Observed),
	ev(0x01, "WAIT_FOR_SEM_EQ_IMM", Observed),
	ev(0x02, "WAIT_FOR_SEM_LT_IMM", Observed),
	ev(0x03, "WAIT_FOR_SEM_LE_IMM", Observed),
	ev(0x04, "WAIT_FOR_SEM_GT_IMM", Observed).note("strictly greater"),
	ev(0x05, "WAIT_FOR_SEM_GE_IMM", Observed),
	ev(0x06, "WAIT_FOR_EVT_06", Inferred).gens(v2ToV4).note("event wait; spec name not found"),
	ev(0x07, "WAIT_FOR_EVT_07", Inferred).gens(v2ToV4).note("event wait; spec name not found"),
	ev(0x0e, "WAIT_FOR_EVT_0E", Inferred).gens(v2ToV4).note("event wait; spec name not found"),
	ev(0x0f, "WAIT_FOR_EVT_0F", Inferred).gens(v2ToV4).note("event wait; spec name not found"),
	ev(0x81, "WAIT_FOR_SEM_EQ_REG", Observed),
	ev(0x82, "WAIT_FOR_SEM_LT_REG", Observed),
	ev(0x83, "WAIT_FOR_SEM_LE_REG", Observed),
	ev(0x84, "WAIT_FOR_SEM_GT_REG", Observed),
	ev(0x85, "WAIT_FOR_SEM_GE_REG", Observed),
	ev(0x91, "WAIT_FOR_SEM_EQ_REG_OFFSET", Observed).gens(OnlyV5),
	ev(0x92, "WAIT_FOR_SEM_LT_REG_OFFSET", Observed).gens(OnlyV5),
	ev(0x93, "WAIT_FOR_SEM_LE_REG_OFFSET", Observed).gens(OnlyV5),
	ev(0x94, "WAIT_FOR_SEM_GT_REG_OFFSET", Observed).gens(OnlyV5),
	ev(0x95, "WAIT_FOR_SEM_GE_REG_OFFSET", Observed).gens(OnlyV5),
	ev(0xfe, "UNORDERED", Carried).gens(OnlyV5).note("no wait, faster than NONE"),
	ev(0xff, "INVALID", Observed),
)

// updateModeEnum is EVENTS.update_mode and TEST_ES.update_type (§5.6).
var updateModeEnum = newEnum("UPDATE_MODE", Observed,
	ev(0x00, "NONE", Observed),
	ev(0x03, "SEM_INC_READ", Carried),
	ev(0x04, "SEM_DEC_READ", Carried),
	ev(0x05, "SEM_ADD_IMM_READ", Carried),
	ev(0x07, "SEM_SUB_IMM_READ", Carried),
	ev(0x09, "SEM_WR_IMM_READ", Carried),
	ev(0x13, "SEM_INC_COMPLETE", Carried),
	ev(0x14, "SEM_DEC_COMPLETE", Carried),
	ev(0x15, "SEM_ADD_IMM_COMPLETE", Carried),
	ev(0x17, "SEM_SUB_IMM_COMPLETE", Carried),
	ev(0x19, "SEM_WR_IMM_COMPLETE", Carried),
	ev(0x85, "SEM_ADD_REG_READ", Inferred).note("code by the +0x80 register pattern"),
	ev(0x87, "SEM_SUB_REG_READ", Inferred).note("code by the +0x80 register pattern"),
	ev(0x89, "SEM_WR_REG_READ", Inferred).note("code by the +0x80 register pattern"),
	ev(0x95, "SEM_ADD_REG_COMPLETE", Inferred).note("code by the +0x80 register pattern"),
	ev(0x97, "SEM_SUB_REG_COMPLETE", Inferred).note("code by the +0x80 register pattern"),
	ev(0x99, "SEM_WR_REG_COMPLETE", Carried),
	ev(0xff, "INVALID", Observed),
)

// traceModeEnum is header.debug_cmd bits 1:0 (§2.1, from the TONGA header).
var traceModeEnum = newEnum("TRACE_MODE", Carried,
	ev(0, "DISABLE", Carried), ev(1, "GEN_ON_START", Carried),
	ev(2, "GEN_ON_END", Carried), ev(3, "GEN_ON_BOTH", Carried),
)

// dgeOpcodeEnum is PSEUDO_DMA_DIRECT2D.dge_op (§5.2).
var dgeOpcodeEnum = newEnum("DGE_OPCODE", Observed,
	ev(0, "DMA_DIRECT2D", Observed), ev(1, "DMA_INDIRECT1D", Observed),
	ev(2, "DMA_TRANSPOSE", Observed).gens(FromV3), ev(3, "DMA_GATHER_TRANSPOSE", Observed).gens(FromV3),
)

// dgeComputeOpEnum is the in-flight reduce of a DMA (§5.2).
var dgeComputeOpEnum = newEnum("DGE_COMPUTE_OP", Observed,
	ev(0, "NONE", Observed).note("B = A"), ev(1, "ADD", Observed).note("B += A"),
	ev(2, "MULTIPLY", Observed), ev(3, "MAX", Observed), ev(4, "MIN", Observed),
)

// indirectDimEnum is INDIRECT_DIM, minor to major (§5.2).
var indirectDimEnum = newEnum("INDIRECT_DIM", Observed,
	ev(0, "X", Observed), ev(1, "Y", Observed), ev(2, "Z", Observed), ev(3, "W", Observed),
)

// indirectModeEnum is INDIRECT_DMA_ADDRESSING_MODE (§5.2).
var indirectModeEnum = newEnum("INDIRECT_DMA_ADDRESSING_MODE", Carried,
	ev(0, "SRC", Observed).note("gather"), ev(1, "DST", Observed).note("scatter"), ev(2, "SRC_DST", Carried),
)

// dmaEngineCountEnum is DMA_ENGINE_COUNT (v5; fan = 1<<v).
var dmaEngineCountEnum = newEnum("DMA_ENGINE_COUNT", Observed,
	ev(0, "ONE", Observed), ev(1, "TWO", Observed), ev(2, "FOUR", Observed), ev(3, "EIGHT", Observed),
)

// dmaDescModeEnum is DMA_DESC_MODE (v5).
var dmaDescModeEnum = newEnum("DMA_DESC_MODE", Observed,
	ev(0, "IMMEDIATE", Observed), ev(1, "REGISTER", Observed),
)

// semaSyncEnum is SEMA_SYNC (v5 DMA_FLAGS.wr_done_sync).
var semaSyncEnum = newEnum("SEMA_SYNC", Observed,
	ev(0, "SOW", Carried), ev(1, "CLEAR_PCIE_RO", Carried),
)

// testEvtSemModeEnum is TEST_EVT_SEM_MODE (v4+).
var testEvtSemModeEnum = newEnum("TEST_EVT_SEM_MODE", Observed,
	ev(0, "READ_SEM", Observed), ev(1, "READ_EVT", Observed), ev(2, "UPDATE_SEM", Observed),
	ev(3, "UPDATE_EVT", Observed), ev(4, "COND_UPDATE_SEM", Observed),
)

// dataSrcEnum is DATA_SRC.
var dataSrcEnum = newEnum("DATA_SRC", Carried, ev(0, "REGISTER", Observed), ev(1, "IMMEDIATE", Observed))

// lncSizeFmtEnum is LNC_SIZE_FMT.
var lncSizeFmtEnum = newEnum("LNC_SIZE_FMT", Carried,
	ev(0, "LNC1", Carried), ev(1, "LNC2", Carried), ev(2, "LNC4", Carried), ev(3, "LNC8", Carried),
)

// neuronEngineEnum is NEURON_ENGINE.
var neuronEngineEnum = newEnum("NEURON_ENGINE", Carried,
	ev(0, "PE", Observed), ev(1, "ACT", Observed), ev(2, "POOL", Observed),
	ev(3, "DVE", Observed), ev(4, "TPB_SP", Carried), ev(5, "TOP_SP", Carried),
)

// dmaAddrModeEnum is DMA_ADDR_MODE (v5, one nibble per leg, field-tables §5.3).
// The printed names of 0x3/0x5/0x7 are source 000 §3b's spelling
// ("…32I=0x3 / …32I=0x5 / …64I=0x7"; 0x9/0xb are "…_I"); field-tables'
// REG_IMM_OFFSET32_I etc. stay accepted on input (DMAAddrModeAliases).
var dmaAddrModeEnum = func() *Enum {
	e := newEnum("DMA_ADDR_MODE", Observed,
		ev(0x0, "IMM64", Observed), ev(0x1, "REG_PAIR", Observed),
		ev(0x2, "REG_IMM_OFFSET32", Observed), ev(0x3, "REG_IMM_OFFSET32I", Observed),
		ev(0x4, "REG_REG_OFFSET32", Observed), ev(0x5, "REG_REG_OFFSET32I", Observed),
		ev(0x6, "REG_REG_OFFSET64", Observed), ev(0x7, "REG_REG_OFFSET64I", Observed),
		ev(0x8, "REG_REG_IMM_SCALE", Observed), ev(0x9, "REG_REG_IMM_SCALE_I", Observed),
		ev(0xa, "REG_REG_REG_SCALE", Observed), ev(0xb, "REG_REG_REG_SCALE_I", Observed),
	)
	for alias, v := range dmaAddrModeAliases {
		i := e.byValue[v]
		e.byName[strings.ToUpper(alias)] = i
		e.byName[strings.ToLower(alias)] = i
	}
	return e
}()

// dmaAddrModeAliases are the field-tables §5.3 spellings of DMA_ADDR_MODE
// values that 000 §3b spells without the underscore; they are accepted on
// input (JSON and assembly) and never printed.
var dmaAddrModeAliases = map[string]uint64{
	"REG_IMM_OFFSET32_I": 0x3, "REG_REG_OFFSET32_I": 0x5, "REG_REG_OFFSET64_I": 0x7,
}

// dmaSemaUpdateModeEnum is DMA_SEMA_UPDATE_MODE (v5, one nibble per event, §5.4).
var dmaSemaUpdateModeEnum = newEnum("DMA_SEMA_UPDATE_MODE", Observed,
	ev(0x0, "NONE", Observed), ev(0x1, "LOCAL_SEM_INC", Observed),
	ev(0x3, "LOCAL_SEM_INC_COUNTER", Observed), ev(0x5, "LOCAL_COLLSYNC_INC", Observed),
	ev(0x9, "REMOTE_SEM_INC", Observed), ev(0xb, "REMOTE_SEM_INC_COUNTER", Observed),
	ev(0xd, "REMOTE_COLLSYNC_INC", Observed),
)

// ccInstTypeEnum is CCINST_TYPE (§3.11).
var ccInstTypeEnum = newEnum("CCINST_TYPE", Observed,
	ev(0, "ALU", Observed), ev(1, "MOV", Observed), ev(2, "MOVIMM", Observed), ev(3, "BR", Observed),
	ev(4, "BL", Observed), ev(5, "MEM", Observed), ev(6, "SEMR", Observed), ev(7, "SEMU", Observed),
	ev(8, "NOP", Observed),
)
