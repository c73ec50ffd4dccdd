package sched

import (
	"encoding/json"
	"fmt"
	"io"
)

// Timeline is a run recorded as Chrome trace events (viewable in Perfetto
// or chrome://tracing): per core a process; per stream a track of its words
// and a track of its DMAs in flight (spans from issue to completion, with
// descriptors and bytes); semaphores as counters.
type Timeline struct {
	Events []Event `json:"traceEvents"`
	core   func(stream int) int
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

func (tl *Timeline) word(i, off int, name string, now, cost int64, descs int, bytes uint64) {
	core := tl.core(i)
	tl.Events = append(tl.Events, Event{Name: name, Ph: "X", Ts: float64(now) / 1000, Dur: 0.001, Pid: core, Tid: i,
		Args: map[string]any{"offset": fmt.Sprintf("%#x", off)}})
	if cost > 0 {
		tl.Events = append(tl.Events, Event{Name: name, Ph: "X", Ts: float64(now) / 1000, Dur: float64(cost) / 1000, Pid: core, Tid: dmaTrack + i,
			Args: map[string]any{"offset": fmt.Sprintf("%#x", off), "descriptors": descs, "bytes": bytes}})
	}
}

func (tl *Timeline) sem(core, k int, now int64, v int32) {
	tl.Events = append(tl.Events, Event{Name: fmt.Sprintf("$S[%d]", k), Ph: "C", Ts: float64(now) / 1000, Pid: core,
		Args: map[string]any{"value": v}})
}

// Write writes the timeline as JSON.
func (tl *Timeline) Write(w io.Writer) error {
	b, err := json.Marshal(tl)
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}
