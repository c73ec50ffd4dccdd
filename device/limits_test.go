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

// A NEFF's inline DGE words run on the packet-level model as fired blocks
// do (docs/sim.md "DMA time"), by hand: three 0xd4 words Pool issues at 0
// on qPoolDynamic (neffgen.Inline), each 128 rows of 512 B from contiguous
// HBM into SBUF, lowered over 16 DMA engines (8 rows an engine: one
// 4096-B stretch, one packet of 4096 + 4 semaphore bytes). Pool's DGE
// writes one word's descriptors at a time, 600 ns each (DGEWordNS), then a
// Pool-issued DMA's 770-ns latency: word k's engine 0 starts at 600·(k+1)
// + 770 = 1370, 1970, 2570, engine e 57·e later (HBM reads); a packet's
// data 8 + 4100 / 27.1 = 159 ns, its write done 450 after (the last of
// its engine's block): word k ends 1370 + 600·k + 855 + 159 + 450 = 2834,
// 3434, 4034. Word k + 1's packet on engine e starts after word k's data
// there (1529 + 57·e, before its own ready time: no wait). The queue is
// busy 1370 → 4034 (the windows overlap: 2664 ns); the critical path is
// the last word, issued at 0, moving from 2570.
func TestInlineWordsOnThePacketModel(t *testing.T) {
	st := runHW(t, isa.Cayman, neffgen.Inline(3), nil)
	if len(st.Schedule) != 3 {
		t.Fatalf("%d transfers, want 3", len(st.Schedule))
	}
	for k, mv := range st.Schedule {
		start, end := int64(1370+600*k), int64(2834+600*k)
		if !mv.Timed || mv.Transfer == nil || !mv.Transfer.Inline || mv.Block != -1 || mv.Queue != "qPoolDynamic" {
			t.Fatalf("transfer %d: %+v, want an inline word on qPoolDynamic, timed by the packet model", k, mv)
		}
		if mv.IssueNS != 0 || mv.StartNS != start || mv.DueNS != end || len(mv.Packets) != 16 || mv.Bytes != 16*4100 {
			t.Errorf("word %d: issued %d, %d–%d, %d packets, %d bytes; by hand 0, %d–%d, 16 of 4100", k, mv.IssueNS, mv.StartNS, mv.DueNS, len(mv.Packets), mv.Bytes, start, end)
		}
	}
	var q sched.Lane
	for _, l := range st.Lanes {
		if l.Name == "qPoolDynamic" {
			q = l
		}
	}
	if q.BusyNS != 4034-1370 || q.WaitNS != 0 {
		t.Errorf("queue busy %d, waiting %d; by hand 2664, 0", q.BusyNS, q.WaitNS)
	}
	want := sched.Segment{Lane: "qPoolDynamic", FromNS: 0, ToNS: 4034, Words: 1, First: 0x80, Last: 0x80, Queue: true, Inline: true, MovingNS: 2570}
	if n := len(st.Critical); n == 0 || st.Critical[n-1] != want || st.TimeNS != 4034 {
		t.Errorf("critical path %+v, kernel %d; want it to end in %+v, at 4034", st.Critical, st.TimeNS, want)
	}
}
