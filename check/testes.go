package check

import (
	"fmt"
	"strings"

	"ndma/isa"
)

// CTRL_TEST_ES 0xb4 — source document 000 §3f, field-tables §3.10.

func (c *checker) testES() {
	v, _ := c.in.TestES()
	enumOn(c, pTestESMode, "mode", v.Mode())
	n := v.NumEvtSem()
	if n < 1 || n > 16 {
		c.failf(pNumEvtSem, "num_evt_sem", fmt.Sprint(n), "must be 1..16")
	}
	ut := v.UpdateType()
	if name := isa.UpdateMode().NameFor(uint64(ut), c.gen); name == "" || name == "INVALID" {
		c.failf(pTestESUpdateType, "update_type", ut.String(), "not an UPDATE_MODE value")
	} else if strings.Contains(name, "_IMM_") {
		c.failf(pTestESUpdateType, "update_type", name, "immediate update modes are illegal here: the value comes from the register")
	}
	seen := map[uint64]int{}
	for k := 0; k < 16; k++ {
		id, reg := v.EvtSemIDs(k), v.ValueRegisters(k)
		if uint64(k) >= n {
			if id != 0 || reg != 0 {
				c.fail(pUnusedSlots, fmt.Sprintf("evt_sem_ids[%d]", k), fmt.Sprintf("%d (register %d)", id, reg), fmt.Sprintf("slots past num_evt_sem = %d must be 0", n))
			}
			continue
		}
		if j, dup := seen[id]; dup {
			c.fail(pUniqueIDs, fmt.Sprintf("evt_sem_ids[%d]", k), fmt.Sprint(id), fmt.Sprintf("already used by evt_sem_ids[%d]: ids must be unique", j))
		}
		seen[id] = k
		if reg >= regCount {
			c.fail(pValueRegs, fmt.Sprintf("value_registers[%d]", k), fmt.Sprint(reg), "a register number: 0..63")
		}
	}
}
