package compute

import (
	"fmt"

	"ndma/internal/gemm"
	"ndma/isa"
	"ndma/mem"
)

// PEDim is the PE array's side: 128 rows (contraction partitions) by 128
// columns (output partitions).
const PEDim = 128

// peArray is the PE array's stationary operand (docs/compute.md §3).
type peArray struct {
	w      [PEDim * PEDim]float32 // W[k][c] at k*PEDim+c, as loaded (values of the load's in_dtype)
	loaded bool
	mode   isa.PEFP32ModeCode // the last load's fp32_mode
	low    peSig              // the last LOW-pass MATMUL (lowOK), which a HIGH pass completes
	lowOK  bool
}

// peSig names one product: a HIGH pass of the same moving data into the
// same PSUM cells completes the LOW pass before it.
type peSig struct {
	src, dst uint64
	k, m, n  int64
}

// peView is what LDWEIGHTS and MATMUL share across their per-generation
// layouts.
type peView interface {
	SrcMemPattern() isa.Tensor3DView
	InDType() isa.DTypeCode
	FP32Mode() isa.PEFP32ModeCode
	NumActiveRows() uint64
	NumActiveCols() uint64
}

// peDims checks num_active_rows and num_active_cols (1..128).
func (e *Engine) peDims(v peView) (k, c int, err error) {
	k, c = int(v.NumActiveRows()), int(v.NumActiveCols())
	if k < 1 || k > PEDim {
		return k, c, e.fault("num_active_rows", 0, fmt.Errorf("%d rows, the PE array has 1..%d: %w", k, PEDim, isa.ErrBounds))
	}
	if c < 1 || c > PEDim {
		return k, c, e.fault("num_active_cols", 0, fmt.Errorf("%d columns, the PE array has 1..%d: %w", c, PEDim, isa.ErrBounds))
	}
	return k, c, nil
}

// ldweights loads the stationary operand (docs/compute.md §3.2): row k is
// partition start+k, and the pattern's element i lands in column N−1−i.
func (e *Engine) ldweights(m *mem.Memory, in *isa.Inst) error {
	var v peView
	if x, ok := in.LdWeightsV2(); ok {
		v = x
	} else if x, ok := in.LdWeightsV3(); ok {
		v = x
	} else {
		return e.raw()
	}
	k, n, err := e.peDims(v)
	if err != nil {
		return err
	}
	src, err := e.pattern("src_mem_pattern", v.SrcMemPattern(), 3, uint8(v.InDType()), k)
	if err != nil {
		return err
	}
	if c := src.Count(); c != int64(n) {
		return e.fault("src_mem_pattern", src.Addr, fmt.Errorf("enumerates %d elements per partition, num_active_cols is %d: %w", c, n, ErrMismatch))
	}
	if e.dry {
		return nil
	}
	offs := src.offsets(e.offs[0])
	e.offs[0] = offs
	row := grow(e.f32[0], n)
	e.f32[0] = row
	for r := range k {
		b, err := e.read(m, &src, r)
		if err != nil {
			return e.fault("src_mem_pattern", src.spanAddr(r), err)
		}
		decodeF32(&src, b, offs, row)
		w := e.pe.w[r*PEDim : r*PEDim+n]
		for i, x := range row {
			w[n-1-i] = x
		}
	}
	e.pe.loaded, e.pe.mode = true, v.FP32Mode()
	return nil
}

// matmulView is MATMUL's fields on either generation.
type matmulView interface {
	peView
	PsumAccumulateFlags() isa.PSUMAccFlagsCode
	DstMemPattern() isa.Tensor3DView
}

// matmul multiplies the loaded weights by the moving data into PSUM
// (docs/compute.md §3.3): out[c][n] = Σ_k W[k][c]·X[k][n], overwriting
// the cells when the flags' bit 0 is set and accumulating in FP32 when it
// is clear.
func (e *Engine) matmul(m *mem.Memory, in *isa.Inst) error {
	var v matmulView
	transpose, outDT := false, isa.DTypeFP32
	if x, ok := in.MatmulV2(); ok {
		v = x
	} else if x, ok := in.MatmulV3(); ok {
		v, transpose = x, x.TransposeMode() != 0
		if d := x.OutDType(); d != isa.DTypeInvalid {
			outDT = d // CAYMAN writes 0 for FP32 (docs/compute.md §4, INFERRED)
		}
	} else {
		return e.raw()
	}
	K, M, err := e.peDims(v)
	if err != nil {
		return err
	}
	src, err := e.pattern("src_mem_pattern", v.SrcMemPattern(), 3, uint8(v.InDType()), K)
	if err != nil {
		return err
	}
	if transpose {
		outDT = v.InDType() // a PE transpose keeps the input dtype in PSUM (§5.5)
	}
	dst, err := e.pattern("dst_mem_pattern", v.DstMemPattern(), 3, uint8(outDT), M)
	if err != nil {
		return err
	}
	if src.Region != isa.SBUF {
		return e.fault("src_mem_pattern", src.Addr, fmt.Errorf("the moving operand is read from SBUF, not %s: %w", regionName(src.Region), isa.ErrBounds))
	}
	if dst.Region != isa.PSUM {
		return e.fault("dst_mem_pattern", dst.Addr, fmt.Errorf("MATMUL writes PSUM, not %s: %w", regionName(dst.Region), isa.ErrBounds))
	}
	N := src.Count()
	if c := dst.Count(); c != N {
		return e.fault("dst_mem_pattern", dst.Addr, fmt.Errorf("%d elements per partition, the moving pattern has %d: %w", c, N, ErrMismatch))
	}
	// K moving rows and M output rows of N elements are in flight at once:
	// bounded as one pattern's elements are, not partitions × MaxElems (a
	// step-0 moving pattern of 4 Mi elements would otherwise hold 2 GiB per
	// operand and run 2^36 multiply-adds)
	if rows := int64(max(K, M)); N*rows > MaxElems {
		return e.fault("src_mem_pattern", src.Addr, fmt.Errorf("%d moving elements on %d partitions: more than %d in flight: %w", N, rows, MaxElems, isa.ErrBounds))
	}
	if e.dry {
		return nil
	}
	if !e.pe.loaded {
		return e.fault("weights", 0, fmt.Errorf("MATMUL before any LDWEIGHTS on this engine: %w", ErrNoWeight))
	}
	overwrite := v.PsumAccumulateFlags()&1 != 0
	// FP32 runs as two passes over the same data (§5.4): the LOW pass adds
	// the whole FP32 product, the HIGH pass that completes it adds nothing.
	sig := peSig{src.Addr, dst.Addr, int64(K), int64(M), N}
	adds := !(e.pe.mode == isa.PEFP32ModeHigh && e.pe.lowOK && e.pe.low == sig && !transpose)
	e.pe.low, e.pe.lowOK = sig, e.pe.mode == isa.PEFP32ModeLow
	if !adds { // the HIGH pass completing a LOW pass: the pair is one product, written by the LOW pass
		return nil
	}
	n := int(N)
	x := grow(e.f32[0], K*n)
	out := grow(e.f32[1], M*n)
	e.f32[0], e.f32[1] = x, out
	so := src.offsets(e.offs[0])
	do := dst.offsets(e.offs[1])
	e.offs[0], e.offs[1] = so, do
	for k := range K {
		b, err := e.read(m, &src, k)
		if err != nil {
			return e.fault("src_mem_pattern", src.spanAddr(k), err)
		}
		decodeF32(&src, b, so, x[k*n:(k+1)*n])
	}
	if !overwrite {
		for c := range M {
			b, err := e.read(m, &dst, c)
			if err != nil {
				return e.fault("dst_mem_pattern", dst.spanAddr(c), err)
			}
			decodeF32(&dst, b, do, out[c*n:(c+1)*n])
		}
	}
	if adds {
		gemm.MatMul(M, n, K, e.pe.w[:], PEDim, x, n, out, n, !overwrite)
	} else {
		clear(out)
	}
	return e.store(m, &dst, do, out, n)
}

// store writes rows of n float32 values, one per partition of p, through
// the pattern's offsets do, converted to its dtype.
func (e *Engine) store(m *mem.Memory, p *Pattern, do []int32, vals []float32, n int) error {
	for c := range p.Parts {
		if err := e.storeF(m, p, do, c, vals[c*n:(c+1)*n]); err != nil {
			return err
		}
	}
	return nil
}
