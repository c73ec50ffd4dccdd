//go:build unix

package benchcase

import "syscall"

// CPUTime is the process's user + system CPU time so far, in ns: on a
// shared machine a benchmark's CPU time per operation is steadier than its
// wall time (bench/scale.sh prints both).
func CPUTime() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
