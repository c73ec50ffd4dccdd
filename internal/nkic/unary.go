package nkic

import (
	"math"
	"sort"
	"strings"

	"ndma/internal/compute"
)

// unaryFuncs are the element-wise nl functions no word computes: neither
// an ACT function (docs/compute.md §14 lists them) nor an ALU op forms
// them, so the "elementwise" call runs them as a Go loop in float64,
// rounded once to float32, flagged not exact. The closed forms are NumPy's
// (the NKI pages say "Similar to numpy.floor" and so on).
var unaryFuncs = map[string]func(float64) float64{
	"floor": math.Floor, // "the largest integer i, such that i <= x"
	"ceil":  math.Ceil,
	"trunc": math.Trunc, // "the fractional part of the signed number x is discarded"
	"cos":   math.Cos,
	"tan":   math.Tan,
}

// compileElementwise: dst = f(src) element for element, f one of unaryFuncs.
func (p *Program) compileElementwise(lw *Lowered, c *Call, dst *leg) (*Lowered, error) {
	name := strings.TrimPrefix(strings.TrimPrefix(c.Func, "nl."), "np.")
	f, ok := unaryFuncs[name]
	if !ok {
		names := make([]string, 0, len(unaryFuncs))
		for k := range unaryFuncs {
			names = append(names, k)
		}
		sort.Strings(names)
		return nil, illegal("elementwise func %q: want one of %s", c.Func, strings.Join(names, ", "))
	}
	ls, err := p.sources(c)
	if err != nil {
		return nil, err
	}
	if len(ls) != 1 {
		return nil, progErr("elementwise takes one source, %d given", len(ls))
	}
	src := ls[0]
	if src.elems != dst.elems {
		return nil, progErr("src has %d elements, dst %d: elementwise works element for element", src.elems, dst.elems)
	}
	for _, l := range []*leg{src, dst} {
		if _, err := p.operand(l, 4); err != nil {
			return nil, err
		}
	}
	lw.Exact, lw.Engine, lw.Bytes = false, "vector (DVE)", dst.elems*dst.esize
	lw.Note = "computed by ndma, not by a word (no ACT function or ALU op is " + name + ")"
	lw.ns = p.perPartitionNS(lw.Engine, compute.OpTensorScalar, src)
	lw.eval = func(r *runner) error {
		x, err := r.readF32(src)
		if err != nil {
			return err
		}
		for k, v := range x {
			x[k] = float32(f(float64(v)))
		}
		return r.writeF32(dst, x)
	}
	return lw, nil
}
