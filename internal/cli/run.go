package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"ndma/dtype"
	"slices"
	"strconv"
	"strings"

	"ndma/asm"
	"ndma/device"
	"ndma/dge"
	"ndma/internal/array"
	"ndma/internal/cci"
	"ndma/internal/num"
	"ndma/internal/sched"
	"ndma/isa"
	"ndma/mem"
	"ndma/ref"
)

// runRun is `ndma run`: a program run on the executors, its inputs loaded and its outputs dumped.
func runRun(e *env, args []string) error {
	var ms mappings // the --load files read in place
	return ms.guard(func() error { return runLoaded(e, args, &ms) })
}

// runLoaded is runRun under the guard of the files its --load maps.
func runLoaded(e *env, args []string, ms *mappings) error {
	f, path, gen, err := parseRunFlags(e, args)
	if err != nil {
		return err
	}
	pl := &runPlan{}
	defer pl.close()
	if err := pl.load(e, f, path, gen, ms); err != nil {
		return err
	}
	opt := pl.options(e, f, ms)
	p := device.FromObject(pl.prog, pl.vt)
	res, runErr := device.Run(e.ctx, p, opt)
	if res.Ref == nil && res.Sim == nil {
		return runErr // nothing ran: a --load did not fit
	}
	runErr = pl.report(e, f, p, res, opt.Timeline, runErr)
	if runErr != nil {
		if pl.tlReady { // the timeline of a failed run, alone: it shows where it stopped
			pl.tl.commit()
		}
		if f.asJSON {
			return failed{runErr.Error()}
		}
		return runErr // no dump after a fault
	}
	if err := pl.writeDumps(res.Final().Core(0), ms); err != nil {
		return err
	}
	if res.Exec == device.Both && !f.asJSON { // a comparison that passed says so, with what it covered
		fmt.Fprintln(e.stdout, agreeLine(res))
	}
	return nil
}

// agreeLine is what `--exec both` compared when ref and sim agree: the
// words run and the bytes written, and the final memories alike (a single
// stream is compared after every word, so they are alike then too).
func agreeLine(res *device.Result) string {
	words := res.RefStats.Words
	if res.Multi && res.Sched != nil {
		words = res.Sched.Words
	}
	var written uint64
	for c := range res.Final().Cores() {
		for _, b := range res.Final().Core(c).Stats.Written {
			written += b
		}
	}
	w := "words"
	if words == 1 {
		w = "word"
	}
	return fmt.Sprintf("ref and sim agree: %d %s, %d bytes written (loads included); their memories, semaphores and events end identical", words, w, written)
}

// runFlags are `ndma run`'s flags, parsed.
type runFlags struct {
	pf                   *programFlags
	sems, loads, dumps   multi
	trace, stats, asJSON bool
	maxBytes             int64
	cores, maxSteps      int
	coresSet             bool // --cores given (0 is then refused)
	timeline, execMode   string
}

// parseRunFlags parses `ndma run`'s command line and checks its numbers; it returns the FILE and --gen.
func parseRunFlags(e *env, args []string) (*runFlags, string, isa.Gen, error) {
	cl := newCmdLine(e, "run", "FILE|-", "", "generation (a text file's .gen is the default)")
	f := &runFlags{pf: addProgramFlags(cl, "engine register, rN=V; repeatable")}
	cl.fs.Var(&f.sems, "sem", "semaphore, N=V; repeatable")
	cl.fs.Var(&f.loads, "load", "ADDR=FILE.npy: write an array's bytes at ADDR (SBUF/PSUM: axis 0 over partitions); repeatable")
	cl.fs.Var(&f.dumps, "dump", "ADDR:DTYPE:SHAPE=FILE.npy: write memory out as an array after the run; repeatable")
	cl.fs.BoolVar(&f.trace, "trace", false, "print what each word read, wrote and skipped")
	cl.fs.BoolVar(&f.stats, "stats", false, "print bytes per region and lanes")
	cl.fs.BoolVar(&f.asJSON, "json", false, "print a JSON summary")
	cl.fs.Int64Var(&f.maxBytes, "max-bytes", ref.DefaultMaxBytes, "refuse a word that would move more bytes")
	cl.fs.IntVar(&f.cores, "cores", 0, "cores in the run (default: those the file's .core lines name); a cross-core copy may target any of them")
	cl.fs.StringVar(&f.timeline, "timeline", "", "FILE.json: write the run on the engines as Chrome trace events (Perfetto); a single stream then runs under the scheduler")
	cl.fs.IntVar(&f.maxSteps, "max-steps", cci.DefaultMaxSteps, "slots one COMPACT_CONTROL_INST may execute (a looping word stops with a fault)")
	cl.fs.StringVar(&f.execMode, "exec", "sim", "sim (DGE lowering + descriptor engines), ref (the reference semantics) or both (run the two, fail on any difference)")
	pos, gen, err := cl.parse(args, 1, "want one FILE (binary words or assembly text; - for stdin)")
	if err != nil {
		return nil, "", gen, err
	}
	cl.fs.Visit(func(fl *flag.Flag) { f.coresSet = f.coresSet || fl.Name == "cores" })
	switch {
	case f.coresSet && (f.cores < 1 || f.cores > 64):
		return nil, "", gen, usagef("--cores %d: 1 to 64 (.core names cores 0..63)", f.cores)
	case f.maxSteps <= 0:
		return nil, "", gen, usagef("--max-steps %d: want a positive slot count", f.maxSteps)
	case f.maxBytes <= 0:
		return nil, "", gen, usagef("--max-bytes %d: want a positive byte count", f.maxBytes)
	case f.timeline != "" && f.execMode == "ref":
		return nil, "", gen, usagef("--timeline: the reference has no DMA time; use --exec sim or both")
	}
	return f, pos[0], gen, nil
}

// runPlan is a run's inputs, read and checked before it: the program, its
// --sem, --load and --dump, and the staged files the dumps and the timeline go to.
type runPlan struct {
	prog    *asm.Object
	vt      *dge.Vars
	rv      map[uint8]uint32
	exec    device.Exec
	sems    map[uint8]int32
	loads   []loadPlan
	dumps   []dumpPlan
	out, tl staged    // dumps all or none, the timeline with them; the timeline alone after a failed run
	tlReady bool      // the timeline is in tl, to commit
	outs    []*outMap // each HBM dump's staged file, mapped (nil: none is)
}

// close releases what the plan holds: the mapped dumps, the staged files not committed, the --load arrays.
func (pl *runPlan) close() {
	for _, o := range pl.outs {
		if o != nil {
			o.close()
		}
	}
	pl.tl.abort()
	pl.out.abort()
	for i := len(pl.loads) - 1; i >= 0; i-- {
		pl.loads[i].npy.Close()
	}
}

// load reads the program at path and the flags' inputs into the plan, reserving the output files.
func (pl *runPlan) load(e *env, f *runFlags, path string, gen isa.Gen, ms *mappings) error {
	var err error
	if pl.prog, pl.vt, pl.rv, err = f.pf.load(e, path, gen); err != nil {
		return err
	}
	gen = pl.prog.Gen
	if pl.exec, err = device.ParseExec(f.execMode); err != nil {
		return usagef("--exec %v", err)
	}
	if pl.sems, err = semValues(f.sems); err != nil {
		return err
	}
	for _, l := range f.loads {
		lp, err := parseLoad(gen, l)
		if err != nil {
			return err
		}
		pl.loads = append(pl.loads, lp)
	}
	if err := pl.reserveDumps(gen, f.dumps); err != nil {
		return err
	}
	if f.timeline != "" {
		if _, err := pl.tl.reserve(f.timeline); err != nil {
			return fmt.Errorf("--timeline: %w", err)
		}
	}
	// Each HBM dump's staged file, mapped: the run writes the dump in place
	// (provideDump). Not with both executors, whose two memories cannot
	// share one file's pages; not for a device or FIFO (no staged file).
	if pl.exec != device.Both && !ms.noOut {
		pl.outs = make([]*outMap, len(pl.dumps))
	}
	for _, s := range pl.prog.Streams {
		if f.cores > 0 && s.Core >= f.cores {
			return usagef("--cores %d: the program has a stream on core %d", f.cores, s.Core)
		}
	}
	if len(pl.vt.Base) == 0 && len(pl.vt.Table) == 0 {
		pl.vt = nil // no variables: a pseudo word stays one, and the executors say so
	}
	return nil
}

// reserveDumps parses each --dump and reserves its staged file (no two dumps to one file).
func (pl *runPlan) reserveDumps(gen isa.Gen, dumps multi) error {
	pl.dumps = make([]dumpPlan, len(dumps))
	for i, d := range dumps {
		var err error
		if pl.dumps[i], err = parseDump(gen, d); err != nil {
			return err
		}
		for _, q := range pl.dumps[:i] {
			if q.file == pl.dumps[i].file {
				return usagef("--dump %q: %s is already another --dump's file", d, q.file)
			}
		}
		if _, err := pl.out.reserve(pl.dumps[i].file); err != nil {
			return fmt.Errorf("--dump %s: %w", pl.dumps[i].file, err)
		}
	}
	return nil
}

// options are the run's device.Options: the flags', and a Load writing the plan's inputs into core 0.
func (pl *runPlan) options(e *env, f *runFlags, ms *mappings) device.Options {
	opt := device.Options{Exec: pl.exec, Cores: f.cores, MaxBytes: f.maxBytes, MaxSteps: f.maxSteps, Tracing: f.trace, Schedule: f.timeline != ""}
	for r, v := range pl.rv {
		opt.Regs[r] = v
	}
	opt.Load = func(d *device.Device) error { return pl.loadInto(d.Core(0), ms) }
	if f.trace {
		opt.Trace = func(l string) { fmt.Fprintln(e.stdout, l) }
	}
	if f.timeline != "" {
		opt.Timeline = &sched.Timeline{}
	}
	return opt
}

// loadInto writes --sem and --load into m, core 0 (the memory --sem, --load and --dump address), and maps the dumps onto it.
func (pl *runPlan) loadInto(m *mem.Memory, ms *mappings) error {
	for n, v := range pl.sems {
		m.Sems[n] = v
	}
	for _, l := range pl.loads {
		if err := l.write(m, ms); err != nil {
			return err
		}
	}
	for i, p := range pl.dumps {
		if pl.outs != nil && pl.outs[i] == nil && pl.out.temp(i) != "" {
			pl.outs[i] = provideDump(p, pl.out.temp(i), m, ms)
		}
	}
	return nil
}

// report prints the run — trace, warnings, --json or --stats — and writes the timeline; it returns runErr or the timeline's error.
func (pl *runPlan) report(e *env, f *runFlags, p *device.Program, res *device.Result, tl *sched.Timeline, runErr error) error {
	if !res.Multi && f.trace {
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
		if tl != nil && len(tl.Events) > 0 { // written even for a deadlock: the timeline shows where it stopped
			if werr := writeTimeline(&pl.tl, tl); werr != nil && runErr == nil {
				runErr = fmt.Errorf("--timeline: %w", werr)
			} else if werr == nil {
				pl.tlReady = true
			}
		}
	}
	var moved mem.Stats // every core's traffic (a cross-core copy reads one, writes another)
	for c := range res.Final().Cores() {
		moved.Add(res.Final().Core(c).Stats)
	}
	switch {
	case f.asJSON:
		printRunJSON(e, f.execMode, res, moved, runErr)
	case f.stats && res.Multi: // the streams' summary comes from the engines' schedule
		if st := res.Sched; st != nil && res.Sim != nil && (runErr == nil || errors.Is(runErr, device.ErrDiffer)) {
			printStreamStats(e, p, st)
		}
		printRegionStats(e, moved)
		printFinalState(e, finalState(res))
	case f.stats:
		printRunStats(e, res)
		printRegionStats(e, moved)
		printFinalState(e, finalState(res))
	}
	return runErr
}

// writeTimeline writes the timeline as Chrome trace events into its staged
// file, committed with the dumps or, after a failed run, alone.
func writeTimeline(out *staged, tl *sched.Timeline) error {
	var b bytes.Buffer
	err := tl.Write(&b)
	if err == nil {
		err = out.write(0, b.Bytes())
	}
	return err
}

// runSummaryJSON is `ndma run --json` (docs/json.md): every key present,
// null where the executor or the scheduler did not run.
type runSummaryJSON struct {
	Status   string            `json:"status"`
	Fault    string            `json:"fault"` // "" when the run went through
	Exec     string            `json:"exec"`
	Read     map[string]uint64 `json:"read"`
	Written  map[string]uint64 `json:"written"` // the payload bytes written per region: alike under every executor
	Streams  *streamsJSON      `json:"streams"` // null: a single stream, not scheduled
	Warnings []string          `json:"warnings"`
	Ref      *refStatsJSON     `json:"ref"` // null: the reference did not run (--exec sim)
	Sim      *simStatsJSON     `json:"sim"` // null: the engines did not run (--exec ref)
	Final    stateJSON         `json:"final"`
}

type streamsJSON struct {
	Words        int   `json:"words"`
	TimeNS       int64 `json:"time_ns"`
	PeakInFlight int   `json:"peak_in_flight"`
	Warnings     int   `json:"warnings"`
}

type refStatsJSON struct {
	Words      int    `json:"words"`
	Lanes      int    `json:"lanes"`
	Skipped    int    `json:"skipped"`
	BytesMoved uint64 `json:"bytes_moved"`
}

type simStatsJSON struct {
	Words       int               `json:"words"`
	Descriptors int               `json:"descriptors"`
	M2SBytes    uint64            `json:"m2s_bytes"`
	S2MBytes    uint64            `json:"s2m_bytes"`
	QueueBytes  map[string]uint64 `json:"queue_bytes"` // by DMA engine number
	DMATimeNS   int64             `json:"dma_time_ns"`
}

// printRunJSON prints the --json summary of a run.
func printRunJSON(e *env, execMode string, res *device.Result, moved mem.Stats, runErr error) {
	out := runSummaryJSON{Status: "ok", Exec: execMode, Read: regionStats(moved.Read), Written: regionStats(moved.Written), Warnings: []string{}}
	if st := res.Sched; st != nil { // several streams: the scheduler's account (the engines' when they ran)
		out.Streams = &streamsJSON{st.Words, st.TimeNS, st.PeakInFlight, len(st.Warnings)}
		out.Warnings = append(out.Warnings, st.Warnings...)
	}
	out.Warnings = append(out.Warnings, res.Warnings...) // races and the like, each once (text: on stderr)
	if res.Exec != device.Sim {
		x := res.RefStats
		out.Ref = &refStatsJSON{x.Words, x.Lanes, x.Skipped, x.BytesMoved}
	}
	if res.Sim != nil {
		y := res.SimStats
		out.Sim = &simStatsJSON{Words: y.Words, Descriptors: y.Descriptors, M2SBytes: y.M2SBytes, S2MBytes: y.S2MBytes, QueueBytes: map[string]uint64{}, DMATimeNS: y.TimeNS}
		for q, b := range y.QueueBytes {
			out.Sim.QueueBytes[strconv.Itoa(q)] = b
		}
	}
	if runErr != nil {
		out.Status, out.Fault = "fault", runErr.Error()
	}
	out.Final = finalState(res)
	b, _ := json.MarshalIndent(out, "", "  ")
	fmt.Fprintf(e.stdout, "%s\n", b)
}

// printStreamStats is --stats of several streams: the engines' schedule, and each stream's DMA time.
func printStreamStats(e *env, p *device.Program, st *device.Stats) {
	fmt.Fprintf(e.stdout, "streams: %d words, simulated time %.3f µs, at most %d DMAs in flight\n", st.Words, float64(st.TimeNS)/1000, st.PeakInFlight)
	for i, s := range p.Streams {
		occ := 0.0
		if st.TimeNS > 0 {
			occ = 100 * float64(st.Busy[i]) / float64(st.TimeNS)
		}
		fmt.Fprintf(e.stdout, "  %s: DMAs in flight %.3f µs (%.0f%% of the run)\n", s.Name(), float64(st.Busy[i])/1000, occ)
	}
}

// printRunStats is --stats of one stream: the reference's counts and the engines'.
func printRunStats(e *env, res *device.Result) {
	if res.Exec != device.Sim {
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
}

// printRegionStats prints the bytes read and written per region.
func printRegionStats(e *env, moved mem.Stats) {
	for _, r := range []isa.Region{isa.SBUF, isa.PSUM, isa.HBM} {
		fmt.Fprintf(e.stdout, "%s: read %d, written %d bytes\n", r, moved.Read[r], moved.Written[r])
	}
}

// writeDumps writes every --dump from m, core 0 after the run, and commits them.
func (pl *runPlan) writeDumps(m *mem.Memory, ms *mappings) error {
	for i, p := range pl.dumps {
		var o *outMap
		if pl.outs != nil {
			o = pl.outs[i]
		}
		if err := p.write(&pl.out, i, m, ms, o); err != nil {
			return err
		}
	}
	for i, o := range pl.outs { // every dump written: the memory is read no more
		if o == nil {
			continue
		}
		pl.outs[i] = nil
		if err := o.close(); err != nil {
			return fmt.Errorf("--dump %s: writing %s: %w", pl.dumps[i].file, pl.out.paths[i], err)
		}
	}
	if pl.tlReady {
		pl.out.adopt(&pl.tl) // the timeline with the dumps: all or none
	}
	return pl.out.commit()
}

// regionStats is --json's bytes per region.
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

// dumpPlan is one --dump ADDR:DTYPE:SHAPE=FILE.npy, parsed.
type dumpPlan struct {
	addr  uint64
	dtype uint8
	shape []int
	file  string
}

// neffDTypeNames are the DTYPE spellings of NumPy and a NEFF (float32,
// bfloat16, float8_e4m3fn, …), as `neff info` prints tensors: a --dump
// takes them beside the spec names and short forms.
func neffDTypeNames() map[string]uint64 {
	out := map[string]uint64{}
	for name, d := range dtype.NEFFNames() {
		out[name] = uint64(d)
	}
	return out
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
	dt, err := asm.EnumValueAlso(isa.DType(), parts[len(parts)-2], gen, neffDTypeNames())
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
	// what the dump will read is checked now, before the run: size and mapping depend on the flag alone
	if size, ok := num.Size(p.dtype); !ok {
		return p, usagef("--dump %q: DTYPE %s has no byte size", spec, isa.DType().Format(uint64(p.dtype)))
	} else if err := device.CheckArray(mem.New(gen), p.addr, p.shape, size); err != nil {
		return p, usagef("--dump %q: %v", spec, err)
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

// stateJSON is the device's control state after a run: per core the
// semaphores that are not 0 and the events set, per stream the registers
// that are not 0 (`run --json` "final", `--stats`).
type stateJSON struct {
	Cores     []coreStateJSON              `json:"cores"`
	Registers map[string]map[string]uint32 `json:"registers"`
}

type coreStateJSON struct {
	Core       int              `json:"core"`
	Semaphores map[string]int32 `json:"semaphores"`
	Events     []int            `json:"events"`
}

// finalState reads the final device's semaphores and events and the
// streams' registers.
func finalState(res *device.Result) stateJSON {
	st := stateJSON{Cores: []coreStateJSON{}, Registers: map[string]map[string]uint32{}}
	d := res.Final()
	if d == nil {
		return st
	}
	for c := range d.Cores() {
		m := d.Core(c)
		cs := coreStateJSON{Core: c, Semaphores: map[string]int32{}, Events: []int{}}
		for i, v := range m.Sems {
			if v != 0 {
				cs.Semaphores[strconv.Itoa(i)] = v
			}
		}
		for i, set := range m.Events {
			if set {
				cs.Events = append(cs.Events, i)
			}
		}
		st.Cores = append(st.Cores, cs)
	}
	for name, regs := range res.Regs {
		r := map[string]uint32{}
		for i, v := range regs {
			if v != 0 {
				r[fmt.Sprintf("r%d", i)] = v
			}
		}
		st.Registers[name] = r
	}
	return st
}

// printFinalState prints finalState as lines: "core 0: $S[1]=1 $S[3]=16;
// events 2 5", "stream act: r4=0x10".
func printFinalState(e *env, st stateJSON) {
	for _, c := range st.Cores {
		var parts []string
		for i := range 256 {
			if v, ok := c.Semaphores[strconv.Itoa(i)]; ok {
				parts = append(parts, fmt.Sprintf("$S[%d]=%d", i, v))
			}
		}
		line := fmt.Sprintf("core %d final: %s", c.Core, strings.Join(parts, " "))
		if len(parts) == 0 {
			line += "every semaphore 0"
		}
		if len(c.Events) > 0 {
			line += fmt.Sprintf("; events set %v", c.Events)
		}
		fmt.Fprintln(e.stdout, line)
	}
	for _, name := range slices.Sorted(maps.Keys(st.Registers)) {
		var parts []string
		for i := range 64 {
			if v, ok := st.Registers[name][fmt.Sprintf("r%d", i)]; ok {
				parts = append(parts, fmt.Sprintf("r%d=%#x", i, v))
			}
		}
		if len(parts) > 0 {
			fmt.Fprintf(e.stdout, "stream %s final registers: %s\n", name, strings.Join(parts, " "))
		}
	}
}
