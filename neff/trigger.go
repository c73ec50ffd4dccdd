package neff

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"ndma/isa"
)

// Trigger is what one PSEUDO_DMA_TRIGGER (0xc1) names, read from the JSON:
// the queue, the block it fires and the block's completion. Building the
// words that move the block's bytes is the runtime's (device.Fire).
type Trigger struct {
	Queue    Queue
	Instance int // the queue instance (<queue>_defId_<n>), 0 for a plain name
	Block    *Block
	// Semaphore is the block's completion semaphore and Increment what the
	// block adds to it in all: the queue's num_queues (16 in every
	// compiler-built NEFF, neff.md §4.7), 1 for a queue without one.
	Semaphore, Increment int
}

// ErrTrigger marks a PSEUDO_DMA_TRIGGER that does not resolve.
var ErrTrigger = errors.New("unresolvable PSEUDO_DMA_TRIGGER")

// Resolve finds what a 0xc1 word of engine en names (neff.md §5.2, §4.7):
// dma_queue_name → def.json dma_queue (owned by en) → the dma[] block with
// block_id, and the block's completion: its semaphore and increment
// (completion). It reads the trigger's fields and the JSON only; the
// words are device.Fire's.
func (sg *Subgraph) Resolve(en *Engine, trig *isa.Inst) (*Trigger, error) {
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
	return &Trigger{Queue: q, Instance: inst, Block: b, Semaphore: sem, Increment: inc}, nil
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
