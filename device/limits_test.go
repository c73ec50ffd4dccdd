package device_test

import (
	"testing"

	"ndma/internal/neffgen"
	"ndma/internal/sched"
	"ndma/isa"
)

// What limits hw-timing's vector add, worked by hand from its schedule
// (internal/cli's TestVectorAddTimingByHand: loads 1 and 3 end at 4758 and
// 7254 ns, the adds given 1.200 µs, an add's semaphore reaching Pool 36 ns
// after it ends (hw-timing §4.1: +37, +35), stores 0 and 1 end at 8672 and
// 11168, every stream's prologue 57 ns, a Pool trigger 45 ns, a NOP 22 ns):
//   - DVE, ready at 57, waits for load 1 until 4758 and, free at 5958, for
//     load 3 until 7254: 4701 + 1296 = 5997 ns, all on qSPIO0;
//   - Pool waits on the DVE's adds from 57 to 5994 and from 6039 to 8490
//     (8388 ns), then on its stores: 8535 → 8672 and 8694 → 11168 (2611);
//   - the critical path: SP until its last trigger's issue ends (457),
//     qSPIO0 to load 3's end, the DVE's second add, Pool's trigger, store 1,
//     the last NOP: 0 → 457 → 7254 → 8454 → 8535 → 11168 → 11190 (Pool's
//     segment holds the 36 ns its trigger waited for the add's semaphore).
//     Each stream opens with two words (PSEUDO_BRANCH_LABEL,
//     SET_ORDERING_MODE) then hw-timing §4.1's sequence, 64 bytes a word:
//     SP's six words 0x0–0x140, load block 3, the DVE's second add at
//     0xc0, Pool's second trigger at 0xc0, store block 1, its last NOP at
//     0x140. A segment's MovingNS is its first word's start: load 3's
//     first packet at 4701 and store 1's at 9260 (the hand schedule's
//     starts), the DVE's add at 7254 (its semaphore: no wake after a
//     DMA on trn2), Pool's trigger at 8490 (8454 + the 36-ns wake), the
//     NOP at 11168.
func TestLimitsByHand(t *testing.T) {
	st := runHW(t, isa.Cayman, neffgen.HWVectorAdd("cayman"), map[isa.Opcode]int64{0x41: 1200})
	lanes := map[string]sched.Lane{}
	for _, l := range st.Lanes {
		lanes[l.Name] = l
	}
	dve, pool := lanes["sg00 DVE"], lanes["sg00 POOL"]
	if dve.WaitNS != 5997 || dve.WaitOn["qSPIO0"] != 5997 || dve.BusyNS != 57+2400 {
		t.Errorf("DVE: wait %d on %v, busy %d; by hand 5997 on qSPIO0, busy 2457", dve.WaitNS, dve.WaitOn, dve.BusyNS)
	}
	if pool.WaitOn["sg00 DVE"] != 8388 || pool.WaitOn["qPoolIO0"] != 2611 {
		t.Errorf("POOL waits on %v; by hand DVE 8388, qPoolIO0 2611", pool.WaitOn)
	}
	if q := lanes["qPoolIO0"]; !q.Queue || q.Words != 2 || q.WaitOn["sg00 DVE"] <= 0 {
		t.Errorf("qPoolIO0: %+v; want 2 transfers waiting on the DVE", q)
	}
	want := []sched.Segment{
		{Lane: "sg00 SP", FromNS: 0, ToNS: 457, Words: 6, First: 0, Last: 0x140, MovingNS: 0},
		{Lane: "qSPIO0", FromNS: 457, ToNS: 7254, Words: 1, First: 3, Last: 3, Queue: true, MovingNS: 4701},
		{Lane: "sg00 DVE", FromNS: 7254, ToNS: 8454, Words: 1, First: 0xc0, Last: 0xc0, MovingNS: 7254},
		{Lane: "sg00 POOL", FromNS: 8454, ToNS: 8535, Words: 1, First: 0xc0, Last: 0xc0, MovingNS: 8490},
		{Lane: "qPoolIO0", FromNS: 8535, ToNS: 11168, Words: 1, First: 1, Last: 1, Queue: true, MovingNS: 9260},
		{Lane: "sg00 POOL", FromNS: 11168, ToNS: 11190, Words: 1, First: 0x140, Last: 0x140, MovingNS: 11168},
	}
	if len(st.Critical) != len(want) {
		t.Fatalf("critical path %+v, by hand %+v", st.Critical, want)
	}
	var sum int64
	for i, s := range st.Critical {
		if s != want[i] {
			t.Errorf("segment %d: %+v, by hand %+v", i, s, want[i])
		}
		sum += s.ToNS - s.FromNS
	}
	if sum != st.TimeNS {
		t.Errorf("the critical path covers %d ns of the kernel's %d", sum, st.TimeNS)
	}
}

// Inline DGE words on one queue run one after another (docs/sim.md "DMA
// time": words run one after another): three 0xd4 words Pool issues
// back to back on qPoolDynamic (neffgen.Inline) each start moving when the
// one before ends, and everything read off the run says so — the
// schedule's starts, the queue's busy time (the union of three windows
// end to end, nothing idle), the critical path (one queue segment naming
// the three words by offset, 0x0–0x80, from the first's start to the
// last's end), the timeline's DMA spans. Before, each started at its issue:
// the queue showed idle time and the path blamed the wrong lane.
func TestInlineWordsQueueInOrder(t *testing.T) {
	st := runHW(t, isa.Cayman, neffgen.Inline(3), nil)
	if len(st.Schedule) != 3 {
		t.Fatalf("%d transfers, want 3", len(st.Schedule))
	}
	first, last := st.Schedule[0], st.Schedule[2]
	for k, mv := range st.Schedule {
		if mv.Timed || mv.Queue != "qPoolDynamic" {
			t.Fatalf("transfer %d: %+v, want an inline word on qPoolDynamic", k, mv)
		}
		if k > 0 {
			if prev := st.Schedule[k-1]; mv.StartNS != prev.DueNS || mv.IssueNS >= prev.DueNS {
				t.Errorf("word %d issued %d starts %d; the word before ends %d: it should wait for it", k, mv.IssueNS, mv.StartNS, prev.DueNS)
			}
		}
	}
	var q sched.Lane
	for _, l := range st.Lanes {
		if l.Name == "qPoolDynamic" {
			q = l
		}
	}
	if q.BusyNS != last.DueNS-first.StartNS || q.WaitNS != 0 {
		t.Errorf("queue busy %d, waiting %d; want %d (%d → %d end to end), 0", q.BusyNS, q.WaitNS, last.DueNS-first.StartNS, first.StartNS, last.DueNS)
	}
	want := sched.Segment{Lane: "qPoolDynamic", FromNS: first.StartNS, ToNS: last.DueNS, Words: 3, First: 0, Last: 0x80, Queue: true, Inline: true, MovingNS: first.StartNS}
	var seg *sched.Segment
	for i := range st.Critical {
		if st.Critical[i].Queue {
			seg = &st.Critical[i]
		}
	}
	if seg == nil || *seg != want || seg.Span() != "inline DGE words 0x0–0x80 (3 words)" {
		t.Errorf("critical path %+v; want its queue segment %+v", st.Critical, want)
	}
}
