// Package num implements the scalar number formats that DMA casts and
// in-flight compute use (field-tables §5.1 DTYPE codes, §11.4 values).
//
// The rules (field-tables §11.4):
//
//   - in_dtype ≠ out_dtype without compute is a cast: src scalar → fp32 → out
//     dtype (Convert). Integer → integer casts go through fp32 as well.
//   - Compute ADD/MULTIPLY/MAX/MIN: dst = op(dst, src) per scalar; float types
//     compute in fp32 and round to the out type, integer types compute in
//     int64 and wrap to the out width (Compute).
//   - Rounding to narrower floats is round-to-nearest-even (RNE). bf16 and
//     fp16 keep NaN and ±Inf. FP8 follows the OCP / ml_dtypes formats: E4M3
//     ("e4m3fn") has no Inf and overflows to NaN, E5M2 is IEEE-like and
//     overflows to Inf, E3M4 is like E4M3 (see fp8Formats for the exact
//     layout, and the INFERRED notes there). A finite value that rounds (RNE)
//     to the largest finite value stays finite; only values that round beyond
//     it overflow. Subnormals are supported in every format.
//   - Float → integer rounds to nearest even and saturates; NaN → 0.
//   - FP32R is fp32 (as an output, per §11.4; as an input too — INFERRED, the
//     spec says it is never an input, validation elsewhere may reject it).
//
// NaN handling (INFERRED): narrowing a NaN keeps its sign. IEEE-like narrow
// formats (bf16, fp16, E5M2) keep the top payload bits that fit and set the
// quiet bit (the top mantissa bit), so a quiet NaN survives a round trip
// through fp32 bit-exactly and a signalling one comes back quieted. Formats
// with a single NaN per sign (E4M3, E3M4, E2M5) map every NaN to S.1…1.
// Widening keeps sign and payload.
//
// All conversion paths are allocation-free integer bit arithmetic (no maps,
// no math/big); FP8 decoding uses 256-entry tables built at init.
package num

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"strconv"
)

// DTYPE codes (field-tables §5.1).
const (
	UINT64   uint8 = 0x01
	INT8     uint8 = 0x02
	UINT8    uint8 = 0x03
	INT16    uint8 = 0x04
	UINT16   uint8 = 0x05
	BFLOAT16 uint8 = 0x06
	FP16     uint8 = 0x07
	INT32    uint8 = 0x08
	UINT32   uint8 = 0x09
	FP32     uint8 = 0x0A
	FP32R    uint8 = 0x0B
	INT64    uint8 = 0x0C
	FP8_EXP3 uint8 = 0x0D // E3M4
	FP8_EXP4 uint8 = 0x0E // E4M3 (e4m3fn)
	FP8_EXP5 uint8 = 0x0F // E5M2
	FP8_EXP2 uint8 = 0x11 // E2M5 (v5)
)

// DGE_COMPUTE_OP codes (field-tables §5.2).
const (
	OpNone     uint8 = 0
	OpAdd      uint8 = 1
	OpMultiply uint8 = 2
	OpMax      uint8 = 3
	OpMin      uint8 = 4
)

// UnsupportedDtypeError is returned for a DTYPE code this package does not
// implement: INVALID, FP4_EXP2, INT4, SFP8_*, CPTC*, and any unknown code.
type UnsupportedDtypeError uint8

func (e UnsupportedDtypeError) Error() string {
	name := "unknown"
	switch d := uint8(e); {
	case d == 0x00:
		name = "INVALID"
	case d == 0x10:
		name = "FP4_EXP2"
	case d == 0x12:
		name = "INT4"
	case d >= 0x13 && d <= 0x16:
		name = "SFP8_E" + strconv.Itoa(int(8-(d-0x13)))
	case d&0xF8 == 0x18 && d&7 != 0:
		name = "CPTC" + strconv.Itoa(int(d&7))
	}
	return "num: unsupported dtype 0x" + strconv.FormatUint(uint64(e), 16) + " (" + name + ")"
}

// UnsupportedOpError is returned by Compute for a compute_op outside 0..4.
type UnsupportedOpError uint8

func (e UnsupportedOpError) Error() string {
	return "num: unsupported compute_op " + strconv.Itoa(int(e))
}

// kind of a supported DTYPE code.
const (
	kNone uint8 = iota
	kSigned
	kUnsigned
	kFP32
	kBF16
	kFP16
	kFP8
)

type dtInfo struct {
	kind  uint8
	size  uint8 // bytes
	fp8   FP8   // for kFP8
	shift uint8 // 64 - 8*size: sign/zero extension shift
}

// dtypes is indexed by DTYPE code (0x00..0x1F).
var dtypes = [32]dtInfo{
	UINT64:   {kind: kUnsigned, size: 8},
	INT8:     {kind: kSigned, size: 1, shift: 56},
	UINT8:    {kind: kUnsigned, size: 1, shift: 56},
	INT16:    {kind: kSigned, size: 2, shift: 48},
	UINT16:   {kind: kUnsigned, size: 2, shift: 48},
	BFLOAT16: {kind: kBF16, size: 2, shift: 48},
	FP16:     {kind: kFP16, size: 2, shift: 48},
	INT32:    {kind: kSigned, size: 4, shift: 32},
	UINT32:   {kind: kUnsigned, size: 4, shift: 32},
	FP32:     {kind: kFP32, size: 4, shift: 32},
	FP32R:    {kind: kFP32, size: 4, shift: 32},
	INT64:    {kind: kSigned, size: 8},
	FP8_EXP3: {kind: kFP8, size: 1, fp8: E3M4, shift: 56},
	FP8_EXP4: {kind: kFP8, size: 1, fp8: E4M3, shift: 56},
	FP8_EXP5: {kind: kFP8, size: 1, fp8: E5M2, shift: 56},
	FP8_EXP2: {kind: kFP8, size: 1, fp8: E2M5, shift: 56},
}

func info(d uint8) dtInfo {
	if d >= uint8(len(dtypes)) {
		return dtInfo{}
	}
	return dtypes[d]
}

// mask keeps the low size*8 bits.
func (i dtInfo) mask(b uint64) uint64 { return b << i.shift >> i.shift }

// Size is the size in bytes of one scalar of dtype: 1, 2, 4 or 8 for the
// supported codes (0x01..0x0F, 0x11); FP32R is 4. ok is false otherwise.
func Size(dtype uint8) (bytes int, ok bool) {
	i := info(dtype)
	return int(i.size), i.kind != kNone
}

// IsFloat reports whether dtype is a supported floating-point DTYPE (BF16,
// FP16, FP32, FP32R, the four FP8 formats). Unsupported float codes (FP4,
// SFP8) report false.
func IsFloat(dtype uint8) bool { return info(dtype).kind >= kFP32 }

// IsSigned reports whether dtype is a signed integer DTYPE.
func IsSigned(dtype uint8) bool { return info(dtype).kind == kSigned }

// ToFloat32 decodes the low Size bytes of bits. Float dtypes: decode (exact).
// Integer dtypes: the (sign-extended for signed types, zero-extended for
// unsigned) integer converted to float32 with RNE. Unsupported dtypes: 0.
func ToFloat32(dtype uint8, bits uint64) float32 {
	i := info(dtype)
	switch i.kind {
	case kSigned:
		return float32(int64(bits<<i.shift) >> i.shift)
	case kUnsigned:
		return float32(i.mask(bits))
	case kFP32:
		return math.Float32frombits(uint32(bits))
	case kBF16:
		return BF16ToF32(uint16(bits))
	case kFP16:
		return F16ToF32(uint16(bits))
	case kFP8:
		return FP8ToF32(uint8(bits), i.fp8)
	}
	return 0
}

// FromFloat32 encodes f as dtype, raw bits in the low Size*8 bits. Narrow
// floats: RNE (see the package comment for overflow and NaN). Integers: RNE,
// saturating to the type's range, NaN → 0. Unsupported dtypes: 0.
func FromFloat32(dtype uint8, f float32) uint64 {
	i := info(dtype)
	switch i.kind {
	case kSigned:
		v := f32ToInt64(f)
		lo, hi := int64(-1)<<(i.size*8-1), int64(uint64(1)<<(i.size*8-1)-1)
		if v < lo {
			v = lo
		} else if v > hi {
			v = hi
		}
		return i.mask(uint64(v))
	case kUnsigned:
		v := f32ToUint64(f)
		if max := ^uint64(0) >> i.shift; v > max {
			v = max
		}
		return v
	case kFP32:
		return uint64(math.Float32bits(f))
	case kBF16:
		return uint64(F32ToBF16(f))
	case kFP16:
		return uint64(F32ToF16(f))
	case kFP8:
		return uint64(F32ToFP8(f, i.fp8))
	}
	return 0
}

// roundEven64 is f rounded to an integer, ties to even, in float64 (exact:
// every float32 is a float64).
func roundEven64(f float32) float64 { return math.RoundToEven(float64(f)) }

const two63 = 9223372036854775808.0  // 2^63
const two64 = 18446744073709551616.0 // 2^64

// f32ToInt64: RNE, saturating, NaN → 0.
func f32ToInt64(f float32) int64 {
	r := roundEven64(f)
	switch {
	case r != r:
		return 0
	case r >= two63:
		return math.MaxInt64
	case r < -two63:
		return math.MinInt64
	}
	return int64(r)
}

// f32ToUint64: RNE, saturating to [0, 2^64-1], NaN → 0.
func f32ToUint64(f float32) uint64 {
	r := roundEven64(f)
	switch {
	case r != r || r <= 0:
		return 0
	case r >= two64:
		return math.MaxUint64
	case r >= two63:
		return uint64(r-two63) + 1<<63
	}
	return uint64(r)
}

// ToInt64 decodes the low Size bytes of bits as an integer. Integer dtypes:
// sign- or zero-extended; UINT64 is returned as its bit pattern (values ≥
// 2^63 read negative — INFERRED, Compute treats UINT64 as unsigned). Float
// dtypes: decode, then RNE and saturate to int64, NaN → 0. Unsupported: 0.
func ToInt64(dtype uint8, bits uint64) int64 {
	i := info(dtype)
	switch i.kind {
	case kSigned:
		return int64(bits<<i.shift) >> i.shift
	case kUnsigned:
		return int64(i.mask(bits))
	case kNone:
		return 0
	}
	return f32ToInt64(ToFloat32(dtype, bits))
}

// FromInt64 encodes v as dtype. Integer dtypes: wrap to the width (two's
// complement truncation). Float dtypes: float32(v) (RNE), then FromFloat32.
func FromInt64(dtype uint8, v int64) uint64 {
	i := info(dtype)
	switch i.kind {
	case kSigned, kUnsigned:
		return i.mask(uint64(v))
	case kNone:
		return 0
	}
	return FromFloat32(dtype, float32(v))
}

// Convert casts one scalar (the low Size(in) bytes of bits) from in to out by
// the §11.4 rule: → fp32 → out; integer → integer casts go through fp32 too.
// in == out (and FP32 ↔ FP32R) is no cast: the bits are returned unchanged
// (masked to the width), NaN payloads included. Unsupported dtypes: error.
func Convert(in, out uint8, bits uint64) (uint64, error) {
	ii, oi := info(in), info(out)
	if ii.kind == kNone {
		return 0, UnsupportedDtypeError(in)
	}
	if oi.kind == kNone {
		return 0, UnsupportedDtypeError(out)
	}
	bits = ii.mask(bits)
	if in == out || (ii.kind == kFP32 && oi.kind == kFP32) {
		return bits, nil
	}
	return FromFloat32(out, ToFloat32(in, bits)), nil
}

// Compute applies DGE_COMPUTE_OP op to one scalar pair of dtype and returns
// op(dst, src): 0 NONE → src, 1 ADD, 2 MULTIPLY, 3 MAX, 4 MIN.
//
// Float dtypes compute in fp32 (each operand decoded exactly, one fp32
// operation, RNE) and round the result to dtype. NaN results (INFERRED, all
// ops): if either operand is NaN the result is NaN — the first NaN operand
// (dst before src), made quiet, sign and payload kept as far as the dtype
// allows; a NaN the operation itself creates (Inf-Inf, 0·Inf) is the
// canonical +qNaN, so results do not depend on the CPU's default NaN.
// MAX/MIN with a NaN operand therefore give NaN (INFERRED);
// max(-0, +0) = +0, min(-0, +0) = -0 (INFERRED, as math.Max/Min).
//
// Integer dtypes compute in int64 and wrap to the width; MAX/MIN compare
// signed for signed types and unsigned for unsigned types (UINT64 included).
func Compute(op uint8, dtype uint8, dst, src uint64) (uint64, error) {
	i := info(dtype)
	if i.kind == kNone {
		return 0, UnsupportedDtypeError(dtype)
	}
	if op > OpMin {
		return 0, UnsupportedOpError(op)
	}
	dst, src = i.mask(dst), i.mask(src)
	if op == OpNone {
		return src, nil
	}
	switch i.kind {
	case kSigned, kUnsigned:
		var r uint64
		switch op {
		case OpAdd:
			r = dst + src
		case OpMultiply:
			r = dst * src // the low bits of a product depend only on the low bits
		case OpMax, OpMin:
			// Compare the extended values: signed types by their sign-extended
			// int64, unsigned types (zero-extended) as uint64.
			a, b := dst, src
			if i.kind == kSigned {
				a = uint64(int64(dst<<i.shift)>>i.shift) ^ 1<<63
				b = uint64(int64(src<<i.shift)>>i.shift) ^ 1<<63
			}
			if (a > b) == (op == OpMax) {
				r = dst
			} else {
				r = src
			}
		}
		return i.mask(r), nil
	}
	a, b := ToFloat32(dtype, dst), ToFloat32(dtype, src)
	var r float32
	switch {
	case a != a:
		r = a
	case b != b:
		r = b
	case op == OpAdd:
		r = float32(a + b)
		if r != r { // Inf - Inf: the CPU's default NaN differs by platform
			r = math.Float32frombits(0x7FC00000)
		}
	case op == OpMultiply:
		r = float32(a * b)
		if r != r { // 0 · Inf
			r = math.Float32frombits(0x7FC00000)
		}
	default: // OpMax, OpMin
		switch {
		case a == 0 && b == 0:
			// ±0: max prefers +0, min prefers -0.
			if math.Signbit(float64(a)) != (op == OpMax) {
				r = a
			} else {
				r = b
			}
		case (a > b) == (op == OpMax):
			r = a
		default:
			r = b
		}
	}
	if i.kind == kFP32 {
		// fp32 is the compute type: no further rounding.
		rb := math.Float32bits(r)
		if rb&0x7FFFFFFF > 0x7F800000 {
			rb |= 0x00400000 // a propagated NaN comes back quiet
		}
		return uint64(rb), nil
	}
	return FromFloat32(dtype, r), nil
}

// ---------------------------------------------------------------------------
// Narrow float codecs.

// format describes a binary floating-point format narrower than fp32.
type format struct {
	e, m uint32 // exponent and mantissa widths
	bias uint32
	// ieee: the all-ones exponent is reserved (mantissa 0 → ±Inf, else NaN).
	// Otherwise ("fn" formats) there is no Inf and only S.1…1 is NaN; the rest
	// of the all-ones exponent row holds finite values.
	ieee bool
}

var (
	fmtBF16 = format{e: 8, m: 7, bias: 127, ieee: true}
	fmtF16  = format{e: 5, m: 10, bias: 15, ieee: true}
)

// FP8 selects an 8-bit float format.
type FP8 uint8

// The FP8 formats (field-tables §5.1 names in parentheses).
const (
	E4M3 FP8 = iota // FP8_EXP4, OCP "e4m3fn"
	E5M2            // FP8_EXP5
	E3M4            // FP8_EXP3
	E2M5            // FP8_EXP2 (v5)
)

// fp8Formats, indexed by FP8.
//
//   - E4M3: bias 7, no Inf, NaN = S.1111.111, max finite S.1111.110 = 448 (OCP
//     e4m3fn, as ml_dtypes.float8_e4m3fn). Overflow → NaN.
//   - E5M2: bias 15, IEEE-like (Inf S.11111.00, NaN S.11111.xx≠00), max
//     57344. Overflow → Inf.
//   - E3M4: bias 3, "like E4M3" per field-tables §11.4: no Inf, NaN =
//     S.111.1111, max finite S.111.1110 = 2^4·1.875 = 30. Overflow → NaN.
//     INFERRED/CONFLICT: ml_dtypes.float8_e3m4 is instead IEEE-like (Inf at
//     S.111.0000, NaN S.111.xxxx≠0000, max finite 15.5, overflow → Inf); a
//     "max finite 15.5" is inconsistent with "no Inf, NaN only S.111.1111".
//     Switching to the ml_dtypes layout is setting ieee: true below.
//   - E2M5: INFERRED (no source): defined like E4M3 — bias 1, no Inf, NaN =
//     S.11.11111, max finite S.11.11110 = 2^2·1.9375 = 7.75, overflow → NaN.
var fp8Formats = [4]format{
	E4M3: {e: 4, m: 3, bias: 7, ieee: false},
	E5M2: {e: 5, m: 2, bias: 15, ieee: true},
	E3M4: {e: 3, m: 4, bias: 3, ieee: false},
	E2M5: {e: 2, m: 5, bias: 1, ieee: false},
}

// fp8Dec[f][b] is the float32 bit pattern of FP8 code b in format f.
var fp8Dec [4][256]uint32

func init() {
	for f := range fp8Formats {
		for b := range 256 {
			fp8Dec[f][b] = decode(uint32(b), fp8Formats[f])
		}
	}
}

// decode returns the float32 bits of code c (1+e+m bits) in format ft. Exact.
func decode(c uint32, ft format) uint32 {
	sign := (c >> (ft.e + ft.m) & 1) << 31
	ex := c >> ft.m & (1<<ft.e - 1)
	man := c & (1<<ft.m - 1)
	allOnes := uint32(1)<<ft.e - 1
	if ex == allOnes {
		if ft.ieee {
			// Inf (man == 0) or NaN keeping the payload.
			return sign | 0x7F800000 | man<<(23-ft.m)
		}
		if man == 1<<ft.m-1 {
			return sign | 0x7FC00000 // the only NaN
		}
	}
	if ex == 0 {
		if man == 0 {
			return sign
		}
		// Subnormal: man · 2^(1-bias-m). Normalise: leading one at bit l-1.
		l := uint32(bits.Len32(man))
		// Biased fp32 exponent 127+l-bias-m: ≥ 1 for fp16 and the FP8
		// formats (bf16 subnormals are fp32 subnormals: BF16ToF32 handles bf16).
		e32 := 127 + l - ft.bias - ft.m
		return sign | e32<<23 | (man<<(24-l))&0x7FFFFF
	}
	return sign | (ex+127-ft.bias)<<23 | man<<(23-ft.m)
}

// encode rounds the float32 with bits x to format ft (RNE) and returns the
// code (1+e+m bits). Integer arithmetic only.
func encode(x uint32, ft format) uint32 {
	sign := x >> 31 << (ft.e + ft.m)
	a := x & 0x7FFFFFFF
	allOnes := uint32(1)<<ft.e - 1
	nanCode := uint32(1)<<(ft.e+ft.m) - 1 // fn formats: S.1…1
	infCode := allOnes << ft.m            // ieee formats
	maxCode := nanCode - 1                // fn: S.1…10
	if ft.ieee {
		maxCode = infCode - 1
	}
	if a >= 0x7F800000 {
		if a == 0x7F800000 { // ±Inf
			if ft.ieee {
				return sign | infCode
			}
			return sign | nanCode
		}
		if ft.ieee { // NaN: keep the top payload bits, set the quiet bit
			return sign | infCode | 1<<(ft.m-1) | (a>>(23-ft.m))&(1<<ft.m-1)
		}
		return sign | nanCode
	}
	ef := a >> 23
	var code uint32
	if ef+ft.bias >= 128 { // unbiased exponent ef-127 ≥ 1-bias: a normal code (or overflow)
		sh := 23 - ft.m
		a += (1<<(sh-1) - 1) + (a>>sh)&1 // RNE; a carry may bump the exponent
		code = a>>sh - (127-ft.bias)<<ft.m
	} else {
		// Subnormal in the target (or zero): value = sig·2^(e1-150) with
		// e1 = max(ef,1); in units of the target's 2^(1-bias-m) that is
		// sig >> s with s = 150 - e1 + (1-bias) - m.
		sig, e1 := a&0x7FFFFF|1<<23, ef
		if ef == 0 {
			sig, e1 = a, 1
		}
		s := 151 - e1 - ft.bias - ft.m
		if s >= 25 { // sig < 2^24 ≤ half a unit: rounds to zero
			return sign
		}
		code = sig >> s
		rem, half := sig&(1<<s-1), uint32(1)<<(s-1)
		if rem > half || rem == half && code&1 == 1 {
			code++ // may reach 1<<m: the smallest normal, correctly encoded
		}
	}
	if code > maxCode {
		if ft.ieee {
			return sign | infCode
		}
		return sign | nanCode
	}
	return sign | code
}

// BF16ToF32 decodes a bfloat16 (exact; NaN payload kept).
func BF16ToF32(b uint16) float32 { return math.Float32frombits(uint32(b) << 16) }

// F32ToBF16 rounds f to bfloat16 (RNE; ±Inf kept; overflow → ±Inf; NaN keeps
// sign and top payload bits, quiet bit set).
func F32ToBF16(f float32) uint16 {
	x := math.Float32bits(f)
	if x&0x7FFFFFFF > 0x7F800000 {
		return uint16(x>>16) | 0x0040
	}
	return uint16((x + 0x7FFF + (x>>16)&1) >> 16)
}

// F16ToF32 decodes an IEEE binary16 (exact; NaN payload kept).
func F16ToF32(h uint16) float32 { return math.Float32frombits(decode(uint32(h), fmtF16)) }

// F32ToF16 rounds f to IEEE binary16 (RNE; ±Inf kept; overflow → ±Inf; NaN
// keeps sign and top payload bits, quiet bit set).
func F32ToF16(f float32) uint16 { return uint16(encode(math.Float32bits(f), fmtF16)) }

// FP8ToF32 decodes FP8 code b in format f (exact). An unknown f gives NaN.
func FP8ToF32(b uint8, f FP8) float32 {
	if f > E2M5 {
		return float32(math.NaN())
	}
	return math.Float32frombits(fp8Dec[f][b])
}

// F32ToFP8 rounds x to FP8 format f (RNE; overflow → NaN for E4M3/E3M4/E2M5,
// → Inf for E5M2; ±Inf → NaN for the no-Inf formats). An unknown f gives 0.
func F32ToFP8(x float32, f FP8) uint8 {
	if f > E2M5 {
		return 0
	}
	return uint8(encode(math.Float32bits(x), fp8Formats[f]))
}

// ErrOp is a compute_op Apply does not know.
var ErrOp = errors.New("compute_op not ADD, MULTIPLY, MAX or MIN")

// Apply is one scalar of a DMA's value path (field-tables §11.4), shared by
// the reference and the descriptor engines: with op NONE a cast of src from
// in to out; otherwise dst = op(dst, src) — float outputs compute in fp32
// (src decoded as in, dst as out) and round to out, integer outputs compute
// in int64 and wrap to out's width. MAX/MIN propagate NaN (INFERRED).
func Apply(op, in, out uint8, src, dst uint64) (uint64, error) {
	if op == 0 {
		return Convert(in, out, src)
	}
	if op == OpAdd && info(in).kind == kFP32 && info(out).kind == kFP32 { // the run loops' rule (addRule): Inf − Inf is +qNaN on every CPU
		return uint64(math.Float32bits(addRule(math.Float32frombits(uint32(dst)), math.Float32frombits(uint32(src))))), nil
	}
	if IsFloat(out) {
		r, err := combine(op, ToFloat32(out, dst), ToFloat32(in, src), fmaxNaN, fminNaN)
		return FromFloat32(out, r), err
	}
	r, err := combine(op, ToInt64(out, dst), ToInt64(in, src), maxInt, minInt)
	return FromInt64(out, r), err
}

// combine is dst op src for ADD (1), MULTIPLY (2), MAX (3), MIN (4).
func combine[T int64 | float32](op uint8, dst, src T, maxf, minf func(T, T) T) (T, error) {
	switch op {
	case 1:
		return dst + src, nil
	case 2:
		return dst * src, nil
	case 3:
		return maxf(dst, src), nil
	case 4:
		return minf(dst, src), nil
	}
	return 0, fmt.Errorf("compute_op %d: %w", op, ErrOp)
}

func maxInt(a, b int64) int64 { return max(a, b) }

func minInt(a, b int64) int64 { return min(a, b) }

func fmaxNaN(a, b float32) float32 {
	if a != a || b != b {
		return a + b
	}
	return max(a, b)
}

func fminNaN(a, b float32) float32 {
	if a != a || b != b {
		return a + b
	}
	return min(a, b)
}

// GetLE is the little-endian n-byte value at b.
func GetLE(b []byte, n int) uint64 {
	var v uint64
	for i := n - 1; i >= 0; i-- {
		v = v<<8 | uint64(b[i])
	}
	return v
}

// PutLE writes v's low n bytes at b, little-endian.
func PutLE(b []byte, n int, v uint64) {
	for i := 0; i < n; i++ {
		b[i] = byte(v >> (8 * i))
	}
}
