package nkic

import (
	"errors"
	"math"
	"strings"
	"testing"

	"ndma/dtype"
	"ndma/internal/compute"
	"ndma/isa"
)

// mmInput is n values of dt (their bytes) from f, and the values as the
// dtype holds them (f rounded to dt), in float64.
func mmInput(t *testing.T, dt dtype.DType, n int, f func(i int) float32) ([]byte, []float64) {
	t.Helper()
	src := f32s(n, f)
	b := make([]byte, n*dt.Size())
	if err := dtype.Convert(b, dt, src, dtype.FP32); err != nil {
		t.Fatal(err)
	}
	back := make([]byte, 4*n)
	if err := dtype.Convert(back, dtype.FP32, b, dt); err != nil {
		t.Fatal(err)
	}
	v := make([]float64, n)
	for i := range v {
		v[i] = float64(getF32(back, i))
	}
	return b, v
}

// nc_matmul as LDWEIGHTS + MATMUL words against a float64 loop: calls
// products of stationary x_i (K, M) and moving y_i (K, N) into one PSUM
// tile pre-filled with 7: the first call overwrites it (or, acc0, adds to
// it), the rest accumulate (NKI 0.6's accumulate=True). The tolerance is
// FP32 summation's bound γ_n·Σ|x·y| with n = K·calls + 2 terms, u = 2⁻²⁴:
// FP8/BF16/FP16 products are exact in FP32, FP32 ones rounded once
// (docs/compute.md §14 "Numerics").
func TestMatmulWords(t *testing.T) {
	cases := []struct {
		name    string
		target  string
		dt      dtype.DType
		K, M, N int
		calls   int
		acc0    bool
		blocks  int // MATMUL blocks of ≤ 512 moving columns
	}{
		{"fp32", "trn2", dtype.FP32, 128, 64, 32, 1, false, 1},
		{"fp16 K<128", "trn2", dtype.FP16, 40, 128, 96, 1, false, 1},
		{"fp32 N=512", "trn2", dtype.FP32, 128, 128, 512, 1, false, 1},
		{"bf16 accumulate 3 calls", "trn2", dtype.BF16, 128, 32, 64, 3, false, 1},
		{"fp32 accumulate 3 calls into the first", "trn2", dtype.FP32, 96, 64, 48, 3, true, 1},
		{"fp16 split N=1200", "trn2", dtype.FP16, 64, 32, 1200, 2, false, 3},
		{"fp32 split N=513 K=1", "trn2", dtype.FP32, 1, 8, 513, 1, false, 2},
		{"fp8 e4m3", "trn2", dtype.FP8E4, 128, 16, 16, 1, false, 1},
		{"trn1 fp32 accumulate", "trn1", dtype.FP32, 128, 64, 48, 2, false, 1},
		{"trn1 fp16", "trn1", dtype.FP16, 17, 5, 3, 1, false, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			K, M, N := tc.K, tc.M, tc.N
			dn := map[dtype.DType]string{dtype.FP32: "float32", dtype.FP16: "float16", dtype.BF16: "bfloat16", dtype.FP8E4: "float8e4"}[tc.dt]
			ts := []*Tensor{ten("ps", "psum", "float32", "", M, N), ten("r", "sbuf", "float32", "", M, N), ten("out", "hbm", "float32", "output", M, N)}
			calls := []*Call{{Op: "memset", Dst: whole("ps"), Value: f64p(7)}}
			in := map[string]*Array{}
			want := make([]float64, M*N)
			bound := make([]float64, M*N)
			if tc.acc0 {
				for i := range want {
					want[i], bound[i] = 7, 7
				}
			}
			for c := range tc.calls {
				x, y := "x"+string(rune('0'+c)), "y"+string(rune('0'+c))
				xb, xv := mmInput(t, tc.dt, K*M, func(i int) float32 { return float32((i*7+c*3)%23-11) / 8 })
				yb, yv := mmInput(t, tc.dt, K*N, func(i int) float32 { return float32((i*5+c)%19-9) / 4 })
				in[x], in[y] = arr(tc.dt, xb, K, M), arr(tc.dt, yb, K, N)
				ts = append(ts, ten(x, "hbm", dn, "input", K, M), ten(y, "hbm", dn, "input", K, N), ten("t"+x, "sbuf", dn, "", K, M), ten("t"+y, "sbuf", dn, "", K, N))
				calls = append(calls, &Call{Op: "load", Dst: whole("t" + x), Src: whole(x)}, &Call{Op: "load", Dst: whole("t" + y), Src: whole(y)},
					&Call{Op: "nc_matmul", Dst: whole("ps"), Stationary: whole("t" + x), Moving: whole("t" + y), Accumulate: c > 0 || tc.acc0})
				for m := range M {
					for n := range N {
						for k := range K {
							want[m*N+n] += xv[k*M+m] * yv[k*N+n]
							bound[m*N+n] += math.Abs(xv[k*M+m] * yv[k*N+n])
						}
					}
				}
			}
			calls = append(calls, &Call{Op: "tensor_copy", Dst: whole("r"), Src: whole("ps")}, &Call{Op: "store", Dst: whole("out"), Src: whole("r")})
			out, tr := run(t, build(t, tc.target, ts, calls...), in)
			n := float64(K*tc.calls + 2)
			gamma := n * 0x1p-24 / (1 - n*0x1p-24)
			for i := range want {
				if got := float64(getF32(out["out"].Data, i)); math.Abs(got-want[i]) > gamma*bound[i] {
					t.Fatalf("out[%d][%d] = %v, want %v ± %.3g", i/N, i%N, got, want[i], gamma*bound[i])
				}
			}
			passes := 1
			if tc.dt == dtype.FP32 {
				passes = 2
			}
			if len(tr.Inexact) != 0 {
				t.Errorf("inexact calls %v", tr.Inexact)
			}
			for _, ct := range tr.Calls {
				if ct.Op != "nc_matmul" {
					continue
				}
				if !ct.Exact || ct.Engine != "tensor (PE)" || len(ct.Words) != 2*passes*tc.blocks {
					t.Fatalf("%s: exact %v, engine %q, %d words; want exact, the PE, %d", ct.Op, ct.Exact, ct.Engine, len(ct.Words), 2*passes*tc.blocks)
				}
				for k, w := range ct.Words {
					if want := []string{"ldweights", "matmul"}[k%2]; !strings.HasPrefix(w.Text, want) {
						t.Fatalf("word %d: %s, want %s", k, w.Text, want)
					}
				}
			}
		})
	}
}

// The words' fields as docs/compute.md §3–§4 define them, read back from
// the compiled words: the stationary walked backwards (element i lands in
// column M−1−i), the passes and flags of each dialect.
func TestMatmulWordFields(t *testing.T) {
	for _, tc := range []struct {
		dt    string
		acc   bool
		modes []isa.PEFP32ModeCode   // LDWEIGHTS' fp32_mode per pass
		flags []isa.PSUMAccFlagsCode // MATMUL's psum_accumulate_flags per pass
	}{
		{"float16", false, []isa.PEFP32ModeCode{isa.PEFP32ModeNone}, []isa.PSUMAccFlagsCode{isa.PSUMAccFlagsSingle}},
		{"float16", true, []isa.PEFP32ModeCode{isa.PEFP32ModeNone}, []isa.PSUMAccFlagsCode{isa.PSUMAccFlagsMultiMid}},
		{"float32", false, []isa.PEFP32ModeCode{isa.PEFP32ModeLow, isa.PEFP32ModeHigh}, []isa.PSUMAccFlagsCode{isa.PSUMAccFlagsMultiStart, isa.PSUMAccFlagsMultiEnd}},
		{"float32", true, []isa.PEFP32ModeCode{isa.PEFP32ModeLow, isa.PEFP32ModeHigh}, []isa.PSUMAccFlagsCode{isa.PSUMAccFlagsMultiMid, isa.PSUMAccFlagsMultiMid}},
	} {
		p := build(t, "trn2", []*Tensor{ten("w", "sbuf", tc.dt, "", 64, 40), ten("x", "sbuf", tc.dt, "", 64, 100), ten("ps", "psum", "float32", "", 30, 100)},
			&Call{Op: "nc_matmul", Dst: whole("ps"), Stationary: &AP{Tensor: "w", Slices: [][3]int64{{0, 64, 1}, {10, 40, 1}}}, Moving: whole("x"), Accumulate: tc.acc})
		lws, err := p.Compile()
		if err != nil {
			t.Fatal(err)
		}
		ws := lws[0].Words
		if len(ws) != 2*len(tc.modes) {
			t.Fatalf("%s acc=%v: %d words", tc.dt, tc.acc, len(ws))
		}
		w := p.byName["w"]
		es := uint64(w.esize)
		for i := range tc.modes {
			ld, ok := ws[2*i].LdWeightsV3()
			mm, ok2 := ws[2*i+1].MatmulV3()
			if !ok || !ok2 {
				t.Fatalf("words %d, %d are not LDWEIGHTS, MATMUL", 2*i, 2*i+1)
			}
			src := ld.SrcMemPattern()
			a, _ := src.StartAddr().Imm()
			// the last stationary element of partition 0: column 10 + 30 − 1
			if a != w.addr+39*es || src.StepElem(0) != -1 || src.NumElem(0) != 30 {
				t.Errorf("%s pass %d: LDWEIGHTS pattern start %#x step %d × %d, want %#x step -1 × 30", tc.dt, i, a, src.StepElem(0), src.NumElem(0), w.addr+39*es)
			}
			if ld.FP32Mode() != tc.modes[i] || ld.NumActiveRows() != 64 || ld.NumActiveCols() != 30 || ld.InDType() != isa.DTypeCode(w.dt) {
				t.Errorf("%s pass %d: LDWEIGHTS mode %v rows %d cols %d dtype %v", tc.dt, i, ld.FP32Mode(), ld.NumActiveRows(), ld.NumActiveCols(), ld.InDType())
			}
			if mm.PsumAccumulateFlags() != tc.flags[i] || mm.NumActiveRows() != 64 || mm.NumActiveCols() != 30 || mm.DstMemPattern().NumElem(0) != 100 {
				t.Errorf("%s pass %d: MATMUL flags %v rows %d cols %d N %d", tc.dt, i, mm.PsumAccumulateFlags(), mm.NumActiveRows(), mm.NumActiveCols(), mm.DstMemPattern().NumElem(0))
			}
		}
	}
}

// The matmuls ndma forms no words for still compute (a float32 loop,
// flagged not exact, the reason in the note); the ones NKI refuses are
// refused.
func TestMatmulNotWords(t *testing.T) {
	const K, M, N = 32, 16, 8
	xv := f32s(M*K, func(i int) float32 { return float32(i%9) - 4 })
	yv := f32s(K*N, func(i int) float32 { return float32(i%7) * 0.5 })
	for _, tc := range []struct {
		name, target, xdt, ydt string
		transposeX             bool
		op                     string
		note                   string
	}{
		{"nl.matmul x (M, K)", "trn2", "float32", "float32", false, "matmul", "transposed first"},
		{"mixed dtypes", "trn2", "float32", "float16", true, "matmul", "one input dtype"},
		{"trn3", "trn3", "float32", "float32", true, "nc_matmul", "no LDWEIGHTS/MATMUL table"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			xs := []int{K, M}
			if !tc.transposeX {
				xs = []int{M, K}
			}
			xb, _ := mmInput(t, dtype.FP32, M*K, func(i int) float32 { return getF32(xv, i) })
			ydt, _ := dtype.FromNEFF(tc.ydt)
			yb, _ := mmInput(t, ydt, K*N, func(i int) float32 { return getF32(yv, i) })
			p := build(t, tc.target, []*Tensor{
				ten("x", "hbm", tc.xdt, "input", xs...), ten("y", "hbm", tc.ydt, "input", K, N),
				ten("tx", "sbuf", tc.xdt, "", xs...), ten("ty", "sbuf", tc.ydt, "", K, N),
				ten("ps", "psum", "float32", "", M, N), ten("r", "sbuf", "float32", "", M, N), ten("out", "hbm", "float32", "output", M, N),
			},
				&Call{Op: "load", Dst: whole("tx"), Src: whole("x")}, &Call{Op: "load", Dst: whole("ty"), Src: whole("y")},
				&Call{Op: tc.op, Dst: whole("ps"), Stationary: whole("tx"), Moving: whole("ty"), Transpose: tc.transposeX},
				&Call{Op: "tensor_copy", Dst: whole("r"), Src: whole("ps")}, &Call{Op: "store", Dst: whole("out"), Src: whole("r")})
			out, tr := run(t, p, map[string]*Array{"x": arr(dtype.FP32, xb, xs...), "y": arr(ydt, yb, K, N)})
			for m := range M {
				for n := range N {
					var s float64
					for k := range K {
						a := getF32(xv, k*M+m)
						if !tc.transposeX {
							a = getF32(xv, m*K+k)
						}
						s += float64(a) * float64(getF32(yv, k*N+n)) // small integers and halves: exact in float32
					}
					if got := getF32(out["out"].Data, m*N+n); float64(got) != s {
						t.Fatalf("out[%d][%d] = %v, want %v", m, n, got, s)
					}
				}
			}
			if c := tr.Calls[2]; c.Exact || !strings.Contains(c.Note, tc.note) || len(tr.Inexact) != 1 {
				t.Errorf("trace: exact %v, note %q, inexact %v", c.Exact, c.Note, tr.Inexact)
			}
		})
	}
	for _, tc := range []struct {
		name string
		ts   []*Tensor
		want string
	}{
		{"int32 inputs", []*Tensor{ten("a", "sbuf", "int32", "", K, M), ten("b", "sbuf", "int32", "", K, N), ten("ps", "psum", "float32", "", M, N)}, "float32 inputs"},
		{"moving in PSUM", []*Tensor{ten("a", "sbuf", "float32", "", K, M), ten("b", "psum", "float32", "", K, N), ten("ps", "psum", "float32", "", M, N)}, "from SBUF"},
		{"dst in SBUF", []*Tensor{ten("a", "sbuf", "float32", "", K, M), ten("b", "sbuf", "float32", "", K, N), ten("ps", "sbuf", "float32", "", M, N)}, "writes a PSUM tile"},
		{"dst shape", []*Tensor{ten("a", "sbuf", "float32", "", K, M), ten("b", "sbuf", "float32", "", K, N), ten("ps", "psum", "float32", "", N, M)}, "dst must be (M, N)"},
	} {
		p := build(t, "trn2", tc.ts, &Call{Op: "nc_matmul", Dst: whole("ps"), Stationary: whole("a"), Moving: whole("b")})
		_, err := p.Compile()
		if !errors.Is(err, ErrIllegal) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want ErrIllegal naming %q", tc.name, err, tc.want)
		}
	}
}

// A matmul's time is its words' (the compute model's, word by word), the
// same through TimeOf (the front end's question before a call runs).
func TestMatmulTimeIsItsWords(t *testing.T) {
	p := build(t, "trn2", []*Tensor{ten("a", "sbuf", "float32", "", 128, 128), ten("b", "sbuf", "float32", "", 128, 1000), ten("ps", "psum", "float32", "", 128, 1000)},
		&Call{Op: "nc_matmul", Dst: whole("ps"), Stationary: whole("a"), Moving: whole("b")})
	lws, err := p.Compile()
	if err != nil {
		t.Fatal(err)
	}
	var sum int64
	sz := compute.NewSizer(p.gen)
	for k := range lws[0].Words {
		if _, ok := sz.SizeOf(&lws[0].Words[k]); !ok {
			t.Fatalf("word %d has no size", k)
		}
		sum += p.wordNS("tensor (PE)", &lws[0].Words[k])
	}
	// 2 blocks (512 + 488 columns) × 2 passes × (LDWEIGHTS 26 + MATMUL 42 + 4 × 0.169 ns a column)
	want := 2*(26+int64(math.Round(42+4*0.169*512))) + 2*(26+int64(math.Round(42+4*0.169*488)))
	if lws[0].ns != sum || sum != want {
		t.Errorf("call %d ns, words %d ns, want %d", lws[0].ns, sum, want)
	}
}

// nc_transpose on the PE with an identity tile (an identity call's MEMSET
// words): LDWEIGHTS of the source, MATMUL streaming identity[:P, :P]; the
// result must be the source turned, bit for bit (one product by 1 per
// element, the rest by 0), in the source's dtype on trn2 (transpose_mode)
// and FP32 on trn1. Without an identity it stays a Go loop.
func TestPETranspose(t *testing.T) {
	for _, tc := range []struct {
		target, dt, out string
		P, F            int
		ident           bool
		words           int // the transpose's words
	}{
		{"trn2", "float32", "float32", 128, 128, true, 2},
		{"trn2", "float16", "float16", 96, 40, true, 2},
		{"trn2", "bfloat16", "bfloat16", 7, 128, true, 2},
		{"trn1", "float16", "float32", 64, 100, true, 2},
		{"trn1", "float32", "float32", 32, 16, true, 4},
		{"trn2", "float32", "float32", 16, 8, false, 0},
	} {
		t.Run(tc.target+"/"+tc.dt+"/"+map[bool]string{true: "identity", false: "loop"}[tc.ident], func(t *testing.T) {
			P, F := tc.P, tc.F
			dt, _ := dtype.FromNEFF(tc.dt)
			ab, _ := mmInput(t, dt, P*F, func(i int) float32 { return float32(i%251-125) / 16 })
			c := &Call{Op: "nc_transpose", Dst: whole("ps"), Src: whole("ta")}
			calls := []*Call{{Op: "load", Dst: whole("ta"), Src: whole("a")}}
			if tc.ident {
				calls = append(calls, &Call{Op: "identity", Dst: whole("id")})
				c.Identity = &AP{Tensor: "id", Slices: [][3]int64{{0, int64(P), 1}, {0, int64(P), 1}}}
			}
			calls = append(calls, c, &Call{Op: "tensor_copy", Dst: whole("r"), Src: whole("ps")}, &Call{Op: "store", Dst: whole("out"), Src: whole("r")})
			p := build(t, tc.target, []*Tensor{
				ten("a", "hbm", tc.dt, "input", P, F), ten("ta", "sbuf", tc.dt, "", P, F), ten("id", "sbuf", tc.dt, "", 128, 128),
				ten("ps", "psum", tc.out, "", F, P), ten("r", "sbuf", tc.out, "", F, P), ten("out", "hbm", tc.out, "output", F, P),
			}, calls...)
			out, tr := run(t, p, map[string]*Array{"a": arr(dt, ab, P, F)})
			od, _ := dtype.FromNEFF(tc.out)
			want := make([]byte, P*F*od.Size())
			turned := make([]byte, len(ab))
			es := dt.Size()
			for i := range P {
				for j := range F {
					copy(turned[(j*P+i)*es:(j*P+i+1)*es], ab[(i*F+j)*es:(i*F+j+1)*es])
				}
			}
			if err := dtype.Convert(want, od, turned, dt); err != nil {
				t.Fatal(err)
			}
			if string(out["out"].Data) != string(want) {
				t.Fatalf("not the source turned")
			}
			ct := tr.Calls[len(calls)-3]
			if ct.Op != "nc_transpose" || ct.Exact != tc.ident || len(ct.Words) != tc.words {
				t.Fatalf("%s: exact %v, %d words; want %v, %d", ct.Op, ct.Exact, len(ct.Words), tc.ident, tc.words)
			}
			if tc.ident {
				if id := tr.Calls[1]; !id.Exact || len(id.Words) != 129 || !strings.HasPrefix(id.Words[128].Text, "memset") {
					t.Fatalf("identity: exact %v, %d words", id.Exact, len(id.Words))
				}
			}
		})
	}
}
