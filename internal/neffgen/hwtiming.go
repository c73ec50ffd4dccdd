package neffgen

import (
	"strings"

	"ndma/neff"
)

// The two kernels of ../shared/spec/hw-timing.md, profiled on a trn2, as
// synthetic NEFFs of exactly their DMA structure (their queues, blocks,
// triggers and waits); the compute words are raw words of the opcode the
// engine runs, with the EVENTS the structure gives them. Their data is
// made up: only their timing is compared.

// Opcodes of the compute words (isa's catalog, neff.md §5.1).
const (
	opNOP       = 0xa4 // NOP
	opTableLoad = 0x23 // ACTIVATION_TABLE_LOAD
	waitGE      = 0x05 // WAIT_FOR_SEM_GE_IMM
)

// Prologue is the two words every compiled stream starts with (hw-timing
// §4: "Every stream starts with PSEUDO_BRANCH_LABEL and SET_ORDERING_MODE";
// neff.md §5.1: SET_ORDERING_MODE first, then on cayman the label; trn1 has
// no label), bytes 2..63 zero.
func Prologue(target string) string {
	s := EventWord(0xb1, 0, 0, -1, 0)
	if target != "sunda" {
		s += EventWord(0xcc, 0, 0, -1, 0)
	}
	return s
}

// TableLoad is ACT's ACTIVATION_TABLE_LOAD, which every trn2 training
// kernel's ACT stream starts with (hw-timing §5: 1283 ns), no wait.
func TableLoad() string { return EventWord(opTableLoad, 0, 0, -1, 0) }

// HWVectorAdd is hw-timing's stream_256k_fd1k (§4.1; on target "sunda"
// its trn1 build, §4.6), the vector add of FREE_DIM 1000 on
// sg00 (sg01 empty, as compiled: its variables, no engine stream): a_vec, b_vec and out of 1,024,000
// bytes; SP fires qSPIO0 blocks 0–3 (a_vec 0, b_vec 0, a_vec 4000, b_vec
// 4000 into SB 213368, 225368, 221368, 217368; semaphores 8–11); the DVE
// adds after $S[9] ≥ 16 and $S[11] ≥ 16, each add incrementing $S[6];
// Pool fires qPoolIO0 blocks 0 and 1 (SB 0 / 4000 → out 0 / 4000,
// semaphores 24, 25) after $S[6] ≥ 1 and ≥ 2, then NOPs wait $S[24] and
// $S[25] ≥ 16.
func HWVectorAdd(target string) *Program {
	spSet, poolSet := SetOf(8), SetOf(24)
	const size = 1024000
	sb := []int64{1, neff.SBPartitionStride}
	// trn2: the two blocks of a vector take alternate 4000-B halves of
	// 8000-B rows; trn1 (hw-timing §2.8, §4.6): rows of 4000 B, the second
	// block rows 128–255 (offset 512,000)
	stride, second := int64(8000), int64(4000)
	if target == "sunda" {
		stride, second = 4000, 512000
	}
	in := func(id int, v string, from, to int64) Block {
		return Compiled("qSPIO0", id, spSet, fp32(neff.Desc{From: v, To: "SB", FromOff: from, ToOff: to,
			FromSizes: []int64{4000, 128}, FromSteps: []int64{1, stride}, ToSizes: []int64{4000, 128}, ToSteps: sb}))
	}
	out := func(id int, sbOff, off int64) Block {
		return Compiled("qPoolIO0", id, poolSet, fp32(neff.Desc{From: "SB", To: "out", FromOff: sbOff, ToOff: off,
			FromSizes: []int64{4000, 128}, FromSteps: sb, ToSizes: []int64{4000, 128}, ToSteps: []int64{1, stride}}))
	}
	sp := Prologue(target) + Trigger("qSPIO0", 0) + Trigger("qSPIO0", 1) + Trigger("qSPIO0", 2) + Trigger("qSPIO0", 3)
	add := func(wait int, a, b, out int64) string { // out = a + b, 1000 fp32 on each partition
		return Word("tensor_tensor", Ev{wait, 16, 6}, "dtype_lo=FP32, dtype_hi=FP32, out_dtype=FP32, op=ADD, num_active_channels=128",
			Row(a, 1000).Arg("src0_mem_pattern", 3), Row(b, 1000).Arg("src1_mem_pattern", 3), Row(out, 1000).Arg("dst_mem_pattern", 3))
	}
	t := VectorAddTiles(target) // 213368, 217368, 221368, 225368 on cayman
	dve := Prologue(target) + add(9, t[0], t[3], 0) + add(11, t[2], t[1], 4000)
	pool := Prologue(target) + TriggerAfter(6, 1, "qPoolIO0", 0) + TriggerAfter(6, 2, "qPoolIO0", 1) +
		EventWord(opNOP, waitGE, 24, -1, 16) + EventWord(opNOP, waitGE, 25, -1, 16)
	g := Graph{
		Name: "sg00",
		Vars: []Var{
			{Name: "SB", Type: "state-buffer"},
			{Name: "a_vec", Type: "input", Size: size},
			{Name: "b_vec", Type: "input", Size: size},
			{Name: "out", Type: "output", Size: size},
		},
		Queues: map[string]Queue{
			"qSPIO0":   {Owner: "sp", Type: "in", Set: spSet},
			"qPoolIO0": {Owner: "pool", Type: "in", Set: poolSet},
		},
		Engines: []Engine{
			{Key: "sp", Manifest: "SP.json", Instr: "SP.bin", Asm: sp,
				DMA: []Block{in(0, "a_vec", 0, t[0]), in(1, "b_vec", 0, t[3]), in(2, "a_vec", second, t[2]), in(3, "b_vec", second, t[1])}},
			{Key: "dve", Manifest: "DVE.json", Instr: "DVE.bin", Asm: dve},
			{Key: "pool", Manifest: "Pool.json", Instr: "Pool.bin", Asm: pool, DMA: []Block{out(0, 0, 0), out(1, 4000, second)}},
		},
		Def: map[string]any{"runtime_statebuffer_reservation": reservation(target)},
	}
	empty := Graph{Name: "sg01", Vars: g.Vars, Def: g.Def} // the second core's: the same variables, no stream
	return &Program{Target: target, Subgraphs: []Graph{g, empty}}
}

// transposeTile is PE's transpose of tile k (SB 512·(k+1), 128 fp32 on each
// partition) into PSUM slot k%32 once its load is in — and, from tile 8
// on, once ACT has copied tile k − 8 out of PSUM (hw-timing §4.2: "$S[4] ≥
// k − 7 (PSUM buffer reuse)", an EVENT_SEMAPHORE here on ACT's $S[3]): the
// tile loaded as weights (read backwards, docs/compute.md §3), multiplied
// by the identity at SB 0 (an FP32 LOW-pass load and one MATMUL: out[c][n]
// = tile[n][c]).
func transposeTile(k int) string {
	tile := Pat{"sbuf", 0, 512*int64(k+1) + 127*4, []int64{-1}, []int64{128}}
	pe := "num_active_rows=128, num_active_cols=128, row_grp=15, col_grp=15"
	w := ""
	if k >= 8 {
		w = Wait(3, k-7, -1)
	}
	return w + Word("ldweights", Ev{24 + k%16, 16 * (k/16 + 1), -1}, tile.Arg("src_mem_pattern", 3), "in_dtype=FP32, fp32_mode=LOW", pe) +
		Word("matmul", Ev{-1, 0, 2}, Row(0, 128).Arg("src_mem_pattern", 3), "in_dtype=FP32, fp32_mode=LOW_HIGH", pe, "psum_accumulate_flags=SINGLE",
			Pat{"psum", 0, int64(k%32) * 512, []int64{1}, []int64{128}}.Arg("dst_mem_pattern", 3))
}

// HWTransposeTiles is how many 128 × 128 tiles HWTranspose moves each way.
const HWTransposeTiles = 64

// HWIdentityFile is HWTranspose's identity member (in sg00/).
const HWIdentityFile = "t17.npy"

// HWTranspose is hw-timing's kernel 2, the 1024 × 1024 fp32 transpose by
// 128 × 128 tiles: a_tensor and out of 4,194,304 bytes, the file variable
// t17 (an int8 [128, 128] identity). SP fires the cast block of
// qSPSpillReload0 (t17 → SB fp32 [512, 128], semaphore 8), then the 64
// qSPIO0 blocks (tile k = row block k/8, column block k%8 of a_tensor,
// sizes [512, 128], steps [1, 4096], into SB at 512·(k+1); semaphores
// 24 + k%16); PE, after the identity ($S[8] ≥ 16), transposes tile k when
// its load is in ($S[24 + k%16] ≥ 16·(k/16 + 1)) and increments $S[2];
// ACT copies it after $S[2] ≥ k+1 and increments $S[3]; Pool fires
// qPoolIO0 block k after $S[3] ≥ k+1 (SB 33280 + 512·k → out at the
// transposed tile, steps [1, 4096]; semaphores 40 + k%16), then NOPs wait
// for the last block on each of its semaphores. Where the tiles sit in SB
// and which semaphores PE and ACT count on are ndma's choice: hw-timing
// gives the blocks, not those.
func HWTranspose(target string) *Program {
	spill, io, pio := SetOf(8), SetOf(24), SetOf(40)
	const size = 1024 * 1024 * 4
	sb := []int64{1, neff.SBPartitionStride}
	blocks := []Block{Compiled("qSPSpillReload0", 0, spill, neff.Desc{From: "t17", To: "SB", FromSizes: []int64{128, 128}, FromSteps: []int64{1, 128},
		ToSizes: []int64{512, 128}, ToSteps: sb, Op: "cast", FromDtype: "int8", ToDtype: "float32", NumTilingDimensions: 1})}
	var sp, pe, act, pool strings.Builder
	for _, b := range []*strings.Builder{&sp, &pe, &act, &pool} {
		b.WriteString(Prologue(target))
	}
	sp.WriteString(Trigger("qSPSpillReload0", 0))
	pe.WriteString(Wait(8, 16, -1))
	act.WriteString(TableLoad())
	var outs []Block
	for k := 0; k < HWTransposeTiles; k++ {
		i, j := int64(k/8), int64(k%8)
		blocks = append(blocks, Compiled("qSPIO0", k, io, fp32(neff.Desc{From: "a_tensor", To: "SB", FromOff: i*128*4096 + j*512, ToOff: 512 * int64(k+1),
			FromSizes: []int64{512, 128}, FromSteps: []int64{1, 4096}, ToSizes: []int64{512, 128}, ToSteps: sb})))
		outs = append(outs, Compiled("qPoolIO0", k, pio, fp32(neff.Desc{From: "SB", To: "out", FromOff: 33280 + 512*int64(k), ToOff: j*128*4096 + i*512,
			FromSizes: []int64{512, 128}, FromSteps: sb, ToSizes: []int64{512, 128}, ToSteps: []int64{1, 4096}})))
		if k < 16 { // hw-timing §4.2: "TRIG 16–63 each waiting for qSPIO0 block k − 16 to complete"
			sp.WriteString(Trigger("qSPIO0", k))
		} else {
			sp.WriteString(TriggerAfter(24+k%16, 16*(k/16), "qSPIO0", k))
		}
		pe.WriteString(transposeTile(k))
		psum := Pat{"psum", 0, int64(k%32) * 512, []int64{1}, []int64{128}}
		act.WriteString(Word("copy", Ev{2, k + 1, 3}, "in_dtype=FP32, out_dtype=FP32, num_active_channels=128",
			psum.Arg("src_mem_pattern", 4), Row(33280+512*int64(k), 128).Arg("dst_mem_pattern", 4)))
		if k < 16 { // hw-timing §4.2: "0–10 wait ACT's copy count $S[4] ≥ 49 … 64; 16–63 wait own block k − 16"
			pool.WriteString(TriggerAfter(3, 49+k, "qPoolIO0", k))
		} else {
			pool.WriteString(TriggerAfter(40+k%16, 16*(k/16), "qPoolIO0", k))
		}
	}
	for s := 0; s < 16; s++ {
		pool.WriteString(EventWord(opNOP, waitGE, 40+s, -1, 16*HWTransposeTiles/16))
	}
	ident := make([]byte, 128*128)
	for r := 0; r < 128; r++ {
		ident[r*128+r] = 1
	}
	g := Graph{
		Name: "sg00",
		Vars: []Var{
			{Name: "SB", Type: "state-buffer"},
			{Name: "a_tensor", Type: "input", Size: size},
			{Name: "out", Type: "output", Size: size},
			{Name: "t17", Type: "file", Size: 128 * 128, FileName: HWIdentityFile, FabricPath: "main"},
		},
		Queues: map[string]Queue{
			"qSPSpillReload0": {Owner: "sp", Type: "data", Set: spill},
			"qSPIO0":          {Owner: "sp", Type: "in", Set: io},
			"qPoolIO0":        {Owner: "pool", Type: "in", Set: pio},
		},
		Engines: []Engine{
			{Key: "sp", Manifest: "SP.json", Instr: "SP.bin", Asm: sp.String(), DMA: blocks},
			{Key: "pe", Manifest: "PE.json", Instr: "PE.bin", Asm: pe.String()},
			{Key: "act", Manifest: "Activation.json", Instr: "Activation.bin", Asm: act.String()},
			{Key: "pool", Manifest: "Pool.json", Instr: "Pool.bin", Asm: pool.String(), DMA: outs},
		},
		Files: map[string][]byte{HWIdentityFile: NPY("|i1", []int{128, 128}, ident)},
		Def:   map[string]any{"runtime_statebuffer_reservation": reservation(target)},
	}
	return &Program{Target: target, Subgraphs: []Graph{g}}
}
