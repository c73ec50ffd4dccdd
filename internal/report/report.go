// Package report builds the one-page HTML report of a NEFF (`ndma neff
// report`): the lint findings first, the DMA schedule as a zoomable
// timeline (a canvas, a row per engine and queue), the semaphore waits
// summarised (who waits on whom, how often, how long; every wait on
// demand), queue utilization, the bytes-per-descriptor histogram, the
// engines' streams and the budget. The page is self-contained — its data
// embedded as JSON, its style and script inline, nothing fetched — so it
// works from a file:// URL.
package report

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"math"
	"slices"
	"sort"
	"strings"

	"ndma/device"
	"ndma/inspect"
	"ndma/isa"
	"ndma/neff"
)

// Transfer is one DMA of the schedule.
type Transfer struct {
	Stream  string `json:"stream"` // "sg00 POOL"
	Engine  string `json:"engine"` // the stream's def.json engine key ("pool"), as a field
	Offset  int    `json:"offset"`
	Word    string `json:"word"`
	Queue   string `json:"queue"`
	Note    string `json:"note"`
	IssueNS int64  `json:"issue_ns"`
	DueNS   int64  `json:"due_ns"`
}

// Schedule is one subgraph's DMA schedule on the engines.
type Schedule struct {
	Subgraph  string     `json:"subgraph"`
	TimeNS    int64      `json:"time_ns"`
	Transfers []Transfer `json:"transfers"`
}

// Wait is one word that waits on a semaphore, and the words that write it.
type Wait struct {
	Subgraph  string `json:"subgraph"`
	Waiter    string `json:"waiter"` // the stream, "sg00 POOL"
	Engine    string `json:"engine"` // the waiter's engine key ("pool"), as a field
	Offset    int    `json:"offset"`
	Word      string `json:"word"`
	Semaphore int    `json:"semaphore"`
	Value     int    `json:"value"`
	// Writers are the first MaxWriters words that write the semaphore
	// ("sg00 POOL 0x80 PSEUDO_DMA_DIRECT2D (completion)"), WriterCount all of them.
	Writers     []string `json:"writers"`
	WriterCount int      `json:"writer_count"`
	// WriterPlaces are the same writers field by field.
	WriterPlaces []Writer `json:"writer_places"`
	// WriterStreams are the streams of all WriterCount writers, each once:
	// "sg00 POOL (DMA completion)", "sg00 ACT" (its EVENTS update).
	WriterStreams []string `json:"writer_streams"`
	// WaitNS is how long the word waited in the run: from when its stream
	// was ready (the word before it issued, or its engine's compute ended)
	// to its issue; -1 when the run did not reach it.
	WaitNS int64 `json:"wait_ns"`
}

// WaitRow is the wait graph summarised, who waits on whom: the waits of
// one stream on the semaphores one set of streams writes, and how long
// they waited in all and at most (the longest wait's word offset).
type WaitRow struct {
	Subgraph      string   `json:"subgraph"`
	Waiter        string   `json:"waiter"`
	Writers       []string `json:"writers"`
	Semaphores    []int    `json:"semaphores"`
	Waits         int      `json:"waits"`
	TotalNS       int64    `json:"total_ns"`
	LongestNS     int64    `json:"longest_ns"`
	LongestOffset int      `json:"longest_offset"`
}

// MaxPageWaits is how many waits of each summary row the page embeds (the
// longest, their writers as text only): a NEFF waits tens of thousands of
// times, 35 MB of page (issue 34); --json lists every one.
const MaxPageWaits = 10

// Writer is a word that writes a semaphore: its EVENTS update, or the
// completion of the DMA it issues.
type Writer struct {
	Subgraph   string `json:"subgraph"`
	Engine     string `json:"engine"` // the def.json engine key ("act")
	Offset     int    `json:"offset"`
	Word       string `json:"word"`       // its mnemonic
	Completion bool   `json:"completion"` // the DMA's completion writes it (false: the word's EVENTS update)
}

// text is the writer as Wait.Writers lists it: "sg00 ACT 0xc0 COPY".
func (w Writer) text() string {
	s := fmt.Sprintf("%s %s %#x %s", w.Subgraph, strings.ToUpper(w.Engine), w.Offset, w.Word)
	if w.Completion {
		s += " (completion)"
	}
	return s
}

// MaxWriters is how many writers a wait lists: a semaphore thousands of
// DMAs complete on would otherwise repeat them at every wait.
const MaxWriters = 8

// Data is everything the page shows, as it embeds it (docs/json.md).
type Data struct {
	File     string           `json:"file"`
	Target   string           `json:"target"`
	Streams  []inspect.Stream `json:"streams"`
	Schedule []Schedule       `json:"schedule"`
	RunError string           `json:"run_error"` // "" when the run went through
	// KernelTimeNS is the kernel time of the run, as `neff run` and lint
	// print it: the latest subgraph's end, DMA and compute on one clock
	// (runTimeNS).
	KernelTimeNS int64     `json:"kernel_time_ns"`
	WaitSummary  []WaitRow `json:"wait_summary"`
	Waits        []Wait    `json:"waits"`
	// WaitsLeftOut is how many waits the page leaves out (MaxPageWaits);
	// 0 in --json, which lists them all.
	WaitsLeftOut int             `json:"waits_left_out"`
	Lint         *inspect.Lint   `json:"lint"`
	Budget       *inspect.Budget `json:"budget"`
}

// Build gathers the report's data: the analysis and lint of every stream,
// the budget, the wait graph read off the words, and the schedule of a run
// on the engines (device.Load with `neff run`'s deterministic inputs; a run
// that stops keeps the schedule up to there and says why).
func Build(gen isa.Gen, f *neff.File, sgs []neff.Subgraph, file string) (*Data, error) {
	return BuildWith(gen, f, sgs, file, nil)
}

// BuildWith is Build with the engine times given (`--engine-time`: they
// override the compute model's, as in `neff run`).
func BuildWith(gen isa.Gen, f *neff.File, sgs []neff.Subgraph, file string, engineTime map[isa.Opcode]int64) (*Data, error) {
	p, err := device.FromNEFF(f, sgs, gen)
	if err != nil {
		return nil, err
	}
	a, err := inspect.AnalyzeProgram(p, inspect.Options{})
	if err != nil {
		return nil, err
	}
	d := &Data{File: file, Target: gen.String(), Streams: a.Streams, Schedule: []Schedule{}, Waits: []Wait{}, Lint: inspect.LintOf(a)}
	if d.Budget, err = inspect.BudgetFrom(a); err != nil {
		return nil, err
	}
	d.Lint.Budget = nil // the page shows it once
	queueOf := map[string]string{}
	for _, w := range a.Words {
		queueOf[fmt.Sprintf("%s %s %d", w.Subgraph, strings.ToUpper(w.Engine), w.Offset)] = w.Queue
	}
	im, err := device.LoadProgram(p, nil) // the program analysed is the one run: resolved once
	if err != nil {
		return nil, err
	}
	tl := &device.Timeline{} // every word's issue: how long each wait took
	res, runErr := im.Run(device.NEFFOptions{Exec: device.Sim, EngineTime: engineTime, Timeline: tl})
	if runErr != nil {
		d.RunError = runErr.Error()
	}
	if res != nil {
		for _, r := range res.Subgraphs {
			s := Schedule{Subgraph: r.Name, TimeNS: r.Stats.TimeNS, Transfers: []Transfer{}}
			d.KernelTimeNS = max(d.KernelTimeNS, r.Stats.TimeNS)
			for _, mv := range r.Stats.Schedule {
				q := queueOf[fmt.Sprintf("%s %d", mv.Stream, mv.Offset)]
				en := strings.ToLower(strings.TrimPrefix(mv.Stream, r.Name+" "))
				s.Transfers = append(s.Transfers, Transfer{mv.Stream, en, mv.Offset, mv.Word, q, mv.Note, mv.IssueNS, mv.DueNS})
			}
			d.Schedule = append(d.Schedule, s)
		}
		d.KernelTimeNS = runTimeNS(res)
	}
	d.Lint.KernelTimeNS = d.KernelTimeNS
	d.Waits = waitGraph(gen, sgs, a)
	waited := waitTimes(tl)
	for i := range d.Waits {
		w := &d.Waits[i]
		w.WaitNS = -1
		if ns, ok := waited[fmt.Sprintf("%s %d", w.Waiter, w.Offset)]; ok {
			w.WaitNS = ns
		}
	}
	d.WaitSummary = summarise(d.Waits)
	return d, nil
}

// runTimeNS is the run's time as `neff run` prints it: the longest
// subgraph's simulated time (they run one after another, one core each).
func runTimeNS(res *device.Result) int64 {
	var t int64
	for _, r := range res.Subgraphs {
		t = max(t, r.Stats.TimeNS)
	}
	return t
}

// waitTimes reads how long each word waited off the run's timeline
// (Chrome trace events, a track per stream): a word issued after its
// stream was ready — the word before it issued, or ended, for a compute
// word whose engine was busy — waited the difference. Keyed "sg00 POOL 64".
func waitTimes(tl *device.Timeline) map[string]int64 {
	type track struct{ pid, tid int }
	names := map[track]string{}
	for _, e := range tl.Events {
		if e.Ph == "M" && e.Name == "thread_name" {
			if n, ok := e.Args["name"].(string); ok {
				names[track{e.Pid, e.Tid}] = n
			}
		}
	}
	out := map[string]int64{}
	ready := map[track]int64{}
	last := map[track]string{}
	for _, e := range tl.Events {
		k := track{e.Pid, e.Tid}
		name, ok := names[k]
		if e.Ph != "X" || !ok || strings.HasSuffix(name, " DMA") || strings.HasPrefix(name, "DMA engine") {
			continue
		}
		off, _ := e.Args["offset"].(string)
		at := int64(math.Round(e.Ts * 1000))
		end := at
		if _, span := e.Args["engine time"]; span { // a compute word's time on its engine
			end = at + int64(math.Round(e.Dur*1000))
		}
		if off != last[k] { // a word's first event: its issue
			var n int64
			fmt.Sscanf(off, "0x%x", &n)
			out[fmt.Sprintf("%s %d", name, n)] = max(0, at-ready[k])
			last[k] = off
		}
		ready[k] = max(ready[k], end)
	}
	return out
}

// rowKey is a wait's summary row: its subgraph, stream and writers.
func rowKey(w *Wait) string {
	return w.Subgraph + "|" + w.Waiter + "|" + strings.Join(w.WriterStreams, ",")
}

// summarise groups the waits by subgraph, waiting stream and the streams
// that write their semaphores, the longest total first.
func summarise(waits []Wait) []WaitRow {
	out := []WaitRow{}
	at := map[string]int{}
	for _, w := range waits {
		k := rowKey(&w)
		i, ok := at[k]
		if !ok {
			i = len(out)
			at[k] = i
			out = append(out, WaitRow{Subgraph: w.Subgraph, Waiter: w.Waiter, Writers: w.WriterStreams, Semaphores: []int{}, LongestOffset: w.Offset})
		}
		r := &out[i]
		r.Waits++
		if !slices.Contains(r.Semaphores, w.Semaphore) {
			r.Semaphores = append(r.Semaphores, w.Semaphore)
			slices.Sort(r.Semaphores)
		}
		if w.WaitNS > 0 {
			r.TotalNS += w.WaitNS
			if w.WaitNS > r.LongestNS {
				r.LongestNS, r.LongestOffset = w.WaitNS, w.Offset
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].TotalNS > out[j].TotalNS })
	return out
}

// pageWaits are the waits the page embeds: of each summary row the
// MaxPageWaits longest, in their order, without writer_places; and how
// many it leaves out.
func pageWaits(waits []Wait) ([]Wait, int) {
	byRow := map[string][]int{}
	for i := range waits {
		k := rowKey(&waits[i])
		byRow[k] = append(byRow[k], i)
	}
	keep := make([]bool, len(waits))
	for _, idx := range byRow {
		sort.SliceStable(idx, func(a, b int) bool { return waits[idx[a]].WaitNS > waits[idx[b]].WaitNS })
		for _, i := range idx[:min(len(idx), MaxPageWaits)] {
			keep[i] = true
		}
	}
	out := []Wait{}
	for i, w := range waits {
		if keep[i] {
			w.WriterPlaces = []Writer{} // the page shows the writers' text
			out = append(out, w)
		}
	}
	return out, len(waits) - len(out)
}

// waitGraph is every word that waits on a semaphore through its EVENTS
// (field-tables §2.1) with the words that write that semaphore in its
// subgraph: an EVENTS update, or a DMA's completion.
func waitGraph(gen isa.Gen, sgs []neff.Subgraph, a *inspect.Analysis) []Wait {
	out := []Wait{}
	for si := range sgs {
		sg := &sgs[si]
		writers := map[int][]Writer{}
		seen := map[string]bool{}
		addWriter := func(sem int, w Writer) {
			if k := fmt.Sprint(sem, w); !seen[k] {
				seen[k] = true
				writers[sem] = append(writers[sem], w)
			}
		}
		type waiter struct {
			stream string
			engine string
			off    int
			word   string
			sem    int
			value  int
		}
		var waits []waiter
		for _, en := range sg.Engines {
			name := sg.Name + " " + strings.ToUpper(en.Key)
			d := isa.NewDecoder(gen, en.Code)
			for d.Next() {
				in := d.Inst()
				ev, ok := in.Events()
				if !ok {
					continue
				}
				word := in.Def().Mnemonic()
				if ev.WaitMode() != isa.WaitModeNone {
					waits = append(waits, waiter{name, en.Key, d.Offset(), word, int(ev.WaitIdx()), int(ev.SemaphoreValue())})
				}
				if ev.UpdateMode() != isa.UpdateModeNone {
					addWriter(int(ev.UpdateIdx()), Writer{sg.Name, en.Key, d.Offset(), word, false})
				}
			}
		}
		for _, w := range a.Words {
			if w.Subgraph == sg.Name {
				addWriter(w.Semaphore, Writer{w.Subgraph, w.Engine, w.Offset, w.Mnemonic, true})
			}
		}
		writerStreams := map[int][]string{}
		for sem, ws := range writers {
			seen := map[string]bool{}
			list := []string{}
			for _, w := range ws {
				t := sg.Name + " " + strings.ToUpper(w.Engine)
				if w.Completion {
					t += " (DMA completion)"
				}
				if !seen[t] {
					seen[t] = true
					list = append(list, t)
				}
			}
			sort.Strings(list)
			writerStreams[sem] = list
		}
		for _, w := range waits {
			ws := writers[w.sem]
			n := len(ws)
			ws = append([]Writer{}, ws[:min(n, MaxWriters)]...)
			text := make([]string, len(ws))
			for i := range ws {
				text[i] = ws[i].text()
			}
			out = append(out, Wait{sg.Name, w.stream, w.engine, w.off, w.word, w.sem, w.value, text, n, ws, writerStreams[w.sem], -1})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Subgraph < out[j].Subgraph })
	return out
}

//go:embed page.html
var pageHTML string

var page = template.Must(template.New("page").Funcs(template.FuncMap{
	"us":           func(ns int64) string { return fmt.Sprintf("%.3f", float64(ns)/1000) },
	"maxPageWaits": func() int { return MaxPageWaits },
	"maxWriters":   func() int { return MaxWriters },
	"sems": func(ss []int) string {
		parts := make([]string, len(ss))
		for i, v := range ss {
			parts[i] = fmt.Sprintf("$S[%d]", v)
		}
		return strings.Join(parts, " ")
	},
	"pct":  func(f float64) string { return fmt.Sprintf("%.1f%%", 100*f) },
	"join": strings.Join,
	"hex":  func(n int) string { return fmt.Sprintf("%#x", n) },
	"opcodes": func(m map[string]int) string {
		var parts []string
		for k, v := range m {
			parts = append(parts, fmt.Sprintf("%s %d", k, v))
		}
		sort.Strings(parts)
		return strings.Join(parts, ", ")
	},
}).Parse(pageHTML))

// Write writes the page: d, its waits cut to the longest of each summary
// row (pageWaits).
func Write(w io.Writer, d *Data) error {
	pd := *d
	pd.Waits, pd.WaitsLeftOut = pageWaits(d.Waits)
	d = &pd
	js, err := json.Marshal(d)
	if err != nil {
		return err
	}
	// json.Marshal writes <, > and & as \u003c…: nothing in it ends the script element
	return page.Execute(w, struct {
		*Data
		JSON template.JS
	}{d, template.JS(js)})
}
