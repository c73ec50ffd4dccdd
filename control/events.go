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

// u reads a field the word's layout has (a missing one is a programming error).
func (w *word) u(path string) uint64 {
	v, err := w.in.Uint(path)
	if err != nil {
		panic(err)
	}
	return v
}

// threshold is the wait value of a mode: the immediate, a register, or (v5)
// register + 24-bit offset (INFERRED layouts, RATIONALE.md).
func (w *word) threshold(mode, value uint64) int64 {
	switch {
	case mode >= 0x81 && mode <= 0x85:
		return int64(int32(w.st.Regs[value&63]))
	case mode >= 0x91 && mode <= 0x95:
		return int64(int32(w.st.Regs[value&0xff&63])) + int64(value>>8)
	}
	return int64(int32(uint32(value)))
}

// waitHolds evaluates a WAIT_MODE against the semaphores.
func (w *word) waitHolds(mode, idx, value uint64) (bool, error) {
	if mode == 0 || mode == 0xfe { // NONE, UNORDERED
		return true, nil
	}
	cmp := mode & 0x0f
	switch {
	case mode >= 0x01 && mode <= 0x05, mode >= 0x81 && mode <= 0x85, mode >= 0x91 && mode <= 0x95:
	default: // event waits need other streams (the control-plane issue)
		return false, fmt.Errorf("wait mode %s: %w", isa.WaitMode.Format(mode), ErrUnsupported)
	}
	s, t := int64(w.st.Mem.Sems[idx&255]), w.threshold(mode, value)
	switch cmp {
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
var eventWaits = map[uint64]struct {
	set    bool // the state waited for
	toggle bool // flip the event once the wait holds
}{0x06: {true, false}, 0x07: {true, true}, 0x0e: {false, false}, 0x0f: {false, true}}

// Events evaluates a word's EVENTS (field-tables §2.2, §5.5, §5.6): an error
// when its wait does not hold (ErrBlocked), else the changes its update
// makes, which the executor reports with the word's other effects.
func Events(st State, in *isa.Inst) ([]Change, error) {
	w := newWord(st, in)
	mode, idx, value := w.u("events.wait_mode"), w.u("events.wait_idx"), w.u("events.semaphore_value")
	if ev, ok := eventWaits[mode]; ok {
		if st.Mem.Events[idx&255] != ev.set {
			return nil, w.fault(-1, "events.wait_mode", fmt.Errorf("%s on event %d = %v: %w",
				isa.WaitMode.Format(mode), idx, st.Mem.Events[idx&255], ErrBlocked))
		}
		ds, err := w.update()
		if ev.toggle {
			ds = append(ds, Change{Mem: st.Mem, Idx: int(idx & 255), Event: true, Set: true, Value: int32(b2i(!ev.set))})
		}
		return ds, err
	}
	ok, err := w.waitHolds(mode, idx, value)
	if err != nil {
		return nil, w.fault(-1, "events.wait_mode", err)
	}
	if !ok {
		return nil, w.fault(-1, "events.wait_mode", fmt.Errorf("%s on $S[%d] = %d, value %d: %w",
			isa.WaitMode.Format(mode), idx, st.Mem.Sems[idx&255], int32(value), ErrBlocked))
	}
	return w.update()
}

// update stages the EVENTS UPDATE_MODE (§5.6): INC, DEC, ADD/SUB/WR
// immediate or register. Without the +0x10 _COMPLETE bit the update lands
// "after the reads" — at issue on a clocked executor — unless it names the
// semaphore the word's completion moves (then both land at completion).
func (w *word) update() ([]Change, error) {
	mode, idx, value := w.u("events.update_mode"), int(w.u("events.update_idx")), w.u("events.semaphore_value")
	reg := int32(w.st.Regs[value&63])
	imm := int32(uint32(value))
	c := Change{Mem: w.st.Mem, Idx: idx}
	switch mode &^ 0x10 {
	case 0x00:
		return nil, nil
	case 0x03:
		c.Add = 1
	case 0x04:
		c.Add = -1
	case 0x05:
		c.Add = imm
	case 0x07:
		c.Add = -imm
	case 0x09:
		c.Set, c.Value = true, imm
	case 0x85:
		c.Add = reg
	case 0x87:
		c.Add = -reg
	case 0x89:
		c.Set, c.Value = true, reg
	default:
		return nil, w.fault(-1, "events.update_mode", fmt.Errorf("update mode %s: %w", isa.UpdateMode.Format(mode), ErrUnsupported))
	}
	if mode&0x10 == 0 {
		c.AtIssue = true
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
	ok, err := w.waitHolds(w.u("wait_sema_mode"), w.u("wait_sema_idx"), w.u("wait_sema_value"))
	if err != nil {
		return w.fault(-1, "wait_sema_mode", err)
	}
	if !ok {
		return w.fault(-1, "wait_sema_mode", fmt.Errorf("$S[%d] = %d: %w", w.u("wait_sema_idx"), st.Mem.Sems[w.u("wait_sema_idx")&255], ErrBlocked))
	}
	return nil
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
