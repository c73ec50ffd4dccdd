//go:build !amd64 || purego

package num

// No F16C kernel: the Go loop does all.
const hasF16C = false

func f32ToF16F16C(d, s *byte, n int) int { return 0 }

const hasBF16AVX2 = false

func f32ToBF16AVX2(d, s *byte, n int) int { return 0 }

func f16ToF32F16C(d *float32, s *byte, n int) int { return 0 }
