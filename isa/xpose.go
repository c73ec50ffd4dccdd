package isa

// DMA_DIRECT2D_XPOSE, opcode 0xbd DMA_TRANSPOSE (CAYMAN+) — field-tables §3.6,
// source document 000 §3d.

// XposeDstStepRule is the 32-byte rule on dst_step_elem as both the layout
// note (ndma describe) and check's has_valid_xpose_dst_step state it: 000 §3d
// says "dst_step_elem 32 B-aligned unless dst_num_elem == 1" without an index;
// field-tables §11.5 pins it to [1] ("dst_step_elem[1] % 32 == 0 unless
// dst_num_elem[1] == 1"), and [0] is the element step (2 in every valid word).
const XposeDstStepRule = "[1] %32 == 0 unless dst_num_elem[1] == 1; [0] is the element step, not checked"

// xposeLayout is the layout of the 0xbd word.
var xposeLayout = (&Struct{Name: "DMA_DIRECT2D_XPOSE", Size: 64, Prov: Observed, Fields: []Field{
	headerField(),
	eventsField(),
	boundReg(12, "src_bound_reg", ""),
	boundReg(13, "dst_bound_reg", ""),
	dtype(14, "in_dtype", Observed, ""),
	dtype(15, "out_dtype", Observed, "1 byte (the header's \"// 5\" is a typo)"),
	addr8(16, "src_start_addr", Observed, ""),
	i32(24, "src_step_elem", Observed, "signed byte strides").arr(2),
	u16(32, "src_num_elem", Observed, "").arr(2),
	i32(36, "tile_src_row_step", Observed, ""),
	addr8(40, "dst_start_addr", Observed, "SBUF, 32-byte aligned"),
	i32(48, "dst_step_elem", Observed, XposeDstStepRule).arr(2),
	u16(56, "dst_num_elem", Observed, "").arr(2),
	u8(60, "tile_src_rows", Observed, "must be 16"),
	u8(61, "tile_src_cols", Observed, "1..128 (2-byte) / 1..64 (any other size)"),
	u8(62, "semaphore", Observed, "no sem_increment field"),
	sub(63, "dma_configs", dmaConfigsLayout, Observed, ""),
}}).finish()
