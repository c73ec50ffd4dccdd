package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"

	"ndma/asm"
	"ndma/device"
	"ndma/internal/array"
	"ndma/internal/cci"
	"ndma/internal/num"
	"ndma/internal/sched"
	"ndma/isa"
	"ndma/mem"
	"ndma/ref"
)

func runRun(e *env, args []string) error {
	var ms mappings // the --load files read in place
	return ms.guard(func() error { return runLoaded(e, args, &ms) })
}

// runLoaded is runRun under the guard of the files its --load maps.
func runLoaded(e *env, args []string, ms *mappings) error {
	cl := newCmdLine(e, "run", "FILE|-", "", "generation (a text file's .gen is the default)")
	pf := addProgramFlags(cl, "engine register, rN=V; repeatable")
	var sems, loads, dumps multi
	cl.fs.Var(&sems, "sem", "semaphore, N=V; repeatable")
	cl.fs.Var(&loads, "load", "ADDR=FILE.npy: write an array's bytes at ADDR (SBUF/PSUM: axis 0 over partitions); repeatable")
	cl.fs.Var(&dumps, "dump", "ADDR:DTYPE:SHAPE=FILE.npy: write memory out as an array after the run; repeatable")
	trace := cl.fs.Bool("trace", false, "print what each word read, wrote and skipped")
	stats := cl.fs.Bool("stats", false, "print bytes per region and lanes")
	asJSON := cl.fs.Bool("json", false, "print a JSON summary")
	maxBytes := cl.fs.Int64("max-bytes", ref.DefaultMaxBytes, "refuse a word that would move more bytes")
	cores := cl.fs.Int("cores", 0, "cores in the run (default: those the file's .core lines name); a cross-core copy may target any of them")
	timeline := cl.fs.String("timeline", "", "FILE.json: write the run on the engines as Chrome trace events (Perfetto); a single stream then runs under the scheduler")
	maxSteps := cl.fs.Int("max-steps", cci.DefaultMaxSteps, "slots one COMPACT_CONTROL_INST may execute (a looping word stops with a fault)")
	execMode := cl.fs.String("exec", "sim", "sim (DGE lowering + descriptor engines), ref (the reference semantics) or both (run the two, fail on any difference)")
	pos, gen, err := cl.parse(args, 1, "want one FILE (binary words or assembly text; - for stdin)")
	if err != nil {
		return err
	}
	coresSet := false
	cl.fs.Visit(func(f *flag.Flag) { coresSet = coresSet || f.Name == "cores" })
	switch {
	case coresSet && (*cores < 1 || *cores > 64):
		return usagef("--cores %d: 1 to 64 (.core names cores 0..63)", *cores)
	case *maxSteps <= 0:
		return usagef("--max-steps %d: want a positive slot count", *maxSteps)
	case *maxBytes <= 0:
		return usagef("--max-bytes %d: want a positive byte count", *maxBytes)
	case *timeline != "" && *execMode == "ref":
		return usagef("--timeline: the reference has no DMA time; use --exec sim or both")
	}
	prog, vt, rv, err := pf.load(e, pos[0], gen)
	if err != nil {
		return err
	}
	gen = prog.Gen
	exec, err := device.ParseExec(*execMode)
	if err != nil {
		return usagef("--exec %v", err)
	}
	sv, err := semValues(sems)
	if err != nil {
		return err
	}
	arrays := make([]loadPlan, len(loads))
	for i, l := range loads {
		if arrays[i], err = parseLoad(gen, l); err != nil {
			return err
		}
		defer arrays[i].npy.Close()
	}
	plans := make([]dumpPlan, len(dumps))
	var out, tl staged // dumps all or none; the timeline also after a failed run
	defer out.abort()
	defer tl.abort()
	for i, d := range dumps {
		if plans[i], err = parseDump(gen, d); err != nil {
			return err
		}
		for _, q := range plans[:i] {
			if q.file == plans[i].file {
				return usagef("--dump %q: %s is already another --dump's file", d, q.file)
			}
		}
		if _, err := out.reserve(plans[i].file); err != nil {
			return fmt.Errorf("--dump %s: %w", plans[i].file, err)
		}
	}
	if *timeline != "" {
		if _, err := tl.reserve(*timeline); err != nil {
			return fmt.Errorf("--timeline: %w", err)
		}
	}
	// Each HBM dump's staged file, mapped: the run writes the dump in place
	// (provideDump). Not with both executors, whose two memories cannot
	// share one file's pages; not for a device or FIFO (no staged file).
	var outs []*outMap
	if exec != device.Both && !ms.noOut {
		outs = make([]*outMap, len(plans))
	}
	defer func() {
		for _, o := range outs {
			if o != nil {
				o.close()
			}
		}
	}()
	opt := device.Options{Exec: exec, Cores: *cores, MaxBytes: *maxBytes, MaxSteps: *maxSteps, Tracing: *trace, Schedule: *timeline != ""}
	for r, v := range rv {
		opt.Regs[r] = v
	}
	opt.Load = func(d *device.Device) error { // core 0 is the memory --sem, --load and --dump address
		m := d.Core(0)
		for n, v := range sv {
			m.Sems[n] = v
		}
		for _, l := range arrays {
			if err := l.write(m, ms); err != nil {
				return err
			}
		}
		for i, p := range plans {
			if outs != nil && outs[i] == nil && out.temp(i) != "" {
				outs[i] = provideDump(p, out.temp(i), m, ms)
			}
		}
		return nil
	}
	if *trace {
		opt.Trace = func(l string) { fmt.Fprintln(e.stdout, l) }
	}
	if *timeline != "" {
		opt.Timeline = &sched.Timeline{}
	}
	for _, s := range prog.Streams {
		if *cores > 0 && s.Core >= *cores {
			return usagef("--cores %d: the program has a stream on core %d", *cores, s.Core)
		}
	}
	if len(vt.Base) == 0 && len(vt.Table) == 0 {
		vt = nil // no variables: a pseudo word stays one, and the executors say so
	}
	p := device.FromObject(prog, vt)
	res, runErr := device.Run(e.ctx, p, opt)
	if res.Ref == nil && res.Sim == nil {
		return runErr // nothing ran: a --load did not fit
	}
	if !res.Multi && *trace {
		for _, l := range res.Trace {
			fmt.Fprintln(e.stdout, l)
		}
	}
	if res.Multi {
		if st := res.Sched; st != nil && res.Sim != nil {
			for _, w := range st.Warnings {
				fmt.Fprintf(e.stderr, "ndma run: warning: %s\n", w)
			}
		}
		if opt.Timeline != nil && len(opt.Timeline.Events) > 0 { // written even for a deadlock: the timeline shows where it stopped
			var b bytes.Buffer
			werr := opt.Timeline.Write(&b)
			if werr == nil {
				werr = tl.write(0, b.Bytes())
			}
			if werr == nil {
				werr = tl.commit()
			}
			if werr != nil && runErr == nil {
				runErr = fmt.Errorf("--timeline: %w", werr)
			}
		}
	}
	final := res.Final().Core(0)
	var moved mem.Stats // every core's traffic (a cross-core copy reads one, writes another)
	for c := range res.Final().Cores() {
		st := res.Final().Core(c).Stats
		for r := range moved.Read {
			moved.Read[r] += st.Read[r]
			moved.Written[r] += st.Written[r]
		}
	}
	regionLines := func() {
		for _, r := range []isa.Region{isa.SBUF, isa.PSUM, isa.HBM} {
			fmt.Fprintf(e.stdout, "%s: read %d, written %d bytes\n", r, moved.Read[r], moved.Written[r])
		}
	}
	switch {
	case *asJSON:
		out := map[string]any{"status": "ok", "exec": *execMode, "read": regionStats(moved.Read), "written": regionStats(moved.Written)}
		if st := res.Sched; st != nil { // several streams: the scheduler's account (the engines' when they ran)
			out["streams"] = map[string]any{"words": st.Words, "time_ns": st.TimeNS, "peak_in_flight": st.PeakInFlight, "warnings": len(st.Warnings)}
		}
		if exec != device.Sim {
			x := res.RefStats
			out["words"], out["lanes"], out["skipped"], out["bytes_moved"] = x.Words, x.Lanes, x.Skipped, x.BytesMoved
		}
		if res.Sim != nil {
			y := res.SimStats
			out["sim"] = map[string]any{"words": y.Words, "descriptors": y.Descriptors, "m2s_bytes": y.M2SBytes,
				"s2m_bytes": y.S2MBytes, "queue_bytes": y.QueueBytes, "dma_time_ns": y.TimeNS}
		}
		if runErr != nil {
			out["status"], out["fault"] = "fault", runErr.Error()
		}
		b, _ := json.MarshalIndent(out, "", "  ")
		fmt.Fprintf(e.stdout, "%s\n", b)
	case *stats && res.Multi: // the streams' summary comes from the engines' schedule
		if st := res.Sched; st != nil && res.Sim != nil && (runErr == nil || errors.Is(runErr, device.ErrDiffer)) {
			fmt.Fprintf(e.stdout, "streams: %d words, simulated time %.3f µs, at most %d DMAs in flight\n", st.Words, float64(st.TimeNS)/1000, st.PeakInFlight)
			for i, s := range p.Streams {
				occ := 0.0
				if st.TimeNS > 0 {
					occ = 100 * float64(st.Busy[i]) / float64(st.TimeNS)
				}
				fmt.Fprintf(e.stdout, "  %s: DMAs in flight %.3f µs (%.0f%% of the run)\n", s.Name(), float64(st.Busy[i])/1000, occ)
			}
		}
		regionLines()
	case *stats:
		if exec != device.Sim {
			x := res.RefStats
			fmt.Fprintf(e.stdout, "words %d, lanes %d, skipped %d, bytes moved %d\n", x.Words, x.Lanes, x.Skipped, x.BytesMoved)
		}
		if res.Sim != nil {
			y := res.SimStats
			fmt.Fprintf(e.stdout, "sim: words %d, descriptors %d, M2S %d bytes, S2M %d bytes, DMA time %.3f µs (cost model: docs/sim.md)\n",
				y.Words, y.Descriptors, y.M2SBytes, y.S2MBytes, float64(y.TimeNS)/1000)
			for q := 0; q < 64; q++ {
				if b, ok := y.QueueBytes[q]; ok {
					fmt.Fprintf(e.stdout, "sim: DMA[%d] wrote %d bytes\n", q, b)
				}
			}
		}
		regionLines()
	}
	if runErr != nil {
		if *asJSON {
			return failed{runErr.Error()}
		}
		return runErr // no dump after a fault
	}
	for i, p := range plans {
		var o *outMap
		if outs != nil {
			o = outs[i]
		}
		if err := p.write(&out, i, final, ms, o); err != nil {
			return err
		}
	}
	for i, o := range outs { // every dump written: the memory is read no more
		if o == nil {
			continue
		}
		outs[i] = nil
		if err := o.close(); err != nil {
			return fmt.Errorf("--dump %s: writing %s: %w", plans[i].file, out.paths[i], err)
		}
	}
	return out.commit()
}

func regionStats(s [4]uint64) map[string]uint64 {
	return map[string]uint64{"sbuf": s[isa.SBUF], "psum": s[isa.PSUM], "hbm": s[isa.HBM]}
}

// loadPlan is one --load ADDR=FILE.npy, its header checked before the run;
// the data is read when a device is loaded (once per executor).
type loadPlan struct {
	addr uint64
	file string
	npy  *array.File
}

// parseLoad reads --load ADDR=FILE.npy and opens its array (the header
// checked against the file's size: nothing of the data is read yet).
func parseLoad(gen isa.Gen, spec string) (loadPlan, error) {
	at, file, ok := strings.Cut(spec, "=")
	if !ok {
		return loadPlan{}, usagef("--load %q: want ADDR=FILE.npy", spec)
	}
	addr, err := asm.ParseAddress(gen, at)
	if err != nil {
		return loadPlan{}, usagef("--load %q: %v", spec, err)
	}
	npy, err := array.Open(file)
	if err != nil {
		return loadPlan{}, fmt.Errorf("--load %s: %w", file, unwrapPathError(err))
	}
	return loadPlan{addr, file, npy}, nil
}

// write is --load: C-order bytes at ADDR; on SBUF/PSUM the first axis runs
// over partitions from ADDR's partition, same offset (device.LoadArray).
// Every row is checked first. An HBM array of a page or more is mapped
// and its whole pages attached (device.AttachArray): read in place, never
// copied; anything else is read from the file straight into the memory's
// backing (device.LoadArrayFrom): never held whole, never copied through a
// buffer.
func (l loadPlan) write(m *mem.Memory, ms *mappings) error {
	r, _, _ := m.Map.Split(l.addr)
	if r != isa.HBM && l.npy.Size > int64(m.Map.Partitions)*int64(m.Map.SBUFStride) {
		return fmt.Errorf("--load %s: shape %v: %d bytes are more than the on-chip memory holds", l.file, l.npy.Shape, l.npy.Size)
	}
	if r == isa.HBM && l.npy.Size >= mem.PageSize {
		// HBM pages read the file in place: mapped copy-on-write, a mapping
		// per memory (--exec both runs two), never zeroed or copied
		data, ok, err := l.npy.Map()
		if err != nil {
			return fmt.Errorf("--load %s: %w", l.file, err)
		}
		if ok {
			ms.add(l.file, data, l.npy)
			if err := device.AttachArray(m, l.addr, l.npy.Shape, data); err != nil {
				return fmt.Errorf("--load %s: %w", l.file, err)
			}
			return nil
		}
	}
	read := func(p []byte, off int64) error {
		if n, err := l.npy.ReadAt(p, off); n < len(p) {
			return err
		}
		return nil
	}
	if err := device.LoadArrayFrom(m, l.addr, l.npy.Shape, l.npy.Size, read); err != nil {
		return fmt.Errorf("--load %s: %w", l.file, err)
	}
	return nil
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
	dt, err := asm.EnumValue(isa.DType(), parts[len(parts)-2], gen)
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

// write is the dump: the memory at its address, in its dtype and shape,
// streamed from the memory's backing into output k (device.WriteArray) —
// checked whole before the file is written. o, where not nil, is output
// k mapped, its pages the memory's (provideDump): the bytes not in place
// there already are written into it.
func (p dumpPlan) write(out *staged, k int, m *mem.Memory, ms *mappings, o *outMap) error {
	size, ok := num.Size(p.dtype)
	if !ok {
		return fmt.Errorf("--dump %s: DTYPE %s has no byte size", p.file, isa.DType().Format(uint64(p.dtype)))
	}
	if err := device.CheckArray(m, p.addr, p.shape, size); err != nil {
		return fmt.Errorf("--dump %s: %w", p.file, err)
	}
	if o != nil {
		if err := device.WriteArray(&mapWriter{o, int64(o.hdr), ms}, m, p.addr, p.shape, size); err != nil {
			return fmt.Errorf("--dump %s: writing %s: %w", p.file, out.paths[k], unwrapPathError(err))
		}
		return nil
	}
	descr, _ := array.Descr(p.dtype)
	err := out.writeWith(k, func(w io.Writer) error {
		if err := array.WriteHeader(w, descr, p.shape); err != nil {
			return err
		}
		if of, ok := w.(*outFile); ok && len(ms.files) > 0 { // a loaded file's bytes left as they were: copied file to file
			return device.WriteArray(&dumpWriter{of, ms}, m, p.addr, p.shape, size)
		}
		return device.WriteArray(w, m, p.addr, p.shape, size)
	})
	if err != nil {
		return fmt.Errorf("--dump %s: %w", p.file, err)
	}
	return nil
}

// read is the dump's array: the memory at its address, in its dtype and shape.
func (p dumpPlan) read(m *mem.Memory) (*array.Array, error) {
	size, ok := num.Size(p.dtype)
	if !ok {
		return nil, fmt.Errorf("--dump %s: DTYPE %s has no byte size", p.file, isa.DType().Format(uint64(p.dtype)))
	}
	data, err := device.ReadArray(m, p.addr, p.shape, size)
	if err != nil {
		return nil, fmt.Errorf("--dump %s: %w", p.file, err)
	}
	descr, _ := array.Descr(p.dtype)
	return &array.Array{Descr: descr, Shape: p.shape, Data: data}, nil
}
