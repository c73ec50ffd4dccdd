package nkic

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"ndma/dtype"
	"ndma/internal/compute"
	"ndma/isa"
)

// Reductions (docs/nki.md "Compute"): nl.max/min/sum/prod/mean and
// nisa.tensor_reduce over free axes are one TENSOR_REDUCE word (the DVE
// folds the pattern's innermost op_dim dimensions: docs/compute.md §9.2),
// the reduced axes laid innermost; mean is that sum then a TENSOR_SCALAR
// multiplying by 1/n. A fold across partitions (axis 0) or `all` has no
// such word: a Go loop in float32, flagged not exact.

// reduceOps are the reduction names and the ALU op that folds them.
var reduceOps = map[string]isa.ALUOpCode{
	"add": isa.ALUOpAdd, "sum": isa.ALUOpAdd, "mean": isa.ALUOpAdd,
	"max": isa.ALUOpMax, "maximum": isa.ALUOpMax,
	"min": isa.ALUOpMin, "minimum": isa.ALUOpMin,
	"multiply": isa.ALUOpMult, "prod": isa.ALUOpMult,
}

// opDims is the op_dim naming how many innermost dimensions a
// TENSOR_REDUCE folds (X = 1 … XYZW = 4).
var opDims = [...]isa.TensorSubdimCode{isa.TensorSubdimX, isa.TensorSubdimXy, isa.TensorSubdimXyz, isa.TensorSubdimXyzw}

// compileReduce compiles a tensor_reduce call: src reduced over c.Axes
// (axes of src's pattern, outermost first) into dst.
func (p *Program) compileReduce(lw *Lowered, c *Call, dst *leg) (*Lowered, error) {
	src, err := p.resolve(c.source(), "src")
	if err != nil {
		return nil, err
	}
	nd := len(src.shape)
	if len(c.Axes) == 0 {
		return nil, progErr("tensor_reduce needs axes")
	}
	red := make([]bool, nd)
	group := int64(1)
	for _, ax := range c.Axes {
		if ax < 0 || ax >= nd {
			return nil, progErr("axis %d: src has %d axes", ax, nd)
		}
		if red[ax] {
			return nil, progErr("axis %d given twice", ax)
		}
		red[ax] = true
		group *= src.shape[ax]
	}
	if dst.elems*group != src.elems {
		return nil, progErr("dst has %d elements: reducing %d of src's %d by %v leaves %d", dst.elems, group, src.elems, c.Axes, src.elems/group)
	}
	name := strings.TrimPrefix(strings.TrimPrefix(c.ALUOp, "nl."), "np.")
	op, ok := reduceOps[name]
	if !ok && name != "all" {
		return nil, illegal("reduction %q is not one ndma computes (add, max, min, multiply, mean, all)", c.ALUOp)
	}
	lw.Engine, lw.Bytes = "vector (DVE)", dst.elems*dst.esize
	if ok {
		words, why, err := p.reduceWords(c, op, name == "mean", group, src, dst, red)
		if err != nil {
			return nil, err
		}
		if why == "" {
			lw.Run, lw.Words = words, words
			for k := range words {
				lw.ns += p.wordNS(lw.Engine, &words[k])
			}
			return lw, nil
		}
		lw.Note = why
	} else {
		lw.Note = "`all` has no TENSOR_REDUCE op"
	}
	lw.Exact = false
	lw.Note = "computed by ndma in float32, not by a TENSOR_REDUCE word: " + lw.Note
	lw.ns = p.perPartitionNS(lw.Engine, compute.OpTensorReduce, src)
	lw.eval = reduceLoop(src, dst, red, name, c.Negate)
	return lw, nil
}

// reduceWords forms the TENSOR_REDUCE word (and mean's TENSOR_SCALAR) of a
// reduction over free axes; why says what keeps it from being words (the
// partitions folded, more dimensions than the pattern holds).
func (p *Program) reduceWords(c *Call, op isa.ALUOpCode, mean bool, group int64, src, dst *leg, red []bool) (words []isa.Inst, why string, err error) {
	stride := p.partStride(src.t)
	// the reduced free axes innermost (in their order), then the kept ones
	nd := len(src.shape)
	rl, kl := *src, *src
	rl.dims, kl.dims = nil, nil
	for j, d := range src.dims {
		ax := nd - 1 - j
		part := d.n > 1 && d.step != 0 && d.step%stride == 0
		switch {
		case part && red[ax]:
			return nil, "it folds across partitions", nil
		case part:
			rl.dims, kl.dims = append(rl.dims, d), append(kl.dims, d)
		case red[ax]:
			rl.dims = append(rl.dims, d)
		default:
			kl.dims = append(kl.dims, d)
		}
	}
	rp, err := p.operand(&rl, 4)
	if err != nil {
		return nil, "", err
	}
	kp, err := p.operand(&kl, 4)
	if err != nil {
		return nil, "", err
	}
	d, err := p.operand(dst, 4)
	if err != nil {
		return nil, "", err
	}
	used := func(c cpat) (s, n []int64) {
		for i := range c.steps {
			if c.nums[i] > 1 {
				s, n = append(s, c.steps[i]), append(n, c.nums[i])
			}
		}
		return
	}
	rs, rn := used(rp)
	ks, kn := used(kp)
	if len(rs) == 0 { // every reduced axis counts 1: a fold of one element
		rs, rn = []int64{0}, []int64{1}
	}
	if len(rs)+len(ks) > 4 {
		return nil, fmt.Sprintf("the reduced and kept free axes need %d dimensions, the word's pattern 4", len(rs)+len(ks)), nil
	}
	if rp.ch != d.ch {
		return nil, "", illegal("src spans %d partitions, dst %d: the reduction keeps the partitions", rp.ch, d.ch)
	}
	s := cpat{addr: src.addr, ch: rp.ch, steps: append(rs, ks...), nums: append(rn, kn...)}
	for len(s.steps) < 4 {
		s.steps, s.nums = append(s.steps, 0), append(s.nums, 1)
	}
	var errs []error
	w := isa.New(p.gen, compute.OpTensorReduce)
	set := func(path string, v int64) { errs = append(errs, w.Set(path, v)) }
	set("in_dtype", int64(src.dt))
	out := dst.dt
	if mean {
		out = dtype.FP32 // the sum stays FP32 until the scale rounds it once
	}
	set("out_dtype", int64(out))
	set("op", int64(op))
	set("op_dim", int64(opDims[len(rs)-1]))
	if c.Negate && !mean {
		set("negated", 1)
	}
	set("num_active_channels", d.ch)
	errs = append(errs, setPattern(&w, "src_mem_pattern", s), setPattern(&w, "dst_mem_pattern", d))
	if err := errors.Join(errs...); err != nil {
		return nil, "", progErr("a TENSOR_REDUCE field does not fit: %v", err)
	}
	if !mean {
		return []isa.Inst{w}, "", nil
	}
	if out != dst.dt { // the FP32 sum goes through dst itself only when dst is FP32
		return nil, "mean into " + dst.dt.String() + " needs an FP32 scratch tile", nil
	}
	scale := 1 / float64(group)
	if c.Negate {
		scale = -scale
	}
	ts := isa.New(p.gen, compute.OpTensorScalar)
	set = func(path string, v int64) { errs = append(errs, ts.Set(path, v)) }
	set("in_dtype", int64(dst.dt))
	set("out_dtype", int64(dst.dt))
	set("op0", int64(isa.ALUOpMult))
	set("op1", int64(isa.ALUOpBypass))
	set("imm0", f32bits(scale))
	set("imm1", 0)
	set("num_active_channels", d.ch)
	d3, err := p.operand(dst, 3)
	if err != nil {
		return nil, "", err
	}
	errs = append(errs, setPattern(&ts, "src_mem_pattern", d3), setPattern(&ts, "dst_mem_pattern", d3))
	if err := errors.Join(errs...); err != nil {
		return nil, "", progErr("a TENSOR_SCALAR field does not fit: %v", err)
	}
	return []isa.Inst{w, ts}, "", nil
}

// reduceLoop is a reduction as a Go loop in float32: src's elements in
// pattern order, each folded into the dst element its kept axes name.
func reduceLoop(src, dst *leg, red []bool, name string, negate bool) func(r *runner) error {
	shape := src.shape
	return func(r *runner) error {
		x, err := r.readF32(src)
		if err != nil {
			return err
		}
		out := make([]float32, dst.elems)
		seen := make([]bool, dst.elems)
		idx := make([]int64, len(shape))
		for _, v := range x {
			o := int64(0) // the kept axes' index, row-major
			for ax, i := range idx {
				if !red[ax] {
					o = o*shape[ax] + i
				}
			}
			if name == "all" {
				v = b2f(v != 0)
			}
			if !seen[o] {
				out[o], seen[o] = v, true
			} else {
				switch name {
				case "add", "sum", "mean":
					out[o] += v
				case "max", "maximum":
					out[o] = float32(math.Max(float64(out[o]), float64(v)))
				case "min", "minimum", "all":
					out[o] = float32(math.Min(float64(out[o]), float64(v)))
				case "multiply", "prod":
					out[o] *= v
				}
			}
			for ax := len(idx) - 1; ax >= 0; ax-- {
				if idx[ax]++; idx[ax] < shape[ax] {
					break
				}
				idx[ax] = 0
			}
		}
		n := float32(src.elems / max(dst.elems, 1))
		for k := range out {
			if name == "mean" {
				out[k] /= n
			}
			if negate {
				out[k] = -out[k]
			}
		}
		return r.writeF32(dst, out)
	}
}

func b2f(b bool) float32 {
	if b {
		return 1
	}
	return 0
}
