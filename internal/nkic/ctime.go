package nkic

import (
	"strings"

	"ndma/dtype"
	"ndma/internal/compute"
	"ndma/internal/timing"
	"ndma/isa"
)

// Compute calls' predicted time: internal/timing's compute model (issue 32,
// C5; docs/nki.md "Compute calls") — for a call whose word is formed, that
// word's time from its resolved sizes; for a call ndma computes without a
// word (a matmul or transpose Go loop, iota, a reduction across
// partitions), the time of the words it stands for.

// engineKey is the compute model's engine key of a trace's engine name
// ("scalar (ACT)" → "act").
func engineKey(engine string) string {
	switch {
	case strings.Contains(engine, "(ACT)"):
		return "act"
	case strings.Contains(engine, "(PE)"):
		return "pe"
	case strings.Contains(engine, "(POOL)"):
		return "pool"
	}
	return "dve"
}

// wordNS is the model's time of compute word w issued on engine.
func (p *Program) wordNS(engine string, w *isa.Inst) int64 {
	if p.sizer == nil {
		p.sizer = compute.NewSizer(p.gen)
	}
	sz, ok := p.sizer.SizeOf(w)
	if !ok {
		return 0
	}
	cm := timing.ComputeFor(p.gen)
	return cm.NS(engineKey(engine), w.Opcode(), sz)
}

// matmulNS is the time of the PE words a matmul ndma computes without
// words stands for: those matmulWords forms — per block of peCols moving
// columns LDWEIGHTS of the stationary (K rows, M columns) then MATMUL of
// the block, twice for FP32 (the LOW and HIGH passes; docs/compute.md §4,
// §14). The sizes the model reads are the word's moving columns and the
// operands' element bytes.
func (p *Program) matmulNS(st, mv *leg, K, M, N int64) int64 {
	cm := timing.ComputeFor(p.gen)
	passes := int64(1)
	if st.dt == dtype.FP32 || mv.dt == dtype.FP32 {
		passes = 2
	}
	var ns int64
	for n0 := int64(0); n0 < N; n0 += peCols {
		ld := cm.NS("pe", compute.OpLdWeights, timing.Size{Parts: int(K), Elems: M, InBytes: int(st.esize)})
		mm := cm.NS("pe", compute.OpMatmul, timing.Size{Parts: int(K), Elems: min(peCols, N-n0), InBytes: int(mv.esize)})
		ns += passes * (ld + mm)
	}
	return ns
}

// transposeNS is a PE transpose's time: the source as the stationary
// operand and the identity (R × R) streamed as the moving one (INFERRED,
// RATIONALE.md "NKI kernels": NKI's nc_transpose is a matmul with the
// identity on the PE).
func (p *Program) transposeNS(src *leg) int64 {
	cm := timing.ComputeFor(p.gen)
	r := src.shape[0]
	ld := cm.NS("pe", compute.OpLdWeights, timing.Size{Parts: int(r), Elems: src.shape[len(src.shape)-1], InBytes: int(src.esize)})
	mm := cm.NS("pe", compute.OpMatmul, timing.Size{Parts: int(r), Elems: r, InBytes: int(src.esize)})
	return ld + mm
}

// perPartitionNS is the vector law's time of a DVE or Pool word walking l
// (its first axis the partitions): iota (Pool) and tensor_reduce (DVE).
func (p *Program) perPartitionNS(engine string, op isa.Opcode, l *leg) int64 {
	parts := int64(1)
	if len(l.shape) > 0 {
		parts = max(l.shape[0], 1)
	}
	cm := timing.ComputeFor(p.gen)
	return cm.NS(engineKey(engine), op, timing.Size{Parts: int(parts), Elems: l.elems / parts, InBytes: int(l.esize)})
}

// opIota stands for the IOTA word ndma has no table for: the model times a
// Pool word by its elements whatever its opcode (timing.Compute's vector law).
const opIota isa.Opcode = 0

// TimeOf is call c compiled (nothing runs) as the trace names it, with its
// predicted time: for a call the front end computes itself (ndma.nki's
// NumPy calls), the time of the words it stands for. The session's
// tensors must include c's.
func (s *Session) TimeOf(c *Call) (CallTrace, error) {
	if err := s.p.checkCall(c); err != nil {
		return CallTrace{}, locate(c, err)
	}
	lw, err := s.p.compileCall(c)
	if err != nil {
		return CallTrace{}, locate(c, err)
	}
	ct := headerOf(lw, false)
	if ct.Kind == "compute" && !s.r.opt.Ref {
		ct.TimeNS = lw.ns
	}
	return ct, nil
}
