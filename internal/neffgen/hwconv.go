package neffgen

import (
	"fmt"
	"strings"

	"ndma/neff"
)

// The three conv2d training kernels of ../shared/spec/hw-timing.md §4.3–4.5
// (CS149 NKI 3 × 3 convolutions, 256 → 256 channels, compiled for trn2) as
// synthetic NEFFs of their structure: the variables, queues, dma[] blocks
// and descriptors, the order and waits of SP's triggers, and per engine
// the compute words hw-timing counts (opcode, size, dtype) with the
// semaphore handshake it describes. Where hw-timing names a word's wait,
// the word waits on it; where it only counts words (which copy an engine
// does, which semaphore a word increments), the choice is ndma's, said so
// (INFERRED) in each builder. Data is made up: only timing is compared.

// hwDesc is a compiler descriptor of one dtype on both sides, sizes and
// steps in bytes.
func hwDesc(from, to string, fromOff, toOff int64, fromSizes, fromSteps, toSizes, toSteps []int64, dt string) neff.Desc {
	return neff.Desc{From: from, To: to, FromOff: fromOff, ToOff: toOff, FromSizes: fromSizes, FromSteps: fromSteps,
		ToSizes: toSizes, ToSteps: toSteps, Op: "copy", FromDtype: dt, ToDtype: dt, NumTilingDimensions: 1}
}

// sbSteps are an SB side's steps: bytes within a partition, then partitions.
var sbSteps = []int64{1, neff.SBPartitionStride}

// identityCast is the int8 [128 128] identity file variable name cast into
// SB at off as dt ("float16" or "float32", esz bytes), the cast block of
// hw-timing §4.3/§4.4 ("cast t33 int8 [128 128] → SB fp16 [256 128]").
func identityCast(name string, off int64, dt string, esz int64) neff.Desc {
	return neff.Desc{From: name, To: "SB", ToOff: off, FromSizes: []int64{128, 128}, FromSteps: []int64{1, 128},
		ToSizes: []int64{128 * esz, 128}, ToSteps: sbSteps, Op: "cast", FromDtype: "int8", ToDtype: dt, NumTilingDimensions: 1}
}

// identityFile is an int8 [128 128] identity as .npy.
func identityFile() []byte {
	ident := make([]byte, 128*128)
	for r := 0; r < 128; r++ {
		ident[r*128+r] = 1
	}
	return NPY("|i1", []int{128, 128}, ident)
}

// copyWord is a COPY of n elements of dt from src to SB dst.
func copyWord(ev Ev, dt string, src Pat, dst int64, n int64) string {
	return Word("copy", ev, "in_dtype="+dt+", out_dtype="+dt+", num_active_channels=128", src.Arg("src_mem_pattern", 4), Row(dst, n).Arg("dst_mem_pattern", 4))
}

// peArgs are a full 128 × 128 PE array's fields.
const peArgs = "num_active_rows=128, num_active_cols=128, row_grp=15, col_grp=15"

// ldWeights is an LDWEIGHTS of the 128 elements of dt at SB w.
func ldWeights(ev Ev, dt string, w int64) string {
	mode := "NONE"
	if dt == "FP32" {
		mode = "LOW"
	}
	return Word("ldweights", ev, Row(w, 128).Arg("src_mem_pattern", 3), "in_dtype="+dt+", fp32_mode="+mode, peArgs)
}

// matmul is a MATMUL of n moving elements of dt at SB x into PSUM psum.
func matmul(ev Ev, dt string, x, n, psum int64, flags string) string {
	mode := "NONE"
	if dt == "FP32" {
		mode = "LOW_HIGH"
	}
	return Word("matmul", ev, Row(x, n).Arg("src_mem_pattern", 3), "in_dtype="+dt+", fp32_mode="+mode, peArgs, "psum_accumulate_flags="+flags,
		Pat{"psum", 0, psum, []int64{1}, []int64{n}}.Arg("dst_mem_pattern", 3))
}

// biasAdd is DVE's TENSOR_TENSOR out = psum + bias (n elements, bias
// broadcast along the partition), dt the output's.
func biasAdd(ev Ev, dt string, psum, bias, out, n int64) string {
	return Word("tensor_tensor", ev, "dtype_lo=FP32, dtype_hi="+dt+", out_dtype="+dt+", op=ADD, num_active_channels=128",
		Pat{"psum", 0, psum, []int64{1}, []int64{n}}.Arg("src0_mem_pattern", 3), Pat{"sbuf", 0, bias, []int64{0}, []int64{n}}.Arg("src1_mem_pattern", 3),
		Row(out, n).Arg("dst_mem_pattern", 3))
}

// nopWait is Pool's NOP waiting $S[sem] ≥ v.
func nopWait(sem, v int) string { return EventWord(opNOP, waitGE, sem, -1, v) }

// HWConv2dF16Small is hw-timing §4.3's conv2d_4_float16_smaller (trn2): X
// fp16 [1 256 32 16], W fp16 [256 256 3 3], bias fp16 [256], output X_out
// fp16 [1 256 30 14], the int8 identity t33. Queues qSPIO0 (SP, 8–23),
// qSPSpillReload0 (SP, 24–39), qPoolIO0 (Pool, 40–55); blocks as §4.3's
// table: qSPIO0 0, 1, 5, 6 W halves [2304 128] steps [1 4608], 2, 3 X
// [1024 128] contiguous, 4, 7 bias [2 128]; the cast; qPoolIO0 0, 1 SB
// [840 128] → X_out. SP fires IO 0, SR 0, IO 1–7 unwaited.
//
// Per output tile c (128 channels) the weights go through 18 slices s (ci
// half h = s/9, tap s%9): a gather COPY out of the W tile (strided) → a PE
// transpose (LDWEIGHTS the slice, MATMUL against the identity) → an
// eviction COPY out of PSUM → a tap (LDWEIGHTS, MATMUL 128 × 420 moving X),
// and DVE adds the bias (TT 128 × 420). hw-timing §4.3 gives the counts
// (ACT 22 COPY waiting PE's $S[5], the first W block 0; DVE 42 COPY, TT,
// 8 COPY, TT, each +$S[6]; PE's four phases, each MATMUL +$S[5]; Pool's
// triggers at $S[6] ≥ 43 and ≥ 52). INFERRED: DVE does the 36 gathers
// and 7 evictions a tile, ACT the other 11 (its copies wait PE's $S[5]);
// DVE's 42 before the first TT are tile 0's 18 gathers and 7 evictions and
// tile 1's first 17 gathers — the only split of its counts in which every
// wait hw-timing names holds.
const hwConv4TileOneGathers = 14

func HWConv2dF16Small() *Program {
	const (
		ident = 0 // t33 as fp16 [256 B]
		w0    = 512
		xSB   = w0 + 4*2304 // X halves, 1024 B each
		bSB   = xSB + 2048  // bias, 2 B per tile (4 apart)
		gSB   = bSB + 64    // gathered slices, 36 × 256 B
		eSB   = gSB + 36*256
		oSB   = eSB + 36*256 // outputs, 840 B per tile
		psumT = 0            // transposes: 18 × 512 B of PSUM
		psumA = 18 * 512     // the taps' accumulator, per tile 1680 B
	)
	spIO, spSR, poolIO := SetOf(8), SetOf(24), SetOf(40)
	wSB := func(c, h int) int64 { return w0 + int64(2*c+h)*2304 }
	wBlock := func(id, c, h int) Block {
		return Compiled("qSPIO0", id, spIO, hwDesc("W", "SB", int64(c)*128*4608+int64(h)*2304, wSB(c, h), []int64{2304, 128}, []int64{1, 4608}, []int64{2304, 128}, sbSteps, "float16"))
	}
	xBlock := func(id, h int) Block {
		return Compiled("qSPIO0", id, spIO, hwDesc("X", "SB", int64(h)*131072, xSB+int64(h)*1024, []int64{1024, 128}, []int64{1, 1024}, []int64{1024, 128}, sbSteps, "float16"))
	}
	bBlock := func(id, c int) Block {
		return Compiled("qSPIO0", id, spIO, hwDesc("bias", "SB", int64(c)*256, bSB+int64(c)*4, []int64{2, 128}, []int64{1, 2}, []int64{2, 128}, sbSteps, "float16"))
	}
	io := []Block{wBlock(0, 0, 0), wBlock(1, 0, 1), xBlock(2, 0), xBlock(3, 1), bBlock(4, 0), wBlock(5, 1, 0), wBlock(6, 1, 1), bBlock(7, 1)}
	sr := []Block{Compiled("qSPSpillReload0", 0, spSR, identityCast("t33", ident, "float16", 2))}
	var outs []Block
	for c := 0; c < 2; c++ {
		outs = append(outs, Compiled("qPoolIO0", c, poolIO, hwDesc("SB", "X_out", oSB+int64(c)*840, int64(c)*107520, []int64{840, 128}, sbSteps, []int64{840, 128}, []int64{1, 840}, "float16")))
	}
	wSem := [2][2]int{{8, 9}, {13, 14}} // W blocks 0, 1 and 5, 6
	g := func(c, s int) int64 { return gSB + int64(18*c+s)*256 }
	e := func(c, s int) int64 { return eSB + int64(18*c+s)*256 }
	slice := func(c, s int) Pat { // tap s%9 of ci half s/9: every 9th element of the W tile
		return Pat{"sbuf", 0, wSB(c, s/9) + int64(s%9)*2, []int64{9}, []int64{128}}
	}
	var act, dve, pe, pool strings.Builder
	for _, b := range []*strings.Builder{&act, &dve, &pe, &pool} {
		b.WriteString(Prologue("cayman"))
	}
	act.WriteString(TableLoad())
	gathered := map[[2]int]Ev{} // (c, s) → the wait its gather satisfies
	evicted := map[[2]int]Ev{}  // (c, s) → the wait its eviction satisfies
	nDVE, nACT := 0, 0
	transposed := func(c, s int) int { return 36*c + s + 1 } // $S[5] once PE transposed (c, s)
	copyOn := func(onACT bool, ev Ev, src Pat, dst int64) Ev {
		if onACT {
			ev.Inc = 4
			act.WriteString(copyWord(ev, "FP16", src, dst, 128))
			nACT++
			return Ev{4, nACT, -1}
		}
		ev.Inc = 6
		dve.WriteString(copyWord(ev, "FP16", src, dst, 128))
		nDVE++
		return Ev{6, nDVE, -1}
	}
	gather := func(onACT bool, c, s int) {
		ev := NoEv
		if s%9 == 0 || onACT {
			ev.Wait, ev.Value = wSem[c][s/9], 16
		}
		gathered[[2]int{c, s}] = copyOn(onACT, ev, slice(c, s), g(c, s))
	}
	evict := func(onACT bool, c, s int) {
		src := Pat{"psum", 0, psumT + int64(s)*512, []int64{1}, []int64{128}}
		evicted[[2]int{c, s}] = copyOn(onACT, Ev{5, transposed(c, s), -1}, src, e(c, s))
	}
	// ACT's first copy gathers slice 0 (it "waits for W block 0"), the
	// others evict (they "wait PE's $S[5]"); DVE does the rest, in its
	// order: tile 0's gathers and evictions, g1 of tile 1's gathers, the
	// first TT, the rest (hw-timing's DVE counts fix ACT's tile-0
	// evictions at g1 − 7 and DVE's tile-1 ones at g1 − 10).
	const g1 = hwConv4TileOneGathers
	gather(true, 0, 0)
	for s := 1; s < 18; s++ {
		gather(false, 0, s)
	}
	for s := 0; s < 18; s++ {
		evict(s < g1-7, 0, s)
	}
	for s := 0; s < g1; s++ {
		gather(false, 1, s)
	}
	dve.WriteString(Wait(12, 16, -1)) // bias block 4
	dve.WriteString(biasAdd(Ev{5, 36, 6}, "FP16", psumA, bSB, oSB, 420))
	nDVE++
	for s := g1; s < 18; s++ {
		gather(false, 1, s)
	}
	for s := 0; s < 18; s++ {
		evict(s >= g1-10, 1, s)
	}
	dve.WriteString(Wait(15, 16, -1)) // bias block 7
	dve.WriteString(biasAdd(Ev{5, 72, 6}, "FP16", psumA+1680, bSB+4, oSB+840, 420))
	nDVE++
	// PE: 18 transposes, 18 taps, 18 transposes, 18 taps (hw-timing §4.3)
	pe.WriteString(Wait(24, 16, -1)) // the identity
	for c := 0; c < 2; c++ {
		for s := 0; s < 18; s++ {
			pe.WriteString(ldWeights(gathered[[2]int{c, s}], "FP16", g(c, s)))
			pe.WriteString(matmul(Ev{-1, 0, 5}, "FP16", ident, 128, psumT+int64(s)*512, "SINGLE"))
		}
		if c == 0 {
			pe.WriteString(Wait(10, 16, -1) + Wait(11, 16, -1)) // X in (§4.3: "after X lands: $S[10], $S[11] ≥ 16")
		}
		for s := 0; s < 18; s++ {
			pe.WriteString(ldWeights(evicted[[2]int{c, s}], "FP16", e(c, s)))
			flags := "MULTI_MID"
			switch s {
			case 0:
				flags = "MULTI_START"
			case 17:
				flags = "MULTI_END"
			}
			pe.WriteString(matmul(Ev{-1, 0, 5}, "FP16", xSB+int64(s/9)*1024+int64(s%9)*2, 420, psumA+int64(c)*1680, flags))
		}
	}
	pool.WriteString(TriggerAfter(6, 43, "qPoolIO0", 0) + TriggerAfter(6, 52, "qPoolIO0", 1) + nopWait(40, 16) + nopWait(41, 16))
	sp := Prologue("cayman") + Trigger("qSPIO0", 0) + Trigger("qSPSpillReload0", 0)
	for k := 1; k < 8; k++ {
		sp += Trigger("qSPIO0", k)
	}
	if nDVE != 52 || nACT != 22 {
		panic(fmt.Sprintf("conv2d_4: DVE %d, ACT %d copies: docs/hw-timing.md §4.3 counts 52 and 22", nDVE, nACT))
	}
	return convProgram("t33", []Var{
		{Name: "X", Type: "input", Size: 262144},
		{Name: "W", Type: "input", Size: 1179648},
		{Name: "bias", Type: "input", Size: 512},
		{Name: "X_out", Type: "output", Size: 215040},
	}, map[string]Queue{
		"qSPIO0":          {Owner: "sp", Type: "in", Set: spIO},
		"qSPSpillReload0": {Owner: "sp", Type: "data", Set: spSR},
		"qPoolIO0":        {Owner: "pool", Type: "in", Set: poolIO},
	}, sp, append(io, sr...), pe.String(), act.String(), dve.String(), pool.String(), outs)
}

// convProgram is a conv kernel's one-subgraph trn2 NEFF: its variables
// (SB, vars, the identity file ident when set), queues and engine streams,
// SP's blocks and Pool's; act's blocks are actDMA.
func convProgram(ident string, vars []Var, queues map[string]Queue, sp string, spDMA []Block, pe, act, dve, pool string, poolDMA []Block, actDMA ...Block) *Program {
	vs := append([]Var{{Name: "SB", Type: "state-buffer"}}, vars...)
	files := map[string][]byte{}
	if ident != "" {
		vs = append(vs, Var{Name: ident, Type: "file", Size: 128 * 128, FileName: ident + ".npy", FabricPath: "main"})
		files[ident+".npy"] = identityFile()
	}
	return &Program{Target: "cayman", Subgraphs: []Graph{{
		Name:   "sg00",
		Vars:   vs,
		Queues: queues,
		Engines: []Engine{
			{Key: "sp", Manifest: "SP.json", Instr: "SP.bin", Asm: sp, DMA: spDMA},
			{Key: "pe", Manifest: "PE.json", Instr: "PE.bin", Asm: pe},
			{Key: "act", Manifest: "Activation.json", Instr: "Activation.bin", Asm: act, DMA: actDMA},
			{Key: "dve", Manifest: "DVE.json", Instr: "DVE.bin", Asm: dve},
			{Key: "pool", Manifest: "Pool.json", Instr: "Pool.bin", Asm: pool, DMA: poolDMA},
		},
		Files: files,
		Def:   map[string]any{"runtime_statebuffer_reservation": reservation("cayman")},
	}}}
}

// HWConv2dF32Small is hw-timing §4.4's conv2d_3_float32_smaller (trn2): X
// fp32 [1 256 32 16], W fp32 [256 256 3 3], bias fp32 [256], the DRAM
// scratch out (virtual, 2,359,296 B), output X_out fp32 [1 256 30 14], the
// int8 identity t34. Queues qSPIO0 (SP, 8–23), qSPSpillReload0 (SP,
// 24–39), qPoolSpillReload0 (Pool, 40–55), qActSpillReload0 (ACT, 56–71),
// qPoolIO0 (Pool, 72–87), their blocks as §4.4's table. The weights of a
// tile go: W halves [4608 128] steps [1 9216] → SB; 18 slices SB → SB by
// qPoolSpillReload0 (triggers 0–7 after W block 0, 8–15 after W block 1,
// then each after its own block k − 16; tile 1's after W blocks 5/6); a PE
// transpose each (LDWEIGHTS waiting the slice's block, MATMUL against the
// identity); ACT's COPY out of PSUM and its trigger of the slice's spill
// to out (9 copies first, then interleaved); SP's reloads of 9 spills
// each ([4608 128] contiguous, after the 9th spill lands); 36 taps
// (LDWEIGHTS, MATMUL 128 × 420, +$S[5]); DVE's bias add after $S[5] ≥ 36
// / ≥ 72, +$S[6]; Pool's stores after $S[6] ≥ 1 / ≥ 2. SP's order and
// waits are §4.4's. INFERRED: which semaphore PE's transposes increment
// for ACT ($S[2]) — §4.4's TT waits ≥ 36 and ≥ 72 count the 72 taps only.
func HWConv2dF32Small() *Program {
	const (
		ident = 0
		w0    = 512
		xSB   = w0 + 4*4608
		bSB   = xSB + 2*2048
		gSB   = bSB + 64
		eSB   = gSB + 36*512
		rSB   = eSB + 36*512
		oSB   = rSB + 4*4608
		psumT = 0
		psumA = 18 * 512
	)
	spIO, spSR, poolSR, actSR, poolIO := SetOf(8), SetOf(24), SetOf(40), SetOf(56), SetOf(72)
	wSB := func(c, h int) int64 { return w0 + int64(2*c+h)*4608 }
	wBlock := func(id, c, h int) Block {
		return Compiled("qSPIO0", id, spIO, hwDesc("W", "SB", int64(c)*128*9216+int64(h)*4608, wSB(c, h), []int64{4608, 128}, []int64{1, 9216}, []int64{4608, 128}, sbSteps, "float32"))
	}
	xBlock := func(id, h int) Block {
		return Compiled("qSPIO0", id, spIO, hwDesc("X", "SB", int64(h)*262144, xSB+int64(h)*2048, []int64{2048, 128}, []int64{1, 2048}, []int64{2048, 128}, sbSteps, "float32"))
	}
	bBlock := func(id, c int) Block {
		return Compiled("qSPIO0", id, spIO, hwDesc("bias", "SB", int64(c)*512, bSB+int64(c)*8, []int64{4, 128}, []int64{1, 4}, []int64{4, 128}, sbSteps, "float32"))
	}
	spDMA := []Block{wBlock(0, 0, 0), wBlock(1, 0, 1), xBlock(2, 0), xBlock(3, 1), bBlock(4, 0), wBlock(5, 1, 0), wBlock(6, 1, 1), bBlock(7, 1),
		Compiled("qSPSpillReload0", 0, spSR, identityCast("t34", ident, "float32", 4))}
	for j := 1; j <= 4; j++ {
		spDMA = append(spDMA, Compiled("qSPSpillReload0", j, spSR, hwDesc("out", "SB", int64(j-1)*589824, rSB+int64(j-1)*4608, []int64{4608, 128}, []int64{1, 4608}, []int64{4608, 128}, sbSteps, "float32")))
	}
	var poolDMA, actDMA []Block
	g := func(k int) int64 { return gSB + int64(k)*512 }
	e := func(k int) int64 { return eSB + int64(k)*512 }
	for k := 0; k < 36; k++ {
		c, s := k/18, k%18
		src := wSB(c, s/9) + int64(s%9)*512 // ndma's choice of where slice s sits in the W tile
		poolDMA = append(poolDMA, Compiled("qPoolSpillReload0", k, poolSR, hwDesc("SB", "SB", src, g(k), []int64{512, 128}, sbSteps, []int64{512, 128}, sbSteps, "float32")))
		actDMA = append(actDMA, Compiled("qActSpillReload0", k, actSR, hwDesc("SB", "out", e(k), int64(k)*65536, []int64{512, 128}, sbSteps, []int64{512, 128}, []int64{1, 512}, "float32")))
	}
	for c := 0; c < 2; c++ {
		poolDMA = append(poolDMA, Compiled("qPoolIO0", c, poolIO, hwDesc("SB", "X_out", oSB+int64(c)*1680, int64(c)*215040, []int64{1680, 128}, sbSteps, []int64{1680, 128}, []int64{1, 1680}, "float32")))
	}
	var sp, pe, act, dve, pool strings.Builder
	for _, b := range []*strings.Builder{&sp, &pe, &act, &dve, &pool} {
		b.WriteString(Prologue("cayman"))
	}
	sp.WriteString(Trigger("qSPIO0", 0) + Trigger("qSPSpillReload0", 0) + Trigger("qSPIO0", 1) + TriggerAfter(64, 16, "qSPSpillReload0", 1) +
		Trigger("qSPIO0", 2) + TriggerAfter(57, 32, "qSPSpillReload0", 2) + Trigger("qSPIO0", 3) + Trigger("qSPIO0", 4) + Trigger("qSPIO0", 5) +
		Trigger("qSPIO0", 6) + TriggerAfter(66, 32, "qSPSpillReload0", 3) + TriggerAfter(59, 48, "qSPSpillReload0", 4) + Trigger("qSPIO0", 7))
	// Pool: the 36 slice copies, then the two stores
	for k := 0; k < 36; k++ {
		switch {
		case k < 8:
			pool.WriteString(TriggerAfter(8, 16, "qPoolSpillReload0", k))
			continue
		case k < 16:
			pool.WriteString(TriggerAfter(9, 16, "qPoolSpillReload0", k))
			continue
		case k == 18:
			pool.WriteString(Wait(13, 16, -1)) // W block 5
		case k == 27:
			pool.WriteString(Wait(14, 16, -1)) // W block 6
		}
		pool.WriteString(TriggerAfter(40+k%16, 16*(k/16), "qPoolSpillReload0", k))
	}
	pool.WriteString(TriggerAfter(6, 1, "qPoolIO0", 0) + TriggerAfter(6, 2, "qPoolIO0", 1) + nopWait(72, 16) + nopWait(73, 16))
	// PE: 18 transposes, 36 taps, 18 transposes, 36 taps
	pe.WriteString(Wait(24, 16, -1))
	act.WriteString(TableLoad())
	for c := 0; c < 2; c++ {
		for s := 0; s < 18; s++ {
			k := 18*c + s
			pe.WriteString(ldWeights(Ev{40 + k%16, 16 * (k/16 + 1), -1}, "FP32", g(k)))
			pe.WriteString(matmul(Ev{-1, 0, 2}, "FP32", ident, 128, psumT+int64(s)*512, "SINGLE"))
		}
		if c == 0 {
			pe.WriteString(Wait(10, 16, -1) + Wait(11, 16, -1))
		}
		for j := 0; j < 36; j++ {
			s := j / 2
			ev := NoEv
			if j%18 == 0 { // the reload of these 9 slices
				r := 1 + 2*c + s/9
				ev = Ev{24 + r, 16, -1}
			}
			pe.WriteString(ldWeights(ev, "FP32", rSB+int64(2*c+s/9)*4608+int64(s%9)*512))
			flags := "MULTI_MID"
			switch j {
			case 0:
				flags = "MULTI_START"
			case 35:
				flags = "MULTI_END"
			}
			pe.WriteString(matmul(Ev{-1, 0, 5}, "FP32", xSB+int64(s/9)*2048+int64(j%2)*64, 420, psumA+int64(c)*1680, flags))
		}
		// ACT: copy each transpose out of PSUM, spill it (9 copies first)
		for s := 0; s < 18; s++ {
			k := 18*c + s
			act.WriteString(copyWord(Ev{2, k + 1, -1}, "FP32", Pat{"psum", 0, psumT + int64(s)*512, []int64{1}, []int64{128}}, e(k), 128))
			if s >= 9 {
				act.WriteString(Trigger("qActSpillReload0", k-9))
			}
		}
		for s := 9; s < 18; s++ {
			act.WriteString(Trigger("qActSpillReload0", 18*c+s))
		}
	}
	dve.WriteString(Wait(12, 16, -1) + biasAdd(Ev{5, 36, 6}, "FP32", psumA, bSB, oSB, 420) +
		Wait(15, 16, -1) + biasAdd(Ev{5, 72, 6}, "FP32", psumA+1680, bSB+8, oSB+1680, 420))
	p := convProgram("t34", []Var{
		{Name: "X", Type: "input", Size: 524288},
		{Name: "W", Type: "input", Size: 2359296},
		{Name: "bias", Type: "input", Size: 1024},
		{Name: "out", Type: "virtual", Size: 2359296, BackingOff: 7864320, FabricPath: "main"},
		{Name: "X_out", Type: "output", Size: 430080},
	}, map[string]Queue{
		"qSPIO0":            {Owner: "sp", Type: "in", Set: spIO},
		"qSPSpillReload0":   {Owner: "sp", Type: "data", Set: spSR},
		"qPoolSpillReload0": {Owner: "pool", Type: "data", Set: poolSR},
		"qActSpillReload0":  {Owner: "act", Type: "data", Set: actSR},
		"qPoolIO0":          {Owner: "pool", Type: "in", Set: poolIO},
	}, sp.String(), spDMA, pe.String(), act.String(), dve.String(), pool.String(), poolDMA, actDMA...)
	return p
}

// HWConv2dF16 is hw-timing §4.5's conv2d_2_float16 (trn2, full size): X
// fp16 [1 256 224 224], W fp16 [256 256 3 3], bias fp16 [256], the DRAM
// scratch weight_tile_hbm (virtual, 1,179,648 B), output X_out fp16
// [1 256 222 222]. Queues qSPIO0 (SP, 8–23), qSPSpillReload0 (SP, 24–39),
// qPoolIO0 (Pool, 40–55). qSPIO0's 482 blocks in §4.5's order — W × 18, X
// × 14, bias, X × 16, W × 4, X × 16, W × 14, X × 38, bias, X × 360 — the
// W blocks copying one tap of 128 × 128 weights element by element into
// weight_tile_hbm (C1: sizes [2 128 128] steps [1 18 4608] → [1 2 256]),
// the X blocks 4 input rows of 128 channels ([1792 128] steps [1 100352]);
// the 36 reloads of weight_tile_hbm ([256 128 1 1] steps [1 256 256
// 32768]); the two stores of 128 output channels in two descriptors
// ([33032 128] and [65536 128], C6). SP as §4.5: W 0–15 unwaited, W 16,
// 17 after W 0, 1; reloads 0–15 after their W block, 16, 17 likewise; then
// every qSPIO0 block k after block k − 16, the other reloads each after
// its W block. Per output tile, ACT and DVE copy the 18 reloaded slices
// (ACT 16, DVE 20: 12 first, then 8 among the bias adds), PE runs 111 row
// pairs × 18 (LDWEIGHTS, MATMUL 128 × 444), DVE a bias add (TT 128 × 444)
// a row pair, +$S[6]; Pool stores after $S[6] ≥ 131 and ≥ 242. INFERRED:
// X rides in 16 SB slots, SP waiting (EVENT_SEMAPHORE) for PE to have
// consumed X block x − 16 ($S[3], +1 as PE ends each X block) — hw-timing
// counts SP's 356 waits as PE/DVE progress; which slices ACT copies.
func HWConv2dF16() *Program {
	const (
		nx   = 16
		x0   = 0
		bSB  = x0 + nx*1792
		rSB  = bSB + 64
		cSB  = rSB + 18*256
		oSB  = cSB + 36*256
		rows = 111 // output row pairs a tile
	)
	spIO, spSR, poolIO := SetOf(8), SetOf(24), SetOf(40)
	// qSPIO0's block kinds in id order (§4.5)
	var kinds []byte
	for _, run := range []struct {
		k byte
		n int
	}{{'W', 18}, {'X', 14}, {'b', 1}, {'X', 16}, {'W', 4}, {'X', 16}, {'W', 14}, {'X', 38}, {'b', 1}, {'X', 360}} {
		for i := 0; i < run.n; i++ {
			kinds = append(kinds, run.k)
		}
	}
	var io []Block
	wID := make([]int, 0, 36) // W slice w's block id
	xID := make([]int, 0, 2*2*rows)
	nb := 0
	for id, k := range kinds {
		switch k {
		case 'W':
			w := len(wID)
			c, s := w/18, w%18
			io = append(io, Compiled("qSPIO0", id, spIO, hwDesc("W", "weight_tile_hbm", int64(c)*128*4608+int64(s/9)*128*18+int64(s%9)*2, int64(w)*32768,
				[]int64{2, 128, 128}, []int64{1, 18, 4608}, []int64{2, 128, 128}, []int64{1, 2, 256}, "float16")))
			wID = append(wID, id)
		case 'X':
			x := len(xID)
			r, h := (x%(2*rows))/2, x%2
			io = append(io, Compiled("qSPIO0", id, spIO, hwDesc("X", "SB", int64(h)*128*100352+int64(2*r)*448, x0+int64(x%nx)*1792,
				[]int64{1792, 128}, []int64{1, 100352}, []int64{1792, 128}, sbSteps, "float16")))
			xID = append(xID, id)
		case 'b':
			io = append(io, Compiled("qSPIO0", id, spIO, hwDesc("bias", "SB", int64(nb)*256, bSB+int64(nb)*4, []int64{2, 128}, []int64{1, 2}, []int64{2, 128}, sbSteps, "float16")))
			nb++
		}
	}
	var sr []Block
	for k := 0; k < 36; k++ {
		sr = append(sr, Compiled("qSPSpillReload0", k, spSR, hwDesc("weight_tile_hbm", "SB", int64(k)*32768, rSB+int64(k%18)*256,
			[]int64{256, 128, 1, 1}, []int64{1, 256, 256, 32768}, []int64{256, 128}, sbSteps, "float16")))
	}
	var outs []Block
	for c := 0; c < 2; c++ {
		base := int64(c) * 128 * 98568
		outs = append(outs, Compiled("qPoolIO0", c, poolIO,
			hwDesc("SB", "X_out", oSB, base, []int64{33032, 128}, sbSteps, []int64{33032, 128}, []int64{1, 98568}, "float16"),
			hwDesc("SB", "X_out", oSB+33032, base+33032, []int64{65536, 128}, sbSteps, []int64{65536, 128}, []int64{1, 98568}, "float16")))
	}
	done := func(id int) (int, int) { return 8 + id%16, 16 * (id/16 + 1) } // $S and count once qSPIO0 block id is in
	reloaded := func(k int) Ev { return Ev{24 + k%16, 16 * (k/16 + 1), -1} }
	var sp, pe, act, dve, pool strings.Builder
	for _, b := range []*strings.Builder{&sp, &pe, &act, &dve, &pool} {
		b.WriteString(Prologue("cayman"))
	}
	for id := 0; id < 16; id++ {
		sp.WriteString(Trigger("qSPIO0", id))
	}
	sp.WriteString(TriggerAfter(8, 16, "qSPIO0", 16) + TriggerAfter(9, 16, "qSPIO0", 17))
	for k := 0; k < 18; k++ {
		s, v := done(wID[k])
		sp.WriteString(TriggerAfter(s, v, "qSPSpillReload0", k))
	}
	reloadAfter := map[int]int{} // qSPIO0 block id → the reload fired after it (its W block k − 16 is in by then)
	for w := 18; w < 36; w++ {
		reloadAfter[wID[w]+16] = w
	}
	x := 0
	for id := 18; id < len(kinds); id++ {
		if kinds[id] == 'X' {
			if x >= nx {
				sp.WriteString(Wait(3, x-nx+1, -1)) // its slot's last X consumed
			}
			x++
		}
		sp.WriteString(TriggerAfter(8+id%16, 16*(id/16), "qSPIO0", id))
		if w, ok := reloadAfter[id]; ok {
			s, v := done(wID[w])
			sp.WriteString(TriggerAfter(s, v, "qSPSpillReload0", w))
		}
	}
	// the slice copies: ACT 6 of tile 0's and 10 of tile 1's, DVE the rest
	onACT := func(c, s int) bool {
		if c == 0 {
			return s%3 == 2
		}
		return s%2 == 0 || s == 17
	}
	copied := map[int]Ev{}
	nACT, nDVE := 0, 0
	copySlice := func(k int) {
		src, dst := Pat{"sbuf", 0, rSB + int64(k%18)*256, []int64{1}, []int64{128}}, cSB+int64(k)*256
		ev := reloaded(k)
		if onACT(k/18, k%18) {
			ev.Inc = 4
			act.WriteString(copyWord(ev, "FP16", src, dst, 128))
			nACT++
			copied[k] = Ev{4, nACT, -1}
			return
		}
		ev.Inc = 6
		dve.WriteString(copyWord(ev, "FP16", src, dst, 128))
		nDVE++
		copied[k] = Ev{6, nDVE, -1}
	}
	act.WriteString(TableLoad())
	for k := 0; k < 36; k++ {
		if onACT(k/18, k%18) || k < 18 {
			copySlice(k)
		}
	}
	later := []int{} // tile 1's DVE copies, among tile 0's bias adds
	for k := 18; k < 36; k++ {
		if !onACT(1, k-18) {
			later = append(later, k)
		}
	}
	consumed := 0
	for c := 0; c < 2; c++ {
		for r := 0; r < rows; r++ {
			for h := 0; h < 2; h++ {
				xi := c*2*rows + 2*r + h
				s, v := done(xID[xi])
				pe.WriteString(Wait(s, v, -1))
				for t := 0; t < 9; t++ {
					k := 18*c + 9*h + t
					ev := NoEv
					if r == 0 {
						ev = copied[k]
					}
					pe.WriteString(ldWeights(ev, "FP16", cSB+int64(k)*256))
					mev := NoEv
					if t == 8 {
						mev = Ev{-1, 0, 3}
					}
					flags := "MULTI_MID"
					if h == 0 && t == 0 {
						flags = "MULTI_START"
					} else if h == 1 && t == 8 {
						flags = "MULTI_END"
					}
					pe.WriteString(matmul(mev, "FP16", x0+int64(xi%nx)*1792+int64(t%3)*2+int64(t/3)*448, 444, int64(r%2)*2048, flags))
				}
				consumed++
			}
			if r == 0 && c == 0 {
				dve.WriteString(Wait(8+32%16, 16*(32/16), -1)) // bias block 32
			}
			if r == 0 && c == 1 {
				dve.WriteString(Wait(8+121%16, 16*(121/16+1), -1)) // bias block 121
			}
			dve.WriteString(biasAdd(Ev{3, consumed, 6}, "FP16", int64(r%2)*2048, bSB+int64(c)*4, oSB+int64(r)*888, 444))
			nDVE++
			if c == 0 && r >= rows-1-len(later) && len(later) > 0 {
				copySlice(later[0])
				later = later[1:]
			}
		}
	}
	pool.WriteString(TriggerAfter(6, 131, "qPoolIO0", 0) + TriggerAfter(6, 242, "qPoolIO0", 1) + nopWait(40, 16) + nopWait(41, 16))
	if nACT != 16 || nDVE != 242 {
		panic(fmt.Sprintf("conv2d_2: ACT %d copies, DVE %d words: docs/hw-timing.md §4.5 counts 16 and 242", nACT, nDVE))
	}
	return convProgram("", []Var{
		{Name: "X", Type: "input", Size: 25690112},
		{Name: "W", Type: "input", Size: 1179648},
		{Name: "bias", Type: "input", Size: 512},
		{Name: "weight_tile_hbm", Type: "virtual", Size: 1179648, BackingOff: 7864320, FabricPath: "main"},
		{Name: "X_out", Type: "output", Size: 25233408},
	}, map[string]Queue{
		"qSPIO0":          {Owner: "sp", Type: "in", Set: spIO},
		"qSPSpillReload0": {Owner: "sp", Type: "data", Set: spSR},
		"qPoolIO0":        {Owner: "pool", Type: "in", Set: poolIO},
	}, sp.String(), append(io, sr...), pe.String(), act.String(), dve.String(), pool.String(), outs)
}
