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
	before := st.Mem.Sems
	wrapped, err := cci.RunWraps(in, st.Regs, st.Mem, maxSteps)
	if err != nil {
		return nil, err
	}
	var out []Change
	for k, v := range st.Mem.Sems {
		if v != before[k] || wrapped[k] {
			out = append(out, Change{Mem: st.Mem, Idx: k, Set: true, Value: v, Wrapped: wrapped[k]})
		}
	}
	st.Mem.Sems = before
	return out, nil
}
