package num

import (
	"encoding/binary"
	"errors"
	"math"
	"math/big"
	"math/rand/v2"
	"sort"
	"testing"
)

// ---------------------------------------------------------------------------
// An independent reference model of the narrow float formats: values from the
// textbook formula via math.Ldexp, encoding by searching the sorted list of
// every representable value. It shares nothing with num.go but the choice of
// layouts, which are written out again here.

type refFmt struct {
	name    string
	E, M    int
	bias    int
	hasInf  bool // IEEE-like: exp all-ones = Inf (m=0) / NaN
	dec     func(uint32) float32
	enc     func(float32) uint32
	nCodes  int
	vals    []float64 // finite non-negative values, ascending, plus one virtual "next after max"
	codes   []uint32  // their codes; the virtual one is maxCode+1
	maxCode uint32
}

func (r *refFmt) signBit() uint32 { return 1 << (r.E + r.M) }

// value of code c: (v, isNaN).
func (r *refFmt) value(c uint32) (float64, bool) {
	s := c >> (r.E + r.M) & 1
	e := int(c>>r.M) & (1<<r.E - 1)
	m := int(c) & (1<<r.M - 1)
	allE, allM := 1<<r.E-1, 1<<r.M-1
	var v float64
	switch {
	case r.hasInf && e == allE && m == 0:
		v = math.Inf(1)
	case r.hasInf && e == allE:
		return math.NaN(), true
	case !r.hasInf && e == allE && m == allM:
		return math.NaN(), true
	case e == 0:
		v = math.Ldexp(float64(m), 1-r.bias-r.M)
	default:
		v = math.Ldexp(1+float64(m)/float64(int(1)<<r.M), e-r.bias)
	}
	if s == 1 {
		v = -v
	}
	return v, false
}

func (r *refFmt) build() {
	r.nCodes = 1 << (1 + r.E + r.M)
	type vc struct {
		v float64
		c uint32
	}
	var list []vc
	for c := uint32(0); c < r.signBit(); c++ {
		v, nan := r.value(c)
		if nan || math.IsInf(v, 0) {
			continue
		}
		list = append(list, vc{v, c})
	}
	sort.Slice(list, func(i, j int) bool { return list[i].v < list[j].v })
	for i, x := range list {
		if i > 0 && x.v == list[i-1].v {
			panic("duplicate value in " + r.name)
		}
		r.vals = append(r.vals, x.v)
		r.codes = append(r.codes, x.c)
	}
	n := len(r.vals)
	r.maxCode = r.codes[n-1]
	ulp := r.vals[n-1] - r.vals[n-2]
	r.vals = append(r.vals, r.vals[n-1]+ulp) // the value the next code would have
	r.codes = append(r.codes, r.maxCode+1)
}

func (r *refFmt) overflowCode() (code uint32, isNaN bool) {
	if r.hasInf {
		return uint32(1<<r.E-1) << r.M, false
	}
	return 0, true
}

// want returns the expected encoding of x: a code, or "any NaN with x's sign".
func (r *refFmt) want(x float32) (code uint32, isNaN bool) {
	neg := math.Signbit(float64(x))
	sign := uint32(0)
	if neg {
		sign = r.signBit()
	}
	switch {
	case x != x:
		return sign, true
	case math.IsInf(float64(x), 0):
		c, nan := r.overflowCode()
		return sign | c, nan
	}
	ax := math.Abs(float64(x))
	i := sort.SearchFloat64s(r.vals, ax)
	last := len(r.vals) - 1
	var pick int
	switch {
	case i > last:
		pick = last
	case r.vals[i] == ax:
		pick = i
	default:
		lo, hi := i-1, i
		mid := (r.vals[lo] + r.vals[hi]) / 2
		if mid-r.vals[lo] != r.vals[hi]-mid {
			panic("inexact midpoint")
		}
		switch {
		case ax < mid:
			pick = lo
		case ax > mid:
			pick = hi
		case r.codes[lo]&1 == 0:
			pick = lo
		default:
			pick = hi
		}
	}
	if pick == last { // rounded beyond the largest finite value
		c, nan := r.overflowCode()
		return sign | c, nan
	}
	return sign | r.codes[pick], false
}

func refFormats() []*refFmt {
	fs := []*refFmt{
		{name: "bf16", E: 8, M: 7, bias: 127, hasInf: true,
			dec: func(c uint32) float32 { return BF16ToF32(uint16(c)) },
			enc: func(x float32) uint32 { return uint32(F32ToBF16(x)) }},
		{name: "fp16", E: 5, M: 10, bias: 15, hasInf: true,
			dec: func(c uint32) float32 { return F16ToF32(uint16(c)) },
			enc: func(x float32) uint32 { return uint32(F32ToF16(x)) }},
		{name: "e4m3", E: 4, M: 3, bias: 7, hasInf: false,
			dec: func(c uint32) float32 { return FP8ToF32(uint8(c), E4M3) },
			enc: func(x float32) uint32 { return uint32(F32ToFP8(x, E4M3)) }},
		{name: "e5m2", E: 5, M: 2, bias: 15, hasInf: true,
			dec: func(c uint32) float32 { return FP8ToF32(uint8(c), E5M2) },
			enc: func(x float32) uint32 { return uint32(F32ToFP8(x, E5M2)) }},
		{name: "e3m4", E: 3, M: 4, bias: 3, hasInf: false,
			dec: func(c uint32) float32 { return FP8ToF32(uint8(c), E3M4) },
			enc: func(x float32) uint32 { return uint32(F32ToFP8(x, E3M4)) }},
		{name: "e2m5", E: 2, M: 5, bias: 1, hasInf: false,
			dec: func(c uint32) float32 { return FP8ToF32(uint8(c), E2M5) },
			enc: func(x float32) uint32 { return uint32(F32ToFP8(x, E2M5)) }},
	}
	for _, f := range fs {
		f.build()
	}
	return fs
}

// ---------------------------------------------------------------------------

// Every code of every narrow format decodes to the reference value and
// re-encodes to itself (any NaN → a NaN of the same sign; a quiet NaN of an
// IEEE-like format → itself).
func TestDecodeExhaustive(t *testing.T) {
	for _, r := range refFormats() {
		n := 0
		for c := uint32(0); c < uint32(r.nCodes); c++ {
			want, wantNaN := r.value(c)
			got := r.dec(c)
			g := float64(got)
			neg := c&r.signBit() != 0
			if wantNaN {
				if g == g {
					t.Fatalf("%s: code %#x decodes to %v, want NaN", r.name, c, got)
				}
			} else if g != want {
				t.Fatalf("%s: code %#x decodes to %v, want %v", r.name, c, got, want)
			}
			if math.Signbit(g) != neg {
				t.Fatalf("%s: code %#x decodes to %v: wrong sign", r.name, c, got)
			}
			back := r.enc(got)
			if wantNaN {
				if _, nan := r.value(back); !nan || (back&r.signBit() != 0) != neg {
					t.Fatalf("%s: NaN code %#x re-encodes to %#x", r.name, c, back)
				}
				quiet := r.hasInf && c&(1<<(r.M-1)) != 0
				if quiet && back != c {
					t.Fatalf("%s: quiet NaN %#x re-encodes to %#x", r.name, c, back)
				}
			} else if back != c {
				t.Fatalf("%s: code %#x (%v) re-encodes to %#x", r.name, c, got, back)
			}
			n++
		}
		t.Logf("%s: %d codes decoded and re-encoded", r.name, n)
	}
}

// encodeInputs: every tie, the float32 neighbours of each tie, every value,
// special and boundary values, and random bit patterns.
func encodeInputs(r *refFmt, rng *rand.Rand) []float32 {
	var in []float32
	add := func(x float32) {
		in = append(in, x, -x, math.Nextafter32(x, float32(math.Inf(1))), math.Nextafter32(x, 0))
	}
	for i := 0; i+1 < len(r.vals); i++ {
		mid := (r.vals[i] + r.vals[i+1]) / 2
		m32 := float32(mid)
		if float64(m32) != mid {
			panic(r.name + ": tie not representable in float32")
		}
		add(m32)
		add(float32(r.vals[i]))
	}
	last := len(r.vals) - 1
	max := r.vals[last-1]
	for _, x := range []float64{0, max, (max + r.vals[last]) / 2, r.vals[last], r.vals[last] * 1.5, 2 * r.vals[last],
		r.vals[1], r.vals[1] / 2, r.vals[1] / 4, r.vals[1] * 0.75,
		math.SmallestNonzeroFloat32, 0x1p-126, 0x1p-127, math.MaxFloat32, 1, 3, 0.1} {
		if x <= math.MaxFloat32 {
			add(float32(x))
		}
	}
	in = append(in, float32(math.Inf(1)), float32(math.Inf(-1)))
	for _, b := range []uint32{0x7FC00000, 0xFFC00000, 0x7F800001, 0xFF800001, 0x7FFFFFFF, 0x7FA00000, 0x007FFFFF, 0x80000001} {
		in = append(in, math.Float32frombits(b))
	}
	for range 250000 {
		in = append(in, math.Float32frombits(rng.Uint32()))
	}
	// Random values in and around the format's range.
	lo, hi := math.Log2(r.vals[1])-3, math.Log2(r.vals[last])+2
	for range 100000 {
		e := lo + rng.Float64()*(hi-lo)
		x := float32(math.Exp2(e))
		if rng.IntN(2) == 0 {
			x = -x
		}
		in = append(in, x)
	}
	return in
}

// F32ToX agrees with the brute-force nearest-value reference on every input.
func TestEncodeAgainstReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, r := range refFormats() {
		inputs := encodeInputs(r, rng)
		for _, x := range inputs {
			wantCode, wantNaN := r.want(x)
			got := r.enc(x)
			if wantNaN {
				if _, nan := r.value(got); !nan || (got&r.signBit()) != wantCode {
					t.Fatalf("%s: encode(%v = %#08x) = %#x, want NaN with sign %#x", r.name, x, math.Float32bits(x), got, wantCode)
				}
				continue
			}
			if got != wantCode {
				t.Fatalf("%s: encode(%v = %#08x) = %#x, want %#x", r.name, x, math.Float32bits(x), got, wantCode)
			}
		}
		t.Logf("%s: %d fp32 inputs encoded", r.name, len(inputs))
	}
}

// Named boundary facts, so that a change of a layout is visible.
func TestFormatFacts(t *testing.T) {
	type c struct {
		f    FP8
		x    float32
		want uint8
	}
	up := func(x float32) float32 { return math.Nextafter32(x, float32(math.Inf(1))) }
	dn := func(x float32) float32 { return math.Nextafter32(x, 0) }
	for _, tc := range []c{
		{E4M3, 448, 0x7E}, {E4M3, 464, 0x7E}, {E4M3, up(464), 0x7F}, {E4M3, 480, 0x7F}, {E4M3, -1e9, 0xFF},
		{E4M3, float32(math.Inf(1)), 0x7F}, {E4M3, 0x1p-9, 0x01}, {E4M3, 0x1p-10, 0x00}, {E4M3, up(0x1p-10), 0x01},
		{E4M3, -0x1p-10, 0x80}, {E4M3, 0x1.8p-9, 0x02},
		{E5M2, 57344, 0x7B}, {E5M2, dn(61440), 0x7B}, {E5M2, 61440, 0x7C}, {E5M2, float32(math.Inf(-1)), 0xFC},
		{E5M2, 0x1p-16, 0x01}, {E5M2, 0x1p-17, 0x00},
		{E3M4, 30, 0x7E}, {E3M4, 30.5, 0x7E}, {E3M4, up(30.5), 0x7F}, {E3M4, 31, 0x7F}, {E3M4, -1e9, 0xFF}, {E3M4, 15.5, 0x6F}, {E3M4, 16, 0x70},
		{E3M4, 0x1p-6, 0x01},
		{E2M5, 7.75, 0x7E}, {E2M5, 7.8125, 0x7E}, {E2M5, up(7.8125), 0x7F}, {E2M5, 7.875, 0x7F}, {E2M5, 0x1p-5, 0x01}, {E2M5, 1, 0x20},
	} {
		if got := F32ToFP8(tc.x, tc.f); got != tc.want {
			t.Errorf("F32ToFP8(%v, %d) = %#x, want %#x", tc.x, tc.f, got, tc.want)
		}
	}
	for _, tc := range []struct {
		x    float32
		bf   uint16
		half uint16
	}{
		{65504, 0x4780, 0x7BFF}, {65520, 0x4780, 0x7C00}, {dn(65520), 0x4780, 0x7BFF},
		{math.MaxFloat32, 0x7F80, 0x7C00}, {float32(0x1p128 - 0x1p119), 0x7F80, 0x7C00},
		{dn(float32(0x1p128 - 0x1p119)), 0x7F7F, 0x7C00}, {0x1p-24, 0x3380, 0x0001}, {0x1p-25, 0x3300, 0x0000},
		{0x1.8p-24, 0x33C0, 0x0002}, {-0x1p-149, 0x8000, 0x8000}, {0x1p-133, 0x0001, 0}, {0x1p-134, 0x0000, 0},
		{0x1.8p-133, 0x0002, 0},
	} {
		if got := F32ToBF16(tc.x); got != tc.bf {
			t.Errorf("F32ToBF16(%v) = %#x, want %#x", tc.x, got, tc.bf)
		}
		if got := F32ToF16(tc.x); got != tc.half {
			t.Errorf("F32ToF16(%v) = %#x, want %#x", tc.x, got, tc.half)
		}
	}
	// NaN policy: sign kept, quiet bit set, top payload kept.
	if got := F32ToBF16(math.Float32frombits(0xFF800001)); got != 0xFFC0 {
		t.Errorf("bf16 of signalling -NaN = %#x", got)
	}
	if got := F32ToF16(math.Float32frombits(0x7FC02000)); got != 0x7E01 {
		t.Errorf("fp16 of NaN payload = %#x", got)
	}
	if got := F32ToFP8(float32(math.NaN()), E5M2); got != 0x7E {
		t.Errorf("e5m2 of NaN = %#x", got)
	}
	if got := FP8ToF32(0, FP8(9)); got == got {
		t.Errorf("unknown FP8 format decodes to %v", got)
	}
	if got := F32ToFP8(1, FP8(9)); got != 0 {
		t.Errorf("unknown FP8 format encodes to %#x", got)
	}
}

// ---------------------------------------------------------------------------
// Integers.

var intTypes = []struct {
	d      uint8
	bits   uint
	signed bool
}{
	{INT8, 8, true}, {UINT8, 8, false}, {INT16, 16, true}, {UINT16, 16, false},
	{INT32, 32, true}, {UINT32, 32, false}, {INT64, 64, true}, {UINT64, 64, false},
}

var floatTypes = []uint8{BFLOAT16, FP16, FP32, FP32R, FP8_EXP3, FP8_EXP4, FP8_EXP5, FP8_EXP2}

// refRound: RNE via floor (a different algorithm from math.RoundToEven).
func refRound(x float64) float64 {
	r := math.Floor(x)
	switch f := x - r; {
	case f > 0.5:
		r++
	case f == 0.5 && math.Mod(r, 2) != 0:
		r++
	}
	return r
}

// refFromFloat is the expected integer encoding, as a big.Int clamp.
func refFromFloat(x float32, nbits uint, signed bool) uint64 {
	if x != x {
		return 0
	}
	lo, hi := new(big.Int), new(big.Int).Lsh(big.NewInt(1), nbits)
	if signed {
		lo.Neg(new(big.Int).Lsh(big.NewInt(1), nbits-1))
		hi.Lsh(big.NewInt(1), nbits-1)
	}
	hi.Sub(hi, big.NewInt(1))
	var v *big.Int
	switch {
	case math.IsInf(float64(x), 1):
		v = hi
	case math.IsInf(float64(x), -1):
		v = lo
	default:
		v, _ = new(big.Float).SetFloat64(refRound(float64(x))).Int(nil)
		if v.Cmp(lo) < 0 {
			v = lo
		}
		if v.Cmp(hi) > 0 {
			v = hi
		}
	}
	m := new(big.Int).Lsh(big.NewInt(1), nbits)
	v = new(big.Int).Mod(v, m) // two's complement bits
	return v.Uint64()
}

func TestFloatToInt(t *testing.T) {
	// Ties and plain values (signed 32-bit view).
	for _, tc := range []struct {
		x    float32
		want int64
	}{
		{0.5, 0}, {1.5, 2}, {2.5, 2}, {3.5, 4}, {-0.5, 0}, {-1.5, -2}, {-2.5, -2}, {-3.5, -4},
		{0.49999997, 0}, {0.50000006, 1}, {-0.50000006, -1}, {1.4999999, 1}, {2.5000002, 3},
		{8388607.5, 8388608}, {8388606.5, 8388606}, {-0.0, 0}, {0x1p-149, 0},
		{float32(math.NaN()), 0},
	} {
		if got := int32(FromFloat32(INT32, tc.x)); int64(got) != tc.want {
			t.Errorf("FromFloat32(INT32, %v) = %d, want %d", tc.x, got, tc.want)
		}
		if got := ToInt64(FP32, uint64(math.Float32bits(tc.x))); got != tc.want {
			t.Errorf("ToInt64(FP32, %v) = %d, want %d", tc.x, got, tc.want)
		}
	}
	// Saturation at every width, NaN, ±Inf, and a reference check on random values.
	rng := rand.New(rand.NewPCG(3, 4))
	n := 0
	for _, it := range intTypes {
		var xs []float32
		for _, p := range []float64{0x1p7, 0x1p8, 0x1p15, 0x1p16, 0x1p31, 0x1p32, 0x1p63, 0x1p64} {
			for _, s := range []float64{1, -1} {
				x := float32(s * p)
				xs = append(xs, x, math.Nextafter32(x, 0), math.Nextafter32(x, float32(math.Inf(1))),
					x-0.5, x+0.5, x-1, x+1, x-1.5, x+1.5)
			}
		}
		xs = append(xs, float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()),
			-float32(math.NaN()), math.MaxFloat32, -math.MaxFloat32, 0, float32(math.Copysign(0, -1)), -0.5, -0.6, 254.5, 255.5, 127.5, 128.5, -128.5, -127.5)
		for range 20000 {
			xs = append(xs, math.Float32frombits(rng.Uint32()))
			xs = append(xs, float32(rng.NormFloat64()*math.Exp2(float64(rng.IntN(70)))))
			xs = append(xs, float32(rng.IntN(1<<12))/4-512)
		}
		for _, x := range xs {
			want := refFromFloat(x, it.bits, it.signed)
			if got := FromFloat32(it.d, x); got != want {
				t.Fatalf("FromFloat32(%#x, %v) = %#x, want %#x", it.d, x, got, want)
			}
			n++
		}
	}
	// ToInt64 of float dtypes: decode, RNE, saturate to int64, NaN → 0.
	for _, tc := range []struct {
		d    uint8
		b    uint64
		want int64
	}{
		{BFLOAT16, 0x4020, 2}, {BFLOAT16, 0xC020, -2}, {BFLOAT16, 0x4060, 4}, {BFLOAT16, 0x7F80, math.MaxInt64},
		{BFLOAT16, 0xFF80, math.MinInt64}, {BFLOAT16, 0x7FC0, 0}, {BFLOAT16, 0x5F00, math.MaxInt64}, // 2^63
		{BFLOAT16, 0xDF00, math.MinInt64}, {BFLOAT16, 0x5EFF, 0x7F80000000000000},
		{FP16, 0x3C00, 1}, {FP16, 0x3800, 0}, {FP16, 0x3E00, 2}, {FP16, 0x7C00, math.MaxInt64}, {FP16, 0x7E00, 0},
		{FP8_EXP4, 0x7E, 448}, {FP8_EXP4, 0x7F, 0}, {FP8_EXP4, 0xFE, -448}, {FP8_EXP5, 0x7C, math.MaxInt64},
		{FP8_EXP3, 0x7E, 30}, {FP8_EXP2, 0x7E, 8}, {FP8_EXP2, 0x3C, 2 /* 1.875 */},
		{FP32, uint64(math.Float32bits(1e30)), math.MaxInt64}, {FP32, uint64(math.Float32bits(-1e30)), math.MinInt64},
		{FP32R, uint64(math.Float32bits(-7.5)), -8},
	} {
		if got := ToInt64(tc.d, tc.b); got != tc.want {
			t.Errorf("ToInt64(%#x, %#x) = %d, want %d", tc.d, tc.b, got, tc.want)
		}
		n++
	}
	t.Logf("%d float→int checks", n)
}

func TestIntToFloatAndExtend(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	ref := func(v *big.Int) float32 {
		f, _ := new(big.Float).SetPrec(24).SetMode(big.ToNearestEven).SetInt(v).Float32()
		return f
	}
	vals := []uint64{0, 1, 0x7F, 0x80, 0xFF, 0x7FFF, 0x8000, 0xFFFF, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF,
		1<<24 + 1, 1<<24 + 3, 1<<25 + 2, 1<<25 + 6, 0x7FFFFFFFFFFFFFFF, 0x8000000000000000, 0xFFFFFFFFFFFFFFFF,
		0xFFFFFF8000000000, 0xFFFFFF7FFFFFFFFF, 0x8000008000000000, 0x8000018000000000}
	for range 50000 {
		vals = append(vals, rng.Uint64(), rng.Uint64()>>uint(rng.IntN(64)))
	}
	n := 0
	for _, it := range intTypes {
		for _, b := range vals {
			// The value the low bits hold.
			lowU := b
			if it.bits < 64 {
				lowU &= 1<<it.bits - 1
			}
			v := new(big.Int).SetUint64(lowU)
			if it.signed && lowU>>(it.bits-1)&1 == 1 {
				v.Sub(v, new(big.Int).Lsh(big.NewInt(1), it.bits))
			}
			if got, want := ToFloat32(it.d, b), ref(v); got != want {
				t.Fatalf("ToFloat32(%#x, %#x) = %v, want %v", it.d, b, got, want)
			}
			wantI := int64(lowU) // unsigned: zero-extended; UINT64: the bit pattern
			if it.signed {
				wantI = v.Int64()
			}
			if got := ToInt64(it.d, b); got != wantI {
				t.Fatalf("ToInt64(%#x, %#x) = %d, want %v", it.d, b, got, v)
			}
			if got := FromInt64(it.d, int64(b)); got != lowU {
				t.Fatalf("FromInt64(%#x, %#x) = %#x, want %#x", it.d, int64(b), got, lowU)
			}
			n++
		}
	}
	for _, tc := range []struct {
		d    uint8
		v    int64
		want uint64
	}{
		{INT8, 128, 0x80}, {INT8, -129, 0x7F}, {UINT16, -1, 0xFFFF}, {UINT64, -1, math.MaxUint64},
		{BFLOAT16, 257, 0x4380}, {BFLOAT16, 259, 0x4382}, {FP16, 65520, 0x7C00}, {FP16, 2049, 0x6800},
		{FP8_EXP4, 464, 0x7E}, {FP8_EXP4, 465, 0x7F}, {FP32, 1<<24 + 1, 0x4B800000}, {FP32, math.MinInt64, 0xDF000000},
	} {
		if got := FromInt64(tc.d, tc.v); got != tc.want {
			t.Errorf("FromInt64(%#x, %d) = %#x, want %#x", tc.d, tc.v, got, tc.want)
		}
	}
	t.Logf("%d int→float / extend / wrap checks", n)
}

// ---------------------------------------------------------------------------
// Size, IsFloat, unsupported codes.

func TestSizeAndKinds(t *testing.T) {
	want := map[uint8]int{UINT64: 8, INT8: 1, UINT8: 1, INT16: 2, UINT16: 2, BFLOAT16: 2, FP16: 2, INT32: 4,
		UINT32: 4, FP32: 4, FP32R: 4, INT64: 8, FP8_EXP3: 1, FP8_EXP4: 1, FP8_EXP5: 1, FP8_EXP2: 1}
	fl := map[uint8]bool{BFLOAT16: true, FP16: true, FP32: true, FP32R: true, FP8_EXP3: true, FP8_EXP4: true, FP8_EXP5: true, FP8_EXP2: true}
	for d := 0; d < 256; d++ {
		sz, ok := Size(uint8(d))
		w, wok := want[uint8(d)]
		if ok != wok || sz != w {
			t.Errorf("Size(%#x) = %d, %v; want %d, %v", d, sz, ok, w, wok)
		}
		if IsFloat(uint8(d)) != fl[uint8(d)] {
			t.Errorf("IsFloat(%#x) = %v", d, IsFloat(uint8(d)))
		}
		if !wok {
			_, err := Convert(uint8(d), FP32, 0)
			var ue UnsupportedDtypeError
			if !errors.As(err, &ue) || uint8(ue) != uint8(d) {
				t.Errorf("Convert(%#x, FP32): err = %v", d, err)
			}
			if _, err := Convert(FP32, uint8(d), 0); err == nil {
				t.Errorf("Convert(FP32, %#x): no error", d)
			}
			if _, err := Compute(OpAdd, uint8(d), 0, 0); err == nil {
				t.Errorf("Compute(ADD, %#x): no error", d)
			}
			if ToFloat32(uint8(d), 1) != 0 || FromFloat32(uint8(d), 1) != 0 || ToInt64(uint8(d), 1) != 0 || FromInt64(uint8(d), 1) != 0 {
				t.Errorf("unsupported %#x: codecs not 0", d)
			}
		}
	}
	for d, name := range map[uint8]string{0x00: "INVALID", 0x10: "FP4_EXP2", 0x12: "INT4", 0x13: "SFP8_E8", 0x16: "SFP8_E5", 0x19: "CPTC1", 0x1F: "CPTC7", 0x40: "unknown"} {
		msg := UnsupportedDtypeError(d).Error()
		if !contains(msg, "unsupported dtype") || !contains(msg, name) {
			t.Errorf("error for %#x: %q", d, msg)
		}
	}
}

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}

// ---------------------------------------------------------------------------
// Compute.

func f32b(x float32) uint64 { return uint64(math.Float32bits(x)) }

func TestCompute(t *testing.T) {
	nan32 := f32b(float32(math.NaN()))
	negZero := f32b(float32(math.Copysign(0, -1)))
	for _, tc := range []struct {
		op, d    uint8
		dst, src uint64
		want     uint64
	}{
		{OpAdd, INT8, 127, 1, 0x80},
		{OpAdd, INT8, 0x80, 0xFF, 0x7F}, // -128 + -1
		{OpAdd, UINT8, 255, 1, 0},
		{OpMultiply, INT16, 300, 300, 90000 & 0xFFFF},
		{OpMultiply, INT8, 0xFF, 0xFF, 1}, // -1 · -1
		{OpAdd, INT64, math.MaxInt64, 1, 1 << 63},
		{OpAdd, UINT64, math.MaxUint64, 2, 1},
		{OpMax, UINT64, 1 << 63, 1, 1 << 63},
		{OpMin, UINT64, 1 << 63, 1, 1},
		{OpMax, INT64, 1 << 63, 1, 1},
		{OpMin, INT64, 1 << 63, 1, 1 << 63},
		{OpMax, INT32, 0xFFFFFFFF, 1, 1},
		{OpMin, INT32, 0xFFFFFFFF, 1, 0xFFFFFFFF},
		{OpMax, UINT32, 0xFFFFFFFF, 1, 0xFFFFFFFF},
		{OpMin, INT8, 0x80, 0x7F, 0x80},
		{OpMax, UINT8, 0x80, 0x7F, 0x80},
		{OpNone, INT8, 5, 0x1FF, 0xFF}, // NONE → src (masked)
		{OpAdd, INT8, 0x1FF, 0x100, 0xFF},
		// bf16: fp32 add, then RNE to bf16.
		{OpAdd, BFLOAT16, 0x3F80, 0x3B80, 0x3F80}, // 1 + 2^-8: tie → even 1.0
		{OpAdd, BFLOAT16, 0x3F81, 0x3B80, 0x3F82}, // 1.0078125 + 2^-8: tie → even
		{OpAdd, BFLOAT16, 0x3F80, 0x3B81, 0x3F81}, // just above the tie
		{OpMultiply, BFLOAT16, 0x3FC0, 0x3FC0, 0x4010},
		{OpAdd, BFLOAT16, 0x7F7F, 0x7F7F, 0x7F80}, // overflow → Inf
		{OpAdd, BFLOAT16, 0x7F80, 0xFF80, 0x7FC0}, // Inf - Inf → NaN
		{OpAdd, FP16, 0x7BFF, 0x4C00, 0x7C00},     // 65504 + 16 = 65520: tie between 65504 (odd) and 2^16 → Inf
		{OpAdd, FP8_EXP4, 0x7E, 0x58, 0x7E},       // 448 + 16 = 464 → 448 (tie, even max)
		{OpAdd, FP8_EXP4, 0x7E, 0x60, 0x7F},       // 448 + 32 = 480 → NaN
		{OpAdd, FP8_EXP5, 0x7B, 0x7B, 0x7C},       // → Inf
		{OpMultiply, FP8_EXP3, 0x48, 0x48, 0x62},  // 3·3 = 9 = 2^3·1.125: exp field 6, mantissa 0010
		{OpMultiply, FP16, 0x7C00, 0, 0x7E00},     // Inf·0 → the canonical +qNaN, whatever the CPU makes
		// MAX/MIN with NaN → NaN.
		{OpMax, FP32, nan32, f32b(1), nan32},
		{OpMax, FP32, f32b(1), nan32, nan32},
		{OpMin, FP32, nan32, f32b(1), nan32},
		{OpMin, FP32R, f32b(-1), nan32, nan32},
		{OpMax, BFLOAT16, 0x7FC0, 0x3F80, 0x7FC0},
		{OpMin, BFLOAT16, 0x3F80, 0xFFC0, 0xFFC0},
		{OpMax, FP8_EXP4, 0x7F, 0x38, 0x7F},
		{OpMin, FP8_EXP4, 0x38, 0xFF, 0xFF},
		{OpMax, FP8_EXP5, 0x7E, 0x3C, 0x7E},
		{OpMax, FP32, f32b(1), f32b(2), f32b(2)},
		{OpMin, FP32, f32b(1), f32b(2), f32b(1)},
		{OpMax, FP32, negZero, 0, 0},
		{OpMax, FP32, 0, negZero, 0},
		{OpMin, FP32, negZero, 0, negZero},
		{OpMin, FP32, 0, negZero, negZero},
		{OpMax, FP32, f32b(float32(math.Inf(-1))), f32b(-1e30), f32b(-1e30)},
		{OpAdd, FP32, f32b(1), f32b(0x1p-24), f32b(1)}, // fp32 RNE
		{OpAdd, FP32, f32b(1), f32b(0x1.8p-24), f32b(1 + 0x1p-23)},
	} {
		want := tc.want
		got, err := Compute(tc.op, tc.d, tc.dst, tc.src)
		if err != nil || got != want {
			t.Errorf("Compute(%d, %#x, %#x, %#x) = %#x, %v; want %#x", tc.op, tc.d, tc.dst, tc.src, got, err, want)
		}
	}
	if _, err := Compute(5, INT8, 0, 0); err == nil {
		t.Error("Compute op 5: no error")
	}
	var oe UnsupportedOpError
	if _, err := Compute(9, FP32, 0, 0); !errors.As(err, &oe) || oe != 9 {
		t.Errorf("Compute op 9: err = %v", err)
	}
	if _, err := Compute(OpAdd, 0x10, 0, 0); err == nil {
		t.Error("Compute on FP4: no error")
	}

	// Float compute against a float64 reference: for fp8 operands the exact
	// sum/product fits a float64, so float32(exact) is the one fp32 rounding.
	r := refFormats()
	byDtype := map[uint8]*refFmt{FP8_EXP4: r[2], FP8_EXP5: r[3], FP8_EXP3: r[4], FP8_EXP2: r[5]}
	n := 0
	for d, rf := range byDtype {
		for a := range 256 {
			for b := range 256 {
				va, na := rf.value(uint32(a))
				vb, nb := rf.value(uint32(b))
				for _, op := range []uint8{OpAdd, OpMultiply, OpMax, OpMin} {
					got, err := Compute(op, d, uint64(a), uint64(b))
					if err != nil {
						t.Fatal(err)
					}
					var exact float64
					switch op {
					case OpAdd:
						exact = va + vb
					case OpMultiply:
						exact = va * vb
					case OpMax:
						exact = math.Max(va, vb)
					case OpMin:
						exact = math.Min(va, vb)
					}
					if na || nb {
						exact = math.NaN()
					}
					wc, wnan := rf.want(float32(exact))
					if gv, gnan := rf.value(uint32(got)); wnan != gnan || (!wnan && uint32(got) != wc) {
						t.Fatalf("Compute(%d, %#x, %#x, %#x) = %#x (%v), want %#x (nan %v)", op, d, a, b, got, gv, wc, wnan)
					}
					n++
				}
			}
		}
	}
	t.Logf("%d fp8 compute checks", n)
}

// ---------------------------------------------------------------------------
// Convert.

func TestConvertAllPairs(t *testing.T) {
	var all []uint8
	for d := 0; d < 256; d++ {
		if _, ok := Size(uint8(d)); ok {
			all = append(all, uint8(d))
		}
	}
	values := []float32{0, float32(math.Copysign(0, -1)), 1, -1, 0.5, -0.5, 1.5, 2.5, -2.5, 3, 7.75, 15.5, 30, 100, -100,
		127, 128, 255, 256, -129, 448, 464, 480, 1e-3, 0x1p-9, 65504, 65520, 1e5, 1e10, 16777217, 2147483648,
		-2147483648, 1e19, 1e30, float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN())}
	n := 0
	for _, in := range all {
		for _, v := range values {
			bits := FromFloat32(in, v)
			xin := ToFloat32(in, bits) // the value the source scalar holds
			for _, out := range all {
				got, err := Convert(in, out, bits) // no panic, no error
				if err != nil {
					t.Fatalf("Convert(%#x, %#x, %#x): %v", in, out, bits, err)
				}
				if sz, _ := Size(in); sz < 8 {
					// Bits above the source width are ignored.
					if g2, _ := Convert(in, out, bits|0xA5A5A5A5A5A5A5A5<<(8*sz)); g2 != got {
						t.Fatalf("Convert(%#x, %#x): high bits changed the result", in, out)
					}
				}
				if sz, _ := Size(out); sz < 8 && got>>(8*sz) != 0 {
					t.Fatalf("Convert(%#x, %#x, %#x) = %#x: bits above the width", in, out, bits, got)
				}
				xo := ToFloat32(out, got)
				// Where out holds xin exactly, the cast keeps the value.
				if xin == xin && ToFloat32(out, FromFloat32(out, xin)) == xin && in != out {
					if xo != xin {
						t.Fatalf("Convert(%#x, %#x): %v became %v", in, out, xin, xo)
					}
				}
				if xin != xin && IsFloat(out) && xo == xo {
					t.Fatalf("Convert(%#x, %#x): NaN became %v", in, out, xo)
				}
				if xin != xin && !IsFloat(out) && got != 0 {
					t.Fatalf("Convert(%#x, %#x): NaN became %#x", in, out, got)
				}
				// fp32 round trip where exact.
				if out == FP32 && (IsFloat(in) && xin == xin || math.Abs(float64(xin)) <= 1<<24) {
					back, _ := Convert(FP32, in, got)
					if back != bits {
						t.Fatalf("Convert(FP32, %#x, Convert(%#x, FP32, %#x)) = %#x", in, in, bits, back)
					}
				}
				n++
			}
		}
	}
	// Integer → integer goes through fp32; same dtype is no cast.
	for _, tc := range []struct {
		in, out uint8
		bits    uint64
		want    uint64
	}{
		{INT32, INT64, 16777217, 16777216},
		{INT32, INT32, 16777217, 16777217},
		{UINT64, INT64, math.MaxUint64, math.MaxInt64},
		{INT8, UINT8, 0xFF, 0},      // -1 saturates to 0
		{UINT8, INT8, 0xFF, 0x7F},   // 255 saturates to 127
		{INT16, INT8, 0xFF80, 0x80}, // -128
		{INT8, INT8, 0xFFF, 0xFF},   // masked
		{FP32, FP32R, 0x7F800001, 0x7F800001},
		{BFLOAT16, BFLOAT16, 0x7F81, 0x7F81}, // identity, even for a signalling NaN
		{FP32, BFLOAT16, 0x3F808000, 0x3F80},
		{BFLOAT16, FP8_EXP4, 0x43E8, 0x7E}, // 464 → 448
		{FP8_EXP5, FP8_EXP4, 0x7C, 0x7F},   // Inf → NaN
		{FP8_EXP4, FP16, 0x7E, 0x5F00},     // 448
		{FP16, INT8, 0x5F00, 0x7F},
		{FP8_EXP2, INT32, 0xFE, 0xFFFFFFF8}, // -7.75 → -8
	} {
		got, err := Convert(tc.in, tc.out, tc.bits)
		if err != nil || got != tc.want {
			t.Errorf("Convert(%#x, %#x, %#x) = %#x, %v; want %#x", tc.in, tc.out, tc.bits, got, err, tc.want)
		}
		n++
	}
	t.Logf("%d Convert checks over %d dtypes", n, len(all))
}

// The conversion paths do not allocate.
func TestNoAlloc(t *testing.T) {
	var sink uint64
	allocs := testing.AllocsPerRun(100, func() {
		for _, d := range floatTypes {
			v, _ := Convert(d, FP8_EXP4, 0x3F)
			w, _ := Convert(INT32, d, v)
			c, _ := Compute(OpAdd, d, v, w)
			sink += c + FromInt64(d, -3) + uint64(ToInt64(d, c))
		}
		sink += uint64(F32ToBF16(1.5)) + uint64(F32ToF16(1.5)) + uint64(F32ToFP8(1.5, E3M4))
		_, err := Convert(0x12, FP32, 0)
		if err == nil {
			sink++
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations per run", allocs)
	}
	_ = sink
}

// ---------------------------------------------------------------------------
// Fuzz: Convert and Compute never panic; Convert into the same dtype is the
// identity (masked to the width), NaN payloads included — there is no NaN
// canonicalisation on that path; a float → fp32 → same float round trip is
// the identity for every non-NaN code, and NaN stays NaN.

func FuzzConvert(f *testing.F) {
	f.Add(uint8(FP32), uint8(BFLOAT16), uint64(0x3F808000))
	f.Add(uint8(FP8_EXP4), uint8(FP8_EXP5), uint64(0x7E))
	f.Add(uint8(INT64), uint8(UINT64), uint64(1<<63))
	f.Add(uint8(FP16), uint8(FP8_EXP2), uint64(0x7BFF))
	f.Add(uint8(0x12), uint8(FP32), uint64(0))
	f.Fuzz(func(t *testing.T, in, out uint8, bits uint64) {
		got, err := Convert(in, out, bits)
		_, okIn := Size(in)
		szOut, okOut := Size(out)
		if (err == nil) != (okIn && okOut) {
			t.Fatalf("Convert(%#x, %#x): err = %v", in, out, err)
		}
		if err != nil {
			return
		}
		if szOut < 8 && got>>(8*szOut) != 0 {
			t.Fatalf("Convert(%#x, %#x, %#x) = %#x: bits above the width", in, out, bits, got)
		}
		if in == out {
			sz, _ := Size(in)
			want := bits
			if sz < 8 {
				want &= 1<<(8*sz) - 1
			}
			if got != want {
				t.Fatalf("Convert(%#x, %#x, %#x) = %#x, want identity", in, out, bits, got)
			}
		}
		if IsFloat(in) {
			x := ToFloat32(in, bits)
			b32, _ := Convert(in, FP32, bits)
			back, _ := Convert(FP32, in, b32)
			if x == x {
				sz, _ := Size(in)
				if back != bits&(1<<(8*sz)-1) {
					t.Fatalf("%#x → fp32 → %#x: %#x became %#x", in, in, bits, back)
				}
			} else if y := ToFloat32(in, back); y == y {
				t.Fatalf("%#x NaN %#x round-tripped to %v", in, bits, y)
			}
		}
		for op := uint8(0); op <= 5; op++ {
			_, _ = Compute(op, out, got, bits)
		}
	})
}

// Benchmarks (not run by go test without -bench).

func BenchmarkConvertF32ToBF16(b *testing.B) {
	var s uint64
	for i := range b.N {
		v, _ := Convert(FP32, BFLOAT16, uint64(uint32(i)*2654435761))
		s += v
	}
	_ = s
}

func BenchmarkConvertF32ToE4M3(b *testing.B) {
	var s uint64
	for i := range b.N {
		v, _ := Convert(FP32, FP8_EXP4, uint64(uint32(i)*2654435761))
		s += v
	}
	_ = s
}

func BenchmarkComputeAddBF16(b *testing.B) {
	var s uint64
	for i := range b.N {
		v, _ := Compute(OpAdd, BFLOAT16, uint64(i), uint64(i>>3))
		s += v
	}
	_ = s
}

// castTypes are the float formats a cast pairs (FP32R is FP32's bits).
var castTypes = []struct {
	name string
	code uint8
}{{"fp32", FP32}, {"bf16", BFLOAT16}, {"fp16", FP16}, {"fp8e3", FP8_EXP3}, {"fp8e4", FP8_EXP4}, {"fp8e5", FP8_EXP5}}

// BenchmarkConvertSlice: every pair of float formats, 16 M scalars of
// uniform values in [−1, 1) (bench/compare.sh sets them beside NumPy's astype).
func BenchmarkConvertSlice(b *testing.B) {
	const n = 16 << 20
	r := rand.New(rand.NewPCG(3, 3))
	f := make([]float32, n)
	for i := range f {
		f[i] = r.Float32()*2 - 1
	}
	for _, in := range castTypes {
		si, _ := Size(in.code)
		src := make([]byte, n*si)
		for i, v := range f {
			PutLE(src[i*si:], si, FromFloat32(in.code, v))
		}
		for _, out := range castTypes {
			if in.code == out.code {
				continue
			}
			so, _ := Size(out.code)
			dst := make([]byte, n*so)
			b.Run(in.name+"_"+out.name, func(b *testing.B) {
				b.SetBytes(int64(n * si))
				for b.Loop() {
					if err := ApplySlice(OpNone, in.code, out.code, dst, src); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// ApplySlice equals Apply scalar for scalar — every op (NONE, ADD,
// MULTIPLY, MAX, MIN, and an unknown one) between every pair of supported
// dtypes, over random bits and the special values (zeros, subnormals, the
// binary16 overflow edge, Inf, quiet and signalling NaNs) — so the run loops
// keep §11.4's rules exactly.
func TestApplySliceIsApply(t *testing.T) {
	codes := []uint8{UINT64, INT8, UINT8, INT16, UINT16, BFLOAT16, FP16, INT32, UINT32, FP32, FP32R, INT64, FP8_EXP3, FP8_EXP4, FP8_EXP5, FP8_EXP2}
	specials := []uint32{0, 0x80000000, 1, 0x80000001, 0x007FFFFF, 0x00800000, 0x33000000, 0x33000001, 0x387FFFFF, 0x38800000,
		0x38FFF000, 0x38FFF001, 0x477FEFFF, 0x477FF000, 0x477FF001, 0x477FFFFF, 0x47800000, 0x7F7FFFFF, 0x7F800000, 0xFF800000,
		0x7FC00000, 0xFFC00001, 0x7F800001, 0x7FA00000, 0x3F800000, 0xBF800000, 0x3EAAAAAB, 0x43E00000, 0x43E80000}
	r := rand.New(rand.NewPCG(5, 5))
	const n = 3000
	word := func(k int) uint64 {
		if k < len(specials) {
			return uint64(specials[k]) | uint64(specials[(k*7)%len(specials)])<<32
		}
		return r.Uint64()
	}
	for _, op := range []uint8{OpNone, OpAdd, OpMultiply, OpMax, OpMin, 9} {
		for _, in := range codes {
			for _, out := range codes {
				si, _ := Size(in)
				so, _ := Size(out)
				src, dst := make([]byte, n*si), make([]byte, n*so)
				for k := 0; k < n; k++ {
					PutLE(src[k*si:], si, word(k))
					PutLE(dst[k*so:], so, word(n-1-k))
				}
				want, old := append([]byte(nil), dst...), append([]byte(nil), dst...)
				into := make([]byte, len(dst)) // ApplySliceFrom's results, old apart
				for k := range into {
					into[k] = ^dst[k]
				}
				var wantErr error
				for k := 0; k < n && wantErr == nil; k++ {
					v, err := Apply(op, in, out, GetLE(src[k*si:], si), GetLE(want[k*so:], so))
					wantErr = err
					PutLE(want[k*so:], so, v)
				}
				err := ApplySlice(op, in, out, dst, src)
				if (err != nil) != (wantErr != nil) {
					t.Fatalf("op %d %#x → %#x: ApplySlice error %v, Apply %v", op, in, out, err, wantErr)
				}
				if err != nil {
					continue
				}
				if err := ApplySliceFrom(op, in, out, into, old, src); err != nil {
					t.Fatalf("op %d %#x → %#x: ApplySliceFrom error %v", op, in, out, err)
				}
				for k := 0; k < n; k++ {
					if g, w := GetLE(dst[k*so:], so), GetLE(want[k*so:], so); g != w {
						t.Fatalf("op %d %#x → %#x scalar %d (src %#x): ApplySlice %#x, Apply %#x", op, in, out, k, GetLE(src[k*si:], si), g, w)
					}
					if g, w := GetLE(into[k*so:], so), GetLE(want[k*so:], so); g != w {
						t.Fatalf("op %d %#x → %#x scalar %d (src %#x): ApplySliceFrom, old apart, %#x, Apply %#x", op, in, out, k, GetLE(src[k*si:], si), g, w)
					}
				}
				if op != OpNone && ApplySliceFrom(op, in, out, into, old[:len(old)-1], src) == nil {
					t.Fatalf("op %d %#x → %#x: ApplySliceFrom took an old run shorter than dst", op, in, out)
				}
			}
		}
	}
}

// Apply and ApplySlice agree on every pair of fp32 special values, both
// ways round, for every op: Inf − Inf included (addRule's +qNaN 0x7FC00000,
// where the CPU's own default NaN may be another).
func TestApplySpecialPairs(t *testing.T) {
	specials := []uint32{0, 0x80000000, 1, 0x80000001, 0x007FFFFF, 0x00800000, 0x7F7FFFFF, 0xFF7FFFFF, 0x7F800000, 0xFF800000,
		0x7FC00000, 0xFFC00000, 0xFFC00001, 0x7F800001, 0x7FA00000, 0x3F800000, 0xBF800000}
	for _, op := range []uint8{OpAdd, OpMultiply, OpMax, OpMin} {
		for _, dt := range []uint8{FP32, FP32R} {
			for _, a := range specials {
				for _, b := range specials {
					v, err := Apply(op, dt, dt, uint64(b), uint64(a))
					if err != nil {
						t.Fatal(err)
					}
					d, s := binary.LittleEndian.AppendUint32(nil, a), binary.LittleEndian.AppendUint32(nil, b)
					if err := ApplySlice(op, dt, dt, d, s); err != nil {
						t.Fatal(err)
					}
					if got := uint64(binary.LittleEndian.Uint32(d)); got != v {
						t.Errorf("op %d %#x: dst %#08x src %#08x: ApplySlice %#08x, Apply %#08x", op, dt, a, b, got, v)
					}
				}
			}
		}
	}
	if v, _ := Apply(OpAdd, FP32, FP32, 0xFF800000, 0x7F800000); v != 0x7FC00000 {
		t.Errorf("Inf + −Inf = %#08x, want the +qNaN 0x7FC00000", v)
	}
}

// The binary16 rounding of every fp32 exponent and sign, with the low bits
// that decide it (the round bit, the sticky bits, the tie), against the
// package's integer codec.
func TestF32ToF16Fast(t *testing.T) {
	lows := []uint32{0, 1, 0x0FFF, 0x1000, 0x1001, 0x1FFF, 0x2000, 0x2001, 0x3000, 0x7FFF, 0x8000, 0xFFFF}
	for hi := uint32(0); hi < 1<<16; hi++ {
		for _, lo := range lows {
			x := hi<<16 | lo
			if got, want := f32ToF16(x), uint16(encode(x, fmtF16)); got != want {
				t.Fatalf("%#08x: %#04x, want %#04x", x, got, want)
			}
		}
	}
}

// BenchmarkComputeAddFP32: the in-flight fp32 ADD of 16 M scalars in place
// (bench/compare.sh's add path, NumPy's np.add(d, s, out=d)).
func BenchmarkComputeAddFP32(b *testing.B) {
	const n = 16 << 20
	r := rand.New(rand.NewPCG(4, 4))
	src, dst := make([]byte, 4*n), make([]byte, 4*n)
	for i := 0; i < n; i++ {
		binary.LittleEndian.PutUint32(src[4*i:], math.Float32bits(r.Float32()*2-1))
		binary.LittleEndian.PutUint32(dst[4*i:], math.Float32bits(r.Float32()*2-1))
	}
	b.SetBytes(4 * n)
	for b.Loop() {
		if err := ApplySlice(OpAdd, FP32, FP32, dst, src); err != nil {
			b.Fatal(err)
		}
	}
}

// The fp32 ADD takes the float32 view only on 4-byte-aligned runs: at every
// offset 0..3 of a buffer (both views and the byte loop), with a tail that
// is no multiple of 8, each result equals the scalar Apply.
func TestAddFP32Alignments(t *testing.T) {
	r := rand.New(rand.NewPCG(6, 6))
	specials := []uint32{0x7FC00000, 0xFFC00001, 0x7F800001, 0x7F800000, 0xFF800000, 0x80000000, 1, 0x7F7FFFFF}
	const n = 1003
	for off := 0; off < 4; off++ {
		src, dst := make([]byte, 4*n+off)[off:], make([]byte, 4*n+off)[off:]
		for i := 0; i < n; i++ {
			a, b := r.Uint32(), math.Float32bits(r.Float32()*2-1)
			if i%7 == 0 {
				a = specials[i%len(specials)]
			}
			if i%5 == 0 { // both NaN at times: which payload wins is the operands' order
				b = specials[(i/5)%len(specials)]
			}
			binary.LittleEndian.PutUint32(src[4*i:], a)
			binary.LittleEndian.PutUint32(dst[4*i:], b)
		}
		want := make([]uint64, n)
		for i := range want {
			v, err := Apply(OpAdd, FP32, FP32, uint64(binary.LittleEndian.Uint32(src[4*i:])), uint64(binary.LittleEndian.Uint32(dst[4*i:])))
			if err != nil {
				t.Fatal(err)
			}
			want[i] = v
		}
		if err := ApplySlice(OpAdd, FP32, FP32, dst, src); err != nil {
			t.Fatal(err)
		}
		for i, w := range want {
			if got := uint64(binary.LittleEndian.Uint32(dst[4*i:])); got != w {
				t.Fatalf("offset %d, scalar %d: ApplySlice %#x, Apply %#x", off, i, got, w)
			}
		}
	}
}
