package sched

import "testing"

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
