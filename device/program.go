package device

import (
	"fmt"
	"slices"
	"strings"

	"ndma/asm"
	"ndma/dge"
	"ndma/internal/sched"
	"ndma/isa"
	"ndma/neff"
)

// Program is what runs on a device, in one form whatever it came from — an
// assembled or binary file (FromObject) or a NEFF (FromNEFF): per-core
// engine streams of steps, every word resolved once before execution
// (pseudo words relocated, triggers fired). The resolved steps are what
// executes and what every tool lists, lowers, checks and times.
type Program struct {
	Gen     isa.Gen
	Streams []Stream
	// NEFF is the file the program was resolved from and where its
	// variables live (nil: assembled words).
	NEFF *NEFFSource
	// EventsOnly: a word ndma does not compute (Computed) runs only its
	// EVENTS wait and update, so a NEFF's semaphore handshake runs as on
	// the device; otherwise the executor refuses it.
	EventsOnly bool
}

// NEFFSource is the NEFF a program was resolved from: its subgraphs
// (subgraph i on core i) and the one placement of their variables.
type NEFFSource struct {
	File      *neff.File
	Subgraphs []neff.Subgraph
	Place     Placement
}

// Step is one word of a stream as written and as it executes (the
// relocated 0xd4, the words a 0xc1 trigger fires), with its queue, block
// (Transfer), ring, schedule note, or why it cannot run.
type Step = sched.Step

// Stream is one engine's instruction stream on one core.
type Stream struct {
	Engine   string // a NEURON_ENGINE name ("POOL", …); "" when the program names none
	Core     int
	Subgraph string // the NEFF subgraph it belongs to ("": assembled)
	Key      string // the NEFF engine's key ("pool", "act", …)
	Steps    []Step
	Err      error    // a decode error after the last step
	Warnings []string // what resolution found but lets run (a NEFF's soft findings)
}

// Name is how reports name the stream: "POOL core 0" ("stream core 0"
// without an engine), "sg00 POOL" in a NEFF.
func (s *Stream) Name() string {
	if s.Subgraph != "" {
		return s.Subgraph + " " + s.Engine
	}
	name := s.Engine
	if name == "" {
		name = "stream"
	}
	return fmt.Sprintf("%s core %d", name, s.Core)
}

// FromObject is an assembled or binary program with its pseudo words
// (0xd4) relocated through vars (field-tables §9; nil: left as they are,
// and an executor refuses them).
func FromObject(obj *asm.Object, vars *dge.Vars) *Program {
	p := &Program{Gen: obj.Gen}
	for k, s := range obj.Streams {
		steps, err := Resolve(obj.Gen, obj.StreamCode(k), vars)
		p.Streams = append(p.Streams, Stream{Engine: s.Engine, Core: s.Core, Steps: steps, Err: err})
	}
	return p
}

// FromNEFF resolves a NEFF once (docs/neff.md): its variables placed by the
// one allocator (Place), subgraph i on core i, every engine stream of every
// subgraph resolved (ResolveEngine: each 0xd4 checked and relocated, each
// 0xc1 fired into its block's words). gen GenAny takes the file's target
// (f may be nil when gen is given).
func FromNEFF(f *neff.File, sgs []neff.Subgraph, gen isa.Gen) (*Program, error) {
	if gen == isa.GenAny && f != nil {
		_, gen = f.Target()
	}
	place, err := Place(sgs)
	if err != nil {
		return nil, err
	}
	p := &Program{Gen: gen, EventsOnly: true, NEFF: &NEFFSource{File: f, Subgraphs: sgs, Place: place}}
	_ = EachNEFFStream(gen, sgs, place, nil, func(s *Stream) error {
		p.Streams = append(p.Streams, *s)
		return nil
	})
	return p, nil
}

// EachNEFFStream is the one resolution of a NEFF's engine streams: in
// subgraph then engine order, each stream keep selects (nil: all) is
// resolved (ResolveEngine) with its variables where place puts them and
// handed to f, which may keep it; the next is resolved once f returns, so a
// caller that keeps none holds one stream at a time. It stops at f's first
// error.
func EachNEFFStream(gen isa.Gen, sgs []neff.Subgraph, place Placement, keep func(*neff.Subgraph, *neff.Engine) bool, f func(*Stream) error) error {
	for si := range sgs {
		sg := &sgs[si]
		vars := sg.Variables()
		for ei := range sg.Engines {
			en := &sg.Engines[ei]
			if keep != nil && !keep(sg, en) {
				continue
			}
			steps, ws, err := ResolveEngine(gen, vars, sg, en, place[si])
			if err := f(&Stream{Engine: strings.ToUpper(en.Key), Core: si, Subgraph: sg.Name, Key: en.Key, Steps: steps, Err: err, Warnings: ws}); err != nil {
				return err
			}
		}
	}
	return nil
}

// Resolve decodes a stream and relocates its pseudo words once: a word
// that cannot be relocated keeps the reason in its step (the run stops
// there, after the words before it); err is a decode error after the last
// step.
func Resolve(gen isa.Gen, code []byte, vars *dge.Vars) ([]Step, error) {
	steps, err := sched.Decode(gen, code)
	if vars == nil {
		return steps, err
	}
	for i := range steps {
		s := &steps[i]
		if s.Word.Opcode() != isa.OpPseudoDMADirect2D && !dge.IsPseudoMem2D(s.Word.Opcode()) {
			continue
		}
		r, rerr := dge.Relocate(&s.Word, vars)
		if rerr != nil {
			s.Err = rerr
			continue
		}
		s.Run = []isa.Inst{r}
	}
	return steps, err
}

// cores is the number of cores the program's streams name (at least 1).
func (p *Program) cores() int {
	n := 1
	for _, s := range p.Streams {
		n = max(n, s.Core+1)
	}
	return n
}

// phase is a group of streams that run together under one scheduler: a
// NEFF subgraph (its name and core), or an assembled program's streams.
type phase struct {
	name    string
	core    int
	streams []int // indexes into Program.Streams
}

// phases are a NEFF's subgraphs one after another (only those named, when
// names is not nil; a subgraph of no engine too), or an assembled
// program's streams together.
func (p *Program) phases(names []string) []phase {
	if p.NEFF == nil {
		all := make([]int, len(p.Streams))
		for k := range all {
			all[k] = k
		}
		return []phase{{streams: all}}
	}
	var out []phase
	for si := range p.NEFF.Subgraphs {
		ph := phase{name: p.NEFF.Subgraphs[si].Name, core: si}
		if names != nil && !slices.Contains(names, ph.name) {
			continue
		}
		for k := range p.Streams {
			if p.Streams[k].Core == si {
				ph.streams = append(ph.streams, k)
			}
		}
		out = append(out, ph)
	}
	return out
}
