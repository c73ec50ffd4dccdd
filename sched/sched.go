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
// clock (ref) they land at issue.
package sched

import (
	"errors"
	"fmt"
	"strings"

	"ndma/isa"
	"ndma/mem"
	"ndma/ref"
)

// Executor runs one word of one stream (a ref.Machine or sim.Machine with
// the stream's registers over its core's memory).
type Executor interface {
	Exec(in *isa.Inst) error
}

// Stream is one instruction stream.
type Stream struct {
	Name string // "POOL core 0"
	Code []byte // its words
	Exec Executor
	Mem  *mem.Memory // its core's memory (semaphores included)
	Core int
	// Clock, when set, is the executor's cumulative simulated DMA time (ns):
	// what a word adds to it is how long after issue its semaphores move.
	Clock func() int64
	// Moved, when set, is the executor's cumulative descriptors and bytes
	// written (the timeline's span arguments).
	Moved func() (descriptors int, bytes uint64)
	// Writes, when set, is the byte ranges [lo, hi) the last word's DMA
	// wrote — to warn of in-flight DMAs writing the same bytes.
	Writes func() [][2]uint64
	// Queues, when set, is the DMA engines the last word used: a DMA waits
	// for the ones before it on the same engine (queues serialise).
	Queues func() []int
	// Note, when set, says what the last word moved ("" for nothing): the
	// trace appends it and Stats.Schedule lists it.
	Note func() string
}

// Moved is one entry of the DMA schedule: which word moved what, when.
type Moved struct {
	Stream         string
	Offset         int
	Word           string
	IssueNS, DueNS int64 // issue and completion (equal without a clock)
	Note           string
}

// Writer is the last word that changed a semaphore.
type Writer struct {
	Stream string
	Offset int
	Word   string
}

// Deadlock is a run in which no stream can progress.
type Deadlock struct {
	Blocked []string // one line per blocked stream
}

func (d *Deadlock) Error() string {
	return "deadlock: no stream can progress: " + strings.Join(d.Blocked, " | ")
}

// Stats counts what the scheduler did.
type Stats struct {
	Words, Turns, Refusals int
	TimeNS                 int64    // simulated time at the end (clocked executors)
	Warnings               []string // races: DMAs in flight at once writing the same bytes
	Busy                   []int64  // per stream: the simulated ns its DMAs were in flight
	PeakInFlight           int      // the most DMAs in flight at one time
	Schedule               []Moved  // every word whose stream has a Note, in issue order
}

// completion is a DMA's semaphore changes, due at a simulated time.
type completion struct {
	at      int64
	seq     int
	core    int // the issuing stream's core (race checks)
	changes []semChange
	writer  Writer
	writes  [][2]uint64
	stream  int
	queues  []int // the DMA engines it used: a stream's DMAs sharing one are ordered
}

// semChange is what a word did to one core's semaphores.
type semChange struct {
	mem   *mem.Memory
	core  int
	delta [256]int32
}

// Run executes the streams to completion (nil), to a fault, or to a deadlock.
// gen decodes the words; trace, when set, receives one line per executed word.
func Run(gen isa.Gen, streams []*Stream, trace func(string)) (Stats, error) {
	return RunTimeline(gen, streams, trace, nil)
}

// RunTimeline is Run that also records the run into tl (when not nil).
func RunTimeline(gen isa.Gen, streams []*Stream, trace func(string), tl *Timeline) (Stats, error) {
	st := Stats{Busy: make([]int64, len(streams))}
	if tl != nil {
		tl.streams(streams)
	}
	type state struct {
		dec     *isa.Decoder
		pending *isa.Inst // the next word, decoded
		off     int
		done    bool
		why     error // the last refusal
	}
	ss := make([]*state, len(streams))
	for i, s := range streams {
		ss[i] = &state{dec: isa.NewDecoder(gen, s.Code)}
	}
	next := func(i int) error { // decode stream i's next word
		s := ss[i]
		if !s.dec.Next() {
			s.done = true
			return s.dec.Err()
		}
		in := *s.dec.Inst()
		s.pending, s.off = &in, s.dec.Offset()
		return nil
	}
	for i := range ss {
		if err := next(i); err != nil {
			return st, fmt.Errorf("%s: %w", streams[i].Name, err)
		}
	}
	writers := map[[2]int]Writer{} // (core, semaphore) → last writer
	// every core's memory: a word (a cross-core copy) may move another core's semaphores
	var mems []*mem.Memory
	coreOf := map[*mem.Memory]int{}
	for _, s := range streams {
		if _, ok := coreOf[s.Mem]; !ok {
			coreOf[s.Mem] = s.Core
			mems = append(mems, s.Mem)
		}
	}
	before := make([][256]int32, len(mems))
	var pending []completion
	var now int64
	// (stream, DMA engine) → when that queue drains: each stream has its own
	// queue on every DMA engine (INFERRED), so its DMAs there run in order
	busy := map[[2]int]int64{}
	seq := 0
	for {
		progressed, active := false, 0
		for i, s := range ss {
			if s.done {
				continue
			}
			active++
			st.Turns++
			for j, m := range mems {
				before[j] = m.Sems
			}
			var t0 int64
			if streams[i].Clock != nil {
				t0 = streams[i].Clock()
			}
			var d0 int
			var b0 uint64
			if streams[i].Moved != nil {
				d0, b0 = streams[i].Moved()
			}
			err := streams[i].Exec.Exec(s.pending)
			if errors.Is(err, ref.ErrBlocked) {
				st.Refusals++
				s.why = err
				continue
			}
			name := s.pending.Def().Mnemonic()
			if err != nil {
				return st, fmt.Errorf("%s offset %#x (%s): %w", streams[i].Name, s.off, name, err)
			}
			w := Writer{streams[i].Name, s.off, name}
			var cost int64
			if streams[i].Clock != nil {
				cost = streams[i].Clock() - t0
			}
			if tl != nil {
				var dd int
				var db uint64
				if streams[i].Moved != nil {
					dd, db = streams[i].Moved()
					dd, db = dd-d0, db-b0
				}
				tl.word(i, s.off, name, now, cost, dd, db)
			}
			if cost > 0 { // the semaphores move at completion: take the changes back and queue them
				start := now
				var qs []int
				if streams[i].Queues != nil {
					qs = streams[i].Queues()
					for _, q := range qs { // a queue busy with an earlier DMA delays this one
						start = max(start, busy[[2]int{i, q}])
					}
				}
				for _, q := range qs {
					busy[[2]int{i, q}] = start + cost
				}
				cost += start - now
				c := completion{at: now + cost, seq: seq, core: streams[i].Core, writer: w, stream: i, queues: qs}
				if streams[i].Writes != nil {
					c.writes = append([][2]uint64(nil), streams[i].Writes()...)
					for _, p := range pending { // a race: nothing orders two in-flight writes of the same bytes
						if p.core == c.core && !(p.stream == c.stream && shareQueue(p.queues, c.queues)) {
							if lo, ok := overlap(p.writes, c.writes); ok {
								msg := fmt.Sprintf("race: %s offset %#x (%s) and %s offset %#x (%s) are in flight together and both write %#x",
									p.writer.Stream, p.writer.Offset, p.writer.Word, w.Stream, w.Offset, w.Word, lo)
								st.Warnings = append(st.Warnings, msg)
								if trace != nil {
									trace("warning: " + msg)
								}
							}
						}
					}
				}
				seq++
				readIdx, early := readUpdate(s.pending)
				for j, m := range mems {
					if m.Sems != before[j] {
						ch := semChange{mem: m, core: coreOf[m]}
						for k, v := range m.Sems {
							ch.delta[k] = v - before[j][k]
						}
						m.Sems = before[j]
						if early && m == streams[i].Mem && ch.delta[readIdx] != 0 {
							// an EVENTS _READ update lands after the reads: at issue
							m.Sems[readIdx] += ch.delta[readIdx]
							writers[[2]int{coreOf[m], readIdx}] = w
							ch.delta[readIdx] = 0
						}
						c.changes = append(c.changes, ch)
					}
				}
				pending = append(pending, c)
				st.Busy[i] += cost
				st.PeakInFlight = max(st.PeakInFlight, len(pending))
			} else {
				for j, m := range mems {
					for k, v := range m.Sems {
						if v != before[j][k] {
							writers[[2]int{coreOf[m], k}] = w
							if tl != nil {
								tl.sem(coreOf[m], k, now, v)
							}
						}
					}
				}
			}
			note := ""
			if streams[i].Note != nil {
				if note = streams[i].Note(); note != "" {
					st.Schedule = append(st.Schedule, Moved{streams[i].Name, s.off, name, now, now + cost, note})
				}
			}
			if trace != nil {
				line := fmt.Sprintf("%s offset %#x: %s", streams[i].Name, s.off, name)
				if streams[i].Clock != nil {
					line += fmt.Sprintf(" @%.3fµs", float64(now)/1000)
					if cost > 0 {
						line += fmt.Sprintf(" (completes at %.3fµs)", float64(now+cost)/1000)
					}
				}
				if note != "" {
					line += ": " + note
				}
				trace(line)
			}
			st.Words++
			progressed = true
			if err := next(i); err != nil {
				return st, fmt.Errorf("%s: %w", streams[i].Name, err)
			}
		}
		if active == 0 && len(pending) == 0 {
			st.TimeNS = now
			return st, nil
		}
		if !progressed && len(pending) > 0 { // time moves to the earliest completion
			first := 0
			for k, c := range pending {
				if c.at < pending[first].at || c.at == pending[first].at && c.seq < pending[first].seq {
					first = k
				}
			}
			c := pending[first]
			pending = append(pending[:first], pending[first+1:]...)
			now = max(now, c.at)
			for _, ch := range c.changes {
				for k, d := range ch.delta {
					if d != 0 {
						ch.mem.Sems[k] += d
						writers[[2]int{ch.core, k}] = c.writer
						if tl != nil {
							tl.sem(ch.core, k, now, ch.mem.Sems[k])
						}
					}
				}
			}
			continue
		}
		if !progressed {
			d := &Deadlock{}
			for i, s := range ss {
				if s.done {
					continue
				}
				line := fmt.Sprintf("%s waits at offset %#x (%s): %v", streams[i].Name, s.off, s.pending.Def().Mnemonic(), s.why)
				if idx, ok := waitedSem(s.pending); ok {
					if w, ok := writers[[2]int{streams[i].Core, idx}]; ok {
						line += fmt.Sprintf("; $S[%d] last written by %s offset %#x (%s)", idx, w.Stream, w.Offset, w.Word)
					} else {
						line += fmt.Sprintf("; $S[%d] never written in this run", idx)
					}
				}
				d.Blocked = append(d.Blocked, line)
			}
			return st, d
		}
	}
}

// waitedSem is the semaphore a word's wait names.
func waitedSem(in *isa.Inst) (int, bool) {
	if m, err := in.Uint("events.wait_mode"); err == nil && (m == 0x06 || m == 0x07 || m == 0x0e || m == 0x0f) {
		return 0, false // an event wait, not a semaphore
	}
	for _, p := range []string{"events.wait_idx", "wait_sema_idx"} {
		if v, err := in.Uint(p); err == nil {
			return int(v), true
		}
	}
	return 0, false
}

// overlap reports the first byte two sets of ranges share.
func overlap(a, b [][2]uint64) (uint64, bool) {
	for _, x := range a {
		for _, y := range b {
			if x[0] < y[1] && y[0] < x[1] {
				return max(x[0], y[0]), true
			}
		}
	}
	return 0, false
}

// readUpdate is the semaphore a word's EVENTS update changes "after the
// reads" (an UPDATE_MODE without the +0x10 _COMPLETE bit), when that is not
// also the semaphore its completion moves (then both land at completion).
func readUpdate(in *isa.Inst) (int, bool) {
	mode, err1 := in.Uint("events.update_mode")
	idx, err2 := in.Uint("events.update_idx")
	if err1 != nil || err2 != nil || mode == 0 || mode&0x10 != 0 || mode == 0xff {
		return 0, false
	}
	if sem, err := in.Uint("semaphore"); err == nil && sem == idx {
		return 0, false
	}
	return int(idx), true
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
