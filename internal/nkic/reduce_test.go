package nkic

import (
	"math"
	"testing"

	"ndma/dtype"
)

// Reductions against a float64 loop written here: free axes as
// TENSOR_REDUCE words (mean with its TENSOR_SCALAR), the partition axis
// and `all` as the Go loop, on 2-D and 3-D tiles.
func TestReduceCalls(t *testing.T) {
	const P, A, B = 64, 6, 10
	x := f32s(P*A*B, func(i int) float32 { return float32((i*37)%101)/8 - 6 })
	at := func(p, a, b int) float64 { return float64(getF32(x, (p*A+a)*B+b)) }
	fold := func(name string, vals []float64) float64 {
		acc := vals[0]
		for _, v := range vals[1:] {
			switch name {
			case "add", "mean":
				acc += v
			case "max":
				acc = math.Max(acc, v)
			case "min":
				acc = math.Min(acc, v)
			case "multiply":
				acc *= v
			}
		}
		if name == "mean" {
			acc /= float64(len(vals))
		}
		return acc
	}
	cases := []struct {
		name   string
		op     string
		axes   []int
		negate bool
		shape  []int // dst
		words  int   // 0: not exact
		want   func(i []int) float64
	}{
		{"max over b", "max", []int{2}, false, []int{P, A}, 1, func(i []int) float64 {
			var v []float64
			for b := range B {
				v = append(v, at(i[0], i[1], b))
			}
			return fold("max", v)
		}},
		{"sum over a (middle axis)", "add", []int{1}, false, []int{P, B}, 1, func(i []int) float64 {
			var v []float64
			for a := range A {
				v = append(v, at(i[0], a, i[1]))
			}
			return fold("add", v)
		}},
		{"min over a and b, negated", "minimum", []int{1, 2}, true, []int{P, 1}, 1, func(i []int) float64 {
			var v []float64
			for a := range A {
				for b := range B {
					v = append(v, at(i[0], a, b))
				}
			}
			return -fold("min", v)
		}},
		{"mean over b", "mean", []int{2}, false, []int{P, A}, 2, func(i []int) float64 {
			var v []float64
			for b := range B {
				v = append(v, at(i[0], i[1], b))
			}
			return fold("mean", v)
		}},
		{"sum over the partitions", "add", []int{0}, false, []int{A, B}, 0, func(i []int) float64 {
			var v []float64
			for p := range P {
				v = append(v, at(p, i[0], i[1]))
			}
			return fold("add", v)
		}},
		{"all over b", "all", []int{2}, false, []int{P, A}, 0, func(i []int) float64 {
			for b := range B {
				if at(i[0], i[1], b) == 0 {
					return 0
				}
			}
			return 1
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			n := 1
			for _, d := range tc.shape {
				n *= d
			}
			p := build(t, "trn2", []*Tensor{
				ten("x", "hbm", "float32", "input", P, A, B), ten("tx", "sbuf", "float32", "", P, A, B),
				ten("r", "sbuf", "float32", "", tc.shape...), ten("out", "hbm", "float32", "output", tc.shape...),
			},
				&Call{Op: "load", Dst: whole("tx"), Src: whole("x")},
				&Call{Op: "tensor_reduce", Dst: whole("r"), Src: whole("tx"), ALUOp: tc.op, Axes: tc.axes, Negate: tc.negate, Line: 7},
				&Call{Op: "store", Dst: whole("out"), Src: whole("r")})
			out, tr := run(t, p, map[string]*Array{"x": arr(dtype.FP32, x, P, A, B)})
			for k := range n {
				idx := make([]int, len(tc.shape)) // k unravelled, row-major
				for d, rest := len(tc.shape)-1, k; d >= 0; d-- {
					idx[d] = rest % tc.shape[d]
					rest /= tc.shape[d]
				}
				got, want := float64(getF32(out["out"].Data, k)), tc.want(idx)
				if math.Abs(got-want) > 1e-4*math.Max(1, math.Abs(want)) {
					t.Fatalf("out%v = %v, want %v", idx, got, want)
				}
			}
			c := tr.Calls[1]
			if c.Exact != (tc.words > 0) || len(c.Words) != tc.words || c.Engine != "vector (DVE)" {
				t.Errorf("trace: exact %v, %d words, engine %q; want exact %v, %d words", c.Exact, len(c.Words), c.Engine, tc.words > 0, tc.words)
			}
			if c.TimeNS <= 0 {
				t.Errorf("time %d ns", c.TimeNS)
			}
		})
	}
}

// A reduction's refusals: bad axes, an element count that does not match,
// an op with no fold.
func TestReduceRefused(t *testing.T) {
	for _, tc := range []struct {
		name string
		call *Call
	}{
		{"axis past the tile", &Call{Op: "tensor_reduce", Dst: whole("r"), Src: whole("tx"), ALUOp: "max", Axes: []int{2}}},
		{"axis twice", &Call{Op: "tensor_reduce", Dst: whole("r"), Src: whole("tx"), ALUOp: "max", Axes: []int{1, 1}}},
		{"no axes", &Call{Op: "tensor_reduce", Dst: whole("r"), Src: whole("tx"), ALUOp: "max"}},
		{"dst size", &Call{Op: "tensor_reduce", Dst: whole("tx"), Src: whole("tx"), ALUOp: "max", Axes: []int{1}}},
		{"op", &Call{Op: "tensor_reduce", Dst: whole("r"), Src: whole("tx"), ALUOp: "divide", Axes: []int{1}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := build(t, "trn2", []*Tensor{ten("tx", "sbuf", "float32", "", 8, 4), ten("r", "sbuf", "float32", "", 8, 1)}, tc.call)
			if _, err := p.Compile(); err == nil {
				t.Fatal("compiled")
			}
		})
	}
}
