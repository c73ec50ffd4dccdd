package device

import (
	"fmt"
	"strings"

	"ndma/check"
	"ndma/isa"
	"ndma/neff"
)

// checkWords validates every word of every stream for gen and applies the
// cross-checks of neff.md §9.6: those of def.json alone
// (neff.Subgraph.CheckDef: dense var ids and an output, variable kinds,
// the dge-table list); each 0xd4 semaphore inside the semaphore_set of a
// queue its engine owns, each var arm naming a known variable with its
// whole walk inside it, each table arm inside the dge-table list; each
// 0xc1 resolving to its queue (owned by the engine) and block; every dma[]
// block's descriptors over known variables (at place, Place's addresses),
// inside them, with equal element counts on both sides. It returns the
// problems and the number of words checked.
func checkWords(gen isa.Gen, sgs []neff.Subgraph, place Placement) ([]neff.Problem, int) {
	var out []neff.Problem
	words := 0
	for si := range sgs {
		ps, n := checkSubgraph(gen, &sgs[si], place[si])
		out, words = append(out, ps...), words+n
	}
	return out, words
}

// checkSubgraph is checkWords for one subgraph, its variables at place.
func checkSubgraph(gen isa.Gen, sg *neff.Subgraph, place map[int]uint64) ([]neff.Problem, int) {
	out := sg.CheckDef()
	report := func(eng string, off int, format string, a ...any) {
		out = append(out, neff.Problem{Subgraph: sg.Name, Engine: eng, Offset: off, Msg: fmt.Sprintf(format, a...)})
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
				hard, soft := checkPseudo(gen, sg, en, in)
				for _, msg := range append(hard, soft...) {
					report(en.Key, d.Offset(), "%s", msg)
				}
			}
		}
	}
	blocks := func(eng string, bs []neff.Block) { // every descriptor of every block once, fired or not, as Fire resolves it
		for i := range bs {
			_, _, errs := blockResolve(gen, sg, &bs[i], place, true)
			for _, err := range errs {
				report(eng, -1, "%v", err)
			}
		}
	}
	for e := range sg.Engines {
		blocks(sg.Engines[e].Key, sg.Engines[e].Blocks)
	}
	blocks("def.json", sg.Blocks)
	return out, words
}
