package nkic

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"ndma/dtype"
)

func f64p(v float64) *float64 { return &v }

// A vector add kernel (the NKI tutorial's), then each compute call on its
// tile, against plain loops.
func TestComputeCalls(t *testing.T) {
	const P, F = 128, 64
	a := f32s(P*F, func(i int) float32 { return float32(i%97) - 40 })
	b := f32s(P*F, func(i int) float32 { return float32(i%13) * 0.5 })
	cases := []struct {
		name  string
		call  *Call
		want  func(x, y float32, p, f int) float32
		exact bool
	}{
		{"tensor_tensor add", &Call{Op: "tensor_tensor", Srcs: []*AP{whole("ta"), whole("tb")}, ALUOp: "add"}, func(x, y float32, _, _ int) float32 { return x + y }, true},
		{"tensor_tensor maximum", &Call{Op: "tensor_tensor", Srcs: []*AP{whole("ta"), whole("tb")}, ALUOp: "maximum"}, func(x, y float32, _, _ int) float32 { return max(x, y) }, true},
		{"tensor_scalar", &Call{Op: "tensor_scalar", Src: whole("ta"), ALUOp: "multiply", Operand0: f64p(2), ALUOp1: "add", Operand1: f64p(1)}, func(x, _ float32, _, _ int) float32 { return x*2 + 1 }, true},
		{"activation relu", &Call{Op: "activation", Src: whole("ta"), Func: "relu"}, func(x, _ float32, _, _ int) float32 { return max(x, 0) }, true},
		{"tensor_copy", &Call{Op: "tensor_copy", Src: whole("tb")}, func(_, y float32, _, _ int) float32 { return y }, true},
		{"memset", &Call{Op: "memset", Value: f64p(3.5)}, func(_, _ float32, _, _ int) float32 { return 3.5 }, true},
		{"iota", &Call{Op: "iota", Value: f64p(7), Coefs: []int64{100, 1}}, func(_, _ float32, p, f int) float32 { return float32(7 + 100*p + f) }, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.call.Dst = whole("tc")
			tc.call.Line = 9
			p := build(t, "trn2", []*Tensor{
				ten("a", "hbm", "float32", "input", P, F), ten("b", "hbm", "float32", "input", P, F),
				ten("ta", "sbuf", "float32", "", P, F), ten("tb", "sbuf", "float32", "", P, F), ten("tc", "sbuf", "float32", "", P, F),
				ten("out", "hbm", "float32", "output", P, F),
			},
				&Call{Op: "load", Dst: whole("ta"), Src: whole("a")}, &Call{Op: "load", Dst: whole("tb"), Src: whole("b")},
				tc.call, &Call{Op: "store", Dst: whole("out"), Src: whole("tc")})
			out, tr := run(t, p, map[string]*Array{"a": arr(dtype.FP32, a, P, F), "b": arr(dtype.FP32, b, P, F)})
			for i := range P * F {
				if got, want := getF32(out["out"].Data, i), tc.want(getF32(a, i), getF32(b, i), i/F, i%F); got != want {
					t.Fatalf("out[%d][%d] = %v, want %v", i/F, i%F, got, want)
				}
			}
			if c := tr.Calls[2]; c.Kind != "compute" || c.Exact != tc.exact || c.Engine == "" {
				t.Errorf("trace: %+v", c)
			}
		})
	}
}

func TestMatmulFallback(t *testing.T) {
	const K, M, N = 128, 64, 32
	x := f32s(K*M, func(i int) float32 { return float32(i%7) - 3 })
	y := f32s(K*N, func(i int) float32 { return float32(i%5) * 0.25 })
	p := build(t, "trn2", []*Tensor{
		ten("x", "hbm", "float32", "input", K, M), ten("y", "hbm", "float32", "input", K, N),
		ten("tx", "sbuf", "float32", "", K, M), ten("ty", "sbuf", "float32", "", K, N),
		ten("ps", "psum", "float32", "", M, N), ten("r", "sbuf", "float32", "", M, N), ten("out", "hbm", "float32", "output", M, N),
	},
		&Call{Op: "load", Dst: whole("tx"), Src: whole("x")}, &Call{Op: "load", Dst: whole("ty"), Src: whole("y")},
		&Call{Op: "nc_matmul", Dst: whole("ps"), Stationary: whole("tx"), Moving: whole("ty")},
		&Call{Op: "tensor_copy", Dst: whole("r"), Src: whole("ps")},
		&Call{Op: "store", Dst: whole("out"), Src: whole("r")})
	out, tr := run(t, p, map[string]*Array{"x": arr(dtype.FP32, x, K, M), "y": arr(dtype.FP32, y, K, N)})
	for m := range M {
		for n := range N {
			var s float32
			for k := range K {
				s += getF32(x, k*M+m) * getF32(y, k*N+n)
			}
			if got := getF32(out["out"].Data, m*N+n); math.Abs(float64(got-s)) > 1e-3 {
				t.Fatalf("out[%d][%d] = %v, want %v", m, n, got, s)
			}
		}
	}
	if len(tr.Inexact) != 1 || tr.Inexact[0] != 2 {
		t.Errorf("inexact calls %v, want [2]", tr.Inexact)
	}
}

// FuzzParse: the JSON reader and the compiler refuse any input with an
// error, never a panic.
func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"target":"trn2","tensors":[{"name":"a","buffer":"hbm","dtype":"float32","shape":[4,4],"kind":"input"},{"name":"t","buffer":"sbuf","dtype":"float32","shape":[4,4]}],"calls":[{"op":"dma_copy","dst":{"tensor":"t"},"src":{"tensor":"a","pattern":[[4,4],[1,4]]}}]}`))
	f.Add([]byte(`{"tensors":[{"name":"i","buffer":"sbuf","dtype":"uint32","shape":[2,1]},{"name":"a","buffer":"hbm","dtype":"float16","shape":[16,8]},{"name":"t","buffer":"sbuf","dtype":"float16","shape":[2,8]}],"calls":[{"op":"dma_copy","dst":{"tensor":"t"},"src":{"tensor":"a","pattern":[[8,2],[1,8]],"vector_offset":{"tensor":"i"}},"oob_mode":"skip"},{"op":"dma_transpose","dst":{"tensor":"t"},"src":{"tensor":"a","slices":[[0,16,1],[0,2,1]]}}]}`))
	f.Add([]byte(`{"target":"trn1","tensors":[],"calls":[{"op":"memset"}]}`))
	f.Add([]byte(`{"tensors":[{"name":"t","buffer":"sbuf","dtype":"float32","shape":[4,2,3]},{"name":"r","buffer":"sbuf","dtype":"float16","shape":[4,3]}],"calls":[{"op":"tensor_reduce","dst":{"tensor":"r"},"src":{"tensor":"t"},"axes":[1],"alu_op":"mean","negate":true},{"op":"tensor_reduce","dst":{"tensor":"r"},"src":{"tensor":"t","slices":[[0,1,1],[0,2,1],[0,3,1]]},"axes":[0,1],"alu_op":"all"}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := Parse(bytes.NewReader(b))
		if err != nil {
			if strings.Contains(err.Error(), "panic") {
				t.Fatal(err)
			}
			return
		}
		if lws, err := p.Compile(); err == nil {
			for _, lw := range lws {
				if lw.Mode != "" && len(lw.Run) == 0 && !lw.skip {
					t.Fatalf("%s compiled to no word", lw.Call.Where())
				}
			}
		}
	})
}
