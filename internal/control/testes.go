package control

import (
	"fmt"

	"ndma/isa"
)

// TestEventSem runs a TEST_EVENT_SEM (0xb4; field-tables §3.10, source
// document 000 §8f) as the pseudocode there does: for rep in
// 0..repeat_count, for each of the num_evt_sem (id, register) slots —
// READ_SEM / READ_EVT copy the semaphore / event into the register,
// UPDATE_SEM / UPDATE_EVT apply update_type with the register's value,
// COND_UPDATE_SEM does the update and increments the register when the
// semaphore ≥ threshold. The word's own EVENTS wait first and update last.
// Atomic: on an error nothing changed; on success the registers are
// updated and the semaphore and event changes are returned.
func TestEventSem(st State, in *isa.Inst) ([]Change, error) {
	w := newWord(st, in)
	v, ok := in.TestES()
	if !ok {
		return nil, w.fault(-1, "opcode", fmt.Errorf("%s is not a TEST_EVENT_SEM: %w", w.name, ErrUnsupported))
	}
	deltas, err := Events(st, in)
	if err != nil {
		return nil, err
	}
	mode, typ := v.Mode(), v.UpdateType()
	n := int(v.NumEvtSem())
	if n < 1 || n > 16 {
		return nil, w.fault(-1, "num_evt_sem", fmt.Errorf("%d ids: 1 to 16", n))
	}
	if mode > isa.TestEvtSemModeCondUpdateSem {
		return nil, w.fault(-1, "mode", fmt.Errorf("TEST_EVT_SEM_MODE %d: %w", mode, ErrUnsupported))
	}
	ids, regs := make([]uint64, n), make([]uint64, n)
	seen := map[uint64]bool{}
	for k := range ids {
		ids[k], regs[k] = v.EvtSemIDs(k), v.ValueRegisters(k)
		if seen[ids[k]] {
			return nil, w.fault(k, "evt_sem_ids", fmt.Errorf("id %d repeats: ids are unique", ids[k]))
		}
		seen[ids[k]] = true
		if regs[k] >= 64 {
			return nil, w.fault(k, "value_registers", fmt.Errorf("register r%d: there are 64", regs[k]))
		}
	}
	if mode >= isa.TestEvtSemModeUpdateSem { // the update's form: INC, DEC or a register form (immediates are illegal, §3.10)
		switch typ &^ 0x10 {
		case isa.UpdateModeSemIncRead, isa.UpdateModeSemDecRead, isa.UpdateModeSemAddRegRead, isa.UpdateModeSemSubRegRead, isa.UpdateModeSemWrRegRead:
		default:
			return nil, w.fault(-1, "update_type", fmt.Errorf("%s is not allowed in TEST_EVENT_SEM (INC, DEC or a register form)", typ))
		}
	}
	// work on copies of the slots it names: nothing changes unless the word completes
	r := *st.Regs
	sems, evts := make([]int32, n), make([]bool, n)
	for k, id := range ids {
		sems[k], evts[k] = st.Mem.Sems[id&255], st.Mem.Events[id&255]
	}
	thr := int64(v.Threshold())
	for rep := 0; rep <= int(v.RepeatCount()); rep++ {
		for k := range ids {
			reg := regs[k]
			switch mode {
			case isa.TestEvtSemModeReadSem:
				r[reg] = uint32(sems[k])
			case isa.TestEvtSemModeReadEvt:
				r[reg] = uint32(b2i(evts[k]))
			case isa.TestEvtSemModeUpdateSem:
				sems[k] = updated(sems[k], typ, r[reg])
			case isa.TestEvtSemModeUpdateEvt: // events are one bit — non-zero sets, zero clears
				evts[k] = updated(int32(b2i(evts[k])), typ, r[reg]) != 0
			case isa.TestEvtSemModeCondUpdateSem:
				if int64(sems[k]) >= thr {
					sems[k] = updated(sems[k], typ, r[reg])
					r[reg]++
				}
			}
		}
	}
	*st.Regs = r
	var out []Change
	for k, id := range ids {
		if sems[k] != st.Mem.Sems[id&255] {
			out = append(out, Change{Mem: st.Mem, Idx: int(id & 255), Set: true, Value: sems[k]})
		}
		if evts[k] != st.Mem.Events[id&255] {
			out = append(out, Change{Mem: st.Mem, Idx: int(id & 255), Event: true, Set: true, Value: int32(b2i(evts[k]))})
		}
	}
	return append(out, deltas...), nil
}

// updated is a semaphore after an UPDATE_MODE with the register value v.
func updated(s int32, typ isa.UpdateModeCode, v uint32) int32 {
	switch typ &^ 0x10 {
	case isa.UpdateModeSemIncRead:
		return s + 1
	case isa.UpdateModeSemDecRead:
		return s - 1
	case isa.UpdateModeSemAddRegRead:
		return s + int32(v)
	case isa.UpdateModeSemSubRegRead:
		return s - int32(v)
	}
	return int32(v) // SEM_WR_REG: write
}
