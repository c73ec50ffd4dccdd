package dtype

import (
	"math"
	"testing"
)

// Every type round-trips its names, and its descr reads back to itself or,
// for the raw-bit formats, to the unsigned integer of its width.
func TestNames(t *testing.T) {
	for _, r := range rows {
		d := r.d
		if got, err := Parse(d.String()); err != nil || got != d {
			t.Errorf("Parse(%q) = %v, %v", d.String(), got, err)
		}
		want := d
		if d == FP32R {
			want = FP32 // a NEFF's float32r holds fp32 bytes
		}
		if got, err := FromNEFF(d.NEFF()); err != nil || got != want {
			t.Errorf("FromNEFF(%q) = %v, %v; want %v", d.NEFF(), got, err, want)
		}
		got, err := FromDescr(d.Descr())
		if err != nil || got.Size() != d.Size() {
			t.Errorf("FromDescr(%q) = %v, %v", d.Descr(), got, err)
		}
		if !d.Holds(d.Descr()) {
			t.Errorf("%v does not hold its own descr %q", d, d.Descr())
		}
	}
	for s, want := range map[string]DType{"float8_e4m3fn": FP8E4, "float8_e5m2": FP8E5, "": U8, "bfloat16": BF16} {
		if got, err := FromNEFF(s); err != nil || got != want {
			t.Errorf("FromNEFF(%q) = %v, %v; want %v", s, got, err, want)
		}
	}
	for _, bad := range []string{"float64", "complex64", "FP4_EXP2"} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q): no error", bad)
		}
	}
	if _, err := FromDescr(">f4"); err == nil {
		t.Error("FromDescr(>f4): a big-endian array has no DTYPE")
	}
	// sizes from the spec's widths, not the codec
	sizes := map[DType]int{U64: 8, I8: 1, U8: 1, I16: 2, U16: 2, BF16: 2, FP16: 2, I32: 4, U32: 4, FP32: 4, FP32R: 4, I64: 8, FP8E3: 1, FP8E4: 1, FP8E5: 1, FP8E2: 1}
	for d, n := range sizes {
		if d.Size() != n {
			t.Errorf("%v.Size() = %d, want %d", d, d.Size(), n)
		}
	}
}

// fp16 by hand: sign, 5-bit exponent biased 15, 10-bit fraction.
func f16(sign, exp, frac uint16) Float16 { return Float16(sign<<15 | exp<<10 | frac) }

// The codecs against values derived by hand from each format's layout.
func TestCodecs(t *testing.T) {
	half := []struct {
		f    float32
		bits Float16
	}{
		{1, f16(0, 15, 0)},                                 // 0x3c00
		{-2, f16(1, 16, 0)},                                // 0xc000
		{65504, f16(0, 30, 0x3ff)},                         // the largest finite
		{float32(math.Ldexp(1, -24)), f16(0, 0, 1)},        // the smallest subnormal
		{float32(math.Ldexp(1, -14)), f16(0, 1, 0)},        // the smallest normal
		{1 + float32(math.Ldexp(1, -11)), f16(0, 15, 0)},   // halfway to the next: ties to even (down)
		{1 + 3*float32(math.Ldexp(1, -11)), f16(0, 15, 2)}, // halfway, odd below: up
		{65520, f16(0, 31, 0)},                             // rounds past the largest: Inf
		{float32(math.Inf(-1)), f16(1, 31, 0)},             // -Inf
	}
	for _, c := range half {
		if got := ToFloat16(c.f); got != c.bits {
			t.Errorf("ToFloat16(%g) = %#04x, want %#04x", c.f, uint16(got), uint16(c.bits))
		}
	}
	for _, c := range half[:5] {
		if got := c.bits.Float32(); got != c.f {
			t.Errorf("Float16(%#04x).Float32() = %g, want %g", uint16(c.bits), got, c.f)
		}
	}
	if nan := ToFloat16(float32(math.NaN())); nan&0x7c00 != 0x7c00 || nan&0x3ff == 0 {
		t.Errorf("ToFloat16(NaN) = %#04x: not a NaN", uint16(nan))
	}
	// bf16: the top 16 bits of the fp32, rounded to nearest even
	if b := ToBFloat16(1); b != 0x3f80 || b.Float32() != 1 {
		t.Errorf("ToBFloat16(1) = %#04x", uint16(b))
	}
	tie := math.Float32frombits(0x3f808000) // exactly between 0x3f80 and 0x3f81
	if b := ToBFloat16(tie); b != 0x3f80 {
		t.Errorf("ToBFloat16(tie) = %#04x, want 0x3f80 (even)", uint16(b))
	}
	if b := ToBFloat16(math.Float32frombits(0x3f818000)); b != 0x3f82 {
		t.Errorf("ToBFloat16(odd tie) = %#04x, want 0x3f82", uint16(b))
	}
	// E4M3 (bias 7, no Inf: S.1111.111 is NaN): max 1.75·2^8 = 448 = 0x7e
	if e := ToFloat8E4M3(448); e != 0x7e || e.Float32() != 448 {
		t.Errorf("ToFloat8E4M3(448) = %#02x", uint8(e))
	}
	if e := ToFloat8E4M3(1); e != 0x38 {
		t.Errorf("ToFloat8E4M3(1) = %#02x, want 0x38", uint8(e))
	}
	if e := ToFloat8E4M3(1000); e&0x7f != 0x7f {
		t.Errorf("ToFloat8E4M3(1000) = %#02x, want NaN", uint8(e))
	}
	// E5M2 (bias 15, IEEE-like): 1 = 0x3c, max 1.75·2^15 = 57344 = 0x7b, Inf 0x7c
	if e := ToFloat8E5M2(1); e != 0x3c || ToFloat8E5M2(57344) != 0x7b || ToFloat8E5M2(1e6) != 0x7c {
		t.Errorf("E5M2: 1 → %#02x, 57344 → %#02x, 1e6 → %#02x", uint8(e), uint8(ToFloat8E5M2(57344)), uint8(ToFloat8E5M2(1e6)))
	}
	// E3M4 (bias 3, like E4M3: only S.111.1111 is NaN): 1 = 0.011.0000 =
	// 0x30, 15.5 = 1.9375·2^3 = 0.110.1111 = 0x6f, max 1.875·2^4 = 30 = 0x7e
	if e := ToFloat8E3M4(1); e != 0x30 || ToFloat8E3M4(15.5) != 0x6f || ToFloat8E3M4(30) != 0x7e || ToFloat8E3M4(30).Float32() != 30 {
		t.Errorf("E3M4: 1 → %#02x, 15.5 → %#02x, 30 → %#02x", uint8(e), uint8(ToFloat8E3M4(15.5)), uint8(ToFloat8E3M4(30)))
	}
}

// Bytes and FromBytes are each other's inverse and little-endian; Of names
// each element type; Convert casts as the executors do.
func TestBytesAndConvert(t *testing.T) {
	h := []Float16{0x3c00, 0xc000}
	b := Bytes(h)
	if len(b) != 4 || b[0] != 0x00 || b[1] != 0x3c || b[2] != 0x00 || b[3] != 0xc0 {
		t.Fatalf("Bytes = % x", b)
	}
	back, err := FromBytes[Float16](b)
	if err != nil || len(back) != 2 || back[0] != h[0] || back[1] != h[1] {
		t.Fatalf("FromBytes = %v, %v", back, err)
	}
	if _, err := FromBytes[int32](b[:3]); err == nil {
		t.Error("FromBytes of 3 bytes as int32: no error")
	}
	if Of[Float16]() != FP16 || Of[BFloat16]() != BF16 || Of[float32]() != FP32 || Of[int8]() != I8 || Of[Float8E3M4]() != FP8E3 {
		t.Error("Of names the wrong DType")
	}
	f := []float32{1, -2, 65504, 0.5}
	out := make([]byte, 2*len(f))
	if err := Convert(out, FP16, Bytes(f), FP32); err != nil {
		t.Fatal(err)
	}
	got, _ := FromBytes[Float16](out)
	for i, x := range f {
		if got[i] != ToFloat16(x) {
			t.Errorf("Convert[%d] = %#04x, want %#04x", i, uint16(got[i]), uint16(ToFloat16(x)))
		}
	}
}
