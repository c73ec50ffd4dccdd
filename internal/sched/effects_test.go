package sched

import (
	"errors"
	"strings"
	"testing"

	"ndma/internal/control"
	"ndma/isa"
	"ndma/mem"
)

// scripted is an executor whose effects are given per word (by its
// semaphore field): it reports them and applies nothing itself.
type scripted struct {
	m      *mem.Memory
	effect map[uint64]control.Effect
	block  map[uint64]bool
	issued []uint64
}

func (x *scripted) Issue(in *isa.Inst) (control.Effect, error) {
	k, _ := in.Uint("semaphore")
	if x.block[k] {
		return control.Effect{}, control.ErrBlocked
	}
	x.issued = append(x.issued, k)
	return x.effect[k], nil
}

func dma(sem uint64) isa.Inst {
	in := isa.New(isa.Cayman, isa.OpDMAMemcpy)
	in.SetUint("semaphore", sem)
	return in
}

// The scheduler lands what an executor reports: a clocked word's changes
// at its completion, its AtIssue and event changes at issue; an unclocked
// word's at once. Nothing moves a semaphore but the scheduler.
func TestEffectsLandWhenDue(t *testing.T) {
	m := mem.New(isa.Cayman)
	x := &scripted{m: m, effect: map[uint64]control.Effect{
		1: {CostNS: 500, Changes: []control.Change{{Mem: m, Idx: 1, Add: 16}, {Mem: m, Idx: 2, Add: 1, AtIssue: true}, {Mem: m, Idx: 3, Event: true, Set: true, Value: 1}}},
		2: {Changes: []control.Change{{Mem: m, Idx: 4, Set: true, Value: 7}}},
	}}
	var lines []string
	var seen [][3]int32
	probe := &probeExec{inner: x, m: m, seen: &seen}
	s := &Stream{Name: "POOL", Steps: []Step{{Offset: 0, Word: dma(1)}, {Offset: 0x40, Word: dma(2)}}, Exec: Words(probe), Mem: m, Clocked: true}
	st, err := Run([]*Stream{s}, func(l string) { lines = append(lines, l) })
	if err != nil {
		t.Fatal(err)
	}
	// when the second word issued (time 0), $S[2] and the event had landed, $S[1] not yet
	if len(seen) != 2 || seen[1] != [3]int32{0, 1, 1} {
		t.Fatalf("($S[1], $S[2], event 3) at each issue: %v, want the second [0 1 1]", seen)
	}
	if m.Sems[1] != 16 || m.Sems[2] != 1 || m.Sems[4] != 7 || !m.Events[3] || st.TimeNS != 500 {
		t.Fatalf("end: $S[1]=%d $S[2]=%d $S[4]=%d event3=%v time %d", m.Sems[1], m.Sems[2], m.Sems[4], m.Events[3], st.TimeNS)
	}
	if !strings.Contains(lines[0], "(completes at 0.500µs)") {
		t.Errorf("trace %q", lines[0])
	}
}

// probeExec records ($S[1], $S[2], event 3) as each word issues.
type probeExec struct {
	inner WordIssuer
	m     *mem.Memory
	seen  *[][3]int32
}

func (p *probeExec) Issue(in *isa.Inst) (control.Effect, error) {
	*p.seen = append(*p.seen, [3]int32{p.m.Sems[1], p.m.Sems[2], int32(b2i(p.m.Events[3]))})
	return p.inner.Issue(in)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// A step of several words (a fired trigger) waits only at its first: a
// refusal there is a turn passed; a later word's refusal, after the first
// ran, is a fault. A step that could not be resolved stops the run there.
func TestStepWords(t *testing.T) {
	m := mem.New(isa.Cayman)
	x := &scripted{m: m, block: map[uint64]bool{9: true}}
	s := &Stream{Name: "SP", Steps: []Step{{Offset: 0x80, Word: dma(5), Run: []isa.Inst{dma(5), dma(9)}}}, Exec: Words(x), Mem: m}
	_, err := Run([]*Stream{s}, nil)
	if err == nil || errors.Is(err, control.ErrBlocked) || !strings.Contains(err.Error(), "SP offset 0x80 (DMAMEMCPY): word 2 of 2 waits after the first ran") {
		t.Fatalf("err %v", err)
	}
	s = &Stream{Name: "SP", Steps: []Step{{Offset: 0, Word: dma(5)}, {Offset: 0x40, Word: dma(6), Err: errors.New("var 3 is not placed")}}, Exec: Words(x), Mem: m}
	x.issued = nil
	if _, err := Run([]*Stream{s}, nil); err == nil || err.Error() != "SP offset 0x40 (DMAMEMCPY): var 3 is not placed" || len(x.issued) != 1 {
		t.Fatalf("err %v, issued %v", err, x.issued)
	}
}

// Two streams of 1,000 DMAs all writing the same 8 bytes: round robin
// issues A0, B0, A1, B1, … with every DMA still in flight, so A_k races the
// k B DMAs before it and B_k the k+1 A DMAs: 1,000,000 races in all, worked
// out here. They are summarised — the first few in full, then counts per
// pair of words — not printed a million times.
func TestRacesSummarised(t *testing.T) {
	m := mem.New(isa.Cayman)
	w := [][2]uint64{{0x1_0000_0100, 0x1_0000_0108}}
	x := &scripted{m: m, effect: map[uint64]control.Effect{
		1: {CostNS: 1_000_000, Queues: []int{0}, Writes: w},
		2: {CostNS: 1_000_000, Queues: []int{1}, Writes: w},
	}}
	var a, b []Step
	for k := 0; k < 1000; k++ {
		a = append(a, Step{Offset: 64 * k, Word: dma(1)})
		b = append(b, Step{Offset: 64 * k, Word: dma(2)})
	}
	ss := []*Stream{{Name: "POOL", Steps: a, Exec: Words(x), Mem: m, Clocked: true}, {Name: "ACT", Steps: b, Exec: Words(x), Mem: m, Clocked: true}}
	lines := 0
	st, err := Run(ss, func(l string) {
		if strings.HasPrefix(l, "warning: ") {
			lines++
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if lines != maxRaceLines || len(st.Warnings) > 2*maxRaceLines+2 {
		t.Fatalf("%d warning lines traced, %d in Stats", lines, len(st.Warnings))
	}
	if last := st.Warnings[len(st.Warnings)-1]; last != "races: 1000000 in all (8 listed above in full)" {
		t.Fatalf("last line %q", last)
	}
}

// A semaphore pushed past the signed 32-bit range wraps, as the hardware's
// does (§11.6), and the run warns of it once (issue 15, L8).
func TestSemaphoreWrapWarns(t *testing.T) {
	m := mem.New(isa.Cayman)
	m.Sems[3] = 2147483600
	x := &scripted{m: m, effect: map[uint64]control.Effect{1: {Changes: []control.Change{{Mem: m, Idx: 3, Add: 100}}}}}
	s := &Stream{Name: "POOL", Steps: []Step{{Word: dma(1)}, {Offset: 64, Word: dma(1)}}, Exec: Words(x), Mem: m}
	st, err := Run([]*Stream{s}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := int32(-2147483648 + 2147483600 + 200 - 2147483648); m.Sems[3] != want {
		t.Fatalf("$S[3] = %d, want %d (wrapped)", m.Sems[3], want)
	}
	if len(st.Warnings) != 1 || !strings.HasPrefix(st.Warnings[0], "semaphore $S[3] of core 0 wraps: 2147483600 +100 by POOL offset 0x0") {
		t.Fatalf("warnings %q", st.Warnings)
	}
}
