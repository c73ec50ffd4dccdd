package device

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"ndma/internal/suggest"
	"slices"
	"sort"
	"strings"

	"ndma/internal/compute"
	"ndma/internal/control"
	"ndma/internal/sched"
	"ndma/internal/timing"
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
	return Sim, suggest.Unknown("executor", s, execNames[:])
}

// Timeline records the engines' run of several streams as Chrome trace
// events (its Write).
type Timeline = sched.Timeline

// Stats is the scheduler's account of one run of several streams.
type Stats = sched.Stats

// TimingParams are the packet-level DMA model's constants (docs/sim.md).
type TimingParams = timing.Params

// Transfer is a fired dma[] block as the packet-level model runs it.
type Transfer = timing.Transfer

// Options steer a run, of any program.
type Options struct {
	Exec     Exec
	Cores    int        // cores of the device (0: those the program's streams name)
	Regs     [64]uint32 // every stream's registers at the start
	MaxBytes int64      // refuse a word that would move more (0: each executor's default)
	MaxSteps int        // slots one COMPACT_CONTROL_INST may execute (0: the default)
	// MaxMemory caps the HBM a scheduled run may hold (its pages: memory
	// follows the bytes touched): past it the run stops with ErrMemory
	// after the word that crossed it (0: DefaultMaxMemory; < 0: none).
	MaxMemory int64
	// MaxRunBytes is the whole run's byte budget, the bytes its DMA words
	// write in all: a program whose words plan more (PlannedBytes) is
	// refused before a byte moves, and a word whose size shows only as it
	// runs (indirect, register-addressed) stops the run once the total
	// passes it, with ErrBudget (0: DefaultMaxRunBytes; < 0: none).
	MaxRunBytes int64
	Tracing     bool // a single stream: the executors record what each word read and wrote
	Schedule    bool // run under the scheduler even a single stream on core 0 (a timeline of it)
	// Trace, when set, receives the scheduler's line per executed word (several streams).
	Trace func(string)
	// Timeline, when set, records the engines' run of several streams.
	Timeline *Timeline
	// Load, when set, writes a fresh device's inputs (arrays, semaphores)
	// before the run: called once per device (twice with Both).
	Load func(*Device) error
	// Observer, when set, watches every word a scheduled run issues.
	Observer Observer
	// Device, when set, is the device the run runs on, as it is (Load is
	// still called on it), instead of a fresh one: a caller that keeps a
	// device across runs (Python's ndma.Device). Not with Both, which runs
	// two devices from one state.
	Device *Device

	// Inputs are a NEFF program's input variables (Run: the others hold the
	// file's data or deterministic random values, as Load writes them).
	Inputs map[string]Input
	// Subgraphs, when set, names the NEFF subgraphs to run (the others are
	// placed and loaded, not run).
	Subgraphs []string
	// Timing is the packet-level model's constants for the engines' run
	// (nil: timing.For the device's generation); EngineTime the time a
	// word of an opcode ndma does not compute takes its engine (absent: 0);
	// Packets keeps every packet in the schedule.
	Timing     *TimingParams
	EngineTime map[isa.Opcode]int64
	Packets    bool
	// DMAOnly runs a NEFF's compute words for their EVENTS only, as words
	// ndma does not compute: the DMA schedule and the bytes DMA moves are
	// the same, outputs an engine computes are not (a fast look at the data
	// movement: matmul_large in ~5 s instead of ~37 s).
	DMAOnly bool
}

// DefaultMaxMemory is Options.MaxMemory's default: 8 GiB of HBM pages
// (matmul_large with its real 4 GiB input holds 4.3 GiB).
const DefaultMaxMemory = 8 << 30

// DefaultMaxRunBytes is Options.MaxRunBytes's default: 64 GiB written in
// all (matmul_large, the largest NEFF we have, plans 4.3 GiB).
const DefaultMaxRunBytes = 64 << 30

// ErrBudget is a run that would write more bytes than Options.MaxRunBytes.
var ErrBudget = errors.New("over the run's byte budget")

// ErrMemory is a run that would hold more memory than Options.MaxMemory.
var ErrMemory = errors.New("over the run's memory cap")

// NEFFOptions are Options: one run loop serves every program.
type NEFFOptions = Options

// Result is a run as data: the devices after it and what each executor and
// the scheduler counted. It comes back with the run's error too (a fault
// leaves the devices as the last good word did).
type Result struct {
	Exec     Exec
	Ref, Sim *Device // the devices after the run (nil: that executor did not run)
	Multi    bool    // several streams (or cores, or a NEFF): run under the scheduler
	RefStats ref.Stats
	SimStats sim.Stats
	// Sched is the scheduler's account of the last group of streams run:
	// the engines' run when they ran, else the reference's.
	Sched *Stats
	Trace []string // a single stream with Tracing: ref's lines, then sim's
	// Diff is where ref and sim first disagree (Both), nil when they agree.
	Diff *Difference

	// Subgraphs are the scheduler's runs, one per group of streams run
	// together (a NEFF's subgraphs, one after another; one for an
	// assembled program): the engines' account (the reference's with Ref).
	Subgraphs []SubgraphRun
	Clocked   bool           // the times are the engines' cost model (false: ref, no DMA time)
	Timing    *TimingParams  // the packet-level model's constants (Clocked)
	NotRun    map[string]int // words not computed (only their EVENTS ran), by mnemonic
	Computed  map[string]int // compute and NOP-like words run (internal/compute), by mnemonic
	// Regs are each stream's registers at the end of the run, by stream
	// name (the final device's executor: the engines' when they ran).
	Regs map[string][64]uint32
	// Sources are, per output variable, the compute words that last wrote
	// the SBUF bytes its DMA words read, when they read them ("sg00 ACT
	// 0x1c0 CAST"), in the order first seen.
	Sources map[string][]string
	// Engines counts, per engine stream key ("pe", "act", …), the words
	// computed and those only whose EVENTS ran.
	Engines  map[string]*EngineCount
	Warnings []string // each once, in order
	Writers  []Writer // what the resolved DMA words write into each NEFF variable with bytes
	Twin     *Image   // a NEFF image run with Both: the engines' image (the receiver ran the reference)

	program *Program
}

// EngineCount is what one engine's streams ran: the words computed and
// those not computed (only their EVENTS ran), by mnemonic.
type EngineCount struct {
	Computed    map[string]int `json:"computed"`
	NotComputed map[string]int `json:"not_computed"`
}

// Uncomputed lists the words not computed that would have had an effect
// beyond their EVENTS (not NOP-like: internal/compute.NoOp), "MNEMONIC n"
// sorted: an output written after them may not hold the kernel's values.
func (r *Result) Uncomputed() []string {
	var out []string
	for k, v := range r.NotRun {
		if def, err := isa.LookupName(k); err != nil || !compute.NoOp(def.Opcode) {
			out = append(out, fmt.Sprintf("%s %d", k, v))
		}
	}
	sort.Strings(out)
	return out
}

// NEFFResult is a Result: one run loop serves every program.
type NEFFResult = Result

// SubgraphRun is one scheduler run: its subgraph, core and account.
type SubgraphRun struct {
	Name  string
	Core  int
	Stats Stats
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
// Load failed come back nil, with the error): a NEFF program with its
// variables written (Options.Inputs, the file's data, random inputs) and
// its subgraphs run one after another under the scheduler; an assembled
// single stream on core 0 word by word (with Both, ref and sim compared
// after every word); several streams — or any run of more than one core —
// under the scheduler (with Both, the two runs compared at the end).
// Cancelling ctx stops a scheduled run between two turns.
func Run(ctx context.Context, p *Program, opt Options) (*Result, error) {
	res := &Result{Exec: opt.Exec, program: p}
	cores := max(p.cores(), opt.Cores)
	res.Multi = p.NEFF != nil || opt.Schedule || len(p.Streams) > 1 || len(p.Streams) == 1 && p.Streams[0].Core != 0 || cores > 1
	for _, s := range p.Streams {
		if opt.Cores > 0 && s.Core >= opt.Cores {
			return res, fmt.Errorf("a device of %d cores: the program has a stream on core %d", opt.Cores, s.Core)
		}
	}
	if opt.Device != nil {
		if opt.Exec == Both {
			return res, errors.New("Options.Device: a run on both executors needs two devices, not one")
		}
		if p.Gen != opt.Device.Gen || cores > opt.Device.Cores() {
			return res, fmt.Errorf("a device of %d %v cores: the program is for %v and names %d cores", opt.Device.Cores(), opt.Device.Gen, p.Gen, cores)
		}
	}
	fresh := func() (*Device, error) {
		d := opt.Device
		if d == nil {
			d = New(p.Gen, cores)
		}
		if p.NEFF != nil {
			if _, err := loadNEFF(p, d, opt.Inputs); err != nil {
				return nil, err
			}
		}
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
	if len(p.Streams) == 0 && p.NEFF == nil {
		return res, nil
	}
	if res.Multi {
		return res, runScheduled(ctx, p, opt, res)
	}
	return res, runSingle(p, opt, res)
}

// runScheduled runs p under the scheduler (docs/sched.md): the reference's
// run, then the engines' (with the timeline), then — Both — the two devices
// compared.
func runScheduled(ctx context.Context, p *Program, opt Options, res *Result) error {
	both := res.Ref != nil && res.Sim != nil
	if res.Ref != nil {
		o := opt
		if both {
			o.Timeline = nil // the timeline is the engines' run
		}
		if err := p.runOn(ctx, res.Ref, Ref, o, res); err != nil {
			if both && p.NEFF != nil {
				return fmt.Errorf("ref: %w", err)
			}
			return err
		}
	}
	if res.Sim != nil {
		if err := p.runOn(ctx, res.Sim, Sim, opt, res); err != nil {
			if both && p.NEFF != nil {
				return fmt.Errorf("sim: %w", err)
			}
			return err
		}
	}
	if both {
		return res.compare()
	}
	return nil
}

// runOn is the one run loop: p's groups of streams (phases) one after
// another on device d, each under the scheduler with one executor per
// stream of kind exec (Ref or Sim).
func (p *Program) runOn(ctx context.Context, d *Device, exec Exec, opt Options, res *Result) error {
	res.Subgraphs, res.NotRun, res.Computed, res.Warnings, res.Writers = nil, map[string]int{}, map[string]int{}, nil, nil
	res.Engines, res.Sources = map[string]*EngineCount{}, nil
	var pv *provenance
	if p.NEFF != nil && p.EventsOnly {
		pv = newProvenance(p.Gen, res)
	}
	res.Clocked = exec == Sim
	params := opt.Timing
	if params == nil {
		tp := timing.For(p.Gen)
		params = &tp
	}
	if res.Clocked {
		res.Timing = params
	}
	budget := runBudget(opt.MaxRunBytes)
	if planned := p.PlannedBytes(opt.Subgraphs); budget >= 0 && planned > uint64(budget) {
		return fmt.Errorf("its words plan to write %d bytes, more than the run's budget of %d (--max-bytes; Options.MaxRunBytes in Go): %w", planned, budget, ErrBudget)
	}
	if err := memoryCap(d.Core(0), opt.MaxMemory, "before any word runs, its inputs and variables hold"); err != nil {
		return err // said of the load, not of the first word that happens to run
	}
	moved := new(int64)
	for _, ph := range p.phases(opt.Subgraphs) {
		ss := make([]*sched.Stream, 0, len(ph.streams))
		for _, k := range ph.streams {
			s := &p.Streams[k]
			for _, w := range s.Warnings {
				if msg := fmt.Sprintf("%s %s: %s", s.Subgraph, s.Key, w); !slices.Contains(res.Warnings, msg) {
					res.Warnings = append(res.Warnings, msg)
				}
			}
			if p.NEFF != nil {
				res.Writers = append(res.Writers, p.writers(s)...)
			}
			st := p.schedStream(s, d, exec, &opt, res, pv)
			st.Exec.(*executor).budget, st.Exec.(*executor).moved = budget, moved
			ss = append(ss, st)
		}
		so := sched.Options{Trace: opt.Trace, Timeline: opt.Timeline, Context: ctx}
		if exec == Sim { // one core's DMA engines, fresh for each phase
			so.Timing = timing.New(*params)
			so.Timing.Keep = opt.Packets || opt.Timeline != nil
		}
		st, err := sched.RunWith(ss, so)
		if res.Regs == nil {
			res.Regs = map[string][64]uint32{}
		}
		for _, s := range ss { // the engines' run comes last and overwrites the reference's
			x, ok := s.Exec.(*executor)
			if !ok {
				continue
			}
			if x.at.Regs != nil {
				res.Regs[s.Name] = *x.at.Regs
			}
			x.addStats(res) // each stream has its own machine: the run's counts are their sum
		}
		res.Subgraphs = append(res.Subgraphs, SubgraphRun{ph.name, ph.core, st})
		res.Sched = &res.Subgraphs[len(res.Subgraphs)-1].Stats
		if err != nil {
			if p.NEFF != nil {
				return fmt.Errorf("%s: %w", ph.name, err)
			}
			return err
		}
	}
	return nil
}

// schedStream is stream s of p over device d as the scheduler runs it:
// its own registers over its core's memory, able to reach every core, one
// executor (package executor) over the reference or the engines.
func (p *Program) schedStream(s *Stream, d *Device, exec Exec, opt *Options, res *Result, pv *provenance) *sched.Stream {
	m := d.Core(s.Core)
	x := &executor{eventsOnly: p.EventsOnly, dmaOnly: opt.DMAOnly, maxMem: opt.MaxMemory, notRun: res.NotRun, ran: res.Computed, obs: opt.Observer}
	if p.EventsOnly {
		key := strings.ToLower(s.Key)
		if key == "" {
			key = strings.ToLower(s.Engine)
		}
		if res.Engines[key] == nil {
			res.Engines[key] = &EngineCount{Computed: map[string]int{}, NotComputed: map[string]int{}}
		}
		x.count = res.Engines[key]
	}
	if pv != nil {
		x.prov, x.reads = pv, p.sbReads(s)
	}
	x.state = control.State{Mem: m, Regs: &x.regs}
	st := &sched.Stream{Name: s.Name(), Steps: s.Steps, Err: s.Err, Mem: m, Core: s.Core, Exec: x, Issuer: strings.ToLower(cmp.Or(s.Key, s.Engine))}
	x.at = At{Stream: s, Mem: m}
	if exec == Sim {
		x.engine = &sim.Machine{Mem: m, Regs: opt.Regs, MaxBytes: opt.MaxBytes, MaxSteps: opt.MaxSteps, Peer: d.Core}
		x.inner, x.at.Regs, st.Clocked = x.engine, &x.engine.Regs, true
		st.WordNS, st.Given = wordTime(p.Gen, s, opt.EngineTime)
	} else {
		r := &ref.Machine{Mem: m, Regs: opt.Regs, MaxBytes: opt.MaxBytes, MaxSteps: opt.MaxSteps, Peer: d.Core}
		x.inner, x.at.Regs = r, &r.Regs
	}
	return st
}

// addStats adds the counts of x's machine to res's (RefStats or SimStats).
func (x *executor) addStats(res *Result) {
	if y := x.engine; y != nil {
		st := &res.SimStats
		st.Words, st.Descriptors = st.Words+y.Stats.Words, st.Descriptors+y.Stats.Descriptors
		st.M2SBytes, st.S2MBytes, st.TimeNS = st.M2SBytes+y.Stats.M2SBytes, st.S2MBytes+y.Stats.S2MBytes, st.TimeNS+y.Stats.TimeNS
		for q, b := range y.Stats.QueueBytes {
			if st.QueueBytes == nil {
				st.QueueBytes = map[int]uint64{}
			}
			st.QueueBytes[q] += b
		}
		return
	}
	if r, ok := x.inner.(*ref.Machine); ok {
		st := &res.RefStats
		st.Words, st.Lanes, st.Skipped, st.BytesMoved = st.Words+r.Stats.Words, st.Lanes+r.Stats.Lanes, st.Skipped+r.Stats.Skipped, st.BytesMoved+r.Stats.BytesMoved
	}
}

// runBudget is Options.MaxRunBytes with its default (< 0: none).
func runBudget(v int64) int64 {
	if v == 0 {
		return DefaultMaxRunBytes
	}
	return v
}

// PlannedBytes is what the DMA words of the named subgraphs (all when
// names is nil) write when their sizes are known before the run: the
// destination legs of every resolved 2-D word. Indirect and register-addressed
// words count only as they run.
func (p *Program) PlannedBytes(names []string) uint64 {
	var n uint64
	for _, ph := range p.phases(names) {
		for _, k := range ph.streams {
			st := &p.Streams[k]
			for i := range st.Steps {
				for _, w := range st.Steps[i].Words() {
					if _, dst, ok := w.Legs2D(); ok {
						n += uint64(dst.Bytes())
					}
				}
			}
		}
	}
	return n
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
		name := p.Streams[0].Name()
		res.Regs = map[string][64]uint32{}
		if x != nil {
			res.RefStats = x.Stats
			res.Trace = append(res.Trace, x.Trace...)
			res.Regs[name] = x.Regs
		}
		if y != nil {
			res.SimStats = y.Stats
			res.Trace = append(res.Trace, y.Trace...)
			res.Regs[name] = y.Regs
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
	sx, sy := x.Mem.Stats, y.Mem.Stats // the comparison's reads are not the program's traffic
	d, ok := mem.FirstDifferenceIn(x.Mem, y.Mem, tx, ty)
	x.Mem.Stats, y.Mem.Stats = sx, sy
	if ok { // the words before agreed: only this one's writes can differ
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
