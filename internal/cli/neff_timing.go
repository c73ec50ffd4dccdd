package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"ndma/device"
	"ndma/internal/sched"
	"ndma/isa"
)

// neffTiming is `ndma neff run`'s timing flags (issue 19): the compute
// engines' times, the schedule as JSON, its packets.
type neffTiming struct {
	engineTimes multi
	asJSON      *bool
	packets     *bool
	times       map[isa.Opcode]int64
	stdout      io.Writer // where the JSON goes (the human report is dropped under --json)
}

func addNEFFTimingFlags(cl *cmdLine) *neffTiming {
	nt := &neffTiming{}
	cl.fs.Var(&nt.engineTimes, "engine-time", engineTimeHelp)
	nt.asJSON = cl.fs.Bool("json", false, "print the run as JSON: every transfer with its queue, block, bytes and window (docs/json.md)")
	nt.packets = cl.fs.Bool("packets", false, "with --json: every transfer's packets, with their DMA engine and times")
	return nt
}

// begin checks the timing flags; under --json the human report of e goes
// nowhere and the JSON to e's stdout.
func (nt *neffTiming) begin(e *env) (*env, error) {
	times, err := parseEngineTimes(nt.engineTimes)
	if err != nil {
		return nil, err
	}
	nt.times = times
	if *nt.packets && !*nt.asJSON {
		return nil, usagef("--packets lists the packets in the JSON: give --json too")
	}
	nt.stdout = e.stdout
	if !*nt.asJSON {
		return e, nil
	}
	h := *e
	h.stdout = io.Discard
	return &h, nil
}

// engineTimeHelp is --engine-time's usage (neff run, neff report).
const engineTimeHelp = "OPCODE=DURATION: how long a non-DMA word (compute, control) takes its engine, instead of the compute model's time (TENSOR_TENSOR=1.2us, 0x41=1200ns); repeatable"

// parseEngineTimes is the --engine-time values as times by opcode
// (device.EngineTime reads each).
func parseEngineTimes(list []string) (map[isa.Opcode]int64, error) {
	times := map[isa.Opcode]int64{}
	for _, s := range list {
		name, dur, ok := strings.Cut(s, "=")
		if !ok || name == "" || dur == "" {
			return nil, usagef("--engine-time %q: want OPCODE=DURATION (TENSOR_TENSOR=1.2us)", s)
		}
		op, ns, err := device.EngineTime(name, dur)
		if err != nil {
			return nil, usagef("--engine-time %q: %v", s, err)
		}
		if _, twice := times[op]; twice {
			return nil, usagef("--engine-time %q: %s is given twice", s, op)
		}
		times[op] = ns
	}
	return times, nil
}

// apply sets the run's options.
func (nt *neffTiming) apply(o *device.NEFFOptions) {
	o.EngineTime, o.Packets = nt.times, *nt.packets
}

// assumption is the engine-time line of the report.
func (nt *neffTiming) assumption() string {
	var parts []string
	for op, ns := range nt.times {
		parts = append(parts, fmt.Sprintf("%s %.3f µs", isa.Lookup(op).Mnemonic(), float64(ns)/1000))
	}
	sort.Strings(parts)
	other := "every other word"
	if len(parts) == 0 {
		other = "every word"
	}
	parts = append(parts, other+" of the compute and control engines by the compute model (engine, opcode, sizes: docs/sim.md \"Compute time\")")
	return "engine times: " + strings.Join(parts, ", ")
}

// printNEFFTiming is the model's account under the human schedule: its
// constants' provenance, the engine-time assumption, each queue's window.
func printNEFFTiming(e *env, nt *neffTiming, res *device.NEFFResult) {
	if !res.Clocked || res.Timing == nil {
		return
	}
	var blocks, inline, other int
	for _, r := range res.Subgraphs {
		for _, mv := range r.Stats.Schedule {
			switch {
			case mv.Timed && mv.Transfer != nil && mv.Transfer.Inline:
				inline++
			case mv.Timed:
				blocks++
			default:
				other++
			}
		}
	}
	var what []string
	if blocks > 0 || inline == 0 {
		what = append(what, fmt.Sprintf("%d %s", blocks, plural(blocks, "fired block")))
	}
	if inline > 0 {
		what = append(what, fmt.Sprintf("%d %s", inline, plural(inline, "inline DGE word")))
	}
	how := fmt.Sprintf("%s by the packet-level model (%s constants, %s)", strings.Join(what, " and "), res.Timing.Gen, res.Timing.Source)
	if other > 0 {
		how += fmt.Sprintf(", %d %s by the first-order model (docs/sim.md)", other, plural(other, "other DMA word"))
	}
	fmt.Fprintf(e.stdout, "DMA time: %s; %s\n", how, nt.assumption())
	for _, r := range res.Subgraphs {
		for _, q := range queueWindows(r.Stats.Schedule) {
			fmt.Fprintf(e.stdout, "  %s queue %s: %d %s, window %.3f–%.3f µs (%.3f µs), median transfer %.3f µs\n",
				r.Name, q.name, q.n, plural(q.n, "transfer"), float64(q.start)/1000, float64(q.end)/1000, float64(q.end-q.start)/1000, q.median/1000)
		}
		printLimits(e.stdout, r.Name, &r.Stats)
	}
}

// printLimits is what limited a subgraph's run (docs/sim.md "What limits
// the kernel"): per engine and queue its busy and waiting shares of the
// kernel time and whom it waited on, then the critical path.
func printLimits(w io.Writer, sg string, st *sched.Stats) {
	if st.TimeNS <= 0 || len(st.Lanes) == 0 {
		return
	}
	pct := func(ns int64) float64 { return 100 * float64(ns) / float64(st.TimeNS) }
	fmt.Fprintf(w, "  %s kernel time %.3f µs; per engine and queue: busy, waiting on a semaphore (on whom), on the critical path\n", sg, float64(st.TimeNS)/1000)
	for _, l := range st.Lanes {
		kind, unit := "engine", plural(l.Words, "word")
		if l.Queue {
			kind, unit = "queue", plural(l.Words, "transfer")
		}
		fmt.Fprintf(w, "    %-6s %-18s %5d %-9s busy %5.1f %%  waits %5.1f %%%s  critical %5.1f %%\n",
			kind, strings.TrimPrefix(l.Name, sg+" "), l.Words, unit, pct(l.BusyNS), pct(l.WaitNS), waitOn(l, sg, pct), pct(l.CriticalNS))
	}
	// one segment a line, as the schedule names its words (docs/sim.md
	// "What limits the kernel"); a long path keeps its head and its tail
	fmt.Fprintf(w, "    critical path (%d segments, µs), first to last:\n", len(st.Critical))
	for k, seg := range st.Critical {
		if n := len(st.Critical); n > 24 && k >= 8 && k < n-12 {
			if k == 8 {
				fmt.Fprintf(w, "      … %d segments …\n", n-20)
			}
			continue
		}
		moving := "" // a transfer that waited on its engines or queue after its issue says when it moved
		if seg.Queue && seg.MovingNS > seg.FromNS {
			moving = fmt.Sprintf(" (moving from %.3f)", float64(seg.MovingNS)/1000)
		}
		fmt.Fprintf(w, "      %9.3f–%-9.3f %s %s%s\n", float64(seg.FromNS)/1000, float64(seg.ToNS)/1000, strings.TrimPrefix(seg.Lane, sg+" "), seg.Span(), moving)
	}
}

// waitOn is " (on ACT 23 %, qSPIO0 4 %)": whom a lane waited on, most first.
func waitOn(l sched.Lane, sg string, pct func(int64) float64) string {
	if len(l.WaitOn) == 0 {
		return ""
	}
	names := make([]string, 0, len(l.WaitOn))
	for k := range l.WaitOn {
		names = append(names, k)
	}
	sort.Slice(names, func(a, b int) bool {
		x, y := l.WaitOn[names[a]], l.WaitOn[names[b]]
		return x > y || x == y && names[a] < names[b]
	})
	parts := make([]string, len(names))
	for i, k := range names {
		parts[i] = fmt.Sprintf("%s %.1f %%", strings.TrimPrefix(k, sg+" "), pct(l.WaitOn[k]))
	}
	return " (on " + strings.Join(parts, ", ") + ")"
}

// queueWindow is one queue's timed transfers in a schedule.
type queueWindow struct {
	name       string
	n          int
	start, end int64
	median     float64
	durs       []int64
}

// queueWindows are the queues of a schedule's timed transfers, in the
// order they first appear: window and median duration.
func queueWindows(s []sched.Moved) []queueWindow {
	var out []queueWindow
	at := map[string]int{}
	for _, mv := range s {
		if !mv.Timed {
			continue
		}
		i, ok := at[mv.Queue]
		if !ok {
			i = len(out)
			at[mv.Queue] = i
			out = append(out, queueWindow{name: mv.Queue, start: mv.StartNS, end: mv.DueNS})
		}
		q := &out[i]
		q.n++
		q.start, q.end = min(q.start, mv.StartNS), max(q.end, mv.DueNS)
		q.durs = append(q.durs, mv.DueNS-mv.StartNS)
	}
	for i := range out {
		d := slices.Clone(out[i].durs)
		slices.Sort(d)
		out[i].median = float64(d[len(d)/2])
		if len(d)%2 == 0 {
			out[i].median = float64(d[len(d)/2-1]+d[len(d)/2]) / 2
		}
	}
	return out
}

// The JSON of `ndma neff run --json` (docs/json.md "neff run --json").
type runJSON struct {
	Status      string           `json:"status"`
	Error       string           `json:"error"` // "" when the run went through
	Exec        string           `json:"exec"`
	Model       *modelJSON       `json:"model"` // null: no clock (--exec ref)
	EngineTimes map[string]int64 `json:"engine_time_ns"`
	TimeNS      int64            `json:"time_ns"`
	Transfers   []transferJSON   `json:"transfers"`
	Variables   []placedJSON     `json:"variables"`
	NotComputed map[string]int   `json:"not_computed"`
	// Engines counts each engine's words computed and not computed.
	Engines map[string]*device.EngineCount `json:"engines"`
	// Sources are the compute words whose SBUF results each output's DMA words read.
	Sources  map[string][]string `json:"sources"`
	Warnings []string            `json:"warnings"`
	// Limits are, per engine stream and DMA queue, what limited the run
	// (clocked runs; docs/sim.md "What limits the kernel"); Critical the
	// critical path.
	Limits   []limitJSON   `json:"limits"`
	Critical []segmentJSON `json:"critical_path"`
}

type limitJSON struct {
	Subgraph   string           `json:"subgraph"`
	Lane       string           `json:"lane"` // "SP", "qSPIO0"
	Kind       string           `json:"kind"` // "engine" or "queue"
	Count      int              `json:"count"`
	BusyNS     int64            `json:"busy_ns"`
	WaitNS     int64            `json:"wait_ns"`
	WaitOnNS   map[string]int64 `json:"wait_on_ns"`
	CriticalNS int64            `json:"critical_ns"`
}

type segmentJSON struct {
	Subgraph string `json:"subgraph"`
	Lane     string `json:"lane"`
	FromNS   int64  `json:"from_ns"`
	ToNS     int64  `json:"to_ns"`
	Count    int    `json:"count"`
	First    int    `json:"first"` // an engine's first word offset, a queue's first block or inline DGE word's offset
	Last     int    `json:"last"`
	Inline   bool   `json:"inline"`    // a queue's inline DGE words: first and last are word offsets
	MovingNS int64  `json:"moving_ns"` // when its first word or transfer started (a transfer: moving)
	Span     string `json:"span"`      // the words as the text names them ("block 3", "0x80–0x140 (4 words)")
}

// placedJSON is one variable of the run and the address it ran at
// (device.Place, as `neff info` prints it).
type placedJSON struct {
	Subgraph string `json:"subgraph"`
	VarID    int    `json:"var_id"`
	Name     string `json:"name"`
	Kind     string `json:"kind"` // the def.json var type: input, output, state-buffer, …
	Address  uint64 `json:"address"`
}

type modelJSON struct {
	Name   string `json:"name"`
	Gen    string `json:"gen"`
	Source string `json:"source"`
}

type transferJSON struct {
	Subgraph string  `json:"subgraph"`
	Engine   string  `json:"engine"`
	Offset   int     `json:"offset"`
	Queue    string  `json:"queue"`
	Block    *int    `json:"block"` // null: not a dma[] block (an inline DGE word)
	Src      endJSON `json:"src"`
	Dst      endJSON `json:"dst"`
	Bytes    int64   `json:"bytes"` // the payload written, alike under every executor
	// PacketBytes is what the packet-level model's packets carry: the
	// payload plus a semaphore write per DMA engine (timing.Packet); 0
	// when the model did not time the transfer.
	PacketBytes int64        `json:"packet_bytes"`
	IssueNS     int64        `json:"issue_ns"`
	StartNS     int64        `json:"start_ns"`
	EndNS       int64        `json:"end_ns"`
	Timing      string       `json:"timing"`  // "packet", "first-order" or "none"
	Packets     []packetJSON `json:"packets"` // null: not kept (--packets), or not timed by packets
}

type packetJSON struct {
	DMAEngine   int   `json:"dma_engine"`
	Bytes       int64 `json:"bytes"`
	StartNS     int64 `json:"start_ns"`
	DataDoneNS  int64 `json:"data_done_ns"`
	WriteDoneNS int64 `json:"write_done_ns"`
}

// printJSON prints the run of the NEFF loaded as im as JSON (under --json;
// nothing otherwise).
func (nt *neffTiming) printJSON(exec string, im *device.Image, res *device.NEFFResult, runErr error) {
	if !*nt.asJSON {
		return
	}
	out := runJSON{Status: "ok", Exec: exec, EngineTimes: map[string]int64{}, Transfers: []transferJSON{}, Variables: placedVars(im), NotComputed: map[string]int{}, Sources: map[string][]string{}, Warnings: []string{},
		Limits: []limitJSON{}, Critical: []segmentJSON{}}
	if runErr != nil {
		out.Status, out.Error = "error", runErr.Error()
	}
	for op, ns := range nt.times {
		out.EngineTimes[isa.Lookup(op).Mnemonic()] = ns
	}
	if res != nil {
		if res.Clocked && res.Timing != nil {
			out.Model = &modelJSON{"packet", res.Timing.Gen, res.Timing.Source}
		}
		for k, v := range res.NotRun {
			out.NotComputed[k] = v
		}
		out.Engines = res.Engines
		for k, v := range res.Sources {
			out.Sources[k] = v
		}
		out.Warnings = append(out.Warnings, res.Warnings...)
		ends := endNamer(im, out.Variables)
		for _, r := range res.Subgraphs {
			out.TimeNS = max(out.TimeNS, r.Stats.TimeNS)
			out.Warnings = append(out.Warnings, r.Stats.Warnings...)
			for _, mv := range r.Stats.Schedule {
				out.Transfers = append(out.Transfers, transferOf(r.Name, mv, res.Clocked, ends))
			}
			trim := func(s string) string { return strings.TrimPrefix(s, r.Name+" ") }
			for _, l := range r.Stats.Lanes {
				lj := limitJSON{Subgraph: r.Name, Lane: trim(l.Name), Kind: "engine", Count: l.Words, BusyNS: l.BusyNS, WaitNS: l.WaitNS, WaitOnNS: map[string]int64{}, CriticalNS: l.CriticalNS}
				if l.Queue {
					lj.Kind = "queue"
				}
				for k, v := range l.WaitOn {
					lj.WaitOnNS[trim(k)] = v
				}
				out.Limits = append(out.Limits, lj)
			}
			for _, sg := range r.Stats.Critical {
				out.Critical = append(out.Critical, segmentJSON{r.Name, trim(sg.Lane), sg.FromNS, sg.ToNS, sg.Words, sg.First, sg.Last, sg.Inline, sg.MovingNS, sg.Span()})
			}
		}
	}
	b, _ := json.MarshalIndent(out, "", "  ")
	fmt.Fprintf(nt.stdout, "%s\n", b)
}

// placedVars is every variable of im that has an address, in subgraph
// then var-id order.
func placedVars(im *device.Image) []placedJSON {
	out := []placedJSON{}
	if im == nil {
		return out
	}
	for si := range im.Subgraphs {
		sg := &im.Subgraphs[si]
		for _, v := range sg.Variables() {
			if a, ok := im.Place[si][v.ID]; ok {
				out = append(out, placedJSON{sg.Name, v.ID, v.Name, v.Type, a})
			}
		}
	}
	return out
}

// transferOf is one schedule entry as JSON (clocked: the engines' run);
// ends names the addresses its words start at.
func transferOf(sg string, mv sched.Moved, clocked bool, ends func(sg string, e *endJSON)) transferJSON {
	t := transferJSON{Subgraph: sg, Engine: strings.ToLower(strings.TrimPrefix(mv.Stream, sg+" ")), Offset: mv.Offset, Queue: mv.Queue,
		Bytes: mv.Bytes, IssueNS: mv.IssueNS, StartNS: mv.StartNS, EndNS: mv.DueNS, Timing: "first-order"}
	t.Src, t.Dst, _ = wordEnds(mv.Run)
	ends(sg, &t.Src)
	ends(sg, &t.Dst)
	switch {
	case mv.Transfer != nil && mv.Transfer.Inline: // an inline DGE word: its rows' bytes (as ref counts them) and its packets' bytes
		t.Bytes = mv.Transfer.Bytes()
		t.PacketBytes = mv.Bytes
	case mv.Transfer != nil:
		b := mv.Transfer.Block
		t.Block = &b
		// The block's data bytes: the model's packet bytes add a semaphore
		// write per DMA engine (hw-timing.md), which no executor counts.
		t.Bytes = mv.Transfer.Bytes()
		if mv.Timed {
			t.PacketBytes = mv.Bytes
		}
	}
	switch {
	case mv.Timed:
		t.Timing = "packet"
	case !clocked:
		t.Timing = "none"
	}
	for _, p := range mv.Packets {
		t.Packets = append(t.Packets, packetJSON{p.Engine, p.Bytes, p.StartNS, p.DataDoneNS, p.WriteDoneNS})
	}
	return t
}

// endNamer splits an end's address on im's generation and names the
// variable of subgraph sg (placed as vars say) whose bytes hold it.
func endNamer(im *device.Image, vars []placedJSON) func(sg string, e *endJSON) {
	gen := isa.GenAny
	if im != nil && im.Program != nil {
		gen = im.Program.Gen
	}
	size := map[[2]string]int64{}
	if im != nil {
		for si := range im.Subgraphs {
			for _, v := range im.Subgraphs[si].Variables() {
				size[[2]string{im.Subgraphs[si].Name, v.Name}] = v.Size
			}
		}
	}
	return func(sg string, e *endJSON) {
		e.split(gen)
		if e.Address == nil {
			return
		}
		a := *e.Address
		for _, v := range vars {
			n := size[[2]string{v.Subgraph, v.Name}]
			if v.Subgraph == sg && v.Kind != "state-buffer" && n > 0 && a >= v.Address && a < v.Address+uint64(n) {
				e.Variable = v.Name
				return
			}
		}
	}
}
