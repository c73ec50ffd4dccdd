package nkic

import (
	"encoding/binary"
	"math"
	"testing"

	"ndma/dtype"
)

// The selection calls against plain loops written here: where with a tile
// and a number as y, affine_select's causal mask (i_p ≥ i_f) with an
// offset, max8 with ties, nc_find_index8 with a value absent.
func TestSelectCalls(t *testing.T) {
	const P, F = 16, 24
	x := f32s(P*F, func(i int) float32 { return float32((i*37)%29) - 14 })
	y := f32s(P*F, func(i int) float32 { return float32(i) / 4 })
	cond := f32s(P*F, func(i int) float32 { return float32((i / 3) % 2) })
	at := func(b []byte, p, f int) float32 { return getF32(b, p*F+f) }
	type tc struct {
		name  string
		call  *Call
		extra []*Tensor
		want  func(p, f int) float64 // over r (P × F) — or P × 8 for max8
		cols  int
	}
	cases := []tc{
		{"where tiles", &Call{Op: "select", Dst: whole("r"), Srcs: []*AP{whole("tc"), whole("tx"), whole("ty")}}, nil,
			func(p, f int) float64 {
				if at(cond, p, f) != 0 {
					return float64(at(x, p, f))
				}
				return float64(at(y, p, f))
			}, F},
		{"where y a number", &Call{Op: "select", Dst: whole("r"), Srcs: []*AP{whole("tc"), whole("tx")}, Value: f64p(-7.5)}, nil,
			func(p, f int) float64 {
				if at(cond, p, f) != 0 {
					return float64(at(x, p, f))
				}
				return -7.5
			}, F},
		{"affine_select p - f + 3 >= 0", &Call{Op: "affine_select", Dst: whole("r"), Src: whole("tx"), Coefs: []int64{1, -1},
			Operand0: f64p(3), ALUOp: "greater_equal", Value: f64p(-9984)}, nil,
			func(p, f int) float64 {
				if p-f+3 >= 0 {
					return float64(at(x, p, f))
				}
				return -9984
			}, F},
		{"affine_select f == 2p (default cmp equal)", &Call{Op: "affine_select", Dst: whole("r"), Src: whole("tx"), Coefs: []int64{-2, 1},
			Value: f64p(0)}, nil,
			func(p, f int) float64 {
				if f == 2*p {
					return float64(at(x, p, f))
				}
				return 0
			}, F},
		{"max8 (ties kept)", &Call{Op: "max8", Dst: whole("m"), Src: whole("tx")}, []*Tensor{ten("m", "sbuf", "float32", "", P, 8)},
			func(p, k int) float64 {
				row := make([]float64, F)
				for f := range F {
					row[f] = float64(at(x, p, f))
				}
				for range k { // drop the k largest, one at a time
					best := 0
					for f := range F {
						if row[f] > row[best] {
							best = f
						}
					}
					row[best] = math.Inf(-1)
				}
				m := math.Inf(-1)
				for _, v := range row {
					m = math.Max(m, v)
				}
				return m
			}, 8},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ts := []*Tensor{
				ten("x", "hbm", "float32", "input", P, F), ten("y", "hbm", "float32", "input", P, F), ten("c", "hbm", "float32", "input", P, F),
				ten("tx", "sbuf", "float32", "", P, F), ten("ty", "sbuf", "float32", "", P, F), ten("tc", "sbuf", "float32", "", P, F),
				ten("r", "sbuf", "float32", "", P, F), ten("out", "hbm", "float32", "output", P, c.cols),
			}
			ts = append(ts, c.extra...)
			res := "r"
			if c.cols != F {
				res = "m"
			}
			p := build(t, "trn2", ts,
				&Call{Op: "load", Dst: whole("tx"), Src: whole("x")}, &Call{Op: "load", Dst: whole("ty"), Src: whole("y")},
				&Call{Op: "load", Dst: whole("tc"), Src: whole("c")}, c.call,
				&Call{Op: "store", Dst: whole("out"), Src: whole(res)})
			out, tr := run(t, p, map[string]*Array{"x": arr(dtype.FP32, x, P, F), "y": arr(dtype.FP32, y, P, F), "c": arr(dtype.FP32, cond, P, F)})
			for q := range P {
				for f := range c.cols {
					if got, want := float64(getF32(out["out"].Data, q*c.cols+f)), c.want(q, f); got != want {
						t.Fatalf("out[%d, %d] = %v, want %v", q, f, got, want)
					}
				}
			}
			ct := tr.Calls[3]
			if ct.Exact || ct.Note == "" || ct.TimeNS <= 0 {
				t.Errorf("trace: exact %v, note %q, %d ns; want not exact, a note and a time", ct.Exact, ct.Note, ct.TimeNS)
			}
		})
	}
}

// nc_find_index8: the first index of each value, in the order vals gives
// them (ties: both slots the first index), the all-ones sentinel where a
// value is absent, uint16 and uint32.
func TestFindIndex8(t *testing.T) {
	const P, F = 4, 12
	data := []float32{5, 1, 9, 9, 3, 7, 2, 8, 0, 6, 4, 5}
	x := f32s(P*F, func(i int) float32 { return data[i%F] + float32(i/F) })
	vals := f32s(P*8, func(i int) float32 {
		v := []float32{9, 9, 8, 7, 6, 5, 100, 0}[i%8]
		return v + float32(i/8)
	})
	for _, dt := range []string{"uint32", "uint16"} {
		t.Run(dt, func(t *testing.T) {
			p := build(t, "trn2", []*Tensor{
				ten("x", "hbm", "float32", "input", P, F), ten("v", "hbm", "float32", "input", P, 8),
				ten("tx", "sbuf", "float32", "", P, F), ten("tv", "sbuf", "float32", "", P, 8),
				ten("r", "sbuf", dt, "", P, 8), ten("out", "hbm", dt, "output", P, 8),
			},
				&Call{Op: "load", Dst: whole("tx"), Src: whole("x")}, &Call{Op: "load", Dst: whole("tv"), Src: whole("v")},
				&Call{Op: "nc_find_index8", Dst: whole("r"), Srcs: []*AP{whole("tx"), whole("tv")}},
				&Call{Op: "store", Dst: whole("out"), Src: whole("r")})
			out, _ := run(t, p, map[string]*Array{"x": arr(dtype.FP32, x, P, F), "v": arr(dtype.FP32, vals, P, 8)})
			none := uint64(0xFFFFFFFF)
			if dt == "uint16" {
				none = 0xFFFF
			}
			want := []uint64{2, 2, 7, 5, 9, 0, none, 8} // the same in every partition: data and vals shift alike
			for q := range P {
				for k := range 8 {
					var got uint64
					if dt == "uint32" {
						got = uint64(binary.LittleEndian.Uint32(out["out"].Data[4*(q*8+k):]))
					} else {
						got = uint64(binary.LittleEndian.Uint16(out["out"].Data[2*(q*8+k):]))
					}
					if got != want[k] {
						t.Fatalf("partition %d slot %d: %d, want %d", q, k, got, want[k])
					}
				}
			}
		})
	}
}

// The refusals: wrong source counts, too few elements for max8, a dst of
// the wrong shape or dtype, an unknown comparison, missing fields.
func TestSelectRefused(t *testing.T) {
	for _, tc := range []struct {
		name string
		call *Call
	}{
		{"where one source", &Call{Op: "select", Dst: whole("r"), Srcs: []*AP{whole("tx")}}},
		{"where y twice", &Call{Op: "select", Dst: whole("r"), Srcs: []*AP{whole("tx"), whole("tx"), whole("tx")}, Value: f64p(1)}},
		{"where sizes", &Call{Op: "select", Dst: whole("r"), Srcs: []*AP{whole("tx"), whole("tx"), whole("m")}}},
		{"affine_select coefs", &Call{Op: "affine_select", Dst: whole("r"), Src: whole("tx"), Coefs: []int64{1}, Value: f64p(0)}},
		{"affine_select no value", &Call{Op: "affine_select", Dst: whole("r"), Src: whole("tx"), Coefs: []int64{1, 1}}},
		{"affine_select cmp", &Call{Op: "affine_select", Dst: whole("r"), Src: whole("tx"), Coefs: []int64{1, 1}, Value: f64p(0), ALUOp: "add"}},
		{"max8 of 4 elements", &Call{Op: "max8", Dst: whole("m"), Src: whole("n4")}},
		{"max8 dst not 8 wide", &Call{Op: "max8", Dst: whole("r"), Src: whole("tx")}},
		{"find_index8 float dst", &Call{Op: "nc_find_index8", Dst: whole("m"), Srcs: []*AP{whole("tx"), whole("m")}}},
		{"find_index8 no vals", &Call{Op: "nc_find_index8", Dst: whole("i"), Src: whole("tx")}},
		{"operand in HBM", &Call{Op: "max8", Dst: whole("m"), Src: whole("h")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := build(t, "trn2", []*Tensor{ten("tx", "sbuf", "float32", "", 8, 16), ten("r", "sbuf", "float32", "", 8, 16),
				ten("m", "sbuf", "float32", "", 8, 8), ten("n4", "sbuf", "float32", "", 8, 4), ten("i", "sbuf", "uint32", "", 8, 8),
				ten("h", "hbm", "float32", "", 8, 16)}, tc.call)
			if _, err := p.Compile(); err == nil {
				t.Fatal("compiled")
			}
		})
	}
}

// tensor_copy_predicated: dst keeps its elements where the uint8 predicate
// is zero (non-zero with reverse), src a tile or a number; refusals for a
// float predicate and src/dst dtypes that differ.
func TestCopyPredicated(t *testing.T) {
	const P, F = 8, 10
	x := f32s(P*F, func(i int) float32 { return float32(i) + 0.5 })
	y := f32s(P*F, func(i int) float32 { return -float32(i) })
	pred := make([]byte, P*F)
	for i := range pred {
		pred[i] = byte(i % 3 % 2 * (i%5 + 1)) // zero and several non-zero values
	}
	for _, tc := range []struct {
		name string
		call *Call
		want func(i int) float32
	}{
		{"tile", &Call{Op: "tensor_copy_predicated", Dst: whole("d"), Srcs: []*AP{whole("tp"), whole("tx")}}, func(i int) float32 {
			if pred[i] != 0 {
				return getF32(x, i)
			}
			return getF32(y, i)
		}},
		{"tile reversed", &Call{Op: "tensor_copy_predicated", Dst: whole("d"), Srcs: []*AP{whole("tp"), whole("tx")}, Reverse0: true}, func(i int) float32 {
			if pred[i] == 0 {
				return getF32(x, i)
			}
			return getF32(y, i)
		}},
		{"number", &Call{Op: "tensor_copy_predicated", Dst: whole("d"), Srcs: []*AP{whole("tp")}, Value: f64p(9.25)}, func(i int) float32 {
			if pred[i] != 0 {
				return 9.25
			}
			return getF32(y, i)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := build(t, "trn2", []*Tensor{
				ten("x", "hbm", "float32", "input", P, F), ten("y", "hbm", "float32", "input", P, F), ten("pr", "hbm", "uint8", "input", P, F),
				ten("tx", "sbuf", "float32", "", P, F), ten("d", "sbuf", "float32", "", P, F), ten("tp", "sbuf", "uint8", "", P, F),
				ten("out", "hbm", "float32", "output", P, F),
			},
				&Call{Op: "load", Dst: whole("tx"), Src: whole("x")}, &Call{Op: "load", Dst: whole("d"), Src: whole("y")},
				&Call{Op: "load", Dst: whole("tp"), Src: whole("pr")}, tc.call,
				&Call{Op: "store", Dst: whole("out"), Src: whole("d")})
			out, tr := run(t, p, map[string]*Array{"x": arr(dtype.FP32, x, P, F), "y": arr(dtype.FP32, y, P, F), "pr": arr(dtype.U8, pred, P, F)})
			for i := range P * F {
				if got, want := getF32(out["out"].Data, i), tc.want(i); got != want {
					t.Fatalf("out[%d] = %v, want %v", i, got, want)
				}
			}
			if c := tr.Calls[3]; c.Exact || c.Engine != "vector (DVE)" {
				t.Errorf("trace: exact %v engine %q", c.Exact, c.Engine)
			}
		})
	}
	for _, call := range []*Call{
		{Op: "tensor_copy_predicated", Dst: whole("d"), Srcs: []*AP{whole("tx"), whole("tx")}},                 // a float predicate
		{Op: "tensor_copy_predicated", Dst: whole("d"), Srcs: []*AP{whole("tp"), whole("ti")}},                 // src int32, dst float32
		{Op: "tensor_copy_predicated", Dst: whole("d"), Srcs: []*AP{whole("tp")}},                              // no src
		{Op: "tensor_copy_predicated", Dst: whole("d"), Srcs: []*AP{whole("tp"), whole("tx")}, Value: f64p(1)}, // both
	} {
		p := build(t, "trn2", []*Tensor{ten("tx", "sbuf", "float32", "", P, F), ten("d", "sbuf", "float32", "", P, F),
			ten("tp", "sbuf", "uint8", "", P, F), ten("ti", "sbuf", "int32", "", P, F)}, call)
		if _, err := p.Compile(); err == nil {
			t.Errorf("%+v compiled", call.Srcs)
		}
	}
}
