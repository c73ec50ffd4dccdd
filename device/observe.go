package device

import (
	"errors"
	"fmt"

	"ndma/internal/compute"
	"ndma/internal/control"
	"ndma/internal/sched"
	"ndma/isa"
	"ndma/mem"
	"ndma/sim"
)

// Observer watches a scheduled run word by word, as wazero's listeners
// watch a call: Before as a word is offered to its executor (again after a
// refusal), After once it issued (err nil), was refused because its wait
// does not hold yet (errors.Is(err, ErrBlocked): it is offered again), or
// faulted. Before may hand back a word to issue in its place (nil: the word
// itself) — the OOB pre-flight runs a word with bad lanes in skip mode so.
// The At is the executor's own, valid during the call.
type Observer interface {
	Before(at *At, in *isa.Inst) *isa.Inst
	After(at *At, in *isa.Inst, err error)
}

// At is where a run is: the stream, the step, which of its words, and the
// stream's core memory and registers.
type At struct {
	Stream *Stream
	Step   *Step
	Word   int
	Mem    *mem.Memory
	Regs   *[64]uint32
}

// ErrBlocked is a word whose wait does not hold yet: refused without effect.
var ErrBlocked = control.ErrBlocked

// Computed are the words ndma executes; the rest of a NEFF stream (PE, ACT,
// DVE compute, labels, ordering) only synchronises: their EVENTS wait and
// update run, so the semaphore handshake runs as on the device.
var computed = map[isa.Opcode]bool{
	isa.OpDMAMemcpy: true, isa.OpDMAMemcpy2: true, isa.OpDMAImmediate: true, isa.OpDMAIndirect: true,
	isa.OpDMATranspose: true, isa.OpDMAGatherTranspose: true, isa.OpTestEventSem: true, isa.OpCompactControlInst: true,
	isa.OpTensorLoad: true, isa.OpTensorStore: true,
}

// Computed reports whether ndma executes words of opcode op (others run
// only their EVENTS in a NEFF program).
func Computed(op isa.Opcode) bool { return computed[op] }

// executor is the one executor of a scheduled stream, over the reference or
// the engines: a word ndma does not compute runs only its EVENTS (when the
// program says so), a step's words run on its ring, the observer sees each.
type executor struct {
	inner      sched.WordIssuer
	engine     *sim.Machine // the engines (nil on ref): their ring size follows the step
	eventsOnly bool
	dmaOnly    bool       // Options.DMAOnly: compute words too run only their EVENTS
	maxMem     int64      // Options.MaxMemory
	budget     int64      // Options.MaxRunBytes with its default (< 0: none)
	moved      *int64     // the bytes the run's words wrote so far, over all streams
	regs       [64]uint32 // the EVENTS-only words' registers
	state      control.State
	notRun     map[string]int
	ran        map[string]int   // compute words run, by mnemonic
	count      *EngineCount     // the engine's counts (NEFF programs)
	prov       *provenance      // where outputs\' values come from (NEFF programs)
	reads      map[int][]sbRead // per step offset: the SBUF legs its DMA words read for an output
	comp       *compute.Engine  // the stream's compute state (PE weights, ACT set)
	obs        Observer
	at         At
}

func (x *executor) Issue(step *Step, k int, in *isa.Inst) (control.Effect, error) {
	if x.obs == nil {
		eff, err := x.issue(step, in)
		if err == nil {
			err = x.caps(&eff)
		}
		return eff, err
	}
	x.at.Step, x.at.Word = step, k
	if r := x.obs.Before(&x.at, in); r != nil {
		in = r
	}
	eff, err := x.issue(step, in)
	if err == nil {
		err = x.caps(&eff)
	}
	x.obs.After(&x.at, in, err)
	return eff, err
}

func (x *executor) issue(step *Step, in *isa.Inst) (control.Effect, error) {
	if x.eventsOnly && !computed[in.Opcode()] && !x.dmaOnly && compute.Runs(in) {
		return x.compute(step, in)
	}
	if x.eventsOnly && !computed[in.Opcode()] {
		ch, err := control.Events(x.state, in) // not computed: only its EVENTS wait and update
		if err == nil {
			x.notRun[in.Def().Mnemonic()]++
			if x.count != nil {
				x.count.NotComputed[in.Def().Mnemonic()]++
			}
		}
		return control.Effect{Changes: ch}, err
	}
	if x.engine != nil {
		// an inline DGE word of a NEFF queue: its packets for the time
		// model (a fired block brings its own: Step.Transfer)
		x.engine.Shares = step.Transfer == nil && step.Queue != ""
		if step.Ring != 0 {
			x.engine.RingSize, x.engine.Engines = step.Ring, step.Engines
			defer func() { x.engine.RingSize, x.engine.Engines = 0, 0 }()
		}
	}
	eff, err := x.inner.Issue(in)
	if rs := x.reads[step.Offset]; err == nil && len(rs) > 0 {
		x.prov.read(x.at.Stream.Core, rs)
	}
	return eff, err
}

// compute runs a compute word (internal/compute): its EVENTS wait first (a
// refused word changes nothing), then its operation on the core's SBUF and
// PSUM, then its EVENTS update. An EVENT_SEMAPHORE waits on its second
// wait block too (docs/compute.md §11).
func (x *executor) compute(step *Step, in *isa.Inst) (control.Effect, error) {
	if in.Opcode() == compute.OpEventSemaphore {
		if err := x.secondWait(in); err != nil {
			return control.Effect{}, err
		}
	}
	ch, err := control.Events(x.state, in)
	if err != nil {
		return control.Effect{}, err
	}
	if x.comp == nil {
		x.comp = compute.New(x.state.Mem.Gen)
	}
	x.comp.Regs = x.at.Regs
	if err := x.comp.Exec(x.state.Mem, in); err != nil {
		return control.Effect{}, err
	}
	if d, ok := x.comp.Written(); ok && x.prov != nil {
		x.prov.wrote(x.at.Stream, step, d)
	}
	x.ran[in.Def().Mnemonic()]++
	if x.count != nil {
		x.count.Computed[in.Def().Mnemonic()]++
	}
	return control.Effect{Changes: ch}, nil
}

// secondWait is ErrBlocked while an EVENT_SEMAPHORE's second wait block
// does not hold: the block read as an EVENTS wait without an update.
func (x *executor) secondWait(in *isa.Inst) error {
	v, ok := in.EventSem()
	if !ok || v.Wait2Mode() == 0 {
		return nil
	}
	w := *in
	ev, _ := w.Events()
	if err := errors.Join(ev.SetWaitMode(v.Wait2Mode()), ev.SetWaitIdx(int64(v.Wait2Idx())), ev.SetSemaphoreValue(int64(v.Wait2Value())),
		ev.SetUpdateMode(isa.UpdateModeNone)); err != nil {
		return err
	}
	_, err := control.Events(x.state, &w)
	return err
}

// caps stops the run past its byte budget or its memory cap.
func (x *executor) caps(eff *control.Effect) error {
	if x.moved != nil {
		*x.moved += int64(eff.Bytes)
		if x.budget >= 0 && *x.moved > x.budget {
			return fmt.Errorf("the run wrote %d bytes, past its budget of %d (--max-bytes; Options.MaxRunBytes in Go): %w", *x.moved, x.budget, ErrBudget)
		}
	}
	return x.memoryCap()
}

// memoryCap stops the run once the HBM it holds passed Options.MaxMemory
// (a word moves at most its executor's MaxBytes, so a run overshoots the
// cap by at most that): a 13 KB NEFF of twelve 512 MiB descriptors once
// took 5.8 GB before the machine refused it.
func (x *executor) memoryCap() error { return memoryCap(x.state.Mem, x.maxMem, "the run holds") }

// memoryCap is m's HBM pages against the cap max (Options.MaxMemory: 0
// the default, negative none); what says whose they are.
func memoryCap(m *mem.Memory, max int64, what string) error {
	limit := max
	if limit == 0 {
		limit = DefaultMaxMemory
	}
	if limit < 0 {
		return nil
	}
	if held := int64(m.Pages()) * mem.PageSize; held > limit {
		return fmt.Errorf("%s %d bytes of HBM pages, past the cap of %d (--max-memory; Options.MaxMemory in Go): %w", what, held, limit, ErrMemory)
	}
	return nil
}
