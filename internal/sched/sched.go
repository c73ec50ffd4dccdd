// Package sched runs several instruction streams — one per engine and core
// (`.engine`, `.core`) — that synchronise through semaphores, and explains
// a program that hangs.
//
// Policy (deterministic, docs/sched.md): round robin in the order the
// streams appear in the file. At each turn the scheduler offers the next
// unfinished stream its next word; a word whose wait does not hold yet is
// refused without effect (ErrBlocked) and the turn passes on; any other
// fault stops the run. When every unfinished stream is blocked in one full
// round, the program is deadlocked and the report names each stream, the
// word it waits at, why, and the last writer of each semaphore involved.
// With a clocked executor (the engines' DMA time model) a DMA's semaphore
// updates land at its completion: the word's bytes move when it issues, its
// semaphore changes wait in a queue, and simulated time advances to the
// earliest pending completion only when no stream can issue. Without a
// clock (ref) they land at issue. With Options.Timing a fired dma[] block
// (Step.Transfer) completes when the packet-level model (package timing)
// says, and a word a stream's WordNS gives a time holds its engine that
// long (a compute engine's time, an input).
package sched

import (
	"cmp"
	"container/heap"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"ndma/internal/control"
	"ndma/internal/timing"
	"ndma/isa"
	"ndma/mem"
)

// Executor issues word k of a step of one stream (the runtime's executor
// over a ref.Machine or sim.Machine with the stream's registers over its
// core's memory) and reports its effects; the scheduler lands its semaphore
// and event changes. The step tells the executor what the word is part of
// (its ring, its place in the program); the scheduler itself reads only its
// words.
type Executor interface {
	Issue(step *Step, k int, in *isa.Inst) (control.Effect, error)
}

// WordIssuer is an executor of single words, which needs no step (a
// ref.Machine, a sim.Machine).
type WordIssuer interface {
	Issue(in *isa.Inst) (control.Effect, error)
}

// Words is x as an Executor.
func Words(x WordIssuer) Executor { return words{x} }

type words struct{ x WordIssuer }

func (w words) Issue(_ *Step, _ int, in *isa.Inst) (control.Effect, error) { return w.x.Issue(in) }

// Step is one word of a stream as the scheduler offers it, resolved once
// before the run: what executes may be other words than the one written (a
// relocated 0xd4, the words a 0xc1 trigger fires).
type Step struct {
	Offset int
	Word   isa.Inst   // as written: it names the step, its wait explains a deadlock
	Run    []isa.Inst // what executes, in order (nil: Word itself); only the first may wait
	Note   string     // what it moves, for the schedule ("": not listed)
	Queue  string     // the NEFF queue its DMA runs on ("": none), for listings
	Err    error      // why it cannot run (resolution failed): the run stops there
	// Ring is the ring its words' descriptors are laid out on (0: the DGE's
	// own, sdma.DefaultRingSize; a fired block's runtime-built ring is
	// larger). The executor reads it; the scheduler does not.
	Ring int
	// Engines is a fired block's DMA engines (its completion increment,
	// the queue's num_queues): its words' rows are spread over them
	// (dge.Options.Engines); 0 for any other step.
	Engines int
	// Transfer is the dma[] block a 0xc1 trigger fires, as the packet-level
	// timing model runs it (nil: not a block, or not timed that way).
	Transfer *timing.Transfer
}

// Words is what the step executes.
func (s *Step) Words() []isa.Inst {
	if s.Run != nil {
		return s.Run
	}
	return []isa.Inst{s.Word}
}

// Decode is a stream's words as steps, each executing itself; err is the
// decode error after the last good word (the run reports it when the
// stream reaches it).
func Decode(gen isa.Gen, code []byte) (steps []Step, err error) {
	d := isa.NewDecoder(gen, code)
	if n := len(code) / isa.WordSize; n > 0 {
		steps = make([]Step, 0, n) // at most a step a word
	}
	for d.Next() {
		steps = append(steps, Step{Offset: d.Offset(), Word: *d.Inst()})
	}
	return steps, d.Err()
}

// Stream is one instruction stream.
type Stream struct {
	Name string // "POOL core 0"
	// Issuer is the engine's key as the DMA model names an issuer ("sp",
	// "pool", "act"): its inline DGE words' latency and DGE.
	Issuer string
	Steps  []Step
	Err    error // a decode error after the last step
	Exec   Executor
	Mem    *mem.Memory // its core's memory (semaphores included)
	Core   int
	// Clocked says the run is timed (the DMA and compute models):
	// the trace shows when each word issues and completes.
	Clocked bool
	// WordNS, when set on a clocked stream, is how long a word that moves
	// no DMA occupies its engine (the compute model's time, or the one
	// --engine-time gives its opcode): the stream's next word waits for
	// it, and its semaphore updates land at its end. 0: at once.
	WordNS func(in *isa.Inst) int64
	// Given, when set, says which words' times WordNS has from the user
	// (--engine-time) rather than the compute model (the timeline says so).
	Given func(in *isa.Inst) bool
}

// Moved is one entry of the DMA schedule: which word moved what, when.
type Moved struct {
	Stream         string
	Offset         int
	Word           string
	IssueNS, DueNS int64 // issue and completion (equal without a clock)
	Note           string
	// Queue is the NEFF queue, Bytes what the DMA wrote, StartNS when it
	// started (its issue). Timed by the packet-level model
	// (Options.Timing): the block, its bytes with the semaphore writes,
	// its first packet's start (DueNS is its last packet's write done),
	// and its packets when the model keeps them.
	Timed    bool
	Transfer *timing.Transfer // the block the step fires (Step.Transfer), timed or not, or the inline DGE word's the model timed
	Queue    string
	Block    int
	Bytes    int64
	StartNS  int64
	Packets  []timing.Packet
	Run      []isa.Inst // the words the step ran (Step.Words): where the transfer reads and writes
}

// Writer is the last word that changed a semaphore.
type Writer struct {
	Stream string
	Offset int
	Word   string

	lane string // the engine stream or DMA queue whose work it is (the summary's)
	node int    // its node on the run's dependency graph (critical path)
}

// Deadlock is a run in which no stream can progress.
type Deadlock struct {
	Blocked []string // one line per blocked stream
}

// Error is one line per blocked stream (a NEFF has five streams a core).
func (d *Deadlock) Error() string {
	return "deadlock: no stream can progress:\n  " + strings.Join(d.Blocked, "\n  ")
}

// Stats counts what the scheduler did.
type Stats struct {
	Words, Turns, Refusals int
	TimeNS                 int64    // simulated time at the end (clocked executors)
	Warnings               []string // races: a DMA in flight writing bytes another word writes or reads, or reading bytes another writes; semaphores wrapping
	Busy                   []int64  // per stream: the simulated ns its DMAs were in flight
	PeakInFlight           int      // the most DMAs in flight at one time
	RaceScans              int64    // DMAs in flight the race check compared a word with: its cost, which the lane skip keeps linear in the words
	Schedule               []Moved  // every step with a Note, in issue order
	// Lanes are what limited each engine stream and DMA queue of a clocked
	// run (summary.go); Critical the critical path, first segment first.
	Lanes    []Lane
	Critical []Segment
}

// completion is a DMA's semaphore changes, due at a simulated time.
type completion struct {
	at      int64
	seq     int
	core    int      // the issuing stream's core (race checks)
	hbm     *mem.HBM // the HBM its core's memory shares (race checks across cores)
	changes []control.Change
	writer  Writer
	writes  [][2]uint64 // sorted, disjoint (spans)
	reads   [][2]uint64 // sorted, disjoint; nil once its reads are known done (it signalled at issue, after them)
	stream  int
	queues  []int // the DMA engines it used: a stream's DMAs sharing one are ordered
	compute bool  // a compute word's end (Stream.WordNS), not a DMA
	timed   int   // 1 + the timing model's transfer id (0: not timed by it): its time follows the model's End
	wake    int64 // at − wake is when it ends: its changes reach the waiting engines that much later (timing.Params.SemaphoreWakeNS, EngineWakeNS)
}

// Run executes the streams to completion (nil), to a fault, or to a deadlock.
// trace, when set, receives one line per executed word.
func Run(streams []*Stream, trace func(string)) (Stats, error) {
	return RunTimeline(streams, trace, nil)
}

// runner is one run's state.
type runner struct {
	streams []*Stream
	tl      *Timeline
	coreOf  map[*mem.Memory]int // every stream's core memory, in the streams' order
	order   map[*mem.Memory]int
	writers map[[2]int]Writer // (core, semaphore) → last writer
	now     int64
	st      *Stats
	wrapped map[[2]int]bool // semaphores already warned of wrapping

	opt      Options
	pos      []int   // each stream's next step
	free     []int64 // when its engine is free again (Stream.WordNS)
	end      int64   // the latest a word started or ended (the run's time: a semaphore's wake after the last is not)
	why      []error // its last refusal
	races    *raceLog
	pending  completions       // a min-heap by (at, seq): the earliest completion on top
	lanes    laneCount         // the pending completions no word of one lane can race
	near     spanIndex         // the pending DMAs by the granules of their bytes (race checks)
	busy     map[[2]int]queued // (stream, DMA engine) → when that queue drains: each stream has its own queue on every DMA engine (INFERRED), so its DMAs there run in order
	seq      int
	inFlight int // the DMAs among pending (not compute words)

	sum   summary   // what limited each lane (summary.go)
	timed []timedTx // the transfers the model times, patched once it has finished
}

// queued is a stream's queue on a DMA engine: when its last DMA ends, and
// that DMA's node (the critical path's cause of a DMA that waited for it).
type queued struct {
	end  int64
	node int
}

// timedTx is a transfer the packet-level model times: where its issue left
// its marks (the schedule entry, the timeline's span, its node), patched
// with the model's final times at the end of the run.
type timedTx struct {
	id, moved, tlEvent, node, stream int
	core                             int
	t                                *timing.Transfer
}

// done is whether stream i has run its last step.
func (r *runner) done(i int) bool { return r.pos[i] >= len(r.streams[i].Steps) }

// land applies changes a writer made and records, for every semaphore whose
// value they changed, the writer and a timeline point (in memory order, then
// index order: the trace is deterministic).
func (r *runner) land(cs []control.Change, w Writer) {
	type touched struct {
		m   *mem.Memory
		idx int
		old int32
	}
	var ts []touched
	for i := range cs {
		c := &cs[i]
		if !c.Event {
			old := c.Mem.Sems[c.Idx&255]
			ts = append(ts, touched{c.Mem, c.Idx & 255, old})
			if sum := int64(old) + int64(c.Add); c.Wrapped || !c.Set && (sum > math.MaxInt32 || sum < math.MinInt32) {
				r.wrap(c.Mem, c.Idx&255, old, c, w)
			}
		}
		c.Apply()
	}
	slices.SortStableFunc(ts, func(a, b touched) int {
		return cmp.Or(cmp.Compare(r.order[a.m], r.order[b.m]), cmp.Compare(a.idx, b.idx))
	})
	for k, t := range ts {
		if k > 0 && ts[k-1].m == t.m && ts[k-1].idx == t.idx {
			continue // the first of a group (stable sort) holds the value before every change
		}
		core, known := r.coreOf[t.m]
		if !known || t.m.Sems[t.idx] == t.old {
			continue
		}
		r.writers[[2]int{core, t.idx}] = w
		if r.tl != nil {
			r.tl.sem(core, t.idx, r.now, t.m.Sems[t.idx])
		}
	}
}

// wrap warns, once per semaphore, that an addition wraps it past the 32-bit
// range (semaphores are signed 32-bit, field-tables §11.6: the hardware
// wraps too, but a handshake that counts that far is surely wrong).
func (r *runner) wrap(m *mem.Memory, idx int, old int32, c *control.Change, w Writer) {
	core, known := r.coreOf[m]
	if !known || r.wrapped[[2]int{core, idx}] {
		return
	}
	r.wrapped[[2]int{core, idx}] = true
	how := fmt.Sprintf("%d %+d", old, c.Add)
	if c.Set {
		how = fmt.Sprintf("%d → %d", old, c.Value)
	}
	r.st.Warnings = append(r.st.Warnings, fmt.Sprintf("semaphore $S[%d] of core %d wraps: %s by %s offset %#x (%s)", idx, core, how, w.Stream, w.Offset, w.Word))
}

// RunTimeline is Run that also records the run into tl (when not nil).
func RunTimeline(streams []*Stream, trace func(string), tl *Timeline) (st Stats, err error) {
	return RunWith(streams, Options{Trace: trace, Timeline: tl})
}

// Options steer a run.
type Options struct {
	Trace    func(string) // one line per executed word
	Timeline *Timeline    // the run recorded (nil: not)
	// Timing, when set, times every step with a Transfer by the
	// packet-level model (one core's DMA engines) instead of its
	// executor's cost.
	Timing *timing.Model
	// Context, when set, cancels the run: it stops between two turns with
	// the context's error.
	Context context.Context
}

// RunWith is Run with options.
func RunWith(streams []*Stream, opt Options) (st Stats, err error) {
	st = Stats{Busy: make([]int64, len(streams))}
	if opt.Timeline != nil {
		opt.Timeline.streams(streams)
	}
	r := &runner{streams: streams, tl: opt.Timeline, coreOf: map[*mem.Memory]int{}, order: map[*mem.Memory]int{}, writers: map[[2]int]Writer{}, st: &st, wrapped: map[[2]int]bool{},
		opt: opt, pos: make([]int, len(streams)), free: make([]int64, len(streams)), why: make([]error, len(streams)), busy: map[[2]int]queued{}}
	r.sum.init(streams)
	defer r.finish()
	for _, s := range streams {
		if _, ok := r.coreOf[s.Mem]; !ok {
			r.coreOf[s.Mem], r.order[s.Mem] = s.Core, len(r.order)
		}
	}
	for i, s := range streams { // a stream whose first word does not decode stops the run before it starts
		if r.done(i) && s.Err != nil {
			return st, fmt.Errorf("%s: %w", s.Name, s.Err)
		}
	}
	r.races = &raceLog{st: &st, pairs: map[raceKey]*raceTally{}}
	defer r.races.summarise()
	for round := 0; ; round++ {
		if opt.Context != nil && round%64 == 0 { // a round is a turn of every stream: cheap against a context's lock
			if err := opt.Context.Err(); err != nil {
				return st, err
			}
		}
		progressed, active := false, 0
		for i := range streams {
			if r.done(i) {
				continue
			}
			active++
			if r.free[i] > r.now { // its engine is still busy with its last word
				continue
			}
			ok, err := r.turn(i)
			if err != nil {
				return st, err
			}
			progressed = progressed || ok
		}
		if active == 0 && len(r.pending) == 0 {
			st.TimeNS = r.end // the last word's end, not when its semaphores reached no one
			return st, nil
		}
		if !progressed && r.advance() {
			continue
		}
		if !progressed {
			return st, r.deadlock()
		}
	}
}

// turn offers stream i its next step: false when its wait does not hold yet.
func (r *runner) turn(i int) (bool, error) {
	s, st := r.streams[i], r.st
	st.Turns++
	step := &s.Steps[r.pos[i]]
	name := step.Word.Def().Mnemonic()
	if step.Err != nil {
		return false, fmt.Errorf("%s offset %#x (%s): %w", s.Name, step.Offset, name, step.Err)
	}
	eff, err := issueStep(s, step)
	if errors.Is(err, control.ErrBlocked) { // refused without effect: the turn passes on
		st.Refusals++
		r.why[i] = err
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("%s offset %#x (%s): %w", s.Name, step.Offset, name, err)
	}
	w := Writer{Stream: s.Name, Offset: step.Offset, Word: name, lane: s.Name}
	waited := r.sum.issued(r, i, step)
	cost := eff.CostNS
	timedID := -1
	tr := step.Transfer
	if tr == nil && eff.Transfer != nil && step.Queue != "" { // an inline DGE word of a NEFF queue: its rows per engine as the sim lowered them
		tr = eff.Transfer
		tr.Queue, tr.Issuer = step.Queue, s.Issuer
	}
	if r.opt.Timing != nil && tr != nil && s.Clocked { // the packet-level model times the block or word
		id, terr := r.opt.Timing.Fire(tr, r.now)
		switch {
		case terr != nil && step.Transfer == nil: // an inline word the model cannot take (its engines past its bound): the first-order cost, as before
			tr = nil
		case terr != nil:
			return false, fmt.Errorf("%s offset %#x (%s): %w", s.Name, step.Offset, name, terr)
		default:
			timedID, cost = id, max(r.opt.Timing.End(id)-r.now, 1)
			r.retime()
		}
	}
	compute, hold := false, int64(0)
	if s.Clocked && s.WordNS != nil {
		if d := s.WordNS(&step.Word); d > 0 { // the word holds its engine: a compute word, a trigger's issue
			hold, r.free[i] = d, r.now+d
			if cost == 0 { // a compute word: its updates land at its end
				cost, compute = d, true
			}
		}
	}
	w.node = r.sum.node(i, s.Name, step.Offset, r.now, r.now+hold, waited)
	start, cause := r.now, w.node // when the DMA starts moving, and what it waited for
	if cost > 0 && timedID < 0 && !compute {
		for _, q := range eff.Queues { // a queue busy with an earlier DMA delays this one: it starts when that one ends
			if b, ok := r.busy[[2]int{i, q}]; ok && b.end > start {
				start, cause = b.end, b.node
			}
		}
	}
	if step.Queue != "" && cost > 0 && !compute {
		w.lane = step.Queue
		id, inline := step.Offset, step.Transfer == nil // an inline DGE word is named by its offset, a block by its id
		if !inline {
			id = step.Transfer.Block
		}
		w.node = r.sum.dmaNode(step.Queue, id, inline, cause, start, start+cost)
		if timedID >= 0 {
			r.timed = append(r.timed, timedTx{id: timedID, moved: -1, tlEvent: -1, node: w.node, stream: i, core: s.Core, t: tr})
		}
	}
	if tl := r.tl; tl != nil {
		if compute { // its span alone: a marker beside it would nest in it on the one track
			how := "the compute model (timing.Compute)"
			if s.Given != nil && s.Given(&step.Word) {
				how = "given (--engine-time)"
			}
			tl.span(i, step.Offset, name, r.now, cost, how)
		} else {
			tl.word(i, step.Offset, name, step.Queue, r.now, start, cost, eff.Descriptors, eff.Bytes)
			if timedID >= 0 {
				r.timed[len(r.timed)-1].tlEvent = len(tl.Events) - 1
			}
		}
	}
	if cost > 0 {
		cost = r.inFlightUntil(i, &eff, w, start, cost, timedID, compute)
	} else {
		if len(r.pending) > 0 && (len(eff.Writes) > 0 || len(eff.Reads) > 0) { // a word done at issue (TENSOR_LOAD, TENSOR_STORE) against the DMAs in flight
			r.checkRaces(i, &completion{core: s.Core, hbm: s.Mem.HBM(), writer: w, stream: i, queues: eff.Queues, writes: spans(eff.Writes), reads: spans(eff.Reads)})
		}
		r.land(eff.Changes, w)
	}
	if step.Note != "" {
		mv := Moved{Stream: s.Name, Offset: step.Offset, Word: name, IssueNS: r.now, DueNS: r.now + cost, Note: step.Note,
			Queue: step.Queue, Bytes: int64(eff.Bytes), StartNS: start, Transfer: step.Transfer, Run: step.Words()}
		if timedID >= 0 {
			mv.Timed, mv.Block, mv.Transfer = true, tr.Block, tr
			r.timed[len(r.timed)-1].moved = len(st.Schedule)
		}
		st.Schedule = append(st.Schedule, mv)
	}
	if r.opt.Trace != nil {
		r.opt.Trace(r.traceLine(s, step, name, cost))
	}
	st.Words++
	r.end = max(r.end, r.now)
	r.pos[i]++
	if r.done(i) && s.Err != nil {
		return true, fmt.Errorf("%s: %w", s.Name, s.Err)
	}
	return true, nil
}

// issueStep issues a step's words in order: only the first may wait.
func issueStep(s *Stream, step *Step) (control.Effect, error) {
	var eff control.Effect
	n := max(1, len(step.Run))
	for k := 0; k < n; k++ {
		in := &step.Word // a plain step runs its own word, uncopied
		if step.Run != nil {
			in = &step.Run[k]
		}
		e, err := s.Exec.Issue(step, k, in)
		if err != nil {
			if k > 0 && errors.Is(err, control.ErrBlocked) { // only the first word may wait: the others have run
				err = fmt.Errorf("word %d of %d waits after the first ran: %v", k+1, n, err)
			}
			return eff, err
		}
		eff.Merge(e)
	}
	return eff, nil
}

// inFlightUntil puts a word that takes cost from start (a DMA, or a
// compute word) in flight from stream i: its semaphore changes queued for
// its completion (events, and an EVENTS update "after the reads", land at
// issue), its writes checked against the others in flight. It returns the
// cost from now, the wait for a queue busy with the stream's earlier DMA
// (start − now) included.
func (r *runner) inFlightUntil(i int, eff *control.Effect, w Writer, start, cost int64, timedID int, compute bool) int64 {
	s := r.streams[i]
	if timedID < 0 && !compute {
		for _, q := range eff.Queues {
			r.busy[[2]int{i, q}] = queued{start + cost, w.node}
		}
	}
	cost += start - r.now
	at, wake := r.now+cost, int64(0)
	if m := r.opt.Timing; m != nil { // its semaphore updates reach a waiting engine this much later (hw-timing §4.1, §4.6)
		if compute {
			wake = m.P.EngineWakeNS
		} else if timedID >= 0 {
			wake = m.P.SemaphoreWakeNS
		}
	}
	c := completion{at: at + wake, wake: wake, seq: r.seq, core: s.Core, hbm: s.Mem.HBM(), writer: w, stream: i, queues: eff.Queues,
		writes: spans(eff.Writes), reads: spans(eff.Reads), compute: compute, timed: timedID + 1}
	r.checkRaces(i, &c)
	r.seq++
	var now []control.Change
	for _, ch := range eff.Changes {
		if ch.Event || ch.AtIssue && ch.Mem == s.Mem {
			now = append(now, ch)
		} else {
			c.changes = append(c.changes, ch)
		}
	}
	r.land(now, w)
	if len(now) > 0 { // what it signals at issue comes after its reads (§5.6): a waiter may overwrite its source
		c.reads = nil
	}
	heap.Push(&r.pending, c)
	r.lanes.add(&c, 1)
	if !compute {
		r.near.add(&c)
		if timedID < 0 { // a timed transfer's is counted once the model has finished
			r.st.Busy[i] += cost
		}
		r.inFlight++
		r.st.PeakInFlight = max(r.st.PeakInFlight, r.inFlight)
	}
	return cost
}

// traceLine is the trace's line for a step that issued.
func (r *runner) traceLine(s *Stream, step *Step, name string, cost int64) string {
	line := fmt.Sprintf("%s offset %#x: %s", s.Name, step.Offset, name)
	if s.Clocked {
		line += fmt.Sprintf(" @%.3fµs", float64(r.now)/1000)
		if cost > 0 {
			line += fmt.Sprintf(" (completes at %.3fµs)", float64(r.now+cost)/1000)
		}
	}
	if step.Note != "" {
		line += ": " + step.Note
	}
	return line
}

// advance moves simulated time when no stream could issue: to an engine
// busy with a compute word freeing before the next completion, else to
// the earliest completion, whose changes land. false: nothing is pending.
func (r *runner) advance() bool {
	next := int64(-1)
	for k := range r.streams {
		if !r.done(k) && r.free[k] > r.now && (next < 0 || r.free[k] < next) {
			next = r.free[k]
		}
	}
	if len(r.pending) > 0 && next >= 0 && r.pending[0].at <= next {
		next = -1
	}
	if next >= 0 {
		r.now, r.end = next, max(r.end, next)
		return true
	}
	if len(r.pending) == 0 {
		return false
	}
	c := heap.Pop(&r.pending).(completion) // the earliest: a heap, not a scan (issue 30: --timeline was quadratic)
	r.lanes.add(&c, -1)
	if !c.compute {
		r.inFlight--
		r.near.remove(c.seq)
	}
	r.now = max(r.now, c.at)
	r.end = max(r.end, c.at-c.wake)
	r.land(c.changes, c.writer)
	return true
}

// laneCount counts the pending completions that cannot race a word of a
// lane — compute ends, and DMAs of one stream on one DMA engine — so that
// the race check skips its scan when every pending one is of the issuing
// word's own lane.
type laneCount struct {
	compute int
	lane    map[[2]int]int // (stream, engine) → DMAs on that engine alone
}

func (l *laneCount) add(c *completion, d int) {
	switch {
	case c.compute:
		l.compute += d
	case len(c.queues) == 1:
		if l.lane == nil {
			l.lane = map[[2]int]int{}
		}
		l.lane[[2]int{c.stream, c.queues[0]}] += d
	}
}

// all reports whether each of the n pending completions is a compute end
// or a DMA of c's own stream on c's one engine.
func (l *laneCount) all(c *completion, n int) bool {
	if n == 0 {
		return true
	}
	if len(c.queues) != 1 {
		return l.compute == n
	}
	return l.compute+l.lane[[2]int{c.stream, c.queues[0]}] == n
}

// completions is the pending completions as a container/heap, earliest
// (then first issued) on top.
type completions []completion

func (h completions) Len() int { return len(h) }
func (h completions) Less(i, j int) bool {
	return h[i].at < h[j].at || h[i].at == h[j].at && h[i].seq < h[j].seq
}
func (h completions) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *completions) Push(x any)   { *h = append(*h, x.(completion)) }
func (h *completions) Pop() any {
	old := *h
	c := old[len(old)-1]
	*h = old[:len(old)-1]
	return c
}

// deadlock is the report of a run in which no stream can progress.
func (r *runner) deadlock() *Deadlock {
	d := &Deadlock{}
	for i, s := range r.streams {
		if r.done(i) {
			continue
		}
		step := &s.Steps[r.pos[i]]
		line := fmt.Sprintf("%s waits at offset %#x (%s): %v", s.Name, step.Offset, step.Word.Def().Mnemonic(), r.why[i])
		if idx, ok := waitedSem(&step.Word); ok {
			if w, ok := r.writers[[2]int{s.Core, idx}]; ok {
				line += fmt.Sprintf("; $S[%d] last written by %s offset %#x (%s)", idx, w.Stream, w.Offset, w.Word)
			} else {
				line += fmt.Sprintf("; $S[%d] never written in this run", idx)
			}
		}
		d.Blocked = append(d.Blocked, line)
	}
	return d
}

// maxRaceLines is how many races are listed in full; the others are
// counted per pair of streams and words (a million overlapping DMAs are a
// handful of lines, not 227 MB).
const maxRaceLines = 8

// raceKind is what two racing words do to the bytes they share.
type raceKind uint8

const (
	raceWW raceKind = iota // both write
	raceRW                 // the first reads what the second, in flight, writes
	raceWR                 // the first writes what the second, in flight, reads
)

// raceKey is a pair of racing words by stream and mnemonic, and how they race.
type raceKey struct {
	kind         raceKind
	a, b, wa, wb string
}

// raceTally counts the races of one raceKey past the listed ones, with the
// offsets they span.
type raceTally struct {
	n        int
	aLo, aHi int
	bLo, bHi int
}

// raceLog collects a run's race warnings: the first maxRaceLines in full,
// then one line per pair of streams and words with how many more times and
// over which offsets they raced.
type raceLog struct {
	st    *Stats
	n     int
	pairs map[raceKey]*raceTally
	order []raceKey
}

// add records a race: for raceWW a is the word in flight, b the one
// issuing; otherwise a is the word issuing, b the one in flight.
func (r *raceLog) add(kind raceKind, a, b Writer, o shared, gen isa.Gen, trace func(string)) {
	r.n++
	if r.n <= maxRaceLines {
		var msg string
		switch kind {
		case raceWW:
			msg = fmt.Sprintf("race: %s offset %#x (%s) and %s offset %#x (%s) are in flight together and both write %#x",
				a.Stream, a.Offset, a.Word, b.Stream, b.Offset, b.Word, o.lo)
		case raceRW, raceWR:
			verb, theirs := "reads", "writes"
			if kind == raceWR {
				verb, theirs = theirs, verb
			}
			msg = fmt.Sprintf("race: %s offset %#x (%s) %s %s that %s offset %#x (%s), in flight, %s",
				a.Stream, a.Offset, a.Word, verb, bytesText(gen, o), b.Stream, b.Offset, b.Word, theirs)
		}
		r.st.Warnings = append(r.st.Warnings, msg)
		if trace != nil {
			trace("warning: " + msg)
		}
		return
	}
	k := raceKey{kind, a.Stream, b.Stream, a.Word, b.Word}
	t := r.pairs[k]
	if t == nil {
		t = &raceTally{aLo: a.Offset, aHi: a.Offset, bLo: b.Offset, bHi: b.Offset}
		r.pairs[k] = t
		r.order = append(r.order, k)
	}
	t.n++
	t.aLo, t.aHi, t.bLo, t.bHi = min(t.aLo, a.Offset), max(t.aHi, a.Offset), min(t.bLo, b.Offset), max(t.bHi, b.Offset)
}

// summarise adds the counted races, at most maxRaceLines pairs and a total.
func (r *raceLog) summarise() {
	if r.n <= maxRaceLines {
		return
	}
	for i, k := range r.order {
		if i == maxRaceLines {
			r.st.Warnings = append(r.st.Warnings, fmt.Sprintf("race: %d more pairs of streams race", len(r.order)-maxRaceLines))
			break
		}
		t := r.pairs[k]
		how := [...]string{raceWW: "and", raceRW: "reads what in-flight", raceWR: "writes what in-flight"}[k.kind]
		tail := [...]string{raceWW: "race", raceRW: "writes,", raceWR: "reads,"}[k.kind]
		r.st.Warnings = append(r.st.Warnings, fmt.Sprintf("race: %s (%s, offsets %#x..%#x) %s %s (%s, offsets %#x..%#x) %s %d more times",
			k.a, k.wa, t.aLo, t.aHi, how, k.b, k.wb, t.bLo, t.bHi, tail, t.n))
	}
	r.st.Warnings = append(r.st.Warnings, fmt.Sprintf("races: %d in all (%d listed above in full)", r.n, maxRaceLines))
}

// bytesText names shared bytes: how many, from the first to the last, in
// the assembler's address sugar (hbm:OFF, sbuf:P:OFF, psum:P:OFF).
func bytesText(gen isa.Gen, o shared) string {
	if o.n == 1 {
		return "1 byte at " + addrText(gen, o.lo)
	}
	if o.last-o.lo+1 == o.n {
		return fmt.Sprintf("%d bytes at %s..%s", o.n, addrText(gen, o.lo), addrText(gen, o.last))
	}
	return fmt.Sprintf("%d bytes in %s..%s", o.n, addrText(gen, o.lo), addrText(gen, o.last))
}

// addrText is a Neuron address in the assembler's sugar.
func addrText(gen isa.Gen, a uint64) string {
	switch rg, part, off := isa.Map(gen).Split(a); rg {
	case isa.SBUF, isa.PSUM:
		return fmt.Sprintf("%s:%d:%#x", rg, part, off)
	case isa.HBM:
		return fmt.Sprintf("hbm:%#x", off)
	}
	return fmt.Sprintf("%#x", a)
}

// waitedSem is the semaphore a word's wait names: its EVENTS wait, or the
// v5 wait_sema; none for an event wait.
func waitedSem(in *isa.Inst) (int, bool) {
	if ev, ok := in.Events(); ok {
		if control.IsEventWait(ev.WaitMode()) {
			return 0, false
		}
		return int(ev.WaitIdx()), true
	}
	if v, ok := in.Copy2D(); ok {
		return int(v.WaitSemaIdx()), true
	}
	if v, ok := in.Immediate(); ok {
		return int(v.WaitSemaIdx()), true
	}
	return 0, false
}

// checkRaces warns of every DMA in flight that c, issuing now from stream
// i, races: nothing orders c against it, yet one writes bytes the other
// writes or reads. A stream's own DMAs on one DMA engine are ordered; an
// in-flight DMA that signalled at issue has done its reads. Two cores race
// only in the HBM they share.
func (r *runner) checkRaces(i int, c *completion) {
	if r.lanes.all(c, len(r.pending)) { // every DMA in flight is ordered before c: no scan (a long stream on one queue stays linear)
		return
	}
	gen := r.streams[i].Mem.Gen
	seqs, all := r.near.near(c)
	if all { // c too wide to look up: every DMA in flight
		seqs = seqs[:0]
		for k := range r.pending {
			if !r.pending[k].compute {
				seqs = append(seqs, r.pending[k].seq)
			}
		}
		slices.Sort(seqs)
	}
	r.st.RaceScans += int64(len(seqs))
	for _, seq := range seqs {
		p := r.near.live[seq]
		if p.compute || p.stream == c.stream && shareQueue(p.queues, c.queues) {
			continue
		}
		from := uint64(0)
		if p.core != c.core {
			if p.hbm == nil || p.hbm != c.hbm {
				continue
			}
			from = isa.Map(gen).HBMBase
		}
		if o, ok := overlap(p.writes, c.writes, from); ok {
			r.races.add(raceWW, p.writer, c.writer, o, gen, r.opt.Trace)
		}
		if o, ok := overlap(p.writes, c.reads, from); ok {
			r.races.add(raceRW, c.writer, p.writer, o, gen, r.opt.Trace)
		}
		if o, ok := overlap(p.reads, c.writes, from); ok {
			r.races.add(raceWR, c.writer, p.writer, o, gen, r.opt.Trace)
		}
	}
}

// shared is the bytes two span lists share: the first and last shared byte
// and how many.
type shared struct{ lo, last, n uint64 }

// overlap is the bytes at or above from that two sorted, disjoint span
// lists share (one pass over both).
func overlap(a, b [][2]uint64, from uint64) (shared, bool) {
	var o shared
	for i, j := 0, 0; i < len(a) && j < len(b); {
		lo, hi := max(a[i][0], b[j][0], from), min(a[i][1], b[j][1])
		if lo < hi {
			if o.n == 0 {
				o.lo = lo
			}
			o.last, o.n = hi-1, o.n+(hi-lo)
		}
		if a[i][1] < b[j][1] {
			i++
		} else {
			j++
		}
	}
	return o, o.n > 0
}

// spans is s sorted and merged into disjoint spans: s itself when it is
// already so (the engines report a word's spans in address order mostly),
// else a sorted copy.
func spans(s [][2]uint64) [][2]uint64 {
	ordered := true
	for k := 1; k < len(s) && ordered; k++ {
		ordered = s[k-1][1] < s[k][0]
	}
	for k := range s {
		if s[k][0] >= s[k][1] {
			ordered = false
			break
		}
	}
	if ordered {
		return s
	}
	t := slices.Clone(s)
	slices.SortFunc(t, func(x, y [2]uint64) int { return cmp.Compare(x[0], y[0]) })
	out := t[:0]
	for _, v := range t {
		if v[0] >= v[1] {
			continue
		}
		if n := len(out); n > 0 && v[0] <= out[n-1][1] {
			out[n-1][1] = max(out[n-1][1], v[1])
			continue
		}
		out = append(out, v)
	}
	return out
}

func shareQueue(a, b []int) bool {
	for _, x := range a {
		for _, y := range b {
			if x == y {
				return true
			}
		}
	}
	return false
}
