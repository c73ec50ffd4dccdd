//go:build !purego

package num

import "golang.org/x/sys/cpu"

// hasF32Kernels: the kernels use AVX only (VADDPS, VMULPS, VMAXPS, VMINPS,
// VCMPPS, VPTEST on ymm); x/sys/cpu reports AVX only where the OS saves the ymm state.
var hasF32Kernels = cpu.X86.HasAVX

// addF32AVX is d = a + s over n fp32 scalars at d, a and s (any alignment;
// a is d or apart from it), in blocks of 32, stopping before the first block
// with a NaN result — unwritten — or the final partial block; it returns the
// scalars done (a multiple of 32).
//
//go:noescape
func addF32AVX(d, a, s *byte, n int) (done int)

// mulF32AVX is addF32AVX for d = a · s.
//
//go:noescape
func mulF32AVX(d, a, s *byte, n int) (done int)

// maxF32AVX is d = max(a, s) (Go's max), stopping before the first block
// with a NaN operand.
//
//go:noescape
func maxF32AVX(d, a, s *byte, n int) (done int)

// minF32AVX is maxF32AVX for Go's min.
//
//go:noescape
func minF32AVX(d, a, s *byte, n int) (done int)
