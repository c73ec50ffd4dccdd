package timing

import (
	"fmt"

	"ndma/internal/compute"
	"ndma/isa"
)

// The compute model (issue 32, C5): how long an engine's instruction holds
// the engine — the exclusive time of hw-timing §2.7 and §5, the
// serial-equivalent increment an in-order engine needs — from the engine,
// the opcode and the sizes its access patterns give. Laws, not one number
// per opcode name: a DVE word's time grows with its elements per
// partition; MATMUL's with its moving columns and their passes; each
// constant says which measurements it comes from (RATIONALE.md: fitted or
// measured).

// Opcodes the model times (docs/compute.md §1; isa's catalog).
const (
	opLdWeights      isa.Opcode = 0x01
	opMatmul         isa.Opcode = 0x02
	opActTableLoad   isa.Opcode = 0x23
	opEventSemaphore isa.Opcode = 0xa0
	opNop            isa.Opcode = 0xa4
	opSetOrdering    isa.Opcode = 0xb1
	opBranchLabel    isa.Opcode = 0xcc
	opTrigger        isa.Opcode = 0xc1
)

// Size is what a compute word works on: its access patterns resolved by
// compute.SizeOf (partitions, elements per partition, first operand's and
// widest element bytes, tensor inputs read).
type Size = compute.Size

// Compute are one generation's compute constants (ns). The laws follow
// the NKI architecture guide's cost model (docs/sim.md "Compute time"):
// a DVE word streams its inputs' elements, one input ~N cycles and two
// ~2N; an ACT word N cycles of its one input; a MATMUL's initiation
// interval grows with its moving columns, FP32 slower; a LoadStationary
// is short. The constants are fitted on hw-timing §5's measured times.
type Compute struct {
	Gen, Source string
	// VectorFixedNS + VectorReadNS × elements per partition × tensor
	// inputs (at least one) is a DVE word's time; Vector16
	// scales the streaming part of a DVE word in trn2's performance mode
	// (perfMode). INFERRED fit of hw-timing §5's DVE TENSOR_TENSOR (trn2,
	// two inputs, PSUM fp32 or SB fp32 in): 128 × 1000 1201 ns, 128 × 420
	// 595/596, 128 × 444 621 → 156 + 2 × 0.5225 n (all three within 1 %):
	// N cycles at 0.96 GHz, the Trainium2 guide's Vector Engine reading
	// 256 elements a cycle (2 a lane; NeuronCore-v2's "2N cycles" of two
	// inputs at 1 a lane). Vector16 0.5: the guide's 512 BF16/FP16
	// elements a cycle, "a 4x throughput lift compared to NeuronCore-v2"
	// for a 16-bit copy or tensor_scalar, SBUF to SBUF, contiguous. trn1:
	// 128 × 1000 fp32 2017 ns, the fixed part carried over → 0.9305 a read
	// (the guide: 1 a lane a cycle at 1.12 GHz, 0.893), no performance
	// mode (Vector16 1).
	VectorFixedNS, VectorReadNS, Vector16 float64
	// ActFixedNS + ActElemNS × elements is an ACT word's time on fp32 data,
	// ActNarrow times the per-element part of a COPY or CAST on narrower
	// input (the words it was measured on; an ACTIVATE keeps the guide's
	// rate, "automatic zero-overhead input and output casting"). ActElemNS:
	// the guide's Scalar Engine, 128 elements a cycle (one a lane) at 1.2
	// GHz (trn2: 0.833 ns) or 1.4 GHz (trn1: 0.714); ActFixedNS the rest
	// of §5's ACT COPY 128 × 128 fp32 213 ns (transpose): 106. ActNarrow:
	// §5's fp16 COPY 128 × 128 567 and 748 ns (657) → the per-element part
	// 5.2 × as long (INFERRED from those two kernels' copies alone; the
	// guide states no dtype penalty). ACT copies slower than DVE (§2.7:
	// 567 vs 186, 748 vs 448).
	ActFixedNS, ActElemNS, ActNarrow float64
	// PoolStartNS + PoolElemNS × elements per partition × tensor inputs
	// (at least one) is a Pool (GpSimd) word's time: the NKI ISA
	// reference's "GPSIMD_START + N GpSimd Engine cycles ... GPSIMD_START
	// ... roughly 150 engine cycles" (iota, affine_select) at the guides'
	// GpSimd clock, 1.2 GHz on trn2 (125 + N / 1.2 ns), 1.4 on trn1. Not
	// measured: no training kernel computes on Pool.
	PoolStartNS, PoolElemNS float64
	// StridedFactor scales a DVE, Pool or ACT word's streaming part when
	// an operand's innermost step exceeds 16 bytes: the NKI architecture
	// guide's "the achievable bandwidth of each tensor read/write
	// interface will be half of the peak bandwidth, which translates to
	// roughly 50% performance hit" → 2 (stated for NeuronCore-v2; carried
	// to the others).
	StridedFactor float64
	// LdWeightsNS is PE's LDWEIGHTS (LoadStationary) of any dtype: §5 fp32
	// 24.2, 28.3 (26). The fp16 LDWEIGHTS' 105–137.5 hold the MATMUL before
	// them streaming on (the pairs' sums fit the MATMUL law below).
	LdWeightsNS float64
	// MatmulFixedNS + MatmulColNS × moving columns × passes is a MATMUL's
	// time, passes MatmulFP32Passes for FP32 moving data, else 1.
	// INFERRED least-squares fit of §5's five LDWEIGHTS + MATMUL pair sums
	// (fp32 128 × 128: 164, 137; fp32 128 × 420: 352; fp16 128 × 420: 130;
	// fp16 128 × 444: 160) with LdWeightsNS: 42 + 0.169 × passes × N,
	// each pair within −11 … +13 % of the measured sum; passes 4, the
	// guide's "roughly 4x higher" for FP32 (the NEFFs split an FP32 matmul
	// into a LOW and a HIGH word, each one timed here).
	MatmulFixedNS, MatmulColNS, MatmulFP32Passes float64
	// ActTableLoadNS: §5 "ACTIVATION_TABLE_LOAD 1283.3" (every trn2 kernel).
	ActTableLoadNS float64
	// EventSemaphoreNS: §5 PE 52.5–54.2, ACT 41.7, Pool 35.0, DVE 14–39,
	// SP 20.0 (45, INFERRED: their middle).
	EventSemaphoreNS float64
	// NopNS, SetOrderingNS, BranchLabelNS: §5 trn2 NOP 19.2–25.8 (22),
	// SET_ORDERING_MODE 12.5, PSEUDO_BRANCH_LABEL 44.2; trn1 NOP 13.6,
	// SET_ORDERING_MODE 7.1, no branch labels.
	NopNS, SetOrderingNS, BranchLabelNS float64
	// TriggerSPNS and TriggerNS are how long a 0xc1 trigger holds its
	// engine: §2.2 "The SP engine issues its unwaited triggers ~0.08–0.12
	// µs apart (trigger word 57–60 ns, plus dispatch)" (triggers at 0.168,
	// 0.291, 0.384, 0.471: 100 ns); other engines §5 25.0 (ACT), 25.8–70.4
	// (Pool) (45). trn1: SP at 0.049, 0.129, 0.202, 0.279 (77 ns), Pool
	// 69.3.
	TriggerSPNS, TriggerNS float64
}

// ComputeTrn2 are the compute constants of a trn2 (hw-timing §5).
func ComputeTrn2() Compute {
	return Compute{
		Gen: "CAYMAN", Source: "measured on trn2 (docs/sim.md \"Measured timing\")",
		VectorFixedNS: 156, VectorReadNS: 0.5225, Vector16: 0.5,
		ActFixedNS: 106, ActElemNS: 1 / 1.2, ActNarrow: 5.2, StridedFactor: 2,
		PoolStartNS: 150 / 1.2, PoolElemNS: 1 / 1.2,
		LdWeightsNS: 26, MatmulFixedNS: 42, MatmulColNS: 0.169, MatmulFP32Passes: 4,
		ActTableLoadNS: 1283, EventSemaphoreNS: 45,
		NopNS: 22, SetOrderingNS: 12.5, BranchLabelNS: 44,
		TriggerSPNS: 100, TriggerNS: 45,
	}
}

// ComputeTrn1 are trn1's: hw-timing §4.6 and §2.8; PE and ACT carried over
// from trn2 (no trn1 kernel measures them).
func ComputeTrn1() Compute {
	c := ComputeTrn2()
	c.Gen, c.Source = "SUNDA", "measured on trn1 (DVE, NOP, triggers); ACT and Pool by the NKI guide's clocks, ACT's fixed part and PE carried over from trn2"
	c.VectorReadNS = (2017 - c.VectorFixedNS) / 2000
	c.Vector16 = 1
	c.ActElemNS = 1 / 1.4
	c.PoolStartNS, c.PoolElemNS = 150/1.4, 1/1.4
	c.NopNS, c.SetOrderingNS = 13.6, 7.1
	c.TriggerSPNS, c.TriggerNS = 77, 69
	return c
}

// ComputeFor is gen's compute constants (trn2's carried over, said so, for
// a generation not measured).
func ComputeFor(gen isa.Gen) Compute {
	switch gen {
	case isa.Cayman:
		return ComputeTrn2()
	case isa.Sunda:
		return ComputeTrn1()
	}
	c := ComputeTrn2()
	c.Gen, c.Source = gen.String(), fmt.Sprintf("carried over from trn2 (no measurement of %s)", gen)
	return c
}

// NS is how long word op of size sz holds engine (a NEFF engine key: "pe",
// "act", "dve", "pool", "sp"; case-insensitive): 0 for a word the model
// does not time (the DMA words are the DMA model's; sizes unknown: sz zero).
func (c *Compute) NS(engine string, op isa.Opcode, sz Size) int64 {
	switch op {
	case opActTableLoad:
		return round(c.ActTableLoadNS)
	case opEventSemaphore:
		return round(c.EventSemaphoreNS)
	case opNop:
		return round(c.NopNS)
	case opSetOrdering:
		return round(c.SetOrderingNS)
	case opBranchLabel:
		return round(c.BranchLabelNS)
	case opTrigger:
		if isEngine(engine, "sp") {
			return round(c.TriggerSPNS)
		}
		return round(c.TriggerNS)
	case opLdWeights:
		return round(c.LdWeightsNS)
	case opMatmul:
		passes := 1.0
		if sz.InBytes >= 4 {
			passes = c.MatmulFP32Passes
		}
		return round(c.MatmulFixedNS + c.MatmulColNS*passes*float64(sz.Elems))
	}
	if sz.Elems <= 0 { // not a compute word the sizes were found for
		return 0
	}
	n := float64(sz.Elems)
	if sz.Strided { // an innermost step over 16 bytes: half the SBUF/PSUM bandwidth
		n *= c.StridedFactor
	}
	if isEngine(engine, "act") { // one input, one element a lane a cycle
		per := c.ActElemNS
		if sz.InBytes < 4 && (op == compute.OpCopy || op == compute.OpCast) { // measured on copies alone: ACTIVATE follows the guide
			per *= c.ActNarrow
		}
		return round(c.ActFixedNS + per*n)
	}
	if isEngine(engine, "pool") { // GpSimd: a start-up, then one element a lane a cycle per input
		return round(c.PoolStartNS + c.PoolElemNS*n*float64(max(sz.Inputs, 1)))
	}
	stream := c.VectorReadNS * n * float64(max(sz.Inputs, 1))
	if isEngine(engine, "dve") && perfMode(op, sz) {
		stream *= c.Vector16
	}
	if sz.Half { // the NKI ISA reference's N/2 cases (a BF16 add/max reduction, a 16-bit zero fill)
		stream /= 2
	}
	return round(c.VectorFixedNS + stream)
}

// perfMode says whether a DVE word qualifies for trn2's Vector Engine
// performance mode at its full (4×) rate: the NKI Trainium2 guide's
// "nisa.tensor_copy and nisa.tensor_scalar when both input/output
// tensors are in SBUF, are in BF16/FP16, have physically contiguous
// elements in the inner-most free dimension". Its 2× cases (16-bit but
// strided or in PSUM; a 16-bit tensor_tensor from SBUF) run at trn2's
// base rate, which is already twice NeuronCore-v2's.
func perfMode(op isa.Opcode, sz Size) bool {
	switch op {
	case compute.OpCopy, compute.OpCast, compute.OpTensorScalar, compute.OpTensorScalarPtr:
		return sz.MaxBytes > 0 && sz.MaxBytes <= 2 && !sz.PSUM && !sz.Gapped
	}
	return false
}

// isEngine compares a stream's engine name with a NEFF key, ignoring case
// ("ACT", "Activation", "act").
func isEngine(name, key string) bool {
	if len(name) < len(key) {
		return false
	}
	for i := 0; i < len(key); i++ {
		c := name[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != key[i] {
			return false
		}
	}
	return true
}
