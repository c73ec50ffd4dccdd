//go:build !purego

package num

import "golang.org/x/sys/cpu"

// hasF32Kernels: the kernels use AVX only (VADDPS, VMULPS, VMAXPS, VMINPS,
// VCMPPS, VPTEST on ymm); x/sys/cpu reports AVX only where the OS saves the ymm state.
var hasF32Kernels = cpu.X86.HasAVX

// addF32AVX adds s to d, n fp32 scalars at d and s (any alignment), in
// blocks of 32, and stops before the first block with a NaN result or the
// final partial block; it returns the scalars done (a multiple of 32).
//
//go:noescape
func addF32AVX(d, s *byte, n int) (done int)

// mulF32AVX is addF32AVX for d *= s.
//
//go:noescape
func mulF32AVX(d, s *byte, n int) (done int)

// maxF32AVX is d = max(d, s) (Go's max), stopping before the first block
// with a NaN operand.
//
//go:noescape
func maxF32AVX(d, s *byte, n int) (done int)

// minF32AVX is maxF32AVX for Go's min.
//
//go:noescape
func minF32AVX(d, s *byte, n int) (done int)
