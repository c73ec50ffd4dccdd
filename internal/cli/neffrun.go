package cli

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"sort"
	"strings"

	"ndma/dge"
	"ndma/internal/array"
	"ndma/isa"
	"ndma/mem"
	"ndma/ref"
	"ndma/sched"
	"ndma/sim"
)

// neffExec runs one NEFF engine stream's words: 0xd4 words relocated with
// the NEFF's variables, then executed; words outside ndma's ISA (PE, ACT,
// DVE compute, labels, ordering) are not computed, but their EVENTS wait and
// update are honoured so the semaphore handshake runs as on the device.
type neffExec struct {
	inner     sched.Executor
	regs      *ref.Machine // for the EVENTS of words not computed
	vt        *dge.Vars
	notRun    map[string]int
	mnemonics []string
}

func (x *neffExec) Exec(in *isa.Inst) error {
	if in.Opcode() == isa.OpPseudoDMADirect2D {
		r, err := dge.Relocate(in, x.vt)
		if err != nil {
			return err
		}
		in = &r
	}
	if executes[in.Opcode()] {
		return x.inner.Exec(in)
	}
	// not computed: only its EVENTS
	apply, err := ref.Events(x.regs, in)
	if err != nil {
		return err
	}
	apply()
	x.notRun[in.Def().Mnemonic()]++
	return nil
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
	cl.fs.Var(&ins, "in", "NAME=FILE.npy: an input variable's bytes (default: deterministic random data); repeatable")
	cl.fs.Var(&outs, "out", "NAME=FILE.npy: write a variable's bytes after the run (as u8); repeatable")
	execMode := cl.fs.String("exec", "sim", "sim (the engines, DMA time) or ref")
	trace := cl.fs.Bool("trace", false, "print the schedule: every word executed, in order")
	timeline := cl.fs.String("timeline", "", "FILE.json: the run as Chrome trace events (one file: the subgraphs one after another)")
	path, gen, f, sgs, err := openNEFF(e, cl, args)
	if err != nil {
		return err
	}
	if *execMode != "sim" && *execMode != "ref" {
		return usagef("--exec %q: sim or ref", *execMode)
	}
	m := mem.New(gen)
	given := map[string]string{}
	for _, s := range ins {
		k, v, ok := strings.Cut(s, "=")
		if !ok {
			return usagef("--in %q: want NAME=FILE.npy", s)
		}
		given[k] = v
	}
	notRun := map[string]int{}
	var total sched.Stats
	var tl *sched.Timeline
	if *timeline != "" {
		tl = &sched.Timeline{}
	}
	for _, sg := range sgs {
		place, err := sg.Place()
		if err != nil {
			return err
		}
		vars, err := sg.Variables()
		if err != nil {
			return err
		}
		r := rand.New(rand.NewPCG(1, 2))
		for _, v := range vars {
			a, placed := place[v.ID]
			if !placed || v.Size <= 0 {
				continue
			}
			var data []byte
			switch {
			case given[v.Name] != "":
				arr, err := array.Load(given[v.Name])
				if err != nil {
					return err
				}
				data = arr.Data
			case v.Type == "file":
				b, ok := f.Member(sg.Dir + "/" + v.FileName)
				if !ok {
					return fmt.Errorf("%s: file variable %q: no member %s/%s", path, v.Name, sg.Dir, v.FileName)
				}
				if data, err = npyBytes(b); err != nil { // the raw bytes: any dtype (fp16 included)
					return fmt.Errorf("%s: %s/%s: %w", path, sg.Dir, v.FileName, err)
				}
			case v.Type == "input":
				data = make([]byte, v.Size)
				for i := range data {
					data[i] = byte(r.Uint32())
				}
			default:
				continue
			}
			if int64(len(data)) > v.Size {
				return fmt.Errorf("%s: variable %q holds %d bytes, %d given", path, v.Name, v.Size, len(data))
			}
			if err := m.Write(a, data); err != nil {
				return fmt.Errorf("%s: variable %q at %#x: %w", path, v.Name, a, err)
			}
		}
		vt := &dge.Vars{Base: map[uint16]uint64{}, Table: sg.Table()}
		for id, a := range place {
			vt.Base[uint16(id)] = a
		}
		var ss []*sched.Stream
		for _, en := range sg.Engines {
			x := &neffExec{regs: &ref.Machine{Mem: m}, vt: vt, notRun: notRun}
			st := &sched.Stream{Name: sg.Name + " " + strings.ToUpper(en.Key), Code: en.Code, Mem: m}
			if *execMode == "sim" {
				sm := &sim.Machine{Mem: m}
				x.inner = sm
				st.Clock = func() int64 { return sm.Stats.TimeNS }
				st.Queues = func() []int { return sm.Queues }
			} else {
				x.inner = &ref.Machine{Mem: m}
			}
			st.Exec = x
			ss = append(ss, st)
		}
		var tr func(string)
		if *trace {
			tr = func(l string) { fmt.Fprintln(e.stdout, l) }
		}
		st, err := sched.RunTimeline(gen, ss, tr, tl)
		if err != nil {
			var d *sched.Deadlock
			if errors.As(err, &d) {
				return fmt.Errorf("%s %s: %w", path, sg.Name, err)
			}
			return fmt.Errorf("%s: %w", path, err)
		}
		total.Words += st.Words
		total.TimeNS += st.TimeNS
		// outputs of this subgraph
		for _, s := range outs {
			k, file, ok := strings.Cut(s, "=")
			if !ok {
				return usagef("--out %q: want NAME=FILE.npy", s)
			}
			for _, v := range vars {
				if v.Name != k {
					continue
				}
				data := make([]byte, v.Size)
				if err := m.Read(place[v.ID], data); err != nil {
					return err
				}
				var b bytes.Buffer
				if err := array.Write(&b, &array.Array{Descr: "|u1", Shape: []int{len(data)}, Data: data}); err != nil {
					return err
				}
				if err := os.WriteFile(file, b.Bytes(), 0o644); err != nil {
					return err
				}
			}
		}
	}
	if tl != nil {
		var b bytes.Buffer
		if err := tl.Write(&b); err != nil {
			return err
		}
		if err := os.WriteFile(*timeline, b.Bytes(), 0o644); err != nil {
			return err
		}
	}
	fmt.Fprintf(e.stdout, "%d words executed in %d subgraphs, simulated DMA time %.3f µs\n", total.Words, len(sgs), float64(total.TimeNS)/1000)
	if len(notRun) > 0 {
		var parts []string
		for k, v := range notRun {
			parts = append(parts, fmt.Sprintf("%s %d", k, v))
		}
		sort.Strings(parts)
		fmt.Fprintf(e.stdout, "not computed (outside ndma's ISA; their EVENTS honoured): %s\n", strings.Join(parts, ", "))
	}
	return nil
}

// npyBytes is the data of a .npy file as stored, whatever its dtype: what a
// NEFF `file` variable loads into device memory.
func npyBytes(b []byte) ([]byte, error) {
	if len(b) < 10 || string(b[:6]) != "\x93NUMPY" {
		return nil, fmt.Errorf("not a .npy file (no \\x93NUMPY magic)")
	}
	var hl, start int
	switch b[6] {
	case 1:
		hl, start = int(b[8])|int(b[9])<<8, 10
	case 2, 3:
		if len(b) < 12 {
			return nil, fmt.Errorf(".npy header truncated")
		}
		hl, start = int(b[8])|int(b[9])<<8|int(b[10])<<16|int(b[11])<<24, 12
	default:
		return nil, fmt.Errorf(".npy version %d", b[6])
	}
	if start+hl > len(b) {
		return nil, fmt.Errorf(".npy header of %d bytes runs past the file", hl)
	}
	if strings.Contains(string(b[start:start+hl]), "'fortran_order': True") {
		return nil, fmt.Errorf("Fortran-ordered array: ndma reads C order")
	}
	return b[start+hl:], nil
}
