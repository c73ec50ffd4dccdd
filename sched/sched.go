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
// DMAs complete when they are issued (the single-stream rule of ref and
// sim); asynchronous completion in simulated time is left to a later step.
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
}

// Run executes the streams to completion (nil), to a fault, or to a deadlock.
// gen decodes the words; trace, when set, receives one line per executed word.
func Run(gen isa.Gen, streams []*Stream, trace func(string)) (Stats, error) {
	var st Stats
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
	for {
		progressed, active := false, 0
		for i, s := range ss {
			if s.done {
				continue
			}
			active++
			st.Turns++
			sems := streams[i].Mem.Sems
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
			for k, v := range streams[i].Mem.Sems {
				if v != sems[k] {
					writers[[2]int{streams[i].Core, k}] = Writer{streams[i].Name, s.off, name}
				}
			}
			if trace != nil {
				trace(fmt.Sprintf("%s offset %#x: %s", streams[i].Name, s.off, name))
			}
			st.Words++
			progressed = true
			if err := next(i); err != nil {
				return st, fmt.Errorf("%s: %w", streams[i].Name, err)
			}
		}
		if active == 0 {
			return st, nil
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
	for _, p := range []string{"events.wait_idx", "wait_sema_idx"} {
		if v, err := in.Uint(p); err == nil {
			return int(v), true
		}
	}
	return 0, false
}
