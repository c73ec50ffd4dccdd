package control

import (
	"fmt"

	"ndma/isa"
)

// EVENTS (field-tables §2.2, §5.5, §5.6): the wait must hold when the word
// issues; the update is staged as Changes the scheduler applies.

// word is one instruction read by the control rules.
type word struct {
	st   State
	in   *isa.Inst
	name string
}

func newWord(st State, in *isa.Inst) *word { return &word{st: st, in: in, name: in.Def().Mnemonic()} }

func (w *word) fault(lane int, rule string, err error) error {
	return &Fault{Mnemonic: w.name, Lane: lane, Rule: rule, Err: err}
}

// threshold is the wait value of a mode: the immediate, a register, or (v5)
// register + 24-bit offset (INFERRED layouts, RATIONALE.md).
func (w *word) threshold(mode isa.WaitModeCode, value uint64) int64 {
	switch {
	case mode >= isa.WaitModeWaitForSemEQReg && mode <= isa.WaitModeWaitForSemGEReg:
		return int64(int32(w.st.Regs[value&63]))
	case mode >= isa.WaitModeWaitForSemEQRegOffset && mode <= isa.WaitModeWaitForSemGERegOffset:
		return int64(int32(w.st.Regs[value&0xff&63])) + int64(value>>8)
	}
	return int64(int32(uint32(value)))
}

// waitHolds evaluates a WAIT_MODE against the semaphores: the low nibble
// is the comparison (1 EQ, 2 LT, 3 LE, 4 GT, 5 GE) in every family (§5.5).
func (w *word) waitHolds(mode isa.WaitModeCode, idx, value uint64) (bool, error) {
	switch {
	case mode == isa.WaitModeNone || mode == isa.WaitModeUnordered:
		return true, nil
	case mode >= isa.WaitModeWaitForSemEQImm && mode <= isa.WaitModeWaitForSemGEImm,
		mode >= isa.WaitModeWaitForSemEQReg && mode <= isa.WaitModeWaitForSemGEReg,
		mode >= isa.WaitModeWaitForSemEQRegOffset && mode <= isa.WaitModeWaitForSemGERegOffset:
	default: // event waits need other streams (the control-plane issue)
		return false, fmt.Errorf("wait mode %s: %w", mode, ErrUnsupported)
	}
	s, t := int64(w.st.Mem.Sems[idx&255]), w.threshold(mode, value)
	switch mode & 0x0f {
	case 1:
		return s == t, nil
	case 2:
		return s < t, nil
	case 3:
		return s <= t, nil
	case 4:
		return s > t, nil
	}
	return s >= t, nil
}

// eventWaits are the v2–v4 event wait modes (field-tables §5.5: codes
// OBSERVED, meanings NOT FOUND). ndma reads them as (INFERRED): 0x06 wait
// until the event is set; 0x07 the same, then clear it; 0x0e wait until it
// is clear; 0x0f the same, then set it — a set/consume pair each way.
var eventWaits = map[isa.WaitModeCode]struct {
	set    bool // the state waited for
	toggle bool // flip the event once the wait holds
}{
	isa.WaitModeWaitForEvt06: {true, false}, isa.WaitModeWaitForEvt07: {true, true},
	isa.WaitModeWaitForEvt0E: {false, false}, isa.WaitModeWaitForEvt0F: {false, true},
}

// IsEventWait reports whether a WAIT_MODE waits on an event, not a semaphore.
func IsEventWait(mode isa.WaitModeCode) bool { _, ok := eventWaits[mode]; return ok }

// Events evaluates a word's EVENTS (field-tables §2.2, §5.5, §5.6): an error
// when its wait does not hold (ErrBlocked), else the changes its update
// makes, which the executor reports with the word's other effects.
func Events(st State, in *isa.Inst) ([]Change, error) {
	w := newWord(st, in)
	ev, ok := in.Events()
	if !ok {
		return nil, w.fault(-1, "events", fmt.Errorf("%s has no EVENTS: %w", w.name, ErrUnsupported))
	}
	mode, idx, value := ev.WaitMode(), ev.WaitIdx(), ev.SemaphoreValue()
	if e, ok := eventWaits[mode]; ok {
		if st.Mem.Events[idx&255] != e.set {
			return nil, w.fault(-1, "events.wait_mode", fmt.Errorf("%s on event %d = %v: %w",
				mode, idx, st.Mem.Events[idx&255], ErrBlocked))
		}
		ds, err := w.update(ev)
		if e.toggle {
			ds = append(ds, Change{Mem: st.Mem, Idx: int(idx & 255), Event: true, Set: true, Value: int32(b2i(!e.set))})
		}
		return ds, err
	}
	holds, err := w.waitHolds(mode, idx, value)
	if err != nil {
		return nil, w.fault(-1, "events.wait_mode", err)
	}
	if !holds {
		return nil, w.fault(-1, "events.wait_mode", fmt.Errorf("%s on $S[%d] = %d, value %d: %w",
			mode, idx, st.Mem.Sems[idx&255], int32(value), ErrBlocked))
	}
	return w.update(ev)
}

// adds are the adding UPDATE_MODEs (their _READ forms): what they add, as
// one + imm·value + reg·r[value].
var adds = map[isa.UpdateModeCode]struct{ one, imm, reg int32 }{
	isa.UpdateModeSemIncRead: {1, 0, 0}, isa.UpdateModeSemDecRead: {-1, 0, 0},
	isa.UpdateModeSemAddImmRead: {0, 1, 0}, isa.UpdateModeSemSubImmRead: {0, -1, 0},
	isa.UpdateModeSemAddRegRead: {0, 0, 1}, isa.UpdateModeSemSubRegRead: {0, 0, -1},
}

// update stages the EVENTS UPDATE_MODE (§5.6): INC, DEC, ADD/SUB/WR
// immediate or register. Without the +0x10 _COMPLETE bit the update lands
// "after the reads" — at issue on a clocked executor — unless it names the
// semaphore the word's completion moves (then both land at completion).
func (w *word) update(ev isa.EventsView) ([]Change, error) {
	mode, idx, value := ev.UpdateMode(), int(ev.UpdateIdx()), ev.SemaphoreValue()
	reg := int32(w.st.Regs[value&63])
	imm := int32(uint32(value))
	c := Change{Mem: w.st.Mem, Idx: idx}
	switch mode &^ 0x10 { // the _READ form of each update: add, or set
	case isa.UpdateModeNone:
		return nil, nil
	case isa.UpdateModeSemWrImmRead:
		c.Set, c.Value = true, imm
	case isa.UpdateModeSemWrRegRead:
		c.Set, c.Value = true, reg
	default:
		a, ok := adds[mode&^0x10]
		if !ok {
			return nil, w.fault(-1, "events.update_mode", fmt.Errorf("update mode %s: %w", mode, ErrUnsupported))
		}
		c.Add = a.one + a.imm*imm + a.reg*reg
	}
	if mode&0x10 == 0 {
		c.AtIssue = true
		// the completion semaphore, whichever layout the word has
		if sem, err := w.in.Uint("semaphore"); err == nil && int(sem) == idx {
			c.AtIssue = false
		}
	}
	return []Change{c}, nil
}

// WaitSema evaluates the v5 words' wait_sema_mode / wait_sema_idx /
// wait_sema_value (DMA_MEMCPY2, DMA_IMMEDIATE): an error unless it holds now.
func WaitSema(st State, in *isa.Inst) error {
	w := newWord(st, in)
	var mode isa.WaitModeCode
	var idx, value uint64
	if v, ok := in.Copy2D(); ok {
		mode, idx, value = v.WaitSemaMode(), v.WaitSemaIdx(), v.WaitSemaValue()
	} else if v, ok := in.Immediate(); ok {
		mode, idx, value = v.WaitSemaMode(), v.WaitSemaIdx(), v.WaitSemaValue()
	} else {
		return w.fault(-1, "wait_sema_mode", fmt.Errorf("%s has no wait_sema: %w", w.name, ErrUnsupported))
	}
	holds, err := w.waitHolds(mode, idx, value)
	if err != nil {
		return w.fault(-1, "wait_sema_mode", err)
	}
	if !holds {
		return w.fault(-1, "wait_sema_mode", fmt.Errorf("$S[%d] = %d: %w", idx, st.Mem.Sems[idx&255], ErrBlocked))
	}
	return nil
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
