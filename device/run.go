package device

import (
	"errors"
	"fmt"

	"ndma/internal/control"
	"ndma/internal/sched"
	"ndma/isa"
	"ndma/mem"
	"ndma/ref"
	"ndma/sim"
)

// Exec chooses the executor of a run.
type Exec uint8

// Executors.
const (
	Sim  Exec = iota // the DGE lowering and the descriptor engines (package sim), with DMA time
	Ref              // the reference semantics (package ref)
	Both             // the two, each on its own device, held to the same answer
)

var execNames = [...]string{Sim: "sim", Ref: "ref", Both: "both"}

func (e Exec) String() string { return execNames[e] }

// ParseExec reads sim, ref or both.
func ParseExec(s string) (Exec, error) {
	for i, n := range execNames {
		if s == n {
			return Exec(i), nil
		}
	}
	return Sim, fmt.Errorf("%q: want ref, sim or both", s)
}

// Options steer a run.
type Options struct {
	Exec     Exec
	Cores    int        // cores of the device (0: those the program's streams name)
	Regs     [64]uint32 // every stream's registers at the start
	MaxBytes int64      // refuse a word that would move more (0: each executor's default)
	MaxSteps int        // slots one COMPACT_CONTROL_INST may execute (0: the default)
	Tracing  bool       // a single stream: the executors record what each word read and wrote
	Schedule bool       // run under the scheduler even a single stream on core 0 (a timeline of it)
	// Trace, when set, receives the scheduler's line per executed word (several streams).
	Trace func(string)
	// Timeline, when set, records the engines' run of several streams.
	Timeline *sched.Timeline
	// Load, when set, writes a fresh device's inputs (arrays, semaphores)
	// before the run: called once per device (twice with Both).
	Load func(*Device) error
}

// Result is a run as data: the devices after it and what each executor and
// the scheduler counted. It comes back with the run's error too (a fault
// leaves the devices as the last good word did).
type Result struct {
	Exec     Exec
	Ref, Sim *Device // the devices after the run (nil: that executor did not run)
	Multi    bool    // several streams (or cores): run under the scheduler
	RefStats ref.Stats
	SimStats sim.Stats
	// Sched is the scheduler's account of several streams: the engines'
	// run when they ran, else the reference's.
	Sched *sched.Stats
	Trace []string // a single stream with Tracing: ref's lines, then sim's
	// Diff is where ref and sim first disagree (Both), nil when they agree.
	Diff *Difference
}

// Final is the device to read results from: the engines' when only they
// ran, else the reference's.
func (r *Result) Final() *Device {
	if r.Exec == Sim {
		return r.Sim
	}
	return r.Ref
}

// ErrDiffer is a run in which ref and sim disagree.
var ErrDiffer = errors.New("ref and sim differ")

// Run executes p on a fresh device with the chosen executor (devices whose
// Load failed come back nil, with the error): a single
// stream on core 0 word by word (with Both, ref and sim compared after
// every word), several streams — or any run of more than one core — under
// the scheduler (with Both, the two runs compared at the end).
func Run(p *Program, opt Options) (*Result, error) {
	res := &Result{Exec: opt.Exec}
	cores := max(p.cores(), opt.Cores)
	res.Multi = opt.Schedule || len(p.Streams) > 1 || p.Streams[0].Core != 0 || cores > 1
	for _, s := range p.Streams {
		if opt.Cores > 0 && s.Core >= opt.Cores {
			return res, fmt.Errorf("--cores %d: the program has a stream on core %d", opt.Cores, s.Core)
		}
	}
	fresh := func() (*Device, error) {
		d := New(p.Gen, cores)
		if opt.Load != nil {
			if err := opt.Load(d); err != nil {
				return nil, err
			}
		}
		return d, nil
	}
	var a, b *Device // both loaded before either runs: a bad input runs nothing
	var err error
	if opt.Exec != Sim {
		if a, err = fresh(); err != nil {
			return res, err
		}
	}
	if opt.Exec != Ref {
		if b, err = fresh(); err != nil {
			return res, err
		}
	}
	res.Ref, res.Sim = a, b
	if res.Multi {
		return res, runStreams(p, opt, res)
	}
	return res, runSingle(p, opt, res)
}

// runSingle runs one stream word by word, each word's changes applied at once.
func runSingle(p *Program, opt Options, res *Result) error {
	var x *ref.Machine
	var y *sim.Machine
	if res.Ref != nil {
		x = &ref.Machine{Mem: res.Ref.Core(0), Regs: opt.Regs, MaxBytes: opt.MaxBytes, MaxSteps: opt.MaxSteps, Tracer: control.Tracer{Tracing: opt.Tracing}, Peer: res.Ref.Core}
	}
	if res.Sim != nil {
		y = &sim.Machine{Mem: res.Sim.Core(0), Regs: opt.Regs, MaxBytes: opt.MaxBytes, MaxSteps: opt.MaxSteps, Tracer: control.Tracer{Tracing: opt.Tracing}, Peer: res.Sim.Core}
	}
	defer func() {
		if x != nil {
			res.RefStats = x.Stats
			res.Trace = append(res.Trace, x.Trace...)
		}
		if y != nil {
			res.SimStats = y.Stats
			res.Trace = append(res.Trace, y.Trace...)
		}
	}()
	s := &p.Streams[0]
	var tx, ty *mem.Touched // Both: what each word wrote, the only bytes compared after it
	if x != nil && y != nil {
		tx, ty = mem.NewTouched(), mem.NewTouched()
		x.Mem.Track(tx)
		y.Mem.Track(ty)
		defer x.Mem.Track(nil)
		defer y.Mem.Track(nil)
	}
	for i := range s.Steps {
		step := &s.Steps[i]
		if step.Err != nil {
			return fmt.Errorf("offset %#x (%s): %w", step.Offset, step.Word.Def().Mnemonic(), step.Err)
		}
		words := step.Words()
		for k := range words {
			var err error
			switch {
			case y == nil:
				err = x.Exec(&words[k])
			case x == nil:
				err = y.Exec(&words[k])
			default:
				tx.Reset()
				ty.Reset()
				err = compareWord(x, y, &words[k], x.Exec(&words[k]), res, tx, ty)
			}
			if err != nil {
				return fmt.Errorf("offset %#x (%s): %w", step.Offset, step.Word.Def().Mnemonic(), err)
			}
		}
	}
	return s.Err
}

// compareWord runs in on the engines after ref ran it (refErr) and demands
// the same outcome: the same fault-or-not, the same bytes and semaphores.
func compareWord(x *ref.Machine, y *sim.Machine, in *isa.Inst, refErr error, res *Result, tx, ty *mem.Touched) error {
	if in.Opcode() == isa.OpDMAImmediate && errors.Is(refErr, ref.ErrUnsupported) {
		// its meaning is its raw descriptors: the engines run it on ref's memory too
		refErr = (&sim.Machine{Mem: x.Mem, Regs: x.Regs}).Exec(in)
	}
	simErr := y.Exec(in)
	switch {
	case refErr != nil && simErr != nil:
		return refErr
	case refErr != nil:
		return fmt.Errorf("ref faults, sim does not: %w", refErr)
	case simErr != nil:
		return fmt.Errorf("sim faults, ref does not: %w", simErr)
	}
	if d, ok := mem.FirstDifferenceIn(x.Mem, y.Mem, tx, ty); ok { // the words before agreed: only this one's writes can differ
		res.Diff = &Difference{Difference: d, Core: 0, Cores: 1}
		return fmt.Errorf("%w: %s", ErrDiffer, res.Diff.Format("ref", "sim"))
	}
	return nil
}

// compare holds the two devices to one answer.
func (r *Result) compare() error {
	if d, ok := Compare(r.Ref, r.Sim); ok {
		r.Diff = &d
		return fmt.Errorf("%w: %s", ErrDiffer, d.Format("ref", "sim"))
	}
	return nil
}

// streams builds the scheduler's streams of p over device d: each stream
// with its own registers over its core's memory, able to reach every core.
func streams(p *Program, opt Options, d *Device, engines bool) []*sched.Stream {
	var ss []*sched.Stream
	for k := range p.Streams {
		s := &p.Streams[k]
		m := d.Core(s.Core)
		st := &sched.Stream{Name: s.Name(), Steps: s.Steps, Err: s.Err, Mem: m, Core: s.Core, Clocked: engines}
		var x sched.Executor
		if engines {
			x = &sim.Machine{Mem: m, Regs: opt.Regs, MaxBytes: opt.MaxBytes, MaxSteps: opt.MaxSteps, Peer: d.Core}
		} else {
			x = &ref.Machine{Mem: m, Regs: opt.Regs, MaxBytes: opt.MaxBytes, MaxSteps: opt.MaxSteps, Peer: d.Core}
		}
		st.Exec = x
		ss = append(ss, st)
	}
	return ss
}

// runStreams runs several streams under the scheduler (docs/sched.md): the
// reference's run, then the engines' (with the timeline), then — Both —
// the two devices compared.
func runStreams(p *Program, opt Options, res *Result) error {
	if res.Ref != nil {
		st, err := sched.Run(streams(p, opt, res.Ref, false), opt.Trace)
		res.Sched = &st
		if err != nil {
			return err
		}
	}
	if res.Sim != nil {
		st, err := sched.RunTimeline(streams(p, opt, res.Sim, true), opt.Trace, opt.Timeline)
		res.Sched = &st
		if err != nil {
			return err
		}
	}
	if res.Ref != nil && res.Sim != nil {
		return res.compare()
	}
	return nil
}
