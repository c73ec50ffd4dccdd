package nkic

import (
	"errors"
	"fmt"

	"ndma/dtype"
	"ndma/internal/compute"
	"ndma/isa"
)

// nc_matmul and nl.matmul as the PE's words (docs/nki.md "Compute";
// docs/compute.md §3, §4, §14): per block of at most peCols moving
// columns, LDWEIGHTS of the stationary (K, M) then MATMUL of the moving
// (K, N) into the PSUM dst; an FP32 product is the compilers' two passes
// (LDWEIGHTS LOW + MATMUL, LDWEIGHTS HIGH + MATMUL; docs/compute.md §14).
// internal/compute runs the words on the session's SBUF/PSUM.

// peCols is the moving columns one MATMUL takes: a 2 KiB PSUM bank of
// FP32 cells (NKI: the moving free size ≤ 512; docs/compute.md §2
// MATMUL_ZERO_REGION SIZE2048).
const peCols = 512

// peGroups is row_grp/col_grp's "all rows/columns" code, the value of
// every compiler-built word (docs/compute.md §3; INFERRED for fewer rows,
// RATIONALE.md "NKI kernels": the engine reads num_active_rows/cols).
const peGroups = 0x0f

// peInputs are the input dtypes NKI's nc_matmul takes (tfloat32 travels as
// float32): FP8, BF16, FP16 and FP32 values are exact in FP32, the PE's
// multiply (docs/compute.md §14 "Numerics").
var peInputs = map[dtype.DType]bool{dtype.FP32: true, dtype.BF16: true, dtype.FP16: true, dtype.FP8E4: true, dtype.FP8E5: true}

// matmulLegs resolves a matmul's operands: stationary (K, M) — for
// nl.matmul without transpose_x, x (M, K) — moving (K, N), dst (M, N).
func (p *Program) matmulLegs(c *Call, dst *leg) (st, mv *leg, K, M, N int64, err error) {
	if c.Stationary == nil || c.Moving == nil {
		return nil, nil, 0, 0, 0, progErr("%s needs stationary and moving operands", c.Op)
	}
	if st, err = p.resolve(c.Stationary, "stationary"); err != nil {
		return
	}
	if mv, err = p.resolve(c.Moving, "moving"); err != nil {
		return
	}
	if len(st.shape) != 2 || len(mv.shape) != 2 || len(dst.shape) != 2 {
		return nil, nil, 0, 0, 0, illegal("matmul operands are 2-D tiles: stationary %v, moving %v, dst %v", st.shape, mv.shape, dst.shape)
	}
	K, M, N = st.shape[0], st.shape[1], mv.shape[1]
	if xMK(c) {
		M, K = K, M
	}
	if mv.shape[0] != K || dst.shape[0] != M || dst.shape[1] != N {
		return nil, nil, 0, 0, 0, illegal("stationary %v, moving %v (K, N): dst must be (M, N) = (%d, %d), not %v", st.shape, mv.shape, M, N, dst.shape)
	}
	return st, mv, K, M, N, nil
}

// xMK says whether the stationary operand is nl.matmul's x (M, K): the PE
// contracts over partitions, so x needs a transpose first.
func xMK(c *Call) bool { return c.Op == "matmul" && !c.Transpose }

// compileMatmul forms a matmul's LDWEIGHTS and MATMUL words, or — where
// ndma forms none — computes it with Go loops flagged not exact (why in
// the note).
func (p *Program) compileMatmul(lw *Lowered, c *Call, dst *leg) (*Lowered, error) {
	st, mv, K, M, N, err := p.matmulLegs(c, dst)
	if err != nil {
		return nil, err
	}
	if st.t.Buffer != "sbuf" || mv.t.Buffer != "sbuf" {
		return nil, illegal("%s reads its stationary and moving tiles from SBUF: stationary %q is in %s, moving %q in %s", c.Op, st.t.Name, st.t.Buffer, mv.t.Name, mv.t.Buffer)
	}
	if dst.t.Buffer != "psum" {
		return nil, illegal("%s writes a PSUM tile: dst %q is in %s", c.Op, dst.t.Name, dst.t.Buffer)
	}
	for _, l := range []*leg{st, mv} {
		if !peInputs[l.dt] {
			return nil, illegal("%s takes float8_e4m3, float8_e5m2, bfloat16, float16, tfloat32 or float32 inputs: %q is %s", c.Op, l.t.Name, l.t.DType)
		}
	}
	why := ""
	switch {
	case !peTables(p.gen):
		why = fmt.Sprintf("ndma has no LDWEIGHTS/MATMUL table on %s (docs/compute.md §1)", p.gen)
	case xMK(c):
		why = "x is (M, K): the PE contracts over partitions, so x must be transposed first (ndma.nki issues that nc_transpose where it can)"
	case st.dt != mv.dt:
		why = fmt.Sprintf("stationary %s and moving %s: ndma forms the PE words for one input dtype", st.t.DType, mv.t.DType)
	case dst.dt != dtype.FP32:
		why = fmt.Sprintf("dst is %s: MATMUL writes FP32 PSUM cells", dst.t.DType)
	}
	var words []isa.Inst
	if why == "" {
		if words, err = p.matmulWords(st, mv, dst, c.Accumulate, false); err != nil {
			return nil, err
		}
	} else {
		return p.matmulLoops(lw, c, st, mv, dst, K, M, N, why), nil
	}
	lw.Run, lw.Words, lw.Engine, lw.Bytes = words, words, "tensor (PE)", dst.elems*dst.esize
	for k := range words {
		lw.ns += p.wordNS(lw.Engine, &words[k])
	}
	return lw, nil
}

// peTables says whether LDWEIGHTS and MATMUL decode on gen (SUNDA and
// CAYMAN; docs/compute.md §1).
func peTables(gen isa.Gen) bool {
	ld, mm := isa.New(gen, compute.OpLdWeights), isa.New(gen, compute.OpMatmul)
	_, l2 := ld.LdWeightsV2()
	_, l3 := ld.LdWeightsV3()
	_, m2 := mm.MatmulV2()
	_, m3 := mm.MatmulV3()
	return (l2 || l3) && (m2 || m3)
}

// matmulWords forms the word pairs of stationary.T @ moving into dst: one
// pair per block of peCols moving columns (two for FP32: the LOW and HIGH
// passes). accumulate clears the PSUM accumulate flags' bit 0 (add to the
// FP32 cells); otherwise the first MATMUL of each block overwrites
// (SINGLE, or START then END for the two passes; docs/compute.md §2, §4).
// transpose (CAYMAN's transpose_mode, the moving operand an identity) is
// one pair, a LOW load for FP32, SINGLE, the result in the input dtype
// (docs/compute.md §4).
func (p *Program) matmulWords(st, mv, dst *leg, accumulate, transpose bool) ([]isa.Inst, error) {
	K, M, N := st.shape[0], st.shape[1], mv.shape[1]
	w, err := p.peOperand(st, K, "stationary")
	if err != nil {
		return nil, err
	}
	// LDWEIGHTS puts pattern element i in column M−1−i: walk the row
	// backwards so that column c holds element c (docs/compute.md §3)
	for i := range w.steps {
		w.addr = uint64(int64(w.addr) + (w.nums[i]-1)*w.steps[i]*st.esize)
		w.steps[i] = -w.steps[i]
	}
	passes := []isa.PEFP32ModeCode{isa.PEFP32ModeNone}
	mmMode := isa.PEFP32ModeNone
	if st.dt == dtype.FP32 {
		passes, mmMode = []isa.PEFP32ModeCode{isa.PEFP32ModeLow, isa.PEFP32ModeHigh}, isa.PEFP32ModeLowHigh
		if transpose {
			passes = passes[:1]
		}
	}
	var out []isa.Inst
	for n0 := int64(0); n0 < N; n0 += peCols {
		nc := min(peCols, N-n0)
		x, err := p.peOperand(mv.cols(n0, nc), K, "moving")
		if err != nil {
			return nil, err
		}
		d, err := p.peOperand(dst.cols(n0, nc), M, "dst")
		if err != nil {
			return nil, err
		}
		for i, mode := range passes {
			flags := isa.PSUMAccFlagsMultiMid
			switch {
			case accumulate:
			case len(passes) == 1:
				flags = isa.PSUMAccFlagsSingle
			case i == 0:
				flags = isa.PSUMAccFlagsMultiStart
			default:
				flags = isa.PSUMAccFlagsMultiEnd
			}
			ld, mm := isa.New(p.gen, compute.OpLdWeights), isa.New(p.gen, compute.OpMatmul)
			var errs []error
			set := func(in *isa.Inst, path string, v int64) { errs = append(errs, in.Set(path, v)) }
			for _, in := range []*isa.Inst{&ld, &mm} {
				set(in, "num_active_rows", K)
				set(in, "num_active_cols", M)
				set(in, "row_grp", peGroups)
				set(in, "col_grp", peGroups)
			}
			if transpose {
				set(&ld, "transpose_mode", 1)
				set(&mm, "transpose_mode", 1)
			}
			set(&ld, "in_dtype", int64(st.dt))
			set(&ld, "fp32_mode", int64(mode))
			errs = append(errs, setPattern(&ld, "src_mem_pattern", w))
			set(&mm, "in_dtype", int64(mv.dt))
			set(&mm, "fp32_mode", int64(mmMode))
			set(&mm, "psum_accumulate_flags", int64(flags))
			errs = append(errs, setPattern(&mm, "src_mem_pattern", x), setPattern(&mm, "dst_mem_pattern", d))
			if p.gen == isa.Sunda { // the constants of every SUNDA word (docs/compute.md §3, §4)
				xbus := int64(0x0f)
				if st.dt == dtype.FP32 {
					xbus = 0x02
				}
				set(&ld, "xbus_sel", xbus)
				set(&mm, "xbus_sel", 0x10)
			}
			if err := errors.Join(errs...); err != nil {
				return nil, progErr("a PE word's field does not fit: %v", err)
			}
			out = append(out, ld, mm)
		}
	}
	return out, nil
}

// peOperand is l as a PE pattern of three free dimensions whose partitions
// are its first axis (parts of them).
func (p *Program) peOperand(l *leg, parts int64, what string) (cpat, error) {
	c, err := p.operand(l, 3)
	if err != nil {
		return c, err
	}
	if c.ch != parts {
		return c, illegal("%s %q: its first axis (%d) must step partitions, one at a time", what, l.t.Name, parts)
	}
	return c, nil
}

// cols is a 2-D leg's columns [n0, n0+n).
func (l *leg) cols(n0, n int64) *leg {
	s := *l
	s.dims = append([]dim(nil), l.dims...)
	s.addr = uint64(int64(l.addr) + n0*l.dims[0].step)
	s.dims[0].n = n
	s.shape = []int64{l.shape[0], n}
	s.elems = l.shape[0] * n
	return &s
}

// matmulLoops is a matmul ndma forms no words for: a Go loop in float32
// with an FP32 sum, flagged not exact (why says why).
func (p *Program) matmulLoops(lw *Lowered, c *Call, st, mv, dst *leg, K, M, N int64, why string) *Lowered {
	lw.Exact, lw.Bytes = false, dst.elems*dst.esize
	lw.Engine, lw.Note = "tensor (PE)", "computed by ndma in float32 (FP32 accumulation), not by LDWEIGHTS/MATMUL words: "+why
	lw.ns = p.matmulNS(st, mv, K, M, N)
	acc, mk := c.Accumulate, xMK(c)
	lw.eval = func(r *runner) error {
		a, b, err := r.readF32Pair(st, mv)
		if err != nil {
			return err
		}
		out := make([]float32, M*N)
		if acc {
			if out, err = r.readF32(dst); err != nil {
				return err
			}
		}
		for m := range M {
			for n := range N {
				s := out[m*N+n]
				for k := range K {
					w := a[k*M+m]
					if mk {
						w = a[m*K+k]
					}
					s += w * b[k*N+n]
				}
				out[m*N+n] = s
			}
		}
		return r.writeF32(dst, out)
	}
	return lw
}

// compileIdentity forms the words that write an identity into dst (P, P):
// a MEMSET of the tile to 0, then a MEMSET of one element, 1, per
// partition p at column p (the moving operand of a PE transpose,
// docs/nki.md "Matmul words").
func (p *Program) compileIdentity(lw *Lowered, dst *leg) (*Lowered, error) {
	if dst.t.Buffer != "sbuf" || len(dst.shape) != 2 || dst.shape[0] != dst.shape[1] || !peInputs[dst.dt] {
		return nil, illegal("identity: dst %q must be a square SBUF tile of a float dtype the PE takes, not %s %s %v", dst.t.Name, dst.t.Buffer, dst.t.DType, dst.shape)
	}
	P := dst.shape[0]
	whole, err := p.operand(dst, 4) // MEMSET's dst is a TENSOR4D
	if err != nil {
		return nil, err
	}
	if whole.ch != P {
		return nil, illegal("identity %q: its first axis must step partitions, one at a time", dst.t.Name)
	}
	w, err := p.memsetWord(dst.dt, whole, 0)
	if err != nil {
		return nil, err
	}
	words := []isa.Inst{w}
	pstride, estep := dst.dims[1].step, dst.dims[0].step // bytes: one partition, one element
	for i := range P {
		one := cpat{addr: uint64(int64(dst.addr) + i*pstride + i*estep), ch: 1, steps: []int64{0, 0, 0, 0}, nums: []int64{1, 1, 1, 1}}
		if w, err = p.memsetWord(dst.dt, one, 1); err != nil {
			return nil, err
		}
		words = append(words, w)
	}
	lw.Run, lw.Words, lw.Engine, lw.Bytes = words, words, "gpsimd (POOL)", dst.elems*dst.esize
	for k := range words {
		lw.ns += p.wordNS(lw.Engine, &words[k])
	}
	return lw, nil
}

// memsetWord is a MEMSET of value over d (dt's elements).
func (p *Program) memsetWord(dt dtype.DType, d cpat, value float64) (isa.Inst, error) {
	w := isa.New(p.gen, compute.OpMemset)
	errs := []error{w.Set("dst_element_count", d.elems()), w.Set("dtype", int64(dt)), w.Set("fill_value", f32bits(value)),
		w.Set("num_active_channels", d.ch), setPattern(&w, "dst_mem_pattern", d)}
	if err := errors.Join(errs...); err != nil {
		return w, progErr("a MEMSET field does not fit: %v", err)
	}
	return w, nil
}

// peTranspose forms a PE transpose of src (P, F) into dst (F, P):
// LDWEIGHTS of src, MATMUL streaming the call's identity[:P, :P]
// (out[f][p] = Σ_k src[k][f]·I[k][p]); on CAYMAN with transpose_mode (the
// result in src's dtype), on SUNDA an ordinary FP32 matmul (docs/compute.md
// §4). ok is false where ndma forms no words for it: no identity, a
// dtype or buffer the words do not take (the caller's Go loop runs it).
func (p *Program) peTranspose(lw *Lowered, c *Call, src, dst *leg) (_ *Lowered, ok bool, _ error) {
	if c.Identity == nil || !peTables(p.gen) || !peInputs[src.dt] || src.t.Buffer != "sbuf" || dst.t.Buffer != "psum" {
		return nil, false, nil
	}
	id, err := p.resolve(c.Identity, "identity")
	if err != nil {
		return nil, false, err
	}
	P, F := src.shape[0], src.shape[1]
	if F > compute.PEDim || len(id.shape) != 2 || id.shape[0] != P || id.shape[1] != P || id.dt != src.dt || id.t.Buffer != "sbuf" {
		return nil, false, nil
	}
	transpose := p.gen == isa.Cayman
	if transpose && dst.dt != src.dt || !transpose && dst.dt != dtype.FP32 {
		return nil, false, nil
	}
	words, err := p.matmulWords(src, id, dst, false, transpose)
	if err != nil {
		return nil, false, err
	}
	lw.Exact, lw.Run, lw.Words, lw.Engine, lw.Bytes = true, words, words, "tensor (PE)", dst.elems*dst.esize
	for k := range words {
		lw.ns += p.wordNS(lw.Engine, &words[k])
	}
	return lw, true, nil
}
