package isa

// The compute-engine words (PE, ACT, DVE, POOL) and the control and pseudo
// words of NEFF engine streams — docs/compute.md. Layouts are given for SUNDA
// and CAYMAN (docs/compute.md §1); a later generation decodes by one of these
// tables only where docs/compute.md states the bytes are the same there, and
// by Raw otherwise.

// i16 is a signed 2-byte field.
func i16(off int, name string, p Prov, note string) Field {
	return Field{Name: name, Off: off, Size: 2, Kind: KInt, Prov: p, Note: note}
}

// nibble is a 4-bit field of the byte at off.
func nibble(off, bit int, name string, e *Enum, p Prov, note string) Field {
	return Field{Name: name, Off: off, Size: 1, Bit: bit, Bits: 4, Kind: KUint, Enum: e, Prov: p, Note: note}
}

// The tensor access patterns (docs/compute.md §3.1): a start address, then
// signed element steps and element counts per free dimension, dimension 0
// innermost. The partition dimension is not part of the pattern.

var tensor1DLayout = &Struct{Name: "TENSOR1D", Size: 8, Prov: Observed, Fields: []Field{
	addr4(0, "start_addr", Observed, "PartitionOffset: SBUF partition = a>>18; PSUM from 0x2000000"),
	i16(4, "step_elem", Observed, "signed element steps; 0 re-reads (broadcast)").arr(1),
	u16(6, "num_elem", Observed, "elements per dimension").arr(1),
}}

var tensor2DLayout = &Struct{Name: "TENSOR2D", Size: 12, Prov: Observed, Fields: []Field{
	addr4(0, "start_addr", Observed, "PartitionOffset: SBUF partition = a>>18; PSUM from 0x2000000"),
	i16(4, "step_elem", Observed, "signed element steps, dim 0 innermost; 0 re-reads (broadcast)").arr(2),
	u16(8, "num_elem", Observed, "elements per dimension").arr(2),
}}

var tensor3DLayout = &Struct{Name: "TENSOR3D", Size: 16, Prov: Observed, Fields: []Field{
	addr4(0, "start_addr", Observed, "PartitionOffset: SBUF partition = a>>18; PSUM from 0x2000000"),
	i16(4, "step_elem", Observed, "signed element steps, dim 0 innermost; 0 re-reads (broadcast)").arr(3),
	u16(10, "num_elem", Observed, "elements per dimension").arr(3),
}}

var tensor4DLayout = &Struct{Name: "TENSOR4D", Size: 20, Prov: Observed, Fields: []Field{
	addr4(0, "start_addr", Observed, "PartitionOffset: SBUF partition = a>>18; PSUM from 0x2000000"),
	i16(4, "step_elem", Observed, "signed element steps, dim 0 innermost; 0 re-reads (broadcast)").arr(4),
	u16(12, "num_elem", Observed, "elements per dimension").arr(4),
}}

// The compute enums (docs/compute.md §3.4, §3.5).

// aluOpEnum is ALU_OP: the 30 float/bitwise codes and the CAYMAN+ integer band.
var aluOpEnum = func() *Enum {
	names := []string{"BYPASS", "BITWISE_NOT", "ARITH_SHIFT_LEFT", "ARITH_SHIFT_RIGHT", "ADD", "SUBTRACT", "MULT", "DIVIDE",
		"MAX", "MIN", "BITWISE_AND", "BITWISE_OR", "BITWISE_XOR", "LOGICAL_AND", "LOGICAL_OR", "LOGICAL_XOR",
		"LOGICAL_SHIFT_LEFT", "LOGICAL_SHIFT_RIGHT", "IS_EQ", "IS_GT", "IS_GE", "IS_LE", "IS_LT", "ABSOLUTE_DIFF",
		"IS_NE", "ABSOLUTE_VALUE", "POW", "MOD", "CRC32", "RSQRT"}
	ints := []string{"ADD_INT", "MULT_INT", "SUBTRACT_INT", "DIVIDE_INT", "MOD_INT", "IS_EQUAL_INT", "IS_NE_INT",
		"ABS_MAX_INT", "ABS_MIN_INT", "ABS_DIFF_INT", "ABS_VALUE_INT", "MAX_INT", "MIN_INT", "IS_GT_INT", "IS_GE_INT",
		"IS_LE_INT", "IS_LT_INT", "MAX_UINT", "MIN_UINT", "IS_GT_UINT", "IS_GE_UINT", "IS_LE_UINT", "IS_LT_UINT",
		"MULT_UINT", "DIVIDE_UINT", "MOD_UINT", "AMAX_INT", "AMIN_INT", "AMAX_UINT", "AMIN_UINT"}
	var vals []EnumValue
	for i, n := range names {
		v := ev(uint64(i), n, Observed)
		switch n {
		case "POW", "CRC32", "RSQRT":
			v = v.note("POOL only")
		}
		vals = append(vals, v)
	}
	for i, n := range ints {
		vals = append(vals, ev(uint64(0xC4+i), n, Observed).gens(FromV3).note("integer datapath (top two bits set)"))
	}
	return newEnum("ALU_OP", Observed, vals...)
}()

// tensorSubdimEnum is TENSOR_SUBDIM: the dimensions an op reduces (no 0x01).
var tensorSubdimEnum = newEnum("TENSOR_SUBDIM", Observed,
	ev(0x00, "UNUSED", Observed), ev(0x02, "X", Observed), ev(0x03, "XY", Observed),
	ev(0x04, "XYZ", Observed), ev(0x05, "XYZW", Observed))

// accumCmdEnum is ACCUM_CMD, the ACT running accumulator command.
var accumCmdEnum = newEnum("ACCUM_CMD", Observed,
	ev(0, "IDLE", Observed), ev(1, "ZERO", Observed), ev(2, "ACCUMULATE", Observed),
	ev(3, "ZERO_ACCUMULATE", Observed), ev(4, "LOAD_ACCUMULATE", Observed))

// immSrcEnum is IMM_SRC: where an immediate operand comes from.
var immSrcEnum = newEnum("IMM_SRC", Observed,
	ev(0, "INSTRUCTION_IMMEDIATE", Observed), ev(1, "POINTER_IMMEDIATE", Observed), ev(2, "REG_PTR_IMMEDIATE", Observed))

// immSrcNEnum is IMM_SRC_N, ACTIVATE's bias source (the first two swapped).
var immSrcNEnum = newEnum("IMM_SRC_N", Observed,
	ev(0, "POINTER_IMMEDIATE", Observed), ev(1, "INSTRUCTION_IMMEDIATE", Observed), ev(2, "REG_PTR_IMMEDIATE", Observed))

// peFP32ModeEnum is PE_FP32MODE: the pass of a two-pass FP32 matmul.
var peFP32ModeEnum = newEnum("PE_FP32MODE", Observed,
	ev(0, "NONE", Observed), ev(1, "LOW", Observed), ev(2, "HIGH", Observed), ev(3, "LOW_HIGH", Observed))

// psumAccFlagsEnum is MATMUL_PSUM_ACCUMULATE_FLAGS: bit 0 BEGIN (overwrite),
// bit 1 END, bit 2 BEGIN_ACCUM; the group modes name 0..3.
var psumAccFlagsEnum = newEnum("MATMUL_PSUM_ACCUMULATE_FLAGS", Observed,
	ev(0, "MULTI_MID", Observed).note("accumulate"),
	ev(1, "MULTI_START", Observed).note("BEGIN_MATMUL_GROUP: overwrite"),
	ev(2, "MULTI_END", Observed).note("END_MATMUL_GROUP: accumulate"),
	ev(3, "SINGLE", Observed).note("BEGIN|END: overwrite"),
	ev(4, "BEGIN_ACCUM_MATMUL_GROUP", Observed),
	ev(6, "BEGIN_ACCUM_END", Inferred).note("BEGIN_ACCUM|END; ndma's name (the encoder accepts 6)"))

// matmulZeroRegionEnum is MATMUL_ZERO_REGION, in FP32 cells.
var matmulZeroRegionEnum = newEnum("MATMUL_ZERO_REGION", Observed,
	ev(0, "SIZE2048", Observed).note("one bank"), ev(1, "SIZE4096", Inferred).note("ndma's spelling of 4096"),
	ev(2, "SIZE8192", Inferred).note("ndma's spelling of 8192"), ev(3, "SIZE16384", Inferred).note("8 banks; ndma's spelling of 16384"))

// tensScalarRevOpsEnum is TENS_SCALAR_REV_OPS.
var tensScalarRevOpsEnum = newEnum("TENS_SCALAR_REV_OPS", Observed,
	ev(0, "NONE", Observed), ev(1, "FIRST", Observed), ev(2, "SECOND", Observed), ev(3, "BOTH", Observed))

// aluOp is a 1-byte ALU_OP field.
func aluOp(off int, name string, p Prov, note string) Field {
	return enum8(off, name, aluOpEnum, p, note)
}

// tensor3D and tensor4D are pattern fields.
func tensor3D(off int, name string, p Prov, note string) Field {
	return sub(off, name, tensor3DLayout, p, note)
}
func tensor4D(off int, name string, p Prov, note string) Field {
	return sub(off, name, tensor4DLayout, p, note)
}

// peFields are the rows LDWEIGHTS and MATMUL share up to byte 32 (§4.1, §5.1).
func peHead(op string) []Field {
	return []Field{
		headerField(),
		eventsField(),
		reserved(12, 4, "reserved0", Observed, "zero in every NEFF word"),
		tensor3D(16, "src_mem_pattern", Observed, op),
	}
}

// ldweightsV2Layout is S3_LW on SUNDA (§4.1).
var ldweightsV2Layout = (&Struct{Name: "S3_LW", Size: 64, Prov: Observed, Fields: append(peHead("weights (stationary operand), SBUF; read backwards: element i lands in column N-1-i"),
	dtype(32, "in_dtype", Inferred, "by analogy with S3D3_MM, whose offsets are observed"),
	enum8(33, "fp32_mode", peFP32ModeEnum, Inferred, "FP32 weights: LOW or HIGH, one per pass; FP16: NONE"),
	reserved(34, 1, "reserved1", Observed, "CAYMAN's transpose_mode; zero on SUNDA"),
	u8(35, "perf_opt", Observed, "0 in every NEFF word"),
	u16(36, "quant_offset", Inferred, "named for SUNDA S3_LW without an offset; MATMUL's sits at 36"),
	u8(38, "num_active_rows", Observed, "partitions (K rows) loaded"),
	u8(39, "num_active_cols", Observed, "PE columns filled (M) = the pattern's element count"),
	reserved(40, 4, "reserved2", Inferred, "zero in every NEFF word"),
	u8(44, "row_grp", Observed, "row-group code; 0x0F = all 128 rows"),
	u8(45, "col_grp", Observed, "column-group code; 0x0F = all 128 columns"),
	u8(46, "xbus_sel", Inferred, "SUNDA S3_LW carries xbus_sel; 0x02 (FP32) or 0x0F (FP16) in NEFFs"),
	reserved(47, 1, "reserved3", Observed, "MARIANA puts flags here"),
	reserved(48, 16, "reserved4", Inferred, "zero in every NEFF word"),
)}).finish()

// ldweightsV3Layout is S3_LW on CAYMAN (§4.1).
var ldweightsV3Layout = (&Struct{Name: "S3_LW", Size: 64, Prov: Observed, Fields: append(peHead("weights (stationary operand), SBUF; read backwards: element i lands in column N-1-i"),
	dtype(32, "in_dtype", Inferred, "by analogy with S3D3_MM, whose offsets are observed"),
	enum8(33, "fp32_mode", peFP32ModeEnum, Inferred, "FP32 weights: LOW or HIGH, one per pass; FP16: NONE"),
	u8(34, "transpose_mode", Observed, "1 on the weight load of a PE transpose"),
	u8(35, "perf_opt", Observed, "0 in every NEFF word"),
	reserved(36, 2, "reserved1", Inferred, "SUNDA's quant_offset"),
	u8(38, "num_active_rows", Observed, "partitions (K rows) loaded"),
	u8(39, "num_active_cols", Observed, "PE columns filled (M) = the pattern's element count"),
	reserved(40, 4, "reserved2", Inferred, "zero in every NEFF word"),
	u8(44, "row_grp", Observed, "row-group code; 0x0F = all 128 rows"),
	u8(45, "col_grp", Observed, "column-group code; 0x0F = all 128 columns"),
	reserved(46, 1, "reserved3", Inferred, "SUNDA's xbus_sel"),
	reserved(47, 1, "reserved4", Observed, "MARIANA puts flags here"),
	reserved(48, 16, "reserved5", Inferred, "zero in every NEFF word"),
)}).finish()

// matmulTail are MATMUL's rows from byte 43 (§5.1).
func matmulTail(xbus Field) []Field {
	return []Field{
		enum8(43, "psum_accumulate_flags", psumAccFlagsEnum, Observed, "bit 0 set: overwrite PSUM; clear: accumulate in FP32"),
		u8(44, "row_grp", Observed, "0x0F = all rows"),
		u8(45, "col_grp", Observed, "0x0F = all columns"),
		xbus,
		enum8(47, "psum_zero_region", matmulZeroRegionEnum, Observed, ""),
		tensor3D(48, "dst_mem_pattern", Observed, "PSUM; FP32 cells (input dtype under transpose_mode)"),
	}
}

// matmulV2Layout is S3D3_MM on SUNDA (§5.1).
var matmulV2Layout = (&Struct{Name: "S3D3_MM", Size: 64, Prov: Observed, Fields: append(append(peHead("moving operand, SBUF; partitions = contraction rows"),
	dtype(32, "in_dtype", Observed, "dtype of the moving data and of the loaded weights"),
	enum8(33, "fp32_mode", peFP32ModeEnum, Observed, "LOW_HIGH for FP32 data, NONE for FP16"),
	reserved(34, 1, "reserved1", Observed, "CAYMAN's transpose_mode"),
	u8(35, "perf_opt", Observed, "0 in every NEFF word"),
	u16(36, "quant_offset", Observed, "QUANT_OFFSET; 0 in every NEFF word"),
	u8(38, "num_active_rows", Observed, "contraction length K"),
	u8(39, "num_active_cols", Observed, "output partitions M"),
	reserved(40, 3, "reserved2", Observed, "CAYMAN's out_dtype at 40"),
), matmulTail(u8(46, "xbus_sel", Observed, "0x10 in every NEFF word"))...)}).finish()

// matmulV3Layout is S3D3_MM on CAYMAN (§5.1).
var matmulV3Layout = (&Struct{Name: "S3D3_MM", Size: 64, Prov: Observed, Fields: append(append(peHead("moving operand, SBUF; partitions = contraction rows"),
	dtype(32, "in_dtype", Observed, "dtype of the moving data and of the loaded weights"),
	enum8(33, "fp32_mode", peFP32ModeEnum, Observed, "LOW_HIGH for FP32 data, NONE for FP16"),
	u8(34, "transpose_mode", Observed, "1 = PE transpose"),
	u8(35, "perf_opt", Observed, "0 in every NEFF word"),
	reserved(36, 2, "reserved_quant", Observed, ""),
	u8(38, "num_active_rows", Observed, "contraction length K"),
	u8(39, "num_active_cols", Observed, "output partitions M"),
	dtype(40, "out_dtype", Observed, "0 in every NEFF word, read as FP32 (ndma: INFERRED)"),
	reserved(41, 2, "reserved2", Observed, "MARIANA puts flags at 42"),
), matmulTail(reserved(46, 1, "reserved_xbs", Observed, "SUNDA's xbus_sel"))...)}).finish()

// activateLayout is S3D3_AC, ACTIVATE on SUNDA, CAYMAN and MARIANA (§6.1).
var activateLayout = (&Struct{Name: "S3D3_AC", Size: 64, Prov: Observed, Fields: []Field{
	headerField(),
	eventsField(),
	enum8(12, "imm_src", immSrcEnum, Observed, "source of imm"),
	enum8(13, "scale_src", immSrcEnum, Observed, "source of scale_value"),
	enum8(14, "accumulator_cmd", accumCmdEnum, Observed, "IDLE in every NEFF word"),
	enum8(15, "bias_src_n", immSrcNEnum, Observed, "0 = bias is a pointer; 1 = the immediate"),
	tensor3D(16, "src_mem_pattern", Observed, "PSUM or SBUF"),
	nibble(32, 0, "in_dtype", dTypeEnum, Observed, "DTYPE_PAIR low nibble"),
	nibble(32, 4, "bias_dtype", dTypeEnum, Observed, "DTYPE_PAIR high nibble"),
	dtype(33, "out_dtype", Observed, ""),
	u8(34, "num_active_channels", Observed, "partitions that run the pattern"),
	u8(35, "activation_func", Observed, "index into the loaded function set (0x01, 0x80: identity, INFERRED)"),
	u32(36, "scale_value", Observed, "ACTIVATION_IMM: fp32 bits, or a pointer/register per scale_src"),
	u32(40, "bias", Observed, "ACTIVATION_IMM: a PartitionOffset pointer or fp32 bits per bias_src_n"),
	u32(44, "imm", Observed, "ACTIVATION_IMM: a third operand per imm_src"),
	tensor3D(48, "dst_mem_pattern", Observed, ""),
}}).finish()

// ctrlNoLayout is CTRL_NO: ACTIVATION_TABLE_LOAD and NOP (§6.3, §11.2).
var ctrlNoLayout = (&Struct{Name: "CTRL_NO", Size: 64, Prov: Observed, Fields: []Field{
	headerField(),
	eventsField(),
	reserved(12, 23, "reserved0", Observed, "zero in every NEFF word"),
	u8(35, "act_tbl_sel", Observed, "ACTIVATION_TABLE_LOAD: the function set made resident; NOP: 0"),
	reserved(36, 28, "reserved1", Observed, "zero in every NEFF word"),
}}).finish()

// tensorTensorLayout is S3S3D3_TT, TENSOR_TENSOR arith 0x41 and bitvec 0x51 (§7.1).
var tensorTensorLayout = (&Struct{Name: "S3S3D3_TT", Size: 64, Prov: Observed, Fields: []Field{
	headerField(),
	eventsField(),
	sub(12, "in_dtype", dTypePairLayout, Observed, "dtype_lo: src0's dtype, dtype_hi: src1's"),
	dtype(13, "out_dtype", Observed, ""),
	aluOp(14, "op", Observed, "dst = op(src0, src1)"),
	u8(15, "num_active_channels", Observed, "partitions that run the patterns"),
	tensor3D(16, "src0_mem_pattern", Observed, "PSUM or SBUF"),
	tensor3D(32, "src1_mem_pattern", Observed, "step 0 = broadcast"),
	tensor3D(48, "dst_mem_pattern", Observed, ""),
}}).finish()

// tensorScalarLayout is S3D3_TS, TENSOR_SCALAR arith 0x43 and bitvec 0x53 (§8).
var tensorScalarLayout = (&Struct{Name: "S3D3_TS", Size: 64, Prov: Observed, Fields: []Field{
	headerField(),
	eventsField(),
	enum8(12, "accumulator_cmd", accumCmdEnum, Observed, "IDLE for plain TENSOR_SCALAR"),
	reserved(13, 3, "reserved0", Observed, "must be 0"),
	tensor3D(16, "src_mem_pattern", Observed, ""),
	dtype(32, "in_dtype", Observed, "no FP32R"),
	dtype(33, "out_dtype", Observed, "FP32R allowed"),
	u8(34, "num_active_channels", Observed, "1..128"),
	enum8(35, "imm0_src", immSrcEnum, Observed, ""),
	aluOp(36, "op0", Observed, "out = op1(op0(x, s0), s1)"),
	aluOp(37, "op1", Observed, "BYPASS when op0 is BYPASS"),
	enum8(38, "reverse_operands", tensScalarRevOpsEnum, Observed, ""),
	enum8(39, "imm1_src", immSrcEnum, Observed, ""),
	u32(40, "imm0", Observed, "IMM_VAL_INST_FIELD: a value, a PartitionOffset pointer or a register"),
	u32(44, "imm1", Observed, "IMM_VAL_INST_FIELD"),
	tensor3D(48, "dst_mem_pattern", Observed, ""),
}}).finish()

// tensorReduceLayout is S4D4_TR: TENSOR_REDUCE 0x42, COPY 0x46, CAST 0x47 (§9.1).
var tensorReduceLayout = (&Struct{Name: "S4D4_TR", Size: 64, Prov: Observed, Fields: []Field{
	headerField(),
	eventsField(),
	tensor4D(12, "src_mem_pattern", Observed, "PSUM or SBUF"),
	dtype(32, "in_dtype", Observed, "no FP32R"),
	dtype(33, "out_dtype", Observed, "COPY: = in_dtype (a reinterpreting copy names the moved type)"),
	u8(34, "num_active_channels", Observed, "partitions that run the patterns"),
	u8(35, "negated", Observed, "0 for COPY/CAST"),
	aluOp(36, "op", Observed, "BYPASS for COPY/CAST; the combiner for TENSOR_REDUCE"),
	enum8(37, "op_dim", tensorSubdimEnum, Observed, "TENSOR_REDUCE: the reduced dimensions"),
	u8(38, "mask_enable", Observed, "must be 0"),
	reserved(39, 5, "reserved1", Observed, "must be 0"),
	tensor4D(44, "dst_mem_pattern", Observed, ""),
}}).finish()

// memsetLayout is MEMSET 0x49 (§10; the struct name is ndma's, from the
// encoder's "d3_memset").
var memsetLayout = (&Struct{Name: "D3_MEMSET", Size: 64, Prov: Observed, Fields: []Field{
	headerField(),
	eventsField(),
	reserved(12, 16, "reserved0", Inferred, "zero in every NEFF word"),
	u32(28, "dst_element_count", Observed, "elements per partition = the dst pattern's count"),
	dtype(32, "dtype", Observed, ""),
	reserved(33, 1, "reserved1", Inferred, "zero in every NEFF word"),
	u8(34, "num_active_channels", Observed, "partitions filled"),
	reserved(35, 5, "reserved2", Inferred, "zero in every NEFF word"),
	u32(40, "fill_value", Inferred, "the fill value (the name is ndma's); a 32-bit immediate; narrow-dtype reading not found (0 in every NEFF word)"),
	tensor4D(44, "dst_mem_pattern", Observed, "SBUF or PSUM"),
}}).finish()

// eventSemLayout is EVENT_SEMAPHORE 0xa0 (§11.1): the struct name and the
// second wait block are ndma's, inferred from NEFF words.
var eventSemLayout = (&Struct{Name: "EVENT_SEMAPHORE", Size: 64, Prov: Inferred, Fields: []Field{
	headerField(),
	eventsField(),
	reserved(12, 20, "reserved0", Inferred, "zero in every NEFF word"),
	enum8(32, "wait2_mode", waitModeEnum, Inferred, "a second wait, laid out as EVENTS' wait half"),
	u8(33, "wait2_idx", Inferred, "semaphore index"),
	reserved(34, 2, "wait2_reserved", Inferred, "EVENTS' update bytes; zero in every NEFF word"),
	u32(36, "wait2_value", Inferred, "threshold"),
	reserved(40, 24, "reserved1", Inferred, "zero in every NEFF word"),
}}).finish()

// ctrlEmptyLayout is SET_ORDERING_MODE 0xb1 and PSEUDO_BRANCH_LABEL 0xcc
// (§11.3): no layout is known; every NEFF word has bytes 2..63 zero (the
// struct name is ndma's).
var ctrlEmptyLayout = (&Struct{Name: "CTRL_EMPTY", Size: 64, Prov: Inferred, Fields: []Field{
	headerField(),
	eventsField(),
	reserved(12, 52, "reserved0", Inferred, "zero in every NEFF word"),
}}).finish()
