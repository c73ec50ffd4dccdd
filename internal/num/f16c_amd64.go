//go:build !purego

package num

// hasF16C: VCVTPS2PH is there (CPUID F16C) and the OS saves the ymm state
// (AVX, as x/sys/cpu reports it; it has no F16C flag of its own).
var hasF16C = hasF32Kernels && cpuidF16C()

// f32ToF16F16C is f32ToF16 over n scalars from s to d (fp32 in, binary16
// out, any alignment), 32 a block, stopping before the first block with a
// NaN or the final partial block; it returns the scalars done.
//
//go:noescape
func f32ToF16F16C(d, s *byte, n int) (done int)

func cpuidF16C() bool
