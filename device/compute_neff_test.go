package device_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"ndma/device"
	"ndma/internal/neffgen"
	"ndma/isa"
	"ndma/neff"
)

// cnF32Bytes is xs as little-endian float32 bytes.
func cnF32Bytes(xs []float32) []byte {
	b := make([]byte, 4*len(xs))
	for i, x := range xs {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

// cnF32s reads little-endian float32 bytes.
func cnF32s(b []byte) []float32 {
	xs := make([]float32, len(b)/4)
	for i := range xs {
		xs[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return xs
}

// cnRun builds p, holds it to a clean device.Check, loads it on gen with inputs and runs it with exec; it
// returns the image (the reference's with Both) and the result.
func cnRun(t *testing.T, gen isa.Gen, p *neffgen.Program, inputs map[string]device.Input, exec device.Exec) (*device.Image, *device.Result) {
	t.Helper()
	f, sgs, err := p.Open(neff.Options{Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	if problems, _, err := device.Check(gen, f, sgs); err != nil || len(problems) > 0 {
		t.Errorf("check: %v %v", err, problems)
	}
	im, err := device.Load(gen, f, sgs, inputs)
	if err != nil {
		t.Fatal(err)
	}
	res, err := im.Run(device.NEFFOptions{Exec: exec})
	if err != nil {
		t.Fatalf("%s run: %v", exec, err)
	}
	return im, res
}

// cnToF16 rounds x to the nearest IEEE binary16 value, ties to even (the
// test's own conversion: normal, subnormal, overflow to ±Inf).
func cnToF16(x float64) uint16 {
	var sign uint16
	if math.Signbit(x) {
		sign, x = 0x8000, -x
	}
	switch {
	case math.IsNaN(x):
		return 0x7e00
	case x == 0:
		return sign
	}
	// the value as an integer count of units of the target's ulp
	e := math.Floor(math.Log2(x))
	if math.Ldexp(1, int(e)) > x { // Log2 rounding
		e--
	} else if math.Ldexp(1, int(e)+1) <= x {
		e++
	}
	if e < -14 {
		e = -14 // subnormal: the ulp is 2^-24
	}
	ulp := math.Ldexp(1, int(e)-10)
	q := x / ulp // exact: a power-of-two scale
	m := math.RoundToEven(q)
	v := m * ulp
	if v >= 65520 || v > 65504 {
		return sign | 0x7c00
	}
	// encode v
	if v < math.Ldexp(1, -14) {
		return sign | uint16(m) // subnormal (m < 1024) — or 1024, the smallest normal, encodes alike
	}
	ev := math.Floor(math.Log2(v))
	if math.Ldexp(1, int(ev)) > v {
		ev--
	}
	mant := v/math.Ldexp(1, int(ev)) - 1
	return sign | uint16(int(ev)+15)<<10 | uint16(math.Round(mant*1024))
}

// cnFromF16 is binary16 bits h as a float64.
func cnFromF16(h uint16) float64 {
	s := 1.0
	if h&0x8000 != 0 {
		s = -1
	}
	e, m := int(h>>10&0x1f), float64(h&0x3ff)
	switch e {
	case 0:
		return s * math.Ldexp(m, -24)
	case 31:
		if m != 0 {
			return math.NaN()
		}
		return s * math.Inf(1)
	}
	return s * math.Ldexp(1+m/1024, e-15)
}

// cnF16Bytes is xs rounded to binary16, little-endian.
func cnF16Bytes(xs []float64) []byte {
	b := make([]byte, 2*len(xs))
	for i, x := range xs {
		binary.LittleEndian.PutUint16(b[2*i:], cnToF16(x))
	}
	return b
}

// cnF16s reads little-endian binary16 bytes as float64.
func cnF16s(b []byte) []float64 {
	xs := make([]float64, len(b)/2)
	for i := range xs {
		xs[i] = cnFromF16(binary.LittleEndian.Uint16(b[2*i:]))
	}
	return xs
}

// cnHalfULP16 is half the binary16 ulp at |x|.
func cnHalfULP16(x float64) float64 {
	x = math.Abs(x)
	e := -14
	if x >= math.Ldexp(1, -14) {
		e = int(math.Floor(math.Log2(x)))
		if math.Ldexp(1, e) > x {
			e--
		}
	}
	return math.Ldexp(1, e-11)
}

func TestComputeNEFFF16Helpers(t *testing.T) {
	for _, c := range []struct {
		x float64
		h uint16
	}{{1, 0x3c00}, {-2, 0xc000}, {65504, 0x7bff}, {65520, 0x7c00}, {math.Ldexp(1, -24), 0x0001}, {math.Ldexp(1, -25), 0}, {math.Ldexp(3, -26), 0x0001},
		{1 + math.Ldexp(1, -11), 0x3c00}, {1 + math.Ldexp(3, -11), 0x3c02}, {math.Ldexp(1023, -24), 0x03ff}, {math.Ldexp(1, -14), 0x0400}, {0.1, 0x2e66}} {
		if got := cnToF16(c.x); got != c.h {
			t.Errorf("cnToF16(%v) = %#04x, want %#04x", c.x, got, c.h)
		}
	}
	for h := 0; h < 0x7c00; h++ { // every finite non-negative binary16 round-trips
		if got := cnToF16(cnFromF16(uint16(h))); got != uint16(h) {
			t.Fatalf("cnToF16(cnFromF16(%#04x)) = %#04x", h, got)
		}
	}
}

// f32r is x rounded to float32, as a float64.
func f32r(x float64) float64 { return float64(float32(x)) }

// f16r is x rounded to binary16, as a float64.
func f16r(x float64) float64 { return cnFromF16(cnToF16(x)) }

// cnCase is one synthetic compute NEFF: its program and generation, the
// inputs a seed gives, the check of its outputs against the test's own
// arithmetic, and the words each engine computes.
type cnCase struct {
	name  string
	gen   isa.Gen
	prog  *neffgen.Program
	in    map[string]device.Input
	check func(t *testing.T, out func(name string) []byte)
	words map[string]map[string]int // engine key → mnemonic → count
}

// cnF64 is n values uniform in [lo, hi), rounded to float32 (fp16 when
// half), as float64.
func cnF64(r *rand.Rand, n int, lo, hi float64, half bool) []float64 {
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = f32r(lo + (hi-lo)*r.Float64())
		if half {
			xs[i] = f16r(xs[i])
		}
	}
	return xs
}

// cnBytes is xs as float32 (or binary16) bytes.
func cnBytes(xs []float64, half bool) []byte {
	if half {
		return cnF16Bytes(xs)
	}
	f := make([]float32, len(xs))
	for i, x := range xs {
		f[i] = float32(x)
	}
	return cnF32Bytes(f)
}

// cnRead is b as float64 values of float32 (or binary16).
func cnRead(b []byte, half bool) []float64 {
	if half {
		return cnF16s(b)
	}
	f := cnF32s(b)
	xs := make([]float64, len(f))
	for i, x := range f {
		xs[i] = float64(x)
	}
	return xs
}

// cnExpect compares got with want element by element within tol(i) (0:
// bit-equal values; NaN equals NaN), reporting the first few misses.
func cnExpect(t *testing.T, what string, got, want []float64, tol func(i int) float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	bad, worst := 0, 0.0
	for i := range got {
		d := math.Abs(got[i] - want[i])
		ok := d <= tol(i) || got[i] == want[i] || math.IsNaN(got[i]) && math.IsNaN(want[i])
		if !ok {
			if bad++; bad <= 5 {
				t.Errorf("%s[%d] = %v, want %v (±%g)", what, i, got[i], want[i], tol(i))
			}
		}
		if !math.IsNaN(d) && !math.IsInf(d, 0) {
			worst = max(worst, d)
		}
	}
	if bad > 0 {
		t.Errorf("%s: %d of %d values off; worst |error| %g", what, bad, len(got), worst)
	}
}

func exact(int) float64 { return 0 }

// convCase is Conv2D on gen with dtype dt, relu or identity.
func convCase(gen isa.Gen, dt neffgen.ConvDType, relu bool, seed uint64) cnCase {
	target := strings.ToLower(gen.String())
	half := dt == neffgen.ConvFP16
	r := rand.New(rand.NewPCG(seed, 7))
	const K, N, H, W, P = neffgen.ConvK, neffgen.ConvN, neffgen.ConvH, neffgen.ConvW, neffgen.ConvPooled
	x := cnF64(r, K*128*N, -1, 1, half)   // x[ci][n]
	w := cnF64(r, K*128*128, -1, 1, half) // w[ci][co]
	bias := cnF64(r, 128, -2, 2, false)   // bias[co], FP32
	y := make([]float64, 128*N)           // y[co][n] = F(Σ w·x + b)
	tolY := make([]float64, 128*N)        // its FP32 accumulation bound
	for co := range 128 {
		for n := range N {
			s, abs := bias[co], math.Abs(bias[co])
			for ci := range K * 128 {
				s += w[ci*128+co] * x[ci*N+n]
				abs += math.Abs(w[ci*128+co] * x[ci*N+n])
			}
			if relu {
				s = max(s, 0)
			}
			y[co*N+n], tolY[co*N+n] = s, 1e-5*abs
		}
	}
	want, tol := make([]float64, 128*P), make([]float64, 128*P)
	for co := range 128 {
		for i := range H / 2 {
			for j := range W / 2 {
				m, e := math.Inf(-1), 0.0
				for dy := range 2 {
					for dx := range 2 {
						k := co*N + (2*i+dy)*W + 2*j + dx
						m, e = max(m, y[k]), max(e, tolY[k])
					}
				}
				o := co*P + i*(W/2) + j
				want[o], tol[o] = m, e
				if half { // the FP16 output: within half an ulp of the exact value, past the FP32 sums' error
					tol[o] = cnHalfULP16(math.Abs(m)+e) + e
				}
			}
		}
	}
	name := fmt.Sprintf("conv2d-%s-%s", target, map[bool]string{false: "fp32", true: "fp16"}[half])
	if relu {
		name += "-relu"
	}
	passes := map[bool]int{false: 2, true: 1}[half]
	return cnCase{
		name: name, gen: gen, prog: neffgen.Conv2D(target, dt, relu),
		in: map[string]device.Input{"x": {Data: cnBytes(x, half)}, "w": {Data: cnBytes(w, half)}, "bias": {Data: cnBytes(bias, false)}},
		check: func(t *testing.T, out func(string) []byte) {
			cnExpect(t, "out", cnRead(out("out"), half), want, func(i int) float64 { return tol[i] })
		},
		words: map[string]map[string]int{"pe": {"LDWEIGHTS": K * passes, "MATMUL": K * passes}, "act": {"ACTIVATE": 1},
			"dve": {"TENSOR_REDUCE": 1}, "pool": {"NOP": 1}, "sp": {}},
	}
}

// cnCases are every builder's case (seeded), both targets where the
// builder takes one.
func cnCases() []cnCase {
	var cs []cnCase
	seed := uint64(1)
	for _, gen := range []isa.Gen{isa.Cayman, isa.Sunda} {
		for _, dt := range []neffgen.ConvDType{neffgen.ConvFP32, neffgen.ConvFP16} {
			for _, relu := range []bool{false, true} {
				cs = append(cs, convCase(gen, dt, relu, seed))
				seed++
			}
		}
	}
	for _, gen := range []isa.Gen{isa.Cayman, isa.Sunda} {
		target := strings.ToLower(gen.String())
		for _, f := range []func(isa.Gen, string, *rand.Rand) cnCase{ttCase, tsCase, copyCase, castCase, memsetCase, eventSemCase} {
			c := f(gen, target, rand.New(rand.NewPCG(seed, 11)))
			c.name += "-" + target
			cs = append(cs, c)
			seed++
		}
	}
	return append(cs, activateTrn1Case(rand.New(rand.NewPCG(seed, 11))))
}

// pool is the Pool stream's computed words: a NOP per output block.
func pool(n int) map[string]int { return map[string]int{"NOP": n} }

func ttCase(gen isa.Gen, target string, r *rand.Rand) cnCase {
	a, c, rr := cnF64(r, 128*512, -4, 4, false), cnF64(r, 128, -4, 4, false), cnF64(r, 128*64, -2, 2, true)
	want := make([]float64, 128*512)
	for p := range 128 {
		for h := range 8 {
			for w := range 64 {
				i := p*512 + h*64 + w
				want[i] = f32r(f32r(a[i]+c[p]) * rr[p*64+w]) // FP32 ops, each rounded once
			}
		}
	}
	return cnCase{name: "tensor-tensor", gen: gen, prog: neffgen.ComputeTensorTensor(target),
		in: map[string]device.Input{"a": {Data: cnBytes(a, false)}, "c": {Data: cnBytes(c, false)}, "r": {Data: cnBytes(rr, true)}},
		check: func(t *testing.T, out func(string) []byte) {
			cnExpect(t, "out", cnRead(out("out"), false), want, exact)
		},
		words: map[string]map[string]int{"dve": {"EVENT_SEMAPHORE": 2, "TENSOR_TENSOR": 2}, "pool": pool(1), "sp": {}}}
}

func tsCase(gen isa.Gen, target string, r *rand.Rand) cnCase {
	x, s := cnF64(r, 128*256, -2, 2, false), cnF64(r, 128, -3, 3, false)
	y, z := make([]float64, len(x)), make([]float64, len(x))
	for i := range x {
		y[i] = f32r(f32r(x[i]*2.5) + -0.75)
		z[i] = f16r(max(f32r(s[i/256]-y[i]), 0)) // computed in FP32, rounded to FP16
	}
	return cnCase{name: "tensor-scalar", gen: gen, prog: neffgen.ComputeTensorScalar(target),
		in: map[string]device.Input{"x": {Data: cnBytes(x, false)}, "s": {Data: cnBytes(s, false)}},
		check: func(t *testing.T, out func(string) []byte) {
			cnExpect(t, "y", cnRead(out("y"), false), y, exact)
			cnExpect(t, "z", cnRead(out("z"), true), z, exact)
		},
		words: map[string]map[string]int{"dve": {"EVENT_SEMAPHORE": 1, "TENSOR_SCALAR": 1}, "act": {"TENSOR_SCALAR": 1}, "pool": pool(2), "sp": {}}}
}

func copyCase(gen isa.Gen, target string, r *rand.Rand) cnCase {
	h, g := make([]byte, 128*512), make([]byte, 128*512)
	for i := range h {
		h[i], g[i] = byte(r.Uint32()), byte(r.Uint32()) // any bits: a COPY moves them as they are
	}
	o16, o32 := make([]byte, len(h)), make([]byte, len(g))
	for p := range 128 {
		for i := range 128 {
			for j := range 2 {
				copy(o16[p*512+2*(128*j+i):][:2], h[p*512+2*(2*i+j):])
			}
			copy(o32[p*512+4*i:][:4], g[p*512+4*(127-i):])
		}
	}
	return cnCase{name: "copy", gen: gen, prog: neffgen.ComputeCopy(target),
		in: map[string]device.Input{"h": {Data: h}, "g": {Data: g}},
		check: func(t *testing.T, out func(string) []byte) {
			for name, want := range map[string][]byte{"o16": o16, "o32": o32} {
				if got := out(name); !bytes.Equal(got, want) {
					t.Errorf("%s: bytes differ from the pattern's copy (first at %d)", name, cnFirstDiff(got, want))
				}
			}
		},
		words: map[string]map[string]int{"dve": {"EVENT_SEMAPHORE": 1, "COPY": 1}, "act": {"COPY": 1}, "pool": pool(2), "sp": {}}}
}

func cnFirstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

func castCase(gen isa.Gen, target string, r *rand.Rand) cnCase {
	x := make([]float64, 128*256)
	for i := range x {
		switch i % 5 {
		case 0: // the normal range
			x[i] = f32r((r.Float64()*2 - 1) * 60000)
		case 1: // small: FP16 subnormals and underflow
			x[i] = f32r((r.Float64()*2 - 1) * 1e-4)
		case 2: // exact ties between two FP16 values: to even
			h := cnFromF16(uint16(r.IntN(0x7bff)))
			x[i] = h + cnHalfULP16(h)
		case 3:
			x[i] = f32r(r.Float64()*2 - 1)
		default: // around the top: 65504, the tie 65520 (to Inf), beyond
			x[i] = []float64{65504, 65519, 65520, 70000, -65520, -1e30, 0, math.Copysign(0, -1)}[r.IntN(8)]
		}
	}
	y16, y32 := make([]float64, len(x)), make([]float64, len(x))
	for i := range x {
		y16[i] = f16r(x[i])
		y32[i] = y16[i]
	}
	return cnCase{name: "cast", gen: gen, prog: neffgen.ComputeCast(target),
		in: map[string]device.Input{"x": {Data: cnBytes(x, false)}},
		check: func(t *testing.T, out func(string) []byte) {
			got := out("y16")
			for i := range x {
				if h, want := binary.LittleEndian.Uint16(got[2*i:]), cnToF16(x[i]); h != want {
					t.Errorf("y16[%d] = %#04x, want %#04x (from %v)", i, h, want, x[i])
					break
				}
			}
			cnExpect(t, "y32", cnRead(out("y32"), false), y32, exact)
		},
		words: map[string]map[string]int{"act": {"EVENT_SEMAPHORE": 1, "CAST": 1}, "dve": {"CAST": 1}, "pool": pool(2), "sp": {}}}
}

func memsetCase(gen isa.Gen, target string, r *rand.Rand) cnCase {
	x := cnF64(r, 128*256, -1, 1, false)
	want := slices.Clone(x)
	for p := range 128 {
		for i := 0; i < 256; i += 2 {
			want[p*256+i] = 1.5
		}
		if p >= 32 && p < 96 {
			for i := 240; i < 256; i++ {
				want[p*256+i] = 0
			}
		}
	}
	return cnCase{name: "memset", gen: gen, prog: neffgen.ComputeMemset(target),
		in: map[string]device.Input{"x": {Data: cnBytes(x, false)}},
		check: func(t *testing.T, out func(string) []byte) {
			cnExpect(t, "out", cnRead(out("out"), false), want, exact)
		},
		words: map[string]map[string]int{"dve": {"EVENT_SEMAPHORE": 1, "MEMSET": 2}, "pool": pool(1), "sp": {}}}
}

func eventSemCase(gen isa.Gen, target string, r *rand.Rand) cnCase {
	a, b := cnF64(r, 128*256, -1, 1, false), cnF64(r, 128*256, -1, 1, false)
	want := make([]float64, len(a))
	for i := range a {
		want[i] = f32r(a[i] - b[i])
	}
	return cnCase{name: "event-semaphore", gen: gen, prog: neffgen.ComputeEventSemaphore(target, true),
		in: map[string]device.Input{"a": {Data: cnBytes(a, false)}, "b": {Data: cnBytes(b, false)}},
		check: func(t *testing.T, out func(string) []byte) {
			cnExpect(t, "out", cnRead(out("out"), false), want, exact)
		},
		words: map[string]map[string]int{"dve": {"EVENT_SEMAPHORE": 1, "TENSOR_TENSOR": 1}, "pool": pool(1), "sp": {}}}
}

func activateTrn1Case(r *rand.Rand) cnCase {
	x, v, sc := cnF64(r, 128*1152, -3, 3, false), cnF64(r, 128*256, -2, 2, false), cnF64(r, 128, -2, 2, false)
	o16, y, tol := make([]float64, 128*384), make([]float64, 128*256), make([]float64, 128*256)
	for p := range 128 {
		for i := range 128 {
			for j := range 3 {
				o16[p*384+128*j+i] = f16r(x[p*1152+9*i+j])
			}
		}
		for i := range 256 {
			k := p*256 + i
			y[k] = f32r(max(sc[p]*v[k]-0.25, 0))
			tol[k] = 1e-5 * (math.Abs(sc[p]*v[k]) + 0.25)
		}
	}
	return cnCase{name: "activate-trn1-sunda", gen: isa.Sunda, prog: neffgen.ComputeActivateTrn1(),
		in: map[string]device.Input{"x": {Data: cnBytes(x, false)}, "v": {Data: cnBytes(v, false)}, "sc": {Data: cnBytes(sc, false)}},
		check: func(t *testing.T, out func(string) []byte) {
			cnExpect(t, "o16", cnRead(out("o16"), true), o16, exact)
			cnExpect(t, "y", cnRead(out("y"), false), y, func(i int) float64 { return tol[i] })
		},
		words: map[string]map[string]int{"act": {"EVENT_SEMAPHORE": 2, "ACTIVATE": 2}, "pool": pool(2), "sp": {}}}
}

// TestComputeNEFFOutputs runs every builder's NEFF on both executors (held
// to one answer) and checks its outputs against the test's arithmetic.
func TestComputeNEFFOutputs(t *testing.T) {
	for _, c := range cnCases() {
		t.Run(c.name, func(t *testing.T) {
			im, _ := cnRun(t, c.gen, c.prog, c.in, device.Both)
			c.check(t, func(name string) []byte {
				b, err := im.Var(name)
				if err != nil {
					t.Fatal(err)
				}
				return b
			})
		})
	}
}

// TestComputeNEFFAllComputed holds every builder's NEFF to words that all
// compute: no word ran only its EVENTS, and each engine computed the
// words the builder writes — on either executor.
func TestComputeNEFFAllComputed(t *testing.T) {
	for _, c := range cnCases() {
		for _, exec := range []device.Exec{device.Ref, device.Sim} {
			t.Run(c.name+"-"+exec.String(), func(t *testing.T) {
				_, res := cnRun(t, c.gen, c.prog, c.in, exec)
				if len(res.NotRun) > 0 || len(res.Uncomputed()) > 0 {
					t.Errorf("not computed: %v (%v)", res.NotRun, res.Uncomputed())
				}
				for k, want := range c.words {
					en := res.Engines[k]
					if en == nil {
						t.Errorf("engine %s: no count", k)
						continue
					}
					if len(en.NotComputed) > 0 {
						t.Errorf("engine %s: not computed %v", k, en.NotComputed)
					}
					if !maps.Equal(en.Computed, want) {
						t.Errorf("engine %s computed %v, the builder writes %v", k, en.Computed, want)
					}
				}
				if len(res.Engines) != len(c.words) {
					t.Errorf("engines %v, want %d", slices.Sorted(maps.Keys(res.Engines)), len(c.words))
				}
			})
		}
	}
}

// TestComputeNEFFSecondWaitMatters is ComputeEventSemaphore's control on the
// engines (timed DMA: Pool fires b only once the slow pad block is in): the
// same kernel without the second wait block subtracts before b is loaded,
// so its out is not a − b — the second wait is what orders it. (The
// reference completes each block as it fires, so there b is in before the
// DVE's turn either way.)
func TestComputeNEFFSecondWaitMatters(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	a, b := cnF64(r, 128*256, -1, 1, false), cnF64(r, 128*256, -1, 1, false)
	in := map[string]device.Input{"a": {Data: cnBytes(a, false)}, "b": {Data: cnBytes(b, false)}}
	for _, second := range []bool{true, false} {
		im, _ := cnRun(t, isa.Cayman, neffgen.ComputeEventSemaphore("cayman", second), in, device.Sim)
		out, err := im.Var("out")
		if err != nil {
			t.Fatal(err)
		}
		got, same := cnRead(out, false), 0
		for i := range got {
			if got[i] == f32r(a[i]-b[i]) {
				same++
			}
		}
		if all := same == len(got); all != second {
			t.Errorf("second wait %v: %d of %d values a − b", second, same, len(got))
		}
	}
}

// TestComputeNEFFHWKernels holds hw-timing's two kernels, which now
// compute, to their math on both executors: HWVectorAdd's out is
// a_vec + b_vec (FP32, exact) and HWTranspose's out the transpose of the
// 1024 × 1024 FP32 a_tensor (exact: an identity matmul), every word
// computed.
func TestComputeNEFFHWKernels(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	t.Run("vector-add", func(t *testing.T) {
		const n = 1024000 / 4
		a, b := cnF64(r, n, -1, 1, false), cnF64(r, n, -1, 1, false)
		im, res := cnRun(t, isa.Cayman, neffgen.HWVectorAdd("cayman"), map[string]device.Input{"a_vec": {Data: cnBytes(a, false)}, "b_vec": {Data: cnBytes(b, false)}}, device.Both)
		out, err := im.Var("out")
		if err != nil {
			t.Fatal(err)
		}
		want := make([]float64, n)
		for i := range want {
			want[i] = f32r(a[i] + b[i])
		}
		cnExpect(t, "out", cnRead(out, false), want, exact)
		if len(res.NotRun) > 0 || res.Computed["TENSOR_TENSOR"] != 2 {
			t.Errorf("not computed %v, computed %v", res.NotRun, res.Computed)
		}
	})
	t.Run("transpose", func(t *testing.T) {
		const n = 1024
		a := cnF64(r, n*n, -1, 1, false)
		im, res := cnRun(t, isa.Cayman, neffgen.HWTranspose("cayman"), map[string]device.Input{"a_tensor": {Data: cnBytes(a, false)}}, device.Both)
		out, err := im.Var("out")
		if err != nil {
			t.Fatal(err)
		}
		want := make([]float64, n*n)
		for i := range n {
			for j := range n {
				want[j*n+i] = a[i*n+j]
			}
		}
		cnExpect(t, "out", cnRead(out, false), want, exact)
		if len(res.NotRun) > 0 || res.Computed["MATMUL"] != neffgen.HWTransposeTiles || res.Computed["COPY"] != neffgen.HWTransposeTiles {
			t.Errorf("not computed %v, computed %v", res.NotRun, res.Computed)
		}
	})
}
