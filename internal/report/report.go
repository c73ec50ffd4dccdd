// Package report builds the one-page HTML report of a NEFF (`ndma neff
// report`): the engines' streams, the DMA schedule as an SVG timeline per
// queue, queue utilization, the bytes-per-descriptor histogram, the
// semaphore wait graph, the lint findings and the budget. The page is
// self-contained — its data embedded as JSON, its style and script inline,
// nothing fetched — so it works from a file:// URL.
package report

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
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
}

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
	// KernelTimeNS is the kernel time of the run (`neff run`'s, lint's):
	// the latest subgraph's end, DMA and compute on one clock.
	KernelTimeNS int64           `json:"kernel_time_ns"`
	Waits        []Wait          `json:"waits"`
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
	res, runErr := im.Run(device.NEFFOptions{Exec: device.Sim, EngineTime: engineTime})
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
	}
	d.Lint.KernelTimeNS = d.KernelTimeNS
	d.Waits = waitGraph(gen, sgs, a)
	return d, nil
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
		for _, w := range waits {
			ws := writers[w.sem]
			n := len(ws)
			ws = append([]Writer{}, ws[:min(n, MaxWriters)]...)
			text := make([]string, len(ws))
			for i := range ws {
				text[i] = ws[i].text()
			}
			out = append(out, Wait{sg.Name, w.stream, w.engine, w.off, w.word, w.sem, w.value, text, n, ws})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Subgraph < out[j].Subgraph })
	return out
}

//go:embed page.html
var pageHTML string

var page = template.Must(template.New("page").Funcs(template.FuncMap{
	"us":   func(ns int64) string { return fmt.Sprintf("%.3f", float64(ns)/1000) },
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

// Write writes the page.
func Write(w io.Writer, d *Data) error {
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
