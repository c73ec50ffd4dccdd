package sched

import (
	"reflect"
	"strings"
	"testing"

	"ndma/internal/control"
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
