package nkic

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"

	"ndma/asm"
	"ndma/device"
	"ndma/dge"
	"ndma/dtype"
	"ndma/internal/compute"
	"ndma/internal/timing"
	"ndma/isa"
	"ndma/mem"
	"ndma/ref"
	"ndma/sdma"
	"ndma/sim"
)

// Array is a tensor's bytes in C order.
type Array struct {
	DType dtype.DType
	Shape []int
	Data  []byte
}

// Options steer a run.
type Options struct {
	// Ref runs the DMA words on the reference executor (package ref)
	// instead of the descriptor engines (package sim): no DMA time.
	Ref bool
	// Detail keeps, per DMA call, the DGE program's lines and every
	// descriptor (costly: the words are lowered a second time).
	Detail bool
	// Fast runs the bytes on the reference and takes each word's time
	// (its lowering on the engines, on the packet-level model: wordNS)
	// once per word shape (the
	// word with its addresses reduced to what the lowering depends on,
	// costKey): the first word of a shape runs on the engines, the rest
	// on the reference with the time it gave. Indirect words always run
	// on the engines (their descriptors follow the index values).
	Fast bool
	// Brief keeps no words (hex and text) in the trace: a caller that
	// wants the outputs only (ndma.nki's jit) does not pay for printing.
	Brief bool
}

// Trace is what a run did, call by call (docs/nki.md "Trace").
type Trace struct {
	Target string      `json:"target"`
	Calls  []CallTrace `json:"calls"`
	DMANS  int64       `json:"dma_ns"` // the DMA calls' predicted time, one after another
	// ComputeNS is the compute calls' predicted time (internal/timing's
	// compute model; 0 under Ref), one after another.
	ComputeNS int64  `json:"compute_ns"`
	Words     int    `json:"words"`   // DMA words issued
	Inexact   []int  `json:"inexact"` // the compute calls ndma's words did not compute
	Model     string `json:"model"`   // which time model the times are
}

// CallTrace is one call as it ran.
type CallTrace struct {
	Index       int         `json:"index"`
	Op          string      `json:"op"`
	File        string      `json:"file,omitempty"`
	Line        int         `json:"line,omitempty"`
	Kind        string      `json:"kind"` // dma, compute
	Mode        string      `json:"dge_mode,omitempty"`
	Backend     string      `json:"backend,omitempty"`
	Queue       string      `json:"queue,omitempty"`
	Engine      string      `json:"engine,omitempty"`
	Exact       bool        `json:"exact"`
	Note        string      `json:"note,omitempty"`
	Words       []WordTrace `json:"words,omitempty"`
	Bytes       int64       `json:"bytes"`
	Descriptors int         `json:"descriptors"`
	DMAs        []int       `json:"dma_engines,omitempty"` // detail: the DMA engines the descriptors run on
	RowsSkipped int         `json:"rows_skipped"`
	TimeNS      int64       `json:"time_ns"`
	DGE         []string    `json:"dge,omitempty"`              // detail: the DGE program's lines
	Desc        []string    `json:"descriptors_list,omitempty"` // detail: one line per descriptor
}

// WordTrace is one word: as issued (hex and canonical text) and, where the
// runtime relocates it (hwdge), as it executes.
type WordTrace struct {
	Hex      string `json:"hex"`
	Text     string `json:"text"`
	Resolved string `json:"resolved,omitempty"`
}

// Compile compiles every call (nothing runs): the words, or the first
// refusal, located.
func (p *Program) Compile() ([]*Lowered, error) {
	out := make([]*Lowered, 0, len(p.Calls))
	for _, c := range p.Calls {
		lw, err := p.compileCall(c)
		if err != nil {
			return nil, locate(c, err)
		}
		out = append(out, lw)
	}
	return out, nil
}

func locate(c *Call, err error) error {
	var ce *CallError
	if errors.As(err, &ce) {
		return err
	}
	return &CallError{c, err}
}

func (p *Program) compileCall(c *Call) (*Lowered, error) {
	switch c.Op {
	case "dma_copy", "load", "store", "dma_transpose", "dma_compute":
		return p.compileDMA(c)
	}
	return p.compileComputeCall(c)
}

// runner is one run's state: the core's memory and executors.
type runner struct {
	p   *Program
	gen isa.Gen
	m   *mem.Memory
	x   *sim.Machine
	r   *ref.Machine
	ce  *compute.Engine
	opt Options

	costs map[costKey]int64 // Fast: a word shape's time
	words map[wordKey]int64 // a lowered word's packet-model time, by its shape (wordNS)
	rng   splitMix64        // the random calls' stream (random.go), seeded 0
	tmp   [2][]byte         // scratch byte images of the Go loops (compute.go's readF32, writeF32)
}

// Run compiles p and runs it on a fresh one-core device: inputs (every
// tensor of kind input, by name) loaded, the calls in order, the outputs
// (kind output) read back. On an error the outputs are nil and the trace
// holds the calls run before it.
func Run(p *Program, inputs map[string]*Array, opt Options) (map[string]*Array, *Trace, error) {
	lws, err := p.Compile()
	if err != nil {
		return nil, nil, err
	}
	return RunCompiled(p, lws, inputs, opt)
}

// RunCompiled is Run of calls Compile compiled.
func RunCompiled(p *Program, lws []*Lowered, inputs map[string]*Array, opt Options) (map[string]*Array, *Trace, error) {
	d := device.New(p.gen, 1)
	r := newRunner(p, d.Core(0), opt)
	if err := r.load(inputs); err != nil {
		return nil, nil, err
	}
	tr := r.newTrace(len(lws))
	for _, lw := range lws {
		if err := r.step(tr, lw); err != nil {
			return nil, tr, err
		}
	}
	outs := map[string]*Array{}
	for _, t := range p.Tensors {
		if t.Kind != "output" {
			continue
		}
		b, err := device.ReadArray(r.m, t.addr, t.Shape, t.esize)
		if err != nil {
			return nil, tr, fmt.Errorf("reading output %q: %w", t.Name, err)
		}
		outs[t.Name] = &Array{DType: t.dt, Shape: slices.Clone(t.Shape), Data: b}
	}
	return outs, tr, nil
}

// newRunner is a run of p on core memory m.
func newRunner(p *Program, m *mem.Memory, opt Options) *runner {
	r := &runner{p: p, gen: p.gen, m: m, ce: compute.New(p.gen), opt: opt}
	if opt.Ref || opt.Fast {
		r.r = &ref.Machine{Mem: r.m}
	}
	if !opt.Ref {
		r.x = &sim.Machine{Mem: r.m, Shares: true}
	}
	if opt.Fast {
		r.costs = map[costKey]int64{}
	}
	return r
}

// Model strings: which time model a trace's times are.
const (
	modelSim  = "DMA: the packet-level model (docs/sim.md \"DMA time\": each word alone on idle engines, its DGE, trigger latency, packets); compute: the compute model (docs/sim.md \"Compute time\"); calls one after another"
	modelFast = "DMA: the packet-level model (docs/sim.md \"DMA time\"), each word shape's time computed once (its lowering on the engines, on that model) and reused, bytes by the reference; compute: the compute model (docs/sim.md \"Compute time\"); calls one after another"
	modelNone = "none (ref executor)"
)

func (r *runner) newTrace(n int) *Trace {
	tr := &Trace{Target: targetName(r.p.gen), Calls: make([]CallTrace, 0, n), Inexact: []int{}, Model: modelSim}
	switch {
	case r.opt.Ref:
		tr.Model = modelNone
	case r.opt.Fast:
		tr.Model = modelFast
	}
	return tr
}

// step runs one compiled call and adds it to the trace.
func (r *runner) step(tr *Trace, lw *Lowered) error {
	ct, err := r.call(lw)
	if n := len(tr.Calls); n == cap(tr.Calls) {
		// doubled, not append's 1.25× for a large slice: a session's trace
		// grows to 280 bytes a call, and each growth is fresh memory to fault in
		grown := make([]CallTrace, n, 2*n+256)
		copy(grown, tr.Calls)
		tr.Calls = grown
	}
	tr.Calls = append(tr.Calls, ct)
	if ct.Kind == "dma" {
		tr.DMANS += ct.TimeNS
		tr.Words += len(lw.Run)
	} else {
		tr.ComputeNS += ct.TimeNS
		if !ct.Exact {
			tr.Inexact = append(tr.Inexact, ct.Index)
		}
	}
	if err != nil {
		return locate(lw.Call, err)
	}
	return nil
}

// load writes every input tensor's array; each must be given, of the
// tensor's dtype and shape, and no array may name another tensor.
func (r *runner) load(inputs map[string]*Array) error {
	for name := range inputs {
		t := r.p.byName[name]
		if t == nil || t.Kind != "input" {
			return fmt.Errorf("%w: %q is not an input tensor of the program", ErrInput, name)
		}
	}
	for _, t := range r.p.Tensors {
		if t.Kind != "input" {
			continue
		}
		a := inputs[t.Name]
		if a == nil {
			return fmt.Errorf("%w: input %q (%s %v) is not given", ErrInput, t.Name, t.DType, t.Shape)
		}
		if a.DType != t.dt && a.DType.Descr() != t.dt.Descr() { // bf16 and fp8 travel as the unsigned integers of their width
			return fmt.Errorf("%w: input %q is %s, the tensor %s", ErrInput, t.Name, a.DType, t.DType)
		}
		if !slices.Equal(a.Shape, t.Shape) {
			return fmt.Errorf("%w: input %q has shape %v, the tensor %v", ErrInput, t.Name, a.Shape, t.Shape)
		}
		if int64(len(a.Data)) != t.elems*int64(t.esize) {
			return fmt.Errorf("%w: input %q holds %d bytes, its shape %d", ErrInput, t.Name, len(a.Data), t.elems*int64(t.esize))
		}
		if err := device.LoadArray(r.m, t.addr, t.Shape, a.Data); err != nil {
			return fmt.Errorf("%w: input %q: %v", ErrInput, t.Name, err)
		}
	}
	return nil
}

// call runs one compiled call.
func (r *runner) call(lw *Lowered) (CallTrace, error) {
	ct := headerOf(lw, !r.opt.Brief)
	if ct.Kind == "compute" {
		if !r.opt.Ref {
			ct.TimeNS = lw.ns
		}
		if lw.eval != nil {
			return ct, lw.eval(r)
		}
		for k := range lw.Run {
			if err := r.ce.Exec(r.m, &lw.Run[k]); err != nil {
				return ct, err
			}
		}
		return ct, nil
	}
	if lw.skip {
		ct.RowsSkipped, ct.Bytes = 1, 0 // the whole transfer
		return ct, nil
	}
	var idx []uint32
	if lw.idx != nil {
		var err error
		if idx, err = r.indices(lw); err != nil {
			return ct, err
		}
		for _, v := range idx {
			if int64(v) >= lw.ind.bound || lw.idx.dt == dtype.I32 && int32(v) < 0 {
				ct.RowsSkipped++
			}
		}
	}
	if r.opt.Detail {
		r.detail(lw, idx, &ct)
	}
	var regs [64]uint32
	for k, v := range lw.Regs {
		regs[k] = v
	}
	for k := range lw.Run {
		if err := r.exec(lw, &lw.Run[k], &regs, &ct); err != nil {
			return ct, r.oob(lw, idx, err)
		}
	}
	return ct, nil
}

// exec runs one word: on the engines (its time and descriptors counted),
// on the reference, or — Fast — on the reference with the time its shape
// took on the engines.
func (r *runner) exec(lw *Lowered, in *isa.Inst, regs *[64]uint32, ct *CallTrace) error {
	var key costKey
	cached := false
	if r.costs != nil && lw.idx == nil {
		var ok bool
		if key, ok = r.costKey(lw.Backend, in, regs); ok {
			var ns int64
			if ns, cached = r.costs[key]; cached {
				r.r.Regs = *regs
				if err := r.r.Exec(in); err != nil {
					return err
				}
				ct.TimeNS += ns
				ct.Descriptors += int(r.costs[key.descs()])
				return nil
			}
		}
	}
	if r.x == nil {
		r.r.Regs = *regs
		return r.r.Exec(in)
	}
	r.x.Regs, r.x.Backend = *regs, lw.Backend
	t0, d0 := r.x.Stats.TimeNS, r.x.Stats.Descriptors
	if err := r.x.Exec(in); err != nil {
		return err
	}
	ns := r.x.Stats.TimeNS - t0
	if tr := r.x.LastTransfer(); tr != nil { // a lowered word: the packet-level model's time, the word alone
		ns = r.wordNS(lw, tr)
	}
	ct.TimeNS += ns
	ct.Descriptors += r.x.Stats.Descriptors - d0
	if r.costs != nil && key.ok && len(r.costs) < maxCosts {
		r.costs[key] = ns
		r.costs[key.descs()] = int64(r.x.Stats.Descriptors - d0)
	}
	return nil
}

// wordNS is a DMA call's word on the packet-level model (docs/sim.md "DMA
// time"), alone on idle engines from its issue to its last write: as a
// NEFF's inline DGE word (its issuer's DGE, then the trigger latency) in
// the DGE modes — HW DGE issued by SP, SW DGE by Pool — and as a fired
// block, SP-issued, with static descriptors.
func (r *runner) wordNS(lw *Lowered, tr *timing.Transfer) int64 {
	tr.Queue, tr.Issuer, tr.Inline = lw.Queue, "sp", true
	switch lw.Mode {
	case ModeSW:
		tr.Issuer = "pool"
	case ModeHW:
	default:
		tr.Inline = false
	}
	key, keyed := shapeOf(tr)
	if ns, ok := r.words[key]; keyed && ok { // a loop's calls share a shape: its time once
		return ns
	}
	res, err := timing.Time(timing.For(r.gen), tr, 0, false)
	if err != nil {
		return 0
	}
	if keyed && len(r.words) < maxCosts {
		if r.words == nil {
			r.words = map[wordKey]int64{}
		}
		r.words[key] = res.EndNS
	}
	return res.EndNS
}

// wordKey is what a lowered word's packet-model time depends on (the
// issuer, sides, cast, and each engine's one run), for words of at most
// 16 single-run shares.
type wordKey struct {
	issuer       string
	inline, cast bool
	from, to     timing.Mem
	n            int
	runs         [16]timing.Run
	engines      [16]int
}

// shapeOf is tr's key; false when it has more shares, or a share more
// runs, than a key holds.
func shapeOf(tr *timing.Transfer) (wordKey, bool) {
	k := wordKey{issuer: tr.Issuer, inline: tr.Inline, cast: tr.Cast, from: tr.From, to: tr.To, n: len(tr.Shares)}
	if len(tr.Shares) > len(k.runs) || len(tr.Rows) > 0 {
		return k, false
	}
	for i, sh := range tr.Shares {
		if len(sh) != 1 {
			return k, false
		}
		k.runs[i], k.engines[i] = sh[0], tr.ShareEngines[i]
	}
	return k, true
}

// indices reads a call's index tile as the DGE does: index j at partition
// p0 + j mod 128, byte offset off0 + 4·(j div 128) (field-tables §11.5).
func (r *runner) indices(lw *Lowered) ([]uint32, error) {
	n := int(lw.ind.dims[lw.ind.ind].n)
	out := make([]uint32, n)
	stride := isa.Map(r.gen).SBUFStride
	var b [4]byte
	for j := range n {
		a := lw.idx.addr + uint64(j%128)*stride + 4*uint64(j/128)
		if err := r.m.Read(a, b[:]); err != nil {
			return nil, fmt.Errorf("reading index %d: %w", j, err)
		}
		out[j] = binary.LittleEndian.Uint32(b[:])
	}
	return out, nil
}

// oob turns an executor's lane fault on an index bound into the OOBError
// NKI raises.
func (r *runner) oob(lw *Lowered, idx []uint32, err error) error {
	lane := -1
	var le *sdma.LaneError
	var f *sim.Fault
	switch {
	case errors.As(err, &le): // the engines' lowering names the lane
		lane = le.Lane
	case errors.As(err, &f) && f.Rule != "": // a rule's fault carries its lane (−1: none)
		lane = f.Lane
	case lw.ind != nil: // the engines check lanes in order: the first index past the bound
		for j, v := range idx {
			if int64(v) >= lw.ind.bound || lw.idx.dt == dtype.I32 && int32(v) < 0 {
				lane = j
				break
			}
		}
	}
	if lw.ind == nil || lane < 0 || lane >= len(idx) || !errors.Is(err, isa.ErrBounds) {
		return err
	}
	v := int64(idx[lane])
	if lw.idx.dt == dtype.I32 {
		v = int64(int32(idx[lane]))
	}
	return &OOBError{Lane: lane, Index: v, Bound: lw.ind.bound, Axis: lw.ind.axis}
}

// wordTrace is a word's hex and canonical text (the disassembler's: asm
// reads it back to the same bytes).
func wordTrace(in *isa.Inst, run *isa.Inst) WordTrace {
	var buf [512]byte // a word's text fits: no growing from nil (a fifth of the text's time)
	b, _ := isa.AppendEncoded(buf[:0], *in)
	w := WordTrace{Hex: hex.EncodeToString(b)}
	w.Text = string(bytes.TrimSuffix(asm.AppendInst(buf[:0], in), []byte("\n")))
	if run != nil {
		w.Resolved = string(bytes.TrimSuffix(asm.AppendInst(buf[:0], run), []byte("\n")))
	}
	return w
}

// detail lowers the call's words again to list their DGE programs and
// descriptors (the executors lower them too but keep nothing).
func (r *runner) detail(lw *Lowered, idx []uint32, ct *CallTrace) {
	var index sdma.IndexFunc
	if idx != nil {
		index = func(_, j int) (uint32, error) {
			if j >= len(idx) {
				return 0, fmt.Errorf("index %d of %d", j, len(idx))
			}
			return idx[j], nil
		}
	}
	for k := range lw.Run {
		p, low, err := sdma.Lower(&lw.Run[k], r.gen, dge.Options{Backend: lw.Backend, Regs: lw.Regs}, sdma.Options{Regs: lw.Regs, Index: index})
		if err != nil || p == nil {
			ct.DGE = append(ct.DGE, "# not lowered: "+fmt.Sprint(err))
			continue
		}
		ct.DGE = append(ct.DGE, strings.Split(strings.TrimSuffix(string(low.AppendTrace(nil)), "\n"), "\n")...)
		for _, q := range low.Queues {
			if !slices.Contains(ct.DMAs, q.DMA) {
				ct.DMAs = append(ct.DMAs, q.DMA)
			}
			for i := range q.M2S {
				ct.Desc = append(ct.Desc, fmt.Sprintf("DMA[%d] M2S[%d] %s", q.DMA, i, q.M2S[i].String()))
			}
			for i := range q.S2M {
				ct.Desc = append(ct.Desc, fmt.Sprintf("DMA[%d] S2M[%d] %s", q.DMA, i, q.S2M[i].String()))
			}
		}
	}
}

// Listing is the compiled calls as `ndma nki lower` prints them: each
// call's words and, for a DMA word, its DGE program and descriptors
// lowered without memory (an index tensor's values assumed the identity,
// as `ndma lower` does: the run reads the real ones).
func (p *Program) Listing(lws []*Lowered) []CallTrace {
	r := &runner{p: p, gen: p.gen}
	out := make([]CallTrace, 0, len(lws))
	for _, lw := range lws {
		ct := header(lw)
		if lw.Mode != "" && !lw.skip {
			r.detail(lw, nil, &ct)
			if lw.idx != nil {
				ct.Note = "indices assumed idx[j] = j (lowering has no memory; `ndma nki run` reads the index tensor)"
			}
		}
		out = append(out, ct)
	}
	return out
}

// header is a call's trace before it runs: where it is, how it issues,
// its words as issued (and, relocated, as executed).
func header(lw *Lowered) CallTrace { return headerOf(lw, true) }

// headerOf is header, with the words' hex and text only when words is set.
func headerOf(lw *Lowered, words bool) CallTrace {
	c := lw.Call
	ct := CallTrace{Index: c.index, Op: c.Op, File: c.File, Line: c.Line, Mode: lw.Mode, Queue: lw.Queue, Engine: lw.Engine, Exact: lw.Exact, Note: lw.Note, Bytes: lw.Bytes, Kind: "compute"}
	if lw.Mode != "" {
		ct.Kind, ct.Exact, ct.Backend = "dma", true, lw.Backend.String()
	}
	for k := range lw.Words {
		if !words {
			break
		}
		var run *isa.Inst
		if lw.Words[k].Opcode() != lw.Run[k].Opcode() {
			run = &lw.Run[k]
		}
		ct.Words = append(ct.Words, wordTrace(&lw.Words[k], run))
	}
	return ct
}
