package neff

import (
	"fmt"
	"strings"

	"ndma/check"
	"ndma/isa"
)

// Problem is one finding of Check, located: subgraph, engine (or the
// def.json / block it concerns), word offset.
type Problem struct {
	Subgraph string
	Engine   string // "" for def.json findings
	Offset   int    // byte offset of the word in its stream; -1 when not a word
	Msg      string
}

func (p Problem) String() string {
	switch {
	case p.Engine == "":
		return fmt.Sprintf("%s def.json: %s", p.Subgraph, p.Msg)
	case p.Offset < 0:
		return fmt.Sprintf("%s %s: %s", p.Subgraph, p.Engine, p.Msg)
	}
	return fmt.Sprintf("%s %s offset %#x: %s", p.Subgraph, p.Engine, p.Offset, p.Msg)
}

// Check validates every word of every stream for gen and applies the
// cross-checks of neff.md §9.6: dense var ids and an output; each 0xd4
// semaphore inside the semaphore_set of a queue its engine owns, each var
// arm naming a known variable with its whole walk inside it, each table arm
// inside the dge-table list; each 0xc1 resolving to its queue (owned by the
// engine) and block; every dma[] block's descriptors over known variables,
// inside them, with equal element counts on both sides. It returns the
// problems and the number of words checked.
func (f *File) Check(gen isa.Gen) ([]Problem, int, error) {
	sgs, err := f.Subgraphs()
	if err != nil {
		return nil, 0, err
	}
	var out []Problem
	words := 0
	for i := range sgs {
		sg := &sgs[i]
		ps, n, err := sg.check(gen)
		if err != nil {
			return nil, 0, err
		}
		out, words = append(out, ps...), words+n
	}
	return out, words, nil
}

func (sg *Subgraph) check(gen isa.Gen) ([]Problem, int, error) {
	var out []Problem
	report := func(eng string, off int, format string, a ...any) {
		out = append(out, Problem{sg.Name, eng, off, fmt.Sprintf(format, a...)})
	}
	vars := sg.Variables()
	place, err := sg.Place()
	if err != nil {
		return nil, 0, err
	}
	byID, outputs := map[int]Variable{}, 0
	var beyond []string
	for _, v := range vars {
		if _, dup := byID[v.ID]; dup {
			report("", -1, "var id %d repeats: %q and %q", v.ID, byID[v.ID].Name, v.Name)
		}
		if v.ID < 0 || v.ID >= len(vars) {
			beyond = append(beyond, fmt.Sprintf("%q has %d", v.Name, v.ID))
		}
		byID[v.ID] = v
		if v.Type == "output" {
			outputs++
		}
	}
	if len(beyond) > 0 {
		var missing []int
		for i := range vars {
			if _, ok := byID[i]; !ok {
				missing = append(missing, i)
			}
		}
		report("", -1, "var ids are not dense 0..%d: %v missing; %s", len(vars)-1, missing, strings.Join(beyond, ", "))
	}
	if outputs == 0 {
		report("", -1, "no output variable")
	}
	for i, id := range sg.Table() {
		if v, ok := byID[int(id)]; !ok || v.Type == "dge-table" {
			report("", -1, "dge-table list[%d] = %d names no variable that holds bytes", i, id)
		}
	}
	for _, v := range vars {
		switch v.Type {
		case "input", "output", "state-buffer", "virtual", "file", "dge-table", "tmp-buf",
			"pointer", "list", "remote", "shared", "sharded", "local": // the kinds of neff.md §4.4 (observed and REF)
		default: // a type the runtime would not know how to place
			report("", -1, "var %d %q has type %q: not a variable kind of neff.md §4.4 (input, output, state-buffer, virtual, file, dge-table, tmp-buf, …)", v.ID, v.Name, v.Type)
		}
		if v.Size < 0 {
			report("", -1, "var %d %q has size %d", v.ID, v.Name, v.Size)
		}
		if v.BackingOff < 0 {
			report("", -1, "var %d %q has backing_variable_off %d", v.ID, v.Name, v.BackingOff)
		}
	}
	words := 0
	for e := range sg.Engines {
		en := &sg.Engines[e]
		ps, err := check.Stream(gen, en.Code)
		if err != nil {
			report(en.Key, -1, "%v", err)
			continue
		}
		for _, p := range ps {
			if p.Severity == check.Error { // the offset is the report's own: keep the rule
				_, rule, _ := strings.Cut(p.String(), "): ")
				report(en.Key, p.Offset, "%s: %s", p.Mnemonic, rule)
			}
		}
		d := isa.NewDecoder(gen, en.Code)
		for d.Next() {
			words++
			in := d.Inst()
			switch in.Opcode() {
			case isa.OpPseudoDMATrigger: // its block's descriptors are checked with every block, below
				if _, err := sg.Resolve(en, in); err != nil {
					report(en.Key, d.Offset(), "PSEUDO_DMA_TRIGGER: %v", err)
				}
			case isa.OpPseudoDMADirect2D:
				hard, soft := sg.CheckPseudo(gen, en, in)
				for _, msg := range append(hard, soft...) {
					report(en.Key, d.Offset(), "%s", msg)
				}
			}
		}
	}
	blocks := func(eng string, bs []Block) { // every descriptor of every block once, fired or not, as Fire resolves it
		for i := range bs {
			_, _, errs := sg.blockResolve(gen, &bs[i], place, true)
			for _, err := range errs {
				report(eng, -1, "%v", err)
			}
		}
	}
	for e := range sg.Engines {
		blocks(sg.Engines[e].Key, sg.Engines[e].Blocks)
	}
	blocks("def.json", sg.Blocks)
	return out, words, nil
}

// CheckPseudo applies neff.md §9.6 to one 0xd4 word of engine en: hard
// problems — an address arm naming no variable (directly or through the
// dge-table list) or a walk that leaves its variable (SBUF's map for the
// state-buffer) — which make the word's meaning wrong, and soft ones — a
// completion semaphore no queue of en owns — which do not. Any other word
// has neither.
func (sg *Subgraph) CheckPseudo(gen isa.Gen, en *Engine, in *isa.Inst) (hard, soft []string) {
	p, ok := in.PseudoDirect2D()
	if !ok {
		return nil, nil
	}
	if sem := p.Semaphore(); sg.QueueOf(en, int(sem)) == "" {
		soft = append(soft, fmt.Sprintf("PSEUDO_DMA_DIRECT2D: semaphore %d is in no semaphore_set of a queue %s owns", sem, en.Key))
	}
	var legs [2]isa.Leg2D
	legs[0], legs[1], _ = in.Legs2D()
	for k, side := range [2]string{"src", "dst"} {
		a := [2]isa.Addr8{p.SrcStartAddr(), p.DstStartAddr()}[k]
		var id int
		var base uint64
		var tbl, vid uint64 // the arm, named only in a finding: every 0xd4 of a NEFF is checked
		isTbl := false
		if v, off, ok := a.Var(); ok {
			id, base, vid = int(v), uint64(off), uint64(v)
		} else if idx, off, ok := a.Table(); ok {
			entry, n := sg.tableEntry(int(idx))
			if int(idx) >= n {
				hard = append(hard, fmt.Sprintf("PSEUDO_DMA_DIRECT2D: %s_start_addr table index %d is past the dge-table list (%d entries)", side, idx, n))
				continue
			}
			id, base, tbl, vid, isTbl = int(entry), uint64(off), uint64(idx), uint64(entry), true
		} else {
			continue
		}
		arm := func() string {
			if isTbl {
				return fmt.Sprintf("tbl(%d) = var %d", tbl, vid)
			}
			return fmt.Sprintf("var %d", vid)
		}
		path := [2]string{"src_start_addr", "dst_start_addr"}[k] // constants: a joined string would allocate a word
		v, known := sg.VarID(id)
		switch {
		case !known:
			hard = append(hard, fmt.Sprintf("PSEUDO_DMA_DIRECT2D: %s names %s: not in def.json", path, arm()))
		case v.Type == "dge-table":
			hard = append(hard, fmt.Sprintf("PSEUDO_DMA_DIRECT2D: %s names %s %q, a dge-table (it holds no bytes)", path, arm(), v.Name))
		case v.Type == "state-buffer":
			if msg := sbufWalk(gen, legs[k], base); msg != "" {
				hard = append(hard, fmt.Sprintf("PSEUDO_DMA_DIRECT2D: %s %s %q + %#x: %s", path, arm(), v.Name, base, msg))
			}
		default:
			lo, hi := legs[k].Extent()
			if int64(base)+lo < 0 || int64(base)+hi > v.Size {
				hard = append(hard, fmt.Sprintf("PSEUDO_DMA_DIRECT2D: %s %s %q + %#x: the walk touches bytes %d..%d, the variable has %d", path, arm(), v.Name, base, int64(base)+lo, int64(base)+hi, v.Size))
			}
		}
	}
	return hard, soft
}

// sbufWalk checks a leg's element starts (all of them up to 65536, else the
// corners) against the SBUF map: each element inside one partition's active
// bytes (field-tables §11.2). "" when the walk fits.
func sbufWalk(gen isa.Gen, w isa.Leg2D, base uint64) string {
	m := isa.Map(gen)
	if w.Num[0] == 0 || w.Num[1] == 0 {
		return ""
	}
	at := func(i, j int64) string {
		o := int64(base) + i*w.Step[0] + j*w.Step[1]
		if o < 0 {
			return fmt.Sprintf("element (%d, %d) starts below address 0", i, j)
		}
		// the NEFF's own SB space: partition·2^18 + offset on every target (neff.md §4.7), whatever the generation's stride
		p, off, active := o>>18, uint64(o)&(1<<18-1), min(m.SBUFActive, 1<<18)
		if p >= int64(m.Partitions) || off+uint64(w.Elem) > active {
			return fmt.Sprintf("element (%d, %d) at %#x (%d bytes) is not inside one SBUF partition's %d active bytes", i, j, o, w.Elem, active)
		}
		return ""
	}
	if w.Num[0]*w.Num[1] <= 1<<16 {
		// the test of at, inline (every 0xd4 of a NEFF walks here); at names the first element that fails
		parts, active := int64(m.Partitions), min(m.SBUFActive, 1<<18)
		for j := int64(0); j < w.Num[1]; j++ {
			row := int64(base) + j*w.Step[1]
			for i := int64(0); i < w.Num[0]; i++ {
				if o := row + i*w.Step[0]; o < 0 || o>>18 >= parts || uint64(o)&(1<<18-1)+uint64(w.Elem) > active {
					if msg := at(i, j); msg != "" {
						return msg
					}
				}
			}
		}
		return ""
	}
	for _, c := range [][2]int64{{0, 0}, {w.Num[0] - 1, 0}, {0, w.Num[1] - 1}, {w.Num[0] - 1, w.Num[1] - 1}} {
		if msg := at(c[0], c[1]); msg != "" {
			return msg
		}
	}
	return ""
}
