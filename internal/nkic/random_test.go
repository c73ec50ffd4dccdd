package nkic

import (
	"errors"
	"math"
	"strings"
	"testing"

	"ndma/dtype"
)

// SplitMix64 seeded 0 gives the published first outputs (the reference
// C code of Vigna's xoshiro page seeds its generators with it).
func TestSplitMix64Vectors(t *testing.T) {
	var s splitMix64
	for k, want := range []uint64{0xe220a8397b1dcdaf, 0x6e789e6aa1b965f4, 0x06c45d188009454f, 0xf88bb8a8724c81ec} {
		if got := s.next(); got != want {
			t.Fatalf("draw %d: %#x, want %#x", k, got, want)
		}
	}
}

// rand, random_seed and dropout on a run: rand's values are the stream's
// draws (top 24 bits / 2^24, from the vectors above) in the dst's order;
// a reseed to 0 repeats them; dropout zeroes an element where its draw
// is below the probability and keeps the rest unchanged; each call is
// flagged not exact.
func TestRandomCalls(t *testing.T) {
	const P, F = 2, 2
	x := f32s(P*F, func(i int) float32 { return float32(i + 1) })
	p := build(t, "trn2", []*Tensor{
		ten("x", "hbm", "float32", "input", P, F), ten("tx", "sbuf", "float32", "", P, F),
		ten("r", "sbuf", "float32", "", P, F), ten("d", "sbuf", "float32", "", P, F), ten("e", "sbuf", "float32", "", P, F),
		ten("pr", "sbuf", "float32", "", P, 1),
		ten("o1", "hbm", "float32", "output", P, F), ten("o2", "hbm", "float32", "output", P, F), ten("o3", "hbm", "float32", "output", P, F),
	},
		&Call{Op: "load", Dst: whole("tx"), Src: whole("x")},
		&Call{Op: "rand", Dst: whole("r")},
		&Call{Op: "random_seed", Value: f64p(0)},
		// the same four draws: element k dropped where draw k < 0.5
		&Call{Op: "dropout", Dst: whole("d"), Srcs: []*AP{whole("tx")}, Value: f64p(0.5)},
		// per partition: partition 0 keeps all (0.0), partition 1 drops all (1.0)
		&Call{Op: "iota", Dst: whole("pr"), Coefs: []int64{1, 0}},
		&Call{Op: "dropout", Dst: whole("e"), Srcs: []*AP{whole("tx"), whole("pr")}},
		&Call{Op: "store", Dst: whole("o1"), Src: whole("r")}, &Call{Op: "store", Dst: whole("o2"), Src: whole("d")},
		&Call{Op: "store", Dst: whole("o3"), Src: whole("e")})
	out, tr := run(t, p, map[string]*Array{"x": arr(dtype.FP32, x, P, F)})
	draws := []uint64{0xe220a8397b1dcdaf, 0x6e789e6aa1b965f4, 0x06c45d188009454f, 0xf88bb8a8724c81ec}
	for k, d := range draws {
		u := float32(d>>40) / (1 << 24)
		if got := getF32(out["o1"].Data, k); got != u {
			t.Errorf("rand[%d] = %v, want %v", k, got, u)
		}
		want := float32(k + 1)
		if u < 0.5 {
			want = 0
		}
		if got := getF32(out["o2"].Data, k); got != want {
			t.Errorf("dropout[%d] = %v, want %v (draw %v)", k, got, want, u)
		}
		want = float32(k + 1)
		if k >= F {
			want = 0
		}
		if got := getF32(out["o3"].Data, k); got != want {
			t.Errorf("dropout by partition [%d] = %v, want %v", k, got, want)
		}
	}
	for _, k := range []int{1, 2, 3, 5} {
		if ct := tr.Calls[k]; ct.Exact || ct.Note == "" {
			t.Errorf("call %d (%s): exact %v, note %q", k, ct.Op, ct.Exact, ct.Note)
		}
	}
}

// random_seed from an int32 tile reads its bits: a seed of −1 is
// 0xFFFFFFFF, the stream's state, whose first draw the test computes.
func TestRandomSeedTile(t *testing.T) {
	p := build(t, "trn2", []*Tensor{
		ten("s", "sbuf", "int32", "", 1, 1), ten("r", "sbuf", "float32", "", 1, 1), ten("o", "hbm", "float32", "output", 1, 1),
	},
		&Call{Op: "memset", Dst: whole("s"), Value: f64p(-1)},
		&Call{Op: "random_seed", Src: whole("s")},
		&Call{Op: "rand", Dst: whole("r")},
		&Call{Op: "store", Dst: whole("o"), Src: whole("r")})
	out, _ := run(t, p, nil)
	z := uint64(0xFFFFFFFF) + 0x9E3779B97F4A7C15 // SplitMix64's one step, written out
	z = (z ^ z>>30) * 0xBF58476D1CE4E5B9
	z = (z ^ z>>27) * 0x94D049BB133111EB
	z ^= z >> 31
	if got, want := getF32(out["o"].Data, 0), float32(z>>40)/(1<<24); got != want {
		t.Fatalf("rand after seed -1: %v, want %v", got, want)
	}
}

// The element-wise Go loops against math's functions, rounded to float32.
func TestElementwise(t *testing.T) {
	const P, F = 4, 8
	x := f32s(P*F, func(i int) float32 { return float32(i)/4 - 3.9 })
	for name, f := range map[string]func(float64) float64{"floor": math.Floor, "ceil": math.Ceil, "trunc": math.Trunc, "cos": math.Cos, "tan": math.Tan} {
		t.Run(name, func(t *testing.T) {
			p := build(t, "trn2", []*Tensor{
				ten("x", "hbm", "float32", "input", P, F), ten("tx", "sbuf", "float32", "", P, F),
				ten("r", "sbuf", "float32", "", P, F), ten("o", "hbm", "float32", "output", P, F),
			},
				&Call{Op: "load", Dst: whole("tx"), Src: whole("x")},
				&Call{Op: "elementwise", Dst: whole("r"), Src: whole("tx"), Func: "nl." + name},
				&Call{Op: "store", Dst: whole("o"), Src: whole("r")})
			out, tr := run(t, p, map[string]*Array{"x": arr(dtype.FP32, x, P, F)})
			for k := range P * F {
				if got, want := getF32(out["o"].Data, k), float32(f(float64(getF32(x, k)))); got != want {
					t.Fatalf("%s(%v) = %v, want %v", name, getF32(x, k), got, want)
				}
			}
			if tr.Calls[1].Exact {
				t.Error("elementwise flagged exact")
			}
		})
	}
}

// The refusals, each an ErrProgram or ErrIllegal located by the call.
func TestRandomRefused(t *testing.T) {
	for _, tc := range []struct {
		name string
		call *Call
	}{
		{"rand of int32", &Call{Op: "rand", Dst: whole("i")}},
		{"rand with a source", &Call{Op: "rand", Dst: whole("r"), Src: whole("r")}},
		{"seed with neither", &Call{Op: "random_seed"}},
		{"seed with both", &Call{Op: "random_seed", Src: whole("s"), Value: f64p(1)}},
		{"seed with a dst", &Call{Op: "random_seed", Dst: whole("r"), Value: f64p(1)}},
		{"seed not an integer", &Call{Op: "random_seed", Value: f64p(1.5)}},
		{"seed too wide", &Call{Op: "random_seed", Value: f64p(1 << 33)}},
		{"seed tile of 16", &Call{Op: "random_seed", Src: whole("r")}},
		{"seed tile in HBM", &Call{Op: "random_seed", Src: whole("h1")}},
		{"dropout no prob", &Call{Op: "dropout", Dst: whole("r"), Srcs: []*AP{whole("r")}}},
		{"dropout prob twice", &Call{Op: "dropout", Dst: whole("r"), Srcs: []*AP{whole("r"), whole("pr")}, Value: f64p(0.5)}},
		{"dropout prob 2", &Call{Op: "dropout", Dst: whole("r"), Srcs: []*AP{whole("r")}, Value: f64p(2)}},
		{"dropout prob NaN", &Call{Op: "dropout", Dst: whole("r"), Srcs: []*AP{whole("r")}, Value: f64p(math.NaN())}},
		{"dropout prob tile shape", &Call{Op: "dropout", Dst: whole("r"), Srcs: []*AP{whole("r"), whole("r")}}},
		{"dropout int to float", &Call{Op: "dropout", Dst: whole("r"), Srcs: []*AP{whole("i")}, Value: f64p(0.5)}},
		{"rng into float32", &Call{Op: "rng", Dst: whole("r")}},
		{"rng with a source", &Call{Op: "rng", Dst: whole("i"), Src: whole("i")}},
		{"rand2 on trn2", &Call{Op: "rand2", Dst: whole("r"), Operand0: f64p(0), Operand1: f64p(1)}},
		{"elementwise unknown", &Call{Op: "elementwise", Dst: whole("r"), Src: whole("r"), Func: "exp2"}},
		{"elementwise two sources", &Call{Op: "elementwise", Dst: whole("r"), Srcs: []*AP{whole("r"), whole("r")}, Func: "floor"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.call.Line = 7
			ts := []*Tensor{ten("r", "sbuf", "float32", "", 4, 4), ten("i", "sbuf", "int32", "", 4, 4),
				ten("s", "sbuf", "int32", "", 1, 1), ten("pr", "sbuf", "float32", "", 4, 1), ten("h1", "hbm", "int32", "", 1, 1)}
			if tc.name == "dropout prob NaN" { // JSON has no NaN: compile the program as given
				p := &Program{Target: "trn2", Tensors: ts, Calls: []*Call{tc.call}}
				if err := p.check(); err != nil {
					t.Fatal(err)
				}
				if _, err := p.Compile(); err == nil {
					t.Fatal("compiled")
				}
				return
			}
			p := build(t, "trn2", ts, tc.call)
			_, err := p.Compile()
			if err == nil {
				t.Fatal("compiled")
			}
			if want := "line 7"; !strings.Contains(err.Error(), want) {
				t.Errorf("error %q does not name %q", err, want)
			}
		})
	}
}

// rng writes the low bits of each 32-bit draw; rand2 (trn3) scales the
// uniform draws into [min, max) per partition; both against the published
// SplitMix64 vectors seeded 0.
func TestRngAndRand2(t *testing.T) {
	draws := []uint64{0xe220a8397b1dcdaf, 0x6e789e6aa1b965f4, 0x06c45d188009454f, 0xf88bb8a8724c81ec}
	p := build(t, "trn3", []*Tensor{
		ten("a", "sbuf", "uint16", "", 2, 2), ten("lo", "sbuf", "float32", "", 2, 1), ten("b", "sbuf", "float32", "", 2, 2),
		ten("oa", "hbm", "uint16", "output", 2, 2), ten("ob", "hbm", "float32", "output", 2, 2),
	},
		&Call{Op: "rng", Dst: whole("a")},
		&Call{Op: "random_seed", Value: f64p(0)},
		&Call{Op: "iota", Dst: whole("lo"), Coefs: []int64{10, 0}, Value: f64p(-3)}, // min -3, 7 by partition
		&Call{Op: "rand2", Dst: whole("b"), Operand0Tile: whole("lo"), Operand1: f64p(20)},
		&Call{Op: "store", Dst: whole("oa"), Src: whole("a")}, &Call{Op: "store", Dst: whole("ob"), Src: whole("b")})
	out, _ := run(t, p, nil)
	for k, d := range draws {
		if got, want := uint64(out["oa"].Data[2*k])|uint64(out["oa"].Data[2*k+1])<<8, d>>32&0xFFFF; got != want {
			t.Errorf("rng[%d] = %#x, want %#x", k, got, want)
		}
		lo := float32(-3 + 10*(k/2))
		u := float32(int64(d>>40)) * (1.0 / (1 << 24))
		if got, want := getF32(out["ob"].Data, k), lo+u*(20-lo); got != want {
			t.Errorf("rand2[%d] = %v, want %v", k, got, want)
		}
	}
	bad := build(t, "trn3", []*Tensor{ten("b", "sbuf", "float32", "", 2, 2)}, &Call{Op: "rand2", Dst: whole("b"), Operand0: f64p(1), Operand1: f64p(1)})
	if _, err := bad.Compile(); !errors.Is(err, ErrIllegal) {
		t.Errorf("rand2 min = max: %v, want ErrIllegal", err)
	}
}

// A seed tile of a float dtype holding NaN, ±Inf or a value past int64 is
// refused, located at its call: such a float converts to an integer
// differently by platform, so the stream would differ between machines.
func TestRandomSeedNonFiniteRefused(t *testing.T) {
	for _, v := range []float32{float32(math.Inf(1)), float32(math.NaN()), 1e19} {
		p := build(t, "trn2", []*Tensor{ten("s", "sbuf", "float32", "", 1, 1)},
			&Call{Op: "memset", Dst: whole("s"), Value: f64p(float64(v))},
			&Call{Op: "random_seed", Src: whole("s")})
		lws, err := p.Compile()
		if err != nil {
			t.Fatal(err)
		}
		_, _, err = RunCompiled(p, lws, nil, Options{})
		if err == nil || !strings.Contains(err.Error(), "random_seed") || !strings.Contains(err.Error(), "call 1") {
			t.Errorf("seed %v: %v; want refused at call 1", v, err)
		}
	}
}
