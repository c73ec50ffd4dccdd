package isa

// DMA_DIRECT2D, opcode 0xb8 DMAMEMCPY — field-tables §3.2, source document 000 §3a.

// direct2DLayout is the layout of the 0xb8 word.
var direct2DLayout = (&Struct{Name: "DMA_DIRECT2D", Size: 64, Prov: Observed, Fields: direct2DFields(false)}).finish()

// direct2DFields is shared with PSEUDO_DMA_DIRECT2D, which is "identical to
// §3.2 except" byte 15 and the two address unions (§3.3).
func direct2DFields(pseudo bool) []Field {
	f15 := enum8(15, "compute_op", dgeComputeOpEnum, Observed, "NONE = plain copy; else the CCE path")
	src := addr8(16, "src_start_addr", Observed, "")
	dst := addr8(40, "dst_start_addr", Observed, "")
	if pseudo {
		f15 = enum8(15, "dge_op", dgeOpcodeEnum, Observed, "which resolved word: 0xb8/0xbb/0xbd/0xf1")
		src = paddr8(16, "src_start_addr", Observed, "var/table arms resolved at load")
		dst = paddr8(40, "dst_start_addr", Observed, "var/table arms resolved at load")
	}
	return []Field{
		headerField(),
		eventsField(),
		sub(12, "dma_configs", dmaConfigsLayout, Observed, ""),
		u8(13, "semaphore", Observed, "completion semaphore index"),
		u8(14, "sem_increment", Observed, "added on completion; 0 = none"),
		f15,
		src,
		i32(24, "src_step_elem", Observed, "signed byte strides (docs/field-tables.md §11.3), dim 0 innermost").arr(2),
		u16(32, "src_num_elem", Observed, "").arr(2),
		u16(36, "src_elem_size", Observed, "bytes per element; 0 = 64 KiB"),
		boundReg(38, "src_bound_reg", "address bound"),
		boundReg(39, "dst_bound_reg", "address bound"),
		dst,
		i32(48, "dst_step_elem", Observed, "signed byte strides (docs/field-tables.md §11.3)").arr(2),
		u16(56, "dst_num_elem", Observed, "").arr(2),
		u16(60, "dst_elem_size", Observed, "bytes per element; 0 = 64 KiB"),
		dtype(62, "in_dtype", Observed, ""),
		dtype(63, "out_dtype", Observed, "≠ in_dtype: a cast through the CCE"),
	}
}
