//go:build !amd64 || purego

package num

// No kernels: the pure-Go loops do all (other GOARCH, or -tags purego).
const hasF32Kernels = false

func addF32AVX(d, a, s *byte, n int) int { return 0 }

func mulF32AVX(d, a, s *byte, n int) int { return 0 }

func maxF32AVX(d, a, s *byte, n int) int { return 0 }

func minF32AVX(d, a, s *byte, n int) int { return 0 }
