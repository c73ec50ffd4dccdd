package device

import (
	"fmt"

	"ndma/isa"
	"ndma/neff"
)

// Resolving one PSEUDO_DMA_DIRECT2D (0xd4) word of a NEFF stream is three
// steps, in ResolveEngine's order: checkPseudo (below) holds each address
// arm's walk to its variable — a walk outside it is refused, never run —
// then dge.RelocateTo writes the placed addresses into a DMA_DIRECT2D (the
// var and table arms through RelocVars), then sbSpace (below) maps the legs
// that name the state-buffer from the NEFF's SB space onto the
// generation's SBUF. The first and last are side by side here; the
// relocation itself is dge's (dge/reloc.go).

// checkPseudo applies neff.md §9.6 to one 0xd4 word of engine en: hard
// problems — an address arm naming no variable (directly or through the
// dge-table list) or a walk that leaves its variable (SBUF's map for the
// state-buffer) — which make the word's meaning wrong, and soft ones — a
// completion semaphore no queue of en owns — which do not. Any other word
// has neither.
func checkPseudo(gen isa.Gen, sg *neff.Subgraph, en *neff.Engine, in *isa.Inst) (hard, soft []string) {
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
			entry, n := sg.TableEntry(int(idx))
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

// sbSpace maps the legs of a relocated 0xd4 that name the state-buffer
// variable from the NEFF's own SB space — partition·2^18 + offset on every
// target (neff.md §4.7) — onto gen's address map: the start address by its
// partition and offset, a step of whole 2^18 partitions by gen's stride.
// Where the strides coincide (v2–v4) nothing changes.
func sbSpace(gen isa.Gen, vars []neff.Variable, pseudo, r *isa.Inst) error {
	m := isa.Map(gen)
	if m.SBUFStride == 1<<18 {
		return nil
	}
	pv, ok := pseudo.PseudoDirect2D()
	if !ok {
		return nil
	}
	sb := func(a isa.Addr8) bool {
		id, _, isVar := a.Var()
		for _, v := range vars {
			if isVar && v.ID == int(id) && v.Type == "state-buffer" {
				return true
			}
		}
		return false
	}
	legs := [2]bool{sb(pv.SrcStartAddr()), sb(pv.DstStartAddr())}
	if !legs[0] && !legs[1] {
		return nil
	}
	v, ok := r.Direct2D()
	if !ok {
		return fmt.Errorf("%s: an SB leg on %s, whose partition stride is not the NEFF's 2^18, is remapped only for DIRECT2D words", r.Def().Mnemonic(), gen)
	}
	for k, isSB := range legs {
		if !isSB {
			continue
		}
		start, step, setStart, setStep := v.SrcStartAddr(), v.SrcStepElem, v.SetSrcStartAddr, v.SetSrcStepElem
		if k == 1 {
			start, step, setStart, setStep = v.DstStartAddr(), v.DstStepElem, v.SetDstStartAddr, v.SetDstStepElem
		}
		a, _ := start.Imm()
		na, err := m.Join(isa.SBUF, int(a>>18), a&(1<<18-1))
		if err != nil {
			return fmt.Errorf("SB address %#x (NEFF space): %w", a, err)
		}
		setStart(na)
		for d := 0; d < 2; d++ {
			st := step(d)
			switch {
			case st%(1<<18) == 0:
				if err := setStep(d, st/(1<<18)*int64(m.SBUFStride)); err != nil {
					return fmt.Errorf("SB step %d of %#x (NEFF space): %w", d, st, err)
				}
			case st >= 1<<18 || st <= -(1<<18):
				return fmt.Errorf("SB step %d of %#x crosses partitions by other than whole 2^18 partitions: no %s address", d, st, gen)
			}
		}
	}
	return nil
}
