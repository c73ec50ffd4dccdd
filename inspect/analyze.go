// Package inspect answers what NEFF users ask of a NEFF's DMA offline:
// lint (bytes per descriptor, small transfers, the cost model's time split
// into fixed overhead and transfer), load-time budgets against neff.md
// §4.8, the OOB pre-flight of indirect words against their index tensors,
// the diff of two builds, and the data of the HTML report (inspect/report).
// The CLI (`ndma neff lint|diff|report|check --in`) is flags and printing
// over it.
package inspect

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"ndma/device"
	"ndma/dge"
	"ndma/isa"
	"ndma/neff"
	"ndma/sdma"
	"ndma/sim"
)

// CostModel is a word's DMA time split into the fixed overhead (the
// transfer's start, the hardware DGE's instruction) and the transfer
// itself. Lint and the report use it through this interface, so a finer
// timing model can replace the default.
type CostModel interface {
	WordNS(backend dge.Backend, qs []sdma.Queue) (fixedNS, transferNS int64)
	Name() string
}

// SimCost is the first-order cost model of docs/sim.md (sim.EstimateNS): 1.3 µs per
// transfer and 600 ns per hardware-DGE instruction fixed (neff.md §4.8's
// "fixed costs"), the slowest engine's bytes and descriptor fetches the
// transfer.
type SimCost struct{}

// Name is the model's name for listings.
func (SimCost) Name() string { return "first-order cost model of docs/sim.md" }

// WordNS splits sim.EstimateNS into its fixed part and the rest.
func (SimCost) WordNS(backend dge.Backend, qs []sdma.Queue) (int64, int64) {
	fixed := int64(sim.TransferNS)
	if backend == dge.Pool || backend == dge.RTL {
		fixed += sim.DGEInstructionNS
	}
	return fixed, sim.EstimateNS(backend, qs) - fixed
}

// Options steer Analyze.
type Options struct {
	Cost CostModel // nil: SimCost
	// Subgraph and Engine keep only the streams they name ("": all);
	// Engine is matched without case (pool, POOL).
	Subgraph, Engine string
}

// Word is one DMA word a NEFF's engine stream executes, lowered: a 0xd4
// relocated, or one of the words a 0xc1 trigger's block fires into.
type Word struct {
	Subgraph string `json:"subgraph"`
	Engine   string `json:"engine"`
	Offset   int    `json:"offset"`   // the word as written in the stream
	Mnemonic string `json:"mnemonic"` // as written (PSEUDO_DMA_DIRECT2D, PSEUDO_DMA_TRIGGER)
	Queue    string `json:"queue,omitempty"`
	// Block is the fired dma[] block (its member and index, "sg00/Pool.json
	// dma[0]"), Piece the word's index among the block's words; BlockID
	// is -1 for a word that is no block's.
	Block    string `json:"block,omitempty"`
	BlockID  int    `json:"block_id"`
	Piece    int    `json:"piece"`
	Resolved string `json:"resolved_mnemonic"` // the word that runs (DMA_DIRECT2D, …)
	Kind     string `json:"kind"`              // dge kind: DIRECT2D, INDIRECT, …
	Backend  string `json:"backend"`
	// Descriptors counts both rings (M2S and S2M, the completion included);
	// MaxRing is the most one ring of one DMA engine holds.
	Descriptors int `json:"descriptors"`
	MaxRing     int `json:"max_ring_descriptors"`
	// M2S lists the lengths of the data descriptors read (M2S).
	M2S               []int  `json:"-"`
	Bytes             uint64 `json:"bytes"`
	Partitions        int    `json:"partitions"`
	BytesPerPartition uint64 `json:"bytes_per_partition"`
	Semaphore         int    `json:"semaphore"` // the completion semaphore
	FixedNS           int64  `json:"fixed_ns"`
	TransferNS        int64  `json:"transfer_ns"`
	Engines           []int  `json:"dma_engines"` // the DMA engines (channels) its rings are on
	inst              isa.Inst
}

// Place names the word for findings: "sg00 pool 0x80", and for a fired
// block's word "sg00 pool 0x40 qPoolIn block 0 word 3".
func (w *Word) Place() string {
	s := fmt.Sprintf("%s %s %#x", w.Subgraph, w.Engine, w.Offset)
	if w.BlockID >= 0 {
		s += fmt.Sprintf(" %s block %d word %d", w.Queue, w.BlockID, w.Piece)
	}
	return s
}

// Inst is the resolved word that runs.
func (w *Word) Inst() *isa.Inst { return &w.inst }

// Stream is one engine stream: its words by opcode.
type Stream struct {
	Subgraph string         `json:"subgraph"`
	Engine   string         `json:"engine"`
	Instr    string         `json:"instr"`
	Words    int            `json:"words"`
	Opcodes  map[string]int `json:"opcodes"`
	DMAWords int            `json:"dma_words"`
	// Waits and Updates are the semaphores the stream's words wait on and
	// update through their EVENTS (field-tables §2.1), sorted.
	Waits   []int `json:"waits"`
	Updates []int `json:"updates"`
}

// Analysis is every DMA word of the selected streams, lowered.
type Analysis struct {
	Gen      isa.Gen
	Cost     string
	Streams  []Stream
	Words    []Word
	Problems []string // steps that do not resolve or lower (located)
	sgs      []neff.Subgraph
	place    device.Placement
	program  *device.Program
	filtered bool // some streams left out (Options.Subgraph, Engine)
}

// Analyze resolves the NEFF as `neff run` does (device.FromNEFF:
// variables placed once, 0xd4 relocated, 0xc1 fired) and lowers each word
// of every selected stream as the engines do (on its step's ring).
func Analyze(gen isa.Gen, sgs []neff.Subgraph, opt Options) (*Analysis, error) {
	p, err := device.FromNEFF(nil, sgs, gen)
	if err != nil {
		return nil, err
	}
	return AnalyzeProgram(p, opt)
}

// Program is the resolved NEFF the analysis read: a report runs it as it is.
func (a *Analysis) Program() *device.Program { return a.program }

// AnalyzeProgram is Analyze of a NEFF program already resolved (device.FromNEFF).
func AnalyzeProgram(p *device.Program, opt Options) (*Analysis, error) {
	if p.NEFF == nil {
		return nil, fmt.Errorf("inspect: the program is not a NEFF's")
	}
	cost := opt.Cost
	if cost == nil {
		cost = SimCost{}
	}
	gen, sgs := p.Gen, p.NEFF.Subgraphs
	a := &Analysis{Gen: gen, Cost: cost.Name(), sgs: sgs, place: p.NEFF.Place, program: p, filtered: opt.Subgraph != "" || opt.Engine != ""}
	for k := range p.Streams {
		ps := &p.Streams[k]
		if opt.Subgraph != "" && ps.Subgraph != opt.Subgraph || opt.Engine != "" && !strings.EqualFold(ps.Key, opt.Engine) {
			continue
		}
		sg := &sgs[ps.Core]
		en := engineOf(sg, ps.Key)
		st := Stream{Subgraph: sg.Name, Engine: en.Key, Instr: en.Instr, Opcodes: map[string]int{}}
		waits, updates := map[int]bool{}, map[int]bool{}
		for i := range ps.Steps {
			w := &ps.Steps[i].Word
			st.Opcodes[w.Def().Mnemonic()]++
			st.Words++
			if ev, ok := w.Events(); ok {
				if ev.WaitMode() != isa.WaitModeNone {
					waits[int(ev.WaitIdx())] = true
				}
				if ev.UpdateMode() != isa.UpdateModeNone {
					updates[int(ev.UpdateIdx())] = true
				}
			}
		}
		st.Waits, st.Updates = sortedKeys(waits), sortedKeys(updates)
		if ps.Err != nil {
			a.Problems = append(a.Problems, fmt.Sprintf("%s %s: %v", sg.Name, en.Key, ps.Err))
		}
		for i := range ps.Steps {
			s := &ps.Steps[i]
			where := fmt.Sprintf("%s %s offset %#x (%s)", sg.Name, en.Key, s.Offset, s.Word.Def().Mnemonic())
			if s.Err != nil {
				a.Problems = append(a.Problems, fmt.Sprintf("%s: %v", where, s.Err))
				if s.Run == nil {
					continue
				}
			}
			blockID, block := -1, ""
			if s.Ring == device.RuntimeRing { // a fired block
				if t, ok := s.Word.PseudoTrigger(); ok {
					blockID = int(t.BlockID())
				}
				if b, ok := sg.Block(en, s.Queue, blockID); ok {
					block = b.Where
				} else {
					block = fmt.Sprintf("%s block %d", s.Queue, blockID)
				}
			}
			words := s.Words()
			for k := range words {
				w := Word{Subgraph: sg.Name, Engine: en.Key, Offset: s.Offset, Mnemonic: s.Word.Def().Mnemonic(),
					Queue: s.Queue, Block: block, BlockID: blockID, Piece: k, inst: words[k]}
				ok, err := lowerInto(gen, &w, cost, s.Ring, s.Engines)
				if err != nil {
					a.Problems = append(a.Problems, fmt.Sprintf("%s word %d: %v", where, k, err))
					continue
				}
				if ok {
					a.Words = append(a.Words, w)
					st.DMAWords++
				}
			}
		}
		a.Streams = append(a.Streams, st)
	}
	if len(a.Streams) == 0 {
		return nil, fmt.Errorf("no stream matches subgraph %q, engine %q", opt.Subgraph, opt.Engine)
	}
	return a, nil
}

// lowerInto lowers w's word and fills its counts; false for a word the DGE
// does not move.
func lowerInto(gen isa.Gen, w *Word, cost CostModel, ring, engines int) (bool, error) {
	p, lw, err := sdma.Lower(&w.inst, gen, dge.Options{Engines: engines}, sdma.Options{RingSize: ring})
	if p == nil && err != nil && errors.Is(err, dge.ErrNotLowered) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	w.Resolved, w.Kind, w.Backend, w.Semaphore = w.inst.Def().Mnemonic(), p.Kind.String(), p.Backend.String(), p.Semaphore
	for _, q := range lw.Queues {
		w.Descriptors += len(q.M2S) + len(q.S2M)
		w.MaxRing = max(w.MaxRing, len(q.M2S), len(q.S2M))
		w.Engines = append(w.Engines, q.DMA)
		for i := range q.M2S {
			n := q.M2S[i].Length()
			w.M2S = append(w.M2S, n)
			w.Bytes += uint64(n)
		}
	}
	m := isa.Map(p.Gen)
	w.Partitions = max(p.Src.Partitions(m), p.Dst.Partitions(m))
	if w.Partitions > 0 {
		w.BytesPerPartition = w.Bytes / uint64(w.Partitions)
	}
	backend := p.Backend
	if ring == device.RuntimeRing {
		backend = dge.NoDGE // a fired block's descriptors were built at load (DGE mode "none", neff.md §4.8): no DGE instruction to pay
	}
	w.FixedNS, w.TransferNS = cost.WordNS(backend, lw.Queues)
	sort.Ints(w.Engines)
	return true, nil
}

// engineOf is the engine of sg whose key is key.
func engineOf(sg *neff.Subgraph, key string) *neff.Engine {
	for i := range sg.Engines {
		if sg.Engines[i].Key == key {
			return &sg.Engines[i]
		}
	}
	return nil
}

func sortedKeys(m map[int]bool) []int {
	out := make([]int, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Ints(out)
	return out
}
