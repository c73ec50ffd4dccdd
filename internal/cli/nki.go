package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"ndma/dtype"
	"ndma/internal/array"
	"ndma/nki"
)

// runNKI is `ndma nki run|lower PROGRAM.json` (docs/nki.md): an NKI
// kernel's calls, as the Python front end traces them, compiled to words
// and run (or only lowered).
func runNKI(e *env, args []string) error {
	if len(args) == 0 {
		return usagef("want a subcommand: nki run PROGRAM.json [--in NAME=FILE.npy] [--out NAME=FILE.npy] [--trace FILE.json] | nki lower PROGRAM.json")
	}
	switch args[0] {
	case "run":
		return runNKIRun(e, args[1:])
	case "lower":
		return runNKILower(e, args[1:])
	}
	return usagef("nki %q: want run or lower", args[0])
}

// loadNKI reads and checks a program file (capped by --max-input).
func loadNKI(e *env, path string) (*nki.Program, error) {
	b, err := readInput(e, path)
	if err != nil {
		return nil, err
	}
	p, err := nki.Parse(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return p, nil
}

func runNKILower(e *env, args []string) error {
	cl := newCmdLine(e, "nki lower", "PROGRAM.json", "", "unused: the program's target names the generation")
	asJSON := cl.fs.Bool("json", false, "print JSON")
	pos, _, err := cl.parse(args, 1, "want one PROGRAM.json")
	if err != nil {
		return err
	}
	p, err := loadNKI(e, pos[0])
	if err != nil {
		return err
	}
	lws, err := nki.Compile(p)
	if err != nil {
		return fmt.Errorf("%s: %w", pos[0], err)
	}
	list := p.Listing(lws)
	if *asJSON {
		return printNKIJSON(e.stdout, list)
	}
	for i := range list {
		printNKICall(e.stdout, &list[i], true)
	}
	return nil
}

func printNKIJSON(w io.Writer, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

// printNKICall prints one call: its header, its words, and (detail) its
// DGE program and descriptors.
func printNKICall(w io.Writer, c *nki.CallTrace, detail bool) {
	where := ""
	switch {
	case c.File != "" && c.Line > 0:
		where = fmt.Sprintf(" %s:%d", c.File, c.Line)
	case c.Line > 0:
		where = fmt.Sprintf(" line %d", c.Line)
	}
	fmt.Fprintf(w, "== call %d %s%s", c.Index, c.Op, where)
	if c.Kind == "dma" {
		fmt.Fprintf(w, " · dge_mode %s · %s · backend %s · %d bytes", c.Mode, c.Queue, c.Backend, c.Bytes)
		if c.TimeNS > 0 {
			fmt.Fprintf(w, " · %d descriptors · %.3f µs predicted", c.Descriptors, float64(c.TimeNS)/1000)
		}
		if c.RowsSkipped > 0 {
			fmt.Fprintf(w, " · %d rows skipped", c.RowsSkipped)
		}
	} else {
		exact := "exact"
		if !c.Exact {
			exact = "NOT exact"
		}
		fmt.Fprintf(w, " · %s · %s", c.Engine, exact)
	}
	fmt.Fprintln(w)
	if c.Note != "" {
		fmt.Fprintf(w, "# %s\n", c.Note)
	}
	for _, wd := range c.Words {
		fmt.Fprintln(w, wd.Text)
		if wd.Resolved != "" {
			fmt.Fprintf(w, "  resolved: %s\n", wd.Resolved)
		}
	}
	if detail {
		for _, l := range c.DGE {
			fmt.Fprintln(w, l)
		}
		for _, l := range c.Desc {
			fmt.Fprintf(w, "  %s\n", l)
		}
	}
}

func runNKIRun(e *env, args []string) error {
	cl := newCmdLine(e, "nki run", "PROGRAM.json", "", "unused: the program's target names the generation")
	var ins, outs multi
	cl.fs.Var(&ins, "in", "NAME=FILE.npy: an input tensor's data (every input tensor needs one); repeatable")
	cl.fs.Var(&outs, "out", "NAME=FILE.npy: write an output tensor after the run; repeatable")
	tracePath := cl.fs.String("trace", "", "write the trace as JSON to FILE (- for stdout)")
	detail := cl.fs.Bool("detail", false, "keep each DMA call's DGE program and descriptors in the trace (slower)")
	execS := cl.fs.String("exec", "sim", "executor of the DMA words: sim (with predicted time) or ref")
	quiet := cl.fs.Bool("quiet", false, "print only the summary, not each call")
	pos, _, err := cl.parse(args, 1, "want one PROGRAM.json")
	if err != nil {
		return err
	}
	if *execS != "sim" && *execS != "ref" {
		return usagef("--exec %q: want sim or ref", *execS)
	}
	given, err := parsePairs("--in", ins)
	if err != nil {
		return err
	}
	wanted, err := parsePairs("--out", outs)
	if err != nil {
		return err
	}
	p, err := loadNKI(e, pos[0])
	if err != nil {
		return err
	}
	for name := range wanted {
		if t := p.Tensor(name); t == nil || t.Kind != "output" {
			return usagef("--out %s: the program has no output tensor %q", name, name)
		}
	}
	inputs := map[string]*nki.Array{}
	for name, file := range given {
		b, err := readInput(e, file)
		if err != nil {
			return fmt.Errorf("--in %s=%s: %w", name, file, err)
		}
		a, err := array.Read(bytes.NewReader(b), file)
		if err != nil {
			return fmt.Errorf("--in %s=%s: %w", name, file, err)
		}
		dt, err := dtype.FromDescr(a.Descr)
		if err != nil {
			return fmt.Errorf("--in %s=%s: %w", name, file, err)
		}
		inputs[name] = &nki.Array{DType: dt, Shape: a.Shape, Data: a.Data}
	}
	// outputs reserved before the run: one that cannot be written fails first
	var out staged
	defer out.abort()
	names := make([]string, 0, len(wanted))
	for n := range wanted {
		names = append(names, n)
	}
	sort.Strings(names)
	slot := map[string]int{}
	for _, n := range names {
		k, err := out.reserve(wanted[n])
		if err != nil {
			return fmt.Errorf("--out %s: %w", n, err)
		}
		slot[n] = k
	}
	tk := -1
	if *tracePath != "" && *tracePath != "-" {
		if tk, err = out.reserve(*tracePath); err != nil {
			return fmt.Errorf("--trace: %w", err)
		}
	}
	res, tr, runErr := nki.Run(p, inputs, nki.Options{Ref: *execS == "ref", Detail: *detail})
	if tr != nil && !*quiet && *tracePath != "-" {
		for i := range tr.Calls {
			printNKICall(e.stdout, &tr.Calls[i], *detail)
		}
	}
	if runErr != nil {
		return fmt.Errorf("%s: %w", pos[0], runErr)
	}
	if *tracePath == "-" {
		return printNKIJSON(e.stdout, tr)
	}
	var inexact []string
	for _, k := range tr.Inexact {
		inexact = append(inexact, fmt.Sprint(k))
	}
	fmt.Fprintf(e.stdout, "%s: %d calls, %d DMA words; %.3f µs predicted (DMA %.3f + compute %.3f µs; %s)\n", tr.Target, len(tr.Calls), tr.Words,
		float64(tr.DMANS+tr.ComputeNS)/1000, float64(tr.DMANS)/1000, float64(tr.ComputeNS)/1000, tr.Model)
	if len(inexact) > 0 {
		fmt.Fprintf(e.stdout, "not exact (computed by ndma, not by words): calls %s\n", strings.Join(inexact, ", "))
	}
	for _, n := range names {
		a := res[n]
		if err := writeNPY(&out, slot[n], &array.Array{Descr: a.DType.Descr(), Shape: a.Shape, Data: a.Data}); err != nil {
			return fmt.Errorf("--out %s: %w", n, err)
		}
	}
	if tk >= 0 {
		b, err := json.MarshalIndent(tr, "", "  ")
		if err != nil {
			return err
		}
		if err := out.write(tk, append(b, '\n')); err != nil {
			return fmt.Errorf("--trace: %w", err)
		}
	}
	if err := out.commit(); err != nil {
		return err
	}
	for _, n := range names {
		fmt.Fprintf(e.stdout, "wrote %s: %s %v\n", wanted[n], n, res[n].Shape)
	}
	return nil
}
