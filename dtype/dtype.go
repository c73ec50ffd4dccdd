// Package dtype is the one scalar type of ndma: the ISA's DTYPE code
// (docs/dtype.md) names an element of a word's operands, a NEFF tensor and a
// NumPy array alike, so a tensor's type passes from the NEFF's JSON to a
// .npy file and back as one value. Its codecs (Float16, BFloat16, the FP8
// formats) are the ones the executors cast with: round to nearest even,
// NaN and ±Inf kept where the format has them.
package dtype

import (
	"fmt"
	"slices"
	"strings"

	"ndma/internal/num"
)

// DType is a scalar type by its DTYPE code (field-tables §5.1).
type DType uint8

// The DTYPE codes ndma computes with (field-tables §5.1; 0x10 FP4_EXP2, the
// INT4 and SFP8 codes have no codec here).
const (
	U64   DType = 0x01 // UINT64
	I8    DType = 0x02 // INT8
	U8    DType = 0x03 // UINT8
	I16   DType = 0x04 // INT16
	U16   DType = 0x05 // UINT16
	BF16  DType = 0x06 // BFLOAT16
	FP16  DType = 0x07 // FP16 (IEEE binary16)
	I32   DType = 0x08 // INT32
	U32   DType = 0x09 // UINT32
	FP32  DType = 0x0A // FP32
	FP32R DType = 0x0B // FP32R: fp32 bytes (an output form of fp32)
	I64   DType = 0x0C // INT64
	FP8E3 DType = 0x0D // FP8_EXP3: E3M4
	FP8E4 DType = 0x0E // FP8_EXP4: E4M3 (e4m3fn: no Inf)
	FP8E5 DType = 0x0F // FP8_EXP5: E5M2 (IEEE-like)
	FP8E2 DType = 0x11 // FP8_EXP2: E2M5 (MAVERICK)
)

// one row per type: its spec name, its NEFF dtype string, its NumPy descr
// (bf16 and the FP8 formats travel as unsigned integers of their width
// holding the raw bits: NumPy has no such dtype).
var rows = [...]struct {
	d          DType
	spec, neff string
	descr      string
}{
	{U64, "UINT64", "uint64", "<u8"},
	{I8, "INT8", "int8", "|i1"},
	{U8, "UINT8", "uint8", "|u1"},
	{I16, "INT16", "int16", "<i2"},
	{U16, "UINT16", "uint16", "<u2"},
	{BF16, "BFLOAT16", "bfloat16", "<u2"},
	{FP16, "FP16", "float16", "<f2"},
	{I32, "INT32", "int32", "<i4"},
	{U32, "UINT32", "uint32", "<u4"},
	{FP32, "FP32", "float32", "<f4"},
	{FP32R, "FP32R", "float32r", "<f4"},
	{I64, "INT64", "int64", "<i8"},
	{FP8E3, "FP8_EXP3", "float8e3", "|u1"},
	{FP8E4, "FP8_EXP4", "float8e4", "|u1"},
	{FP8E5, "FP8_EXP5", "float8e5", "|u1"},
	{FP8E2, "FP8_EXP2", "float8e2", "|u1"},
}

// neffAliases are further NEFF dtype strings (neff.md §4.5): the ml_dtypes
// names of two FP8 formats.
var neffAliases = map[string]DType{"float8_e4m3fn": FP8E4, "float8_e5m2": FP8E5}

func row(d DType) (int, bool) {
	for i := range rows {
		if rows[i].d == d {
			return i, true
		}
	}
	return 0, false
}

// Known reports whether ndma has a codec for d.
func (d DType) Known() bool { _, ok := row(d); return ok }

// String is the spec's name ("FP16", "BFLOAT16"), or the code in hex.
func (d DType) String() string {
	if i, ok := row(d); ok {
		return rows[i].spec
	}
	return fmt.Sprintf("DTYPE(%#x)", uint8(d))
}

// Size is the bytes of one scalar (0 for a type without a codec).
func (d DType) Size() int {
	n, _ := num.Size(uint8(d))
	return n
}

// IsFloat reports whether d is a floating-point type.
func (d DType) IsFloat() bool { return num.IsFloat(uint8(d)) }

// IsSigned reports whether d is a signed integer type.
func (d DType) IsSigned() bool { return num.IsSigned(uint8(d)) }

// NEFF is the type's NEFF dtype string ("float16").
func (d DType) NEFF() string {
	if i, ok := row(d); ok {
		return rows[i].neff
	}
	return ""
}

// Descr is the NumPy descr an array of d is written with ("<f2"; "<u2"
// for bfloat16, "|u1" for the FP8 formats: their raw bits).
func (d DType) Descr() string {
	if i, ok := row(d); ok {
		return rows[i].descr
	}
	return ""
}

// FromNEFF is the type of a NEFF dtype string (neff.md §4.5; "" is raw
// bytes: UINT8). float32r reads as FP32: a NEFF's fp32r tensor holds fp32
// bytes (INFERRED, RATIONALE.md).
func FromNEFF(s string) (DType, error) {
	switch s {
	case "":
		return U8, nil
	case "float32r":
		return FP32, nil
	}
	if d, ok := neffAliases[s]; ok {
		return d, nil
	}
	for i := range rows {
		if rows[i].neff == s {
			return rows[i].d, nil
		}
	}
	return 0, fmt.Errorf("dtype %q is not one ndma knows (float32, float32r, float16, bfloat16, float8e3/e4/e5, float8_e4m3fn, float8_e5m2, int/uint 8..64)", s)
}

// FromDescr is the type a NumPy descr holds: the integer and float types by
// their own descr ("<f2" FP16, "<u2" UINT16 — a bf16 array arrives as
// "<u2" and is UINT16 until its tensor says otherwise).
func FromDescr(descr string) (DType, error) {
	for i := range rows {
		if rows[i].descr == descr && rows[i].d != BF16 && rows[i].d != FP32R && !isFP8(rows[i].d) {
			return rows[i].d, nil
		}
	}
	var valid []string // from the table: what an array may hold
	for i := range rows {
		if d := rows[i].descr; d != "" && rows[i].d != BF16 && rows[i].d != FP32R && !isFP8(rows[i].d) && !slices.Contains(valid, d) {
			valid = append(valid, d)
		}
	}
	return 0, fmt.Errorf("NumPy dtype %q has no DTYPE (the ISA's are %s; bfloat16 and fp8 arrive as their bits, <u2 and |u1)", descr, strings.Join(valid, ", "))
}

// Holds reports whether an array of NumPy descr can hold d's scalars: its
// own descr (bf16 and FP8 as raw unsigned integers).
func (d DType) Holds(descr string) bool { return d.Descr() != "" && d.Descr() == descr }

// Parse reads a type by its spec name ("FP16", any case) or NEFF name
// ("float16").
func Parse(s string) (DType, error) {
	for i := range rows {
		if strings.EqualFold(rows[i].spec, s) {
			return rows[i].d, nil
		}
	}
	if d, err := FromNEFF(s); err == nil && s != "" {
		return d, nil
	}
	return 0, fmt.Errorf("dtype %q: want a DTYPE name (FP32, FP16, BFLOAT16, FP8_EXP4, INT32, …) or a NEFF name (float32, float16, …)", s)
}

// NEFFNames maps every NEFF / NumPy-style dtype string ndma reads to its
// type: the names `neff info` prints ("float32", "bfloat16", "int8") and the
// ml_dtypes FP8 names ("float8_e4m3fn") — so a flag takes a type as the
// NEFF and NumPy spell it.
func NEFFNames() map[string]DType {
	m := make(map[string]DType, len(rows)+len(neffAliases))
	for i := range rows {
		m[rows[i].neff] = rows[i].d
	}
	for s, d := range neffAliases {
		m[s] = d
	}
	return m
}

func isFP8(d DType) bool { return d == FP8E2 || d == FP8E3 || d == FP8E4 || d == FP8E5 }
