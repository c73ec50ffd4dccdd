package device

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"ndma/dtype"
	"ndma/internal/suggest"
	"ndma/sim"
	"slices"
	"strconv"
	"strings"

	"ndma/dge"
	"ndma/internal/array"
	"ndma/internal/sched"
	"ndma/internal/strbuf"
	"ndma/isa"
	"ndma/neff"
	"ndma/sdma"
)

// A NEFF on a device (neff.md §4.4, §5): its subgraphs on cores 0, 1, … of
// one device — a logical core of 2 is two physical cores sharing HBM — its
// variables placed once in the shared HBM by name, inputs written once,
// every engine stream resolved once, then run.

// Placement is where a NEFF's variables live on the device: per subgraph,
// var id → Neuron address (state-buffer variables at 0: the core's SBUF).
type Placement []map[int]uint64

// Place places the variables of every subgraph once on one device: a name
// the subgraphs share is one variable at one address (device memory is
// shared: sg01's x is sg00's x); other names follow, each aligned as
// def.json says (at least 64 bytes), in subgraph then var-id order from
// HBMBase. It is ndma's one allocator: `neff info`, `lower`, `check` and
// `run` all place with it. INFERRED, RATIONALE.md.
func Place(sgs []neff.Subgraph) (Placement, error) {
	type at struct {
		addr uint64
		size int64
		sg   string
	}
	byName := map[string]at{}
	next := uint64(HBMBase)
	out := make(Placement, len(sgs))
	for si := range sgs {
		sg := &sgs[si]
		out[si] = map[int]uint64{}
		for _, v := range sg.Variables() {
			switch v.Type {
			case "state-buffer":
				out[si][v.ID] = 0
				continue
			case "dge-table":
				continue
			}
			if p, ok := byName[v.Name]; ok {
				if p.size != v.Size {
					return nil, fmt.Errorf("%s: var %d %q: %d bytes, but %d in %s (one name is one variable of the device)", sg.Dir, v.ID, v.Name, v.Size, p.size, p.sg)
				}
				out[si][v.ID] = p.addr
				continue
			}
			align := uint64(max(v.Alignment, 64))
			if align&(align-1) != 0 {
				return nil, fmt.Errorf("%s: var %d %q: alignment %d is not a power of two", sg.Dir, v.ID, v.Name, v.Alignment)
			}
			next = (next + align - 1) &^ (align - 1)
			out[si][v.ID] = next
			byName[v.Name] = at{next, v.Size, sg.Dir}
			next += uint64(max(v.Size, 64))
		}
	}
	return out, nil
}

// RelocVars is what dge.Relocate needs of a subgraph: every placed
// variable's address and the dge-table list.
func RelocVars(sg *neff.Subgraph, place map[int]uint64) *dge.Vars {
	vt := &dge.Vars{Base: make(map[uint16]uint64, len(place)), Table: sg.Table()}
	for id, a := range place {
		vt.Base[uint16(id)] = a
	}
	return vt
}

// ResolveEngine resolves one engine stream of a NEFF once: each 0xd4 checked
// against its variables (checkPseudo, pseudo.go: a walk outside its
// variable is refused — the step keeps why — a softer finding is a warning)
// and relocated; each 0xc1 trigger fired into its block's DMA_DIRECT2D
// words. Each step names its queue and what it moves (the schedule).
func ResolveEngine(gen isa.Gen, vars []neff.Variable, sg *neff.Subgraph, en *neff.Engine, place map[int]uint64) (steps []sched.Step, warnings []string, err error) {
	steps, err = sched.Decode(gen, en.Code)
	vt := RelocVars(sg, place)
	names := &addrNames{gen: gen, vars: vars, at: place}
	nrun := 0
	for i := range steps {
		switch steps[i].Word.Opcode() {
		case isa.OpPseudoDMADirect2D, isa.OpPseudoTensorLoad, isa.OpPseudoTensorStore:
			nrun++
		}
	}
	runs := make([]isa.Inst, nrun) // every relocated word of the stream in one allocation, relocated in place
	relocate := func(in *isa.Inst) ([]isa.Inst, error) {
		r := runs[:1:1]
		if err := dge.RelocateTo(&r[0], in, vt); err != nil {
			return nil, err // its slot is the next word's
		}
		runs = runs[1:]
		return r, nil
	}
	for i := range steps {
		s := &steps[i]
		switch s.Word.Opcode() {
		case isa.OpPseudoDMADirect2D:
			v, _ := s.Word.PseudoDirect2D()
			s.Queue = sg.QueueOf(en, int(v.Semaphore()))
			hard, soft := checkPseudo(gen, sg, en, &s.Word) // never run a walk outside its variable
			warnings = append(warnings, soft...)
			run, rerr := relocate(&s.Word)
			switch {
			case len(hard) > 0:
				s.Err = problemsOf(hard)
			case rerr != nil:
				s.Err = rerr
			}
			if rerr != nil {
				continue
			}
			if err := sbSpace(gen, vars, &s.Word, &run[0]); err != nil && s.Err == nil {
				s.Err = err
			}
			s.Run = run
			s.Note = names.describe(s.Run, s.Queue)
		case isa.OpPseudoTensorLoad, isa.OpPseudoTensorStore: // the scalar movers' pseudo forms (dge/reloc_mem2d.go)
			v, _ := s.Word.PseudoMem2D()
			for _, x := range vars {
				switch {
				case uint64(x.ID) != v.VarID() || s.Err != nil:
				case x.Type == "state-buffer" && isa.Map(gen).SBUFStride != 1<<18: // NEFF SB space (neff.md §4.7), not remapped here
					s.Err = fmt.Errorf("%s into the state buffer on %s (partition stride not 2^18): not supported", s.Word.Def().Mnemonic(), gen)
				default:
					s.Err = dge.Mem2DInVariable(&s.Word, uint64(x.Size))
				}
			}
			if run, rerr := relocate(&s.Word); rerr != nil {
				s.Err = cmp.Or(s.Err, rerr)
			} else {
				s.Run = run // kept with a refusal, as for a 0xd4: `lower` shows it
			}
		case isa.OpPseudoDMATrigger:
			f, ferr := Fire(gen, sg, en, &s.Word, place)
			if ferr != nil {
				s.Err = ferr
				continue
			}
			s.Run, s.Queue, s.Ring, s.Engines = f.Words, f.Queue.Name, f.Ring, f.Increment
			s.Transfer = BlockTransfer(sg, &f.Queue, f.Block, f.Increment)
			s.Note = names.describe(s.Run, fmt.Sprintf("%s block %d", f.Queue.Name, f.Block.ID))
		}
	}
	return steps, warnings, err
}

// problemList is several problems of one step: it reads as them joined by
// "; " and unwraps to each (Problems).
type problemList []error

func (p problemList) Error() string {
	var b strings.Builder
	for i, e := range p {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(e.Error())
	}
	return b.String()
}

func (p problemList) Unwrap() []error { return p }

// problemsOf is the problems msgs as one error.
func problemsOf(msgs []string) error {
	p := make(problemList, len(msgs))
	for i, m := range msgs {
		p[i] = errors.New(m)
	}
	return p
}

// Problems are the separate problems an error of a step holds: each of
// several a resolution found, else the error itself.
func Problems(err error) []error {
	var p problemList
	if errors.As(err, &p) {
		return p
	}
	return []error{err}
}

// addrNames names Neuron addresses by the NEFF variable they fall in.
type addrNames struct {
	gen   isa.Gen
	vars  []neff.Variable
	at    map[int]uint64
	notes strbuf.Arena // the notes of a stream, a few allocations in all
}

// name is "x+0x100", "SB p0+0x37c00", or the bare address.
func (n *addrNames) name(a uint64) string { return string(n.appendName(nil, a)) }

// appendName appends name(a): "SB p<partition>+0x<offset>", "<var>+0x<offset>"
// or "0x<address>" (fmt's %#x), built without fmt: every 0xd4 of a stream
// gets a schedule note.
func (n *addrNames) appendName(b []byte, a uint64) []byte {
	if r, part, off := isa.Map(n.gen).Split(a); r == isa.SBUF {
		b = append(b, "SB p"...)
		b = strconv.AppendInt(b, int64(part), 10)
		return appendHex(append(b, '+'), off)
	}
	for _, v := range n.vars {
		if b0, ok := n.at[v.ID]; ok && v.Type != "state-buffer" && a >= b0 && a < b0+uint64(max(v.Size, 1)) {
			b = append(b, v.Name...)
			return appendHex(append(b, '+'), a-b0)
		}
	}
	return appendHex(b, a)
}

// appendHex is fmt's %#x of v.
func appendHex(b []byte, v uint64) []byte { return strconv.AppendUint(append(b, "0x"...), v, 16) }

// describe is a schedule entry: the first word's ends, the bytes the words
// write, the queue ("" when they move nothing).
func (n *addrNames) describe(words []isa.Inst, queue string) string {
	var bytes int64
	for i := range words {
		bytes += dstBytes(&words[i])
	}
	if bytes == 0 {
		return ""
	}
	var buf [160]byte
	b := buf[:0]
	if v, ok := words[0].Direct2D(); ok {
		src, _ := v.SrcStartAddr().Imm() // resolved words: immediate addresses
		dst, _ := v.DstStartAddr().Imm()
		b = n.appendName(b, src)
		b = append(b, " → "...)
		b = n.appendName(b, dst)
		b = append(b, ", "...)
	}
	b = strconv.AppendInt(b, bytes, 10)
	b = append(b, " bytes"...)
	if len(words) > 1 {
		b = append(b, " in "...)
		b = strconv.AppendInt(b, int64(len(words)), 10)
		b = append(b, " words"...)
	}
	if queue != "" {
		b = append(append(b, " on "...), queue...)
	}
	return n.notes.String(b)
}

// dstBytes is what a DMA_DIRECT2D word writes (0 for other words).
func dstBytes(w *isa.Inst) int64 {
	if w.Opcode() != isa.OpDMAMemcpy {
		return 0
	}
	_, dst, _ := w.Legs2D()
	return dst.Bytes()
}

// Input is data for a NEFF input variable: its C-order bytes and, when
// known (a .npy file), its NumPy descr and shape, which must then match
// what neff.json says of the tensor.
type Input struct {
	Data  []byte
	Descr string // "<f2", … ("": not checked)
	Shape []int
	// ReadInto, when Data is nil, streams the input's Size bytes in order
	// straight into the device (a 4 GiB .npy never held whole): it hands
	// each piece to fill with its offset and returns fill's first error.
	ReadInto func(fill func(chunk []byte, off int64) error) error
	Size     int64
}

// narrowed is float32 input in as float tensor type dt's bytes (to
// nearest even, dtype.Convert, as kernel.In and Python's run take float32
// for a float tensor): converted whole, or chunk by chunk as it streams,
// an element split across two chunks carried over. The caller has checked
// that in holds whole float32 elements.
func narrowed(in Input, dt dtype.DType) (Input, error) {
	k := int64(dt.Size())
	if in.Data != nil || in.ReadInto == nil {
		out := make([]byte, int64(len(in.Data))/4*k)
		if err := dtype.Convert(out, dt, in.Data, dtype.FP32); err != nil {
			return in, err
		}
		in.Data, in.Descr = out, dt.Descr()
		return in, nil
	}
	read := in.ReadInto
	in.Size, in.Descr = in.Size/4*k, dt.Descr()
	in.ReadInto = func(fill func(chunk []byte, off int64) error) error {
		var carry [4]byte
		nc, at := 0, int64(0)
		var out []byte
		put := func(b []byte) error { // whole float32 elements
			if n := int64(len(b)) / 4 * k; int64(cap(out)) < n {
				out = make([]byte, n) // grown, then reused chunk after chunk
			} else {
				out = out[:n]
			}
			if err := dtype.Convert(out, dt, b, dtype.FP32); err != nil {
				return err
			}
			err := fill(out, at)
			at += int64(len(out))
			return err
		}
		return read(func(chunk []byte, _ int64) error { // in order (Input.ReadInto)
			if nc > 0 {
				m := copy(carry[nc:], chunk)
				nc, chunk = nc+m, chunk[m:]
				if nc < 4 {
					return nil
				}
				if err := put(carry[:]); err != nil {
					return err
				}
				nc = 0
			}
			whole := len(chunk) / 4 * 4
			if whole > 0 {
				if err := put(chunk[:whole]); err != nil {
					return err
				}
			}
			nc = copy(carry[:], chunk[whole:])
			return nil
		})
	}
	return in, nil
}

// bytes is how many bytes the input holds.
func (in Input) bytes() int64 {
	if in.Data == nil && in.ReadInto != nil {
		return in.Size
	}
	return int64(len(in.Data))
}

// InputError is an input that does not fit its variable.
type InputError struct {
	Name string
	Err  error
}

func (e *InputError) Error() string { return "input " + e.Name + ": " + e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

// Image is a NEFF loaded on a device: its variables placed and written.
type Image struct {
	Device    *Device
	Program   *Program // what runs: the NEFF resolved once
	File      *neff.File
	Subgraphs []neff.Subgraph
	Place     Placement
	vars      map[string]varAt // every sized variable by name
	inputs    map[string]Input // what it was loaded with (a twin loads alike)
}

type varAt struct {
	addr uint64
	v    neff.Variable
}

// Load places a NEFF's subgraphs on the cores of a new device (subgraph i
// on core i) and writes its data once into the shared HBM: `file`
// variables from their .npy members (the raw bytes: any dtype), inputs
// from in (checked against neff.json's dtype and shape and the variable's
// size), other inputs deterministic random values — uniform in [-1, 1) for
// float types, random bytes otherwise, seeded by the variable's name.
func Load(gen isa.Gen, f *neff.File, sgs []neff.Subgraph, in map[string]Input) (*Image, error) {
	p, err := FromNEFF(f, sgs, gen)
	if err != nil {
		return nil, err
	}
	return LoadProgram(p, in)
}

// LoadProgram is Load of a NEFF program (FromNEFF) on a new device.
func LoadProgram(p *Program, in map[string]Input) (*Image, error) {
	if p.NEFF == nil {
		return nil, errors.New("device.LoadProgram: the program is not a NEFF's")
	}
	d := New(p.Gen, max(1, len(p.NEFF.Subgraphs)))
	vars, err := loadNEFF(p, d, in)
	if err != nil {
		return nil, err
	}
	return &Image{Device: d, Program: p, File: p.NEFF.File, Subgraphs: p.NEFF.Subgraphs, Place: p.NEFF.Place, vars: vars, inputs: in}, nil
}

// loadNEFF writes a NEFF program's variables into device d's shared HBM
// (Load) and says where each variable with bytes is.
func loadNEFF(p *Program, d *Device, in map[string]Input) (map[string]varAt, error) {
	f, sgs, place := p.NEFF.File, p.NEFF.Subgraphs, p.NEFF.Place
	vars := map[string]varAt{}
	tensors := f.Tensors()
	for name := range in {
		found := false
		for si := range sgs {
			if _, ok := sgs[si].Var(name); ok {
				found = true
			}
		}
		if !found {
			return nil, &InputError{name, suggest.Unknown("input", name, neff.InputNames(sgs))}
		}
	}
	hbm := d.Core(0) // the shared HBM, through core 0
	for si := range sgs {
		sg := &sgs[si]
		for _, v := range sg.Variables() {
			a, placed := place[si][v.ID]
			if !placed || v.Size <= 0 || v.Type == "state-buffer" {
				if _, ok := in[v.Name]; ok {
					return nil, &InputError{v.Name, fmt.Errorf("variable %q (%s) holds no bytes", v.Name, v.Type)}
				}
				continue
			}
			if _, done := vars[v.Name]; done {
				continue // shared by an earlier subgraph: placed and written once
			}
			vars[v.Name] = varAt{a, v}
			var data []byte
			given, ok := in[v.Name]
			switch {
			case ok:
				if t, known := tensors[v.Name]; known && given.Descr != "" {
					if want, ok := typed(t, int(v.Size)); ok && (want.Descr != given.Descr || !slices.Equal(want.Shape, given.Shape)) {
						dt, _ := dtype.FromNEFF(t.Dtype)
						if given.Descr != dtype.FP32.Descr() || !dt.IsFloat() || !slices.Equal(want.Shape, given.Shape) {
							return nil, &InputError{v.Name, fmt.Errorf("%s %v data, the NEFF's %s is %s %v (give its own dtype, or float32 for a float tensor)", given.Descr, given.Shape, v.Name, t.Dtype, t.Shape)}
						}
						if n := v.Size / int64(dt.Size()) * 4; given.bytes() != n {
							return nil, &InputError{v.Name, fmt.Errorf("%d bytes of float32 given, the %s tensor's %d elements are %d", given.bytes(), t.Dtype, n/4, n)}
						}
						var err error // float32 data for a narrower float tensor: rounded as a DMA cast rounds, as kernel.In takes it
						if given, err = narrowed(given, dt); err != nil {
							return nil, &InputError{v.Name, err}
						}
					}
				}
				if given.Data == nil && given.ReadInto != nil { // streamed into place
					if given.Size != v.Size {
						return nil, &InputError{v.Name, fmt.Errorf("%d bytes given, the variable holds %d", given.Size, v.Size)}
					}
					if err := hbm.Check(a, int(v.Size)); err != nil {
						return nil, fmt.Errorf("variable %q at %#x: %w", v.Name, a, err)
					}
					// the whole variable is written: its storage now, on huge pages, not an extent per chunk (issue 17)
					if err := hbm.Reserve(a, int(v.Size)); err != nil {
						return nil, fmt.Errorf("variable %q at %#x: %w", v.Name, a, err)
					}
					if err := given.ReadInto(func(chunk []byte, off int64) error { return hbm.Write(a+uint64(off), chunk) }); err != nil {
						return nil, &InputError{v.Name, err}
					}
					continue
				}
				data = given.Data
			case v.Type == "file":
				b, ok := f.Member(sg.Dir + "/" + v.FileName)
				if !ok {
					return nil, fmt.Errorf("file variable %q: no member %s/%s", v.Name, sg.Dir, v.FileName)
				}
				var err error
				if data, err = array.RawData(b); err != nil { // the raw bytes: any dtype (fp16 included)
					return nil, fmt.Errorf("%s/%s: %w", sg.Dir, v.FileName, err)
				}
			case v.Type == "input":
				dt, _ := dtype.FromNEFF(tensors[v.Name].Dtype)
				if err := fillRandom(hbm, a, v.Size, uint8(dt), v.Name); err != nil {
					return nil, fmt.Errorf("variable %q at %#x: %w", v.Name, a, err)
				}
				continue
			default:
				continue
			}
			if int64(len(data)) != v.Size && v.Type != "file" {
				return nil, fmt.Errorf("variable %q holds %d bytes, %d given", v.Name, v.Size, len(data))
			}
			if int64(len(data)) > v.Size {
				return nil, fmt.Errorf("variable %q holds %d bytes, its file %d", v.Name, v.Size, len(data))
			}
			if err := hbm.Write(a, data); err != nil {
				return nil, fmt.Errorf("variable %q at %#x: %w", v.Name, a, err)
			}
		}
	}
	return vars, nil
}

// Var is a placed variable's bytes as the device holds them now.
func (im *Image) Var(name string) ([]byte, error) {
	p, ok := im.vars[name]
	if !ok {
		return nil, fmt.Errorf("variable %q holds no bytes of its own (a state-buffer, dge-table or unsized variable, or none of that name)", name)
	}
	data := make([]byte, p.v.Size)
	if err := im.Device.Core(0).Read(p.addr, data); err != nil {
		return nil, fmt.Errorf("variable %q at %#x: %w", name, p.addr, err)
	}
	return data, nil
}

// VarSize is the bytes variable name holds (false: none of its own).
func (im *Image) VarSize(name string) (int64, bool) {
	p, ok := im.vars[name]
	if !ok {
		return 0, false
	}
	return p.v.Size, true
}

// ViewVar hands f variable name's bytes piece by piece in order, straight
// from the device's memory (mem.Memory.View): an output written out costs
// no copy of its whole size (a 50 GiB declared output once cost 50 GiB).
func (im *Image) ViewVar(name string, f func(b []byte) error) error {
	p, ok := im.vars[name]
	if !ok {
		return fmt.Errorf("variable %q holds no bytes of its own (a state-buffer, dge-table or unsized variable, or none of that name)", name)
	}
	if err := im.Device.Core(0).View(p.addr, int(p.v.Size), f); err != nil {
		return fmt.Errorf("variable %q at %#x: %w", name, p.addr, err)
	}
	return nil
}

// Holds reports whether name is a variable with bytes of its own.
func (im *Image) Holds(name string) bool { _, ok := im.vars[name]; return ok }

// Typed is a variable's bytes with the NumPy descr and shape neff.json
// gives it, when the dtype is one ndma knows and the shape covers exactly
// those bytes; else "|u1" and its length.
func (im *Image) Typed(name string, data []byte) (descr string, shape []int) {
	if t, ok := im.File.Tensors()[name]; ok {
		if a, ok := typed(t, len(data)); ok {
			return a.Descr, a.Shape
		}
	}
	return "|u1", []int{len(data)}
}

// typed is the array header neff.json's tensor gives n bytes, when it has
// a dtype ndma knows and its shape covers exactly n bytes.
func typed(t neff.Tensor, n int) (*array.Array, bool) {
	dt, err := dtype.FromNEFF(t.Dtype)
	if err != nil || t.Dtype == "" || dt.Size() == 0 {
		return nil, false
	}
	k := 1
	for _, d := range t.Shape {
		k *= d
	}
	if k*dt.Size() != n {
		return nil, false
	}
	return &array.Array{Descr: dt.Descr(), Shape: append([]int(nil), t.Shape...)}, true
}

// Writer is a DMA step that writes into a variable: the step, and the
// variables its words read.
type Writer struct {
	Var      string // the variable written
	Subgraph string
	Engine   string
	Offset   int
	Mnemonic string
	From     []string // the variables (or "SB") its words read
	Bytes    int64    // bytes its words write into Var
}

// RuntimeRing is the most descriptors a runtime-built ring holds: the rings
// of style-A blocks are built by the runtime when the NEFF loads and sized
// to fit (neff.md §4.7), up to the ring length limit 2^24 − 16 (§4.8). The
// DGE's own rings (0xd4 words) keep sdma.DefaultRingSize.
const RuntimeRing = 1<<24 - 16

// Run runs the image's subgraphs one after another, each on its core under
// the scheduler (INFERRED: the subgraphs share no semaphore, so side by
// side each would run as alone). With Exec Both the reference runs here and
// the engines on a twin image loaded alike, and the two devices are
// compared at the end.
func (im *Image) Run(opt Options) (*Result, error) {
	return im.RunContext(context.Background(), opt)
}

// RunContext is Run, stopped between two turns when ctx is cancelled.
func (im *Image) RunContext(ctx context.Context, opt Options) (*Result, error) {
	p := im.Program
	res := &Result{Exec: opt.Exec, Multi: true, program: p}
	if opt.Exec != Both {
		if opt.Exec == Ref {
			res.Ref = im.Device
		} else {
			res.Sim = im.Device
		}
		return res, p.runOn(ctx, im.Device, opt.Exec, opt, res)
	}
	twin, err := LoadProgram(p, im.inputs)
	if err != nil {
		return nil, err
	}
	res.Ref, res.Sim, res.Twin = im.Device, twin.Device, twin
	err = runScheduled(ctx, p, opt, res)
	if err != nil && !res.Clocked {
		return nil, err // the reference failed: no account of the engines
	}
	return res, err
}

// writers lists, for subgraph si's engine stream, each step whose resolved
// DMA_DIRECT2D words write into a variable with bytes of its own, and what
// they read.
func (p *Program) writers(st *Stream) []Writer {
	var out []Writer
	si := st.Core
	var by map[string]*Writer
	var order []string
	flush := func() {
		for _, name := range order {
			out = append(out, *by[name])
		}
		by, order = map[string]*Writer{}, nil
	}
	last := -1
	p.eachLeg(st, func(s *Step, sa, da uint64, src, dst isa.Leg2D) {
		if s.Offset != last { // one Writer per variable a step writes
			flush()
			last = s.Offset
		}
		to := p.varAt(si, da, dst)
		if to == "" {
			return
		}
		w, seen := by[to]
		if !seen {
			w = &Writer{Var: to, Subgraph: st.Subgraph, Engine: st.Key, Offset: s.Offset, Mnemonic: s.Word.Def().Mnemonic()}
			by[to] = w
			order = append(order, to)
		}
		if from := p.varAt(si, sa, src); from != "" && !slices.Contains(w.From, from) {
			w.From = append(w.From, from)
		} else if from == "" {
			if r, _, _ := isa.Map(p.Gen).Split(sa); r == isa.SBUF && !slices.Contains(w.From, "SB") {
				w.From = append(w.From, "SB")
			}
		}
		w.Bytes += dst.Bytes()
	})
	flush()
	return out
}

// eachLeg calls f with every resolved DIRECT2D word of stream st's steps:
// its step, source and destination addresses and legs.
func (p *Program) eachLeg(st *Stream, f func(s *Step, sa, da uint64, src, dst isa.Leg2D)) {
	for i := range st.Steps {
		s := &st.Steps[i]
		for k := range s.Run {
			src, dst, ok := s.Run[k].Legs2D()
			v, isD2 := s.Run[k].Direct2D()
			if !ok || !isD2 {
				continue
			}
			sa, _ := v.SrcStartAddr().Imm()
			da, _ := v.DstStartAddr().Imm()
			f(s, sa, da, src, dst)
		}
	}
}

// varAt names the HBM variable of subgraph si whose bytes hold a leg
// starting at addr ("" for none, or SBUF).
func (p *Program) varAt(si int, addr uint64, leg isa.Leg2D) string {
	lo, _ := leg.Extent()
	a := uint64(int64(addr) + lo)
	for _, v := range p.NEFF.Subgraphs[si].Variables() {
		b, ok := p.NEFF.Place[si][v.ID]
		if ok && v.Type != "state-buffer" && v.Size > 0 && a >= b && a < b+uint64(v.Size) {
			return v.Name
		}
	}
	return ""
}

// Outputs are the variables of type output, each once, in subgraph order.
func (im *Image) Outputs() []string {
	var out []string
	for si := range im.Subgraphs {
		for _, v := range im.Subgraphs[si].Variables() {
			if v.Type == "output" && !slices.Contains(out, v.Name) {
				out = append(out, v.Name)
			}
		}
	}
	return out
}

// Core is the core subgraph name runs on (-1: no such subgraph).
func (im *Image) Core(name string) int {
	for si := range im.Subgraphs {
		if im.Subgraphs[si].Name == name {
			return si
		}
	}
	return -1
}

// Check is checkWords — every word validated for gen and the cross-checks
// of neff.md §9.6, the blocks over Place's addresses — plus what `lower`
// and `run` would refuse, decided by their code: every engine stream
// resolved as Run resolves it and every resolved DGE word lowered as the
// engines lower it (fired words on runtime-built rings). Each refusal is a
// located problem, once.
func Check(gen isa.Gen, f *neff.File, sgs []neff.Subgraph) ([]neff.Problem, int, error) {
	return CheckWith(gen, f, sgs, CheckOptions{})
}

// CheckOptions are the budgets Check holds a NEFF to, as run holds it.
type CheckOptions struct {
	MaxRunBytes int64 // Options.MaxRunBytes (0: DefaultMaxRunBytes; < 0: none)
}

// CheckWith is Check against the budgets of o.
func CheckWith(gen isa.Gen, f *neff.File, sgs []neff.Subgraph, o CheckOptions) ([]neff.Problem, int, error) {
	p, err := FromNEFF(f, sgs, gen)
	if err != nil {
		return nil, 0, err
	}
	problems, words := checkWords(gen, sgs, p.NEFF.Place)
	seen := map[neff.Problem]bool{}
	for _, p := range problems {
		seen[p] = true
	}
	add := func(p neff.Problem) {
		if !seen[p] {
			seen[p] = true
			problems = append(problems, p)
		}
	}
	hbmEnd := isa.Map(gen).HBMEnd
	for si := range sgs {
		sg := &sgs[si]
		for _, v := range sg.Variables() { // a declared size costs nothing until touched; one the HBM cannot hold is a problem
			if a, ok := p.NEFF.Place[si][v.ID]; ok && v.Type != "state-buffer" && v.Size > 0 && (a+uint64(v.Size) > hbmEnd || a+uint64(v.Size) < a) {
				add(neff.Problem{Subgraph: sg.Name, Offset: -1, Msg: fmt.Sprintf("var %d %q: %d bytes placed at %#x run past the HBM window (ends at %#x)", v.ID, v.Name, v.Size, a, hbmEnd)})
			}
		}
		for k := range p.Streams {
			if p.Streams[k].Core == si {
				checkStream(&p.Streams[k], gen, add)
			}
		}
	}
	if b, planned := runBudget(o.MaxRunBytes), p.PlannedBytes(nil); b >= 0 && planned > uint64(b) {
		add(neff.Problem{Offset: -1, Msg: fmt.Sprintf("run refuses it: its words plan to write %d bytes, more than the run's budget of %d (--max-bytes)", planned, b)})
	}
	checkWaits(p, sgs, add)
	return located(problems), words, nil
}

// located drops a problem said without a word's offset when the same
// problem is said at one (a fired block's descriptor found by the def.json
// pass and again by its trigger's resolution): each once, where it is.
func located(ps []neff.Problem) []neff.Problem {
	type key struct{ sg, en, msg string }
	at := map[key]bool{}
	for _, p := range ps {
		if p.Offset >= 0 {
			at[key{p.Subgraph, p.Engine, p.Msg}] = true
		}
	}
	out := ps[:0]
	for _, p := range ps {
		if p.Offset < 0 && at[key{p.Subgraph, p.Engine, p.Msg}] {
			continue
		}
		out = append(out, p)
	}
	return out
}

// checkStream adds what lower and run refuse in a resolved NEFF stream.
func checkStream(st *Stream, gen isa.Gen, add func(neff.Problem)) {
	if st.Err != nil {
		add(neff.Problem{Subgraph: st.Subgraph, Engine: st.Key, Offset: -1, Msg: st.Err.Error()})
	}
	for i := range st.Steps {
		s := &st.Steps[i]
		if s.Err != nil { // CheckPseudo's problems, each its own, as Check reports them
			for _, e := range Problems(s.Err) {
				add(neff.Problem{Subgraph: st.Subgraph, Engine: st.Key, Offset: s.Offset, Msg: e.Error()})
			}
			continue
		}
		for k := range s.Run {
			if src, dst, ok := s.Run[k].Legs2D(); ok && max(src.Bytes(), dst.Bytes()) > sim.DefaultMaxBytes {
				// what both executors refuse before moving a byte (issue 30 M7: check said 0 problems)
				add(neff.Problem{Subgraph: st.Subgraph, Engine: st.Key, Offset: s.Offset, Msg: fmt.Sprintf("run refuses it: word %d of %d moves %d bytes, more than the %d a word may (--max-bytes)", k+1, len(s.Run), max(src.Bytes(), dst.Bytes()), int64(sim.DefaultMaxBytes))})
				continue
			}
			p, _, lerr := sdma.Lower(&s.Run[k], gen, dge.Options{Engines: s.Engines}, sdma.Options{RingSize: s.Ring})
			if lerr == nil || p == nil && errors.Is(lerr, dge.ErrNotLowered) {
				continue
			}
			msg := lerr.Error()
			if len(s.Run) > 1 {
				msg = fmt.Sprintf("word %d of %d: %s", k+1, len(s.Run), msg)
			}
			if s.Queue != "" {
				msg = fmt.Sprintf("%s (queue %s): %s", s.Word.Def().Mnemonic(), s.Queue, msg)
			}
			add(neff.Problem{Subgraph: st.Subgraph, Engine: st.Key, Offset: s.Offset, Msg: "lower and run refuse it: " + msg})
		}
	}
}
