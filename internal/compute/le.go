//go:build 386 || amd64 || arm || arm64 || loong64 || mips64le || mipsle || ppc64le || riscv64 || wasm

package compute

import "unsafe"

// On a little-endian host a row of FP32 elements is its float32 values:
// one copy, not a conversion each.

// f32sFromLE reads len(out) little-endian FP32 values from b.
func f32sFromLE(out []float32, b []byte) {
	if len(out) > 0 {
		copy(out, unsafe.Slice((*float32)(unsafe.Pointer(&b[:4*len(out)][0])), len(out)))
	}
}

// f32sToLE writes vals to b as little-endian FP32.
func f32sToLE(b []byte, vals []float32) {
	if len(vals) > 0 {
		copy(unsafe.Slice((*float32)(unsafe.Pointer(&b[:4*len(vals)][0])), len(vals)), vals)
	}
}
