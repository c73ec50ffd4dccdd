package sched

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sort"

	"ndma/internal/timing"
)

// Timeline is a run recorded as Chrome trace events (viewable in Perfetto
// or chrome://tracing): per core a process; per stream a track of its words
// and a track of its DMAs in flight (spans from when each starts moving to
// its completion, issued_us its issue, with descriptors and bytes);
// semaphores as counters. With the packet-level
// model, each DMA engine is a track of its packets (data phase, then write
// done), as the Neuron profiler shows the DMA engines.
type Timeline struct {
	Events []Event `json:"traceEvents"`
	core   func(stream int) int
	named  map[[2]int]bool // (core, engine) tracks named
}

// Event is one trace event (the Chrome trace-event format).
type Event struct {
	Name string         `json:"name"`
	Ph   string         `json:"ph"`
	Ts   float64        `json:"ts"` // µs
	Dur  float64        `json:"dur,omitempty"`
	Pid  int            `json:"pid"`
	Tid  int            `json:"tid"`
	Args map[string]any `json:"args,omitempty"`
}

// dmaTrack is the tid offset of a stream's DMA track.
const dmaTrack = 1000

func (tl *Timeline) streams(ss []*Stream) {
	for i, s := range ss {
		tl.Events = append(tl.Events,
			Event{Name: "thread_name", Ph: "M", Pid: s.Core, Tid: i, Args: map[string]any{"name": s.Name}},
			Event{Name: "thread_name", Ph: "M", Pid: s.Core, Tid: dmaTrack + i, Args: map[string]any{"name": s.Name + " DMA"}})
	}
	tl.core = func(i int) int { return ss[i].Core }
}

func (tl *Timeline) word(i, off int, name, queue string, now, start, cost int64, descs int, bytes uint64) {
	core := tl.core(i)
	tl.Events = append(tl.Events, Event{Name: name, Ph: "X", Ts: float64(now) / 1000, Dur: 0.001, Pid: core, Tid: i,
		Args: map[string]any{"offset": fmt.Sprintf("%#x", off)}})
	if cost > 0 { // the DMA from when it starts moving (after its queue's earlier DMA), its issue an argument
		args := map[string]any{"offset": fmt.Sprintf("%#x", off), "descriptors": descs, "bytes": bytes, "issued_us": float64(now) / 1000}
		if queue != "" {
			args["queue"] = queue
		}
		tl.Events = append(tl.Events, Event{Name: name, Ph: "X", Ts: float64(start) / 1000, Dur: float64(cost) / 1000, Pid: core, Tid: dmaTrack + i, Args: args})
	}
}

// tracks is the events with every DMA span and packet on a track where it
// partly overlaps no other: a viewer nests a track's spans, so two that
// overlap without one holding the other (blocks of one queue pipelined
// over the engines, a cast's rows 10 ns apart) would be drawn wrong. A
// stream's DMA track is split by queue ("sg00 SP DMA qSPIO0"), then each
// track into as many lanes as its spans need (" (2)", …), each span on the
// first lane free when it starts; a stream whose DMA track stays empty
// loses it. The events are copied: Write may run again.
func (tl *Timeline) tracks() []Event {
	out := slices.Clone(tl.Events)
	names := map[[2]int]string{} // (pid, tid) → thread name
	meta := map[[2]int]int{}     // (pid, tid) → its thread_name event
	for k, e := range out {
		if e.Ph == "M" && e.Name == "thread_name" {
			if n, ok := e.Args["name"].(string); ok {
				names[[2]int{e.Pid, e.Tid}], meta[[2]int{e.Pid, e.Tid}] = n, k
			}
		}
	}
	type key struct {
		pid, tid int
		queue    string
	}
	groups := map[key][]int{}
	var order []key
	for k, e := range out {
		if e.Ph != "X" || e.Tid < dmaTrack {
			continue
		}
		q, _ := e.Args["queue"].(string)
		g := key{e.Pid, e.Tid, q}
		if _, ok := groups[g]; !ok {
			order = append(order, g)
		}
		groups[g] = append(groups[g], k)
	}
	next, used := laneTrack, map[[2]int]bool{}
	for _, g := range order {
		ks := groups[g]
		sort.SliceStable(ks, func(a, b int) bool { return out[ks[a]].Ts < out[ks[b]].Ts })
		var ends []float64 // each lane's last end
		var tids []int
		for _, k := range ks {
			e := &out[k]
			lane := slices.IndexFunc(ends, func(end float64) bool { return end <= e.Ts+1e-9 })
			if lane < 0 {
				lane = len(ends)
				ends = append(ends, 0)
				tid := g.tid
				if used[[2]int{g.pid, g.tid}] { // the track's first group keeps its tid
					tid, next = next, next+1
				}
				used[[2]int{g.pid, tid}] = true
				name := names[[2]int{g.pid, g.tid}]
				if g.queue != "" {
					name += " " + g.queue
				}
				if lane > 0 {
					name += fmt.Sprintf(" (%d)", lane+1)
				}
				if m, ok := meta[[2]int{g.pid, tid}]; ok { // the track named already: renamed for its queue
					out[m].Args = map[string]any{"name": name}
				} else {
					out = append(out, Event{Name: "thread_name", Ph: "M", Pid: g.pid, Tid: tid, Args: map[string]any{"name": name}})
				}
				e = &out[k] // out may have moved
				tids = append(tids, tid)
			}
			ends[lane] = e.Ts + e.Dur
			e.Tid = tids[lane]
		}
	}
	// a stream that moved nothing has no DMA track: its name alone would
	// draw an empty row
	return slices.DeleteFunc(out, func(e Event) bool {
		return e.Ph == "M" && e.Name == "thread_name" && e.Tid >= dmaTrack && e.Tid < engineTrack && !used[[2]int{e.Pid, e.Tid}]
	})
}

// laneTrack is the first tid of the tracks tracks adds.
const laneTrack = 100000

// engineTrack is the tid offset of the DMA engine tracks.
const engineTrack = 2000

// span is a compute word's time on its engine (Stream.WordNS), and where
// that time comes from.
func (tl *Timeline) span(i, off int, name string, now, cost int64, how string) {
	tl.Events = append(tl.Events, Event{Name: name, Ph: "X", Ts: float64(now) / 1000, Dur: float64(cost) / 1000, Pid: tl.core(i), Tid: i,
		Args: map[string]any{"offset": fmt.Sprintf("%#x", off), "engine time": how}})
}

// packets draws a timed transfer's packets on their DMA engines' tracks:
// each packet its data phase (start → data done) and its write-done lag.
func (tl *Timeline) packets(core int, t *timing.Transfer, ps []timing.Packet) {
	if tl.named == nil {
		tl.named = map[[2]int]bool{}
	}
	name := fmt.Sprintf("%s block %d", t.Queue, t.Block)
	if t.Inline {
		name = t.Queue + " inline DGE word"
	}
	for _, p := range ps {
		if k := [2]int{core, p.Engine}; !tl.named[k] {
			tl.named[k] = true
			tl.Events = append(tl.Events, Event{Name: "thread_name", Ph: "M", Pid: core, Tid: engineTrack + p.Engine, Args: map[string]any{"name": fmt.Sprintf("DMA engine %d", p.Engine)}})
		}
		tl.Events = append(tl.Events,
			Event{Name: name, Ph: "X", Ts: float64(p.StartNS) / 1000, Dur: float64(p.DataDoneNS-p.StartNS) / 1000, Pid: core, Tid: engineTrack + p.Engine,
				Args: map[string]any{"bytes": p.Bytes, "rows": p.Rows, "write_done_ns": p.WriteDoneNS}})
	}
}

func (tl *Timeline) sem(core, k int, now int64, v int32) {
	tl.Events = append(tl.Events, Event{Name: fmt.Sprintf("$S[%d]", k), Ph: "C", Ts: float64(now) / 1000, Pid: core,
		Args: map[string]any{"value": v}})
}

// Write writes the timeline as JSON, its DMA and DMA-engine spans laid
// out so that none partly overlaps another on its track (tracks).
func (tl *Timeline) Write(w io.Writer) error {
	b, err := json.Marshal(struct {
		Events []Event `json:"traceEvents"`
	}{tl.tracks()})
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}
