package nkic

import (
	"math"
	"strings"
	"testing"

	"ndma/dtype"
)

// Per-partition operands against plain loops: tensor_scalar with (P, 1)
// tiles as operand0/operand1 (and reversed), activation with a bias tile
// (float32 and float16) and a scale tile, each an exact word reading a
// pointer scalar.
func TestPerPartitionOperands(t *testing.T) {
	const P, F = 64, 12
	x := f32s(P*F, func(i int) float32 { return float32(i%23)/4 - 2 })
	m := f32s(P, func(i int) float32 { return float32(i%7) - 3 })
	r := f32s(P, func(i int) float32 { return 0.5 + float32(i%5)/4 })
	xm := func(i int) (float64, float64, float64) {
		return float64(getF32(x, i)), float64(getF32(m, i/F)), float64(getF32(r, i/F))
	}
	f16m := make([]byte, 2*P) // m as float16 (its values are exact in float16)
	if err := dtype.Convert(f16m, dtype.FP16, m, dtype.FP32); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		call *Call
		mdt  string
		want func(i int) float64
	}{
		{"(x - m) * r", &Call{Op: "tensor_scalar", ALUOp: "subtract", Operand0Tile: whole("tm"), ALUOp1: "multiply", Operand1Tile: whole("tr")}, "float32",
			func(i int) float64 { a, b, c := xm(i); return (a - b) * c }},
		{"(m - x) + 1, reversed", &Call{Op: "tensor_scalar", ALUOp: "subtract", Operand0Tile: whole("tm"), Reverse0: true, ALUOp1: "add", Operand1: f64p(1)}, "float32",
			func(i int) float64 { a, b, _ := xm(i); return b - a + 1 }},
		{"exp(x + m)", &Call{Op: "activation", Func: "exp", BiasTile: whole("tm")}, "float32",
			func(i int) float64 { a, b, _ := xm(i); return math.Exp(a + b) }},
		{"exp(r·x + m), a scale tile", &Call{Op: "activation", Func: "exp", ScaleTile: whole("tr"), BiasTile: whole("tm")}, "float32",
			func(i int) float64 { a, b, c := xm(i); return math.Exp(c*a + b) }},
		{"exp(x + m), an fp16 bias", &Call{Op: "activation", Func: "exp", BiasTile: whole("tm")}, "float16",
			func(i int) float64 { a, b, _ := xm(i); return math.Exp(a + b) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.call.Dst, tc.call.Src = whole("ty"), whole("tx")
			p := build(t, "trn2", []*Tensor{
				ten("x", "hbm", "float32", "input", P, F), ten("m", "hbm", tc.mdt, "input", P, 1), ten("r", "hbm", "float32", "input", P, 1),
				ten("tx", "sbuf", "float32", "", P, F), ten("tm", "sbuf", tc.mdt, "", P, 1), ten("tr", "sbuf", "float32", "", P, 1),
				ten("ty", "sbuf", "float32", "", P, F), ten("y", "hbm", "float32", "output", P, F),
			},
				&Call{Op: "load", Dst: whole("tx"), Src: whole("x")}, &Call{Op: "load", Dst: whole("tm"), Src: whole("m")},
				&Call{Op: "load", Dst: whole("tr"), Src: whole("r")}, tc.call, &Call{Op: "store", Dst: whole("y"), Src: whole("ty")})
			mb := m
			if tc.mdt == "float16" {
				mb = f16m
			}
			dt := dtype.FP32
			if tc.mdt == "float16" {
				dt = dtype.FP16
			}
			out, tr := run(t, p, map[string]*Array{"x": arr(dtype.FP32, x, P, F), "m": arr(dt, mb, P, 1), "r": arr(dtype.FP32, r, P, 1)})
			for i := range P * F {
				got, want := float64(getF32(out["y"].Data, i)), tc.want(i)
				if math.Abs(got-want) > 2e-6*math.Max(1, math.Abs(want)) {
					t.Fatalf("y[%d][%d] = %v, want %v", i/F, i%F, got, want)
				}
			}
			if c := tr.Calls[3]; !c.Exact || len(c.Words) != 1 {
				t.Errorf("trace: exact %v, %d words", c.Exact, len(c.Words))
			} else if tc.call.ScaleTile != nil && !strings.Contains(c.Words[0].Text, "scale_src=POINTER_IMMEDIATE") {
				t.Errorf("a scale tile's word: %s", c.Words[0].Text)
			}
		})
	}
}

// A per-partition operand that is not a (P, 1) tile over the data's
// partitions, not float32 (tensor_scalar), or starts below the data's
// first partition is refused.
func TestPerPartitionOperandRefused(t *testing.T) {
	for _, tc := range []struct {
		name string
		call *Call
	}{
		{"two columns", &Call{Op: "tensor_scalar", Dst: whole("ty"), Src: whole("tx"), ALUOp: "add", Operand0Tile: whole("w2")}},
		{"fewer partitions", &Call{Op: "tensor_scalar", Dst: whole("ty"), Src: whole("tx"), ALUOp: "add", Operand0Tile: &AP{Tensor: "tm", Slices: [][3]int64{{0, 4, 1}, {0, 1, 1}}}}},
		{"float16 operand", &Call{Op: "tensor_scalar", Dst: whole("ty"), Src: whole("tx"), ALUOp: "add", Operand0Tile: whole("h")}},
		{"below the data", &Call{Op: "activation", Func: "exp", Dst: &AP{Tensor: "ty", Slices: [][3]int64{{4, 8, 1}, {0, 4, 1}}}, Src: &AP{Tensor: "tx", Slices: [][3]int64{{4, 8, 1}, {0, 4, 1}}}, BiasTile: &AP{Tensor: "tm", Slices: [][3]int64{{0, 4, 1}, {0, 1, 1}}}}},
		{"float16 scale", &Call{Op: "activation", Func: "exp", Dst: whole("ty"), Src: whole("tx"), ScaleTile: whole("h")}},
		{"two-column scale", &Call{Op: "activation", Func: "exp", Dst: whole("ty"), Src: whole("tx"), ScaleTile: whole("w2")}},
		{"no operand", &Call{Op: "tensor_scalar", Dst: whole("ty"), Src: whole("tx"), ALUOp: "add"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := build(t, "trn2", []*Tensor{ten("tx", "sbuf", "float32", "", 8, 4), ten("ty", "sbuf", "float32", "", 8, 4),
				ten("tm", "sbuf", "float32", "", 8, 1), ten("w2", "sbuf", "float32", "", 8, 2), ten("h", "sbuf", "float16", "", 8, 1)}, tc.call)
			if _, err := p.Compile(); err == nil {
				t.Fatal("compiled")
			}
		})
	}
}
