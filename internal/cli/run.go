package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"ndma/asm"
	"ndma/cci"
	"ndma/dge"
	"ndma/internal/array"
	"ndma/internal/num"
	"ndma/isa"
	"ndma/mem"
	"ndma/ref"
	"ndma/sched"
	"ndma/sim"
)

func runRun(e *env, args []string) error {
	cl := newCmdLine(e, "run", "FILE|-", "", "generation (a text file's .gen is the default)")
	var vars, tables, regs, sems, loads, dumps multi
	cl.fs.Var(&vars, "var", "NEFF variable base for pseudo words, ID=ADDR; repeatable")
	cl.fs.Var(&tables, "table", "dge-table entries, I=VAR,VAR,…; repeatable")
	varsFile := cl.fs.String("vars", "", `JSON file {"vars": {"ID": "ADDR"}, "table": [VAR, …]}`)
	cl.fs.Var(&regs, "reg", "engine register, rN=V; repeatable")
	cl.fs.Var(&sems, "sem", "semaphore, N=V; repeatable")
	cl.fs.Var(&loads, "load", "ADDR=FILE.npy: write an array's bytes at ADDR (SBUF/PSUM: axis 0 over partitions); repeatable")
	cl.fs.Var(&dumps, "dump", "ADDR:DTYPE:SHAPE=FILE.npy: write memory out as an array after the run; repeatable")
	trace := cl.fs.Bool("trace", false, "print what each word read, wrote and skipped")
	stats := cl.fs.Bool("stats", false, "print bytes per region and lanes")
	asJSON := cl.fs.Bool("json", false, "print a JSON summary")
	maxBytes := cl.fs.Int64("max-bytes", ref.DefaultMaxBytes, "refuse a word that would move more bytes")
	cores := cl.fs.Int("cores", 0, "cores in the run (default: those the file's .core lines name); a cross-core copy may target any of them")
	timeline := cl.fs.String("timeline", "", "FILE.json: write a multi-stream run as Chrome trace events (Perfetto)")
	maxSteps := cl.fs.Int("max-steps", cci.DefaultMaxSteps, "slots one COMPACT_CONTROL_INST may execute (a looping word stops with a fault)")
	execMode := cl.fs.String("exec", "sim", "sim (DGE lowering + descriptor engines), ref (the reference semantics) or both (run the two, fail on any difference)")
	pos, gen, err := cl.parse(args, 1, "want one FILE (binary words or assembly text; - for stdin)")
	if err != nil {
		return err
	}
	prog, err := loadProgram(e, pos[0], gen)
	if err != nil {
		return err
	}
	code := prog.Code
	if gen == isa.GenAny {
		gen = prog.Gen
	}
	if gen == isa.GenAny {
		return usagef("no generation: give --gen G (or a .gen line in the text)")
	}
	vt, err := varTable(gen, vars, tables, *varsFile)
	if err != nil {
		return err
	}
	rv, err := regValues(regs)
	if err != nil {
		return err
	}
	if *execMode != "ref" && *execMode != "sim" && *execMode != "both" {
		return usagef("--exec %q: want ref, sim or both", *execMode)
	}
	x := ref.New(gen)
	x.MaxBytes, x.Tracing, x.MaxSteps = *maxBytes, *trace, *maxSteps
	var y *sim.Machine
	if *execMode != "ref" {
		y = sim.New(gen)
		y.Tracing, y.MaxBytes, y.MaxSteps = *trace, *maxBytes, *maxSteps
	}
	sv, err := semValues(sems)
	if err != nil {
		return err
	}
	for r, v := range rv {
		x.Regs[r] = v
		if y != nil {
			y.Regs[r] = v
		}
	}
	mems := []*mem.Memory{x.Mem}
	if y != nil {
		mems = append(mems, y.Mem)
	}
	for _, m := range mems {
		for n, v := range sv {
			m.Sems[n] = v
		}
		for _, l := range loads {
			if err := loadArray(m, gen, l); err != nil {
				return err
			}
		}
	}
	plans := make([]dumpPlan, len(dumps))
	for i, d := range dumps {
		if plans[i], err = parseDump(gen, d); err != nil {
			return err
		}
	}
	var runErr error
	multi := len(prog.Streams) > 1 || prog.Streams[0].Core != 0 || *cores > 1
	switch {
	case multi:
		runErr = runStreams(e, gen, prog, *execMode, x, y, *trace, *stats, *timeline, *cores)
	case *execMode == "ref":
		runErr = execute(gen, code, vt, x.Exec, nil)
	case *execMode == "sim":
		runErr = execute(gen, code, vt, y.Exec, nil)
	default:
		runErr = execute(gen, code, vt, x.Exec, func(in *isa.Inst, refErr error) error {
			return compareExec(x, y, in, refErr)
		})
	}
	if *trace {
		for _, l := range x.Trace {
			fmt.Fprintln(e.stdout, l)
		}
		if y != nil {
			for _, l := range y.Trace {
				fmt.Fprintln(e.stdout, l)
			}
		}
	}
	final := x.Mem
	if *execMode == "sim" {
		final = y.Mem
	}
	if *asJSON {
		out := map[string]any{"status": "ok", "exec": *execMode, "read": regionStats(final.Stats.Read), "written": regionStats(final.Stats.Written)}
		if *execMode != "sim" {
			out["words"], out["lanes"], out["skipped"], out["bytes_moved"] = x.Stats.Words, x.Stats.Lanes, x.Stats.Skipped, x.Stats.BytesMoved
		}
		if y != nil {
			out["sim"] = map[string]any{"words": y.Stats.Words, "descriptors": y.Stats.Descriptors, "m2s_bytes": y.Stats.M2SBytes,
				"s2m_bytes": y.Stats.S2MBytes, "queue_bytes": y.Stats.QueueBytes, "dma_time_ns": y.Stats.TimeNS}
		}
		if runErr != nil {
			out["status"], out["fault"] = "fault", runErr.Error()
		}
		b, _ := json.MarshalIndent(out, "", "  ")
		fmt.Fprintf(e.stdout, "%s\n", b)
	} else if *stats && multi { // the streams' summary came from the scheduler
		for _, r := range []isa.Region{isa.SBUF, isa.PSUM, isa.HBM} {
			fmt.Fprintf(e.stdout, "%s: read %d, written %d bytes\n", r, final.Stats.Read[r], final.Stats.Written[r])
		}
	} else if *stats {
		if *execMode != "sim" {
			fmt.Fprintf(e.stdout, "words %d, lanes %d, skipped %d, bytes moved %d\n", x.Stats.Words, x.Stats.Lanes, x.Stats.Skipped, x.Stats.BytesMoved)
		}
		if y != nil {
			fmt.Fprintf(e.stdout, "sim: words %d, descriptors %d, M2S %d bytes, S2M %d bytes, DMA time %.3f µs (cost model: docs/sim.md)\n",
				y.Stats.Words, y.Stats.Descriptors, y.Stats.M2SBytes, y.Stats.S2MBytes, float64(y.Stats.TimeNS)/1000)
			for q := 0; q < 64; q++ {
				if b, ok := y.Stats.QueueBytes[q]; ok {
					fmt.Fprintf(e.stdout, "sim: DMA[%d] wrote %d bytes\n", q, b)
				}
			}
		}
		for _, r := range []isa.Region{isa.SBUF, isa.PSUM, isa.HBM} {
			fmt.Fprintf(e.stdout, "%s: read %d, written %d bytes\n", r, final.Stats.Read[r], final.Stats.Written[r])
		}
	}
	if runErr != nil {
		if *asJSON {
			return failed{runErr.Error()}
		}
		return runErr // no dump after a fault
	}
	for _, p := range plans {
		if err := p.write(final); err != nil {
			return err
		}
	}
	return nil
}

// compareExec runs in on the engines after ref ran it (refErr) and demands
// the same outcome: the same fault-or-not, the same bytes and semaphores.
func compareExec(x *ref.Machine, y *sim.Machine, in *isa.Inst, refErr error) error {
	if in.Opcode() == isa.OpDMAImmediate && errors.Is(refErr, ref.ErrUnsupported) {
		// its meaning is its raw descriptors: the engines run it on ref's memory too
		refErr = (&sim.Machine{Mem: x.Mem, Regs: x.Regs}).Exec(in)
	}
	simErr := y.Exec(in)
	switch {
	case refErr != nil && simErr != nil:
		return refErr
	case refErr != nil:
		return fmt.Errorf("ref faults, sim does not: %w", refErr)
	case simErr != nil:
		return fmt.Errorf("sim faults, ref does not: %w", simErr)
	}
	if d := firstDifference(x.Mem, y.Mem); d != "" {
		return fmt.Errorf("ref and sim differ: %s", d)
	}
	return nil
}

// firstDifference names the lowest differing address (or semaphore) of two
// memories with both values; "" when they agree.
func firstDifference(a, b *mem.Memory) string {
	sa, sb := a.Snapshot(), b.Snapshot()
	best, bestAddr := "", uint64(1<<63)
	for k, va := range sa {
		vb, ok := sb[k]
		if !ok {
			vb = make([]byte, len(va))
		}
		addr, kind := snapAddr(a, k)
		for i := range va {
			if i < len(vb) && va[i] != vb[i] {
				if kind == "sems" {
					return fmt.Sprintf("$S[%d]: ref %d, sim %d", i/4, a.Sems[i/4], b.Sems[i/4])
				}
				if addr+uint64(i) < bestAddr {
					bestAddr = addr + uint64(i)
					best = fmt.Sprintf("address %#x (%s): ref %#02x, sim %#02x", bestAddr, kind, va[i], vb[i])
				}
				break
			}
		}
	}
	for k, vb := range sb {
		if _, ok := sa[k]; ok {
			continue
		}
		addr, kind := snapAddr(a, k)
		for i, v := range vb {
			if v != 0 && addr+uint64(i) < bestAddr {
				bestAddr, best = addr+uint64(i), fmt.Sprintf("address %#x (%s): ref 0x00, sim %#02x", addr+uint64(i), kind, v)
				break
			}
		}
	}
	return best
}

// snapAddr is the address of a Snapshot region's first byte.
func snapAddr(m *mem.Memory, key string) (uint64, string) {
	var n uint64
	switch {
	case strings.HasPrefix(key, "sbuf"):
		fmt.Sscan(key[4:], &n)
		return n * m.Map.SBUFStride, fmt.Sprintf("sbuf partition %d", n)
	case strings.HasPrefix(key, "psum"):
		fmt.Sscan(key[4:], &n)
		return m.Map.PSUMBase + n*m.Map.PSUMStride, fmt.Sprintf("psum partition %d", n)
	case strings.HasPrefix(key, "hbm"):
		fmt.Sscan(key[3:], &n)
		return n * mem.PageSize, "hbm"
	}
	return 0, "sems"
}

func regionStats(s [4]uint64) map[string]uint64 {
	return map[string]uint64{"sbuf": s[isa.SBUF], "psum": s[isa.PSUM], "hbm": s[isa.HBM]}
}

// execute runs every word in order through exec; pseudo words are
// relocated first. after, when set, follows each word (--exec both).
func execute(gen isa.Gen, code []byte, vt *dge.Vars, exec func(*isa.Inst) error, after func(*isa.Inst, error) error) error {
	d := isa.NewDecoder(gen, code)
	for d.Next() {
		in := *d.Inst()
		if in.Opcode() == isa.OpPseudoDMADirect2D && (len(vt.Base) > 0 || len(vt.Table) > 0) {
			r, err := dge.Relocate(&in, vt)
			if err != nil {
				return fmt.Errorf("offset %#x (%s): %w", d.Offset(), in.Def().Mnemonic(), err)
			}
			in = r
		}
		err := exec(&in)
		if after != nil {
			err = after(&in, err)
		}
		if err != nil {
			return fmt.Errorf("offset %#x (%s): %w", d.Offset(), d.Inst().Def().Mnemonic(), err)
		}
	}
	return d.Err()
}

// loadArray is --load ADDR=FILE.npy: C-order bytes at ADDR; on SBUF/PSUM the
// first axis runs over partitions from ADDR's partition, same offset.
func loadArray(m *mem.Memory, gen isa.Gen, spec string) error {
	at, file, ok := strings.Cut(spec, "=")
	if !ok {
		return usagef("--load %q: want ADDR=FILE.npy", spec)
	}
	addr, err := asm.ParseAddress(gen, at)
	if err != nil {
		return usagef("--load %q: %v", spec, err)
	}
	a, err := array.Load(file)
	if err != nil {
		return fmt.Errorf("--load %s: %w", file, unwrapPathError(err))
	}
	rows, rowBytes := partitionRows(m, addr, a.Shape, len(a.Data))
	if err := fitsPartitions(m, addr, rows); err != nil {
		return fmt.Errorf("--load %s: shape %v: %w", file, a.Shape, err)
	}
	for r := 0; r < rows; r++ {
		if err := checkedWrite(m, rowAddr(m, addr, r, rows), a.Data[r*rowBytes:(r+1)*rowBytes]); err != nil {
			return fmt.Errorf("--load %s: row %d: %w (the array's shape %v does not fit there)", file, r, err, a.Shape)
		}
	}
	return nil
}

// partitionRows splits an array for an on-chip address: rows = its first
// axis (a 1-D array is one row); off chip it is one contiguous row.
func partitionRows(m *mem.Memory, addr uint64, shape []int, n int) (rows, rowBytes int) {
	r, _, _ := m.Map.Split(addr)
	if (r == isa.SBUF || r == isa.PSUM) && len(shape) > 1 && shape[0] > 0 {
		return shape[0], n / shape[0]
	}
	return 1, n
}

func rowAddr(m *mem.Memory, addr uint64, row, rows int) uint64 {
	if rows == 1 {
		return addr
	}
	r, _, _ := m.Map.Split(addr)
	stride := m.Map.SBUFStride
	if r == isa.PSUM {
		stride = m.Map.PSUMStride
	}
	return addr + uint64(row)*stride
}

// fitsPartitions: rows from addr's partition must stay inside the region.
func fitsPartitions(m *mem.Memory, addr uint64, rows int) error {
	r, part, _ := m.Map.Split(addr)
	if rows > 1 && (r == isa.SBUF || r == isa.PSUM) && part+rows > m.Map.Partitions {
		return fmt.Errorf("%d rows from %s partition %d reach partition %d: there are %d", rows, r, part, part+rows-1, m.Map.Partitions)
	}
	return nil
}

func checkedWrite(m *mem.Memory, addr uint64, b []byte) error {
	if err := m.Check(addr, len(b)); err != nil {
		return err
	}
	return m.Write(addr, b)
}

type dumpPlan struct {
	addr  uint64
	dtype uint8
	shape []int
	file  string
}

// parseDump reads ADDR:DTYPE:SHAPE=FILE.npy (ADDR may hold colons: sbuf:P:OFF).
func parseDump(gen isa.Gen, spec string) (dumpPlan, error) {
	left, file, ok := strings.Cut(spec, "=")
	parts := strings.Split(left, ":")
	if !ok || len(parts) < 3 || file == "" {
		return dumpPlan{}, usagef("--dump %q: want ADDR:DTYPE:SHAPE=FILE.npy (e.g. sbuf:0:0x0:bf16:128x64=out.npy)", spec)
	}
	p := dumpPlan{file: file}
	var err error
	if p.addr, err = asm.ParseAddress(gen, strings.Join(parts[:len(parts)-2], ":")); err != nil {
		return p, usagef("--dump %q: %v", spec, err)
	}
	dt, err := asm.EnumValue(isa.DType, parts[len(parts)-2], gen)
	if err != nil {
		return p, usagef("--dump %q: %v", spec, err)
	}
	p.dtype = uint8(dt)
	if _, err := array.Descr(p.dtype); err != nil {
		return p, usagef("--dump %q: %v", spec, err)
	}
	for _, d := range strings.Split(parts[len(parts)-1], "x") {
		n, err := strconv.Atoi(d)
		if err != nil || n <= 0 {
			return p, usagef("--dump %q: shape %q: want N or AxB[xC…]", spec, parts[len(parts)-1])
		}
		p.shape = append(p.shape, n)
	}
	return p, nil
}

func (p dumpPlan) write(m *mem.Memory) error {
	size, ok := num.Size(p.dtype)
	if !ok {
		return fmt.Errorf("--dump %s: DTYPE %s has no byte size", p.file, isa.DType.Format(uint64(p.dtype)))
	}
	n := size
	for _, d := range p.shape {
		n *= d
	}
	if n > 1<<30 {
		return fmt.Errorf("--dump %s: %d bytes is more than ndma dumps", p.file, n)
	}
	data := make([]byte, n)
	rows, rowBytes := partitionRows(m, p.addr, p.shape, n)
	if err := fitsPartitions(m, p.addr, rows); err != nil {
		return fmt.Errorf("--dump %s: shape %v: %w", p.file, p.shape, err)
	}
	for r := 0; r < rows; r++ {
		a := rowAddr(m, p.addr, r, rows)
		if err := m.Check(a, rowBytes); err != nil {
			return fmt.Errorf("--dump %s: row %d: %w", p.file, r, err)
		}
		if err := m.Read(a, data[r*rowBytes:(r+1)*rowBytes]); err != nil {
			return fmt.Errorf("--dump %s: %w", p.file, err)
		}
	}
	descr, _ := array.Descr(p.dtype)
	var buf bytes.Buffer
	if err := array.Write(&buf, &array.Array{Descr: descr, Shape: p.shape, Data: data}); err != nil {
		return err
	}
	return writeFileAtomic(p.file, buf.Bytes())
}

// runStreams runs a multi-stream program (.engine, .core) under the
// scheduler (docs/sched.md): each stream with its own registers over its
// core's memory; core 0 is the memory --load and --dump address. With
// --exec both the program runs on each executor and the final memories
// must agree.
func runStreams(e *env, gen isa.Gen, prog *asm.Object, mode string, x *ref.Machine, y *sim.Machine, trace, stats bool, timeline string, cores int) error {
	for _, s := range prog.Streams {
		if cores > 0 && s.Core >= cores {
			return usagef("--cores %d: the program has a stream on core %d", cores, s.Core)
		}
	}
	build := func(useSim bool) []*sched.Stream {
		mems := map[int]*mem.Memory{0: x.Mem}
		if useSim {
			mems[0] = y.Mem
		}
		for _, s := range prog.Streams { // every core's memory first: streams reach their peers'
			if _, ok := mems[s.Core]; !ok {
				mems[s.Core] = mem.New(gen)
			}
		}
		for c := 1; c < cores; c++ { // --cores: cores without streams still have memory to copy into
			if _, ok := mems[c]; !ok {
				mems[c] = mem.New(gen)
			}
		}
		peer := func(core int) *mem.Memory { return mems[core] }
		var ss []*sched.Stream
		for k, s := range prog.Streams {
			m := mems[s.Core]
			name := s.Engine
			if name == "" {
				name = "stream"
			}
			st := &sched.Stream{Name: fmt.Sprintf("%s core %d", name, s.Core), Code: prog.StreamCode(k), Mem: m, Core: s.Core}
			if useSim { // the engines' DMA time decides when completions land
				sm := &sim.Machine{Mem: m, Regs: y.Regs, MaxBytes: y.MaxBytes, MaxSteps: y.MaxSteps, Peer: peer}
				st.Exec, st.Clock = sm, func() int64 { return sm.Stats.TimeNS }
				st.Moved = func() (int, uint64) { return sm.Stats.Descriptors, sm.Stats.S2MBytes }
				st.Writes = func() [][2]uint64 { return sm.Writes }
				st.Queues = func() []int { return sm.Queues }
			} else {
				st.Exec = &ref.Machine{Mem: m, Regs: x.Regs, MaxBytes: x.MaxBytes, MaxSteps: x.MaxSteps, Peer: peer}
			}
			ss = append(ss, st)
		}
		return ss
	}
	var tr func(string)
	if trace {
		tr = func(l string) { fmt.Fprintln(e.stdout, l) }
	}
	if mode != "sim" {
		if _, err := sched.Run(gen, build(false), tr); err != nil {
			return err
		}
	}
	if mode != "ref" {
		var tl *sched.Timeline
		if timeline != "" {
			tl = &sched.Timeline{}
		}
		ss := build(true)
		st, err := sched.RunTimeline(gen, ss, tr, tl)
		for _, w := range st.Warnings {
			fmt.Fprintf(e.stderr, "ndma run: warning: %s\n", w)
		}
		if stats && err == nil {
			fmt.Fprintf(e.stdout, "streams: %d words, simulated time %.3f µs, at most %d DMAs in flight\n", st.Words, float64(st.TimeNS)/1000, st.PeakInFlight)
			for i, s := range ss {
				occ := 0.0
				if st.TimeNS > 0 {
					occ = 100 * float64(st.Busy[i]) / float64(st.TimeNS)
				}
				fmt.Fprintf(e.stdout, "  %s: DMAs in flight %.3f µs (%.0f%% of the run)\n", s.Name, float64(st.Busy[i])/1000, occ)
			}
		}
		if tl != nil { // written even for a deadlock: the timeline shows where it stopped
			var b bytes.Buffer
			if werr := tl.Write(&b); werr == nil {
				if werr = os.WriteFile(timeline, b.Bytes(), 0o644); werr != nil && err == nil {
					err = werr
				}
			}
		}
		if err != nil {
			return err
		}
	}
	if mode == "both" {
		if d := firstDifference(x.Mem, y.Mem); d != "" {
			return fmt.Errorf("ref and sim differ: %s", d)
		}
	}
	return nil
}
