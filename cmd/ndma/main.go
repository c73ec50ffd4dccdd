// Command ndma is the reference toolkit for the GPSIMD data-movement ISA: see
// `ndma help` and the README.
package main

import (
	"context"
	"os"
	"os/signal"
	"runtime/debug"

	"ndma/internal/cli"
)

// runHeapLimit is the heap at which `ndma run` collects garbage (GOGC off
// below it): the emulated memory is one long-lived allocation, and letting
// the collector pace itself on it cost a 64 MiB run GC cycles, spinning
// workers and extra page faults (issue 17, docs/performance.md). Process
// state, so it is set here, once, and never by the library.
const runHeapLimit = 4 << 30

func main() {
	if len(os.Args) > 1 && os.Args[1] == "run" && os.Getenv("GOGC") == "" && os.Getenv("GOMEMLIMIT") == "" {
		debug.SetGCPercent(-1)
		debug.SetMemoryLimit(runHeapLimit)
	}
	// an interrupt cancels a run between two turns: it stops with its account so far
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := cli.MainContext(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
