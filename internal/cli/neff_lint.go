package cli

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"

	"ndma/device"
	"ndma/inspect"
)

// runNEFFLint is `ndma neff lint FILE [--subgraph] [--engine] [--json]`:
// per queue and engine the bytes-per-descriptor histogram, bytes per
// partition, the cost model's time split into fixed overhead and transfer;
// the small-transfer findings aggregated by kind; the load-time budget
// (inspect.LintOf, inspect.BudgetOf).
func runNEFFLint(e *env, args []string) error {
	cl := newCmdLine(e, "neff lint", "FILE", "", "generation (default: the kelf's target)")
	sub, eng := streamFlags(cl)
	asJSON := cl.fs.Bool("json", false, "print the lint as JSON (docs/json.md)")
	path, gen, f, sgs, err := openNEFF(e, cl, args)
	if err != nil {
		return err
	}
	if _, err := checkPick(sgs, *sub, *eng); err != nil {
		return err
	}
	a, err := inspect.Analyze(gen, sgs, inspect.Options{Subgraph: *sub, Engine: *eng})
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	l := inspect.LintOf(a)
	kernelNS, kerr := device.KernelTime(gen, f, sgs, nil)
	l.KernelTimeNS = kernelNS
	if *sub == "" && *eng == "" {
		l.Budget, err = inspect.BudgetFrom(a)
	} else {
		l.Budget, err = inspect.BudgetOf(gen, sgs) // the budget is the whole NEFF's
	}
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if *asJSON {
		if err := writeJSON(e.stdout, l); err != nil {
			return err
		}
	} else {
		printLint(e.stdout, path, l)
		printKernelTime(e.stdout, kernelNS, kerr)
	}
	if n := len(l.Budget.Problems); n > 0 { // findings advise; a budget the load would break fails
		return failed{fmt.Sprintf("%s: %d budget problems", path, n)}
	}
	return nil
}

// writeJSON prints v indented, with a final newline.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false) // "<", ">" and "&" stay readable in messages
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func us(ns int64) string { return fmt.Sprintf("%.3f", float64(ns)/1000) }

// printLint is the lint as text: a table per queue, the findings, the budget.
func printLint(w io.Writer, path string, l *inspect.Lint) {
	fmt.Fprintf(w, "lint of %s on %s (%s)\n", path, l.Target, l.CostModel)
	fmt.Fprintf(w, "%-28s %6s %7s %10s %6s %6s %6s %6s %9s %9s %9s %9s %8s\n", "subgraph engine queue", "words", "descs", "bytes", "<512", "<2K", "<4K", ">=4K", "minB/part", "B/part", "fixed µs", "xfer µs", "overhead")
	row := func(name string, words, descs int, bytes uint64, h inspect.Histogram, minP, meanP string, fixed, xfer int64, share float64) {
		fmt.Fprintf(w, "%-28s %6d %7d %10d %6d %6d %6d %6d %9s %9s %9s %9s %7.1f%%\n", name, words, descs, bytes, h.Under512, h.Under2K, h.Under4K, h.AtLeast4K, minP, meanP, us(fixed), us(xfer), 100*share)
	}
	for _, q := range l.Queues {
		name := q.Queue
		if name == "" {
			name = "-"
		}
		row(q.Subgraph+" "+q.Engine+" "+name, q.Words, q.Descriptors, q.Bytes, q.Histogram, fmt.Sprint(q.MinBytesPerPartition), fmt.Sprint(q.MeanBytesPerPartition), q.FixedNS, q.TransferNS, q.OverheadShare)
	}
	row("total", l.Words, l.Descriptors, l.Bytes, l.Histogram, "-", "-", l.FixedNS, l.TransferNS, l.Overhead) // bytes per partition are a queue's: no total
	fmt.Fprintf(w, "descriptor cost %s µs: %s µs fixed overhead, %s µs transfer (%.1f%% overhead; the words one after another, not the kernel time)\n", us(l.FixedNS+l.TransferNS), us(l.FixedNS), us(l.TransferNS), 100*l.Overhead)
	for _, f := range l.Findings {
		fmt.Fprintf(w, "finding %s: %d words: %s; first: %s; fix: %s\n", f.Kind, f.Count, f.Detail, joinPlaces(f.First), f.Fix)
	}
	for _, p := range l.Problems {
		fmt.Fprintf(w, "problem: %s\n", p)
	}
	if l.Budget != nil {
		printBudget(w, l.Budget)
	}
}

// printKernelTime is the kernel time line lint and lower --stats print:
// `neff run`'s prediction (device.KernelTime), or why there is none.
func printKernelTime(w io.Writer, ns int64, err error) {
	if err != nil {
		fmt.Fprintf(w, "kernel time: the run stops (%v) at %s µs\n", err, us(ns))
		return
	}
	fmt.Fprintf(w, "kernel time %s µs (DMA and compute on one clock, as `ndma neff run` predicts: docs/sim.md \"Kernel time\")\n", us(ns))
}

// printBudget is the load-time budget as text (lint and info).
func printBudget(w io.Writer, b *inspect.Budget) {
	fmt.Fprintf(w, "budget (docs/neff.md §4.8: %d-byte descriptors, rings of %d..%d entries in multiples of %d, %d data descriptors per packet, queue 15 and on some engines 14 reserved):\n",
		b.Limits.DescriptorBytes, b.Limits.RingMin, b.Limits.RingMax, b.Limits.RingMultiple, b.Limits.DataPerPacket)
	for _, q := range b.Queues {
		fmt.Fprintf(w, "  %s queue %s (%s, %s, %d queues): load-time descriptors %d, ring bytes %d", q.Subgraph, q.Queue, q.Owner, q.Type, q.NumQueues, q.Descriptors, q.RingBytes)
		if q.DGEWords > 0 {
			fmt.Fprintf(w, "; DGE words %d, %d descriptors at run time, at most %d on one ring of %d", q.DGEWords, q.DGEDescriptors, q.DGEMaxRing, q.DGERing)
		}
		fmt.Fprintln(w)
		for _, in := range q.Instances {
			largest := 0
			for _, r := range in.Rings {
				largest = max(largest, r.Entries)
			}
			fmt.Fprintf(w, "    instance %d: %d %s, %d descriptors (M2S %d, S2M %d, completions %d), %d packets, %d %s (largest %d entries), %d ring bytes\n",
				in.Instance, in.Blocks, plural(in.Blocks, "block"), in.Descriptors, in.M2S, in.S2M, in.Completions, in.Packets, len(in.Rings), plural(len(in.Rings), "ring"), largest, in.RingBytes)
		}
	}
	busiest := map[string]inspect.EngineQueues{}
	var order []string
	for _, eq := range b.Engines {
		cur, ok := busiest[eq.Subgraph]
		if !ok {
			order = append(order, eq.Subgraph)
		}
		if !ok || eq.Available-eq.Used < cur.Available-cur.Used {
			busiest[eq.Subgraph] = eq
		}
	}
	for _, sg := range order {
		eq := busiest[sg]
		fmt.Fprintf(w, "  %s hardware queues: %d used of the %d left after the reserved ones, on the busiest DMA engine (%d)\n", sg, eq.Used, eq.Available, eq.DMA)
	}
	fmt.Fprintf(w, "budget: %d descriptors, %d ring bytes at load; %d %s\n", b.Descriptors, b.RingBytes, len(b.Problems), plural(len(b.Problems), "problem"))
	for _, p := range b.Problems {
		fmt.Fprintf(w, "budget problem: %s\n", p)
	}
}

// genGiven is whether the command line set --gen.
func genGiven(cl *cmdLine) bool {
	given := false
	cl.fs.Visit(func(f *flag.Flag) { given = given || f.Name == "gen" })
	return given
}

// joinPlaces is a finding's places as its text line names them.
func joinPlaces(ps []inspect.Place) string {
	t := make([]string, len(ps))
	for i, p := range ps {
		t[i] = p.Text
	}
	return strings.Join(t, ", ")
}
