package cli

import (
	"fmt"
	"maps"
	"slices"
	"strconv"

	"ndma/internal/sched"
	"ndma/internal/suggest"
	"ndma/neff"
)

// lowerPick is `neff lower`'s --queue, --block and --offset: the steps of
// a stream it lists (issue 34 item 4) — a NEFF's whole listing is hundreds
// of megabytes, one trigger or word a screen.
type lowerPick struct {
	queue  string // "": any
	block  int    // the dma[] block id a 0xc1 trigger fires; -1: any
	offset int    // the word's byte offset in its stream; -1: any
	set    bool   // any of the three given
}

// newLowerPick checks the flags against the streams keep selects: an
// unknown queue, or a block id no selected stream's dma[] lists for it, is
// a usage error naming the nearest and the valid ones. An offset is
// checked once the streams are resolved (pickMissed).
func newLowerPick(sgs []neff.Subgraph, keep func(*neff.Subgraph, *neff.Engine) bool, queue, block, offset string) (lowerPick, error) {
	p := lowerPick{queue: queue, block: -1, offset: -1, set: queue != "" || block != "" || offset != ""}
	var queues []string
	for si := range sgs {
		if !anyEngine(&sgs[si], keep) {
			continue
		}
		for _, q := range sgs[si].Queues() {
			if !slices.Contains(queues, q.Name) {
				queues = append(queues, q.Name)
			}
		}
	}
	if queue != "" && !slices.Contains(queues, queue) {
		return p, usagef("--queue: %w (in the streams selected)", suggest.Unknown("queue", queue, queues))
	}
	if block != "" {
		id, err := strconv.Atoi(block)
		if err != nil || id < 0 {
			return p, usagef("--block %q: want a dma[] block id (a number ≥ 0, as neff info --blocks lists them)", block)
		}
		p.block = id
		var ids []string // the ids of the queue's blocks (every queue's, without --queue), as neff info lists them
		for si := range sgs {
			sg := &sgs[si]
			add := func(bs []neff.Block) {
				for _, b := range bs {
					if s := strconv.Itoa(b.ID); (queue == "" || b.Queue == queue) && !slices.Contains(ids, s) {
						ids = append(ids, s)
					}
				}
			}
			for ei := range sg.Engines {
				if keep(sg, &sg.Engines[ei]) {
					add(sg.Engines[ei].Blocks)
				}
			}
			if anyEngine(sg, keep) {
				add(sg.Blocks)
			}
		}
		slices.SortFunc(ids, func(a, b string) int { x, _ := strconv.Atoi(a); y, _ := strconv.Atoi(b); return x - y })
		if !slices.Contains(ids, block) {
			where := "in the streams selected"
			if queue != "" {
				where = "queue " + queue + ", " + where
			}
			return p, usagef("--block: %w (%s)", &suggest.Error{Kind: "block", Got: block, Near: nearestInts(ids, id), Valid: ids}, where)
		}
	}
	if offset != "" {
		off, err := strconv.ParseInt(offset, 0, 64)
		if err != nil || off < 0 {
			return p, usagef("--offset %q: want a word's byte offset in its stream (0x40, 64), as lower and disasm list it", offset)
		}
		p.offset = int(off)
	}
	return p, nil
}

// anyEngine is whether keep selects an engine of sg.
func anyEngine(sg *neff.Subgraph, keep func(*neff.Subgraph, *neff.Engine) bool) bool {
	for ei := range sg.Engines {
		if keep(sg, &sg.Engines[ei]) {
			return true
		}
	}
	return false
}

// keepStep is whether the pick lists step s: on its queue, the trigger of
// its block, at its offset.
func (p *lowerPick) keepStep(s *sched.Step) bool {
	switch {
	case p.queue != "" && s.Queue != p.queue:
		return false
	case p.block >= 0 && (s.Transfer == nil || s.Transfer.Block != p.block):
		return false
	case p.offset >= 0 && s.Offset != p.offset:
		return false
	}
	return true
}

// filter keeps the steps the pick lists, in place (a stream's steps are
// its own: eachStream resolves them afresh), and notes the word offsets
// seen for pickMissed.
func (p *lowerPick) filter(steps []sched.Step, seen map[int]bool) []sched.Step {
	if !p.set {
		return steps
	}
	n := 0
	for i := range steps {
		if p.offset >= 0 {
			seen[steps[i].Offset] = true
		}
		if p.keepStep(&steps[i]) {
			if n != i {
				steps[n] = steps[i]
			}
			n++
		}
	}
	return steps[:n]
}

// missed is the error of a pick no step of the selected streams matched:
// the flags were each valid (newLowerPick), together they name nothing —
// a block no trigger fires, no word at that offset (the nearest offsets
// suggested, every word's listed), or none on that queue there.
func (p *lowerPick) missed(path string, offsets map[int]bool) error {
	if p.offset >= 0 {
		seen := slices.Sorted(maps.Keys(offsets))
		var valid []string
		for _, o := range seen {
			valid = append(valid, fmt.Sprintf("%#x", o))
		}
		near := nearestInts(valid, p.offset)
		e := &suggest.Error{Kind: "word offset", Got: fmt.Sprintf("%#x", p.offset), Near: near, Valid: valid}
		if slices.Contains(seen, p.offset) {
			return usagef("%s: the word at offset %#x%s", path, p.offset, p.onQueue())
		}
		return usagef("--offset: %w (in the streams selected)", e)
	}
	if p.block >= 0 {
		return usagef("%s: no 0xc1 trigger of the streams selected fires block %d%s", path, p.block, p.ofQueue())
	}
	return usagef("%s: no word of the streams selected runs on queue %s", path, p.queue)
}

// onQueue is why a word is not picked: " is not on queue Q", " fires no block N".
func (p *lowerPick) onQueue() string {
	if p.block >= 0 {
		return " fires no block " + strconv.Itoa(p.block) + p.ofQueue()
	}
	return " is not on queue " + p.queue
}

func (p *lowerPick) ofQueue() string {
	if p.queue == "" {
		return ""
	}
	return " of queue " + p.queue
}

// nearestInts are the numbers of list (ints, any base strconv reads) just
// below and above n: the nearest of a numeric name, where edit distance
// suggests 1 for 7.
func nearestInts(list []string, n int) []string {
	below, above := "", ""
	bv, av := -1, -1
	for _, s := range list {
		v, err := strconv.ParseInt(s, 0, 64)
		switch {
		case err != nil:
		case int(v) < n && (bv < 0 || int(v) > bv):
			below, bv = s, int(v)
		case int(v) > n && (av < 0 || int(v) < av):
			above, av = s, int(v)
		}
	}
	var out []string
	for _, s := range []string{below, above} {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}
