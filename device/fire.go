package device

import (
	"fmt"
	"math"

	"ndma/internal/num"
	"ndma/isa"
	"ndma/neff"
)

// A PSEUDO_DMA_TRIGGER fired: neff resolves what the word names from the
// JSON (neff.Subgraph.Resolve); here the block's descriptors become the
// words that move its bytes (blockdesc.go, blockxpose.go, walk.go), over
// the variables as Place puts them.

// Fired is what one PSEUDO_DMA_TRIGGER (0xc1) does: what it names in the
// JSON (neff.Trigger: the queue, the block, its completion), and the real
// words that move the block's bytes (the runtime's translation, as ndma
// models it).
type Fired struct {
	neff.Trigger
	Words []isa.Inst // DMA_DIRECT2D words, and DMA_TRANSPOSE words for transpose tiles
	Bytes int64      // bytes the block writes
	// Ring is the ring its words' descriptors are laid out on: for every
	// fired block RuntimeRing, since the runtime builds its ring when the
	// NEFF loads and sizes it to the block (neff.md §4.7, DGE mode "none"),
	// so the DGE's own ring size does not bound it.
	Ring int
	// RingDescriptors is the most descriptors one word of the block can put
	// on one ring — the word's larger side in contiguous runs of at most
	// 64 KiB, plus its completion descriptor, before any fan-out over
	// channels (field-tables §11.7): a ring of this many entries holds any
	// word of the block. Descriptors is the block's whole count, both
	// sides of every word, for budgets and reports.
	RingDescriptors, Descriptors int
}

// MaxRuns bounds one descriptor side's walk (and a transpose's elements),
// MaxWords the DMA_DIRECT2D words one descriptor may become (runs that do
// not line up cannot fold), MaxBlockWords the words of one block: a size
// list cannot make ndma walk, or allocate, without end.
const (
	MaxRuns       = 1 << 20
	MaxWords      = 1 << 14
	MaxBlockWords = 1 << 16
)

// blockPieces resolves every descriptor of a block, each error located by
// member, block, queue, id and descriptor index.
func blockPieces(gen isa.Gen, sg *neff.Subgraph, b *neff.Block, place map[int]uint64) ([]piece, int64, error) {
	ps, bytes, errs := blockResolve(gen, sg, b, place, false)
	if len(errs) > 0 {
		return nil, 0, errs[0]
	}
	return ps, bytes, nil
}

// blockResolve is blockPieces going on past a failing descriptor when all
// is set (checkWords reports every one): the pieces, bytes and the errors.
func blockResolve(gen isa.Gen, sg *neff.Subgraph, b *neff.Block, place map[int]uint64, all bool) ([]piece, int64, []error) {
	var ps []piece
	var bytes int64
	var errs []error
	words := 0
	for k := range b.Desc {
		p, n, err := descPieces(gen, sg, &b.Desc[k], place)
		if err != nil {
			if errs = append(errs, fmt.Errorf("%s (queue %s, id %d) desc[%d]: %w", b.Where, b.Queue, b.ID, k, err)); !all {
				return nil, 0, errs
			}
			continue
		}
		for i := range p {
			if words += len(p[i].words); words > MaxBlockWords {
				return nil, 0, append(errs, fmt.Errorf("%s (queue %s, id %d) desc[%d]: the block needs more than %d words", b.Where, b.Queue, b.ID, k, MaxBlockWords))
			}
		}
		ps, bytes = append(ps, p...), bytes+n
	}
	return ps, bytes, errs
}

// BlockWords turns each descriptor of a block into DMA_DIRECT2D words over
// the placed variables (transpose tiles element by element); it returns
// them and the bytes they write. The words carry no completion: Fire adds
// it (and may move transpose tiles onto DMA_TRANSPOSE words).
func BlockWords(gen isa.Gen, sg *neff.Subgraph, b *neff.Block, place map[int]uint64) ([]isa.Inst, int64, error) {
	ps, bytes, err := blockPieces(gen, sg, b, place)
	if err != nil {
		return nil, 0, err
	}
	var words []isa.Inst
	for i := range ps {
		words = append(words, ps[i].words...)
	}
	return words, bytes, nil
}

// Fire is neff.Subgraph.Resolve, then the block's words (INFERRED, RATIONALE.md "NEFF"):
// a transpose tile that fits DMA_TRANSPOSE's rules (v3+) becomes that word —
// at most Increment − 1 of them, never the block's last piece — and every
// other piece DMA_DIRECT2D words. The first word carries the trigger's
// events; each DMA_TRANSPOSE adds its fixed +1 to the block's semaphore
// (the word has no sem_increment, field-tables §3.6) and the last word, a
// DMA_DIRECT2D, the rest of Increment — the total is what counts (§11.6).
func Fire(gen isa.Gen, sg *neff.Subgraph, en *neff.Engine, trig *isa.Inst, place map[int]uint64) (*Fired, error) {
	t, err := sg.Resolve(en, trig)
	if err != nil {
		return nil, err
	}
	fired := &Fired{Trigger: *t, Ring: RuntimeRing}
	ps, bytes, err := blockPieces(gen, sg, fired.Block, place)
	if err != nil {
		return nil, err
	}
	xposes := 0
	for i := range ps {
		if p := &ps[i]; p.xpose != nil && i < len(ps)-1 && xposes < fired.Increment-1 {
			x := *p.xpose
			xv, _ := x.Xpose()
			if err := xv.SetSemaphore(int64(fired.Semaphore)); err != nil {
				return nil, fmt.Errorf("%s: %w", fired.Block.Where, err)
			}
			fired.Words = append(fired.Words, x)
			xposes++
			continue
		}
		fired.Words = append(fired.Words, ps[i].words...)
	}
	fired.Bytes = bytes
	fired.Words[0].CopyEvents(trig)
	last, _ := fired.Words[len(fired.Words)-1].Direct2D()
	if err := firstErr(last.SetSemaphore(int64(fired.Semaphore)), last.SetSemIncrement(int64(fired.Increment-xposes))); err != nil {
		return nil, fmt.Errorf("%s: %w", fired.Block.Where, err)
	}
	for i := range fired.Words {
		m, s := wordDescriptors(&fired.Words[i])
		fired.RingDescriptors = max(fired.RingDescriptors, m+1)
		fired.Descriptors += s + 1
	}
	return fired, nil
}

// wordDescriptors counts a fired word's descriptors as field-tables §11.7
// cuts them — one per maximal contiguous run of at most 64 KiB on each side
// (an upper bound where runs of a row would merge only by accident): the
// larger side and both sides together.
func wordDescriptors(w *isa.Inst) (larger, both int) {
	var legs [2]isa.Leg2D
	if v, ok := w.Xpose(); ok { // elements of the dtype's size
		size, _ := num.Size(uint8(v.OutDType()))
		legs[0] = isa.Leg2D{Elem: int64(size), Num: [2]int64{int64(v.SrcNumElem(0)), int64(v.SrcNumElem(1))}, Step: [2]int64{v.SrcStepElem(0), v.SrcStepElem(1)}}
		legs[1] = isa.Leg2D{Elem: int64(size), Num: [2]int64{int64(v.DstNumElem(0)), int64(v.DstNumElem(1))}, Step: [2]int64{v.DstStepElem(0), v.DstStepElem(1)}}
	} else {
		legs[0], legs[1], _ = w.Legs2D()
	}
	var n [2]int64
	for k, l := range legs {
		n[k] = legRuns(l)
	}
	return int(min(max(n[0], n[1]), math.MaxInt32)), int(min(n[0]+n[1], math.MaxInt32))
}

// legRuns is the descriptors of a 2-D leg: contiguous rows (step[0] = the
// element) are one run each — the whole leg one when the rows touch —
// other legs one run per element; each run cut at 64 KiB.
func legRuns(l isa.Leg2D) int64 {
	n0, n1 := max(l.Num[0], 1), max(l.Num[1], 1)
	cut := func(bytes int64) int64 { return (bytes + 65535) / 65536 }
	switch {
	case l.Step[0] == l.Elem || n0 == 1:
		row := n0 * l.Elem
		if n1 == 1 || l.Step[1] == row {
			return cut(row * n1)
		}
		return n1 * cut(row)
	}
	return n0 * n1 * cut(l.Elem)
}
