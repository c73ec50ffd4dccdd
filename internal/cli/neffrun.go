package cli

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"

	"ndma/dge"
	"ndma/internal/array"
	"ndma/internal/num"
	"ndma/isa"
	"ndma/mem"
	"ndma/neff"
	"ndma/ref"
	"ndma/sched"
	"ndma/sim"
)

// neffExec runs one NEFF engine stream's words: 0xd4 words relocated and
// 0xc1 triggers fired into their block's words with the NEFF's variables,
// then executed; words outside ndma's ISA (PE, ACT, DVE compute, labels,
// ordering) are not computed, but their EVENTS wait and update are honoured
// so the semaphore handshake runs as on the device.
type neffExec struct {
	inner  sched.Executor
	sm     *sim.Machine // the engines (nil with --exec ref)
	regs   *ref.Machine // for the EVENTS of words not computed
	vt     *dge.Vars
	gen    isa.Gen
	sg     *neff.Subgraph
	en     *neff.Engine
	place  map[int]uint64
	names  *addrNames
	notRun map[string]int
	note   string // what the last word moved (the schedule)
	warn   func(string)
	queues []int // the DMA engines the last word's DMAs used
}

func (x *neffExec) Exec(in *isa.Inst) error {
	x.note, x.queues = "", x.queues[:0]
	words, queue := []isa.Inst{*in}, ""
	switch in.Opcode() {
	case isa.OpPseudoDMADirect2D:
		hard, soft := x.sg.CheckPseudo(x.gen, x.en, in) // never run a walk outside its variable
		if len(hard) > 0 {
			return fmt.Errorf("%s", strings.Join(hard, "; "))
		}
		for _, msg := range soft {
			x.warn(msg)
		}
		r, err := dge.Relocate(in, x.vt)
		if err != nil {
			return err
		}
		words[0] = r
		sem, _ := in.Uint("semaphore")
		queue = x.sg.QueueOf(x.en, int(sem))
	case isa.OpPseudoDMATrigger:
		f, err := x.sg.Fire(x.gen, x.en, in, x.place)
		if err != nil {
			return err
		}
		words, queue = f.Words, fmt.Sprintf("%s block %d", f.Queue.Name, f.Block.ID)
	}
	if !executes[words[0].Opcode()] { // not computed: only its EVENTS
		apply, err := ref.Events(x.regs, in)
		if err != nil {
			return err
		}
		apply()
		x.notRun[in.Def().Mnemonic()]++
		return nil
	}
	var bytes int64
	for i := range words {
		// only the first word waits (it carries the trigger's events): a
		// refusal there leaves nothing done
		if err := x.inner.Exec(&words[i]); err != nil {
			return err
		}
		if x.sm != nil {
			x.queues = append(x.queues, x.sm.Queues...)
		}
		bytes += dstBytes(&words[i])
	}
	if bytes > 0 {
		x.note = x.names.describe(&words[0], len(words), bytes, queue)
	}
	return nil
}

// dstBytes is what a DMA_DIRECT2D-shaped word writes (0 for other words).
func dstBytes(w *isa.Inst) int64 {
	if w.Opcode() != isa.OpDMAMemcpy {
		return 0
	}
	e, _ := w.Int("dst_elem_size")
	if e == 0 {
		e = 65536
	}
	n0, _ := w.Int("dst_num_elem[0]")
	n1, _ := w.Int("dst_num_elem[1]")
	return e * n0 * n1
}

// addrNames names Neuron addresses by the NEFF variable they fall in.
type addrNames struct {
	gen  isa.Gen
	vars []neff.Variable
	at   map[int]uint64
}

// name is "x+0x100", "SB p0+0x37c00", or the bare address.
func (n *addrNames) name(a uint64) string {
	if r, part, off := isa.Map(n.gen).Split(a); r == isa.SBUF {
		return fmt.Sprintf("SB p%d+%#x", part, off)
	}
	for _, v := range n.vars {
		if b, ok := n.at[v.ID]; ok && v.Type != "state-buffer" && a >= b && a < b+uint64(max(v.Size, 1)) {
			return fmt.Sprintf("%s+%#x", v.Name, a-b)
		}
	}
	return fmt.Sprintf("%#x", a)
}

// describe is a schedule entry: the first word's ends, the bytes, the queue.
func (n *addrNames) describe(w *isa.Inst, words int, bytes int64, queue string) string {
	s := fmt.Sprintf("%d bytes", bytes)
	if w.Opcode() == isa.OpDMAMemcpy {
		src, _ := w.Uint("src_start_addr")
		dst, _ := w.Uint("dst_start_addr")
		s = fmt.Sprintf("%s → %s, %s", n.name(src), n.name(dst), s)
	}
	if words > 1 {
		s += fmt.Sprintf(" in %d words", words)
	}
	if queue != "" {
		s += " on " + queue
	}
	return s
}

// executes are the words ndma runs; the rest of a NEFF stream only syncs.
var executes = map[isa.Opcode]bool{
	isa.OpDMAMemcpy: true, isa.OpDMAMemcpy2: true, isa.OpDMAImmediate: true, isa.OpDMAIndirect: true,
	isa.OpDMATranspose: true, isa.OpDMAGatherTranspose: true, isa.OpTestEventSem: true, isa.OpCompactControlInst: true,
}

// runNEFFRun is `ndma neff run FILE [--in NAME=FILE.npy] [--out NAME=FILE.npy]`.
func runNEFFRun(e *env, args []string) error {
	cl := newCmdLine(e, "neff run", "FILE", "", "generation (default: the kelf's target)")
	var ins, outs multi
	cl.fs.Var(&ins, "in", "NAME=FILE.npy: an input variable's data (default: deterministic random data); repeatable")
	cl.fs.Var(&outs, "out", "NAME=FILE.npy: write a variable after the run, in its dtype and shape when neff.json names them; repeatable")
	execMode := cl.fs.String("exec", "sim", "sim (the engines, DMA time) or ref")
	trace := cl.fs.Bool("trace", false, "print every word executed, in order (the schedule lists only words that moved bytes)")
	timeline := cl.fs.String("timeline", "", "FILE.json: the run as Chrome trace events (one process per subgraph: each is a core)")
	sub := cl.fs.String("subgraph", "", "run only this subgraph (sg00, …)")
	path, gen, f, sgs, err := openNEFF(e, cl, args)
	if err != nil {
		return err
	}
	if *execMode != "sim" && *execMode != "ref" {
		return usagef("--exec %q: sim or ref", *execMode)
	}
	given, wanted := map[string]string{}, map[string]string{}
	for _, kv := range []struct {
		flag string
		list multi
		into map[string]string
	}{{"--in", ins, given}, {"--out", outs, wanted}} {
		for _, s := range kv.list {
			k, v, ok := strings.Cut(s, "=")
			if !ok || k == "" || v == "" {
				return usagef("%s %q: want NAME=FILE.npy", kv.flag, s)
			}
			kv.into[k] = v
		}
	}
	if *sub != "" {
		var keep []neff.Subgraph
		for _, sg := range sgs {
			if sg.Name == *sub {
				keep = append(keep, sg)
			}
		}
		if keep == nil {
			return usagef("--subgraph %q: the NEFF has no such subgraph", *sub)
		}
		sgs = keep
	}
	tensors := f.Tensors()
	// check every name before anything runs: no half-written outputs
	holds := map[string]bool{} // variables that hold bytes (placed, sized)
	known := map[string]bool{}
	for _, sg := range sgs {
		place, err := sg.Place()
		if err != nil {
			return err
		}
		for _, v := range sg.Variables() {
			known[v.Name] = true
			if _, ok := place[v.ID]; ok && v.Size > 0 && v.Type != "state-buffer" {
				holds[v.Name] = true
			}
		}
	}
	for _, m := range []map[string]string{given, wanted} {
		for k := range m {
			switch {
			case !known[k]:
				return usagef("variable %q is in no subgraph of %s", k, path)
			case !holds[k]:
				return usagef("variable %q holds no bytes of its own (a state-buffer, dge-table or unsized variable)", k)
			}
		}
	}
	o := neffRunOpts{gen: gen, exec: *execMode, given: given}
	if *trace {
		o.trace = func(l string) { fmt.Fprintln(e.stdout, l) }
	}
	if *timeline != "" {
		o.tl = &sched.Timeline{}
	}
	res, err := neffRun(f, sgs, o)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	for _, r := range res.subgraphs {
		fmt.Fprintf(e.stdout, "DMA schedule of %s (%d transfers, %.3f µs):\n", r.name, len(r.stats.Schedule), float64(r.stats.TimeNS)/1000)
		for _, mv := range r.stats.Schedule {
			when := fmt.Sprintf("@%.3fµs", float64(mv.IssueNS)/1000)
			if mv.DueNS > mv.IssueNS {
				when = fmt.Sprintf("@%.3f–%.3fµs", float64(mv.IssueNS)/1000, float64(mv.DueNS)/1000)
			}
			fmt.Fprintf(e.stdout, "  %-18s %s %#x %s: %s\n", when, mv.Stream, mv.Offset, mv.Word, mv.Note)
		}
		for _, w := range r.stats.Warnings {
			fmt.Fprintf(e.stdout, "warning: %s\n", w)
		}
	}
	for _, w := range res.warnings {
		fmt.Fprintf(e.stdout, "warning: %s\n", w)
	}
	// outputs last, all or none (staged): each in its dtype and shape when
	// neff.json says them
	names := make([]string, 0, len(wanted))
	for name := range wanted {
		names = append(names, name)
	}
	sort.Strings(names)
	var out staged
	defer out.abort()
	var done []string
	for _, name := range names {
		data := res.vars[name]
		arr := &array.Array{Descr: "|u1", Shape: []int{len(data)}, Data: data}
		if t, ok := tensors[name]; ok {
			if a, ok := typed(t, data); ok {
				arr = a
			}
		}
		var b bytes.Buffer
		if err := array.Write(&b, arr); err != nil {
			return err
		}
		if err := out.add(wanted[name], b.Bytes()); err != nil {
			return fmt.Errorf("--out %s=%s: %w", name, wanted[name], err)
		}
		done = append(done, fmt.Sprintf("wrote %s: %s %s %v", wanted[name], name, arr.Descr, arr.Shape))
	}
	if o.tl != nil {
		var b bytes.Buffer
		if err := o.tl.Write(&b); err != nil {
			return err
		}
		if err := out.add(*timeline, b.Bytes()); err != nil {
			return fmt.Errorf("--timeline: %w", err)
		}
	}
	if err := out.commit(); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	for _, l := range done {
		fmt.Fprintln(e.stdout, l)
	}
	var words int
	var longest int64
	for _, r := range res.subgraphs {
		words += r.stats.Words
		longest = max(longest, r.stats.TimeNS)
	}
	fmt.Fprintf(e.stdout, "%d words executed in %d subgraphs (one core each, run side by side), simulated DMA time %.3f µs\n", words, len(sgs), float64(longest)/1000)
	if len(res.notRun) > 0 {
		var parts []string
		for k, v := range res.notRun {
			parts = append(parts, fmt.Sprintf("%s %d", k, v))
		}
		sort.Strings(parts)
		fmt.Fprintf(e.stdout, "not computed (ndma ran only their EVENTS: waits and semaphore updates): %s\n", strings.Join(parts, ", "))
	}
	return nil
}

// neffRunOpts steer neffRun.
type neffRunOpts struct {
	gen   isa.Gen
	exec  string            // "sim" or "ref"
	given map[string]string // --in: variable → .npy path
	trace func(string)
	tl    *sched.Timeline
}

// neffRunResult is a finished run: per subgraph its core's memory and the
// scheduler's stats; every sized variable's bytes at the end (HBM variables
// as the last subgraph left them — device memory is shared).
type neffRunResult struct {
	subgraphs []subgraphRun
	vars      map[string][]byte
	notRun    map[string]int
	warnings  []string // each once, in order
}

func (r *neffRunResult) warn(msg string) {
	if !slices.Contains(r.warnings, msg) {
		r.warnings = append(r.warnings, msg)
	}
}

type subgraphRun struct {
	name  string
	mem   *mem.Memory
	place map[int]uint64
	stats sched.Stats
}

// neffRun runs the subgraphs one after another, each on its own core (own
// SBUF, PSUM and semaphores); HBM variables other than inputs and constants
// carry from one subgraph to the next by name, as device memory is shared
// (INFERRED, RATIONALE.md).
func neffRun(f *neff.File, sgs []neff.Subgraph, o neffRunOpts) (*neffRunResult, error) {
	res := &neffRunResult{vars: map[string][]byte{}, notRun: map[string]int{}}
	tensors := f.Tensors()
	for si := range sgs {
		sg := &sgs[si]
		m := mem.New(o.gen)
		place, err := sg.Place()
		if err != nil {
			return nil, err
		}
		vars := sg.Variables()
		if err := loadVars(f, sg, vars, place, o.given, tensors, m); err != nil {
			return nil, err
		}
		for _, v := range vars { // what earlier subgraphs left in shared device memory
			if b, ok := res.vars[v.Name]; ok && v.Type != "input" && v.Type != "file" && v.Type != "state-buffer" && int64(len(b)) == v.Size {
				if err := m.Write(place[v.ID], b); err != nil {
					return nil, fmt.Errorf("variable %q at %#x: %w", v.Name, place[v.ID], err)
				}
			}
		}
		vt := relocVars(sg, place)
		names := &addrNames{gen: o.gen, vars: vars, at: place}
		var ss []*sched.Stream
		for ei := range sg.Engines {
			en := &sg.Engines[ei]
			x := &neffExec{regs: &ref.Machine{Mem: m}, vt: vt, gen: o.gen, sg: sg, en: en, place: place, names: names, notRun: res.notRun}
			x.warn = func(msg string) { res.warn(fmt.Sprintf("%s %s: %s", sg.Name, en.Key, msg)) }
			st := &sched.Stream{Name: sg.Name + " " + strings.ToUpper(en.Key), Code: en.Code, Mem: m, Exec: x, Core: si,
				Note: func() string { return x.note }}
			if o.exec == "sim" {
				sm := &sim.Machine{Mem: m}
				x.inner, x.sm = sm, sm
				st.Clock = func() int64 { return sm.Stats.TimeNS }
				st.Queues = func() []int { return x.queues }
			} else {
				x.inner = &ref.Machine{Mem: m}
			}
			ss = append(ss, st)
		}
		st, err := sched.RunTimeline(o.gen, ss, o.trace, o.tl)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", sg.Name, err)
		}
		res.subgraphs = append(res.subgraphs, subgraphRun{sg.Name, m, place, st})
		for _, v := range vars {
			a, placed := place[v.ID]
			if !placed || v.Size <= 0 || v.Type == "state-buffer" {
				continue
			}
			data := make([]byte, v.Size)
			if err := m.Read(a, data); err != nil {
				return nil, fmt.Errorf("variable %q at %#x: %w", v.Name, a, err)
			}
			res.vars[v.Name] = data
		}
	}
	return res, nil
}

// typed is a variable's bytes as the tensor neff.json describes, when the
// dtype is one ndma knows and the shape covers exactly those bytes.
func typed(t neff.Tensor, data []byte) (*array.Array, bool) {
	dt, err := neff.DType(t.Dtype)
	if err != nil || t.Dtype == "" {
		return nil, false
	}
	descr, err := array.Descr(dt)
	size, ok := num.Size(dt)
	if err != nil || !ok {
		return nil, false
	}
	n := 1
	for _, d := range t.Shape {
		n *= d
	}
	if n*size != len(data) {
		return nil, false
	}
	return &array.Array{Descr: descr, Shape: append([]int(nil), t.Shape...), Data: data}, true
}

// loadVars writes a subgraph's data into memory: `file` variables from their
// .npy members, variables named by --in from their files (dtype and size
// checked against neff.json), other inputs deterministic random values
// (uniform in [-1, 1) for float types, random bytes otherwise).
func loadVars(f *neff.File, sg *neff.Subgraph, vars []neff.Variable, place map[int]uint64, given map[string]string, tensors map[string]neff.Tensor, m *mem.Memory) error {
	r := rand.New(rand.NewPCG(1, 2))
	for _, v := range vars {
		a, placed := place[v.ID]
		if !placed || v.Size <= 0 {
			if given[v.Name] != "" {
				return fmt.Errorf("--in %s: variable %q (%s) holds no bytes", v.Name, v.Name, v.Type)
			}
			continue
		}
		var data []byte
		switch {
		case given[v.Name] != "":
			arr, err := array.Load(given[v.Name])
			if err != nil {
				return err
			}
			if t, ok := tensors[v.Name]; ok {
				if want, ok := typed(t, make([]byte, v.Size)); ok && (want.Descr != arr.Descr || !slices.Equal(want.Shape, arr.Shape)) {
					return fmt.Errorf("--in %s=%s: %s %v data, the NEFF's %s is %s %v", v.Name, given[v.Name], arr.Descr, arr.Shape, v.Name, t.Dtype, t.Shape)
				}
			}
			data = arr.Data
		case v.Type == "file":
			b, ok := f.Member(sg.Dir + "/" + v.FileName)
			if !ok {
				return fmt.Errorf("file variable %q: no member %s/%s", v.Name, sg.Dir, v.FileName)
			}
			var err error
			if data, err = array.RawData(b); err != nil { // the raw bytes: any dtype (fp16 included)
				return fmt.Errorf("%s/%s: %w", sg.Dir, v.FileName, err)
			}
		case v.Type == "input":
			data = make([]byte, v.Size)
			dt, err := neff.DType(tensors[v.Name].Dtype)
			size, _ := num.Size(dt)
			if err != nil || !num.IsFloat(dt) || size == 0 {
				for i := range data {
					data[i] = byte(r.Uint32())
				}
				break
			}
			for i := 0; i+size <= len(data); i += size {
				bits := num.FromFloat32(dt, float32(r.Float64()*2-1))
				for k := 0; k < size; k++ {
					data[i+k] = byte(bits >> (8 * k))
				}
			}
		default:
			continue
		}
		if int64(len(data)) != v.Size && v.Type != "file" {
			return fmt.Errorf("variable %q holds %d bytes, %d given", v.Name, v.Size, len(data))
		}
		if int64(len(data)) > v.Size {
			return fmt.Errorf("variable %q holds %d bytes, its file %d", v.Name, v.Size, len(data))
		}
		if err := m.Write(a, data); err != nil {
			return fmt.Errorf("variable %q at %#x: %w", v.Name, a, err)
		}
	}
	return nil
}
