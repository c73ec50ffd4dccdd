package cli

import (
	"bytes"
	"errors"
	"fmt"
	"sort"
	"strings"

	"ndma/device"
	"ndma/internal/array"
	"ndma/neff"
	"ndma/sched"
)

// runNEFFRun is `ndma neff run FILE [--in NAME=FILE.npy] [--out NAME=FILE.npy]`.
func runNEFFRun(e *env, args []string) error {
	cl := newCmdLine(e, "neff run", "FILE", "", "generation (default: the kelf's target)")
	var ins, outs multi
	cl.fs.Var(&ins, "in", "NAME=FILE.npy: an input variable's data (default: deterministic random data); repeatable")
	cl.fs.Var(&outs, "out", "NAME=FILE.npy: write a variable after the run, in its dtype and shape when neff.json names them; repeatable")
	execMode := cl.fs.String("exec", "sim", "sim (the engines, DMA time) or ref")
	trace := cl.fs.Bool("trace", false, "print every word executed, in order (the schedule lists only words that moved bytes)")
	timeline := cl.fs.String("timeline", "", "FILE.json: the run as Chrome trace events (one process per subgraph: each is a core)")
	sub := cl.fs.String("subgraph", "", "run only this subgraph (sg00, …)")
	path, gen, f, sgs, err := openNEFF(e, cl, args)
	if err != nil {
		return err
	}
	if *execMode != "sim" && *execMode != "ref" {
		return usagef("--exec %q: sim or ref", *execMode)
	}
	given, wanted := map[string]string{}, map[string]string{}
	for _, kv := range []struct {
		flag string
		list multi
		into map[string]string
	}{{"--in", ins, given}, {"--out", outs, wanted}} {
		for _, s := range kv.list {
			k, v, ok := strings.Cut(s, "=")
			if !ok || k == "" || v == "" {
				return usagef("%s %q: want NAME=FILE.npy", kv.flag, s)
			}
			kv.into[k] = v
		}
	}
	if *sub != "" {
		var keep []neff.Subgraph
		for _, sg := range sgs {
			if sg.Name == *sub {
				keep = append(keep, sg)
			}
		}
		if keep == nil {
			return usagef("--subgraph %q: the NEFF has no such subgraph", *sub)
		}
		sgs = keep
	}
	// check every name before anything runs: no half-written outputs
	holds := map[string]bool{} // variables that hold bytes (placed, sized)
	known := map[string]bool{}
	place, err := device.Place(sgs)
	if err != nil {
		return err
	}
	for si, sg := range sgs {
		for _, v := range sg.Variables() {
			known[v.Name] = true
			if _, ok := place[si][v.ID]; ok && v.Size > 0 && v.Type != "state-buffer" {
				holds[v.Name] = true
			}
		}
	}
	for _, m := range []map[string]string{given, wanted} {
		for k := range m {
			switch {
			case !known[k]:
				return usagef("variable %q is in no subgraph of %s", k, path)
			case !holds[k]:
				return usagef("variable %q holds no bytes of its own (a state-buffer, dge-table or unsized variable)", k)
			}
		}
	}
	in := map[string]device.Input{}
	for name, file := range given {
		arr, err := array.Load(file)
		if err != nil {
			return err
		}
		in[name] = device.Input{Data: arr.Data, Descr: arr.Descr, Shape: arr.Shape}
	}
	im, err := device.Load(gen, f, sgs, in)
	var ie *device.InputError
	if errors.As(err, &ie) {
		return fmt.Errorf("--in %s=%s: %w", ie.Name, given[ie.Name], ie.Err)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	exec, _ := device.ParseExec(*execMode)
	o := device.NEFFOptions{Exec: exec}
	if *trace {
		o.Trace = func(l string) { fmt.Fprintln(e.stdout, l) }
	}
	if *timeline != "" {
		o.Timeline = &sched.Timeline{}
	}
	res, err := im.Run(o)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	for _, r := range res.Subgraphs {
		fmt.Fprintf(e.stdout, "DMA schedule of %s (%d transfers, %.3f µs):\n", r.Name, len(r.Stats.Schedule), float64(r.Stats.TimeNS)/1000)
		for _, mv := range r.Stats.Schedule {
			when := fmt.Sprintf("@%.3fµs", float64(mv.IssueNS)/1000)
			if mv.DueNS > mv.IssueNS {
				when = fmt.Sprintf("@%.3f–%.3fµs", float64(mv.IssueNS)/1000, float64(mv.DueNS)/1000)
			}
			fmt.Fprintf(e.stdout, "  %-18s %s %#x %s: %s\n", when, mv.Stream, mv.Offset, mv.Word, mv.Note)
		}
		for _, w := range r.Stats.Warnings {
			fmt.Fprintf(e.stdout, "warning: %s\n", w)
		}
	}
	for _, w := range res.Warnings {
		fmt.Fprintf(e.stdout, "warning: %s\n", w)
	}
	// outputs last, all or none (staged): each in its dtype and shape when
	// neff.json says them
	names := make([]string, 0, len(wanted))
	for name := range wanted {
		names = append(names, name)
	}
	sort.Strings(names)
	var out staged
	defer out.abort()
	var done []string
	for _, name := range names {
		data, err := im.Var(name)
		if err != nil {
			return err
		}
		descr, shape := im.Typed(name, data)
		arr := &array.Array{Descr: descr, Shape: shape, Data: data}
		var b bytes.Buffer
		if err := array.Write(&b, arr); err != nil {
			return err
		}
		if err := out.add(wanted[name], b.Bytes()); err != nil {
			return fmt.Errorf("--out %s=%s: %w", name, wanted[name], err)
		}
		done = append(done, fmt.Sprintf("wrote %s: %s %s %v", wanted[name], name, arr.Descr, arr.Shape))
	}
	if o.Timeline != nil {
		var b bytes.Buffer
		if err := o.Timeline.Write(&b); err != nil {
			return err
		}
		if err := out.add(*timeline, b.Bytes()); err != nil {
			return fmt.Errorf("--timeline: %w", err)
		}
	}
	if err := out.commit(); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	for _, l := range done {
		fmt.Fprintln(e.stdout, l)
	}
	var words int
	var longest int64
	for _, r := range res.Subgraphs {
		words += r.Stats.Words
		longest = max(longest, r.Stats.TimeNS)
	}
	fmt.Fprintf(e.stdout, "%d words executed in %d subgraphs (one core each, run side by side), simulated DMA time %.3f µs\n", words, len(sgs), float64(longest)/1000)
	if len(res.NotRun) > 0 {
		var parts []string
		for k, v := range res.NotRun {
			parts = append(parts, fmt.Sprintf("%s %d", k, v))
		}
		sort.Strings(parts)
		fmt.Fprintf(e.stdout, "not computed (ndma ran only their EVENTS: waits and semaphore updates): %s\n", strings.Join(parts, ", "))
	}
	return nil
}
