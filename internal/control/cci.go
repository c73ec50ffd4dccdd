package control

import (
	"ndma/internal/cci"
	"ndma/isa"
)

// CCI runs a COMPACT_CONTROL_INST's bytecode (package cci) on the state's
// registers and memory: control, the same under both executors. Its
// semaphore writes come back as changes (the scheduler applies them) and
// the memory's semaphores are as before; registers and bytes it stores are
// written. The error is cci's own, for the executor to name.
func CCI(st State, in *isa.Inst, maxSteps int) ([]Change, error) {
	var o cci.Outcome // the word's semaphores beside the memory's, never copied into it and back
	if err := cci.RunOutcome(in, st.Regs, st.Mem, maxSteps, &o); err != nil {
		return nil, err
	}
	var out []Change
	for k, v := range o.Sems {
		if v != st.Mem.Sems[k] || o.Wrapped[k] {
			out = append(out, Change{Mem: st.Mem, Idx: k, Set: true, Value: v, Wrapped: o.Wrapped[k]})
		}
	}
	return out, nil
}
