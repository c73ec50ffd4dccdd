package device

import (
	"encoding/binary"
	"math"
	"math/bits"
	"math/rand/v2"
	"testing"

	"ndma/isa"
)

// The real matmul NEFFs compute x @ y: their PE, ACT and DVE words run
// (internal/compute), and the output is held to a float64 product the test
// computes with a plain loop. The bound is the (2 % of max|ref|)
// and, tighter, one fp16 ulp of the reference (half an ulp of rounding plus
// the FP32 accumulation's error).

// f16 is the float64 value of IEEE half bits h (written here, not ndma's).
func f16(h uint16) float64 {
	e, m := int(h>>10&31), float64(h&1023)
	v := 0.0
	switch e {
	case 0:
		v = m * math.Pow(2, -24)
	case 31:
		v = math.Inf(1)
	default:
		v = (1 + m/1024) * math.Pow(2, float64(e-15))
	}
	if h>>15 != 0 {
		return -v
	}
	return v
}

// ulp16 is the spacing of fp16 values around |v|.
func ulp16(v float64) float64 {
	v = math.Abs(v)
	if v < math.Pow(2, -14) {
		return math.Pow(2, -24)
	}
	return math.Pow(2, math.Floor(math.Log2(v))-10)
}

// randomF16 is n fp16 values, normal(0, 1) rounded by truncating the
// mantissa to 10 bits (any fp16 values do: the reference reads them back).
func randomF16(r *rand.Rand, n int) []byte {
	b := make([]byte, 2*n)
	for i := range n {
		f := float32(r.NormFloat64())
		bits := math.Float32bits(f)
		exp := int(bits>>23&255) - 127 + 15
		h := uint16(bits>>16) & 0x8000
		if exp > 0 && exp < 31 {
			h |= uint16(exp)<<10 | uint16(bits>>13&1023)
		}
		binary.LittleEndian.PutUint16(b[2*i:], h)
	}
	return b
}

// checkProduct compares out (rows×cols fp16) with x (rows×k) @ y at the
// columns given, y's element (kk, j) from yAt.
func checkProduct(t *testing.T, out, x []byte, rows, k, cols int, yAt func(kk, j int) float64, columns []int) {
	t.Helper()
	var worst, maxRef float64
	for _, j := range columns {
		yc := make([]float64, k)
		for kk := range k {
			yc[kk] = yAt(kk, j)
		}
		for m := range rows {
			var ref, mag float64
			for kk := range k {
				p := f16(binary.LittleEndian.Uint16(x[2*(m*k+kk):])) * yc[kk]
				ref += p
				mag += math.Abs(p)
			}
			got := f16(binary.LittleEndian.Uint16(out[2*(m*cols+j):]))
			d := math.Abs(got - ref)
			worst, maxRef = max(worst, d), max(maxRef, math.Abs(ref))
			if d > ulp16(ref)+1e-6*mag {
				t.Fatalf("out[%d][%d] = %v, x@y = %v (Σ|x·y| %v): off by %v", m, j, got, ref, mag, d)
			}
		}
	}
	if worst > 0.02*maxRef {
		t.Errorf("max error %v > 2%% of max|ref| %v", worst, maxRef)
	}
	t.Logf("max error %.4g, max|ref| %.4g (%.2g)", worst, maxRef, worst/maxRef)
}

func TestMatmulSmallComputes(t *testing.T) {
	f, sgs := openSample(t, "matmul_small.neff")
	r := rand.New(rand.NewPCG(1, 2))
	x, y := randomF16(r, 128*256), randomF16(r, 256*128)
	in := map[string]Input{"x": {Data: x}, "y": {Data: y}}
	for _, exec := range []Exec{Sim, Ref} {
		im, err := Load(isa.Cayman, f, sgs, in)
		if err != nil {
			t.Fatal(err)
		}
		res, err := im.Run(Options{Exec: exec})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.NotRun) != 0 {
			t.Errorf("%v: not computed: %v", exec, res.NotRun)
		}
		out, err := im.Var("output0")
		if err != nil {
			t.Fatal(err)
		}
		all := make([]int, 128)
		for j := range all {
			all[j] = j
		}
		checkProduct(t, out, x, 128, 256, 128, func(kk, j int) float64 {
			return f16(binary.LittleEndian.Uint16(y[2*(kk*128+j):]))
		}, all)
	}
}

// matmul_large at its real size: x [128, 32768], y [32768, 65536] (4 GiB,
// streamed in from a formula), output0 [128, 65536]; 550 GFLOP. The full
// suite only (about a minute and 4.5 GB here).
func TestMatmulLargeComputes(t *testing.T) {
	if testing.Short() {
		t.Skip("550 GFLOP and 4 GiB of y: the full suite runs it")
	}
	f, sgs := openSample(t, "matmul_large.neff")
	const K, N = 32768, 65536
	x := randomF16(rand.New(rand.NewPCG(3, 4)), 128*K)
	// y[k][j] = ((k·31 + j·17) mod 61 − 30) / 16: exact in fp16, cheap to
	// stream and to recompute for the columns checked
	yAt := func(kk, j int) float64 { return float64((kk*31+j*17)%61-30) / 16 }
	yBits := func(kk, j int) uint16 {
		v := (kk*31+j*17)%61 - 30 // v/16 as fp16: sign, exponent, 10-bit mantissa
		if v == 0 {
			return 0
		}
		s, a := uint16(0), v
		if a < 0 {
			s, a = 0x8000, -a
		}
		e := bits.Len(uint(a)) - 1 // ⌊log2 a⌋
		m := uint16((a << 10 >> e) & 1023)
		return s | uint16(e-4+15)<<10 | m
	}
	y := Input{Size: 2 * K * N, ReadInto: func(fill func(chunk []byte, off int64) error) error {
		row := make([]byte, 2*N)
		for kk := range K {
			for j := range N {
				binary.LittleEndian.PutUint16(row[2*j:], yBits(kk, j))
			}
			if err := fill(row, int64(kk)*2*N); err != nil {
				return err
			}
		}
		return nil
	}}
	im, err := Load(isa.Cayman, f, sgs, map[string]Input{"x": {Data: x}, "y": y})
	if err != nil {
		t.Fatal(err)
	}
	res, err := im.Run(Options{Exec: Sim})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.NotRun) != 0 {
		t.Errorf("not computed: %v", res.NotRun)
	}
	out, err := im.Var("output0")
	if err != nil {
		t.Fatal(err)
	}
	var cols []int // both cores' halves, the edges of every 512-column tile
	for j := 0; j < N; j += 4093 {
		cols = append(cols, j)
	}
	cols = append(cols, 511, 512, N/2-1, N/2, N-1)
	checkProduct(t, out, x, 128, K, N, yAt, cols)
}
