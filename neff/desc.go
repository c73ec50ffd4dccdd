package neff

import (
	"fmt"

	"ndma/isa"
)

// dtypeNames map the NEFF's dtype strings to DTYPE (neff.md §4.5). float32r
// reads as FP32: FP32R is an output-only form of fp32 (field-tables §5.1,
// §11.4), never a memcpy input (§3.2), so a NEFF's fp32r tensor holds fp32
// bytes (INFERRED, RATIONALE.md).
var dtypeNames = map[string]string{
	"uint8": "UINT8", "int8": "INT8", "uint16": "UINT16", "int16": "INT16", "uint32": "UINT32", "int32": "INT32",
	"int64": "INT64", "uint64": "UINT64", "bfloat16": "BFLOAT16", "float16": "FP16", "float32": "FP32", "float32r": "FP32",
	"float8e3": "FP8_EXP3", "float8e4": "FP8_EXP4", "float8e5": "FP8_EXP5", "float8_e4m3fn": "FP8_EXP4", "float8_e5m2": "FP8_EXP5",
}

// DType maps a NEFF dtype string ("" = raw bytes: UINT8) to its DTYPE value.
func DType(s string) (uint8, error) {
	if s == "" {
		s = "uint8"
	}
	n, ok := dtypeNames[s]
	if !ok {
		return 0, fmt.Errorf("dtype %q is not one ndma knows (float32, float32r, float16, bfloat16, float8e3/e4/e5, float8_e4m3fn, float8_e5m2, int/uint 8..64)", s)
	}
	v, _ := isa.DType().Parse(n)
	return uint8(v), nil
}
