//go:build !(386 || amd64 || arm || arm64 || loong64 || mips64le || mipsle || ppc64le || riscv64 || wasm)

package compute

import (
	"encoding/binary"
	"math"
)

// f32sFromLE reads len(out) little-endian FP32 values from b.
func f32sFromLE(out []float32, b []byte) {
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
}

// f32sToLE writes vals to b as little-endian FP32.
func f32sToLE(b []byte, vals []float32) {
	for i, v := range vals {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(v))
	}
}
