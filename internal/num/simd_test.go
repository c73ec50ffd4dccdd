package num

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"
	"testing/quick"
	"unsafe"
)

// The fp32 in-flight ADD and MULTIPLY (computeFloats: the vector kernels of
// simd_amd64.s where the CPU has them, else the Go loops) against a scalar
// model written here. With -tags purego, or on another GOARCH, the same
// tests check the Go loops alone.

// refF32 is the model of fp32 dst op src. Compute's doc gives the NaN rule
// (INFERRED there): "if either operand is NaN the result is NaN — the first
// NaN operand (dst before src), made quiet …; a NaN the operation itself
// creates (Inf-Inf, 0·Inf) is the canonical +qNaN". ADD follows it in
// ApplySlice (addRule). Every other result is the one IEEE RNE operation,
// here computed in float64 and rounded once to float32 — exact for
// MULTIPLY (48 significand bits), and for ADD a double rounding that cannot
// differ from the direct one since 53 ≥ 2·24+2 (Figueroa 1995).
// MAX and MIN of non-NaN operands are the greater and the lesser, and of
// ±0 "max(-0, +0) = +0, min(-0, +0) = -0" (Compute's doc, INFERRED there).
// ApplySlice's fp32 MULTIPLY, MAX and MIN keep the Go expressions (a*b,
// fmaxNaN, fminNaN), so a NaN result there is the CPU's: the model takes it
// from the Go loop, one scalar alone.
func refF32(op uint8, a, b uint32) uint32 {
	fa, fb := float64(math.Float32frombits(a)), float64(math.Float32frombits(b))
	goLoop := func() uint32 {
		d, s := binary.LittleEndian.AppendUint32(nil, a), binary.LittleEndian.AppendUint32(nil, b)
		computeFloatsGo(op, info(FP32), info(FP32), d, s, 1)
		return binary.LittleEndian.Uint32(d)
	}
	switch op {
	case OpMultiply:
		if r := fa * fb; r == r {
			return math.Float32bits(float32(r))
		}
		return goLoop()
	case OpMax, OpMin:
		switch {
		case fa != fa || fb != fb:
			return goLoop()
		case fa > fb == (op == OpMax) && fa != fb:
			return a
		case fa != fb:
			return b
		case a == b:
			return a
		case op == OpMax: // +0 and −0
			return 0
		default:
			return 0x80000000
		}
	}
	switch {
	case a&0x7FFFFFFF > 0x7F800000:
		return a | 0x00400000
	case b&0x7FFFFFFF > 0x7F800000:
		return b | 0x00400000
	}
	if r := fa + fb; r == r {
		return math.Float32bits(float32(r))
	}
	return 0x7FC00000 // Inf − Inf
}

// f32Specials: both zeros and infinities, quiet and signalling NaNs of both
// signs with payloads, subnormals (smallest, largest, between), the normal
// extremes, and values whose sums and products overflow, cancel or round.
var f32Specials = []uint32{
	0x00000000, 0x80000000, // ±0
	0x7F800000, 0xFF800000, // ±Inf
	0x7FC00000, 0xFFC00000, 0x7FC12345, 0xFFFFFFFF, // qNaN
	0x7F800001, 0xFF800001, 0x7FA00000, 0xFFBFFFFF, // sNaN
	0x00000001, 0x80000001, 0x007FFFFF, 0x807FFFFF, 0x00400000, // subnormal
	0x00800000, 0x80800000, // ± min normal
	0x7F7FFFFF, 0xFF7FFFFF, // ± max normal
	0x3F800000, 0xBF800000, 0x33800000, 0x3F800001, // 1, −1, 2^-24, 1+ulp
	0x5F800000, 0x1F800000, // 2^64, 2^-64: products overflow and underflow
}

// randF32 is a scalar of a mix: mostly finite values in [−1, 1) (the
// benchmark's), then random bit patterns (NaN about one in 256), specials.
func randF32(r *rand.Rand) uint32 {
	switch k := r.IntN(16); {
	case k < 10:
		return math.Float32bits(r.Float32()*2 - 1)
	case k < 14:
		return r.Uint32()
	default:
		return f32Specials[r.IntN(len(f32Specials))]
	}
}

// checkF32 runs ApplySlice(op, FP32, FP32, d, s) and compares every scalar
// of d with the model over d's old values; d's bytes past the last whole
// scalar and s must stay as they were. Then the same with the old values
// apart from the results (ApplySliceFrom into a buffer of other bytes, at
// d's alignment): the same results, and old unchanged.
func checkF32(t *testing.T, op uint8, d, s []byte, what string) {
	t.Helper()
	old, olds := append([]byte(nil), d...), append([]byte(nil), s...)
	keep := append([]byte(nil), old...)
	buf := make([]byte, len(d)+4)
	into := buf[uintptr(unsafe.Pointer(unsafe.SliceData(d)))%4:][:len(d)]
	for i := range into {
		into[i] = ^d[i] // not the results: every byte must be written
	}
	tail := append([]byte(nil), into[len(d)/4*4:]...)
	if err := ApplySliceFrom(op, FP32, FP32, into, old, s); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if err := ApplySlice(op, FP32, FP32, d, s); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	n := len(d) / 4
	for i := 0; i < n; i++ {
		a, b := binary.LittleEndian.Uint32(old[4*i:]), binary.LittleEndian.Uint32(s[4*i:])
		want := refF32(op, a, b)
		if got := binary.LittleEndian.Uint32(d[4*i:]); got != want {
			t.Fatalf("%s: op %d scalar %d of %d: %#08x, %#08x → %#08x, want %#08x", what, op, i, n, a, b, got, want)
		}
		if got := binary.LittleEndian.Uint32(into[4*i:]); got != want {
			t.Fatalf("%s, old apart: op %d scalar %d of %d: %#08x, %#08x → %#08x, want %#08x", what, op, i, n, a, b, got, want)
		}
	}
	if string(d[4*n:]) != string(old[4*n:]) || string(s) != string(olds) || string(into[4*n:]) != string(tail) || string(old) != string(keep) {
		t.Fatalf("%s: bytes outside the results changed", what)
	}
}

// f32Ops: the in-flight compute ops (ApplySlice's ADD … MIN).
var f32Ops = []uint8{OpAdd, OpMultiply, OpMax, OpMin}

func putF32s(b []byte, v []uint32) {
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], x)
	}
}

// Every ordered pair of specials at every position of two kernel blocks
// and a partial third (the block holding a NaN result, the blocks after it
// and the tail all take their own paths), amid random finite values.
func TestF32SpecialPairs(t *testing.T) {
	t.Logf("vector kernels: %v", hasF32Kernels)
	r := rand.New(rand.NewPCG(17, 1))
	const n = 2*kernelBlock + 5
	d, s := make([]byte, 4*n), make([]byte, 4*n)
	dv, sv := make([]uint32, n), make([]uint32, n)
	for _, op := range f32Ops {
		for _, x := range f32Specials {
			for _, y := range f32Specials {
				for p := 0; p < n; p++ {
					for i := range dv {
						dv[i], sv[i] = math.Float32bits(r.Float32()*2-1), math.Float32bits(r.Float32()*2-1)
					}
					dv[p], sv[p] = x, y
					putF32s(d, dv)
					putF32s(s, sv)
					checkF32(t, op, d, s, "pair")
				}
			}
		}
	}
}

// Runs longer than one kernel call (kernelRun), with NaN-making pairs
// scattered over them and on the calls' edges.
func TestF32LongRuns(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 5))
	const n = 3*kernelRun + 7
	for _, op := range f32Ops {
		dv, sv := make([]uint32, n), make([]uint32, n)
		for i := range dv {
			dv[i], sv[i] = math.Float32bits(r.Float32()*2-1), math.Float32bits(r.Float32()*2-1)
		}
		for _, p := range []int{0, 31, kernelRun - 1, kernelRun, kernelRun + 32, 2*kernelRun - 33, n - 8, n - 1} {
			dv[p], sv[p] = 0x7F800000, 0xFF800000
			if p+1 < n {
				dv[p+1] = 0x7F800001 // and an sNaN beside
			}
		}
		for range 64 {
			dv[r.IntN(n)] = f32Specials[r.IntN(len(f32Specials))]
		}
		d, s := make([]byte, 4*n), make([]byte, 4*n)
		putF32s(d, dv)
		putF32s(s, sv)
		checkF32(t, op, d, s, "long run")
	}
}

// Runs long enough to go to every CPU (parMin, in parChunk pieces and a
// partial last one), with NaN-making pairs on the pieces' edges: the same
// results as one goroutine's, in place and apart.
func TestF32Parallel(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 6))
	const n = parMin + parChunk + 37
	dv, sv := make([]uint32, n), make([]uint32, n)
	for i := range dv {
		dv[i], sv[i] = math.Float32bits(r.Float32()*2-1), math.Float32bits(r.Float32()*2-1)
	}
	for _, p := range []int{0, parChunk - 1, parChunk, 2*parChunk + 31, parMin - 1, parMin, n - 1} {
		dv[p], sv[p] = 0x7F800000, 0xFF800000
	}
	for range 64 {
		dv[r.IntN(n)] = f32Specials[r.IntN(len(f32Specials))]
	}
	d, s := make([]byte, 4*n), make([]byte, 4*n)
	for _, op := range f32Ops {
		putF32s(d, dv)
		putF32s(s, sv)
		checkF32(t, op, d, s, "parallel")
	}
}

// Lengths 0..100 (a block and a tail of every size) at every start: the
// runs 0..7 scalars into their buffers, and 1..3 bytes off a scalar (the
// kernels load and store unaligned; the Go loop has a byte path), with a
// trailing partial scalar that must stay.
func TestF32LengthsAndOffsets(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 2))
	for _, op := range f32Ops {
		for n := 0; n <= 100; n++ {
			for off := 0; off < 8*4; off++ {
				if off%4 != 0 && off > 4 {
					continue // byte offsets 1..3; scalar offsets 0..7
				}
				dbuf, sbuf := make([]byte, 4*n+off+4), make([]byte, 4*n+off+4)
				for i := range dbuf {
					dbuf[i], sbuf[i] = byte(r.Uint32()), byte(r.Uint32())
				}
				for i := 0; i < n; i++ {
					binary.LittleEndian.PutUint32(dbuf[off+4*i:], randF32(r))
					binary.LittleEndian.PutUint32(sbuf[off+4*i:], randF32(r))
				}
				d := dbuf[off : off+4*n+r.IntN(4)] // a partial trailing scalar at times
				checkF32(t, op, d, sbuf[off:off+4*n], "length/offset")
			}
		}
	}
}

// The property: over any two runs of scalars (quick's random bit patterns,
// and the mix of randF32), the results are the model's.
func TestF32Property(t *testing.T) {
	for _, op := range f32Ops {
		f := func(a, b []uint32, mix bool, seed uint64) bool {
			n := min(len(a), len(b))
			if mix {
				r := rand.New(rand.NewPCG(seed, 3))
				n = r.IntN(400)
				a, b = make([]uint32, n), make([]uint32, n)
				for i := range a {
					a[i], b[i] = randF32(r), randF32(r)
				}
			}
			d, s := make([]byte, 4*n), make([]byte, 4*n)
			putF32s(d, a[:n])
			putF32s(s, b[:n])
			checkF32(t, op, d, s, "property")
			return true
		}
		if err := quick.Check(f, &quick.Config{MaxCount: 2000}); err != nil {
			t.Fatal(err)
		}
	}
}

// The kernels' own contract (simd_amd64.s): whole blocks of 32, stopping
// at the first block with a NaN result (ADD, MULTIPLY) or operand (MAX,
// MIN) — unwritten — or at the last partial block, and every block before
// it the model's result.
func TestF32KernelContract(t *testing.T) {
	if !hasF32Kernels {
		t.Skip("no vector kernels on this build or CPU")
	}
	r := rand.New(rand.NewPCG(17, 4))
	kernels := []struct {
		op uint8
		k  func(d, a, s *byte, n int) int
		// nan: a dst, src pair whose result is NaN though neither is
		nan [2]uint32
	}{
		{OpAdd, addF32AVX, [2]uint32{0x7F800000, 0xFF800000}}, // Inf − Inf
		{OpMultiply, mulF32AVX, [2]uint32{0, 0xFF800000}},     // 0 · Inf
		{OpMax, maxF32AVX, [2]uint32{0x80000000, 0}},          // no NaN result without a NaN operand: a tie of ±0 instead
		{OpMin, minF32AVX, [2]uint32{0, 0x80000000}},
	}
	for _, kc := range kernels {
		for _, n := range []int{1, 31, 32, 33, 95, 96, 97, 200} {
			for p := -1; p < n; p++ { // p: where the NaN result is (−1: none)
				for _, nanOperand := range []bool{false, true} {
					dv, sv := make([]uint32, n), make([]uint32, n)
					for i := range dv {
						dv[i], sv[i] = math.Float32bits(r.Float32()*2-1), math.Float32bits(r.Float32()*2-1)
					}
					if p >= 0 {
						dv[p], sv[p] = kc.nan[0], kc.nan[1]
						if nanOperand {
							sv[p] = 0xFF800001 // an sNaN src
						}
					}
					d, s, a := make([]byte, 4*n), make([]byte, 4*n), make([]byte, 4*n)
					putF32s(d, dv)
					putF32s(s, sv)
					putF32s(a, dv)
					want := n / kernelBlock * kernelBlock
					if p >= 0 && p < want && (nanOperand || kc.op <= OpMultiply) {
						want = p / kernelBlock * kernelBlock
					}
					if got := kc.k(&d[0], &d[0], &s[0], n); got != want {
						t.Fatalf("op %d, n %d, NaN at %d: %d scalars done, want %d", kc.op, n, p, got, want)
					}
					into := make([]byte, 4*n) // a apart from d: d's unwritten scalars stay zero
					if got := kc.k(&into[0], &a[0], &s[0], n); got != want {
						t.Fatalf("op %d, n %d, NaN at %d, a apart: %d scalars done, want %d", kc.op, n, p, got, want)
					}
					for i := range n {
						w, w2 := dv[i], uint32(0)
						if i < want {
							w = refF32(kc.op, dv[i], sv[i])
							w2 = w
						}
						if got := binary.LittleEndian.Uint32(d[4*i:]); got != w {
							t.Fatalf("op %d, n %d, NaN at %d: scalar %d %#08x, want %#08x", kc.op, n, p, i, got, w)
						}
						if got := binary.LittleEndian.Uint32(into[4*i:]); got != w2 {
							t.Fatalf("op %d, n %d, NaN at %d, a apart: scalar %d %#08x, want %#08x", kc.op, n, p, i, got, w2)
						}
						if got := binary.LittleEndian.Uint32(a[4*i:]); got != dv[i] {
							t.Fatalf("op %d, n %d: a changed at scalar %d", kc.op, n, i)
						}
					}
				}
			}
		}
	}
}

// FuzzAddF32: two byte strings are the dst and src runs (as many whole
// scalars as the shorter holds, the dst's tail bytes kept), ADD — and
// MULTIPLY, MAX, MIN — against the model.
func FuzzAddF32(f *testing.F) {
	seed := func(v ...uint32) []byte {
		b := make([]byte, 4*len(v))
		putF32s(b, v)
		return b
	}
	f.Add(seed(), seed())
	f.Add(seed(0x3F800000), seed(0xBF800000))
	f.Add(seed(f32Specials...), seed(f32Specials[3:]...))
	f.Add(append(seed(make([]uint32, 40)...), 1, 2), seed(make([]uint32, 41)...))
	long := make([]uint32, 70)
	for i := range long {
		long[i] = math.Float32bits(float32(i) / 3)
	}
	long[33] = 0x7F800000
	long2 := append([]uint32(nil), long...)
	long2[33] = 0xFF800000
	f.Add(seed(long...), seed(long2...))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		n := min(len(a), len(b)) / 4
		for _, op := range f32Ops {
			d := append([]byte(nil), a[:min(len(a), 4*n+3)]...)
			checkF32(t, op, d, b[:4*n], "fuzz")
		}
	})
}

// BenchmarkF32Kernels: ApplySlice's fp32 ADD, MULTIPLY and MAX (the kernels
// where the CPU has them) beside the Go loops alone, 1 M (in cache) and 16 M
// scalars in place — NumPy's np.add(d, s, out=d) of bench/numpy_ref.py.
func BenchmarkF32Kernels(b *testing.B) {
	for _, n := range []int{1 << 20, 16 << 20} {
		r := rand.New(rand.NewPCG(4, 4))
		src, dst := make([]byte, 4*n), make([]byte, 4*n)
		for i := 0; i < n; i++ {
			binary.LittleEndian.PutUint32(src[4*i:], math.Float32bits(r.Float32()*2-1))
			binary.LittleEndian.PutUint32(dst[4*i:], math.Float32bits(r.Float32()*2-1))
		}
		for _, c := range []struct {
			name   string
			op     uint8
			goOnly bool
		}{{"add", OpAdd, false}, {"add_go", OpAdd, true}, {"mul", OpMultiply, false}, {"mul_go", OpMultiply, true},
			{"max", OpMax, false}, {"max_go", OpMax, true}} {
			b.Run(c.name+"_"+map[int]string{1 << 20: "1M", 16 << 20: "16M"}[n], func(b *testing.B) {
				b.SetBytes(int64(4 * n))
				for b.Loop() {
					if c.goOnly {
						computeFloatsGo(c.op, info(FP32), info(FP32), dst, src, n)
					} else if err := ApplySlice(c.op, FP32, FP32, dst, src); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
