package sim

import (
	"bytes"
	"encoding/binary"
	"testing"

	"ndma/check"
	"ndma/isa"
	"ndma/ref"
)

// Independent review (issue 16 item 9): MEM_2D words whose 64 bytes are laid
// down by hand from field-tables §3.12, no assembler, no layout table:
//
//	"MEM_2D (0xaa TensorLoad / 0xab TensorStore): header@0, events@4, dtype@12,
//	src_datasrc@13 (0 Register / 1 Immediate; load forces 0), num_elem[2]@14
//	(u8 each, product ≤32), start_addr@16 (ADDR8), step_elem[2]@24 (int32
//	element strides), data@32 (32 B: 32 register ids or packed immediates;
//	immediate caps 32/16/8/4 for 1/2/4/8-byte types). Whole span must lie in
//	one aligned 16 MiB region. Pseudo 0xcd/0xce replace start_addr by var_id
//	u32@16 + var_offset u32@20."
//
// and §2.1 "inst_word_len always 0x10". Events all zero: no wait, no update.
func handMem2D(op, dtype, src, n0, n1 byte, start uint64, s0, s1 int32, data []byte) []byte {
	w := make([]byte, 64)
	w[0], w[1] = op, 0x10
	w[12], w[13], w[14], w[15] = dtype, src, n0, n1
	binary.LittleEndian.PutUint64(w[16:], start)
	binary.LittleEndian.PutUint32(w[24:], uint32(s0))
	binary.LittleEndian.PutUint32(w[28:], uint32(s1))
	copy(w[32:], data)
	return w
}

func decodeHand(t *testing.T, g isa.Gen, w []byte) *isa.Inst {
	t.Helper()
	in, err := isa.Decode(g, w)
	if err != nil {
		t.Fatalf("decode % x: %v", w, err)
	}
	got, err := isa.Encode(in)
	if err != nil || !bytes.Equal(got[:], w) {
		t.Fatalf("re-encode: %v\n got % x\nwant % x", err, got, w)
	}
	return &in
}

func TestHandMem2D(t *testing.T) {
	g := isa.Cayman
	// TENSOR_STORE UINT16 (dtype 0x05, 2 bytes, §5.1) of 3 × 2 immediates
	// (6·2 = 12 ≤ 32 bytes, under the cap of 16) at SBUF partition 1 offset
	// 0x40: 1·256 KiB + 0x40 = 0x40040 (§4.3). step_elem [2, 8] elements:
	// (i0, i1) at 0x40040 + 2·(2·i0 + 8·i1) = 0x40040, 0x40044, 0x40048,
	// 0x40050, 0x40054, 0x40058; slot k's immediate is data bytes 2k, 2k+1.
	imms := []byte{0x01, 0xa1, 0x02, 0xa2, 0x03, 0xa3, 0x04, 0xa4, 0x05, 0xa5, 0x06, 0xa6}
	st := decodeHand(t, g, handMem2D(0xab, 0x05, 1, 3, 2, 0x40040, 2, 8, imms))
	v, ok := st.Mem2D()
	if !ok || st.Opcode() != isa.OpTensorStore {
		t.Fatalf("0xab decodes as %s", st.Def().Mnemonic())
	}
	if v.DType() != isa.DTypeCode(0x05) || v.SrcDatasrc() != isa.DataSrcImmediate || v.NumElem(0) != 3 || v.NumElem(1) != 2 ||
		v.StepElem(0) != 2 || v.StepElem(1) != 8 || v.Data(1) != 0xa1 {
		t.Fatalf("fields: dtype %v src %v num [%d %d] step [%d %d] data[1] %#x", v.DType(), v.SrcDatasrc(),
			v.NumElem(0), v.NumElem(1), v.StepElem(0), v.StepElem(1), v.Data(1))
	}
	if a, ok := v.StartAddr().Imm(); !ok || a != 0x40040 {
		t.Fatalf("start_addr %#x %v", a, ok)
	}
	if ps := check.Validate(st, g); check.Errors(ps) != 0 {
		t.Fatalf("valid store refused: %+v", ps)
	}
	want := map[uint64][2]byte{0x40040: {0x01, 0xa1}, 0x40044: {0x02, 0xa2}, 0x40048: {0x03, 0xa3},
		0x40050: {0x04, 0xa4}, 0x40054: {0x05, 0xa5}, 0x40058: {0x06, 0xa6}}
	a, b := ref.New(g), New(g)
	if err := a.Exec(st); err != nil {
		t.Fatalf("ref: %v", err)
	}
	if err := b.Exec(st); err != nil {
		t.Fatalf("sim: %v", err)
	}
	for name, read := range map[string]func(uint64, []byte) error{"ref": a.Mem.Read, "sim": b.Mem.Read} {
		got := make([]byte, 0x20)
		if err := read(0x40040, got); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < len(got); i += 2 {
			w, touched := want[0x40040+uint64(i)]
			if !touched {
				w = [2]byte{}
			}
			if got[i] != w[0] || got[i+1] != w[1] {
				t.Fatalf("%s: bytes at %#x = % x, want % x", name, 0x40040+i, got[i:i+2], w[:])
			}
		}
	}

	// TENSOR_LOAD (0xaa) of the same six, walked backwards: start 0x40058,
	// step_elem [-2, -8] → slots 0..5 at 0x40058, 0x40054, 0x40050, 0x40048,
	// 0x40044, 0x40040 into r50..r55 (data bytes are register ids),
	// zero-extended.
	ld := decodeHand(t, g, handMem2D(0xaa, 0x05, 0, 3, 2, 0x40058, -2, -8, []byte{50, 51, 52, 53, 54, 55}))
	if lv, _ := ld.Mem2D(); lv.StepElem(0) != -2 || lv.StepElem(1) != -8 {
		t.Fatalf("negative steps decode as [%d %d]", lv.StepElem(0), lv.StepElem(1))
	}
	if ps := check.Validate(ld, g); check.Errors(ps) != 0 {
		t.Fatalf("valid load refused: %+v", ps)
	}
	for _, x := range []interface{ Exec(*isa.Inst) error }{a, b} {
		if err := x.Exec(ld); err != nil {
			t.Fatal(err)
		}
	}
	wantRegs := []uint32{0xa606, 0xa505, 0xa404, 0xa303, 0xa202, 0xa101}
	for i, w := range wantRegs {
		if a.Regs[50+i] != w || b.Regs[50+i] != w {
			t.Fatalf("r%d: ref %#x sim %#x, want %#x", 50+i, a.Regs[50+i], b.Regs[50+i], w)
		}
	}

	// "load forces 0": a TENSOR_LOAD with src_datasrc 1 is refused by
	// validate and both executors, and moves nothing.
	bad := decodeHand(t, g, handMem2D(0xaa, 0x05, 1, 1, 1, 0x40040, 0, 0, []byte{60}))
	if !hasPred(check.Validate(bad, g), "has_valid_mem2d_datasrc") {
		t.Fatal("validate accepts a load with src_datasrc IMMEDIATE")
	}
	if ea, eb := a.Exec(bad), b.Exec(bad); ea == nil || eb == nil || a.Regs[60] != 0 || b.Regs[60] != 0 {
		t.Fatalf("load with IMMEDIATE: ref %v sim %v", ea, eb)
	}
	// "immediate caps … 16 … for 2-byte types": 17 UINT16 immediates exceed it.
	over := decodeHand(t, g, handMem2D(0xab, 0x05, 1, 17, 1, 0x40040, 1, 0, nil))
	if !hasPred(check.Validate(over, g), "has_valid_mem2d_immediate_count") {
		t.Fatal("validate accepts 17 UINT16 immediates")
	}
	// "product ≤32": 33 × 1 and 11 × 3 are refused, 16 × 2 is not.
	for _, c := range []struct {
		n0, n1 byte
		bad    bool
	}{{33, 1, true}, {11, 3, true}, {16, 2, false}} {
		in := decodeHand(t, g, handMem2D(0xaa, 0x03, 0, c.n0, c.n1, 0x40000, 1, int32(c.n0), nil))
		if got := hasPred(check.Validate(in, g), "has_valid_mem2d_num_elem"); got != c.bad {
			t.Fatalf("num_elem [%d %d]: refused %v, want %v", c.n0, c.n1, got, c.bad)
		}
	}
	// "Whole span must lie in one aligned 16 MiB region": HBM is the window
	// from 0x1_0000_0000 (16 MiB-aligned). A UINT32 at 0x1_00ff_fffc with
	// step_elem[1] = 1 over num_elem [1, 2] ends at 0x1_0100_0003: crosses.
	// step_elem[1] = -(2^31) over 2 elements walks 2^33 bytes below the
	// start: below address 0 from SBUF, and never a wrap-around.
	cross := decodeHand(t, g, handMem2D(0xab, 0x08, 1, 1, 2, 0x1_00ff_fffc, 0, 1, nil))
	if !hasPred(check.Validate(cross, g), "has_valid_mem2d_region") {
		t.Fatal("validate accepts a span across 16 MiB")
	}
	down := decodeHand(t, g, handMem2D(0xab, 0x08, 1, 1, 2, 0x40040, 0, -1<<31, nil))
	if !hasPred(check.Validate(down, g), "has_valid_mem2d_region") {
		t.Fatalf("validate accepts a walk below 0: %+v", check.Validate(down, g))
	}
	before := a.Mem.Snapshot()
	for _, in := range []*isa.Inst{cross, down} {
		if ea, eb := a.Exec(in), b.Exec(in); ea == nil || eb == nil {
			t.Fatalf("ref %v sim %v: want both to fault", ea, eb)
		}
	}
	if !sameSnap(before, a.Mem.Snapshot()) {
		t.Fatal("ref: a faulting MEM_2D changed memory")
	}
}

// PSEUDO 0xcd PSEUDO_TENSOR_STORE / 0xce PSEUDO_TENSOR_LOAD (field-tables
// §3.0 "0xcd/0xce PSEUDO_TENSOR_STORE/LOAD"): var_id u32@16, var_offset
// u32@20, the step and data rows unmoved. var_offset near 2^32 decodes as
// itself; the executors never run a pseudo word unresolved.
func TestHandPseudoMem2D(t *testing.T) {
	g := isa.Cayman
	w := handMem2D(0xcd, 0x08, 1, 2, 1, 0, 1, 0, []byte{1, 2, 3, 4, 5, 6, 7, 8})
	binary.LittleEndian.PutUint32(w[16:], 7)
	binary.LittleEndian.PutUint32(w[20:], 0xffff_fffc)
	in := decodeHand(t, g, w)
	v, ok := in.PseudoMem2D()
	if !ok || in.Opcode() != isa.OpPseudoTensorStore || v.VarID() != 7 || v.VarOffset() != 0xffff_fffc || v.StepElem(0) != 1 || v.Data(4) != 5 {
		t.Fatalf("0xcd: %s var %d off %#x", in.Def().Mnemonic(), v.VarID(), v.VarOffset())
	}
	if !bytes.Contains([]byte(in.Def().Mnemonic()), []byte("STORE")) {
		t.Fatalf("0xcd is %s, field-tables names it PSEUDO_TENSOR_STORE", in.Def().Mnemonic())
	}
	w[0] = 0xce
	w[13] = 0
	if in := decodeHand(t, g, w); in.Opcode() != isa.OpPseudoTensorLoad || !bytes.Contains([]byte(in.Def().Mnemonic()), []byte("LOAD")) {
		t.Fatalf("0xce is %s", in.Def().Mnemonic())
	}
	if err := ref.New(g).Exec(in); err == nil {
		t.Fatal("ref ran an unresolved pseudo word")
	}
	if err := New(g).Exec(in); err == nil {
		t.Fatal("sim ran an unresolved pseudo word")
	}
}

// EXTENDED 0xf0 (field-tables §3.12): "RDMA_DESC_GEN, ext-op 8: …
// extended_opcode@12 (=8), completion_info@13, local_sem@14, remote_sem@15,
// remote_core_id@16 (4, IMM_VAL), remote_routing_id@20 (4),
// dma_engine_mask@24 (4, power of 2 ≤16), src_addr@28 (ADDR4 partition
// offset), dst_addr@32 (ADDR4), free_dim_bytes@36 (u32 …), is_bidirectional@40,
// remote_sem_prev@41, reserved@42..63. RDMA_DESC_START, ext-op 9: header,
// events, ext_opcode@12=9, completion_info@13, rest reserved."
func TestHandExtended(t *testing.T) {
	g := isa.Cayman
	w := make([]byte, 64)
	w[0], w[1], w[12], w[13], w[14], w[15] = 0xf0, 0x10, 8, 0x5a, 3, 4
	binary.LittleEndian.PutUint32(w[16:], 0x11)
	binary.LittleEndian.PutUint32(w[20:], 0x22)
	binary.LittleEndian.PutUint32(w[24:], 8)
	binary.LittleEndian.PutUint32(w[28:], 0x40000)
	binary.LittleEndian.PutUint32(w[32:], 0x80000)
	binary.LittleEndian.PutUint32(w[36:], 512)
	w[40], w[41] = 1, 9
	in := decodeHand(t, g, w)
	v, ok := in.Extended()
	if !ok || v.ExtendedOpcode() != isa.ExtendedOpcodeRDMADescGen || v.CompletionInfo() != 0x5a || v.LocalSem() != 3 ||
		v.RemoteSem() != 4 || v.RemoteCoreID() != 0x11 || v.RemoteRoutingID() != 0x22 || v.DMAEngineMask() != 8 {
		t.Fatalf("RDMA_DESC_GEN fields wrong: %+v", v)
	}
	if ps := check.Validate(in, g); check.Errors(ps) != 0 {
		t.Fatalf("valid RDMA_DESC_GEN refused: %+v", ps)
	}
	for _, m := range []uint32{0, 3, 32} { // "power of 2 ≤16"
		binary.LittleEndian.PutUint32(w[24:], m)
		if !hasPred(check.Validate(decodeHand(t, g, w), g), "has_valid_dma_engine_mask") {
			t.Fatalf("dma_engine_mask %d accepted", m)
		}
	}
	// RDMA_DESC_START: "rest reserved" — a byte at 20 is refused, none is fine.
	s := make([]byte, 64)
	s[0], s[1], s[12], s[13] = 0xf0, 0x10, 9, 1
	if ps := check.Validate(decodeHand(t, g, s), g); check.Errors(ps) != 0 {
		t.Fatalf("RDMA_DESC_START refused: %+v", ps)
	}
	s[20] = 1
	if ps := check.Validate(decodeHand(t, g, s), g); check.Errors(ps) == 0 {
		t.Fatal("RDMA_DESC_START with byte 20 set accepted")
	}
}

func hasPred(ps []check.Problem, name string) bool {
	for _, p := range ps {
		if p.Predicate == name {
			return true
		}
	}
	return false
}

func sameSnap(a, b map[string][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if !bytes.Equal(a[k], b[k]) {
			return false
		}
	}
	return true
}
