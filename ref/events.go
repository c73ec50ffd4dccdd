package ref

import (
	"fmt"

	"ndma/isa"
)

// EVENTS (field-tables §2.2, §5.5, §5.6) in a single stream: the wait must
// hold when the word issues — nothing else can move a semaphore — and the
// update applies when the word completes (reads and completion coincide).

// semDelta is a staged semaphore change, applied only if the word succeeds.
type semDelta struct {
	idx    int
	add    int32
	set    bool
	value  int32
	remote bool // on the target core of a cross-core copy
	event  bool // an event (set = value != 0), not a semaphore
}

// threshold is the wait value of a mode: the immediate, a register, or (v5)
// register + 24-bit offset (INFERRED layouts, RATIONALE.md).
func (w *word) threshold(mode, value uint64) int64 {
	switch {
	case mode >= 0x81 && mode <= 0x85:
		return int64(int32(w.x.Regs[value&63]))
	case mode >= 0x91 && mode <= 0x95:
		return int64(int32(w.x.Regs[value&0xff&63])) + int64(value>>8)
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
	s, t := int64(w.x.Mem.Sems[idx]), w.threshold(mode, value)
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

// events checks the EVENTS wait and stages its update.
func (w *word) events() ([]semDelta, error) {
	mode, idx, value := w.u("events.wait_mode"), w.u("events.wait_idx"), w.u("events.semaphore_value")
	if ev, ok := eventWaits[mode]; ok {
		if w.x.Mem.Events[idx&255] != ev.set {
			return nil, w.fault(-1, "events.wait_mode", fmt.Errorf("%s on event %d = %v: %w",
				isa.WaitMode.Format(mode), idx, w.x.Mem.Events[idx&255], ErrBlocked))
		}
		ds, err := w.update(w.u("events.update_mode"), int(w.u("events.update_idx")), value)
		if ev.toggle {
			ds = append(ds, semDelta{idx: int(idx & 255), event: true, set: true, value: int32(b2i(!ev.set))})
		}
		return ds, err
	}
	ok, err := w.waitHolds(mode, idx, value)
	if err != nil {
		return nil, w.fault(-1, "events.wait_mode", err)
	}
	if !ok {
		return nil, w.fault(-1, "events.wait_mode", fmt.Errorf("%s on $S[%d] = %d, value %d: %w",
			isa.WaitMode.Format(mode), idx, w.x.Mem.Sems[idx], int32(value), ErrBlocked))
	}
	return w.update(w.u("events.update_mode"), int(w.u("events.update_idx")), value)
}

// update stages an UPDATE_MODE (§5.6): INC, DEC, ADD/SUB/WR immediate or register.
func (w *word) update(mode uint64, idx int, value uint64) ([]semDelta, error) {
	reg := int32(w.x.Regs[value&63])
	imm := int32(uint32(value))
	switch mode &^ 0x10 { // _READ and _COMPLETE coincide in one stream
	case 0x00:
		return nil, nil
	case 0x03:
		return []semDelta{{idx: idx, add: 1}}, nil
	case 0x04:
		return []semDelta{{idx: idx, add: -1}}, nil
	case 0x05:
		return []semDelta{{idx: idx, add: imm}}, nil
	case 0x07:
		return []semDelta{{idx: idx, add: -imm}}, nil
	case 0x09:
		return []semDelta{{idx: idx, set: true, value: imm}}, nil
	case 0x85:
		return []semDelta{{idx: idx, add: reg}}, nil
	case 0x87:
		return []semDelta{{idx: idx, add: -reg}}, nil
	case 0x89:
		return []semDelta{{idx: idx, set: true, value: reg}}, nil
	}
	return nil, w.fault(-1, "events.update_mode", fmt.Errorf("update mode %s: %w", isa.UpdateMode.Format(mode), ErrUnsupported))
}

// apply commits staged semaphore changes (semaphores are signed 32-bit, §11.6).
func (w *word) apply(ds []semDelta) {
	for _, d := range ds {
		if d.event {
			w.x.Mem.Events[d.idx] = d.value != 0
			continue
		}
		if d.set {
			w.x.Mem.Sems[d.idx] = d.value
		} else {
			w.x.Mem.Sems[d.idx] += d.add
		}
	}
}

// Events evaluates a word's EVENTS on machine x (field-tables §2.2, §5.5,
// §5.6): an error when its wait does not hold, else the function that
// applies its update when the word completes. The descriptor engines share
// it: EVENTS are the word's control, not its data movement.
func Events(x *Machine, in *isa.Inst) (apply func(), err error) {
	w := &word{x: x, in: in, name: in.Def().Mnemonic()}
	ds, err := w.events()
	if err != nil {
		return nil, err
	}
	return func() { w.apply(ds) }, nil
}

// WaitSema evaluates the v5 words' wait_sema_mode / wait_sema_idx /
// wait_sema_value (DMA_MEMCPY2, DMA_IMMEDIATE): an error unless it holds now.
func WaitSema(x *Machine, in *isa.Inst) error {
	w := &word{x: x, in: in, name: in.Def().Mnemonic()}
	ok, err := w.waitHolds(w.u("wait_sema_mode"), w.u("wait_sema_idx"), w.u("wait_sema_value"))
	if err != nil {
		return w.fault(-1, "wait_sema_mode", err)
	}
	if !ok {
		return w.fault(-1, "wait_sema_mode", fmt.Errorf("$S[%d] = %d: %w", w.u("wait_sema_idx"), w.x.Mem.Sems[w.u("wait_sema_idx")&255], ErrBlocked))
	}
	return nil
}
