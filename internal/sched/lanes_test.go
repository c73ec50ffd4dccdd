package sched

import (
	"fmt"
	"strings"
	"testing"
)

// laneCount lets the race check skip its scan only when every pending
// completion is a compute end or a DMA of the issuing word's own stream on
// its own one engine — never when another stream, another engine, or a
// multi-engine DMA is in flight.
func TestLaneCountSkipsOnlyOwnLane(t *testing.T) {
	dma := func(stream int, qs ...int) *completion { return &completion{stream: stream, queues: qs} }
	comp := &completion{compute: true}
	for _, tc := range []struct {
		name    string
		pending []*completion
		issuing *completion
		skip    bool
	}{
		{"nothing in flight", nil, dma(0, 1), true},
		{"own lane only", []*completion{dma(0, 1), dma(0, 1), comp}, dma(0, 1), true},
		{"another engine", []*completion{dma(0, 1), dma(0, 2)}, dma(0, 1), false},
		{"another stream", []*completion{dma(0, 1), dma(1, 1)}, dma(0, 1), false},
		{"a two-engine DMA in flight", []*completion{dma(0, 1, 2)}, dma(0, 1), false},
		{"a two-engine DMA issuing", []*completion{dma(0, 1)}, dma(0, 1, 2), false},
		{"only compute ends", []*completion{comp, comp}, dma(0, 1, 2), true},
	} {
		var l laneCount
		for _, c := range tc.pending {
			l.add(c, 1)
		}
		if got := l.all(tc.issuing, len(tc.pending)); got != tc.skip {
			t.Errorf("%s: skip %v, want %v", tc.name, got, tc.skip)
		}
		for _, c := range tc.pending { // and they leave as they came
			l.add(c, -1)
		}
		if !l.all(tc.issuing, 0) || l.compute != 0 {
			t.Errorf("%s: counts left %+v", tc.name, l)
		}
	}
}

// copies are n 64-byte HBM copies from base, each to the 64 bytes after
// its source: no two touch the same bytes.
func copies(n, base int) string {
	var b strings.Builder
	for k := range n {
		fmt.Fprintf(&b, "dmamemcpy in_dtype=u8, out_dtype=u8, src_start_addr=hbm:%#x, src_step_elem=[1, 64], src_num_elem=[64, 1], src_elem_size=1, dst_start_addr=hbm:%#x, dst_step_elem=[1, 64], dst_num_elem=[64, 1], dst_elem_size=1\n", base+128*k, base+128*k+64)
	}
	return b.String()
}

// raceScans runs src on the engines and is its race check's scans; a
// warning or error fails t.
func raceScans(t *testing.T, src string) int64 {
	t.Helper()
	ss, _ := build(t, src, "sim")
	st, err := Run(ss, nil)
	if err != nil || len(st.Warnings) != 0 {
		t.Fatalf("%v %q", err, st.Warnings)
	}
	return st.RaceScans
}

// The race check's cost stays linear in the words (issue 30 M6: run
// --timeline on 64k words took 35.7 s, every word compared with every DMA
// in flight). n DMAs of one stream on one queue, all in flight together,
// order among themselves: no scan at all (before the lane skip: n(n−1)/2).
func TestRaceScansLinear(t *testing.T) {
	one := func(n int) string { return ".gen cayman\n.engine pool\n" + copies(n, 0) }
	for _, n := range []int{500, 2000} {
		if got := raceScans(t, one(n)); got != 0 {
			t.Errorf("one stream of %d copies: %d scans, want 0 (its DMAs are ordered on its queue)", n, got)
		}
	}
}

// Two streams of independent copies, each on its own queue, all in flight
// together: each word is compared only with the DMAs in flight near its
// bytes (spanIndex), so the scans grow with the words, not their square
// (2,000 copies each once cost 8 million).
func TestRaceScansTwoStreams(t *testing.T) {
	scans := func(n int) int64 {
		return raceScans(t, ".gen cayman\n.engine pool\n"+copies(n, 0)+".engine act\n"+copies(n, 0x10000000))
	}
	a, b := scans(1000), scans(2000)
	if float64(b) > 2.2*float64(a)+1000 {
		t.Errorf("%d scans for 1,000 copies a stream, %d for 2,000: want linear", a, b)
	}
	t.Logf("%d scans for 1,000 copies a stream, %d for 2,000", a, b)
}
