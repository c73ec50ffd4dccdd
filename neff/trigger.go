package neff

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"ndma/internal/num"
	"ndma/isa"
)

// Fired is what one PSEUDO_DMA_TRIGGER (0xc1) does: the queue it names, the
// block it fires, and the real words that move the block's bytes (the
// runtime's translation, as ndma models it).
type Fired struct {
	Queue    Queue
	Instance int // the queue instance (<queue>_defId_<n>), 0 for a plain name
	Block    *Block
	// Semaphore is the block's completion semaphore and Increment what the
	// block adds to it in all: the queue's num_queues (16 in every
	// compiler-built NEFF, neff.md §4.7), 1 for a queue without one.
	Semaphore, Increment int
	Words                []isa.Inst // DMA_DIRECT2D words, and DMA_TRANSPOSE words for transpose tiles
	Bytes                int64      // bytes the block writes
	// RuntimeRing is true for every fired block: the runtime builds its
	// ring when the NEFF loads and sizes it to the block (neff.md §4.7, DGE
	// mode "none"), so the DGE's own ring size does not bound it.
	RuntimeRing bool
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

// ErrTrigger marks a PSEUDO_DMA_TRIGGER that does not resolve.
var ErrTrigger = errors.New("unresolvable PSEUDO_DMA_TRIGGER")

// Resolve finds what a 0xc1 word of engine en names (neff.md §5.2, §4.7):
// dma_queue_name → def.json dma_queue (owned by en) → the dma[] block with
// block_id, and the block's completion: its semaphore and increment
// (completion). The result has no words yet.
func (sg *Subgraph) Resolve(en *Engine, trig *isa.Inst) (*Fired, error) {
	t, ok := trig.PseudoTrigger()
	if !ok {
		return nil, fmt.Errorf("%s is not a PSEUDO_DMA_TRIGGER: %w", trig.Def().Mnemonic(), ErrTrigger)
	}
	raw := t.DMAQueueName()
	name, ok := isa.TextBytes(raw[:])
	if !ok || name == "" {
		return nil, fmt.Errorf("dma_queue_name % x is no queue name: %w", raw[:], ErrTrigger)
	}
	if n := t.UseRawCount(); n != 0 {
		return nil, fmt.Errorf("queue %s: use_raw_count %d (block_id as a raw descriptor count) is not modelled: %w", name, n, ErrTrigger)
	}
	id := t.BlockID()
	q, inst, found := findQueue(sg.queues, name)
	if !found {
		return nil, fmt.Errorf("queue %q is not in %s/def.json dma_queue: %w", name, sg.Dir, ErrTrigger)
	}
	if q.Owner != en.Key {
		return nil, fmt.Errorf("queue %s is owned by %s, triggered from %s: %w", q.Name, q.Owner, en.Key, ErrTrigger)
	}
	if inst > 0 && inst >= len(q.Semaphores) {
		return nil, fmt.Errorf("queue instance %s: %s has %d semaphores in its semaphore_set, no instance %d: %w", name, q.Name, len(q.Semaphores), inst, ErrTrigger)
	}
	b, ok := sg.Block(en, name, int(id))
	if !ok {
		return nil, fmt.Errorf("no dma[] block with queue %q and id %d in %s/%s or %s/def.json: %w", name, id, sg.Dir, en.Manifest, sg.Dir, ErrTrigger)
	}
	if len(b.Desc) == 0 {
		return nil, fmt.Errorf("%s: block has no descriptors: %w", b.Where, ErrTrigger)
	}
	sem, inc, err := completion(&q, inst, b)
	if err != nil {
		return nil, fmt.Errorf("%s (queue %s, id %d): %v: %w", b.Where, q.Name, b.ID, err, ErrTrigger)
	}
	return &Fired{Queue: q, Instance: inst, Block: b, Semaphore: sem, Increment: inc, RuntimeRing: true}, nil
}

// completion is the semaphore block b of queue q (instance inst) signals
// and what it adds in all (INFERRED, RATIONALE.md "NEFF"):
//   - the block's own `semaphore` when it has one — in every compiler-built
//     NEFF it is `semaphore_set[id % 16]` (neff.md §4.7);
//   - else semaphore_set[inst] for an instance name <queue>_defId_<inst>
//     (inst > 0), the queue's single `semaphore`, or semaphore_set[id mod
//     the set's length] — §4.7's rule;
//   - the increment is the queue's num_queues (the block spread over the
//     queue set's engines, each completing once: consumers wait ≥ 16 on
//     queues of 16, §4.7), else the set's length, else 1 (C08220's single
//     semaphore, waited on with > 0, §5.2).
func completion(q *Queue, inst int, b *Block) (sem, inc int, err error) {
	switch {
	case b.Semaphore != nil:
		sem = *b.Semaphore
	case inst > 0:
		sem = q.Semaphores[inst]
	case q.Semaphore != nil:
		sem = *q.Semaphore
	case len(q.Semaphores) > 0:
		sem = q.Semaphores[((b.ID%len(q.Semaphores))+len(q.Semaphores))%len(q.Semaphores)]
	default:
		return 0, 0, fmt.Errorf("no semaphore: neither the block nor queue %s (semaphore, semaphore_set) names one", q.Name)
	}
	if sem < 0 || sem > 255 {
		return 0, 0, fmt.Errorf("semaphore %d: out of range (0..255)", sem)
	}
	switch {
	case q.NumQueues > 0:
		inc = q.NumQueues
	case len(q.Semaphores) > 0:
		inc = len(q.Semaphores)
	default:
		inc = 1
	}
	if inc > 255 {
		return 0, 0, fmt.Errorf("queue %s: num_queues %d: a completion of more than 255 increments does not fit sem_increment", q.Name, inc)
	}
	return sem, inc, nil
}

// blockPieces resolves every descriptor of a block, each error located by
// member, block, queue, id and descriptor index.
func (sg *Subgraph) blockPieces(gen isa.Gen, b *Block, place map[int]uint64) ([]piece, int64, error) {
	ps, bytes, errs := sg.blockResolve(gen, b, place, false)
	if len(errs) > 0 {
		return nil, 0, errs[0]
	}
	return ps, bytes, nil
}

// blockResolve is blockPieces going on past a failing descriptor when all
// is set (Check reports every one): the pieces, bytes and the errors.
func (sg *Subgraph) blockResolve(gen isa.Gen, b *Block, place map[int]uint64, all bool) ([]piece, int64, []error) {
	var ps []piece
	var bytes int64
	var errs []error
	words := 0
	for k := range b.Desc {
		p, n, err := sg.descPieces(gen, &b.Desc[k], place)
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
func (sg *Subgraph) BlockWords(gen isa.Gen, b *Block, place map[int]uint64) ([]isa.Inst, int64, error) {
	ps, bytes, err := sg.blockPieces(gen, b, place)
	if err != nil {
		return nil, 0, err
	}
	var words []isa.Inst
	for i := range ps {
		words = append(words, ps[i].words...)
	}
	return words, bytes, nil
}

// Fire is Resolve, then the block's words (INFERRED, RATIONALE.md "NEFF"):
// a transpose tile that fits DMA_TRANSPOSE's rules (v3+) becomes that word —
// at most Increment − 1 of them, never the block's last piece — and every
// other piece DMA_DIRECT2D words. The first word carries the trigger's
// events; each DMA_TRANSPOSE adds its fixed +1 to the block's semaphore
// (the word has no sem_increment, field-tables §3.6) and the last word, a
// DMA_DIRECT2D, the rest of Increment — the total is what counts (§11.6).
func (sg *Subgraph) Fire(gen isa.Gen, en *Engine, trig *isa.Inst, place map[int]uint64) (*Fired, error) {
	fired, err := sg.Resolve(en, trig)
	if err != nil {
		return nil, err
	}
	ps, bytes, err := sg.blockPieces(gen, fired.Block, place)
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

// findQueue looks a trigger's name up: a dma_queue key, or an instance name
// <queue>_defId_<n> of one (neff.md §4.4).
func findQueue(qs []Queue, name string) (Queue, int, bool) {
	for _, q := range qs {
		if q.Name == name {
			return q, 0, true
		}
	}
	if i := strings.LastIndex(name, "_defId_"); i > 0 {
		if n, err := strconv.Atoi(name[i+len("_defId_"):]); err == nil && n >= 0 {
			for _, q := range qs {
				if q.Name == name[:i] {
					return q, n, true
				}
			}
		}
	}
	return Queue{}, 0, false
}
