package ref

import (
	"errors"
	"fmt"
	"testing"

	"ndma/isa"
)

const tinyCopy = `src_start_addr=0x0, src_step_elem=[4, 0], src_num_elem=[1, 1], src_elem_size=4, dst_start_addr=0x10,
  dst_step_elem=[4, 0], dst_num_elem=[1, 1], dst_elem_size=4, in_dtype=u32, out_dtype=u32`

// Every wait mode of field-tables §5.5 against a semaphore of 5: holds or
// blocks as the comparison says (register thresholds read r7 = 5, the v5
// register+offset ones r7 + (value >> 8)).
func TestWaitModes(t *testing.T) {
	tests := []struct {
		gen   isa.Gen
		mode  string
		value int64
		holds bool
	}{
		{isa.Cayman, "NONE", 0, true},
		{isa.Cayman, "WAIT_FOR_SEM_EQ_IMM", 5, true}, {isa.Cayman, "WAIT_FOR_SEM_EQ_IMM", 4, false},
		{isa.Cayman, "WAIT_FOR_SEM_LT_IMM", 6, true}, {isa.Cayman, "WAIT_FOR_SEM_LT_IMM", 5, false},
		{isa.Cayman, "WAIT_FOR_SEM_LE_IMM", 5, true}, {isa.Cayman, "WAIT_FOR_SEM_LE_IMM", 4, false},
		{isa.Cayman, "WAIT_FOR_SEM_GT_IMM", 4, true}, {isa.Cayman, "WAIT_FOR_SEM_GT_IMM", 5, false}, // strictly greater
		{isa.Cayman, "WAIT_FOR_SEM_GE_IMM", 5, true}, {isa.Cayman, "WAIT_FOR_SEM_GE_IMM", 6, false},
		{isa.Cayman, "WAIT_FOR_SEM_EQ_REG", 7, true}, // r7 = 5
		{isa.Cayman, "WAIT_FOR_SEM_LT_REG", 7, false},
		{isa.Cayman, "WAIT_FOR_SEM_GE_REG", 7, true},
		{isa.Maverick, "WAIT_FOR_SEM_EQ_REG_OFFSET", 7, true},         // r7 + 0
		{isa.Maverick, "WAIT_FOR_SEM_GT_REG_OFFSET", 7 | 1<<8, false}, // 5 > 6?
		{isa.Maverick, "WAIT_FOR_SEM_LE_REG_OFFSET", 7 | 1<<8, true},  // 5 ≤ 6
		{isa.Maverick, "UNORDERED", 0, true},
	}
	for _, tc := range tests {
		x := New(tc.gen)
		x.Mem.Sems[4], x.Regs[7] = 5, 5
		in := asmWord(t, tc.gen, fmt.Sprintf("dmamemcpy wait_mode=%s, wait_idx=4, semaphore_value=%d, %s", tc.mode, tc.value, tinyCopy))
		err := x.Exec(in)
		if tc.holds && err != nil || !tc.holds && !errors.Is(err, ErrBlocked) {
			t.Errorf("%s value %#x on $S[4] = 5: %v, want holds %v", tc.mode, tc.value, err, tc.holds)
		}
	}
}

// Every update mode of field-tables §5.6 on a semaphore of 10 (value 3, r3 = 4).
func TestUpdateModes(t *testing.T) {
	tests := []struct {
		mode string
		want int32
	}{
		{"NONE", 10},
		{"SEM_INC_READ", 11}, {"SEM_INC_COMPLETE", 11},
		{"SEM_DEC_READ", 9}, {"SEM_DEC_COMPLETE", 9},
		{"SEM_ADD_IMM_READ", 13}, {"SEM_ADD_IMM_COMPLETE", 13},
		{"SEM_SUB_IMM_READ", 7}, {"SEM_SUB_IMM_COMPLETE", 7},
		{"SEM_WR_IMM_READ", 3}, {"SEM_WR_IMM_COMPLETE", 3},
		{"SEM_ADD_REG_READ", 14}, {"SEM_ADD_REG_COMPLETE", 14}, // + r3
		{"SEM_SUB_REG_READ", 6}, {"SEM_SUB_REG_COMPLETE", 6},
		{"SEM_WR_REG_READ", 4}, {"SEM_WR_REG_COMPLETE", 4},
	}
	for _, tc := range tests {
		x := New(isa.Cayman)
		x.Mem.Sems[8], x.Regs[3] = 10, 4
		in := asmWord(t, isa.Cayman, fmt.Sprintf("dmamemcpy update_mode=%s, update_idx=8, semaphore_value=3, %s", tc.mode, tinyCopy))
		if err := x.Exec(in); err != nil {
			t.Errorf("%s: %v", tc.mode, err)
			continue
		}
		if x.Mem.Sems[8] != tc.want {
			t.Errorf("%s: $S[8] = %d, want %d", tc.mode, x.Mem.Sems[8], tc.want)
		}
	}
}
