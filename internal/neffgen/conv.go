package neffgen

import (
	"fmt"
	"math"
	"strings"

	"ndma/neff"
)

// Synthetic NEFFs whose compute words compute (docs/compute.md): a conv
// layer of matmuls (PE) → bias and activation (ACT) → 2 × 2 max-pool (DVE),
// and one small kernel per remaining compute opcode. Each is DMA in on SP's
// qSPIO0 (one block per input variable, semaphores 8…, each ≥ 16 when its
// block is in), compute words, DMA out on Pool's qPoolIO0 (one block per
// output, semaphores 24…) fired once the last compute word incremented
// $S[6], then NOPs waiting for every output block. Every variable is
// [128, bytes] row-major: row p is SB partition p's bytes at the tile's
// offset. The data is the caller's (device.Load's inputs).

// Semaphores the compute engines count on (the DMA queues own 8… and 24…).
const (
	semPE   = 2 // PE's last MATMUL → ACT
	semACT  = 3 // ACT → DVE
	semDone = 6 // the last compute word → Pool's output blocks
)

// tile is one variable of a kernel: name, bytes per partition (the
// variable holds 128 rows of them), its SB offset, and its DMA dtype
// ("float32", "float16", …; bytes are moved as they are).
type tile struct {
	Name  string
	Bytes int64
	SB    int64
	DType string
}

// ioKernel is the one-subgraph NEFF of target that loads ins (SP qSPIO0
// block i, semaphore 8+i), runs the streams en (engine key → assembly;
// the last compute word increments $S[semDone]), then stores outs (Pool
// qPoolIO0 block i after $S[semDone] ≥ 1, semaphore 24+i) and waits for
// them.
func ioKernel(target string, ins, outs []tile, en map[string]string) *Program {
	spSet, poolSet := SetOf(8), SetOf(24)
	sb := []int64{1, neff.SBPartitionStride}
	desc := func(t tile, in bool) neff.Desc {
		d := neff.Desc{From: t.Name, To: "SB", ToOff: t.SB, FromSizes: []int64{t.Bytes, 128}, FromSteps: []int64{1, t.Bytes}, ToSizes: []int64{t.Bytes, 128}, ToSteps: sb}
		if !in {
			d = neff.Desc{From: "SB", To: t.Name, FromOff: t.SB, FromSizes: []int64{t.Bytes, 128}, FromSteps: sb, ToSizes: []int64{t.Bytes, 128}, ToSteps: []int64{1, t.Bytes}}
		}
		d.Op, d.FromDtype, d.ToDtype, d.NumTilingDimensions = "copy", t.DType, t.DType, 1
		return d
	}
	vars := []Var{{Name: "SB", Type: "state-buffer"}}
	var spIn, poolOut []Block
	var sp, pool strings.Builder
	for i, t := range ins {
		vars = append(vars, Var{Name: t.Name, Type: "input", Size: 128 * t.Bytes})
		spIn = append(spIn, Compiled("qSPIO0", i, spSet, desc(t, true)))
		sp.WriteString(Trigger("qSPIO0", i))
	}
	for i, t := range outs {
		vars = append(vars, Var{Name: t.Name, Type: "output", Size: 128 * t.Bytes})
		poolOut = append(poolOut, Compiled("qPoolIO0", i, poolSet, desc(t, false)))
		pool.WriteString(TriggerAfter(semDone, 1, "qPoolIO0", i))
	}
	for i := range outs {
		pool.WriteString(EventWord(opNOP, waitGE, poolSet[i], -1, 16))
	}
	engines := []Engine{{Key: "sp", Manifest: "SP.json", Instr: "SP.bin", Asm: sp.String(), DMA: spIn}}
	for _, k := range []string{"pe", "act", "dve"} {
		if src, ok := en[k]; ok {
			engines = append(engines, Engine{Key: k, Manifest: engineFile[k] + ".json", Instr: engineFile[k] + ".bin", Asm: src})
		}
	}
	engines = append(engines, Engine{Key: "pool", Manifest: "Pool.json", Instr: "Pool.bin", Asm: pool.String(), DMA: poolOut})
	return &Program{Target: target, Subgraphs: []Graph{{
		Name: "sg00",
		Vars: vars,
		Queues: map[string]Queue{
			"qSPIO0":   {Owner: "sp", Type: "in", Set: spSet},
			"qPoolIO0": {Owner: "pool", Type: "in", Set: poolSet},
		},
		Engines: engines,
		Def:     map[string]any{"runtime_statebuffer_reservation": reservation(target)},
	}}}
}

var engineFile = map[string]string{"pe": "PE", "act": "Activation", "dve": "DVE"}

// waitIns is the EVENT_SEMAPHORE words that wait for every input block
// (≥ 16 on $S[8+i]), two a word (the second wait block).
func waitIns(n int) string {
	var b strings.Builder
	for i := 0; i < n; i += 2 {
		var f []string
		if i+1 < n {
			f = append(f, fmt.Sprintf("wait2_mode=WAIT_FOR_SEM_GE_IMM, wait2_idx=%d, wait2_value=16", 8+i+1))
		}
		b.WriteString(Word("event_semaphore", Ev{8 + i, 16, -1}, f...))
	}
	return b.String()
}

// f32Bits is x's FP32 bits in hex, as an immediate field holds them.
func f32Bits(x float32) string { return fmt.Sprintf("%#x", math.Float32bits(x)) }

// ConvDType is a Conv2D data type: FP32 (two-pass matmuls) or FP16.
type ConvDType int

// The conv data types.
const (
	ConvFP32 ConvDType = iota
	ConvFP16
)

func (d ConvDType) size() int64 { return map[ConvDType]int64{ConvFP32: 4, ConvFP16: 2}[d] }
func (d ConvDType) asm() string { return map[ConvDType]string{ConvFP32: "FP32", ConvFP16: "FP16"}[d] }
func (d ConvDType) dma() string {
	return map[ConvDType]string{ConvFP32: "float32", ConvFP16: "float16"}[d]
}

// The Conv2D shape: ConvK tiles of 128 input channels, 128 output
// channels, an image of ConvH × ConvW positions (ConvN) pooled 2 × 2 to
// ConvPooled.
const (
	ConvK      = 3
	ConvH      = 8
	ConvW      = 32
	ConvN      = ConvH * ConvW
	ConvPooled = ConvN / 4
)

// SB offsets of Conv2D's tiles (each partition).
const (
	convX    = 0      // x: ConvK tiles of ConvN elements
	convW    = 0x1000 // w: ConvK tiles of 128 elements
	convBias = 0x2000 // bias: one FP32
	convY    = 0x3000 // ACT's output: ConvN elements
	convZ    = 0x4000 // the pooled output: ConvPooled elements
)

// Conv2D is a 1 × 1 convolution as PE matmuls with bias, activation and a
// 2 × 2 max-pool, on target ("cayman" or "sunda"), of data type dt:
//
//   - inputs x [ConvK·128, ConvN] (input channel ci = 128k + p, position
//     n = ConvW·h + w), w [ConvK·128, 128] (W[ci][co]) of dt, and bias
//     [128] FP32 (its 128 values as one [128, 4-byte] variable: row co is
//     partition co's) — one qSPIO0 block (semaphore 8) of 2·ConvK + 1
//     descriptors: x tile k and w tile k into SB partition p, bias into
//     partition co;
//   - PE, after $S[8] ≥ 16, per tile k: LDWEIGHTS of w tile k read
//     backwards (element i → column 127 − i: W[k][c] = w[128k+p][c]) and
//     MATMUL of x tile k into PSUM partition co, offset 0, ConvN FP32
//     cells: MULTI_START on the first, MULTI_MID after, MULTI_END on the
//     last. FP32 runs each tile as two passes — LDWEIGHTS fp32_mode=LOW,
//     MATMUL LOW_HIGH, LDWEIGHTS HIGH, MATMUL LOW_HIGH — and only the first
//     pass of tile 0 starts the group. The last MATMUL increments $S[2];
//   - ACT, after $S[2] ≥ 1: ACTIVATE y = F(psum + bias[co]) (bias a
//     per-partition FP32 pointer, scale 1.0; F identity 0x01, or relu
//     0x02 when relu), PSUM FP32 → SB dt; increments $S[3];
//   - DVE, after $S[3] ≥ 1: TENSOR_REDUCE MAX over XY of src num
//     [2, 2, ConvW/2, ConvH/2], steps [1, ConvW, 2, 2·ConvW] — each
//     output (i, j) the max of rows 2i, 2i+1 and columns 2j, 2j+1 — into
//     z [128, ConvPooled] of dt (element (ConvW/2)·i + j); increments $S[6];
//   - Pool stores z to the output out [128, ConvPooled] of dt.
//
// So out[co][(ConvW/2)i+j] = max over the window of F(Σ_ci w[ci][co]·x[ci][n] + bias[co]).
func Conv2D(target string, dt ConvDType, relu bool) *Program {
	es := dt.size()
	sb := []int64{1, neff.SBPartitionStride}
	var descs []neff.Desc
	d := func(from string, fromOff, bytes, to int64, dtype string) neff.Desc {
		return neff.Desc{From: from, To: "SB", FromOff: fromOff, ToOff: to, FromSizes: []int64{bytes, 128}, FromSteps: []int64{1, bytes},
			ToSizes: []int64{bytes, 128}, ToSteps: sb, Op: "copy", FromDtype: dtype, ToDtype: dtype, NumTilingDimensions: 1}
	}
	for k := int64(0); k < ConvK; k++ {
		descs = append(descs, d("x", k*128*ConvN*es, ConvN*es, convX+k*ConvN*es, dt.dma()),
			d("w", k*128*128*es, 128*es, convW+k*128*es, dt.dma()))
	}
	descs = append(descs, d("bias", 0, 4, convBias, "float32"))

	sunda := target == "sunda"
	pe := "num_active_rows=128, num_active_cols=128, row_grp=15, col_grp=15"
	lwX, mmX := "", ""
	if sunda { // the SUNDA words' xbus_sel (docs/compute.md §3, §4)
		lwX, mmX = ", xbus_sel=0x0f", ", xbus_sel=0x10"
		if dt == ConvFP32 {
			lwX = ", xbus_sel=0x02"
		}
	}
	psum := Pat{"psum", 0, 0, []int64{1}, []int64{ConvN}}
	var peS strings.Builder
	for k := int64(0); k < ConvK; k++ {
		weights := Pat{"sbuf", 0, convW + k*128*es + 127*es, []int64{-1}, []int64{128}}
		moving := Pat{"sbuf", 0, convX + k*ConvN*es, []int64{1}, []int64{ConvN}}
		wait := NoEv
		if k == 0 {
			wait = Ev{8, 16, -1}
		}
		passes := []string{"NONE"}
		if dt == ConvFP32 {
			passes = []string{"LOW", "HIGH"}
		}
		for pass, mode := range passes {
			flags := "MULTI_MID"
			switch {
			case k == 0 && pass == 0:
				flags = "MULTI_START"
			case k == ConvK-1 && pass == len(passes)-1:
				flags = "MULTI_END"
			}
			mmMode := "NONE"
			if dt == ConvFP32 {
				mmMode = "LOW_HIGH"
			}
			ev := NoEv
			if k == ConvK-1 && pass == len(passes)-1 {
				ev = Ev{-1, 0, semPE}
			}
			peS.WriteString(Word("ldweights", wait, weights.Arg("src_mem_pattern", 3), "in_dtype="+dt.asm(), "fp32_mode="+mode, pe+lwX))
			peS.WriteString(Word("matmul", ev, moving.Arg("src_mem_pattern", 3), "in_dtype="+dt.asm(), "fp32_mode="+mmMode, pe+mmX,
				"psum_accumulate_flags="+flags, psum.Arg("dst_mem_pattern", 3)))
			wait = NoEv
		}
	}
	fn := "0x01"
	if relu {
		fn = "0x02"
	}
	act := Word("activate", Ev{semPE, 1, semACT}, psum.Arg("src_mem_pattern", 3),
		"in_dtype=FP32, bias_dtype=FP32, out_dtype="+dt.asm(), "bias_src_n=POINTER_IMMEDIATE", fmt.Sprintf("bias=%#x", convBias),
		"num_active_channels=128, activation_func="+fn, "scale_value="+f32Bits(1),
		Row(convY, ConvN).Arg("dst_mem_pattern", 3))
	pool := Pat{"sbuf", 0, convY, []int64{1, ConvW, 2, 2 * ConvW}, []int64{2, 2, ConvW / 2, ConvH / 2}}
	dve := Word("tensor_reduce", Ev{semACT, 1, semDone}, pool.Arg("src_mem_pattern", 4),
		"in_dtype="+dt.asm(), "out_dtype="+dt.asm(), "num_active_channels=128, op=MAX, op_dim=XY",
		Row(convZ, ConvPooled).Arg("dst_mem_pattern", 4))

	p := ioKernel(target, nil, []tile{{"out", ConvPooled * es, convZ, dt.dma()}}, map[string]string{"pe": peS.String(), "act": act, "dve": dve})
	g := &p.Subgraphs[0]
	g.Vars = append(g.Vars[:1], append([]Var{
		{Name: "x", Type: "input", Size: ConvK * 128 * ConvN * es},
		{Name: "w", Type: "input", Size: ConvK * 128 * 128 * es},
		{Name: "bias", Type: "input", Size: 128 * 4},
	}, g.Vars[1:]...)...)
	g.Engines[0].Asm = Trigger("qSPIO0", 0)
	g.Engines[0].DMA = []Block{Compiled("qSPIO0", 0, SetOf(8), descs...)}
	return p
}

// ComputeTensorTensor is TENSOR_TENSOR with broadcasts, on DVE: inputs a
// [128, 512] FP32 (a 8 × 64 image per partition, SB 0), c [128, 1] FP32
// (SB 0x1000) and r [128, 64] FP16 (SB 0x2000); after both input waits
// (EVENT_SEMAPHORE), t = a + c[p] (src1 step 0: c broadcast along the
// partition's row) into SB 0x3000, then out = t · r (FP32 × FP16 → FP32;
// src1 num [64, 8] steps [1, 0]: r broadcast over the 8 rows) into SB
// 0x4000, stored to out [128, 512] FP32.
func ComputeTensorTensor(target string) *Program {
	add := Word("tensor_tensor", NoEv, "dtype_lo=FP32, dtype_hi=FP32, out_dtype=FP32, op=ADD, num_active_channels=128",
		Row(0, 512).Arg("src0_mem_pattern", 3), Pat{"sbuf", 0, 0x1000, []int64{0}, []int64{512}}.Arg("src1_mem_pattern", 3),
		Row(0x3000, 512).Arg("dst_mem_pattern", 3))
	mul := Word("tensor_tensor", Ev{-1, 0, semDone}, "dtype_lo=FP32, dtype_hi=FP16, out_dtype=FP32, op=MULT, num_active_channels=128",
		Row(0x3000, 512).Arg("src0_mem_pattern", 3), Pat{"sbuf", 0, 0x2000, []int64{1, 0}, []int64{64, 8}}.Arg("src1_mem_pattern", 3),
		Row(0x4000, 512).Arg("dst_mem_pattern", 3))
	ins := []tile{{"a", 2048, 0, "float32"}, {"c", 4, 0x1000, "float32"}, {"r", 128, 0x2000, "float16"}}
	return ioKernel(target, ins, []tile{{"out", 2048, 0x4000, "float32"}}, map[string]string{"dve": waitIns(len(ins)) + add + mul})
}

// ComputeTensorScalar is TENSOR_SCALAR with immediate and pointer scalars:
// inputs x [128, 256] FP32 (SB 0) and s [128, 1] FP32 (SB 0x1000); DVE
// computes y = x·2.5 + (−0.75) (op0 MULT, op1 ADD, immediates) into SB
// 0x2000 and increments $S[3]; ACT, after $S[3] ≥ 1, computes
// z = max(s[p] − y, 0) (op0 SUBTRACT with reverse_operands FIRST and imm0
// a pointer to s, op1 MAX with the immediate 0) as FP16 into SB 0x3000.
// Outputs y [128, 256] FP32 and z [128, 256] FP16.
func ComputeTensorScalar(target string) *Program {
	ts := func(ev Ev, src, dst int64, outDT string, ops ...string) string {
		return Word("tensor_scalar", ev, Row(src, 256).Arg("src_mem_pattern", 3), "in_dtype=FP32, out_dtype="+outDT+", num_active_channels=128",
			strings.Join(ops, ", "), Row(dst, 256).Arg("dst_mem_pattern", 3))
	}
	dve := waitIns(2) + ts(Ev{-1, 0, semACT}, 0, 0x2000, "FP32", "op0=MULT, op1=ADD", "imm0="+f32Bits(2.5), "imm1="+f32Bits(-0.75))
	act := ts(Ev{semACT, 1, semDone}, 0x2000, 0x3000, "FP16", "imm0_src=POINTER_IMMEDIATE, op0=SUBTRACT, reverse_operands=FIRST, imm0=0x1000",
		"op1=MAX, imm1_src=INSTRUCTION_IMMEDIATE, imm1=0x0")
	return ioKernel(target, []tile{{"x", 1024, 0, "float32"}, {"s", 4, 0x1000, "float32"}},
		[]tile{{"y", 1024, 0x2000, "float32"}, {"z", 512, 0x3000, "float16"}}, map[string]string{"dve": dve, "act": act})
}

// ComputeCopy is COPY through patterns: inputs h [128, 256] FP16 (SB 0) and
// g [128, 128] of 4-byte words (SB 0x1000); DVE copies h de-interleaved
// (src num [128, 2] steps [2, 1]: o16[p][128j + i] = h[p][2i + j]) into
// SB 0x2000 and increments $S[3]; ACT, after $S[3] ≥ 1, copies g's words
// as INT32 in reverse (src from element 127, step −1: o32[p][i] =
// g[p][127 − i], bit for bit) into SB 0x3000. Outputs o16 [128, 256] FP16
// and o32 [128, 128] 4-byte words.
func ComputeCopy(target string) *Program {
	cp := func(ev Ev, dt string, src Pat, dst int64, n int64) string {
		return Word("copy", ev, src.Arg("src_mem_pattern", 4), "in_dtype="+dt+", out_dtype="+dt+", num_active_channels=128",
			Row(dst, n).Arg("dst_mem_pattern", 4))
	}
	dve := waitIns(2) + cp(Ev{-1, 0, semACT}, "FP16", Pat{"sbuf", 0, 0, []int64{2, 1}, []int64{128, 2}}, 0x2000, 256)
	act := cp(Ev{semACT, 1, semDone}, "INT32", Pat{"sbuf", 0, 0x1000 + 127*4, []int64{-1}, []int64{128}}, 0x3000, 128)
	return ioKernel(target, []tile{{"h", 512, 0, "float16"}, {"g", 512, 0x1000, "int32"}},
		[]tile{{"o16", 512, 0x2000, "float16"}, {"o32", 512, 0x3000, "int32"}}, map[string]string{"dve": dve, "act": act})
}

// ComputeCast is CAST: input x [128, 256] FP32 (SB 0); ACT casts it to FP16
// (round to nearest even) into SB 0x1000 and increments $S[3]; DVE, after
// $S[3] ≥ 1, casts that back to FP32 (exact) into SB 0x2000. Outputs
// y16 [128, 256] FP16 and y32 [128, 256] FP32.
func ComputeCast(target string) *Program {
	cast := func(ev Ev, in, out string, src, dst int64) string {
		return Word("cast", ev, Row(src, 256).Arg("src_mem_pattern", 4), "in_dtype="+in+", out_dtype="+out+", num_active_channels=128",
			Row(dst, 256).Arg("dst_mem_pattern", 4))
	}
	act := waitIns(1) + cast(Ev{-1, 0, semACT}, "FP32", "FP16", 0, 0x1000)
	dve := cast(Ev{semACT, 1, semDone}, "FP16", "FP32", 0x1000, 0x2000)
	return ioKernel(target, []tile{{"x", 1024, 0, "float32"}},
		[]tile{{"y16", 512, 0x1000, "float16"}, {"y32", 1024, 0x2000, "float32"}}, map[string]string{"dve": dve, "act": act})
}

// ComputeMemset is MEMSET over loaded data: input x [128, 256] FP32 (SB 0);
// DVE fills every even element of all 128 partitions with 1.5 (FP32 fill
// 0x3fc00000, step 2, 128 elements), then zeroes elements 240…255 of
// partitions 32…95 only (start partition 32, num_active_channels 64).
// Output out [128, 256] FP32: x with those elements replaced.
func ComputeMemset(target string) *Program {
	ms := func(ev Ev, fill float32, n int64, ch int, dst Pat) string {
		return Word("memset", ev, fmt.Sprintf("dst_element_count=%d, dtype=FP32, num_active_channels=%d, fill_value=%s", n, ch, f32Bits(fill)),
			dst.Arg("dst_mem_pattern", 4))
	}
	dve := waitIns(1) + ms(NoEv, 1.5, 128, 128, Pat{"sbuf", 0, 0, []int64{2}, []int64{128}}) +
		ms(Ev{-1, 0, semDone}, 0, 16, 64, Pat{"sbuf", 32, 240 * 4, []int64{1}, []int64{16}})
	return ioKernel(target, []tile{{"x", 1024, 0, "float32"}}, []tile{{"out", 1024, 0, "float32"}}, map[string]string{"dve": dve})
}

// ComputeEventSemaphore is EVENT_SEMAPHORE's second wait: inputs a and b
// [128, 256] FP32 into SB 0 and 0x1000 — a by SP (qSPIO0 block 0,
// semaphore 8), then SP's block 1 loads pad ([128, 16384] bytes, into SB
// 0x8000: a transfer that takes a while; semaphore 9), and b comes by Pool
// (qPoolIn0 block 0, semaphore 40) only once pad is in ($S[9] ≥ 16).
// DVE's EVENT_SEMAPHORE waits $S[8] ≥ 16 (a) in its EVENTS and $S[40] ≥ 16
// (b) in its second wait block (wait2_mode, wait2_idx, wait2_value), then
// TENSOR_TENSOR out = a − b into SB 0x2000. Output out [128, 256] FP32:
// a − b only if the second wait held the subtraction until b was in — the
// EVENTS wait alone holds once a is in, before Pool fires b. With second
// false the word has no second wait: the negative control.
func ComputeEventSemaphore(target string, second bool) *Program {
	wait2 := "wait2_mode=WAIT_FOR_SEM_GE_IMM, wait2_idx=40, wait2_value=16"
	if !second {
		wait2 = "wait2_mode=NONE"
	}
	dve := Word("event_semaphore", Ev{8, 16, -1}, wait2) +
		Word("tensor_tensor", Ev{-1, 0, semDone}, "dtype_lo=FP32, dtype_hi=FP32, out_dtype=FP32, op=SUBTRACT, num_active_channels=128",
			Row(0, 256).Arg("src0_mem_pattern", 3), Row(0x1000, 256).Arg("src1_mem_pattern", 3), Row(0x2000, 256).Arg("dst_mem_pattern", 3))
	p := ioKernel(target, []tile{{"a", 1024, 0, "float32"}, {"pad", 16384, 0x8000, "float32"}, {"b", 1024, 0x1000, "float32"}},
		[]tile{{"out", 1024, 0x2000, "float32"}}, map[string]string{"dve": dve})
	g := &p.Subgraphs[0]
	sp, pool := &g.Engines[0], &g.Engines[len(g.Engines)-1]
	bIn := Compiled("qPoolIn0", 0, SetOf(40), sp.DMA[2].Desc...)
	sp.DMA, sp.Asm = sp.DMA[:2], Trigger("qSPIO0", 0)+Trigger("qSPIO0", 1)
	pool.DMA = append(pool.DMA, bIn)
	pool.Asm = TriggerAfter(9, 16, "qPoolIn0", 0) + pool.Asm
	g.Queues["qPoolIn0"] = Queue{Owner: "pool", Type: "in", Set: SetOf(40)}
	return p
}

// ComputeActivateTrn1 is ACTIVATE as the trn1 (SUNDA) kernels use it, on a
// "sunda" NEFF: inputs x [128, 1152] FP32 (SB 0), v [128, 256] FP32 (SB
// 0x2000) and sc [128, 1] FP32 (SB 0x3000); ACT's first ACTIVATE is the
// weight reshuffle with a casting eviction — function 0x80 (copy), imm_src
// POINTER_IMMEDIATE, bias the immediate 0.0, scale 1.0 — reading
// src num [128, 3] steps [9, 1] (3 × 128 elements with step 9) into 384
// contiguous FP16 at SB 0x4000: o16[p][128j + i] = x[p][9i + j]; the
// second is relu(sc[p]·v − 0.25) with scale a per-partition pointer
// (scale_src POINTER_IMMEDIATE → sc) and bias the immediate −0.25, FP32
// into SB 0x5000. Outputs o16 [128, 384] FP16 and y [128, 256] FP32.
func ComputeActivateTrn1() *Program {
	reshuffle := Word("activate", NoEv, "imm_src=POINTER_IMMEDIATE, bias_src_n=INSTRUCTION_IMMEDIATE",
		Pat{"sbuf", 0, 0, []int64{9, 1}, []int64{128, 3}}.Arg("src_mem_pattern", 3),
		"in_dtype=FP32, bias_dtype=FP32, out_dtype=FP16, num_active_channels=128, activation_func=0x80",
		"scale_value="+f32Bits(1), "bias=0x0", Row(0x4000, 384).Arg("dst_mem_pattern", 3))
	relu := Word("activate", Ev{-1, 0, semDone}, "scale_src=POINTER_IMMEDIATE, bias_src_n=INSTRUCTION_IMMEDIATE",
		Row(0x2000, 256).Arg("src_mem_pattern", 3), "in_dtype=FP32, bias_dtype=FP32, out_dtype=FP32, num_active_channels=128, activation_func=0x02",
		"scale_value=0x3000", "bias="+f32Bits(-0.25), Row(0x5000, 256).Arg("dst_mem_pattern", 3))
	return ioKernel("sunda", []tile{{"x", 1152 * 4, 0, "float32"}, {"v", 1024, 0x2000, "float32"}, {"sc", 4, 0x3000, "float32"}},
		[]tile{{"o16", 768, 0x4000, "float16"}, {"y", 1024, 0x5000, "float32"}}, map[string]string{"act": waitIns(3) + reshuffle + relu})
}
