package nkic

import (
	"errors"
	"math"
	"testing"

	"ndma/dtype"
)

// statsRun loads x (P × F float32) and the (P, 1) column s into SBUF, runs
// call (dst "ty" of dstF elements per partition, sources "tx", "tx2", "ts"),
// stores ty and returns it as float64s with the call's trace.
func statsRun(t *testing.T, call *Call, P, F, dstF int, x, x2, s []byte) ([]float64, CallTrace) {
	t.Helper()
	p := build(t, "trn2", []*Tensor{
		ten("x", "hbm", "float32", "input", P, F), ten("x2", "hbm", "float32", "input", P, F), ten("s", "hbm", "float32", "input", P, 1),
		ten("tx", "sbuf", "float32", "", P, F), ten("tx2", "sbuf", "float32", "", P, F), ten("ts", "sbuf", "float32", "", P, 1),
		ten("ty", "sbuf", "float32", "", P, dstF), ten("y", "hbm", "float32", "output", P, dstF),
	},
		&Call{Op: "load", Dst: whole("tx"), Src: whole("x")}, &Call{Op: "load", Dst: whole("tx2"), Src: whole("x2")},
		&Call{Op: "load", Dst: whole("ts"), Src: whole("s")}, call, &Call{Op: "store", Dst: whole("y"), Src: whole("ty")})
	out, tr := run(t, p, map[string]*Array{"x": arr(dtype.FP32, x, P, F), "x2": arr(dtype.FP32, x2, P, F), "s": arr(dtype.FP32, s, P, 1)})
	got := make([]float64, P*dstF)
	for i := range got {
		got[i] = float64(getF32(out["y"].Data, i))
	}
	return got, tr.Calls[3]
}

func near(got, want, tol float64) bool {
	return math.Abs(got-want) <= tol*math.Max(1, math.Abs(want))
}

// bn_stats against a two-pass float64 loop over the even and the odd
// elements, on widths with an odd count, one element, and the 512 maximum.
func TestBNStats(t *testing.T) {
	for _, F := range []int{1, 7, 64, 512} {
		const P = 5
		x := f32s(P*F, func(i int) float32 { return float32((i*29)%53)/7 - 3 })
		got, ct := statsRun(t, &Call{Op: "bn_stats", Dst: whole("ty"), Src: whole("tx")}, P, F, 6, x, x, f32s(P, func(int) float32 { return 0 }))
		for q := range P {
			for half := range 2 {
				var v []float64
				for i := half; i < F; i += 2 {
					v = append(v, float64(getF32(x, q*F+i)))
				}
				n, mean, m2 := float64(len(v)), 0.0, 0.0
				for _, e := range v {
					mean += e / n
				}
				for _, e := range v {
					m2 += (e - mean) * (e - mean)
				}
				if n == 0 {
					mean = 0
				}
				for k, want := range []float64{n, mean, m2} {
					if g := got[q*6+3*half+k]; !near(g, want, 1e-5) {
						t.Fatalf("F=%d partition %d half %d field %d = %v, want %v", F, q, half, k, g, want)
					}
				}
			}
		}
		if ct.Exact || ct.Note == "" || ct.TimeNS <= 0 {
			t.Errorf("F=%d trace: exact %v, note %q, %d ns", F, ct.Exact, ct.Note, ct.TimeNS)
		}
	}
}

// bn_aggr of bn_stats triples over chunks of a row (the last one partial)
// against the row's mean and population variance computed in one pass.
func TestBNAggr(t *testing.T) {
	const P, F = 4, 12 // 4 triples: chunks of 5, 5, 2 elements as bn_stats writes them, and an empty one
	row := f32s(P*11, func(i int) float32 { return float32((i*13)%31)/5 - 2 })
	x := make([]float32, 0, P*F)
	for q := range P {
		vals := make([]float64, 11)
		for i := range vals {
			vals[i] = float64(getF32(row, q*11+i))
		}
		for _, c := range [][2]int{{0, 5}, {5, 10}, {10, 11}, {11, 11}} {
			n, mean, m2 := float64(c[1]-c[0]), 0.0, 0.0
			for _, e := range vals[c[0]:c[1]] {
				mean += e
			}
			if n > 0 {
				mean /= n
			}
			for _, e := range vals[c[0]:c[1]] {
				m2 += (e - mean) * (e - mean)
			}
			x = append(x, float32(n), float32(mean), float32(m2))
		}
	}
	xb := f32s(P*F, func(i int) float32 { return x[i] })
	got, ct := statsRun(t, &Call{Op: "bn_aggr", Dst: whole("ty"), Src: whole("tx")}, P, F, 2, xb, xb, f32s(P, func(int) float32 { return 0 }))
	for q := range P {
		var s, s2 float64
		for i := range 11 {
			e := float64(getF32(row, q*11+i))
			s, s2 = s+e, s2+e*e
		}
		mean := s / 11
		v := s2/11 - mean*mean
		if !near(got[2*q], mean, 1e-5) || !near(got[2*q+1], v, 1e-4) {
			t.Fatalf("partition %d: mean, var = %v, %v; want %v, %v", q, got[2*q], got[2*q+1], mean, v)
		}
	}
	if ct.Exact {
		t.Error("bn_aggr traced exact")
	}
}

// tensor_tensor_scan (a Go loop) and scalar_tensor_tensor (a TENSOR_SCALAR
// and a TENSOR_TENSOR word) against loops written here, with both operator
// orders and an initial value / operand0 as a number or a (P, 1) tile.
func TestScanAndScalarTensorTensor(t *testing.T) {
	const P, F = 6, 9
	a := f32s(P*F, func(i int) float32 { return float32((i*7)%11)/10 - 0.4 })
	b := f32s(P*F, func(i int) float32 { return float32((i*5)%13)/4 - 1.1 }) // never 0 (a divisor)
	s := f32s(P, func(i int) float32 { return float32(i) - 2.5 })
	A := func(q, i int) float64 { return float64(getF32(a, q*F+i)) }
	B := func(q, i int) float64 { return float64(getF32(b, q*F+i)) }
	S := func(q int) float64 { return float64(getF32(s, q)) }
	scan := func(init func(q int) float64, step func(prev, x, y float64) float64) func(q, i int) float64 {
		return func(q, i int) float64 {
			acc := init(q)
			for k := 0; k <= i; k++ {
				acc = step(acc, A(q, k), B(q, k))
			}
			return acc
		}
	}
	zero := func(int) float64 { return 0 }
	for _, tc := range []struct {
		name string
		call *Call
		want func(q, i int) float64
	}{
		{"scan a·prev + b", &Call{Op: "tensor_tensor_scan", ALUOp: "multiply", ALUOp1: "add", Initial: f64p(0)},
			scan(zero, func(p, x, y float64) float64 { return x*p + y })},
		{"scan max(a, prev) + b, initial tile", &Call{Op: "tensor_tensor_scan", ALUOp: "maximum", ALUOp1: "add", InitialTile: whole("ts")},
			scan(S, func(p, x, y float64) float64 { return math.Max(x, p) + y })},
		{"scan reversed: b - (prev - a)", &Call{Op: "tensor_tensor_scan", ALUOp: "subtract", ALUOp1: "subtract", Initial: f64p(1.5), Reverse0: true, Reverse1: true},
			scan(func(int) float64 { return 1.5 }, func(p, x, y float64) float64 { return y - (p - x) })},
		{"scan reversed op0: (prev - a) / b", &Call{Op: "tensor_tensor_scan", ALUOp: "subtract", ALUOp1: "divide", Initial: f64p(1.5), Reverse0: true},
			scan(func(int) float64 { return 1.5 }, func(p, x, y float64) float64 { return (p - x) / y })},
		{"scan (a - prev) - b", &Call{Op: "tensor_tensor_scan", ALUOp: "subtract", ALUOp1: "subtract", Initial: f64p(1.5)},
			scan(func(int) float64 { return 1.5 }, func(p, x, y float64) float64 { return (x - p) - y })},
		{"stt (a - s)·b, s a tile", &Call{Op: "scalar_tensor_tensor", ALUOp: "subtract", Operand0Tile: whole("ts"), ALUOp1: "multiply"},
			func(q, i int) float64 { return (A(q, i) - S(q)) * B(q, i) }},
		{"stt reversed: b - (2 - a)", &Call{Op: "scalar_tensor_tensor", ALUOp: "subtract", Operand0: f64p(2), ALUOp1: "subtract", Reverse0: true, Reverse1: true},
			func(q, i int) float64 { return B(q, i) - (2 - A(q, i)) }},
		{"stt (a + 3) / b", &Call{Op: "scalar_tensor_tensor", ALUOp: "add", Operand0: f64p(3), ALUOp1: "divide"},
			func(q, i int) float64 { return (A(q, i) + 3) / B(q, i) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.call.Dst, tc.call.Srcs = whole("ty"), []*AP{whole("tx"), whole("tx2")}
			got, ct := statsRun(t, tc.call, P, F, F, a, b, s)
			for q := range P {
				for i := range F {
					if g, w := got[q*F+i], tc.want(q, i); !near(g, w, 1e-5) {
						t.Fatalf("[%d][%d] = %v, want %v", q, i, g, w)
					}
				}
			}
			stt := tc.call.Op == "scalar_tensor_tensor" // TENSOR_SCALAR + TENSOR_TENSOR words (sttWords)
			if ct.Exact != stt || stt != (len(ct.Words) == 2) || !stt && ct.Note == "" {
				t.Errorf("trace: exact %v, %d words, note %q", ct.Exact, len(ct.Words), ct.Note)
			}
		})
	}
}

// Malformed statistics and scan calls are refused at compile time, each a
// located error of its kind.
func TestStatsRefused(t *testing.T) {
	src2 := []*AP{whole("a"), whole("b")}
	for _, tc := range []struct {
		name string
		call *Call
		kind error
	}{
		{"bn_stats over 512", &Call{Op: "bn_stats", Dst: whole("st"), Src: whole("wide")}, ErrIllegal},
		{"bn_stats dst of 5", &Call{Op: "bn_stats", Dst: whole("st5"), Src: whole("a")}, ErrIllegal},
		{"bn_aggr of 4 per partition", &Call{Op: "bn_aggr", Dst: whole("mv"), Src: whole("four")}, ErrIllegal},
		{"bn_stats from HBM", &Call{Op: "bn_stats", Dst: whole("st"), Src: whole("h")}, ErrIllegal},
		{"scan of a bitwise op", &Call{Op: "tensor_tensor_scan", Dst: whole("a"), Srcs: src2, ALUOp: "bitwise_and", ALUOp1: "add", Initial: f64p(0)}, ErrIllegal},
		{"scan of an unknown op", &Call{Op: "tensor_tensor_scan", Dst: whole("a"), Srcs: src2, ALUOp: "frobnicate", ALUOp1: "add", Initial: f64p(0)}, ErrIllegal},
		{"scan without initial", &Call{Op: "tensor_tensor_scan", Dst: whole("a"), Srcs: src2, ALUOp: "add", ALUOp1: "add"}, ErrProgram},
		{"scan of mismatched shapes", &Call{Op: "tensor_tensor_scan", Dst: whole("a"), Srcs: []*AP{whole("a"), whole("mv")}, ALUOp: "add", ALUOp1: "add", Initial: f64p(0)}, ErrIllegal},
		{"scan of one source", &Call{Op: "tensor_tensor_scan", Dst: whole("a"), Srcs: src2[:1], ALUOp: "add", ALUOp1: "add", Initial: f64p(0)}, ErrProgram},
		{"stt of two PSUM tiles", &Call{Op: "scalar_tensor_tensor", Dst: whole("a"), Srcs: []*AP{whole("pa"), whole("pb")}, ALUOp: "add", Operand0: f64p(1), ALUOp1: "add"}, ErrIllegal},
		{"stt operand0 of two columns", &Call{Op: "scalar_tensor_tensor", Dst: whole("a"), Srcs: src2, ALUOp: "add", Operand0Tile: whole("mv"), ALUOp1: "add"}, ErrIllegal},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := build(t, "trn2", []*Tensor{ten("a", "sbuf", "float32", "", 8, 4), ten("b", "sbuf", "float32", "", 8, 4),
				ten("wide", "sbuf", "float32", "", 8, 513), ten("st", "sbuf", "float32", "", 8, 6), ten("st5", "sbuf", "float32", "", 8, 5),
				ten("four", "sbuf", "float32", "", 8, 4), ten("mv", "sbuf", "float32", "", 8, 2), ten("h", "hbm", "float32", "", 8, 4),
				ten("pa", "psum", "float32", "", 8, 4), ten("pb", "psum", "float32", "", 8, 4)}, tc.call)
			_, err := p.Compile()
			var ce *CallError
			if !errors.Is(err, tc.kind) || !errors.As(err, &ce) {
				t.Fatalf("err = %v, want a located %v", err, tc.kind)
			}
		})
	}
}

// scalar_tensor_tensor falls back to the Go loop where its two words would
// not give the one instruction's values: a dst holding operand1 (in place)
// or a dst narrower than FP32 (the intermediate would round).
func TestScalarTensorTensorFallback(t *testing.T) {
	const P, F = 4, 6
	a := f32s(P*F, func(i int) float32 { return float32(i%7) - 3.3 })
	b := f32s(P*F, func(i int) float32 { return float32(i%5)/3 + 0.1 })
	for _, tc := range []struct {
		name, dst, dt string
	}{{"in place into operand1", "tb", "float32"}, {"a float16 dst", "th", "float16"}} {
		t.Run(tc.name, func(t *testing.T) {
			p := build(t, "trn2", []*Tensor{
				ten("a", "hbm", "float32", "input", P, F), ten("b", "hbm", "float32", "input", P, F),
				ten("ta", "sbuf", "float32", "", P, F), ten("tb", "sbuf", "float32", "", P, F), ten("th", "sbuf", "float16", "", P, F),
				ten("y", "hbm", tc.dt, "output", P, F),
			},
				&Call{Op: "load", Dst: whole("ta"), Src: whole("a")}, &Call{Op: "load", Dst: whole("tb"), Src: whole("b")},
				&Call{Op: "scalar_tensor_tensor", Dst: whole(tc.dst), Srcs: []*AP{whole("ta"), whole("tb")}, ALUOp: "multiply", Operand0: f64p(1.0 / 3), ALUOp1: "add"},
				&Call{Op: "store", Dst: whole("y"), Src: whole(tc.dst)})
			out, tr := run(t, p, map[string]*Array{"a": arr(dtype.FP32, a, P, F), "b": arr(dtype.FP32, b, P, F)})
			got := make([]byte, 4*P*F)
			if err := dtype.Convert(got, dtype.FP32, out["y"].Data, out["y"].DType); err != nil {
				t.Fatal(err)
			}
			for i := range P * F {
				// float32 throughout, rounded once to the dst dtype
				w := float32(getF32(a, i)*float32(1.0/3)) + getF32(b, i)
				want := float64(w)
				if tc.dt == "float16" {
					h := make([]byte, 2)
					wb := f32s(1, func(int) float32 { return w })
					if err := dtype.Convert(h, dtype.FP16, wb, dtype.FP32); err != nil {
						t.Fatal(err)
					}
					back := make([]byte, 4)
					if err := dtype.Convert(back, dtype.FP32, h, dtype.FP16); err != nil {
						t.Fatal(err)
					}
					want = float64(getF32(back, 0))
				}
				if g := float64(getF32(got, i)); g != want {
					t.Fatalf("[%d] = %v, want %v", i, g, want)
				}
			}
			if c := tr.Calls[2]; c.Exact || c.Note == "" {
				t.Errorf("trace: exact %v, note %q", c.Exact, c.Note)
			}
		})
	}
}
