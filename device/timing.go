package device

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"time"

	"ndma/dtype"
	"ndma/internal/compute"
	"ndma/internal/suggest"
	"ndma/internal/timing"
	"ndma/isa"
	"ndma/neff"
)

// The packet-level DMA timing of a NEFF run (package timing, docs/sim.md):
// every dma[] block a 0xc1 trigger fires is timed by the model from the
// block itself — its rows, where it reads and writes, its queue's engines;
// every inline 0xd4 DGE word from its lowering (sim's wordTransfer). Words
// the model does not time (ndma run's words, the scalar movers) keep the
// first-order cost of sim/cost.go (INFERRED, RATIONALE.md).

// BlockTransfer is block b of queue q, spread over engines DMA engines
// (the block's completion increment: the queue's num_queues, neff.md §4.7,
// each engine incrementing once), as the timing model sees it: per
// descriptor, its written side's rows — the innermost size in bytes when
// that dimension is contiguous (step 1), else one element — repeated over
// the outer sizes; read and written memory (SB for the state-buffer
// variable, HBM for every other); a cast when the dtypes differ.
func BlockTransfer(sg *neff.Subgraph, q *neff.Queue, b *neff.Block, engines int) *timing.Transfer {
	t := &timing.Transfer{Queue: q.Name, Block: b.ID, Engines: max(engines, 1), From: timing.SB, To: timing.SB, Issuer: q.Owner}
	side := func(name string) timing.Mem {
		if v, ok := sg.Var(name); ok && v.Type == "state-buffer" {
			return timing.SB
		}
		return timing.HBM
	}
	for k := range b.Desc {
		d := &b.Desc[k]
		if k == 0 { // INFERRED: a block's descriptors read and write alike (every one observed does)
			t.From, t.To = side(d.From), side(d.To)
			if d.From == "" && len(d.FromArr) > 0 {
				t.From = side(d.FromArr[0].From)
			}
		}
		if d.Op == "cast" || d.FromDtype != d.ToDtype {
			t.Cast = true
		}
		if len(d.ToSizes) == 0 {
			continue
		}
		elem := int64(1)
		if dt, err := dtype.FromNEFF(d.ToDtype); err == nil && dt.Size() > 0 {
			elem = int64(dt.Size())
		}
		row, count := d.ToSizes[0], int64(1)
		if len(d.ToSteps) > 0 && d.ToSteps[0] != 1 { // not contiguous: one element a row
			row, count = elem, max(d.ToSizes[0]/elem, 1)
		}
		for _, s := range d.ToSizes[1:] {
			if s > 0 && count > (1<<40)/s { // a resolved block is far smaller (MaxRuns): never overflow
				count = 1 << 40
				break
			}
			count *= max(s, 0)
		}
		if row <= 0 || count <= 0 {
			continue
		}
		run := timing.Run{Bytes: row, Count: count}
		// the DRAM side's rows one after another (hw-timing §2.1): its row step is its row bytes
		dram, sizes, steps := t.From == timing.HBM, d.FromSizes, d.FromSteps
		if !dram {
			sizes, steps = d.ToSizes, d.ToSteps
		}
		run.Contiguous = (t.From == timing.HBM || t.To == timing.HBM) && contiguous(sizes, steps)
		// INFERRED (hw-timing §2.1, one example): the one block kind seen
		// carrying 8 semaphore bytes, conv2d_2's reloads, is the one whose
		// DRAM side is written with trailing dimensions of size 1 ([256 128
		// 1 1]); every 2-D block of the training kernels carries 4
		if (dram || t.To == timing.HBM) && len(sizes) > 2 && !slices.ContainsFunc(sizes[2:], func(n int64) bool { return n != 1 }) {
			t.WideSemaphore = true
		}
		// C1: DRAM → DRAM reading one element at a time (hw-timing §2.5)
		if t.From == timing.HBM && t.To == timing.HBM && len(d.FromSizes) > 0 && d.FromSizes[0] <= elem && !contiguous(d.FromSizes, d.FromSteps) {
			run.Element = elem
		}
		t.Rows = append(t.Rows, run)
	}
	return t
}

// contiguous reports whether a descriptor side's rows follow one another:
// step 1 within a row and a row step equal to the row's bytes.
func contiguous(sizes, steps []int64) bool {
	if len(sizes) == 0 || len(steps) == 0 || steps[0] != 1 {
		return false
	}
	return len(sizes) < 2 || len(steps) < 2 || steps[1] == sizes[0]
}

// Model is the timing model's constants for gen (timing.For).
func Model(gen isa.Gen) timing.Params { return timing.For(gen) }

// wordTime is how long each word of stream s holds its engine on a clocked
// run: the time given for its opcode (Options.EngineTime, `--engine-time`),
// else the compute model's (timing.Compute: engine, opcode, sizes); the
// DMA words ndma executes take none (their time is the DMA model's). given
// says which words' times were given.
func wordTime(gen isa.Gen, s *Stream, given map[isa.Opcode]int64) (ns func(*isa.Inst) int64, isGiven func(*isa.Inst) bool) {
	cm := timing.ComputeFor(gen)
	engine := cmp.Or(s.Key, s.Engine)
	cache := map[*isa.Inst]int64{}
	var sizer *compute.Engine // one for the stream: an engine per word was most of a large run's timing cost
	ns = func(in *isa.Inst) int64 {
		op := in.Opcode()
		if t, ok := given[op]; ok && !computed[op] {
			return t
		}
		if computed[op] {
			return 0
		}
		if t, ok := cache[in]; ok {
			return t
		}
		if sizer == nil {
			sizer = compute.NewSizer(gen)
		}
		sz, _ := sizer.SizeOf(in)
		t := cm.NS(engine, op, sz)
		cache[in] = t
		return t
	}
	isGiven = func(in *isa.Inst) bool {
		_, ok := given[in.Opcode()]
		return ok && !computed[in.Opcode()]
	}
	return ns, isGiven
}

// ComputeModel is the compute model's constants for gen (timing.ComputeFor).
func ComputeModel(gen isa.Gen) timing.Compute { return timing.ComputeFor(gen) }

// KernelTime is the kernel time of a NEFF as `ndma neff run` predicts it
// (issue 32: one time everywhere — lint, lower --stats and report print
// this): the NEFF run on the engines with the DMA and compute models,
// compute words for their EVENTS only (the time depends on the words, not
// on the data), engine times given override the compute model's. It is
// the latest subgraph's end (each subgraph runs on its own core); err is
// the run's, with the time up to where it stopped.
func KernelTime(gen isa.Gen, f *neff.File, sgs []neff.Subgraph, engineTime map[isa.Opcode]int64) (int64, error) {
	im, err := Load(gen, f, sgs, nil)
	if err != nil {
		return 0, err
	}
	res, err := im.Run(NEFFOptions{Exec: Sim, DMAOnly: true, EngineTime: engineTime})
	var ns int64
	if res != nil {
		for _, r := range res.Subgraphs {
			ns = max(ns, r.Stats.TimeNS)
		}
	}
	return ns, err
}

// EngineTime reads one engine time given by hand (`--engine-time
// OPCODE=DURATION`, Python's engine_time): the opcode, by mnemonic or
// number, and the duration — Go's form (1.2us, 1.2µs, 1200ns, 1ms) or a
// bare number of nanoseconds, 0 to 1 h. Refused: a word ndma's DMA
// executors run or a NEFF run resolves to DMA words (their time is the
// DMA model's); an unknown name lists the opcodes it takes.
func EngineTime(name, dur string) (isa.Opcode, int64, error) {
	d, err := isa.LookupName(name)
	if err != nil {
		return 0, 0, suggest.Unknown("opcode", name, timedOpcodes())
	}
	if Computed(d.Opcode) {
		return 0, 0, fmt.Errorf("ndma computes %s (its DMA time is the model's)", d.Mnemonic())
	}
	if resolvedToDMA[d.Opcode] { // the run replaces the word by the DMA words it names: a time given it would be ignored
		return 0, 0, fmt.Errorf("ndma runs %s as the DMA words it resolves to (their time is the model's)", d.Mnemonic())
	}
	ns, err := parseNS(dur)
	if err != nil {
		return 0, 0, err
	}
	return d.Opcode, ns, nil
}

// timedOpcodes are the mnemonics EngineTime takes: the words with a layout
// that neither ndma's DMA executors run nor a NEFF run resolves to DMA
// words (what an unknown opcode's message lists).
func timedOpcodes() []string {
	var out []string
	for op := range 256 {
		d := isa.Lookup(isa.Opcode(op))
		if d.Decoded() && !Computed(d.Opcode) && !resolvedToDMA[d.Opcode] {
			out = append(out, d.Mnemonic())
		}
	}
	return out
}

// resolvedToDMA are the pseudo words a NEFF run resolves into DMA words
// (ResolveEngine): the 0xc1 trigger into its block's DMA_DIRECT2D words,
// the 0xd4 (and its 0xda extension) into the DGE word it names, the scalar
// movers' pseudos into 0xaa/0xab. Their time is the DMA model's.
var resolvedToDMA = map[isa.Opcode]bool{
	isa.OpPseudoDMATrigger: true, isa.OpPseudoDMADirect2D: true, isa.OpPseudoExtension: true,
	isa.OpPseudoTensorLoad: true, isa.OpPseudoTensorStore: true,
}

// parseNS is a duration: Go's form or a bare number of nanoseconds; not
// negative, at most an hour.
func parseNS(s string) (int64, error) {
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		if n < 0 || n > int64(time.Hour) {
			return 0, fmt.Errorf("%d ns: want 0 to 1h", n)
		}
		return n, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("duration %q: want e.g. 1.2us, 1200ns or a number of ns", s)
	}
	if d < 0 || d > time.Hour {
		return 0, fmt.Errorf("duration %s: want 0 to 1h", d)
	}
	return d.Nanoseconds(), nil
}
