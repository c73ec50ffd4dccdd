package nkic

import (
	"encoding/binary"
	"errors"
	"math"
	"testing"

	"ndma/dtype"
)

// range_select, select_reduce, nc_match_replace8 and gather_flattened on
// a run, against plain loops written here.
func TestGatherCalls(t *testing.T) {
	const P, F = 4, 12
	x := f32s(P*F, func(i int) float32 { return float32((i*7)%13) - 6 })
	xs := func(q, i int) float32 { return getF32(x, q*F+i) }
	lohi := f32s(2*P, func(i int) float32 { return []float32{1, 3, 0, 5, 6, 9, 4, 12}[i] }) // lo[q] then hi[q] per row
	p := build(t, "trn2", []*Tensor{
		ten("x", "hbm", "float32", "input", P, F), ten("b", "hbm", "float32", "input", P, 2),
		ten("tx", "sbuf", "float32", "", P, F), ten("tb", "sbuf", "float32", "", P, 2),
		ten("r", "sbuf", "float32", "", P, F), ten("m", "sbuf", "float32", "", P, 1),
		ten("pr", "sbuf", "uint8", "", P, F), ten("s", "sbuf", "float32", "", P, F), ten("m2", "sbuf", "float32", "", P, 1),
		ten("v", "sbuf", "float32", "", P, 8), ten("w", "sbuf", "float32", "", P, F), ten("ix", "sbuf", "uint32", "", P, 8),
		ten("g", "sbuf", "float32", "", P, 8),
		ten("o1", "hbm", "float32", "output", P, F), ten("o2", "hbm", "float32", "output", P, 1),
		ten("o3", "hbm", "float32", "output", P, F), ten("o4", "hbm", "float32", "output", P, 1),
		ten("o5", "hbm", "float32", "output", P, F), ten("o6", "hbm", "uint32", "output", P, 8),
		ten("o7", "hbm", "float32", "output", P, 8),
	},
		&Call{Op: "load", Dst: whole("tx"), Src: whole("x")}, &Call{Op: "load", Dst: whole("tb"), Src: whole("b")},
		// keep lo[q] <= i + 1 < hi[q]
		&Call{Op: "range_select", Dst: whole("r"), Src: whole("tx"), ALUOp: "greater_equal", ALUOp1: "less",
			Operand0Tile: &AP{Tensor: "tb", Pattern: [][2]int64{{2, P}, {1, 1}}}, Operand1Tile: &AP{Tensor: "tb", Pattern: [][2]int64{{2, P}, {1, 1}}, Offset: 1},
			RangeStart: f64p(1), Value: f64p(-100), ReduceRes: whole("m")},
		// predicate: x > 0 as uint8, then select x or -3 (reversed: x <= 0 keeps x)
		&Call{Op: "tensor_scalar", Dst: whole("pr"), Src: whole("tx"), ALUOp: "greater", Operand0: f64p(0)},
		&Call{Op: "select_reduce", Dst: whole("s"), Srcs: []*AP{whole("pr"), whole("tx")}, Value: f64p(-3), Reverse0: true, ReduceRes: whole("m2")},
		// the 8 largest, replaced by -inf
		&Call{Op: "max8", Dst: whole("v"), Src: whole("tx")},
		&Call{Op: "nc_match_replace8", Dst: whole("w"), Srcs: []*AP{whole("tx"), whole("v")}, Value: f64p(math.Inf(-1)), DstIdx: whole("ix")},
		// gather row q's elements at the matched indices
		&Call{Op: "gather_flattened", Dst: whole("g"), Srcs: []*AP{whole("tx"), whole("ix")}},
		&Call{Op: "store", Dst: whole("o1"), Src: whole("r")}, &Call{Op: "store", Dst: whole("o2"), Src: whole("m")},
		&Call{Op: "store", Dst: whole("o3"), Src: whole("s")}, &Call{Op: "store", Dst: whole("o4"), Src: whole("m2")},
		&Call{Op: "store", Dst: whole("o5"), Src: whole("w")}, &Call{Op: "store", Dst: whole("o6"), Src: whole("ix")},
		&Call{Op: "store", Dst: whole("o7"), Src: whole("g")})
	out, tr := run(t, p, map[string]*Array{"x": arr(dtype.FP32, x, P, F), "b": arr(dtype.FP32, lohi, P, 2)})
	for q := range P {
		lo, hi := getF32(lohi, 2*q), getF32(lohi, 2*q+1)
		rmax, smax := float32(math.Inf(-1)), float32(math.Inf(-1))
		for i := range F {
			want := float32(-100)
			if v := float32(i + 1); v >= lo && v < hi {
				want = xs(q, i)
			}
			if got := getF32(out["o1"].Data, q*F+i); got != want {
				t.Errorf("range_select[%d, %d] = %v, want %v", q, i, got, want)
			}
			rmax = max(rmax, want)
			want = -3
			if xs(q, i) <= 0 {
				want = xs(q, i)
			}
			if got := getF32(out["o3"].Data, q*F+i); got != want {
				t.Errorf("select_reduce[%d, %d] = %v, want %v", q, i, got, want)
			}
			smax = max(smax, want)
		}
		if got := getF32(out["o2"].Data, q); got != rmax {
			t.Errorf("range_select max[%d] = %v, want %v", q, got, rmax)
		}
		if got := getF32(out["o4"].Data, q); got != smax {
			t.Errorf("select_reduce max[%d] = %v, want %v", q, got, smax)
		}
		// the 8 matched indices are distinct, hold the row's 8 largest, and are -inf in w
		seen := map[uint32]bool{}
		for k := range 8 {
			i := binary.LittleEndian.Uint32(out["o6"].Data[4*(q*8+k):])
			if i >= F || seen[i] {
				t.Fatalf("row %d slot %d: index %d (seen %v)", q, k, i, seen)
			}
			seen[i] = true
			if got := getF32(out["o5"].Data, q*F+int(i)); !math.IsInf(float64(got), -1) {
				t.Errorf("row %d: w[%d] = %v, want -inf", q, i, got)
			}
			if got, want := getF32(out["o7"].Data, q*8+k), xs(q, int(i)); got != want {
				t.Errorf("gather[%d, %d] = %v, want x[%d] = %v", q, k, got, i, want)
			}
		}
		for i := range F {
			if !seen[uint32(i)] && getF32(out["o5"].Data, q*F+i) != xs(q, i) {
				t.Errorf("row %d: unmatched w[%d] changed", q, i)
			}
		}
	}
	for _, k := range []int{2, 4, 6, 7} {
		if tr.Calls[k].Exact || tr.Calls[k].Note == "" {
			t.Errorf("call %d (%s) flagged exact", k, tr.Calls[k].Op)
		}
	}
}

// nc_match_replace8 pairs repeated vals with their matches from the last
// slot down (the NKI page's example), and gather_flattened refuses an index
// past the row at run time, located.
func TestMatchReplaceDuplicatesAndGatherOOB(t *testing.T) {
	data := f32s(11, func(i int) float32 { return []float32{1, 2, 3, 4, 8, 8, 8, 8, 8, 8, 8}[i] })
	vals := f32s(8, func(i int) float32 { return []float32{3, 8, 8, 8, 8, 8, 8, 8}[i] })
	p := build(t, "trn2", []*Tensor{
		ten("d", "hbm", "float32", "input", 1, 11), ten("v", "hbm", "float32", "input", 1, 8),
		ten("td", "sbuf", "float32", "", 1, 11), ten("tv", "sbuf", "float32", "", 1, 8), ten("ix", "sbuf", "uint32", "", 1, 8),
		ten("o", "hbm", "uint32", "output", 1, 8),
	},
		&Call{Op: "load", Dst: whole("td"), Src: whole("d")}, &Call{Op: "load", Dst: whole("tv"), Src: whole("v")},
		&Call{Op: "nc_match_replace8", Dst: whole("td"), Srcs: []*AP{whole("td"), whole("tv")}, Value: f64p(0), DstIdx: whole("ix")},
		&Call{Op: "store", Dst: whole("o"), Src: whole("ix")})
	out, _ := run(t, p, map[string]*Array{"d": arr(dtype.FP32, data, 1, 11), "v": arr(dtype.FP32, vals, 1, 8)})
	for k, want := range []uint32{2, 10, 9, 8, 7, 6, 5, 4} {
		if got := binary.LittleEndian.Uint32(out["o"].Data[4*k:]); got != want {
			t.Errorf("dst_idx[%d] = %d, want %d", k, got, want)
		}
	}

	idx := make([]byte, 4*3)
	binary.LittleEndian.PutUint32(idx[4:], 11)
	p = build(t, "trn2", []*Tensor{
		ten("d", "hbm", "float32", "input", 1, 11), ten("i", "hbm", "uint32", "input", 1, 3),
		ten("td", "sbuf", "float32", "", 1, 11), ten("ti", "sbuf", "uint32", "", 1, 3), ten("g", "sbuf", "float32", "", 1, 3),
	},
		&Call{Op: "load", Dst: whole("td"), Src: whole("d")}, &Call{Op: "load", Dst: whole("ti"), Src: whole("i")},
		&Call{Op: "gather_flattened", Dst: whole("g"), Srcs: []*AP{whole("td"), whole("ti")}, Line: 9})
	lws, err := p.Compile()
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = RunCompiled(p, lws, map[string]*Array{"d": arr(dtype.FP32, data, 1, 11), "i": arr(dtype.U32, idx, 1, 3)}, Options{})
	var oob *OOBError
	var ce *CallError
	if !errors.As(err, &oob) || !errors.As(err, &ce) || ce.Call.Line != 9 || oob.Index != 11 || oob.Bound != 11 {
		t.Fatalf("err %v: want an OOBError of index 11 in call at line 9", err)
	}
}

// The refusals of programs given to ndma nki run, each located.
func TestGatherRefused(t *testing.T) {
	for _, tc := range []struct {
		name string
		call *Call
	}{
		{"range_select no bound1", &Call{Op: "range_select", Dst: whole("r"), Src: whole("x"), ALUOp: "less", ALUOp1: "less", Operand0: f64p(1)}},
		{"range_select comp add", &Call{Op: "range_select", Dst: whole("r"), Src: whole("x"), ALUOp: "add", ALUOp1: "less", Operand0: f64p(1), Operand1: f64p(2)}},
		{"range_select dst shape", &Call{Op: "range_select", Dst: whole("c"), Src: whole("x"), ALUOp: "less", ALUOp1: "less", Operand0: f64p(1), Operand1: f64p(2)}},
		{"range_select int reduce_res", &Call{Op: "range_select", Dst: whole("r"), Src: whole("x"), ALUOp: "less", ALUOp1: "less", Operand0: f64p(1), Operand1: f64p(2), ReduceRes: whole("ci")}},
		{"select_reduce float predicate", &Call{Op: "select_reduce", Dst: whole("r"), Srcs: []*AP{whole("x"), whole("x")}, Value: f64p(0)}},
		{"select_reduce no on_false", &Call{Op: "select_reduce", Dst: whole("r"), Srcs: []*AP{whole("p"), whole("x")}}},
		{"select_reduce one source", &Call{Op: "select_reduce", Dst: whole("r"), Srcs: []*AP{whole("x")}, Value: f64p(0)}},
		{"match_replace no imm", &Call{Op: "nc_match_replace8", Dst: whole("r"), Srcs: []*AP{whole("x"), whole("v")}}},
		{"match_replace vals 16", &Call{Op: "nc_match_replace8", Dst: whole("r"), Srcs: []*AP{whole("x"), whole("x")}, Value: f64p(0)}},
		{"match_replace float idx", &Call{Op: "nc_match_replace8", Dst: whole("r"), Srcs: []*AP{whole("x"), whole("v")}, Value: f64p(0), DstIdx: whole("v")}},
		{"gather float indices", &Call{Op: "gather_flattened", Dst: whole("r"), Srcs: []*AP{whole("x"), whole("x")}}},
		{"gather dst shape", &Call{Op: "gather_flattened", Dst: whole("c"), Srcs: []*AP{whole("x"), whole("u")}}},
		{"gather in HBM", &Call{Op: "gather_flattened", Dst: whole("r"), Srcs: []*AP{whole("h"), whole("u")}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.call.Line = 5
			p := build(t, "trn2", []*Tensor{ten("x", "sbuf", "float32", "", 4, 16), ten("r", "sbuf", "float32", "", 4, 16),
				ten("c", "sbuf", "float32", "", 4, 1), ten("ci", "sbuf", "int32", "", 4, 1), ten("p", "sbuf", "uint8", "", 4, 16),
				ten("v", "sbuf", "float32", "", 4, 8), ten("u", "sbuf", "uint32", "", 4, 16), ten("h", "hbm", "float32", "", 4, 16)}, tc.call)
			_, err := p.Compile()
			var ce *CallError
			if !errors.As(err, &ce) || ce.Call.Line != 5 || !(errors.Is(err, ErrProgram) || errors.Is(err, ErrIllegal)) {
				t.Fatalf("err %v: want a located ErrProgram/ErrIllegal", err)
			}
		})
	}
}
