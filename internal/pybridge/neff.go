package pybridge

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"ndma/device"
	"ndma/dtype"
	"ndma/inspect"
	"ndma/internal/cli"
	"ndma/internal/report"
	"ndma/isa"
	"ndma/kernel"
)

// pyNEFF is Python's ndma.neff.NEFF: a NEFF opened and resolved once.
type pyNEFF struct {
	path string
	k    *kernel.Kernel
}

func (n *pyNEFF) src() *device.NEFFSource { return n.k.Program().NEFF }

// pyResult is a NEFF run kept for its outputs and timeline.
type pyResult struct {
	n        *pyNEFF
	res      *kernel.Result
	timeline []byte
}

type handleArgs struct {
	Handle uint64 `json:"handle"`
}

func neffOf(c *Call) (*pyNEFF, error) {
	var a handleArgs
	if err := c.Decode(&a); err != nil {
		return nil, err
	}
	return handle[*pyNEFF](a.Handle)
}

func init() {
	Register("neff_open", neffOpen)
	Register("neff_check", func(c *Call) (Reply, error) {
		n, err := neffOf(c)
		if err != nil {
			return Reply{}, err
		}
		s := n.src()
		problems, words, err := device.Check(n.k.Gen(), s.File, s.Subgraphs)
		if err != nil {
			return Reply{}, err
		}
		ps := []map[string]any{}
		for _, p := range problems {
			ps = append(ps, map[string]any{"subgraph": p.Subgraph, "engine": p.Engine, "offset": p.Offset, "message": p.Msg, "text": p.String()})
		}
		return Reply{Value: map[string]any{"target": n.k.Gen().String(), "words": words, "subgraphs": len(s.Subgraphs), "problems": ps}}, nil
	})
	Register("neff_lint", func(c *Call) (Reply, error) {
		n, err := neffOf(c)
		if err != nil {
			return Reply{}, err
		}
		a, err := inspect.Analyze(n.k.Gen(), n.src().Subgraphs, inspect.Options{})
		if err != nil {
			return Reply{}, err
		}
		l := inspect.LintOf(a)
		if l.Budget, err = inspect.BudgetFrom(a); err != nil {
			return Reply{}, err
		}
		// the one kernel time, as neff lint --json's (a run that stops gives its time so far)
		l.KernelTimeNS, _ = device.KernelTime(n.k.Gen(), n.src().File, n.src().Subgraphs, nil)
		return Reply{Value: plain(l)}, nil
	})
	Register("neff_budget", func(c *Call) (Reply, error) {
		n, err := neffOf(c)
		if err != nil {
			return Reply{}, err
		}
		b, err := inspect.BudgetOf(n.k.Gen(), n.src().Subgraphs)
		if err != nil {
			return Reply{}, err
		}
		return Reply{Value: plain(b)}, nil
	})
	Register("neff_diff", func(c *Call) (Reply, error) {
		var a struct {
			Handle uint64 `json:"handle"`
			Other  uint64 `json:"other"`
		}
		if err := c.Decode(&a); err != nil {
			return Reply{}, err
		}
		x, err := handle[*pyNEFF](a.Handle)
		if err != nil {
			return Reply{}, err
		}
		y, err := handle[*pyNEFF](a.Other)
		if err != nil {
			return Reply{}, err
		}
		r, err := inspect.Diff(x.k.Gen(), x.src().Subgraphs, y.k.Gen(), y.src().Subgraphs)
		if err != nil {
			return Reply{}, err
		}
		return Reply{Value: plain(r)}, nil
	})
	Register("neff_report", func(c *Call) (Reply, error) {
		var a struct {
			Handle uint64 `json:"handle"`
			Path   string `json:"path"`
		}
		if err := c.Decode(&a); err != nil {
			return Reply{}, err
		}
		n, err := handle[*pyNEFF](a.Handle)
		if err != nil {
			return Reply{}, err
		}
		s := n.src()
		d, err := report.Build(n.k.Gen(), s.File, s.Subgraphs, n.path)
		if err != nil {
			return Reply{}, err
		}
		var b bytes.Buffer
		if err := report.Write(&b, d); err != nil {
			return Reply{}, err
		}
		if a.Path == "" {
			return Reply{Value: plain(d)}, nil
		}
		return Reply{}, cli.WriteFile(a.Path, b.Bytes())
	})
	Register("neff_run", neffRun)
	Register("result_read", func(c *Call) (Reply, error) {
		var a struct {
			Handle uint64 `json:"handle"`
			Name   string `json:"name"`
		}
		if err := c.Decode(&a); err != nil {
			return Reply{}, err
		}
		r, err := handle[*pyResult](a.Handle)
		if err != nil {
			return Reply{}, err
		}
		out, err := c.Buf(0, "out")
		if err != nil {
			return Reply{}, err
		}
		im := r.res.Image()
		size, ok := im.VarSize(a.Name)
		if !ok {
			return Reply{}, &ArgError{Name: a.Name, Msg: fmt.Sprintf("%q holds no bytes of its own in the run", a.Name)}
		}
		if size != int64(len(out)) {
			return Reply{}, &ArgError{Name: a.Name, Msg: fmt.Sprintf("%q is %d bytes, the buffer %d", a.Name, size, len(out))}
		}
		w := &into{b: out}
		return Reply{}, im.ViewVar(a.Name, func(b []byte) error { _, err := w.Write(b); return err })
	})
	Register("result_timeline", func(c *Call) (Reply, error) {
		var a struct {
			Handle uint64 `json:"handle"`
			Path   string `json:"path"`
		}
		if err := c.Decode(&a); err != nil {
			return Reply{}, err
		}
		r, err := handle[*pyResult](a.Handle)
		if err != nil {
			return Reply{}, err
		}
		if r.timeline == nil {
			return Reply{}, &ArgError{Name: "timeline", Msg: "the run kept no timeline: run(..., timeline=True)"}
		}
		return Reply{}, cli.WriteFile(a.Path, r.timeline)
	})
}

func neffOpen(c *Call) (Reply, error) {
	var a struct {
		Path string `json:"path"`
	}
	if err := c.Decode(&a); err != nil {
		return Reply{}, err
	}
	k, err := kernel.Open(a.Path)
	if err != nil {
		return Reply{}, err
	}
	n := &pyNEFF{path: a.Path, k: k}
	s := n.src()
	target, _ := s.File.Target()
	tensors := []map[string]any{}
	for _, t := range k.Tensors() {
		tensors = append(tensors, map[string]any{"name": t.Name, "kind": t.Kind, "dtype": t.DType.NEFF(), "shape": t.Shape, "bytes": t.Bytes})
	}
	vars := []map[string]any{}
	sgs := []map[string]any{}
	for si := range s.Subgraphs {
		sg := &s.Subgraphs[si]
		var engines []string
		for _, en := range sg.Engines {
			engines = append(engines, en.Key)
		}
		sgs = append(sgs, map[string]any{"name": sg.Name, "core": si, "engines": engines})
		for _, v := range sg.Variables() {
			addr, placed := s.Place[si][v.ID]
			var at any
			if placed {
				at = addr
			}
			vars = append(vars, map[string]any{"subgraph": sg.Name, "var_id": v.ID, "name": v.Name, "kind": v.Type,
				"size": v.Size, "address": at, "file_name": v.FileName})
		}
	}
	return Reply{Value: map[string]any{"handle": newHandle(n), "target": target, "gen": genName(k.Gen()),
		"subgraphs": sgs, "tensors": tensors, "variables": vars}}, nil
}

func neffRun(c *Call) (Reply, error) {
	type inputArg struct {
		Name  string `json:"name"`
		DType string `json:"dtype"`
	}
	var a struct {
		Handle     uint64            `json:"handle"`
		Exec       string            `json:"exec"`
		EngineTime map[string]string `json:"engine_time"` // opcode → duration, as --engine-time takes them (device.EngineTime)
		Inputs     []inputArg        `json:"inputs"`
		DMAOnly    bool              `json:"dma_only"`
		Timeline   bool              `json:"timeline"`
		MaxMemory  int64             `json:"max_memory"`
	}
	if err := c.Decode(&a); err != nil {
		return Reply{}, err
	}
	n, err := handle[*pyNEFF](a.Handle)
	if err != nil {
		return Reply{}, err
	}
	exec, err := device.ParseExec(a.Exec)
	if err != nil {
		return Reply{}, &ArgError{Name: "exec", Msg: "exec: " + err.Error()}
	}
	opt := device.Options{Exec: exec, DMAOnly: a.DMAOnly, MaxMemory: a.MaxMemory, EngineTime: map[isa.Opcode]int64{}}
	for name, dur := range a.EngineTime {
		op, ns, err := device.EngineTime(name, dur)
		if err != nil {
			return Reply{}, &ArgError{Name: "engine_time", Msg: fmt.Sprintf("engine_time %q: %v", name, err)}
		}
		if _, twice := opt.EngineTime[op]; twice {
			return Reply{}, &ArgError{Name: "engine_time", Msg: fmt.Sprintf("engine_time %q: %s is given twice (by two names)", name, op)}
		}
		opt.EngineTime[op] = ns
	}
	if a.Timeline {
		opt.Timeline = &device.Timeline{}
	}
	var ins []kernel.Input
	for i, in := range a.Inputs {
		dt, err := dtype.Parse(in.DType)
		if err != nil {
			return Reply{}, &ArgError{Name: in.Name, Msg: fmt.Sprintf("input %q: %v", in.Name, err)}
		}
		b, err := c.Buf(i, "input "+in.Name)
		if err != nil {
			return Reply{}, err
		}
		ins = append(ins, kernel.InBytes(in.Name, dt, b))
	}
	res, err := n.k.RunWith(context.Background(), opt, ins...)
	if err != nil {
		return Reply{}, err
	}
	r := &pyResult{n: n, res: res}
	if opt.Timeline != nil {
		var b bytes.Buffer
		if err := opt.Timeline.Write(&b); err != nil {
			return Reply{}, err
		}
		r.timeline = b.Bytes()
	}
	return Reply{Value: runValue(newHandle(r), res.Result)}, nil
}

// runValue is a NEFF run as Python reads it: every transfer (src and dst
// the memories a dma[] block reads and writes, "" for an inline DGE word),
// the words computed and not, the run's time and warnings.
func runValue(h uint64, res *device.Result) map[string]any {
	type transfer struct {
		Subgraph string `json:"subgraph"`
		Engine   string `json:"engine"`
		Offset   int    `json:"offset"`
		Queue    string `json:"queue"`
		Block    int    `json:"block"`
		Src      string `json:"src"`
		Dst      string `json:"dst"`
		Bytes    int64  `json:"bytes"`
		IssueNS  int64  `json:"issue_ns"`
		StartNS  int64  `json:"start_ns"`
		EndNS    int64  `json:"end_ns"`
	}
	ts := []transfer{}
	var timeNS int64
	warnings := append([]string{}, res.Warnings...)
	for _, r := range res.Subgraphs {
		timeNS = max(timeNS, r.Stats.TimeNS)
		warnings = append(warnings, r.Stats.Warnings...)
		for _, mv := range r.Stats.Schedule {
			t := transfer{Subgraph: r.Name, Engine: strings.ToLower(strings.TrimPrefix(mv.Stream, r.Name+" ")), Offset: mv.Offset,
				Queue: mv.Queue, Block: -1, Bytes: mv.Bytes, IssueNS: mv.IssueNS, StartNS: mv.StartNS, EndNS: mv.DueNS}
			if tr := mv.Transfer; tr != nil {
				// the block's data bytes, as neff run --json's bytes (the model's packets add a semaphore write per engine)
				t.Block, t.Src, t.Dst, t.Bytes = tr.Block, tr.From.String(), tr.To.String(), tr.Bytes()
			}
			ts = append(ts, t)
		}
	}
	engines := map[string]any{}
	for _, k := range slices.Sorted(maps.Keys(res.Engines)) {
		engines[k] = plain(res.Engines[k])
	}
	return map[string]any{"handle": h, "exec": res.Exec.String(), "clocked": res.Clocked, "time_ns": timeNS,
		"transfers": ts, "computed": plain(res.Computed), "not_computed": plain(res.NotRun), "engines": engines,
		"warnings": warnings, "uncomputed": plain(res.Uncomputed())}
}
