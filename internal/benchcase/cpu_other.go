//go:build !unix

package benchcase

// CPUTime is 0 where getrusage is not available (the table then shows wall time only).
func CPUTime() int64 { return 0 }
