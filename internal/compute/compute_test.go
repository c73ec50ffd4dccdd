package compute_test

// Shared helpers of the compute tests. Every expectation in these tests is
// computed here, by plain loops from the spec text (/work/shared/spec/
// compute.md §3–§10), never by package compute's or internal/num's helpers:
// the access-pattern walk, the FP16 codec and the arithmetic are the test's
// own.

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"ndma/internal/compute"
	"ndma/internal/testutil"
	"ndma/isa"
	"ndma/mem"
)

// sbufAddr and psumAddr are the byte addresses of partition p, offset o.
func sbufAddr(p, o int) uint64 { return uint64(p)<<18 | uint64(o) }
func psumAddr(p, o int) uint64 { return 0x2000000 + uint64(p)*32768 + uint64(o) }

// Element sizes of the dtypes the tests use.
var dtSize = map[string]int{"FP32": 4, "FP16": 2, "BFLOAT16": 2, "INT32": 4, "UINT32": 4, "INT16": 2, "UINT16": 2, "INT8": 1, "UINT8": 1}

// pat is an access pattern as the test sees it: a region, a first
// partition, a byte offset in it, and the free dimensions (dimension 0
// innermost) — steps in elements.
type pat struct {
	psum      bool
	part, off int
	step, num []int
}

func sb(part, off int, step, num []int) pat { return pat{false, part, off, step, num} }
func ps(part, off int, step, num []int) pat { return pat{true, part, off, step, num} }

// row is a plain contiguous pattern of n elements.
func row(n int) ([]int, []int) { return []int{1}, []int{n} }

// addr is the byte address of partition part+k's element 0.
func (p pat) addr(k int) uint64 {
	if p.psum {
		return psumAddr(p.part+k, p.off)
	}
	return sbufAddr(p.part+k, p.off)
}

// text is the pattern's assembly text as field prefix's, with dims dimensions.
func (p pat) text(prefix string, dims int) string {
	region := "sbuf"
	if p.psum {
		region = "psum"
	}
	step, num := make([]string, dims), make([]string, dims)
	for d := range dims {
		step[d], num[d] = "0", "1"
		if d < len(p.step) {
			step[d], num[d] = fmt.Sprint(p.step[d]), fmt.Sprint(p.num[d])
		}
	}
	return fmt.Sprintf("%[1]s.start_addr=%[2]s:%[3]d:%#[4]x, %[1]s.step_elem=[%[5]s], %[1]s.num_elem=[%[6]s]",
		prefix, region, p.part, p.off, strings.Join(step, ", "), strings.Join(num, ", "))
}

// elems are the element offsets (in elements, from element 0) the pattern
// enumerates, dimension 0 fastest — the spec's start + Σ_d i_d·step_d.
func (p pat) elems() []int {
	out := []int{0}
	for d := range p.num { // build from the innermost outwards: the new dimension varies slowest
		var next []int
		for i := range p.num[d] {
			for _, o := range out {
				next = append(next, o+i*p.step[d])
			}
		}
		out = next
	}
	return out
}

// count is how many elements the pattern enumerates in one partition.
func (p pat) count() int {
	n := 1
	for _, x := range p.num {
		n *= x
	}
	return n
}

// byteAddrs are the byte addresses of partition k's elements of size sz.
func (p pat) byteAddrs(k, sz int) []uint64 {
	es := p.elems()
	out := make([]uint64, len(es))
	for i, e := range es {
		out[i] = uint64(int64(p.addr(k)) + int64(e*sz))
	}
	return out
}

// word assembles one word of generation g.
func word(t testing.TB, g isa.Gen, format string, args ...any) *isa.Inst {
	t.Helper()
	return testutil.Word(t, g, fmt.Sprintf(format, args...))
}

// exec runs in on m with engine e, failing the test on an error.
func exec(t testing.TB, e *compute.Engine, m *mem.Memory, in *isa.Inst) {
	t.Helper()
	if err := e.Exec(m, in); err != nil {
		t.Fatalf("%s: %v", in.Def().Mnemonic(), err)
	}
}

// FP16, by the test's own codec.

// f16 is the value of the IEEE binary16 bits h.
func f16(h uint16) float64 {
	sign := 1.0
	if h&0x8000 != 0 {
		sign = -1
	}
	e, f := int(h>>10&0x1f), float64(h&0x3ff)
	switch e {
	case 0:
		return sign * f * math.Ldexp(1, -24)
	case 31:
		if f != 0 {
			return math.NaN()
		}
		return sign * math.Inf(1)
	}
	return sign * (1 + f/1024) * math.Ldexp(1, e-15)
}

// toF16 rounds x to binary16, to nearest, ties to even; beyond the largest
// finite value to infinity.
func toF16(x float64) uint16 {
	if math.IsNaN(x) {
		return 0x7e00
	}
	var sign uint16
	if math.Signbit(x) {
		sign, x = 0x8000, -x
	}
	if math.IsInf(x, 0) {
		return sign | 0x7c00
	}
	if x < math.Ldexp(1, -14) { // subnormal: units of 2^-24
		return sign | uint16(math.RoundToEven(x*math.Ldexp(1, 24))) // 1024 is the smallest normal's bits
	}
	fr, exp := math.Frexp(x) // x = fr·2^exp, fr in [0.5, 1)
	e := exp - 1
	q := math.RoundToEven((fr*2 - 1) * 1024)
	if q == 1024 {
		q, e = 0, e+1
	}
	if e > 15 {
		return sign | 0x7c00
	}
	return sign | uint16(e+15)<<10 | uint16(q)
}

// randF16 is a random finite, non-zero FP16 in about ±[2^-6, 4].
func randF16(r *rand.Rand) uint16 {
	e := 9 + r.IntN(8) // exponent field: 2^-6 .. 2^2
	return uint16(r.IntN(2))<<15 | uint16(e)<<10 | uint16(r.IntN(1024))
}

// randF32 is a random float32 in [-a, a), never zero.
func randF32(r *rand.Rand, a float64) float32 {
	for {
		if v := float32((r.Float64()*2 - 1) * a); v != 0 {
			return v
		}
	}
}

// Memory access (no t.Helper: these run per element).

func put(t testing.TB, m *mem.Memory, addr uint64, b []byte) {
	if err := m.Write(addr, b); err != nil {
		t.Fatalf("write %#x: %v", addr, err)
	}
}

func get(t testing.TB, m *mem.Memory, addr uint64, n int) []byte {
	b := make([]byte, n)
	if err := m.Read(addr, b); err != nil {
		t.Fatalf("read %#x: %v", addr, err)
	}
	return b
}

func putF32(t testing.TB, m *mem.Memory, addr uint64, v float32) {
	put(t, m, addr, binary.LittleEndian.AppendUint32(nil, math.Float32bits(v)))
}

func getF32(t testing.TB, m *mem.Memory, addr uint64) float32 {
	return math.Float32frombits(binary.LittleEndian.Uint32(get(t, m, addr, 4)))
}

func putU16(t testing.TB, m *mem.Memory, addr uint64, v uint16) {
	put(t, m, addr, binary.LittleEndian.AppendUint16(nil, v))
}

func getU16(t testing.TB, m *mem.Memory, addr uint64) uint16 {
	return binary.LittleEndian.Uint16(get(t, m, addr, 2))
}

func putU32(t testing.TB, m *mem.Memory, addr uint64, v uint32) {
	put(t, m, addr, binary.LittleEndian.AppendUint32(nil, v))
}

func getU32(t testing.TB, m *mem.Memory, addr uint64) uint32 {
	return binary.LittleEndian.Uint32(get(t, m, addr, 4))
}

// f32bits is the hex text of v's bits, for an fp32 immediate field.
func f32bits(v float32) string { return fmt.Sprintf("%#x", math.Float32bits(v)) }

// TestF16Codec pins the test's own codec on values known by heart.
func TestF16Codec(t *testing.T) {
	for _, c := range []struct {
		x float64
		h uint16
	}{
		{1, 0x3c00}, {-2, 0xc000}, {65504, 0x7bff}, {65520, 0x7c00}, {0.5, 0x3800},
		{math.Ldexp(1, -24), 0x0001}, {math.Ldexp(1, -14), 0x0400}, {0, 0},
		{1 + math.Ldexp(1, -11), 0x3c00},   // halfway, ties to the even 1.0
		{1 + 3*math.Ldexp(1, -11), 0x3c02}, // halfway, ties to the even mantissa 2
		{math.Ldexp(1, -25), 0},            // halfway to the smallest subnormal: even is 0
		{math.Ldexp(3, -25), 0x0002}, {math.Inf(-1), 0xfc00},
	} {
		if got := toF16(c.x); got != c.h {
			t.Errorf("toF16(%g) = %#04x, want %#04x", c.x, got, c.h)
		}
		if c.h&0x7c00 != 0x7c00 && toF16(f16(c.h)) != c.h {
			t.Errorf("round trip of %#04x", c.h)
		}
	}
	for h := range 0x7c00 {
		if toF16(f16(uint16(h))) != uint16(h) {
			t.Fatalf("round trip of %#04x: %#04x", h, toF16(f16(uint16(h))))
		}
	}
}
