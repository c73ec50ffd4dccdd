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
	vars, err := sg.Variables()
	if err != nil {
		return nil, 0, err
	}
	if _, err := sg.Queues(); err != nil {
		return nil, 0, err
	}
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
	table := sg.Table()
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
			case isa.OpPseudoDMATrigger:
				if _, err := sg.Fire(gen, en, in, place); err != nil {
					report(en.Key, d.Offset(), "PSEUDO_DMA_TRIGGER: %v", err)
				}
			case isa.OpPseudoDMADirect2D:
				sg.checkPseudo(en, d.Offset(), in, byID, table, report)
			}
		}
	}
	for e := range sg.Engines {
		en := &sg.Engines[e]
		for _, b := range en.Blocks {
			sg.checkBlock(gen, en.Key, &b, place, report)
		}
	}
	for _, b := range sg.Blocks {
		sg.checkBlock(gen, "def.json", &b, place, report)
	}
	return out, words, nil
}

// checkBlock reports what keeps each descriptor of a block from lowering
// (unknown variable, a run outside its variable, unequal element counts).
func (sg *Subgraph) checkBlock(gen isa.Gen, eng string, b *Block, place map[int]uint64, report func(string, int, string, ...any)) {
	vars, _ := sg.Variables()
	byName := map[string]Variable{}
	for _, v := range vars {
		byName[v.Name] = v
	}
	for k := range b.Desc {
		if _, _, err := descWords(gen, &b.Desc[k], byName, place); err != nil {
			report(eng, -1, "%s desc[%d] (queue %s, id %d): %v", b.Where, k, b.Queue, b.ID, err)
		}
	}
}

// checkPseudo applies neff.md §9.6 to one 0xd4 word.
func (sg *Subgraph) checkPseudo(en *Engine, off int, in *isa.Inst, byID map[int]Variable, table []uint16, report func(string, int, string, ...any)) {
	sem, _ := in.Uint("semaphore")
	owned := sg.QueueOf(en, int(sem)) != ""
	if !owned {
		report(en.Key, off, "PSEUDO_DMA_DIRECT2D: semaphore %d is in no semaphore_set of a queue %s owns", sem, en.Key)
	}
	for _, side := range []string{"src", "dst"} {
		path := side + "_start_addr"
		a, err := in.Addr8(path)
		if err != nil {
			continue
		}
		if id, base, ok := a.Var(); ok {
			v, known := byID[int(id)]
			switch {
			case !known:
				report(en.Key, off, "PSEUDO_DMA_DIRECT2D: %s names var %d: not in def.json", path, id)
			case v.Size > 0:
				lo, hi := walkExtent(in, side)
				if int64(base)+lo < 0 || int64(base)+hi > v.Size {
					report(en.Key, off, "PSEUDO_DMA_DIRECT2D: %s var %d %q + %#x: the walk touches bytes %d..%d, the variable has %d", path, id, v.Name, base, int64(base)+lo, int64(base)+hi, v.Size)
				}
			}
		} else if a.Form() == "tbl" {
			if idx := int(uint16(a.Raw >> 32)); idx >= len(table) {
				report(en.Key, off, "PSEUDO_DMA_DIRECT2D: %s table index %d is past the dge-table list (%d entries)", path, idx, len(table))
			}
		}
	}
}

// walkExtent is the byte range [lo, hi) a side's 2-D walk touches relative
// to its start (field-tables §11.3: byte steps, elem_size bytes, 0 = 64 KiB).
func walkExtent(in *isa.Inst, side string) (lo, hi int64) {
	elem, _ := in.Int(side + "_elem_size")
	if elem == 0 {
		elem = 65536
	}
	hi = elem
	for d := 0; d < 2; d++ {
		n, _ := in.Int(fmt.Sprintf("%s_num_elem[%d]", side, d))
		st, _ := in.Int(fmt.Sprintf("%s_step_elem[%d]", side, d))
		if n == 0 {
			return 0, 0
		}
		if span := (n - 1) * st; span < 0 {
			lo += span
		} else {
			hi += span
		}
	}
	return lo, hi
}
