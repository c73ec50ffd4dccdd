package ref

import (
	"errors"
	"strings"
	"testing"

	"ndma/isa"
)

// TEST_EVENT_SEM against source document 000 §8f's pseudocode, by hand.
func TestTestEventSem(t *testing.T) {
	tes := func(fields string) *isa.Inst { return asmWord(t, isa.Mariana, "test_event_sem "+fields) }
	// COND_UPDATE_SEM, DEC, threshold 1, once: $S[10] 2 → 1 (r20 1), $S[11] 0 stays (r21 0), $S[12] 1 → 0 (r22 1)
	x := New(isa.Mariana)
	x.Mem.Sems[10], x.Mem.Sems[12] = 2, 1
	cond := "mode=COND_UPDATE_SEM, update_type=SEM_DEC_COMPLETE, num_evt_sem=3, evt_sem_ids=[10, 11, 12], value_registers=[20, 21, 22], threshold=1"
	if err := x.Exec(tes(cond)); err != nil {
		t.Fatal(err)
	}
	if s, r := x.Mem.Sems, x.Regs; s[10] != 1 || s[11] != 0 || s[12] != 0 || r[20] != 1 || r[21] != 0 || r[22] != 1 {
		t.Fatalf("once: $S %d %d %d, r %d %d %d", s[10], s[11], s[12], r[20], r[21], r[22])
	}
	// repeat_count 2 runs the loop 3 times: $S[10] 2 → 1 → 0, then 0 < 1 stops; r20 = 2
	x = New(isa.Mariana)
	x.Mem.Sems[10], x.Mem.Sems[12] = 2, 1
	if err := x.Exec(tes(cond + ", repeat_count=2")); err != nil {
		t.Fatal(err)
	}
	if s, r := x.Mem.Sems, x.Regs; s[10] != 0 || s[12] != 0 || r[20] != 2 || r[22] != 1 {
		t.Fatalf("repeat: $S %d %d, r %d %d", s[10], s[12], r[20], r[22])
	}
	// READ_SEM, READ_EVT
	x = New(isa.Mariana)
	x.Mem.Sems[10], x.Mem.Events[5] = -3, true
	x.Exec(tes("mode=READ_SEM, num_evt_sem=1, evt_sem_ids=[10], value_registers=[7]"))
	x.Exec(tes("mode=READ_EVT, num_evt_sem=2, evt_sem_ids=[5, 6], value_registers=[8, 9]"))
	if x.Regs[7] != 0xfffffffd || x.Regs[8] != 1 || x.Regs[9] != 0 {
		t.Fatalf("reads: r7 %#x r8 %d r9 %d", x.Regs[7], x.Regs[8], x.Regs[9])
	}
	// UPDATE_SEM with register forms, UPDATE_EVT
	x.Regs[1], x.Regs[2] = 7, 0
	x.Mem.Sems[20], x.Mem.Sems[21] = 1, 1
	x.Exec(tes("mode=UPDATE_SEM, update_type=SEM_ADD_REG_READ, num_evt_sem=1, evt_sem_ids=[20], value_registers=[1]"))
	x.Exec(tes("mode=UPDATE_SEM, update_type=SEM_WR_REG_READ, num_evt_sem=1, evt_sem_ids=[21], value_registers=[1]"))
	x.Exec(tes("mode=UPDATE_EVT, update_type=SEM_WR_REG_READ, num_evt_sem=2, evt_sem_ids=[5, 6], value_registers=[2, 1]"))
	if x.Mem.Sems[20] != 8 || x.Mem.Sems[21] != 7 || x.Mem.Events[5] || !x.Mem.Events[6] {
		t.Fatalf("updates: $S[20] %d $S[21] %d events %v %v", x.Mem.Sems[20], x.Mem.Sems[21], x.Mem.Events[5], x.Mem.Events[6])
	}
	// refusals change nothing
	for _, tc := range []struct{ fields, want string }{
		{"mode=UPDATE_SEM, update_type=SEM_ADD_IMM_READ, num_evt_sem=1, evt_sem_ids=[3], value_registers=[1]", "not allowed in TEST_EVENT_SEM"},
		{"mode=READ_SEM, num_evt_sem=2, evt_sem_ids=[3, 3], value_registers=[1, 2]", "id 3 repeats"},
		{"mode=READ_SEM, num_evt_sem=1, evt_sem_ids=[3], value_registers=[70]", "r70"},
		{"mode=READ_SEM, num_evt_sem=0", "0 ids"},
		{"mode=READ_SEM, num_evt_sem=1, evt_sem_ids=[3], value_registers=[1], wait_mode=WAIT_FOR_SEM_GE_IMM, wait_idx=9, semaphore_value=1", "the wait does not hold"},
	} {
		y := New(isa.Mariana)
		y.Mem.Sems[3] = 4
		before, regs := y.Mem.Snapshot(), y.Regs
		err := y.Exec(asmWord(t, isa.Mariana, "test_event_sem "+tc.fields))
		var f *Fault
		if !errors.As(err, &f) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.fields, err, tc.want)
		}
		if y.Regs != regs || len(y.Mem.Snapshot()) != len(before) || y.Mem.Sems[3] != 4 {
			t.Errorf("%s: a refused word changed state", tc.fields)
		}
	}
}
