package isa

// The sequencer scalar movers and the RDMA extended words — field-tables
// §3.12. Source document 000 names the pair ("the sequencer scalar
// load/store pair (0xaa/0xab)", "0xce → 0xaa has on the TensorLoad page")
// but gives no layout: every row below is known only from field-tables, so
// it is CARRIED (issue 16 item 12), except the shared header and EVENTS.

// Mem2DMaxElems is the cap on num_elem[0]·num_elem[1] (§3.12 "product ≤32"):
// one element per byte of data.
const Mem2DMaxElems = 32

// Mem2DRegion is the size of the aligned region a MEM_2D's whole span must
// lie in (§3.12 "Whole span must lie in one aligned 16 MiB region").
const Mem2DRegion = 16 << 20

// mem2DFields are the MEM_2D rows; pseudo replaces start_addr by the NEFF
// variable pair (§3.12 "Pseudo 0xcd/0xce replace start_addr by var_id u32@16
// + var_offset u32@20").
func mem2DFields(pseudo bool) []Field {
	f := []Field{
		headerField(),
		eventsField(),
		dtype(12, "dtype", Carried, "element type; immediate caps 32/16/8/4 for 1/2/4/8-byte types"),
		enum8(13, "src_datasrc", dataSrcEnum, Carried, "TENSOR_STORE: REGISTER or IMMEDIATE; TENSOR_LOAD forces REGISTER (0)"),
		u8(14, "num_elem", Carried, "elements per dimension, dim 0 fastest; product ≤ 32").arr(2),
	}
	if pseudo {
		f = append(f,
			u32(16, "var_id", Carried, "NEFF variable the span is in"),
			u32(20, "var_offset", Carried, "byte offset inside the variable"))
	} else {
		f = append(f, addr8(16, "start_addr", Carried, "Neuron address of element 0; the span lies in one aligned 16 MiB region"))
	}
	return append(f,
		i32(24, "step_elem", Carried, "signed element strides").arr(2),
		u8(32, "data", Carried, "per element: a register id, or the packed immediate bytes").arr(32),
	)
}

// mem2DLayout is the layout of 0xaa TENSOR_LOAD and 0xab TENSOR_STORE.
var mem2DLayout = (&Struct{Name: "MEM_2D", Size: 64, Prov: Carried, Fields: mem2DFields(false)}).finish()

// pseudoMem2DLayout is the layout of 0xcd PSEUDO_TENSOR_STORE and 0xce
// PSEUDO_TENSOR_LOAD (the struct name is ndma's: INFERRED, RATIONALE.md).
var pseudoMem2DLayout = (&Struct{Name: "PSEUDO_MEM_2D", Size: 64, Prov: Carried, Fields: mem2DFields(true)}).finish()

// extendedOpcodeEnum is the ext-op byte of an EXTENDED_INST (§3.12).
var extendedOpcodeEnum = newEnum("EXTENDED_OPCODE", Carried,
	ev(8, "RDMA_DESC_GEN", Carried), ev(9, "RDMA_DESC_START", Carried))

// extendedLayout is the layout of 0xf0 EXTENDED_INST: RDMA_DESC_GEN's rows
// (ext-op 8); an RDMA_DESC_START (ext-op 9) has the same first 14 bytes and
// the rest reserved, which check enforces (one table per opcode: INFERRED,
// RATIONALE.md).
var extendedLayout = (&Struct{Name: "EXTENDED_INST", Size: 64, Prov: Carried, Fields: []Field{
	headerField(),
	eventsField(),
	enum8(12, "extended_opcode", extendedOpcodeEnum, Carried, "8 RDMA_DESC_GEN, 9 RDMA_DESC_START"),
	u8(13, "completion_info", Carried, ""),
	u8(14, "local_sem", Carried, "RDMA_DESC_GEN only"),
	u8(15, "remote_sem", Carried, "RDMA_DESC_GEN only"),
	u32(16, "remote_core_id", Carried, "IMM_VAL; RDMA_DESC_GEN only"),
	u32(20, "remote_routing_id", Carried, "RDMA_DESC_GEN only"),
	u32(24, "dma_engine_mask", Carried, "a power of 2 ≤ 16; RDMA_DESC_GEN only"),
	addr4(28, "src_addr", Carried, "partition offset; RDMA_DESC_GEN only"),
	addr4(32, "dst_addr", Carried, "RDMA_DESC_GEN only"),
	u32(36, "free_dim_bytes", Carried, "bytes per partition across all 128; 0 = semaphore only"),
	u8(40, "is_bidirectional", Carried, "RDMA_DESC_GEN only"),
	u8(41, "remote_sem_prev", Carried, "RDMA_DESC_GEN only"),
	reserved(42, 22, "reserved", Carried, "must be 0"),
}}).finish()

// Mem2DElemBytes is the element size of a MEM_2D dtype on g in bytes, and
// whether it is one of the four sizes §3.12's immediate caps name
// ("immediate caps 32/16/8/4 for 1/2/4/8-byte types").
func Mem2DElemBytes(d uint8, g Gen) (int, bool) {
	bits, ok := DTypeBits(d, g)
	switch n := bits / 8; {
	case !ok || bits%8 != 0:
		return 0, false
	case n == 1 || n == 2 || n == 4 || n == 8:
		return n, true
	}
	return 0, false
}

// Mem2DImmCap is the most immediates the 32 data bytes hold for an element of
// n bytes (§3.12: 32/16/8/4 for 1/2/4/8-byte types).
func Mem2DImmCap(n int) int { return 32 / n }

// Mem2DSpan is the byte range [lo, hi] a MEM_2D touches: elements (i0, i1)
// at start + (i0·step[0] + i1·step[1])·size (element strides, §3.12). ok is
// false when an element lies below address 0 or past 2^58.
func Mem2DSpan(start uint64, num [2]uint64, step [2]int64, size int) (lo, hi uint64, ok bool) {
	if num[0] == 0 || num[1] == 0 {
		return 0, 0, true
	}
	first, last := int64(start), int64(start)
	for k := 0; k < 2; k++ { // the extremes of a linear walk are at its corners
		d := (int64(num[k]) - 1) * step[k] * int64(size)
		if d < 0 {
			first += d
		} else {
			last += d
		}
	}
	last += int64(size) - 1
	if first < 0 || last >= 1<<58 {
		return 0, 0, false
	}
	return uint64(first), uint64(last), true
}

// SameMem2DRegion reports whether [lo, hi] lies in one aligned 16 MiB region.
func SameMem2DRegion(lo, hi uint64) bool { return lo/Mem2DRegion == hi/Mem2DRegion }
