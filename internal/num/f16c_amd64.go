//go:build !purego

package num

import "golang.org/x/sys/cpu"

// hasF16C: VCVTPS2PH is there (CPUID F16C) and the OS saves the ymm state
// (AVX, as x/sys/cpu reports it; it has no F16C flag of its own).
var hasF16C = hasF32Kernels && cpuidF16C()

// f32ToF16F16C is f32ToF16 over n scalars from s to d (fp32 in, binary16
// out, any alignment), 32 a block, stopping before the first block with a
// NaN or the final partial block; it returns the scalars done.
//
//go:noescape
func f32ToF16F16C(d, s *byte, n int) (done int)

// hasBF16AVX2: f32ToBF16AVX2's integer lanes on ymm need AVX2.
var hasBF16AVX2 = cpu.X86.HasAVX2

// f32ToBF16AVX2 is f32ToBF16 over n scalars from s to d, 32 a block,
// stopping before the first block with a NaN or the final partial block;
// it returns the scalars done.
//
//go:noescape
func f32ToBF16AVX2(d, s *byte, n int) (done int)

// f16ToF32F16C widens n binary16 scalars at s to float32 at d, 16 a block,
// leaving the final partial block; it returns the scalars done.
//
//go:noescape
func f16ToF32F16C(d *float32, s *byte, n int) (done int)

func cpuidF16C() bool
