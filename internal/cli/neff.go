package cli

import (
	"fmt"
	"sort"
	"strings"

	"ndma/asm"
	"ndma/dge"
	"ndma/isa"
	"ndma/neff"
	"ndma/sdma"
	"ndma/sim"
)

// runNEFF is `ndma neff info FILE`: the container as neff.md describes it —
// every header field, the payload and hash, the members, and per engine
// stream (.bin) the words by opcode.
func runNEFF(e *env, args []string) error {
	if len(args) > 0 && args[0] == "disasm" {
		return runNEFFDisasm(e, args[1:])
	}
	if len(args) > 0 && args[0] == "check" {
		return runNEFFCheck(e, args[1:])
	}
	if len(args) > 0 && args[0] == "lower" {
		return runNEFFLower(e, args[1:])
	}
	if len(args) > 0 && args[0] == "run" {
		return runNEFFRun(e, args[1:])
	}
	if len(args) == 0 || args[0] != "info" {
		return usagef("ndma neff info|disasm|check|lower|run [--gen G] FILE")
	}
	cl := newCmdLine(e, "neff info", "FILE", "cayman", "generation the words are named for")
	strict := cl.fs.Bool("strict", false, "a hash mismatch is an error")
	pos, gen, err := cl.parse(args[1:], 1, "want one FILE.neff")
	if err != nil {
		return err
	}
	b, err := readInput(e, pos[0])
	if err != nil {
		return err
	}
	f, err := neff.Parse(b, neff.Options{Strict: *strict})
	if err != nil {
		return fmt.Errorf("%s: %w", pos[0], err)
	}
	for _, w := range f.Warnings {
		fmt.Fprintf(e.stderr, "ndma neff: warning: %s: %s\n", pos[0], w)
	}
	h := f.Header
	w := e.stdout
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
		fmt.Fprintf(w, "target %s (%s)\n", name, g)
	}
	if sgs, err := f.Subgraphs(); err == nil {
		for _, sg := range sgs {
			fmt.Fprintf(w, "subgraph %s (%s/def.json):", sg.Name, sg.Dir)
			for _, en := range sg.Engines {
				fmt.Fprintf(w, " %s=%s", en.Key, en.Instr)
			}
			fmt.Fprintln(w)
			vars, err := sg.Variables()
			if err != nil {
				return err
			}
			place, err := sg.Place()
			if err != nil {
				return err
			}
			for _, v := range vars {
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
				fmt.Fprintf(w, "  var %d %s: %s, %d bytes%s\n", v.ID, v.Name, v.Type, v.Size, extra)
			}
			qs, err := sg.Queues()
			if err != nil {
				return err
			}
			for _, q := range qs {
				fmt.Fprintf(w, "  queue %s: owner %s, %s, %d queues, semaphores %v\n", q.Name, q.Owner, q.Type, q.NumQueues, q.Semaphores)
			}
		}
	} else {
		fmt.Fprintf(w, "subgraphs: %v\n", err)
	}
	fmt.Fprintf(w, "%d members:\n", len(f.Members))
	for _, m := range f.Members {
		line := fmt.Sprintf("  %-40s %9d", m.Name, len(m.Data))
		if strings.HasSuffix(m.Name, ".bin") && len(m.Data) > 0 && len(m.Data)%isa.WordSize == 0 && !strings.Contains(m.Name, "table") {
			counts := map[string]int{}
			d := isa.NewDecoder(gen, m.Data)
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
			line += fmt.Sprintf("  %d words: %s", n, strings.Join(parts, ", "))
			if d.Err() != nil {
				line += fmt.Sprintf(" (%v)", d.Err())
			}
		}
		fmt.Fprintln(w, line)
	}
	return nil
}

// runNEFFDisasm is `ndma neff disasm FILE [--subgraph sg00] [--engine pool]`:
// each engine stream, found through kelf → def.json → engine JSON, as
// canonical text for the kelf's target generation.
func runNEFFDisasm(e *env, args []string) error {
	cl := newCmdLine(e, "neff disasm", "FILE", "", "generation (default: the kelf's target)")
	sub := cl.fs.String("subgraph", "", "only this subgraph (sg00, …)")
	eng := cl.fs.String("engine", "", "only this engine (pe, act, pool, dve, sp)")
	path, gen, _, sgs, err := openNEFF(e, cl, args)
	if err != nil {
		return err
	}
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

// runNEFFCheck is `ndma neff check FILE`: neff.File.Check — every word
// validated for the kelf's target plus the cross-checks of neff.md §9.6 —
// each problem located (subgraph, engine, word offset).
func runNEFFCheck(e *env, args []string) error {
	cl := newCmdLine(e, "neff check", "FILE", "", "generation (default: the kelf's target)")
	path, gen, f, sgs, err := openNEFF(e, cl, args)
	if err != nil {
		return err
	}
	problems, words, err := f.Check(gen)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	for _, p := range problems {
		fmt.Fprintln(e.stdout, p)
	}
	fmt.Fprintf(e.stdout, "%d words in %d subgraphs on %s: %d problems\n", words, len(sgs), gen, len(problems))
	if len(problems) > 0 {
		return failed{fmt.Sprintf("%s: %d problems", path, len(problems))}
	}
	return nil
}

// runNEFFLower is `ndma neff lower FILE [--stats]`: every 0xd4 word
// relocated with the NEFF's own variables (placed by neff's allocator,
// table arms through the dge-table list) and lowered like `ndma lower`.
func runNEFFLower(e *env, args []string) error {
	cl := newCmdLine(e, "neff lower", "FILE", "", "generation (default: the kelf's target)")
	stats := cl.fs.Bool("stats", false, "per engine: words, descriptors, bytes and runs instead of the listing")
	_, gen, _, sgs, err := openNEFF(e, cl, args)
	if err != nil {
		return err
	}
	for _, sg := range sgs {
		place, err := sg.Place()
		if err != nil {
			return err
		}
		vt := &dge.Vars{Base: map[uint16]uint64{}, Table: sg.Table()}
		for id, a := range place {
			vt.Base[uint16(id)] = a
		}
		for _, en := range sg.Engines {
			res, err := lowerStream(gen, en.Code, vt, dge.Options{}, sdma.Options{}, hooksFor(gen, &sg, &en, place))
			if err != nil {
				return fmt.Errorf("%s %s: %w", sg.Name, en.Key, err)
			}
			fmt.Fprintf(e.stdout, "# %s %s (%s/%s)\n", sg.Name, en.Key, sg.Dir, en.Instr)
			if *stats {
				printStats(e, res)
				var ns int64
				for _, w := range res {
					if w.lowered != nil {
						ns += sim.EstimateNS(w.program.Backend, w.lowered.Queues)
					}
				}
				fmt.Fprintf(e.stdout, "estimated DMA time %.3f µs (the words one after another; cost model of docs/sim.md)\n", float64(ns)/1000)
				printQueueStats(e, res)
				continue
			}
			for _, w := range res {
				printLowered(e, w)
			}
		}
	}
	return nil
}

// openNEFF parses a neff subcommand's command line and opens its FILE: the
// generation (--gen, or the kelf's target) and the subgraphs.
func openNEFF(e *env, cl *cmdLine, args []string) (string, isa.Gen, *neff.File, []neff.Subgraph, error) {
	pos, gen, err := cl.parse(args, 1, "want one FILE.neff")
	if err != nil {
		return "", gen, nil, nil, err
	}
	b, err := readInput(e, pos[0])
	if err != nil {
		return "", gen, nil, nil, err
	}
	f, err := neff.Parse(b, neff.Options{})
	if err != nil {
		return "", gen, nil, nil, fmt.Errorf("%s: %w", pos[0], err)
	}
	if gen == isa.GenAny {
		if _, gen = f.Target(); gen == isa.GenAny {
			return "", gen, nil, nil, usagef("the kelf names no known target: give --gen")
		}
	}
	sgs, err := f.Subgraphs()
	if err != nil {
		return "", gen, nil, nil, fmt.Errorf("%s: %w", pos[0], err)
	}
	return pos[0], gen, f, sgs, nil
}

// hooksFor resolves an engine's 0xc1 words through its subgraph's blocks
// and names the queue of each DMA word.
func hooksFor(gen isa.Gen, sg *neff.Subgraph, en *neff.Engine, place map[int]uint64) *neffHooks {
	return &neffHooks{
		fire: func(in *isa.Inst) ([]isa.Inst, string, error) {
			f, err := sg.Fire(gen, en, in, place)
			if err != nil {
				return nil, "", err
			}
			return f.Words, f.Queue.Name, nil
		},
		queueOf: func(in *isa.Inst) string {
			sem, _ := in.Uint("semaphore")
			return sg.QueueOf(en, int(sem))
		},
	}
}

// printQueueStats is the --stats breakdown by NEFF dma_queue.
func printQueueStats(e *env, ws []loweredWord) {
	type qs struct {
		words, descs int
		m2s          uint64
	}
	by := map[string]*qs{}
	var names []string
	for _, w := range ws {
		if w.Queue == "" || w.lowered == nil {
			continue
		}
		q := by[w.Queue]
		if q == nil {
			q = &qs{}
			by[w.Queue] = q
			names = append(names, w.Queue)
		}
		q.words++
		for _, l := range w.lowered.Queues {
			q.descs += len(l.M2S) + len(l.S2M)
			for i := range l.M2S {
				q.m2s += uint64(l.M2S[i].Length())
			}
		}
	}
	sort.Strings(names)
	for _, n := range names {
		q := by[n]
		fmt.Fprintf(e.stdout, "queue %s: words %d, descriptors %d, bytes M2S %d\n", n, q.words, q.descs, q.m2s)
	}
}
