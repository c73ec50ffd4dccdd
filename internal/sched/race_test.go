package sched

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"ndma/internal/control"
	"ndma/internal/testutil"
	"ndma/isa"
	"ndma/mem"
)

// H1: POOL waits for ACT's DMA, then copies hbm 0x2000 on; DVE, ordered by
// nothing, writes hbm 0x2000 meanwhile. On the engines DVE's DMA is still in
// flight when POOL's issues and reads its bytes: a race (ref, which lands
// ACT's semaphore at issue, reads zeros; the engines read DVE's bytes). It
// was reported by nothing: only two in-flight writes of the same bytes were.
const readRace = `.gen cayman
.engine act
dmamemcpy semaphore=1, sem_increment=1, in_dtype=u8, out_dtype=u8,
  src_start_addr=hbm:0x0, src_step_elem=[1, 64], src_num_elem=[64, 1], src_elem_size=1,
  dst_start_addr=hbm:0x1000, dst_step_elem=[1, 64], dst_num_elem=[64, 1], dst_elem_size=1
.engine pool
dmamemcpy wait_mode=WAIT_FOR_SEM_GE_IMM, wait_idx=1, semaphore_value=1, in_dtype=u8, out_dtype=u8,
  src_start_addr=hbm:0x2000, src_step_elem=[1, 64], src_num_elem=[64, 1], src_elem_size=1,
  dst_start_addr=hbm:0x3000, dst_step_elem=[1, 64], dst_num_elem=[64, 1], dst_elem_size=1
.engine dve
dmamemcpy in_dtype=u8, out_dtype=u8,
  src_start_addr=hbm:0x0, src_step_elem=[1, 64], src_num_elem=[64, 1], src_elem_size=1,
  dst_start_addr=hbm:0x2000, dst_step_elem=[1, 64], dst_num_elem=[64, 1], dst_elem_size=1
`

func TestReadWhileWriteInFlight(t *testing.T) {
	ss, _ := build(t, readRace, "sim")
	st, err := Run(ss, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := "race: pool offset 0x0 (DMAMEMCPY) reads 64 bytes at hbm:0x2000..hbm:0x203f that dve offset 0x0 (DMAMEMCPY), in flight, writes"
	if len(st.Warnings) != 1 || !strings.EqualFold(st.Warnings[0], want) {
		t.Fatalf("warnings %q, want [%q]", st.Warnings, want)
	}
}

// A DMA in flight reads hbm 0x0; another stream, ordered by nothing, writes
// there: a race naming the writer, then the reader. With the reader
// signalling after its reads (SEM_INC_READ, §5.6: it lands at issue) and the
// writer waiting for it, the write is ordered after the reads: no warning.
func TestWriteWhileReadInFlight(t *testing.T) {
	reader := func(update string) string {
		return ".engine act\ndmamemcpy " + update + "semaphore=1, sem_increment=1, in_dtype=u8, out_dtype=u8, " +
			"src_start_addr=hbm:0x0, src_num_elem=[1, 1], src_elem_size=64, dst_start_addr=hbm:0x1000, dst_num_elem=[1, 1], dst_elem_size=64\n"
	}
	writer := func(wait string) string {
		return ".engine pool\ndmamemcpy " + wait + "semaphore=2, sem_increment=1, in_dtype=u8, out_dtype=u8, " +
			"src_start_addr=hbm:0x2000, src_num_elem=[1, 1], src_elem_size=16, dst_start_addr=hbm:0x20, dst_num_elem=[1, 1], dst_elem_size=16\n"
	}
	ss, _ := build(t, ".gen cayman\n"+reader("")+writer(""), "sim")
	st, err := Run(ss, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := "race: POOL offset 0x0 (DMAMEMCPY) writes 16 bytes at hbm:0x20..hbm:0x2f that ACT offset 0x0 (DMAMEMCPY), in flight, reads"
	if len(st.Warnings) != 1 || !strings.EqualFold(st.Warnings[0], want) {
		t.Fatalf("warnings %q, want [%q]", st.Warnings, want)
	}
	ordered := ".gen cayman\n" + reader("update_mode=SEM_INC_READ, update_idx=8, ") + writer("wait_mode=WAIT_FOR_SEM_GE_IMM, wait_idx=8, semaphore_value=1, ")
	ss, _ = build(t, ordered, "sim")
	if st, err := Run(ss, nil); err != nil || len(st.Warnings) != 0 {
		t.Fatalf("a write ordered after the reads: %v, warnings %q", err, st.Warnings)
	}
	// ordered after the reader's completion (its $S[1]): no warning either
	ss, _ = build(t, ".gen cayman\n"+reader("")+writer("wait_mode=WAIT_FOR_SEM_GE_IMM, wait_idx=1, semaphore_value=1, "), "sim")
	if st, err := Run(ss, nil); err != nil || len(st.Warnings) != 0 {
		t.Fatalf("a write ordered after the reader's completion: %v, warnings %q", err, st.Warnings)
	}
}

// A word done at issue (a TENSOR_LOAD, no DMA) reading bytes a DMA has in
// flight races it too; a stream's DMAs on one engine are ordered, but a
// word of no engine is not ordered by them.
func TestWordAtIssueRaces(t *testing.T) {
	m := mem.New(isa.Cayman)
	x := &scripted{m: m, effect: map[uint64]control.Effect{
		1: {CostNS: 1000, Queues: []int{0}, Writes: [][2]uint64{{0x1_0000_0100, 0x1_0000_0140}}},
		2: {Reads: [][2]uint64{{0x1_0000_0138, 0x1_0000_0148}}},
		3: {CostNS: 1000, Queues: []int{0}, Reads: [][2]uint64{{0x1_0000_0100, 0x1_0000_0108}}},
	}}
	s := &Stream{Name: "POOL", Steps: []Step{{Word: dma(1)}, {Offset: 64, Word: dma(2)}, {Offset: 128, Word: dma(3)}}, Exec: Words(x), Mem: m, Clocked: true}
	st, err := Run([]*Stream{s}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"race: POOL offset 0x40 (DMAMEMCPY) reads 8 bytes at hbm:0x138..hbm:0x13f that POOL offset 0x0 (DMAMEMCPY), in flight, writes"}
	if !reflect.DeepEqual(st.Warnings, want) {
		t.Fatalf("warnings %q, want %q", st.Warnings, want)
	}
}

// Races past the listed ones are counted per pair of words and per kind.
func TestReadRacesSummarised(t *testing.T) {
	m := mem.New(isa.Cayman)
	w := [][2]uint64{{0x1_0000_0100, 0x1_0000_0108}}
	x := &scripted{m: m, effect: map[uint64]control.Effect{
		1: {CostNS: 1_000_000, Queues: []int{0}, Writes: w},
		2: {CostNS: 1_000_000, Queues: []int{1}, Reads: w},
	}}
	var a, b []Step
	for k := 0; k < 10; k++ {
		a = append(a, Step{Offset: 64 * k, Word: dma(1)})
		b = append(b, Step{Offset: 64 * k, Word: dma(2)})
	}
	ss := []*Stream{{Name: "POOL", Steps: a, Exec: Words(x), Mem: m, Clocked: true}, {Name: "ACT", Steps: b, Exec: Words(x), Mem: m, Clocked: true}}
	st, err := Run(ss, nil)
	if err != nil {
		t.Fatal(err)
	}
	// A_k is in flight with B_0..B_{k-1} (they read what it writes), B_k with A_0..A_k: 45 + 55
	want := []string{
		"race: ACT (DMAMEMCPY, offsets 0x80..0x240) reads what in-flight POOL (DMAMEMCPY, offsets 0x0..0x240) writes, 50 more times",
		"race: POOL (DMAMEMCPY, offsets 0xc0..0x240) writes what in-flight ACT (DMAMEMCPY, offsets 0x0..0x200) reads, 42 more times",
		"races: 100 in all (8 listed above in full)",
	}
	if got := st.Warnings[maxRaceLines:]; !reflect.DeepEqual(got, want) {
		t.Fatalf("summary %q, want %q", got, want)
	}
}

// spans sorts and merges a word's spans; overlap counts the shared bytes
// of two span lists in one pass, above a floor.
func TestSpansOverlap(t *testing.T) {
	got := spans([][2]uint64{{40, 50}, {0, 10}, {5, 20}, {20, 22}, {30, 30}})
	if want := [][2]uint64{{0, 22}, {40, 50}}; !reflect.DeepEqual(got, want) {
		t.Fatalf("spans %v, want %v", got, want)
	}
	in := [][2]uint64{{0, 4}, {8, 12}}
	if got := spans(in); &got[0] != &in[0] {
		t.Fatal("sorted spans were copied")
	}
	o, ok := overlap([][2]uint64{{0, 22}, {40, 50}}, [][2]uint64{{2, 3}, {21, 41}, {49, 60}}, 0)
	if !ok || o != (shared{lo: 2, last: 49, n: 4}) {
		t.Fatalf("overlap %+v %v", o, ok)
	}
	if o, ok := overlap([][2]uint64{{0, 22}, {40, 50}}, [][2]uint64{{2, 3}, {21, 41}, {49, 60}}, 45); !ok || o != (shared{lo: 49, last: 49, n: 1}) {
		t.Fatalf("overlap from 45 %+v %v", o, ok)
	}
	if _, ok := overlap([][2]uint64{{0, 4}}, [][2]uint64{{4, 8}}, 0); ok {
		t.Fatal("adjacent spans overlap")
	}
}

// span is a DMA's byte range in the race programs, offsets into HBM.
type span struct{ lo, n int }

func (a span) meets(b span) bool { return a.lo < b.lo+b.n && b.lo < a.lo+a.n }

// raceProgram is a random program of the reproducer's family: ACT copies
// A.src → A.dst and raises $S[1] at completion; POOL waits for it, then
// copies P.src → P.dst; DVE, ordered by nothing, copies D.src → D.dst from
// the start, a DMA so much longer than ACT's that it is still in flight
// when POOL's issues. The streams come in a random order. Every range lies
// in one of a few slots of HBM, so they meet often: D's write against A's
// or P's reads or writes, D's read against their writes.
func raceProgram(r *rand.Rand) (src string, a, p, d [2]span) {
	slot := func(n int) span { return span{0x400*r.IntN(6) + 8*r.IntN(0x400/8-n/8+1), n} }
	small := func() int { return 8 * (1 + r.IntN(16)) }
	n := small()
	a = [2]span{slot(n), slot(n)}
	n = small()
	p = [2]span{slot(n), slot(n)}
	d = [2]span{slot(0x400), slot(0x400)} // 1 KiB: ~45 ns longer than ACT's at most 128 bytes
	cp := func(wait, sem string, l [2]span) string {
		return fmt.Sprintf("dmamemcpy %s%sin_dtype=u8, out_dtype=u8, src_start_addr=hbm:%#x, src_step_elem=[1, %d], src_num_elem=[%d, 1], src_elem_size=1, dst_start_addr=hbm:%#x, dst_step_elem=[1, %d], dst_num_elem=[%d, 1], dst_elem_size=1\n",
			wait, sem, l[0].lo, l[0].n, l[0].n, l[1].lo, l[1].n, l[1].n)
	}
	streams := []string{
		".engine act\n" + cp("", "semaphore=1, sem_increment=1, ", a),
		".engine pool\n" + cp("wait_mode=WAIT_FOR_SEM_GE_IMM, wait_idx=1, semaphore_value=1, ", "", p),
		".engine dve\n" + cp("", "", d),
	}
	r.Shuffle(3, func(i, j int) { streams[i], streams[j] = streams[j], streams[i] })
	return ".gen cayman\n" + strings.Join(streams, ""), a, p, d
}

// raceBoth runs a race program on ref and on the engines. The engines warn
// exactly when DVE's DMA meets ACT's or POOL's with a write on either side
// (both of those issue while it is in flight), naming DVE's word; where
// they do not warn, ref and the engines leave the same memory.
func raceBoth(t *testing.T, r *rand.Rand) {
	src, a, p, d := raceProgram(r)
	racy := false
	for _, o := range [][2]span{a, p} { // D against a DMA in flight with it: write/write, write/read, read/write
		racy = racy || d[1].meets(o[1]) || d[1].meets(o[0]) || d[0].meets(o[1])
	}
	var snaps [2]map[string][]byte
	var warnings []string
	for i, e := range []string{"ref", "sim"} {
		ss, m := build(t, src, e)
		data := make([]byte, 0x1800)
		for j := range data {
			data[j] = byte(j*13 + 7)
		}
		m.Write(0x1_0000_0000, data)
		st, err := Run(ss, nil)
		if err != nil {
			t.Fatalf("%s: %v\n%s", e, err, src)
		}
		if e == "ref" && len(st.Warnings) != 0 {
			t.Fatalf("ref (no clock) warned: %q\n%s", st.Warnings, src)
		}
		snaps[i], warnings = m.Snapshot(), st.Warnings
	}
	if racy != (len(warnings) > 0) {
		t.Fatalf("racy %v, warnings %q\n%s", racy, warnings, src)
	}
	for _, w := range warnings {
		if !strings.Contains(w, "DVE offset 0x0 (DMAMEMCPY)") {
			t.Fatalf("a warning not naming DVE's word: %q\n%s", w, src)
		}
	}
	if !racy && !reflect.DeepEqual(snaps[0], snaps[1]) {
		t.Fatalf("no race, yet ref and the engines differ\n%s", src)
	}
}

func TestRaceProgramsWarned(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	for range testutil.Trials(200) {
		raceBoth(t, r)
	}
}

// FuzzRaceWarned: raceBoth over fuzzer-chosen seeds.
func FuzzRaceWarned(f *testing.F) {
	f.Add(uint64(1), uint64(2))
	f.Fuzz(func(t *testing.T, s1, s2 uint64) {
		raceBoth(t, rand.New(rand.NewPCG(s1, s2)))
	})
}
