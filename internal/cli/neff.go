package cli

import (
	"fmt"
	"sort"
	"strings"

	"ndma/asm"
	"ndma/isa"
	"ndma/neff"
)

// runNEFF is `ndma neff info FILE`: the container as neff.md describes it —
// every header field, the payload and hash, the members, and per engine
// stream (.bin) the words by opcode.
func runNEFF(e *env, args []string) error {
	if len(args) > 0 && args[0] == "disasm" {
		return runNEFFDisasm(e, args[1:])
	}
	if len(args) == 0 || args[0] != "info" {
		return usagef("ndma neff info|disasm [--gen G] [--strict] FILE (to come: check, lower, run)")
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
	pos, gen, err := cl.parse(args, 1, "want one FILE.neff")
	if err != nil {
		return err
	}
	b, err := readInput(e, pos[0])
	if err != nil {
		return err
	}
	f, err := neff.Parse(b, neff.Options{})
	if err != nil {
		return fmt.Errorf("%s: %w", pos[0], err)
	}
	if gen == isa.GenAny {
		if _, gen = f.Target(); gen == isa.GenAny {
			return usagef("the kelf names no known target: give --gen")
		}
	}
	sgs, err := f.Subgraphs()
	if err != nil {
		return fmt.Errorf("%s: %w", pos[0], err)
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
		return fmt.Errorf("%s: no stream matches --subgraph %q --engine %q", pos[0], *sub, *eng)
	}
	return nil
}
