package control

import (
	"errors"
	"ndma/internal/testutil"
	"testing"

	"ndma/isa"
	"ndma/mem"
)

// word assembles one line of text for gen.
func asmWord(t *testing.T, gen, text string) *isa.Inst {
	g, err := isa.ParseGen(gen)
	if err != nil {
		t.Fatal(err)
	}
	return testutil.Word(t, g, text)
}

const copy16 = `src_start_addr=hbm:0x0, src_step_elem=[4, 0], src_num_elem=[4, 1], src_elem_size=4,
    dst_start_addr=sbuf:0:0x0, dst_step_elem=[4, 0], dst_num_elem=[4, 1], dst_elem_size=4, in_dtype=u32, out_dtype=u32`

// Events stages the update without applying it, and says when it lands
// (field-tables §5.6): without the +0x10 _COMPLETE bit after the reads (at
// issue), with it at completion — and at completion too when it names the
// semaphore the word's completion moves.
func TestEventsStagesAndTimes(t *testing.T) {
	m := mem.New(isa.Cayman)
	var regs [64]uint32
	st := State{Mem: m, Regs: &regs}
	for _, tc := range []struct {
		text    string
		want    Change
		atIssue bool
	}{
		{"dmamemcpy update_mode=SEM_INC_READ, update_idx=7, semaphore=2, " + copy16, Change{Mem: m, Idx: 7, Add: 1}, true},
		{"dmamemcpy update_mode=SEM_INC_COMPLETE, update_idx=7, semaphore=2, " + copy16, Change{Mem: m, Idx: 7, Add: 1}, false},
		{"dmamemcpy update_mode=SEM_INC_READ, update_idx=2, semaphore=2, " + copy16, Change{Mem: m, Idx: 2, Add: 1}, false},
		{"dmamemcpy update_mode=SEM_WR_IMM_COMPLETE, update_idx=9, semaphore_value=0xfffffffd, semaphore=2, " + copy16, Change{Mem: m, Idx: 9, Set: true, Value: -3}, false},
	} {
		cs, err := Events(st, asmWord(t, "cayman", tc.text))
		if err != nil {
			t.Fatalf("%s: %v", tc.text, err)
		}
		tc.want.AtIssue = tc.atIssue
		if len(cs) != 1 || cs[0] != tc.want {
			t.Errorf("%s:\n got %+v\nwant %+v", tc.text, cs, tc.want)
		}
		if m.Sems != [256]int32{} {
			t.Fatalf("%s: Events applied its update: %v", tc.text, m.Sems[:10])
		}
	}
	// a wait that does not hold: ErrBlocked, no change
	in := asmWord(t, "cayman", "dmamemcpy wait_mode=WAIT_FOR_SEM_GE_IMM, wait_idx=3, semaphore_value=2, update_mode=SEM_INC_READ, update_idx=7, "+copy16)
	m.Sems[3] = 1
	if cs, err := Events(st, in); !errors.Is(err, ErrBlocked) || cs != nil {
		t.Fatalf("blocked wait: %v, %v", cs, err)
	}
	m.Sems[3] = 2
	if cs, err := Events(st, in); err != nil || len(cs) != 1 {
		t.Fatalf("holding wait: %v, %v", cs, err)
	}
}

// TEST_EVENT_SEM (000 §8f): COND_UPDATE_SEM over $S[10..12] with threshold 1
// decrements the two at or above it and counts them in r20/r22 — computed
// here by hand — returned as changes; the memory is untouched until they
// apply, the registers are the word's own and updated.
func TestTestEventSemReturnsChanges(t *testing.T) {
	m := mem.New(isa.Mariana)
	var regs [64]uint32
	m.Sems[10], m.Sems[11], m.Sems[12] = 3, 0, 1
	in := asmWord(t, "mariana", "test_event_sem mode=COND_UPDATE_SEM, update_type=SEM_DEC_COMPLETE, num_evt_sem=3, evt_sem_ids=[10, 11, 12], value_registers=[20, 21, 22], threshold=1")
	cs, err := TestEventSem(State{Mem: m, Regs: &regs}, in)
	if err != nil {
		t.Fatal(err)
	}
	if m.Sems[10] != 3 || m.Sems[12] != 1 {
		t.Fatal("TestEventSem changed memory before its changes applied")
	}
	if regs[20] != 1 || regs[21] != 0 || regs[22] != 1 {
		t.Fatalf("registers r20..r22 = %v, want [1 0 1]", regs[20:23])
	}
	e := Effect{Changes: cs}
	e.Apply()
	if m.Sems[10] != 2 || m.Sems[11] != 0 || m.Sems[12] != 0 {
		t.Fatalf("after the changes $S[10..12] = %v, want [2 0 0]", m.Sems[10:13])
	}
}

// IndexAddr is §11.5's layout: index j of C channels at partition j mod C,
// 4·(j div C) bytes on; on CAYMAN partitions are 256 KiB apart (§7).
func TestIndexAddr(t *testing.T) {
	const stride = 256 << 10
	for _, tc := range []struct {
		base uint64
		c, j int
		want uint64
	}{
		{0x100, 128, 0, 0x100},
		{0x100, 128, 5, 0x100 + 5*stride},
		{0x100, 128, 130, 0x100 + 2*stride + 4},
		{0x40, 16, 33, 0x40 + 1*stride + 8},
	} {
		if got := IndexAddr(stride, tc.base, tc.c, tc.j); got != tc.want {
			t.Errorf("IndexAddr(%#x, %d, %d) = %#x, want %#x", tc.base, tc.c, tc.j, got, tc.want)
		}
	}
}

// A CCI SEM_ADD that wraps a semaphore past 32 bits comes back marked, so
// the scheduler can warn (issue 15, L8); the value wraps as the hardware's.
func TestCCIWrapMarked(t *testing.T) {
	m := mem.New(isa.Maverick)
	var regs [64]uint32
	m.Sems[7] = 2147483647
	in := asmWord(t, "maverick", "compact_control_inst\n    sem_add 7, r1, 1")
	cs, err := CCI(State{Mem: m, Regs: &regs}, in, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 1 || !cs[0].Wrapped || cs[0].Value != -2147483648 || m.Sems[7] != 2147483647 {
		t.Fatalf("changes %+v, $S[7] = %d", cs, m.Sems[7])
	}
}
