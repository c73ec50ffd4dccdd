package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"ndma/inspect"
	"ndma/isa"
	"ndma/neff"
)

// runNEFFDiff is `ndma neff diff A B [--json]`: what changed in the DMA of
// two builds (inspect.Diff); exit 0 when it is the same, 1 when it differs,
// 2 when it cannot tell (a file unread, a bad command line), as cmp and diff.
func runNEFFDiff(e *env, args []string) error {
	err := neffDiff(e, args)
	var bad failed
	if err != nil && !errors.As(err, &bad) {
		return troubleError{err}
	}
	return err
}

func neffDiff(e *env, args []string) error {
	cl := newCmdLine(e, "neff diff", "A.neff B.neff", "", "generation of both (default: each kelf's target)")
	asJSON := cl.fs.Bool("json", false, "print the differences as JSON (docs/json.md)")
	strict := cl.fs.Bool("strict", false, "a hash mismatch is an error")
	maxInflated := cl.fs.Int64("max-inflated", neff.DefaultMaxInflated, "refuse a NEFF whose tar inflates past this many bytes (zip-bomb cap)")
	pos, gen, err := cl.parse(args, 2, "want two NEFF files: A B")
	if err != nil {
		return err
	}
	if *maxInflated <= 0 {
		return usagef("--max-inflated %d: want a positive byte count", *maxInflated)
	}
	var gens [2]isa.Gen
	var sgs [2][]neff.Subgraph
	for i, p := range pos {
		if gens[i], sgs[i], err = loadNEFF(e, p, gen, neff.Options{Strict: *strict, MaxInflated: *maxInflated}); err != nil {
			return err
		}
	}
	r, err := inspect.Diff(gens[0], sgs[0], gens[1], sgs[1])
	if err != nil {
		return err
	}
	if *asJSON {
		if err := writeJSON(e.stdout, r); err != nil {
			return err
		}
	} else {
		printDiff(e.stdout, pos[0], pos[1], r)
	}
	if !r.Same {
		return failed{fmt.Sprintf("%s and %s: the DMA differs", pos[0], pos[1])}
	}
	return nil
}

// loadNEFF reads and parses one NEFF of a multi-file command: its
// generation (gen, or the kelf's target) and subgraphs.
func loadNEFF(e *env, path string, gen isa.Gen, opt neff.Options) (isa.Gen, []neff.Subgraph, error) {
	b, err := readInput(e, path)
	if err != nil {
		return gen, nil, err
	}
	f, err := neff.Parse(b, opt)
	if err != nil {
		return gen, nil, fmt.Errorf("%s: %w", path, err)
	}
	for _, w := range f.Warnings {
		fmt.Fprintf(e.stderr, "ndma neff: warning: %s: %s\n", path, w)
	}
	sgs, err := f.Subgraphs()
	if err != nil {
		return gen, nil, fmt.Errorf("%s: %w", path, err)
	}
	if gen == isa.GenAny {
		if _, gen = f.Target(); gen == isa.GenAny {
			return gen, nil, usagef("%s: the kelf names no known target: give --gen", path)
		}
	}
	return gen, sgs, nil
}

// maxDiffLines is how many changed blocks or words the text lists.
const maxDiffLines = 40

// printDiff is the diff as text, a line per change.
func printDiff(w io.Writer, a, b string, r *inspect.DiffResult) {
	fmt.Fprintf(w, "--- %s\n+++ %s\n", a, b)
	if r.TargetA != r.TargetB {
		fmt.Fprintf(w, "target %s → %s (each NEFF analysed for its own)\n", r.TargetA, r.TargetB)
	}
	for _, q := range r.Queues {
		fmt.Fprintf(w, "queue %s %s %s: %s\n", q.Subgraph, q.Engine, orDash(q.Queue), strings.Join(q.Changes, "; "))
	}
	for _, s := range r.Streams {
		fmt.Fprintf(w, "stream %s %s: %s\n", s.Subgraph, s.Engine, strings.Join(s.Changes, "; "))
	}
	for _, v := range r.Variables {
		fmt.Fprintf(w, "variable %s %s %s: %s → %s\n", v.Subgraph, v.Name, v.Change, orDash(v.A), orDash(v.B))
	}
	if n := len(r.Renamed); n > 0 {
		fmt.Fprintf(w, "%d variables renamed, matched by role (type, size and the blocks that use them; --json lists them)\n", n)
	}
	for i, bd := range r.Blocks {
		if i == maxDiffLines {
			fmt.Fprintf(w, "… %d more blocks or words (--json lists all)\n", len(r.Blocks)-i)
			break
		}
		fmt.Fprintf(w, "block %s %s %s %s", bd.Subgraph, orDash(bd.Engine), bd.Block, bd.Change)
		if len(bd.Details) > 0 {
			fmt.Fprintf(w, ": %s", strings.Join(bd.Details, "; "))
		}
		fmt.Fprintln(w)
	}
	for _, side := range []struct {
		name string
		ps   []string
	}{{"A", r.Problems.A}, {"B", r.Problems.B}} {
		for _, p := range side.ps { // a word that does not resolve moves nothing: the totals below leave it out
			fmt.Fprintf(w, "problem only in %s: %s\n", side.name, p)
		}
	}
	ta, tb := r.Totals.A, r.Totals.B
	fmt.Fprintf(w, "total: %d → %d DMA words, %d → %d descriptors, %d → %d bytes, estimated DMA time %s → %s µs (neff lint's)\n",
		ta.Words, tb.Words, ta.Descriptors, tb.Descriptors, ta.Bytes, tb.Bytes, us(ta.DMATimeNS), us(tb.DMATimeNS))
	if r.Same {
		fmt.Fprintln(w, "the DMA is the same")
	} else {
		fmt.Fprintf(w, "the DMA differs: %d queues, %d streams, %d variables, %d blocks or words, %d problems only in A, %d only in B\n", len(r.Queues), len(r.Streams), len(r.Variables), len(r.Blocks), len(r.Problems.A), len(r.Problems.B))
	}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
