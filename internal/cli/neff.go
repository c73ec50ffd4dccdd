package cli

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"ndma/internal/suggest"
	"slices"
	"sort"
	"strings"

	"ndma/asm"
	"ndma/device"
	"ndma/dge"
	"ndma/inspect"
	"ndma/internal/array"
	"ndma/internal/sched"
	"ndma/isa"
	"ndma/neff"
	"ndma/sdma"
)

// neffCommands are the `ndma neff` subcommands.
var neffCommands = map[string]func(e *env, args []string) error{
	"info": runNEFFInfo, "disasm": runNEFFDisasm, "check": runNEFFCheck, "lower": runNEFFLower,
	"run": runNEFFRun, "lint": runNEFFLint, "diff": runNEFFDiff, "report": runNEFFReport,
}

// runNEFF is `ndma neff SUBCOMMAND …`.
func runNEFF(e *env, args []string) error {
	if len(args) > 0 {
		if run, ok := neffCommands[args[0]]; ok {
			return run(e, args[1:])
		}
	}
	return usagef("ndma neff info|disasm|check|lower|lint|diff|report|run [--gen G] FILE")
}

// runNEFFInfo is `ndma neff info FILE`: the container as neff.md describes
// it — every header field, the payload and hash, the members, and per
// engine stream (.bin) the words by opcode.
func runNEFFInfo(e *env, args []string) error {
	cl := newCmdLine(e, "neff info", "FILE", "", "generation the words are named for (default: the kelf's target, else cayman)")
	strict := cl.fs.Bool("strict", false, "a hash mismatch is an error")
	words := cl.fs.Bool("words", false, "list every decoded or control word of each engine in canonical text")
	blocks := cl.fs.Bool("blocks", false, "list every dma[] block and descriptor (default: a summary per subgraph, engine and queue)")
	asJSON := cl.fs.Bool("json", false, "print the container, graph and budget as JSON (docs/json.md)")
	maxInflated := cl.fs.Int64("max-inflated", neff.DefaultMaxInflated, "refuse a NEFF whose tar inflates past this many bytes (zip-bomb cap)")
	pos, gen, err := cl.parse(args, 1, "want one FILE.neff")
	if err != nil {
		return err
	}
	b, err := readInput(e, pos[0])
	if err != nil {
		return err
	}
	if *maxInflated <= 0 {
		return usagef("--max-inflated %d: want a positive byte count", *maxInflated)
	}
	f, err := neff.Parse(b, neff.Options{Strict: *strict, MaxInflated: *maxInflated})
	if err != nil {
		return fmt.Errorf("%s: %w", pos[0], err)
	}
	for _, w := range f.Warnings {
		fmt.Fprintf(e.stderr, "ndma neff: warning: %s: %s\n", pos[0], w)
	}
	if !genGiven(cl) { // the file's target, as every other neff command (issue 34)
		gen = isa.Cayman
		if _, tg := f.Target(); tg != isa.GenAny {
			gen = tg
		}
	}
	bgen := gen
	if *asJSON {
		return printInfoJSON(e, pos[0], f, gen, bgen)
	}
	printInfoHeader(e.stdout, f)
	if _, tg := f.Target(); tg != gen {
		fmt.Fprintf(e.stdout, "words read as %s (--gen)\n", gen.Label())
	}
	sgErr := printInfoGraph(e.stdout, f, gen, bgen, *words, *blocks)
	printInfoMembers(e.stdout, f, gen)
	if sgErr != nil {
		return fmt.Errorf("%s: %w", pos[0], sgErr)
	}
	return nil
}

// printInfoJSON is neff info --json.
func printInfoJSON(e *env, path string, f *neff.File, gen, bgen isa.Gen) error {
	j, err := infoJSON(f, gen, bgen)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := writeJSON(e.stdout, j); err != nil {
		return err
	}
	if j.Error != "" {
		return fmt.Errorf("%s: %s", path, j.Error)
	}
	return nil
}

// printInfoHeader prints the container's header, payload, hash and target.
func printInfoHeader(w io.Writer, f *neff.File) {
	h := f.Header
	fmt.Fprintf(w, "name %q, uuid %s\n", h.Name, h.UUIDString())
	fmt.Fprintf(w, "pkg_version %d, header_size %#x, data_size %#x, neff_version %d.%d, build %q\n", h.PkgVersion, h.HeaderSize, h.DataSize, h.MajorVersion, h.MinorVersion, h.Build)
	fmt.Fprintf(w, "num_tpb %d, requested_tpb_count %d, tpb_per_node[0] %d, vnc_size %d\n", h.NumTPB, h.RequestedTPBCount, h.TPBPerNode[0], h.VNCSize)
	fmt.Fprintf(w, "feature_bits %#x: %s\n", h.FeatureBits, strings.Join(neff.Features(h.FeatureBits), ", "))
	payload := "raw tar"
	if f.Gzip {
		payload = fmt.Sprintf("gzip + %d zero bytes", f.Padding)
	}
	fmt.Fprintf(w, "payload: %s; hash: %s\n", payload, f.HashKind)
	if name, g := f.Target(); name != "" {
		fmt.Fprintf(w, "target %s: %s\n", name, g.Label())
	}
}

// printInfoGraph prints every subgraph — variables where the device places
// them (device.Place, the placement a run uses), queues, engines — the
// tensors and the budget; the error is a graph that does not resolve (the
// container still lists).
func printInfoGraph(w io.Writer, f *neff.File, gen, bgen isa.Gen, words, blocks bool) error {
	sgs, err := f.Subgraphs()
	if err != nil {
		fmt.Fprintf(w, "subgraphs: %v\n", err)
		return err
	}
	placed, perr := device.Place(sgs) // the run's own placement: one allocator for the device
	if perr != nil {                  // listed without addresses; the command fails
		fmt.Fprintf(w, "placement: %v\n", perr)
	}
	for si := range sgs {
		var place map[int]uint64
		if perr == nil {
			place = placed[si]
		}
		printInfoSubgraph(w, &sgs[si], place, gen, words, blocks)
	}
	kind := map[string]string{} // a tensor a variable holds: that variable's type (input, output, file)
	for si := range sgs {
		for _, v := range sgs[si].Variables() {
			if kind[v.Name] == "" {
				kind[v.Name] = v.Type
			}
			if t, ok := strings.CutPrefix(strings.TrimSuffix(v.FileName, ".npy"), "value_"); ok && kind[t] == "" {
				kind[t] = "the data of file variable " + v.Name // value_<tensor>.npy (docs/neff.md §4.4)
			}
		}
	}
	tensors := f.Tensors()
	for _, name := range slices.Sorted(maps.Keys(tensors)) {
		k := kind[name]
		if k == "" {
			k = "no variable"
		}
		fmt.Fprintf(w, "tensor %s: %s %v (%s)\n", name, tensors[name].Dtype, tensors[name].Shape, k)
	}
	if b, err := inspect.BudgetOf(bgen, sgs); err == nil {
		printBudget(w, b)
	} else {
		fmt.Fprintf(w, "budget: %v\n", err)
	}
	return perr
}

// printInfoSubgraph prints one subgraph: its variables at their addresses,
// its queues, its engines' words by opcode and blocks.
func printInfoSubgraph(w io.Writer, sg *neff.Subgraph, place map[int]uint64, gen isa.Gen, words, blocks bool) {
	fmt.Fprintf(w, "subgraph %s (%s/def.json):", sg.Name, sg.Dir)
	for _, en := range sg.Engines {
		fmt.Fprintf(w, " %s=%s", en.Key, en.Instr)
	}
	fmt.Fprintln(w)
	for _, v := range sg.Variables() {
		extra := ""
		switch {
		case v.Type == "file":
			extra = fmt.Sprintf(", file %s, alignment %d", v.FileName, v.Alignment)
		case v.Type == "dge-table":
			extra = fmt.Sprintf(", list %v", v.List)
		case v.Type == "virtual":
			extra = fmt.Sprintf(", backing offset %d", v.BackingOff)
		}
		if a, ok := place[v.ID]; ok {
			extra += fmt.Sprintf(", placed at %#x", a)
		}
		size := fmt.Sprintf("%d bytes", v.Size)
		if v.Size < 0 { // def.json said so; check reports it
			size = fmt.Sprintf("size %d (invalid: negative)", v.Size)
		}
		fmt.Fprintf(w, "  var %d %s: %s, %s%s\n", v.ID, v.Name, v.Type, size, extra)
	}
	for _, q := range sg.Queues() {
		sems := fmt.Sprintf("semaphores %v", q.Semaphores)
		if q.Semaphore != nil {
			sems = fmt.Sprintf("semaphore %d", *q.Semaphore)
		}
		fmt.Fprintf(w, "  queue %s: owner %s, %s, %d queues, %s\n", q.Name, q.Owner, q.Type, max(q.NumQueues, 1), sems)
	}
	for ei := range sg.Engines {
		en := &sg.Engines[ei]
		counts, n := opcodeCounts(gen, en.Code)
		fmt.Fprintf(w, "  engine %s (%s → %s): %d words%s; %d dma[] blocks\n", en.Key, en.Manifest, en.Instr, n, counts, len(en.Blocks))
		if blocks {
			for _, b := range en.Blocks {
				printBlock(w, &b)
			}
		} else {
			printBlockSummary(w, en.Blocks)
		}
		if words {
			printWords(w, gen, en.Code)
		}
	}
	if blocks {
		for _, b := range sg.Blocks {
			printBlock(w, &b)
		}
	} else if len(sg.Blocks) > 0 {
		fmt.Fprintf(w, "  def.json: %d dma[] blocks\n", len(sg.Blocks))
		printBlockSummary(w, sg.Blocks)
	}
}

// printBlockSummary is a line per queue of an engine's dma[] blocks: how
// many, their descriptors, the bytes their sources walk (sizes multiplied,
// neff.md §4.7) and their instructions' range (--blocks lists them all).
func printBlockSummary(w io.Writer, bs []neff.Block) {
	type sum struct {
		blocks, descs int
		bytes         int64
		first, last   string
	}
	var order []string
	by := map[string]*sum{}
	for i := range bs {
		b := &bs[i]
		s := by[b.Queue]
		if s == nil {
			s = &sum{first: b.Comment}
			by[b.Queue] = s
			order = append(order, b.Queue)
		}
		s.blocks++
		s.descs += len(b.Desc)
		s.last = b.Comment
		for k := range b.Desc {
			s.bytes += descBytes(&b.Desc[k])
		}
	}
	for _, q := range order {
		s := by[q]
		fmt.Fprintf(w, "    queue %s: %d %s, %d descriptors, %d bytes", q, s.blocks, plural(s.blocks, "block"), s.descs, s.bytes)
		if s.first != "" {
			if s.first == s.last {
				fmt.Fprintf(w, ", instruction %s", s.first)
			} else {
				fmt.Fprintf(w, ", instructions %s … %s", s.first, s.last)
			}
		}
		fmt.Fprintln(w)
	}
}

// descBytes is the bytes a descriptor's source walk covers: the product of
// its sizes (sizes[0] the contiguous run in bytes, neff.md §4.7), or its
// parts' for a from_arr gather.
func descBytes(d *neff.Desc) int64 {
	if len(d.FromArr) > 0 {
		var n int64
		for k := range d.FromArr {
			n += descBytes(&d.FromArr[k])
		}
		return n
	}
	if len(d.FromSizes) == 0 {
		return 0
	}
	n := int64(1)
	for _, s := range d.FromSizes {
		n *= s
	}
	return n
}

// printWords lists every decoded or control word of a stream.
func printWords(w io.Writer, gen isa.Gen, code []byte) {
	d := isa.NewDecoder(gen, code)
	for d.Next() {
		switch in := d.Inst(); {
		case in.Def().DecodedOn(in.Gen):
			fmt.Fprintf(w, "    %#06x %s", d.Offset(), asm.AppendInst(nil, in))
		case in.Def().Control || in.Def().Known():
			fmt.Fprintf(w, "    %#06x %s%s\n", d.Offset(), in.Def().Mnemonic(), eventsText(in))
		}
	}
}

// printInfoMembers lists the container's members, each .bin with its words
// by opcode.
func printInfoMembers(w io.Writer, f *neff.File, gen isa.Gen) {
	fmt.Fprintf(w, "%d members:\n", len(f.Members))
	for _, m := range f.Members {
		line := fmt.Sprintf("  %-40s %9d", m.Name, len(m.Data))
		if strings.HasSuffix(m.Name, ".bin") && len(m.Data) > 0 && len(m.Data)%isa.WordSize == 0 && !strings.Contains(m.Name, "table") {
			counts, n := opcodeCounts(gen, m.Data)
			line += fmt.Sprintf("  %d words%s", n, counts)
		}
		fmt.Fprintln(w, line)
	}
}

// streamFlags are --subgraph and --engine, which select a NEFF's streams.
func streamFlags(cl *cmdLine) (sub, eng *string) {
	return cl.fs.String("subgraph", "", "only this subgraph (sg00, …)"), cl.fs.String("engine", "", "only this engine (pe, act, pool, dve, sp)")
}

// runNEFFDisasm is `ndma neff disasm FILE [--subgraph sg00] [--engine pool]`:
// each engine stream, found through kelf → def.json → engine JSON, as
// canonical text for the kelf's target generation.
func runNEFFDisasm(e *env, args []string) error {
	cl := newCmdLine(e, "neff disasm", "FILE", "", "generation (default: the kelf's target)")
	sub, eng := streamFlags(cl)
	asJSON := cl.fs.Bool("json", false, "print each stream's words as JSON (docs/json.md)")
	path, gen, _, sgs, err := openNEFF(e, cl, args)
	if err != nil {
		return err
	}
	if _, err := checkPick(sgs, *sub, *eng); err != nil {
		return err
	}
	if *asJSON {
		out := []streamJSON{}
		for _, sg := range sgs {
			for _, en := range sg.Engines {
				if (*sub != "" && sg.Name != *sub) || (*eng != "" && !strings.EqualFold(en.Key, *eng)) {
					continue
				}
				ws, err := isa.AppendJSONStream(nil, gen, en.Code)
				if err != nil {
					return fmt.Errorf("%s %s: %w", sg.Name, en.Key, err)
				}
				out = append(out, streamJSON{sg.Name, en.Key, en.Instr, strings.ToLower(gen.String()), ws})
			}
		}
		if len(out) == 0 {
			return fmt.Errorf("%s: no stream matches --subgraph %q --engine %q", path, *sub, *eng)
		}
		return writeJSON(e.stdout, out)
	}
	e.stream() // a stream's text may be large
	shown := 0
	for _, sg := range sgs {
		if *sub != "" && sg.Name != *sub {
			continue
		}
		for _, en := range sg.Engines {
			if *eng != "" && !strings.EqualFold(en.Key, *eng) {
				continue
			}
			shown++
			fmt.Fprintf(e.stdout, "# %s %s (%s/%s), %d words\n.gen %s\n", sg.Name, en.Key, sg.Dir, en.Instr, len(en.Code)/isa.WordSize, strings.ToLower(gen.String()))
			d := isa.NewDecoder(gen, en.Code)
			for d.Next() {
				fmt.Fprintf(e.stdout, "%s", asm.AppendInst(nil, d.Inst()))
			}
			if d.Err() != nil {
				return fmt.Errorf("%s %s: %w", sg.Name, en.Key, d.Err())
			}
		}
	}
	if shown == 0 {
		return fmt.Errorf("%s: no stream matches --subgraph %q --engine %q", path, *sub, *eng)
	}
	return nil
}

// runNEFFCheck is `ndma neff check FILE`: device.Check — every word
// validated for the kelf's target, the cross-checks of neff.md §9.6, and
// whatever `lower` or `run` would refuse — each problem located (subgraph,
// engine, word offset).
func runNEFFCheck(e *env, args []string) error {
	cl := newCmdLine(e, "neff check", "FILE", "", "generation (default: the kelf's target)")
	var ins multi
	cl.fs.Var(&ins, "in", "NAME=FILE.npy: an input's data for the OOB pre-flight of the indirect words (repeatable; the others get neff run's random data)")
	asJSON := cl.fs.Bool("json", false, "print the problems (and the pre-flight) as JSON (docs/json.md)")
	maxBytes := cl.fs.Int64("max-bytes", device.DefaultMaxRunBytes, "the bytes a run may write in all, as neff run --max-bytes holds it; -1: no budget")
	path, gen, f, sgs, err := openNEFF(e, cl, args)
	if err != nil {
		return err
	}
	if *maxBytes == 0 || *maxBytes < -1 {
		return usagef("--max-bytes %d: want a positive byte count, or -1 for no budget", *maxBytes)
	}
	problems, words, err := device.CheckWith(gen, f, sgs, device.CheckOptions{MaxRunBytes: *maxBytes})
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	var oob *inspect.OOBReport
	if len(ins) > 0 {
		if oob, err = preflightNEFF(gen, f, sgs, ins); err != nil {
			return err
		}
	}
	bad := len(problems) > 0 || oob != nil && oob.Bad()
	if *asJSON {
		out := checkJSON{Target: gen.String(), Words: words, Subgraphs: len(sgs), Problems: []problemJSON{}, Preflight: oob}
		for _, p := range problems {
			out.Problems = append(out.Problems, problemJSON{p.Subgraph, p.Engine, p.Offset, p.Msg, p.String()})
		}
		if err := writeJSON(e.stdout, out); err != nil {
			return err
		}
	} else {
		for _, p := range problems {
			fmt.Fprintln(e.stdout, p)
		}
		fmt.Fprintf(e.stdout, "%d %s in %d %s on %s: %d %s\n", words, plural(words, "word"), len(sgs), plural(len(sgs), "subgraph"), gen, len(problems), plural(len(problems), "problem"))
		if oob != nil {
			printPreflight(e.stdout, oob)
		}
	}
	if bad {
		n := len(problems)
		if oob != nil {
			for _, w := range oob.Words {
				if w.Invalid > 0 {
					n++
				}
			}
		}
		return failed{fmt.Sprintf("%s: %d %s", path, n, plural(n, "problem"))}
	}
	return nil
}

// runNEFFLower is `ndma neff lower FILE [--stats] [--subgraph sg00]
// [--engine pool] [--queue Q] [--block N] [--offset OFF] [--all]`: every
// engine stream resolved as `neff run` resolves it (variables placed once
// for the device, 0xd4 words relocated, 0xc1 triggers fired) and lowered
// like `ndma lower`; the listing shows the DGE data-movement words (--all:
// every word; --offset: the word there, whatever it is), a stream that
// lowers none counted, not listed.
func runNEFFLower(e *env, args []string) (err error) {
	cl := newCmdLine(e, "neff lower", "FILE", "", "generation (default: the kelf's target)")
	stats := cl.fs.Bool("stats", false, "per engine: words, descriptors, bytes and runs instead of the listing")
	sub, eng := streamFlags(cl)
	queue := cl.fs.String("queue", "", "only the words on this dma_queue (neff info lists them)")
	block := cl.fs.String("block", "", "only the 0xc1 trigger firing this dma[] block id (of --queue)")
	offset := cl.fs.String("offset", "", "only the word at this byte offset of its stream (0x40)")
	all := cl.fs.Bool("all", false, "list every word, also those the DGE does not move")
	asJSON := cl.fs.Bool("json", false, "print each stream's lowered words (with --stats: only its counts) as JSON (docs/json.md)")
	path, gen, f, sgs, err := openNEFF(e, cl, args)
	if err != nil {
		return err
	}
	keep := func(sg *neff.Subgraph, en *neff.Engine) bool {
		return (*sub == "" || sg.Name == *sub) && (*eng == "" || strings.EqualFold(en.Key, *eng))
	}
	if _, err := checkPick(sgs, *sub, *eng); err != nil {
		return err
	}
	if countStreams(sgs, keep) == 0 {
		return fmt.Errorf("%s: no stream matches --subgraph %q --engine %q", path, *sub, *eng)
	}
	pick, err := newLowerPick(sgs, keep, *queue, *block, *offset)
	if err != nil {
		return err
	}
	place, err := device.Place(sgs)
	if err != nil {
		return err
	}
	if *asJSON {
		return lowerJSON(e, gen, sgs, place, keep, &pick, path, *stats, *all)
	}
	if !*stats {
		e.stream()
		// word by word through one buffer: the listing of a large NEFF is never held whole, nor written a line a call
		bw := bufio.NewWriterSize(e.stdout, 1<<16)
		defer bw.Flush() // what was listed before a failure is written before its message
		e.stdout = bw
	}
	var buf []byte
	if *stats { // the one kernel time, after the streams
		defer func() {
			if err == nil {
				ns, kerr := device.KernelTime(gen, f, sgs, nil)
				printKernelTime(e.stdout, ns, kerr)
			}
		}()
	}
	// stream by stream: each is resolved, lowered and dropped before the next (a stream's steps are 2 KiB a word)
	empty, picked := 0, 0
	seen := map[int]bool{}
	err = eachStream(gen, sgs, place, keep, func(st *neffStream) error {
		st.steps = pick.filter(st.steps, seen)
		if pick.set && len(st.steps) == 0 {
			return nil // not what was asked for: neither listed nor counted
		}
		picked++
		if !*stats {
			listed := false
			var werr error
			_, err := lowerSteps(gen, st.steps, st.derr, dge.Options{}, sdma.Options{}, func(w loweredWord) {
				if (w.Skipped == "" || *all || pick.offset >= 0) && werr == nil {
					if !listed { // the header with the stream's first word: a stream that lowers none is not listed (issue 34)
						fmt.Fprintf(e.stdout, "# %s %s (%s/%s)\n", st.sg.Name, st.en.Key, st.sg.Dir, st.en.Instr)
						listed = true
					}
					werr = printLowered(e.stdout, &buf, &w)
				}
			})
			if err != nil {
				return fmt.Errorf("%s %s: %w", st.sg.Name, st.en.Key, err)
			}
			if !listed {
				empty++
			}
			return werr
		}
		t, err := tallyStream(gen, st)
		if err != nil {
			return err
		}
		if t.c.Lowered == 0 { // a stream that moves nothing: counted, not listed (issue 34)
			empty++
			return nil
		}
		fmt.Fprintf(e.stdout, "# %s %s (%s/%s)\n", st.sg.Name, st.en.Key, st.sg.Dir, st.en.Instr)
		t.grouped = true
		printStats(e, t)
		fmt.Fprintf(e.stdout, "descriptor cost %.3f µs (the words one after another; not the kernel time, which the summary line gives)\n", float64(t.c.EstimatedNS)/1000)
		printQueueStats(e, t)
		return nil
	})
	if err == nil && pick.set && picked == 0 {
		return pick.missed(path, seen)
	}
	if err == nil && empty > 0 {
		fmt.Fprintf(e.stdout, "# %d streams lower no DMA word: not listed\n", empty)
	}
	return err
}

// tallyStream lowers one stream for --stats, counting each word as it is
// lowered: none is kept.
func tallyStream(gen isa.Gen, st *neffStream) (*lowerTally, error) {
	t := &lowerTally{}
	if _, err := lowerSteps(gen, st.steps, st.derr, dge.Options{}, sdma.Options{}, func(w loweredWord) { t.add(&w) }); err != nil {
		return nil, fmt.Errorf("%s %s: %w", st.sg.Name, st.en.Key, err)
	}
	return t, nil
}

// neffStream is one engine stream of a NEFF, resolved as `neff run`
// resolves it.
type neffStream struct {
	sg    *neff.Subgraph
	en    *neff.Engine
	steps []sched.Step
	derr  error
}

// resolveNEFF resolves the engine streams keep selects (nil: all), with the
// variables placed once for the device.
func resolveNEFF(gen isa.Gen, sgs []neff.Subgraph, keep func(*neff.Subgraph, *neff.Engine) bool) ([]neffStream, error) {
	place, err := device.Place(sgs)
	if err != nil {
		return nil, err
	}
	var out []neffStream
	err = eachStream(gen, sgs, place, keep, func(st *neffStream) error {
		out = append(out, *st)
		return nil
	})
	return out, err
}

// eachStream resolves the engine streams keep selects (nil: all) one at a
// time, in subgraph then engine order, each handed to f (which may not keep
// it: the next stream is resolved once f returns), until f fails.
func eachStream(gen isa.Gen, sgs []neff.Subgraph, place device.Placement, keep func(*neff.Subgraph, *neff.Engine) bool, f func(*neffStream) error) error {
	return device.EachNEFFStream(gen, sgs, place, keep, func(s *device.Stream) error {
		sg := &sgs[s.Core]
		for ei := range sg.Engines {
			if sg.Engines[ei].Key == s.Key {
				return f(&neffStream{sg, &sg.Engines[ei], s.Steps, s.Err})
			}
		}
		return nil
	})
}

// countStreams is how many engine streams keep selects.
func countStreams(sgs []neff.Subgraph, keep func(*neff.Subgraph, *neff.Engine) bool) int {
	n := 0
	for si := range sgs {
		for ei := range sgs[si].Engines {
			if keep == nil || keep(&sgs[si], &sgs[si].Engines[ei]) {
				n++
			}
		}
	}
	return n
}

// streamLowered is one engine stream of a NEFF, lowered.
type streamLowered struct {
	sg    *neff.Subgraph
	en    *neff.Engine
	words []loweredWord
}

// lowerNEFF resolves and lowers every engine stream keep selects.
func lowerNEFF(gen isa.Gen, sgs []neff.Subgraph, keep func(*neff.Subgraph, *neff.Engine) bool) ([]streamLowered, error) {
	streams, err := resolveNEFF(gen, sgs, keep)
	if err != nil {
		return nil, err
	}
	var out []streamLowered
	for _, st := range streams {
		words, err := lowerSteps(gen, st.steps, st.derr, dge.Options{}, sdma.Options{}, nil)
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", st.sg.Name, st.en.Key, err)
		}
		out = append(out, streamLowered{st.sg, st.en, words})
	}
	return out, nil
}

// openNEFF parses a neff subcommand's command line and opens its FILE: the
// generation (--gen, or the kelf's target) and the subgraphs.
func openNEFF(e *env, cl *cmdLine, args []string) (string, isa.Gen, *neff.File, []neff.Subgraph, error) {
	strict := cl.fs.Bool("strict", false, "a hash mismatch is an error (neff run: so is a word ndma does not compute, whose effect its outputs would miss)")
	maxInflated := cl.fs.Int64("max-inflated", neff.DefaultMaxInflated, "refuse a NEFF whose tar inflates past this many bytes (zip-bomb cap)")
	pos, gen, err := cl.parse(args, 1, "want one FILE.neff")
	if err != nil {
		return "", gen, nil, nil, err
	}
	b, err := readInput(e, pos[0])
	if err != nil {
		return "", gen, nil, nil, err
	}
	if *maxInflated <= 0 {
		return "", gen, nil, nil, usagef("--max-inflated %d: want a positive byte count", *maxInflated)
	}
	f, err := neff.Parse(b, neff.Options{Strict: *strict, MaxInflated: *maxInflated})
	if err != nil {
		return "", gen, nil, nil, fmt.Errorf("%s: %w", pos[0], err)
	}
	for _, w := range f.Warnings {
		fmt.Fprintf(e.stderr, "ndma neff: warning: %s: %s\n", pos[0], w)
	}
	sgs, err := f.Subgraphs() // first: a broken kelf is a JSON error, not a missing target
	if err != nil {
		return "", gen, nil, nil, fmt.Errorf("%s: %w", pos[0], err)
	}
	if gen == isa.GenAny {
		if _, gen = f.Target(); gen == isa.GenAny {
			return "", gen, nil, nil, usagef("the kelf names no known target: give --gen")
		}
	}
	return pos[0], gen, f, sgs, nil
}

// opcodeCounts is ": MNEMONIC n, …" for a stream's words (mnemonics from
// the catalog, OPCODE_0x.. where it knows none), and the word count.
func opcodeCounts(gen isa.Gen, code []byte) (string, int) {
	counts := map[string]int{}
	d := isa.NewDecoder(gen, code)
	n := 0
	for d.Next() {
		counts[d.Inst().Def().Mnemonic()]++
		n++
	}
	var parts []string
	for k, v := range counts {
		parts = append(parts, fmt.Sprintf("%s %d", k, v))
	}
	sort.Strings(parts)
	out := ""
	if len(parts) > 0 {
		out = ": " + strings.Join(parts, ", ")
	}
	if d.Err() != nil {
		out += fmt.Sprintf(" (%v)", d.Err())
	}
	return out, n
}

// printBlock lists one dma[] block and its descriptors.
func printBlock(w io.Writer, b *neff.Block) {
	fmt.Fprintf(w, "    %s: queue %s, id %d", b.Where, b.Queue, b.ID)
	if b.Comment != "" {
		fmt.Fprintf(w, ", instruction %s", b.Comment)
	}
	fmt.Fprintf(w, ", %d descriptors\n", len(b.Desc))
	for k, d := range b.Desc {
		from := withOff(d.From, d.FromOff)
		if len(d.FromArr) > 0 {
			var parts []string
			for _, p := range d.FromArr {
				parts = append(parts, fmt.Sprintf("%s%v", withOff(p.From, p.FromOff), p.FromSizes))
			}
			from = "[" + strings.Join(parts, " ") + "]"
		}
		op := d.Op
		if op == "" {
			op = "copy"
		}
		fmt.Fprintf(w, "      desc[%d] %s: %s sizes %v steps %v → %s sizes %v steps %v", k, op, from, d.FromSizes, d.FromSteps, withOff(d.To, d.ToOff), d.ToSizes, d.ToSteps)
		if d.FromDtype != "" || d.ToDtype != "" {
			fmt.Fprintf(w, " (%s → %s)", d.FromDtype, d.ToDtype)
		}
		fmt.Fprintln(w)
	}
}

// withOff is a walk's variable and its byte offset (from_off / to_off,
// neff.md §4.7): "a_vec+4000", the variable alone at offset 0.
func withOff(v string, off int64) string {
	if off == 0 {
		return v
	}
	return fmt.Sprintf("%s+%d", v, off)
}

// eventsText is a word's EVENTS, for words ndma lists but does not decode
// further (header and events are common to every word: field-tables §2.1).
func eventsText(in *isa.Inst) string {
	ev, ok := in.Events()
	if !ok {
		return ""
	}
	wm, um, v := ev.WaitMode(), ev.UpdateMode(), ev.SemaphoreValue()
	out := ""
	if wm != isa.WaitModeNone {
		out += fmt.Sprintf(" wait %s $S[%d] value %d", wm, ev.WaitIdx(), v)
	}
	if um != isa.UpdateModeNone { // INC/DEC move by one: the value is the wait's, not theirs
		out += fmt.Sprintf(" update %s $S[%d]", um, ev.UpdateIdx())
		if strings.Contains(um.String(), "_IMM_") {
			out += fmt.Sprintf(" value %d", v)
		}
	}
	return out
}

// runNEFFRun is `ndma neff run FILE [--in NAME=FILE.npy] [--out NAME=FILE.npy]
// [--dump [SG:]ADDR:DTYPE:SHAPE=FILE.npy] [--dump [SG:]VAR=FILE.npy]
// [--exec sim|ref|both] [--engine-time OPCODE=DURATION] [--json [--packets]]`:
// the NEFF loaded on a device (device.Load), run, its schedule printed
// (timed by the packet-level model, neff_timing.go), outputs written all
// or none.
func runNEFFRun(e *env, args []string) error {
	cl := newCmdLine(e, "neff run", "FILE", "", "generation (default: the kelf's target)")
	fl := addNEFFRunFlags(cl)
	nt := addNEFFTimingFlags(cl)
	path, gen, f, sgs, err := openNEFF(e, cl, args)
	if err != nil {
		return err
	}
	if e, err = nt.begin(e); err != nil {
		return err
	}
	exec, err := device.ParseExec(*fl.exec)
	if err != nil {
		return usagef("--exec %v", err)
	}
	if *fl.maxBytes == 0 || *fl.maxBytes < -1 {
		return usagef("--max-bytes %d: want a positive byte count, or -1 for no budget", *fl.maxBytes)
	}
	run, err := fl.subgraphs(sgs)
	if err != nil {
		return err
	}
	// check every name and output path before anything runs: no half-written outputs
	plan, err := planNEFFRun(gen, path, sgs, run, fl)
	if err != nil {
		return err
	}
	defer plan.out.abort()
	defer plan.tl.abort()
	in, closeAll, err := plan.inputs()
	defer closeAll()
	if err != nil {
		return err
	}
	im, err := device.Load(gen, f, sgs, in)
	var ie *device.InputError
	if errors.As(err, &ie) {
		return fmt.Errorf("--in %s=%s: %w", ie.Name, plan.given[ie.Name], ie.Err)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	res, runErr := plan.run(e, im, exec, nt, fl, run)
	if runErr != nil {
		plan.commitTimeline()
		return fmt.Errorf("%s: %w", path, runErr)
	}
	if u := res.Uncomputed(); len(u) > 0 && cl.fs.Lookup("strict").Value.String() == "true" {
		plan.commitTimeline()
		return fmt.Errorf("%s: --strict: words ndma does not compute ran (%s): the outputs may not be the kernel's; none written", path, strings.Join(u, ", "))
	}
	if err := plan.writeOutputs(e, im); err != nil {
		return err
	}
	printNEFFOutputs(e, im, res, *fl.dmaOnly)
	printNEFFRunSummary(e, res, len(res.Subgraphs))
	return nil
}

// neffRunFlags are neff run's own flags.
type neffRunFlags struct {
	ins, outs, dumps multi
	exec, timeline   *string
	sub, eng         *string
	trace, dmaOnly   *bool
	maxMem, maxBytes *int64
}

func addNEFFRunFlags(cl *cmdLine) *neffRunFlags {
	fl := &neffRunFlags{}
	cl.fs.Var(&fl.ins, "in", "NAME=FILE.npy: an input variable's data (default: deterministic random data); repeatable")
	cl.fs.Var(&fl.outs, "out", "NAME=FILE.npy: write a variable after the run, in its dtype and shape when neff.json names them; repeatable")
	cl.fs.Var(&fl.dumps, "dump", "[SG:]ADDR:DTYPE:SHAPE=FILE.npy (memory of subgraph SG's core, default sg00, as ndma run --dump) or [SG:]VAR=FILE.npy (a variable); repeatable")
	fl.exec = cl.fs.String("exec", "sim", "sim (the engines, DMA time), ref (the reference) or both (the two, held to one answer)")
	fl.trace = cl.fs.Bool("trace", false, "print every word executed, in order (the schedule lists only words that moved bytes)")
	fl.maxBytes = cl.fs.Int64("max-bytes", device.DefaultMaxRunBytes, "the bytes the run may write in all: a NEFF whose blocks plan more is refused before a byte moves (neff check says so too), indirect words are counted as they run; -1: no budget")
	fl.maxMem = cl.fs.Int64("max-memory", device.DefaultMaxMemory, "stop a run that holds more HBM than this many bytes (its pages: memory follows the bytes touched); -1: no cap")
	fl.dmaOnly = cl.fs.Bool("dma-only", false, "run the compute words for their EVENTS only: the DMA schedule and bytes as in a whole run, faster, outputs an engine computes flagged")
	fl.timeline = cl.fs.String("timeline", "", "FILE.json: the run as Chrome trace events (one process per subgraph: each is a core); written also when the run fails")
	fl.sub = cl.fs.String("subgraph", "", "run only this subgraph (sg00, …)")
	fl.eng = cl.fs.String("engine", "", "list only this engine's transfers (pe, act, pool, dve, sp); the whole subgraph still runs, its engines wait on each other")
	return fl
}

// subgraphs are the subgraphs --subgraph selects (all without it), checked
// against --engine. The others are placed and loaded as in a whole run,
// not run: every variable is where a whole run and neff info put it.
func (fl *neffRunFlags) subgraphs(sgs []neff.Subgraph) ([]neff.Subgraph, error) {
	return checkPick(sgs, *fl.sub, *fl.eng)
}

// names are the subgraphs' names.
// checkPick is the subgraphs --subgraph sub keeps (all for ""), or the
// usage error of a --subgraph or --engine naming none of the NEFF's
// (every neff command alike: exit 2, the valid names listed).
func checkPick(sgs []neff.Subgraph, sub, eng string) ([]neff.Subgraph, error) {
	picked := sgs
	if sub != "" {
		if picked = slices.DeleteFunc(slices.Clone(sgs), func(sg neff.Subgraph) bool { return sg.Name != sub }); len(picked) == 0 {
			return nil, usagef("--subgraph: %w", suggest.Unknown("subgraph", sub, names(sgs)))
		}
	}
	if eng != "" && !hasEngine(picked, eng) {
		return nil, usagef("--engine: %w (in the subgraphs selected)", suggest.Unknown("engine", eng, engineKeysOf(picked)))
	}
	return picked, nil
}

func names(sgs []neff.Subgraph) []string {
	out := make([]string, len(sgs))
	for i := range sgs {
		out[i] = sgs[i].Name
	}
	return out
}

// neffRunPlan is what a neff run reads and writes, checked before it runs:
// the inputs given, the variables and dumps to write, their staged files.
type neffRunPlan struct {
	given, wanted map[string]string // variable → file
	names         []string          // the --out variables, sorted
	dumps         []neffDump
	out, tl       staged // outputs all or none, the timeline with them; the timeline alone after a failed run
	tlReady       bool   // the timeline is in tl, to commit
	timeline      string
}

// commitTimeline puts the timeline of a failed run in place, alone (it
// shows where the run stopped); its error is the run's to report.
func (pl *neffRunPlan) commitTimeline() {
	if pl.tlReady {
		pl.tl.commit()
	}
}

// parsePairs reads NAME=FILE.npy flags into a map, each name once.
func parsePairs(flag string, list multi) (map[string]string, error) {
	into := map[string]string{}
	for _, s := range list {
		k, v, ok := strings.Cut(s, "=")
		if !ok || k == "" || v == "" {
			return nil, usagef("%s %q: want NAME=FILE.npy", flag, s)
		}
		if _, twice := into[k]; twice {
			return nil, usagef("%s %q: %s is given twice", flag, s, k)
		}
		into[k] = v
	}
	return into, nil
}

// planNEFFRun checks every variable name and output path of a neff run and
// reserves its outputs.
func planNEFFRun(gen isa.Gen, path string, sgs, run []neff.Subgraph, fl *neffRunFlags) (*neffRunPlan, error) {
	pl := &neffRunPlan{timeline: *fl.timeline}
	var err error
	if pl.given, err = parsePairs("--in", fl.ins); err != nil {
		return nil, err
	}
	if pl.wanted, err = parsePairs("--out", fl.outs); err != nil {
		return nil, err
	}
	checkVar, known, err := neffVarCheck(path, sgs)
	if err != nil {
		return nil, err
	}
	inputs := neff.InputNames(sgs)
	for _, k := range slices.Sorted(maps.Keys(pl.given)) { // --in names an input: the list says which
		if !slices.Contains(inputs, k) {
			return nil, usagef("--in %s: %w (in %s)", k, suggest.Unknown("input", k, inputs), path)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(pl.wanted)) {
		if err := checkVar(k); err != nil {
			return nil, err
		}
	}
	pl.dumps = make([]neffDump, len(fl.dumps))
	for i, d := range fl.dumps {
		if pl.dumps[i], err = parseNEFFDump(gen, sgs, run[0].Name, d, known, checkVar); err != nil {
			return nil, err
		}
	}
	for name := range pl.wanted {
		pl.names = append(pl.names, name)
	}
	sort.Strings(pl.names)
	if err := pl.reserve(); err != nil {
		pl.out.abort()
		pl.tl.abort()
		return nil, err
	}
	return pl, nil
}

// neffVarCheck is the check of a variable name given to neff run: known to
// some subgraph and holding bytes of its own (placed, sized).
func neffVarCheck(path string, sgs []neff.Subgraph) (func(string) error, map[string]bool, error) {
	holds, known := map[string]bool{}, map[string]bool{}
	place, err := device.Place(sgs)
	if err != nil {
		return nil, nil, err
	}
	for si, sg := range sgs {
		for _, v := range sg.Variables() {
			known[v.Name] = true
			if _, ok := place[si][v.ID]; ok && v.Size > 0 && v.Type != "state-buffer" {
				holds[v.Name] = true
			}
		}
	}
	return func(k string) error {
		switch {
		case !known[k]:
			return usagef("%w (in %s)", suggest.Unknown("variable", k, slices.Sorted(maps.Keys(known))), path)
		case !holds[k]:
			return usagef("variable %q holds no bytes of its own (a state-buffer, dge-table or unsized variable)", k)
		}
		return nil
	}, known, nil
}

// reserve stages every output file, each a different file.
func (pl *neffRunPlan) reserve() error {
	files := map[string]bool{}
	for _, name := range pl.names {
		files[pl.wanted[name]] = true
	}
	for _, p := range pl.dumps {
		if files[p.file] || len(files) < len(pl.names) {
			return usagef("--dump %s: the file is another output's too", p.file)
		}
		files[p.file] = true
	}
	if len(files) < len(pl.names) {
		return usagef("--out: two variables to one file")
	}
	for _, name := range pl.names {
		if _, err := pl.out.reserve(pl.wanted[name]); err != nil {
			return fmt.Errorf("--out %s=%s: %w", name, pl.wanted[name], err)
		}
	}
	for _, p := range pl.dumps {
		if _, err := pl.out.reserve(p.file); err != nil {
			return fmt.Errorf("--dump %s: %w", p.file, err)
		}
	}
	if pl.timeline != "" {
		if _, err := pl.tl.reserve(pl.timeline); err != nil {
			return fmt.Errorf("--timeline: %w", err)
		}
	}
	return nil
}

// inputs opens each --in file, streamed: the header checked now, the data
// read straight into the device; closeAll closes them.
func (pl *neffRunPlan) inputs() (map[string]device.Input, func(), error) {
	in := map[string]device.Input{}
	var open []*array.File
	closeAll := func() {
		for _, r := range open {
			r.Close()
		}
	}
	for name, file := range pl.given {
		npy, err := array.Open(file)
		if err != nil {
			return nil, closeAll, fmt.Errorf("--in %s=%s: %w", name, file, unwrapPathError(err))
		}
		open = append(open, npy)
		in[name] = device.Input{Descr: npy.Descr, Shape: npy.Shape, Size: npy.Size, ReadInto: npy.ReadInto}
	}
	return in, closeAll, nil
}

// run runs the image, writes the timeline (also of a failed run: it shows
// where it stopped) and prints the schedule, timing and JSON.
func (pl *neffRunPlan) run(e *env, im *device.Image, exec device.Exec, nt *neffTiming, fl *neffRunFlags, run []neff.Subgraph) (*device.Result, error) {
	o := device.Options{Exec: exec, DMAOnly: *fl.dmaOnly, MaxMemory: *fl.maxMem, MaxRunBytes: *fl.maxBytes}
	if *fl.sub != "" {
		o.Subgraphs = names(run)
	}
	nt.apply(&o)
	if *fl.trace {
		o.Trace = func(l string) { fmt.Fprintln(e.stdout, l) }
	}
	if pl.timeline != "" {
		o.Timeline = &device.Timeline{}
	}
	res, runErr := im.RunContext(e.ctx, o)
	if o.Timeline != nil && len(o.Timeline.Events) > 0 {
		var b bytes.Buffer
		if err := o.Timeline.Write(&b); err != nil {
			return nil, err
		}
		if err := pl.tl.write(0, b.Bytes()); err != nil {
			return nil, fmt.Errorf("--timeline: %w", err)
		}
		pl.tlReady = true // committed with the outputs, or alone after a failed run
	}
	if res != nil && *fl.eng != "" {
		onlyEngine(res, *fl.eng)
	}
	if res != nil {
		printNEFFSchedule(e, res)
		printNEFFTiming(e, nt, res)
	}
	nt.printJSON(*fl.exec, im, res, runErr)
	return res, runErr
}

// writeOutputs writes the --out variables, each in its dtype and shape when
// neff.json says them, and the --dump files: last, all or none (staged).
func (pl *neffRunPlan) writeOutputs(e *env, im *device.Image) error {
	var done []string
	k := 0
	tensors := im.File.Tensors()
	for _, name := range pl.names {
		size, ok := im.VarSize(name)
		if !ok {
			return fmt.Errorf("--out %s: variable %q holds no bytes of its own", name, name)
		}
		descr, shape, warn := outputType(tensors, name, int(size))
		if warn != "" {
			fmt.Fprintf(e.stdout, "warning: --out %s=%s: %s\n", name, pl.wanted[name], warn)
		}
		err := pl.out.writeWith(k, func(w io.Writer) error { // streamed from the device, never held whole
			if err := array.WriteHeader(w, descr, shape); err != nil {
				return err
			}
			return im.ViewVar(name, func(b []byte) error { _, err := w.Write(b); return err })
		})
		if err != nil {
			return fmt.Errorf("--out %s=%s: %w", name, pl.wanted[name], err)
		}
		k++
		done = append(done, fmt.Sprintf("wrote %s: %s %s %v", pl.wanted[name], name, descr, shape))
	}
	for _, p := range pl.dumps {
		a, err := p.read(im)
		if err != nil {
			return err
		}
		if p.v != "" {
			var warn string
			if a.Descr, a.Shape, warn = outputType(tensors, p.v, len(a.Data)); warn != "" {
				fmt.Fprintf(e.stdout, "warning: --dump %s: %s\n", p.file, warn)
			}
		}
		if err := writeNPY(&pl.out, k, a); err != nil {
			return fmt.Errorf("--dump %s: %w", p.file, err)
		}
		k++
		done = append(done, fmt.Sprintf("wrote %s: %s %s %v", p.file, p.what, a.Descr, a.Shape))
	}
	if pl.tlReady {
		pl.out.adopt(&pl.tl) // the timeline with the outputs: all or none
	}
	if err := pl.out.commit(); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	for _, l := range done {
		fmt.Fprintln(e.stdout, l)
	}
	return nil
}

// printNEFFRunSummary prints the words run, the time and what was not computed.
func printNEFFRunSummary(e *env, res *device.Result, subgraphs int) {
	var words int
	var longest int64
	for _, r := range res.Subgraphs {
		words += r.Stats.Words
		longest = max(longest, r.Stats.TimeNS)
	}
	when := fmt.Sprintf("kernel time %.3f µs (DMA and compute on one clock)", float64(longest)/1000)
	if !res.Clocked {
		when = "no DMA time (the reference has no cost model: --exec sim times the run)"
	}
	cores := "one core each, each on its own clock from 0; they share no semaphore"
	if subgraphs == 1 {
		cores = "one core"
	}
	fmt.Fprintf(e.stdout, "%d words executed in %d %s (%s), %s\n", words, subgraphs, plural(subgraphs, "subgraph"), cores, when)
	keys := slices.Sorted(maps.Keys(res.Engines))
	for _, k := range keys {
		c := res.Engines[k]
		if len(c.Computed) > 0 {
			fmt.Fprintf(e.stdout, "computed on %s: %s\n", strings.ToUpper(k), countList(c.Computed))
		}
	}
	if len(res.NotRun) > 0 {
		fmt.Fprintf(e.stdout, "not computed (ndma ran only their EVENTS: waits and semaphore updates): %s\n", countList(res.NotRun))
	}
}

// countList is "NAME n, …" sorted by name.
func countList(m map[string]int) string {
	var parts []string
	for k, v := range m {
		parts = append(parts, fmt.Sprintf("%s %d", k, v))
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}

// printNEFFSchedule prints each subgraph's DMA schedule (its times only on
// the engines: the reference has none) and the run's warnings.
func printNEFFSchedule(e *env, res *device.NEFFResult) {
	for _, r := range res.Subgraphs {
		if res.Clocked {
			fmt.Fprintf(e.stdout, "DMA schedule of %s (%d %s; kernel time %.3f µs; @issue→start–end, start omitted when it is the issue):\n", r.Name, len(r.Stats.Schedule), plural(len(r.Stats.Schedule), "transfer"), float64(r.Stats.TimeNS)/1000)
		} else {
			fmt.Fprintf(e.stdout, "DMA schedule of %s (%d %s, in issue order; the reference has no DMA time):\n", r.Name, len(r.Stats.Schedule), plural(len(r.Stats.Schedule), "transfer"))
		}
		for _, mv := range r.Stats.Schedule {
			when := fmt.Sprintf("@%.3fµs", float64(mv.IssueNS)/1000)
			switch { // when it was issued, when it started moving (a trigger's latency, a busy queue), when it ended
			case mv.StartNS > mv.IssueNS && mv.DueNS > mv.IssueNS:
				when = fmt.Sprintf("@%.3f→%.3f–%.3fµs", float64(mv.IssueNS)/1000, float64(mv.StartNS)/1000, float64(mv.DueNS)/1000)
			case mv.DueNS > mv.IssueNS:
				when = fmt.Sprintf("@%.3f–%.3fµs", float64(mv.IssueNS)/1000, float64(mv.DueNS)/1000)
			}
			if !res.Clocked {
				fmt.Fprintf(e.stdout, "  %s %#x %s: %s\n", mv.Stream, mv.Offset, mv.Word, mv.Note)
				continue
			}
			fmt.Fprintf(e.stdout, "  %-26s %s %#x %s: %s\n", when, mv.Stream, mv.Offset, mv.Word, mv.Note)
		}
		for _, w := range r.Stats.Warnings {
			fmt.Fprintf(e.stdout, "warning: %s\n", w)
		}
	}
	for _, w := range res.Warnings {
		fmt.Fprintf(e.stdout, "warning: %s\n", w)
	}
}

// printNEFFOutputs says, for each output variable, which DMA steps wrote
// it and from what — or that none did, so only an engine ndma does not
// compute would have.
func printNEFFOutputs(e *env, im *device.Image, res *device.NEFFResult, dmaOnly bool) {
	uncomputed := strings.Join(res.Uncomputed(), ", ")
	why := "words ndma does not compute ran"
	if dmaOnly {
		why = "--dma-only ran the compute words for their EVENTS only"
	}
	for _, name := range im.Outputs() {
		if uncomputed != "" {
			fmt.Fprintf(e.stdout, "warning: output %s may not hold the kernel's values: %s (%s)\n", name, why, uncomputed)
		}
		var by []string
		var bytes int64
		for _, w := range res.Writers {
			if w.Var == name {
				by = append(by, fmt.Sprintf("%s %s %#x (from %s)", w.Subgraph, strings.ToUpper(w.Engine), w.Offset, strings.Join(w.From, ", ")))
				bytes += w.Bytes
			}
		}
		if len(by) == 0 {
			fmt.Fprintf(e.stdout, "output %s: no DMA writes it; only an engine ndma does not compute would (its bytes are what loading left)\n", name)
			continue
		}
		if len(by) > 4 {
			by = append(by[:4], fmt.Sprintf("%d more", len(by)-4))
		}
		fmt.Fprintf(e.stdout, "output %s: %d bytes written by DMA: %s\n", name, bytes, strings.Join(by, ", "))
		if src := res.Sources[name]; len(src) > 0 {
			if len(src) > 6 {
				src = append(src[:6:6], fmt.Sprintf("%d more", len(src)-6))
			}
			fmt.Fprintf(e.stdout, "  its SB bytes last written by: %s\n", strings.Join(src, ", "))
		}
	}
}

// writeNPY fills reserved output k with a as .npy.
func writeNPY(s *staged, k int, a *array.Array) error {
	return s.writeWith(k, func(w io.Writer) error { return array.Write(w, a) })
}

// neffDump is one `neff run --dump`: a variable, or memory of a
// subgraph's core in `ndma run --dump`'s grammar.
type neffDump struct {
	file string
	what string // "x", "sg00 sbuf:0:0x0"
	v    string // the variable ("": memory)
	sg   string
	mem  dumpPlan
}

// parseNEFFDump reads [SG:]VAR=FILE.npy or [SG:]ADDR:DTYPE:SHAPE=FILE.npy.
func parseNEFFDump(gen isa.Gen, sgs []neff.Subgraph, first string, spec string, known map[string]bool, checkVar func(string) error) (neffDump, error) {
	left, file, ok := strings.Cut(spec, "=")
	if !ok || left == "" || file == "" {
		return neffDump{}, usagef("--dump %q: want [SG:]VAR=FILE.npy or [SG:]ADDR:DTYPE:SHAPE=FILE.npy", spec)
	}
	d := neffDump{file: file, sg: first} // the first subgraph run
	if sg, rest, ok := strings.Cut(left, ":"); ok {
		found := false
		for _, s := range sgs {
			if s.Name == sg {
				d.sg, left, found = sg, rest, true
			}
		}
		if !found && isSubgraphName(sg) { // sgNN:VAR or sgNN:ADDR:… naming no subgraph
			return d, usagef("--dump %q: the NEFF has no subgraph %s", spec, sg)
		}
	}
	if !strings.Contains(left, ":") {
		if err := checkVar(left); err != nil {
			return d, err
		}
		d.v, d.what = left, left
		return d, nil
	}
	p, err := parseDump(gen, left+"="+file)
	if err != nil {
		return d, err
	}
	d.mem, d.what = p, d.sg+" "+left
	return d, nil
}

// isSubgraphName reports whether s is spelled as a subgraph is (sg and
// digits: sg00), not an address region or a label.
func isSubgraphName(s string) bool {
	if len(s) < 3 || !strings.HasPrefix(s, "sg") {
		return false
	}
	for _, c := range s[2:] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// read is the dump's array after the run.
func (d *neffDump) read(im *device.Image) (*array.Array, error) {
	if d.v != "" {
		data, err := im.Var(d.v)
		if err != nil {
			return nil, err
		}
		descr, shape := im.Typed(d.v, data)
		return &array.Array{Descr: descr, Shape: shape, Data: data}, nil
	}
	c := im.Core(d.sg)
	if c < 0 {
		return nil, fmt.Errorf("--dump %s: subgraph %s did not run", d.file, d.sg)
	}
	return d.mem.read(im.Device.Core(c))
}

// hasEngine: some subgraph has an engine of this def.json key.
// engineKeysOf are the engine keys of the subgraphs (pe, act, …), once each.
func engineKeysOf(sgs []neff.Subgraph) []string {
	var out []string
	for i := range sgs {
		for _, en := range sgs[i].Engines {
			if !slices.Contains(out, en.Key) {
				out = append(out, en.Key)
			}
		}
	}
	return out
}

func hasEngine(sgs []neff.Subgraph, key string) bool {
	for i := range sgs {
		for _, en := range sgs[i].Engines {
			if strings.EqualFold(en.Key, key) {
				return true
			}
		}
	}
	return false
}

// onlyEngine keeps in each subgraph's schedule the transfers its engine
// issued (the stream is named "sg00 POOL"): --engine filters the listing,
// not the run.
func onlyEngine(res *device.NEFFResult, key string) {
	for i := range res.Subgraphs {
		r := &res.Subgraphs[i]
		keep := r.Stats.Schedule[:0:0]
		for _, mv := range r.Stats.Schedule {
			if strings.EqualFold(strings.TrimPrefix(mv.Stream, r.Name+" "), key) {
				keep = append(keep, mv)
			}
		}
		r.Stats.Schedule = keep
	}
}
