package timing

import (
	"testing"

	"ndma/isa"
)

// The compute model at hw-timing §5's measured instruction times (exclusive
// medians, ns), each within the bound its scatter allows: the laws were
// fitted on these, so the bounds check the fit, and the sizes not in the
// fit (DVE TT 128 × 444, DVE COPY fp16) check the law.
func TestComputeTimes(t *testing.T) {
	trn2, trn1 := ComputeTrn2(), ComputeTrn1()
	tt := func(n int64, in, widest int) Size {
		return Size{Parts: 128, Elems: n, InBytes: in, Inputs: 2, MaxBytes: widest}
	}
	one := func(n int64, in, widest int) Size {
		return Size{Parts: 128, Elems: n, InBytes: in, Inputs: 1, MaxBytes: widest}
	}
	for _, tc := range []struct {
		name     string
		c        Compute
		engine   string
		op       isa.Opcode
		sz       Size
		measured float64
		within   float64 // fraction
	}{
		{"DVE TT 128×1000 fp32", trn2, "dve", 0x41, tt(1000, 4, 4), 1201, 0.02},
		{"DVE TT 128×420 fp16 (PSUM fp32 in)", trn2, "dve", 0x41, tt(420, 4, 4), 595, 0.02},
		{"DVE TT 128×420 fp32", trn2, "dve", 0x41, tt(420, 4, 4), 596, 0.02},
		{"DVE TT 128×444 fp16 (PSUM fp32 in; not fitted)", trn2, "dve", 0x41, tt(444, 4, 4), 621, 0.02},
		{"DVE COPY 128×128 fp16 SB→SB, contiguous (not fitted)", trn2, "dve", 0x46, one(128, 2, 2), 186, 0.05},
		{"trn1 DVE TT 128×1000 fp32", trn1, "dve", 0x41, tt(1000, 4, 4), 2017, 0.02},
		{"ACT COPY 128×128 fp32", trn2, "act", 0x46, one(128, 4, 4), 213, 0.02},
		{"ACT COPY 128×128 fp16", trn2, "act", 0x46, one(128, 2, 2), 657, 0.2}, // 567 and 748
		{"PE LDWEIGHTS fp32", trn2, "pe", 0x01, one(128, 4, 4), 26, 0.1},
		{"PE MATMUL 128×420 fp32", trn2, "pe", 0x02, one(420, 4, 4), 324, 0.03},
		{"PE MATMUL 128×128 fp32", trn2, "pe", 0x02, one(128, 4, 4), 125, 0.25}, // 109, 140
		{"ACTIVATION_TABLE_LOAD", trn2, "act", 0x23, Size{}, 1283, 0.01},
		{"SP trigger", trn2, "sp", 0xc1, Size{}, 100, 0.25},
	} {
		got := float64(tc.c.NS(tc.engine, tc.op, tc.sz))
		if d := (got - tc.measured) / tc.measured; d > tc.within || d < -tc.within {
			t.Errorf("%s: %v ns, measured %v (±%.0f %%)", tc.name, got, tc.measured, 100*tc.within)
		}
	}
	// An LDWEIGHTS + MATMUL pair, the PE's time per matmul: §5's five
	// measured pair sums (each exclusive median's sum), within 15 %.
	for _, p := range []struct {
		name     string
		in       int
		n        int64
		measured float64
	}{
		{"transpose fp32 128", 4, 128, 24.2 + 140.4},
		{"conv2d_3 fp32 128", 4, 128, 28.3 + 109.2},
		{"conv2d_3 fp32 420", 4, 420, 28.3 + 324.2},
		{"conv2d_4 fp16 420", 2, 420, 105.0 + 25.0},
		{"conv2d_2 fp16 444", 2, 444, 137.5 + 22.5},
	} {
		got := float64(trn2.NS("pe", 0x01, one(128, p.in, p.in)) + trn2.NS("pe", 0x02, one(p.n, p.in, p.in)))
		if d := (got - p.measured) / p.measured; d > 0.15 || d < -0.15 {
			t.Errorf("PE pair %s: %v ns, measured %v", p.name, got, p.measured)
		}
	}
	// one opcode, two engines: COPY 128 × 128 fp16 is slower on ACT than DVE (§2.7: 567 vs 186, 748 vs 448)
	if a, d := trn2.NS("ACT", 0x46, one(128, 2, 2)), trn2.NS("DVE", 0x46, one(128, 2, 2)); a <= d {
		t.Errorf("COPY on ACT %d ns, on DVE %d: want ACT slower", a, d)
	}
	// a word the model does not time (sizes unknown, not a known opcode): 0
	if got := trn2.NS("pool", 0xb8, Size{}); got != 0 {
		t.Errorf("DMA_MEMCPY: %d ns, want 0 (the DMA model's)", got)
	}
}

// The laws' shape, by hand from the constants (docs/sim.md "Compute
// time"): a DVE word streams each tensor input, a 16-bit contiguous SBUF
// copy or tensor_scalar twice as fast on trn2 (its performance mode) and
// not on trn1, an innermost step over 16 bytes half as fast; a
// MATMUL grows with its moving columns, an FP32 one 4 passes; an ACT word
// by the engine's clock.
func TestComputeLaws(t *testing.T) {
	trn2, trn1 := ComputeTrn2(), ComputeTrn1()
	for _, tc := range []struct {
		name   string
		c      Compute
		engine string
		op     isa.Opcode
		sz     Size
		want   int64
	}{
		// 156 + 0.5225 × 512 × 2 = 691.04
		{"trn2 DVE two inputs fp32 512", trn2, "dve", 0x41, Size{Parts: 128, Elems: 512, InBytes: 4, Inputs: 2, MaxBytes: 4}, 691},
		// 156 + 0.5225 × 512 = 423.52
		{"trn2 DVE one input fp32 512", trn2, "dve", 0x42, Size{Parts: 128, Elems: 512, InBytes: 4, Inputs: 1, MaxBytes: 4}, 424},
		// a 16-bit COPY or TENSOR_SCALAR, SBUF to SBUF, contiguous: performance mode, 156 + 0.5225 × 512 × 0.5 = 289.76
		{"trn2 DVE COPY bf16 512", trn2, "dve", 0x46, Size{Parts: 128, Elems: 512, InBytes: 2, Inputs: 1, MaxBytes: 2}, 290},
		{"trn2 DVE TENSOR_SCALAR bf16 512", trn2, "dve", 0x43, Size{Parts: 128, Elems: 512, InBytes: 2, Inputs: 1, MaxBytes: 2}, 290},
		// not in performance mode at its full rate: a reduction, a PSUM operand, a gap, Pool: 423.52
		{"trn2 DVE TENSOR_REDUCE bf16 512", trn2, "dve", 0x42, Size{Parts: 128, Elems: 512, InBytes: 2, Inputs: 1, MaxBytes: 2}, 424},
		{"trn2 DVE COPY bf16 512 from PSUM", trn2, "dve", 0x46, Size{Parts: 128, Elems: 512, InBytes: 2, Inputs: 1, MaxBytes: 2, PSUM: true}, 424},
		{"trn2 DVE COPY bf16 512 step 2", trn2, "dve", 0x46, Size{Parts: 128, Elems: 512, InBytes: 2, Inputs: 1, MaxBytes: 2, Gapped: true}, 424},
		{"trn2 Pool COPY bf16 512", trn2, "pool", 0x46, Size{Parts: 128, Elems: 512, InBytes: 2, Inputs: 1, MaxBytes: 2}, 552},
		// a 16-bit TENSOR_TENSOR: trn2's base rate, 156 + 0.5225 × 512 × 2 = 691.04
		{"trn2 DVE TT bf16 512", trn2, "dve", 0x41, Size{Parts: 128, Elems: 512, InBytes: 2, Inputs: 2, MaxBytes: 2}, 691},
		// no input (a fill) streams its output as one: 423.52
		{"trn2 DVE no input 512", trn2, "dve", 0x49, Size{Parts: 128, Elems: 512, InBytes: 4, MaxBytes: 4}, 424},
		// Pool (GpSimd): (150 + 512) / 1.2 = 551.67; two inputs (150 + 1024) / 1.2 = 978.33; trn1 (150 + 512) / 1.4 = 472.86
		{"trn2 Pool no input 512", trn2, "pool", 0x42, Size{Parts: 128, Elems: 512, InBytes: 4, MaxBytes: 4}, 552},
		{"trn2 Pool TT 512", trn2, "pool", 0x41, Size{Parts: 128, Elems: 512, InBytes: 4, Inputs: 2, MaxBytes: 4}, 978},
		{"trn1 Pool one input 512", trn1, "pool", 0x46, Size{Parts: 128, Elems: 512, InBytes: 4, Inputs: 1, MaxBytes: 4}, 473},
		// trn1: 156 + (2017 − 156) / 2000 × 512 = 632.416; bf16 the same
		{"trn1 DVE one input bf16 512", trn1, "dve", 0x42, Size{Parts: 128, Elems: 512, InBytes: 2, Inputs: 1, MaxBytes: 2}, 632},
		// 42 + 0.169 × 512 = 128.528
		{"trn2 MATMUL bf16 512", trn2, "pe", 0x02, Size{Parts: 128, Elems: 512, InBytes: 2, Inputs: 1, MaxBytes: 4}, 129},
		// 42 + 0.169 × 64 = 52.816
		{"trn2 MATMUL bf16 64", trn2, "pe", 0x02, Size{Parts: 128, Elems: 64, InBytes: 2, Inputs: 1, MaxBytes: 4}, 53},
		// 42 + 0.169 × 4 × 512 = 388.112
		{"trn2 MATMUL fp32 512", trn2, "pe", 0x02, Size{Parts: 128, Elems: 512, InBytes: 4, Inputs: 1, MaxBytes: 4}, 388},
		{"trn2 LDWEIGHTS bf16", trn2, "pe", 0x01, Size{Parts: 128, Elems: 128, InBytes: 2, Inputs: 1, MaxBytes: 2}, 26},
		// 106 + 2048 / 1.2 = 1812.67; trn1 106 + 2048 / 1.4 = 1568.86
		{"trn2 ACT fp32 2048", trn2, "act", 0x21, Size{Parts: 128, Elems: 2048, InBytes: 4, Inputs: 1, MaxBytes: 4}, 1813},
		{"trn1 ACT fp32 2048", trn1, "act", 0x21, Size{Parts: 128, Elems: 2048, InBytes: 4, Inputs: 1, MaxBytes: 4}, 1569},
		// narrow input: an ACTIVATE at the guide's rate, 106 + 128 / 1.2 = 212.67; a COPY × 5.2 (measured): 106 + 5.2 × 128 / 1.2 = 660.67
		{"trn2 ACT ACTIVATE bf16 128", trn2, "act", 0x21, Size{Parts: 128, Elems: 128, InBytes: 2, Inputs: 1, MaxBytes: 2}, 213},
		{"trn2 ACT COPY fp16 128", trn2, "act", 0x46, Size{Parts: 128, Elems: 128, InBytes: 2, Inputs: 1, MaxBytes: 2}, 661},
		// the NKI ISA reference's half-cost cases (Size.Half, DVE only): 156 + 0.5225 × 512 / 2 = 289.76; Pool's law ignores it
		{"trn2 DVE TENSOR_REDUCE bf16 add 512", trn2, "dve", 0x42, Size{Parts: 128, Elems: 512, InBytes: 2, Inputs: 1, MaxBytes: 2, Half: true}, 290},
		{"trn2 Pool MEMSET zero fp16 512", trn2, "pool", 0x49, Size{Parts: 128, Elems: 512, InBytes: 2, MaxBytes: 2, Half: true}, 552},
		// an innermost step over 16 bytes streams at half speed: 156 + 0.5225 × 512 × 2 = 691.04
		{"trn2 DVE COPY bf16 512 step 9", trn2, "dve", 0x46, Size{Parts: 128, Elems: 512, InBytes: 2, Inputs: 1, MaxBytes: 2, Gapped: true, Strided: true}, 691},
		// 106 + 2 × 2048 / 1.2 = 3519.33
		{"trn2 ACT fp32 2048 strided", trn2, "act", 0x21, Size{Parts: 128, Elems: 2048, InBytes: 4, Inputs: 1, MaxBytes: 4, Strided: true}, 3519},
		// the PE's moving stream is not slowed (the guide's rule is the SBUF/PSUM interfaces of DVE, ACT, Pool): 128.528
		{"trn2 MATMUL bf16 512 strided", trn2, "pe", 0x02, Size{Parts: 128, Elems: 512, InBytes: 2, Inputs: 1, MaxBytes: 4, Strided: true}, 129},
	} {
		if got := tc.c.NS(tc.engine, tc.op, tc.sz); got != tc.want {
			t.Errorf("%s: %d ns, by hand %d", tc.name, got, tc.want)
		}
	}
}
