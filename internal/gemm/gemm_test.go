package gemm

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
)

type matMulFunc func(M, N, K int, w []float32, ldw int, x []float32, ldx int, out []float32, ldo int, acc bool)

// shape is one call: sizes, the extra stride beyond each operand's row and
// whether it accumulates.
type shape struct {
	M, N, K          int
	padW, padX, padO int
	acc              bool
}

func (s shape) String() string {
	return fmt.Sprintf("M%d_N%d_K%d_pad%d.%d.%d_acc%v", s.M, s.N, s.K, s.padW, s.padX, s.padO, s.acc)
}

// operands are random w, x and out for s, each with a guard tail past the
// last row that a correct call leaves alone.
type operands struct {
	w, x, out     []float32
	ldw, ldx, ldo int
}

const guard = 7

func newOperands(s shape, r *rand.Rand) operands {
	o := operands{ldw: s.M + s.padW, ldx: s.N + s.padX, ldo: s.N + s.padO}
	fill := func(n int) []float32 {
		v := make([]float32, n+guard)
		for i := range v {
			v[i] = float32(r.NormFloat64())
		}
		return v
	}
	o.w = fill(max(0, s.K*o.ldw))
	o.x = fill(max(0, s.K*o.ldx))
	o.out = fill(max(0, s.M*o.ldo))
	return o
}

// run calls f on copies of o's operands, cut to their exact lengths where
// they have rows (so a read past the end panics), and returns out with its
// guard restored to be checked.
func (o operands) run(t *testing.T, f matMulFunc, s shape) []float32 {
	t.Helper()
	exact := func(v []float32, rows, cols, ld int) []float32 {
		if rows == 0 || cols == 0 {
			return v[:0]
		}
		return v[:(rows-1)*ld+cols]
	}
	w := append([]float32(nil), exact(o.w, s.K, s.M, o.ldw)...)
	x := append([]float32(nil), exact(o.x, s.K, s.N, o.ldx)...)
	out := append([]float32(nil), o.out...)
	f(s.M, s.N, s.K, w, o.ldw, x, o.ldx, exact(out, s.M, s.N, o.ldo), o.ldo, s.acc)
	return out
}

// verify checks got against a float64 triple loop, within 1e-5 of Σ|w||x|
// (+|out| when accumulating) plus 1e-6, and that the gaps between rows and
// the guard are untouched.
func (o operands) verify(t *testing.T, s shape, got []float32) {
	t.Helper()
	bad := 0
	touched := make([]bool, len(o.out))
	for m := range s.M {
		for n := range s.N {
			i := m*o.ldo + n
			touched[i] = true
			var sum, mag float64
			if s.acc {
				sum, mag = float64(o.out[i]), math.Abs(float64(o.out[i]))
			}
			for k := range s.K {
				p := float64(o.w[k*o.ldw+m]) * float64(o.x[k*o.ldx+n])
				sum += p
				mag += math.Abs(p)
			}
			if d := math.Abs(float64(got[i]) - sum); !(d <= 1e-5*mag+1e-6) {
				if bad++; bad <= 5 {
					t.Errorf("%v: out[%d][%d] = %g, want %g (|w||x| %g)", s, m, n, got[i], sum, mag)
				}
			}
		}
	}
	for i, u := range touched {
		if !u && math.Float32bits(got[i]) != math.Float32bits(o.out[i]) {
			if bad++; bad <= 5 {
				t.Errorf("%v: out[%d] outside the result changed: %g, was %g", s, i, got[i], o.out[i])
			}
		}
	}
}

// close checks that got and want, two results for s, agree within 1e-5 of
// Σ|w||x| (+|out|) plus 1e-6 element by element.
func (o operands) close(t *testing.T, s shape, got, want []float32) {
	t.Helper()
	for m := range s.M {
		for n := range s.N {
			i := m*o.ldo + n
			mag := 0.0
			if s.acc {
				mag = math.Abs(float64(o.out[i]))
			}
			for k := range s.K {
				mag += math.Abs(float64(o.w[k*o.ldw+m]) * float64(o.x[k*o.ldx+n]))
			}
			if d := math.Abs(float64(got[i]) - float64(want[i])); !(d <= 2e-5*mag+2e-6) {
				t.Fatalf("%v: out[%d][%d] = %g, generic %g", s, m, n, got[i], want[i])
			}
		}
	}
}

func shapes(short bool) []shape {
	var ss []shape
	sizes := []int{0, 1, 3, 7, 15, 16, 17, 33, 127, 128, 129}
	ns := []int{1, 5, 8, 16, 31, 32, 48, 63, 512, 513, 528}
	for i, m := range sizes {
		for j, n := range ns {
			for l, k := range sizes {
				if short && (i+j+l)%3 != 0 {
					continue
				}
				if n >= 512 && m*k > 128*33 && (i+l)%2 != 0 {
					continue
				}
				acc := (i+j+l)%2 == 0
				ss = append(ss, shape{M: m, N: n, K: k, padW: (i * 3) % 5, padX: (j * 5) % 7, padO: (l * 2) % 9, acc: acc})
			}
		}
	}
	// Blocks of k and m beyond one kc×mc block, and the PE array's shape
	// with the simulator's 2 KiB partition stride.
	ss = append(ss,
		shape{M: 150, N: 40, K: 300, padW: 1, padX: 3, padO: 2, acc: true},
		shape{M: 300, N: 17, K: 520, acc: false},
		shape{M: 128, N: 512, K: 128, acc: true},
		shape{M: 128, N: 512, K: 128, padW: 512 - 128, padX: 0, padO: 0, acc: false},
		shape{M: 6, N: 2000, K: 90, acc: true},
		shape{M: 1000, N: 3, K: 64, acc: false},
	)
	return ss
}

func testMatMul(t *testing.T, f matMulFunc) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, s := range shapes(testing.Short()) {
		o := newOperands(s, r)
		o.verify(t, s, o.run(t, f, s))
		if t.Failed() {
			return
		}
	}
}

func TestMatMul(t *testing.T) { testMatMul(t, MatMul) }

func TestMatMulGeneric(t *testing.T) { testMatMul(t, matMulGeneric) }

// panelsFunc is matMulPanels with the kernel chosen by wide, alone and
// single-threaded, as a matMulFunc (MatMul for the empty calls it does not
// take).
func panelsFunc(wide bool) matMulFunc {
	return func(M, N, K int, w []float32, ldw int, x []float32, ldx int, out []float32, ldo int, acc bool) {
		if K == 0 || M == 0 || N == 0 {
			MatMul(M, N, K, w, ldw, x, ldx, out, ldo, acc)
			return
		}
		s := getScratch()
		matMulPanels(s, wide, M, N, K, w, ldw, x, ldx, out, ldo, acc)
		scratchPool.Put(s)
	}
}

// TestMatMulAsm runs the AVX2 micro-kernel path (6×16) alone,
// single-threaded, whichever MatMul would choose.
func TestMatMulAsm(t *testing.T) {
	if !hasAsm {
		t.Skip("no AVX2/FMA micro-kernel here")
	}
	testMatMul(t, panelsFunc(false))
}

// TestMatMulAVX512 runs the AVX-512 micro-kernel path (6×32, the 6×16 one
// for a last panel of at most 16 columns) alone, single-threaded.
func TestMatMulAVX512(t *testing.T) {
	if !hasAVX512 {
		t.Skip("no AVX-512F micro-kernel here")
	}
	testMatMul(t, panelsFunc(true))
}

// TestMatMulParallel forces the split by columns and by rows with more
// goroutines than CPUs.
func TestMatMulParallel(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(5))
	r := rand.New(rand.NewPCG(3, 4))
	for _, s := range []shape{
		{M: 128, N: 512, K: 128, padX: 1, padO: 3, acc: true},
		{M: 128, N: 33, K: 300, acc: false},
		{M: 700, N: 17, K: 128, padW: 2, acc: true},
		{M: 5, N: 1500, K: 200, acc: false},
	} {
		o := newOperands(s, r)
		o.verify(t, s, o.run(t, MatMul, s))
	}
}

// TestMatMulConcurrent calls MatMul from several goroutines at once on
// disjoint rows of one out, sharing w and x.
func TestMatMulConcurrent(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	s := shape{M: 8 * 40, N: 100, K: 70, acc: true}
	o := newOperands(s, r)
	out := append([]float32(nil), o.out...)
	done := make(chan struct{})
	for g := range 8 {
		go func() {
			defer func() { done <- struct{}{} }()
			m0 := g * 40
			MatMul(40, s.N, s.K, o.w[m0:], o.ldw, o.x, o.ldx, out[m0*o.ldo:], o.ldo, true)
		}()
	}
	for range 8 {
		<-done
	}
	o.verify(t, s, out)
}

func TestMatMulPanics(t *testing.T) {
	w, x, out := make([]float32, 12), make([]float32, 12), make([]float32, 12)
	for _, c := range []struct {
		name                   string
		M, N, K, ldw, ldx, ldo int
		w, x, out              []float32
	}{
		{"w short", 4, 3, 3, 4, 3, 3, w[:11], x, out},
		{"x short", 4, 3, 4, 3, 3, 3, w, x[:11], out},
		{"out short", 4, 3, 3, 4, 3, 3, w, x, out[:11]},
		{"negative", -1, 3, 3, 4, 3, 3, w, x, out},
		{"negative stride", 2, 3, 3, 4, 3, -3, w, x, out},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", c.name)
				}
			}()
			MatMul(c.M, c.N, c.K, c.w, c.ldw, c.x, c.ldx, c.out, c.ldo, false)
		}()
	}
	// Empty results need no operands at all.
	MatMul(0, 5, 5, nil, 0, nil, 0, nil, 0, false)
	MatMul(5, 0, 5, nil, 0, nil, 0, nil, 0, true)
	o := []float32{1, 2, 3}
	MatMul(1, 3, 0, nil, 0, nil, 0, o, 3, true)
	if o[2] != 3 {
		t.Errorf("K=0 acc changed out: %v", o)
	}
	MatMul(1, 3, 0, nil, 0, nil, 0, o, 3, false)
	if o[0] != 0 || o[1] != 0 || o[2] != 0 {
		t.Errorf("K=0 overwrite left %v", o)
	}
}

// FuzzMatMul checks matMulGeneric, MatMul and each micro-kernel path this
// CPU has (AVX2, AVX-512) against the float64 sum, and the AVX-512 path
// against matMulGeneric (within rounding: their orders of summation
// differ), on sizes and strides taken from the input (capped small, N up
// to 100 for panels of 32 and their edges) and values from it too.
func FuzzMatMul(f *testing.F) {
	f.Add([]byte{6, 16, 4, 0, 0, 0, 1}, uint64(1))
	f.Add([]byte{9, 0, 8, 0, 3, 0, 0}, uint64(3)) // N = 0 with K > 0 and no x
	f.Add([]byte{7, 17, 5, 1, 2, 3, 0}, uint64(2))
	f.Add([]byte{13, 33, 9, 0, 5, 1, 1, 1, 2, 3, 4, 5, 6, 7, 8}, uint64(3))
	f.Fuzz(func(t *testing.T, b []byte, seed uint64) {
		if len(b) < 7 {
			return
		}
		s := shape{M: int(b[0] % 40), N: int(b[1] % 100), K: int(b[2] % 40), padW: int(b[3] % 4), padX: int(b[4] % 4), padO: int(b[5] % 4), acc: b[6]&1 != 0}
		o := newOperands(s, rand.New(rand.NewPCG(seed, 0)))
		// The rest of the input overwrites values, as raw float32 bits
		// (infinities, NaNs, subnormals) but only in w, so that sums stay
		// comparable.
		for i, rest := 0, b[7:]; len(rest) >= 4 && len(o.w) > 0; i, rest = i+1, rest[4:] {
			v := math.Float32frombits(binary.LittleEndian.Uint32(rest))
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) || math.Abs(float64(v)) > 1e6 {
				continue
			}
			o.w[i%len(o.w)] = v
		}
		gen := o.run(t, matMulGeneric, s)
		o.verify(t, s, gen)
		o.verify(t, s, o.run(t, MatMul, s))
		if hasAsm {
			o.verify(t, s, o.run(t, panelsFunc(false), s))
		}
		if hasAVX512 {
			wide := o.run(t, panelsFunc(true), s)
			o.verify(t, s, wide)
			o.close(t, s, wide, gen)
		}
	})
}

// BenchmarkMatMul times the PE shape (K = M = 128, N = 512, accumulating)
// on one thread with each micro-kernel path this CPU has.
func BenchmarkMatMul(b *testing.B) {
	const M, N, K = 128, 512, 128
	r := rand.New(rand.NewPCG(7, 8))
	o := newOperands(shape{M: M, N: N, K: K}, r)
	for _, c := range []struct {
		name string
		ok   bool
		f    matMulFunc
	}{
		{"generic", true, matMulGeneric},
		{"avx2", hasAsm, panelsFunc(false)},
		{"avx512", hasAVX512, panelsFunc(true)},
	} {
		b.Run(c.name, func(b *testing.B) {
			if !c.ok {
				b.Skip("not on this CPU")
			}
			for b.Loop() {
				c.f(M, N, K, o.w, M, o.x, N, o.out, N, true)
			}
			b.ReportMetric(2*M*N*K*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}
