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

// runGCPercent is `ndma run`'s collector pacing: the emulated memory is one
// long-lived allocation, so the heap may grow 4× past what is live before a
// cycle. The collector stays on: off below a 4 GiB limit (issue 17), 16,000
// 64-byte copies under --exec both took 16.5 s and 4.0 GB; paced at 400,
// 1.95 s and 78 MB, the 64 MiB copy unchanged (37 vs 36–38 ms, bench/e2e.py).
// Process state, so it is set here, once, and never by the library.
const runGCPercent = 400

func main() {
	if len(os.Args) > 1 && os.Args[1] == "run" && os.Getenv("GOGC") == "" {
		debug.SetGCPercent(runGCPercent)
	}
	// an interrupt cancels a run between two turns: it stops with its account so far
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := cli.MainContext(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
