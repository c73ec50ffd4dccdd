package sched

import (
	"container/heap"
	"fmt"
	"slices"
	"sort"
)

// What limited a clocked run (issue 32, docs/sim.md "What limits the
// kernel"): per engine stream and per DMA queue the time it was busy, the
// time it waited on a semaphore and on whom, and the run's critical path —
// the chain of words and transfers, each waiting on the one before, that
// ends last.

// Lane is one engine stream ("sg00 SP") or DMA queue ("qSPIO0") of a run.
type Lane struct {
	Name  string
	Queue bool // a DMA queue (else an engine stream)
	// Words is the words the stream issued, or the transfers the queue ran.
	Words int
	// BusyNS: a stream's words' time on its engine (compute words, trigger
	// issue); a queue's transfers' windows, overlaps counted once.
	BusyNS int64
	// WaitNS is the time the stream was ready but its next word's
	// semaphore wait held it — for a queue, the time it was idle while its
	// next trigger waited —; WaitOn splits it by the lane whose write
	// released the wait ("event": an event wait).
	WaitNS int64
	WaitOn map[string]int64
	// CriticalNS is the lane's time on the critical path.
	CriticalNS int64
}

// Segment is one piece of the critical path: a lane's work from FromNS to
// ToNS, waited on by the next segment.
type Segment struct {
	Lane         string
	FromNS, ToNS int64
	Words        int // the words or transfers the segment strings together
	// First and Last name the segment's first and last word as the
	// schedule does: an engine's word offsets; a queue's block ids, or
	// the issuing words' offsets for inline DGE words (Inline).
	First, Last int
	Queue       bool
	Inline      bool
	// MovingNS is when a queue segment's first transfer started moving
	// (after its DGE and trigger latency and any packets ahead of it on
	// its engines); FromNS is when it was issued or could be.
	MovingNS int64
}

// Span names the segment's words as the schedule lists them: "block 3",
// "blocks 0–5" for a queue, "0xc0", "0x0–0x140 (6 words)" for an engine.
func (s Segment) Span() string {
	switch {
	case s.Queue && s.Inline && s.Words == 1:
		return fmt.Sprintf("inline DGE word %#x", s.First)
	case s.Queue && s.Inline:
		return fmt.Sprintf("inline DGE words %#x–%#x (%d words)", s.First, s.Last, s.Words)
	case s.Queue && s.Words == 1:
		return fmt.Sprintf("block %d", s.First)
	case s.Queue:
		return fmt.Sprintf("blocks %d–%d (%d transfers)", s.First, s.Last, s.Words)
	case s.Words == 1:
		return fmt.Sprintf("%#x", s.First)
	}
	return fmt.Sprintf("%#x–%#x (%d words)", s.First, s.Last, s.Words)
}

// node is one issued word or transfer on the run's dependency graph.
type node struct {
	lane         string
	start, end   int64
	cause        int    // the node it waited on (a semaphore's writer, else the stream's previous word); -1: none
	waitFrom     int64  // when its stream was ready (a word that waited), else start
	waitOn       string // whose write released it
	queue, timed bool
	inline       bool // a queue's node of an inline DGE word: id is the word's offset
	id           int  // the word's offset (an engine's node, an inline DGE word's), the block's id (a queue's)
}

// summary is a run's bookkeeping for the lanes and the critical path.
type summary struct {
	nodes   []node
	prev    []int   // each stream's last node
	ready   []int64 // when each stream could issue its next word
	lanes   map[string]*Lane
	order   []string
	streams []*Stream

	pendingWait [2]int64 // the wait issued just charged, for the node that follows
	pendingOn   string
}

func (s *summary) init(ss []*Stream) {
	s.streams, s.lanes = ss, map[string]*Lane{}
	s.prev, s.ready = make([]int, len(ss)), make([]int64, len(ss))
	for i := range s.prev {
		s.prev[i] = -1
		s.lane(ss[i].Name, false)
	}
}

func (s *summary) lane(name string, queue bool) *Lane {
	l := s.lanes[name]
	if l == nil {
		l = &Lane{Name: name, Queue: queue, WaitOn: map[string]int64{}}
		s.lanes[name] = l
		s.order = append(s.order, name)
	}
	return l
}

// issued accounts for stream i issuing step now: the wait since it was
// ready, charged to the writer of the semaphore it waited on. It returns
// the node the word depends on.
func (s *summary) issued(r *runner, i int, step *Step) int {
	waited := r.now - s.ready[i]
	if waited <= 0 {
		return s.prev[i]
	}
	on, cause := "event", s.prev[i]
	if idx, ok := waitedSem(&step.Word); ok {
		if w, ok := r.writers[[2]int{r.streams[i].Core, idx}]; ok {
			on, cause = w.lane, w.node
		}
	}
	l := s.lanes[r.streams[i].Name]
	l.WaitNS += waited
	l.WaitOn[on] += waited
	s.pendingWait = [2]int64{s.ready[i], 0}
	s.pendingOn = on
	return cause
}

// node records stream i's word on lane from start to end (its hold of the
// engine), depending on cause.
func (s *summary) node(i int, lane string, offset int, start, end int64, cause int) int {
	n := node{lane: lane, start: start, end: end, cause: cause, waitFrom: start, id: offset}
	if s.pendingOn != "" {
		n.waitFrom, n.waitOn = s.pendingWait[0], s.pendingOn
		s.pendingOn = ""
	}
	s.nodes = append(s.nodes, n)
	id := len(s.nodes) - 1
	s.prev[i], s.ready[i] = id, end
	l := s.lanes[lane]
	l.Words++
	l.BusyNS += end - start
	return id
}

// dmaNode records a DMA of block (−1: none) on queue from start to end,
// fired by word node trig.
func (s *summary) dmaNode(queue string, id int, inline bool, cause int, start, end int64) int {
	s.lane(queue, true)
	s.nodes = append(s.nodes, node{lane: queue, start: start, end: end, cause: cause, waitFrom: start, queue: true, id: id, inline: inline})
	return len(s.nodes) - 1
}

// retime moves every pending transfer the model times to its planned end
// (a trigger just fired may have delayed them: the engines alternate).
func (r *runner) retime() {
	moved := false
	for k := range r.pending {
		if c := &r.pending[k]; c.timed > 0 {
			if at := max(r.opt.Timing.End(c.timed-1)+c.wake, r.now); at != c.at { // its wake as it was filed
				c.at, moved = at, true
			}
		}
	}
	if moved {
		heap.Init(&r.pending)
	}
}

// finish ends a run: the model's final times patched into the schedule,
// the timeline and the busy counts; the lanes and the critical path.
func (r *runner) finish() {
	if m := r.opt.Timing; m != nil && len(r.timed) > 0 {
		m.Finish()
		for _, tx := range r.timed {
			res := m.Result(tx.id)
			if res.StartNS < 0 { // no packet (cannot happen: every engine writes its semaphore)
				res.StartNS = res.EndNS
			}
			if tx.moved >= 0 {
				mv := &r.st.Schedule[tx.moved]
				mv.Bytes, mv.StartNS, mv.DueNS, mv.Packets = res.Bytes, res.StartNS, res.EndNS, res.Packets
			}
			if tl := r.tl; tl != nil && tx.tlEvent >= 0 {
				ev := &tl.Events[tx.tlEvent] // from its first packet's start: the trigger latency before it shows as the gap after issued_us
				ev.Ts, ev.Dur = float64(res.StartNS)/1000, float64(res.EndNS-res.StartNS)/1000
				tl.packets(tx.core, tx.t, res.Packets)
			}
			n := &r.sum.nodes[tx.node]
			n.start, n.end, n.timed = res.StartNS, res.EndNS, true
			r.st.Busy[tx.stream] += res.EndNS - r.sum.nodes[n.cause].start
		}
	}
	r.sum.finish(r.st)
}

// finish computes the queues' busy and waiting times and the critical path
// into st.
func (s *summary) finish(st *Stats) {
	byQueue := map[string][]int{}
	for k := range s.nodes {
		if n := &s.nodes[k]; n.queue {
			byQueue[n.lane] = append(byQueue[n.lane], k)
		}
	}
	for q, ks := range byQueue {
		l := s.lanes[q]
		sort.SliceStable(ks, func(a, b int) bool { return s.nodes[ks[a]].start < s.nodes[ks[b]].start })
		l.Words, l.BusyNS = len(ks), 0
		var end int64 // the union so far ends here
		for _, k := range ks {
			n := &s.nodes[k]
			if n.start > end { // idle from end to n.start: waiting when its trigger waited then
				if n.cause >= 0 {
					t := &s.nodes[n.cause]
					if lo, hi := max(end, t.waitFrom), min(n.start, t.start); t.waitOn != "" && hi > lo {
						l.WaitNS += hi - lo
						l.WaitOn[t.waitOn] += hi - lo
					}
				}
				l.BusyNS += n.end - n.start
			} else if n.end > end {
				l.BusyNS += n.end - end
			}
			end = max(end, n.end)
		}
	}
	last := -1
	for k := range s.nodes {
		if last < 0 || s.nodes[k].end > s.nodes[last].end {
			last = k
		}
	}
	var path []Segment
	for k := last; k >= 0; k = s.nodes[k].cause {
		n := &s.nodes[k]
		from := int64(0)
		if n.cause >= 0 {
			from = min(s.nodes[n.cause].end, n.end)
		}
		if len(path) > 0 && path[len(path)-1].Lane == n.lane {
			sg := &path[len(path)-1]
			sg.FromNS, sg.First, sg.MovingNS = from, n.id, n.start // walking back: this word comes first
			sg.Words++
		} else {
			path = append(path, Segment{Lane: n.lane, FromNS: from, ToNS: n.end, Words: 1, First: n.id, Last: n.id, Queue: n.queue, Inline: n.inline, MovingNS: n.start})
		}
		if n.cause >= k { // causes come earlier: never loop
			break
		}
	}
	slices.Reverse(path)
	for i := range path {
		if i > 0 { // a segment starts where the one before ended
			path[i].FromNS = max(path[i].FromNS, path[i-1].ToNS)
		}
		path[i].FromNS = min(path[i].FromNS, path[i].ToNS)
		s.lanes[path[i].Lane].CriticalNS += path[i].ToNS - path[i].FromNS
	}
	st.Critical = path
	st.Lanes = st.Lanes[:0]
	for _, name := range s.order {
		st.Lanes = append(st.Lanes, *s.lanes[name])
	}
}
