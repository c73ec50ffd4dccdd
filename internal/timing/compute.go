package timing

import (
	"fmt"

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

// Size is what a compute word works on (its access patterns resolved,
// compute.Sizes): the most partitions and elements per partition any
// operand enumerates, and its input element bytes.
type Size struct {
	Parts   int
	Elems   int64
	InBytes int
}

// Compute are one generation's compute constants (ns).
type Compute struct {
	Gen, Source string
	// VectorFixedNS + VectorElemNS × elements per partition is a DVE (and
	// Pool) word's time, whatever its opcode and dtype. INFERRED fit of
	// hw-timing §5's DVE TENSOR_TENSOR (trn2): 128 × 1000 fp32 1201 ns,
	// 128 × 420 fp16/fp32 595/596, 128 × 444 fp16 621 → 156 + 1.045 n
	// (all three within 1 %). trn1: 128 × 1000 fp32 2017 ns, the fixed
	// part carried over → 1.861 ns an element.
	VectorFixedNS, VectorElemNS float64
	// ActFixedNS + VectorElemNS × elements is an ACT word's on fp32 data,
	// ActNarrow times the per-element part on narrower data. INFERRED fit
	// of §2.7's ACT COPY 128 × 128: fp32 213 ns (transpose; conv2d_3's 66
	// is overlapped with a trigger) → 79 + 1.045 × 128; fp16 567 and 748
	// (657) → the per-element part 4.32 × as long. ACT copies slower than
	// DVE (§2.7: 567 vs 186, 748 vs 448).
	ActFixedNS, ActNarrow float64
	// LdWeights32NS and LdWeightsNS are PE's LDWEIGHTS of fp32 and of
	// narrower weights: §5 fp32 24.2, 28.3 (26); fp16 105.0, 137.5 (121).
	LdWeights32NS, LdWeightsNS float64
	// MatmulColNS is an fp32 MATMUL's time per moving column per pass (four
	// passes, fp32_mode). INFERRED fit of §5's fp32 128 × 420 324.2 ns →
	// 0.193 ns a column a pass (128 × 128: 99; measured 109, 140).
	// MatmulMinNS is a narrower dtype's, whatever its columns: it streams
	// behind the next LDWEIGHTS (§5 fp16 128 × 128 55.8, 128 × 420 25.0,
	// 128 × 444 22.5; 35).
	MatmulColNS, MatmulMinNS float64
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
		VectorFixedNS: 156, VectorElemNS: 1.045, ActFixedNS: 79, ActNarrow: 4.32,
		LdWeights32NS: 26, LdWeightsNS: 121, MatmulColNS: 0.193, MatmulMinNS: 35,
		ActTableLoadNS: 1283, EventSemaphoreNS: 45,
		NopNS: 22, SetOrderingNS: 12.5, BranchLabelNS: 44,
		TriggerSPNS: 100, TriggerNS: 45,
	}
}

// ComputeTrn1 are trn1's: hw-timing §4.6 and §2.8; PE and ACT carried over
// from trn2 (no trn1 kernel measures them).
func ComputeTrn1() Compute {
	c := ComputeTrn2()
	c.Gen, c.Source = "SUNDA", "measured on trn1 (DVE, NOP, triggers); PE and ACT carried over from trn2"
	c.VectorElemNS = (2017 - c.VectorFixedNS) / 1000
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
		if sz.InBytes >= 4 {
			return round(c.LdWeights32NS)
		}
		return round(c.LdWeightsNS)
	case opMatmul:
		if sz.InBytes < 4 { // one pass: it streams behind the next LDWEIGHTS
			return round(c.MatmulMinNS)
		}
		return round(max(c.MatmulMinNS, 4*c.MatmulColNS*float64(sz.Elems)))
	}
	if sz.Elems <= 0 { // not a compute word the sizes were found for
		return 0
	}
	if isEngine(engine, "act") {
		per := c.VectorElemNS
		if sz.InBytes < 4 {
			per *= c.ActNarrow
		}
		return round(c.ActFixedNS + per*float64(sz.Elems))
	}
	return round(c.VectorFixedNS + c.VectorElemNS*float64(sz.Elems))
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
