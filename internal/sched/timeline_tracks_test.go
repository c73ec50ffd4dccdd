package sched

import (
	"bytes"
	"encoding/json"
	"testing"
)

// A viewer nests the spans of one track, so Write lays DMA spans out on
// tracks where none partly overlaps another: a stream's DMA track split by
// queue, then into lanes, each span on the first lane free at its start
// (by hand: on qA, [0, 2] lane 1, [1, 3] lane 2, [2, 4] lane 1 again;
// qB's [0, 5] its own track); a stream's own words stay where they were;
// a stream that moved nothing (PE) has no DMA track; writing twice gives
// the same bytes.
func TestTimelineTracksNoPartialOverlap(t *testing.T) {
	tl := &Timeline{Events: []Event{
		{Name: "thread_name", Ph: "M", Pid: 0, Tid: 0, Args: map[string]any{"name": "sg00 SP"}},
		{Name: "thread_name", Ph: "M", Pid: 0, Tid: dmaTrack, Args: map[string]any{"name": "sg00 SP DMA"}},
		{Name: "w", Ph: "X", Ts: 0, Dur: 0.001, Pid: 0, Tid: 0},
		{Name: "a1", Ph: "X", Ts: 0, Dur: 2, Pid: 0, Tid: dmaTrack, Args: map[string]any{"queue": "qA"}},
		{Name: "a2", Ph: "X", Ts: 1, Dur: 2, Pid: 0, Tid: dmaTrack, Args: map[string]any{"queue": "qA"}},
		{Name: "a3", Ph: "X", Ts: 2, Dur: 2, Pid: 0, Tid: dmaTrack, Args: map[string]any{"queue": "qA"}},
		{Name: "b1", Ph: "X", Ts: 0, Dur: 5, Pid: 0, Tid: dmaTrack, Args: map[string]any{"queue": "qB"}},
		{Name: "thread_name", Ph: "M", Pid: 0, Tid: 1, Args: map[string]any{"name": "sg00 PE"}},
		{Name: "thread_name", Ph: "M", Pid: 0, Tid: dmaTrack + 1, Args: map[string]any{"name": "sg00 PE DMA"}},
		{Name: "mm", Ph: "X", Ts: 0, Dur: 1, Pid: 0, Tid: 1},
	}}
	var w1, w2 bytes.Buffer
	if err := tl.Write(&w1); err != nil {
		t.Fatal(err)
	}
	if err := tl.Write(&w2); err != nil || !bytes.Equal(w1.Bytes(), w2.Bytes()) {
		t.Fatalf("a second Write differs (%v)", err)
	}
	var got struct{ TraceEvents []Event }
	if err := json.Unmarshal(w1.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	track, name := map[string]int{}, map[int]string{}
	for _, e := range got.TraceEvents {
		switch e.Ph {
		case "X":
			track[e.Name] = e.Tid
		case "M":
			name[e.Tid] = e.Args["name"].(string)
		}
	}
	if track["w"] != 0 || track["a1"] != dmaTrack || track["a3"] != dmaTrack || track["a2"] == dmaTrack || track["b1"] == dmaTrack || track["b1"] == track["a2"] {
		t.Fatalf("tracks %v", track)
	}
	want := map[int]string{0: "sg00 SP", 1: "sg00 PE", dmaTrack: "sg00 SP DMA qA", track["a2"]: "sg00 SP DMA qA (2)", track["b1"]: "sg00 SP DMA qB"}
	for tid, n := range want {
		if name[tid] != n {
			t.Errorf("track %d named %q, want %q", tid, name[tid], n)
		}
	}
	if _, ok := name[dmaTrack+1]; ok {
		t.Errorf("PE moved nothing, but has a DMA track %q", name[dmaTrack+1])
	}
	if len(tl.Events) != 10 || tl.Events[4].Tid != dmaTrack {
		t.Error("Write changed the recorded events")
	}
}
