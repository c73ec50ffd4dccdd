// Package control holds what the two executors share by design: a word's
// control, not its data movement — EVENTS waits and updates (field-tables
// §2.2, §5.5, §5.6), the v5 wait_sema, TEST_EVENT_SEM (source document 000
// §8f), the DMA_MEMCPY2 address modes and semaphore updates, the index-tensor
// addressing of §11.5 — and the effects a word reports to the scheduler.
// Package ref (the meaning) and package sim (the descriptor engines) both
// import it and neither imports the other, so the differential tests cover
// exactly what differs: the bytes.
package control

import (
	"errors"
	"fmt"

	"ndma/internal/timing"
	"ndma/isa"
	"ndma/mem"
)

// State is what the control rules read and change: a stream's registers over
// its core's memory, and the other cores' memories (a cross-core copy).
type State struct {
	Mem  *mem.Memory
	Regs *[64]uint32
	Peer func(core int) *mem.Memory // nil: no other core
}

// Errors a word can stop with.
var (
	ErrBlocked     = errors.New("the wait does not hold (blocked)")
	ErrUnsupported = isa.ErrUnsupported
	// ErrUnresolved is a pseudo word offered to an executor: it names
	// variables, not addresses, and runs only once relocated (dge.Relocate).
	ErrUnresolved = isa.KindError(isa.ErrUnsupported, "a pseudo word never runs unresolved: relocate it first")
)

// Fault is a word that could not run; it had no effect at all (§11.3): the
// one fault type of both executors (ref.Fault and sim.Fault are it), with
// where it happened. A rule's fault names the rule the word breaks and the
// lane (Lane −1: not a lane's); an engine's fault (Rule "") names the DMA
// engine's queue (DMA −1: the word, before any queue), the leg and
// descriptor at fault (Desc −1: none) and its SoC buf_ptr.
type Fault struct {
	Mnemonic string
	Lane     int    // -1: not a lane's fault
	Rule     string // "": an engine's fault
	DMA      int
	Queue    int
	Leg      string // "M2S", "S2M" or ""
	Desc     int
	Addr     uint64
	Err      error
}

func (f *Fault) Error() string {
	switch {
	case f.Rule == "" && f.DMA >= 0 && f.Desc >= 0:
		return fmt.Sprintf("%s: DMA[%d] queue %d %s[%d] buf_ptr %#x: %v", f.Mnemonic, f.DMA, f.Queue, f.Leg, f.Desc, f.Addr, f.Err)
	case f.Rule == "" && f.DMA >= 0:
		return fmt.Sprintf("%s: DMA[%d] queue %d: %v", f.Mnemonic, f.DMA, f.Queue, f.Err)
	case f.Rule == "":
		return fmt.Sprintf("%s: %v", f.Mnemonic, f.Err)
	case f.Lane >= 0:
		return fmt.Sprintf("%s lane %d: %s: %v", f.Mnemonic, f.Lane, f.Rule, f.Err)
	}
	return fmt.Sprintf("%s: %s: %v", f.Mnemonic, f.Rule, f.Err)
}

func (f *Fault) Unwrap() error { return f.Err }

// Tracer is an executor's account of each word — what it read, wrote,
// skipped, or the descriptors it ran — kept only when Tracing.
type Tracer struct {
	Tracing bool
	Trace   []string
}

// Tracef adds a line when tracing.
func (t *Tracer) Tracef(format string, a ...any) {
	if t.Tracing {
		t.Trace = append(t.Trace, fmt.Sprintf(format, a...))
	}
}

// Change is one semaphore or event change a word makes: added to, or set.
// Mem is the core it lands on (nil: the issuing core's, filled in by the
// executor). AtIssue marks an EVENTS update "after the reads" (an
// UPDATE_MODE without the _COMPLETE bit, §5.6): on a clocked executor it
// lands when the word issues, not when its DMA completes.
type Change struct {
	Mem     *mem.Memory
	Idx     int
	Add     int32 // added (semaphores are signed 32-bit, §11.6)
	Set     bool  // Value replaces the semaphore or event
	Value   int32
	Event   bool // an event (set = Value != 0), not a semaphore
	AtIssue bool
	Wrapped bool // where it was computed (a CCI SEM_ADD) it wrapped past 32 bits: worth a warning
}

// Apply makes the change.
func (c *Change) Apply() {
	switch {
	case c.Event:
		c.Mem.Events[c.Idx&255] = c.Value != 0
	case c.Set:
		c.Mem.Sems[c.Idx&255] = c.Value
	default:
		c.Mem.Sems[c.Idx&255] += c.Add
	}
}

// Effect is what executing a word did beyond the bytes it wrote (those are
// in memory when Issue returns): the semaphore and event changes the
// scheduler applies — at issue without a clock, at completion with one —
// and, on a clocked executor, the DMA's cost and footprint.
type Effect struct {
	Changes     []Change
	CostNS      int64       // simulated time from issue to completion (0: no clock)
	Writes      [][2]uint64 // the byte ranges [lo, hi) the word's DMA wrote (race checks)
	Reads       [][2]uint64 // the byte ranges [lo, hi) it read: M2S legs, index tensors, a TENSOR_LOAD (race checks)
	Queues      []int       // the DMA engines it used: a stream's DMAs on one engine run in order
	Descriptors int         // descriptors executed
	Bytes       uint64      // bytes the S2M legs wrote
	// Transfer is the word's DMA as the packet-level model runs it, its
	// rows per DMA engine (sim's wordTransfer); nil: not built (ref, or a
	// machine not asked to).
	Transfer *timing.Transfer
}

// Apply makes every change now, in order.
func (e *Effect) Apply() {
	for i := range e.Changes {
		e.Changes[i].Apply()
	}
}

// Exec runs a word through an executor's issue and applies its changes at
// once: one stream, where nothing else can move a semaphore meanwhile.
func Exec(issue func(*isa.Inst) (Effect, error), in *isa.Inst) error {
	eff, err := issue(in)
	if err == nil {
		eff.Apply()
	}
	return err
}

// Merge adds o's changes and footprint to e (the words one step fires).
func (e *Effect) Merge(o Effect) {
	e.Changes = append(e.Changes, o.Changes...)
	e.CostNS += o.CostNS
	e.Writes = append(e.Writes, o.Writes...)
	e.Reads = append(e.Reads, o.Reads...)
	e.Queues = append(e.Queues, o.Queues...)
	e.Descriptors += o.Descriptors
	e.Bytes += o.Bytes
	e.Transfer = e.Transfer.Join(o.Transfer)
}
