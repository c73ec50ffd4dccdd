package sim

import (
	"ndma/internal/hugemem"
	"ndma/sdma"
)

// The engines on lists held as descriptor runs (sdma.Options.Compact,
// issue 17): plain copies within core 0's HBM whose reads and writes are
// apart (here), and the (gather-)transposes (compact_xpose.go). A run's buf_ptrs are a progression, so its extent is its two ends;
// the M2S and S2M runs pair off into moves of rows a constant step apart
// (mem.CopyStrided), the bytes direct moves descriptor by descriptor. Any
// word off that path has its descriptors written out (sdma.Materialize) and
// runs as before: prepareFast, or prepare, which names a fault.

// cmove is one mem.CopyStrided: k rows of n bytes, row i from s + i·ss to d + i·ds.
type cmove struct {
	d, s   uint64
	ds, ss int64
	n, k   int
}

// prepareCompact checks queues held as runs and pairs their runs into
// moves (x.cmoves, queue after queue; q.moves their count). ok false:
// off the path, nothing changed.
func (x *Machine) prepareCompact(ws []Work, size int, limit int64) (qs []*queue, ok bool) {
	if x.Tracing || x.exact {
		return nil, false
	}
	hbmLo, hbmHi := x.Mem.Map.HBMBase, x.Mem.Map.HBMEnd
	hulls := [2]span{{lo: ^uint64(0)}, {lo: ^uint64(0)}}
	var moved int64
	mv := x.cmoves[:0]
	qs = make([]*queue, len(ws))
	for i := range ws {
		w := &ws[i]
		r := w.Queue.Runs
		if r == nil || w.Turn != nil || w.Inline || w.DstMem != nil && w.DstMem != x.Mem || r.Tmpl.Op() != sdma.OpCME ||
			!isEvtSem(r.Done.BufPtr()) || r.Done.Length() != 4 {
			return nil, false
		}
		q := x.newQueue(w, size)
		if !posted(q, size) {
			return nil, false
		}
		var bytes [2]uint64
		for leg, rs := range [2][]sdma.DescRun{r.M2S, r.S2M} {
			for k := range rs {
				d := &rs[k]
				lo, hi := d.Addr, d.At(d.N-1) // the ends of a progression (sdma checked it spans no wrap)
				if d.Step < 0 {
					lo, hi = hi, lo
				}
				n := uint64(d.Length)
				if lo < hbmLo || hi >= hbmHi || n > hbmHi-hi { // core 0's HBM, as prepareFast's first case
					return nil, false
				}
				h := &hulls[leg]
				h.lo, h.hi = min(h.lo, lo), max(h.hi, hi+n)
				bytes[leg] += uint64(d.N) * n
				if leg == 1 {
					if bytes[1] == uint64(d.N)*n {
						q.hull = span{lo, hi + n}
					}
					q.hull = span{min(q.hull.lo, lo), max(q.hull.hi, hi+n)}
				}
			}
		}
		if bytes[0] != bytes[1] { // balance, for plain copies
			return nil, false
		}
		if moved += int64(bytes[0] + bytes[1]); moved > limit {
			return nil, false
		}
		q.m2sBytes, q.s2mBytes = int64(bytes[0]), int64(bytes[1])+4
		k := len(mv)
		var ok bool
		if mv, ok = pairRuns(mv, r.M2S, r.S2M, max(64, (r.N[0]+r.N[1])/16)); !ok {
			return nil, false // pieces too small for whole moves: direct moves them descriptor by descriptor
		}
		q.moves = len(mv) - k
		qs[i] = q
	}
	if hulls[0].hi > hulls[1].lo && hulls[1].hi > hulls[0].lo { // reads and writes meet: the span-by-span check of streamFree
		return nil, false
	}
	x.cmoves, x.compacted = mv, x.compacted+len(qs)
	for _, q := range qs {
		x.eff.Queues = append(x.eff.Queues, q.q.DMA)
	}
	if !x.dropSpans {
		for _, q := range qs {
			x.runReads(q.q.Runs.M2S)
			x.runSpans(q.q.Runs.S2M)
		}
	}
	return qs, true
}

// posted: every doorbell of q posts the next descriptors of its leg, at
// most a ring, and they post all of its runs' descriptors.
func posted(q *queue, size int) bool {
	var at [2]int
	for _, db := range q.q.Doorbells {
		leg, _, _, ok := q.rung(db.Reg)
		if !ok || db.Value < 0 || db.Value > size {
			return false
		}
		at[leg] += db.Value
	}
	return at == q.q.Runs.N
}

// runSpans adds the write spans of S2M runs (checked: each in one region,
// so its local addresses step as its SoC ones), as the per-descriptor
// check adds them.
func (x *Machine) runSpans(rs []sdma.DescRun) { x.eff.Writes = x.runSpansTo(x.eff.Writes, rs) }

// runReads adds the read spans of M2S runs, as runSpans the write spans.
func (x *Machine) runReads(rs []sdma.DescRun) { x.eff.Reads = x.runSpansTo(x.eff.Reads, rs) }

// runSpansTo is spans with the spans of runs rs added.
func (x *Machine) runSpansTo(spans [][2]uint64, rs []sdma.DescRun) [][2]uint64 {
	pb := x.Mem.Map.PSUMBase
	for k := range rs {
		d := &rs[k]
		a := local(d.Addr, pb)
		if d.N == 1 || d.Step == int64(d.Length) {
			spans = joinSpan(spans, a, a+uint64(d.N*d.Length))
			continue
		}
		spans = hugemem.Grow(spans, d.N)
		for j := range d.N {
			b := uint64(int64(a) + int64(j)*d.Step)
			spans = joinSpan(spans, b, b+uint64(d.Length))
		}
	}
	return spans
}

// addSpan adds a write span, joined to the one before where it continues it.
func (x *Machine) addSpan(lo, hi uint64) { x.eff.Writes = joinSpan(x.eff.Writes, lo, hi) }

// addRead adds a read span, as addSpan a write span.
func (x *Machine) addRead(lo, hi uint64) { x.eff.Reads = joinSpan(x.eff.Reads, lo, hi) }

// joinSpan is spans with [lo, hi) added, joined to the last where it continues it.
func joinSpan(spans [][2]uint64, lo, hi uint64) [][2]uint64 {
	if k := len(spans) - 1; k >= 0 && spans[k][1] == lo {
		spans[k][1] = hi
		return spans
	}
	return append(spans, [2]uint64{lo, hi})
}

// moveCompact makes the moves prepareCompact paired, queue after queue,
// then each queue's completion write — what direct does with the
// descriptors written out.
func (x *Machine) moveCompact(qs []*queue) error {
	mv := x.cmoves
	for _, q := range qs {
		for _, m := range mv[:q.moves] {
			if _, err := x.Mem.CopyStrided(m.d, m.ds, m.s, m.ss, m.n, m.k); err != nil {
				return err // cannot happen: checked
			}
		}
		mv = mv[q.moves:]
		r := q.q.Runs
		x.Stats.Descriptors += r.N[0] + r.N[1] - 1
		x.s2mStart(q, r.Done)
		x.Stats.M2SBytes += uint64(q.m2sBytes)
		if wrote := q.s2mBytes - 4; wrote > 0 {
			x.Stats.S2MBytes += uint64(wrote)
			x.queueBytes(q.q.DMA, int(wrote))
		}
	}
	return nil
}

// cursor is a place in a leg's runs: run i, its descriptor e, byte off of it.
type cursor struct {
	rs        []sdma.DescRun
	i, e, off int
}

func (c *cursor) done() bool           { return c.i == len(c.rs) }
func (c *cursor) run() *sdma.DescRun   { return &c.rs[c.i] }
func (c *cursor) addr() uint64         { return c.run().At(c.e) + uint64(c.off) }
func (c *cursor) packed() bool         { r := c.run(); return r.Step == int64(r.Length) || r.N-c.e == 1 }
func (c *cursor) whole(n int) bool     { return c.off == 0 && c.run().Length == n }
func (c *cursor) left() int            { return c.run().N - c.e }
func (c *cursor) skipDescs(k int)      { c.skip(k * c.run().Length) }
func (c *cursor) descLen() (n int)     { return c.run().Length }
func (c *cursor) stepOf() (step int64) { return c.run().Step }

// room is the bytes from the cursor that lie back to back: the rest of the
// run where its descriptors continue each other, else the rest of the
// descriptor.
func (c *cursor) room() int {
	if r := c.run(); r.Step == int64(r.Length) {
		return (r.N-c.e)*r.Length - c.off
	}
	return c.run().Length - c.off
}

// skip moves the cursor b bytes on (at most room).
func (c *cursor) skip(b int) {
	r := c.run()
	p := c.e*r.Length + c.off + b
	c.e, c.off = p/r.Length, p%r.Length
	if c.e == r.N {
		c.i, c.e, c.off = c.i+1, 0, 0
	}
}

// pairRuns pairs the M2S runs src with the S2M runs dst in stream order
// into moves appended to mv: descriptors of one size on both legs row for
// row, whole descriptors of one leg into back-to-back bytes of the other,
// else the bytes both have at hand. ok false past limit moves.
func pairRuns(mv []cmove, src, dst []sdma.DescRun, limit int) ([]cmove, bool) {
	s, d := cursor{rs: src}, cursor{rs: dst}
	for n0 := len(mv); !s.done() && !d.done(); {
		switch n := s.descLen(); {
		case s.off == 0 && d.whole(n): // row for row
			k := min(s.left(), d.left())
			mv = append(mv, cmove{d: d.addr(), ds: d.stepOf(), s: s.addr(), ss: s.stepOf(), n: n, k: k})
			s.skipDescs(k)
			d.skipDescs(k)
		case s.off == 0 && d.packed() && d.room() >= n: // whole src descriptors, packed into dst
			k := min(s.left(), d.room()/n)
			mv = append(mv, cmove{d: d.addr(), ds: int64(n), s: s.addr(), ss: s.stepOf(), n: n, k: k})
			s.skipDescs(k)
			d.skip(k * n)
		case d.off == 0 && s.packed() && s.room() >= d.descLen(): // whole dst descriptors, from packed src bytes
			n := d.descLen()
			k := min(d.left(), s.room()/n)
			mv = append(mv, cmove{d: d.addr(), ds: d.stepOf(), s: s.addr(), ss: int64(n), n: n, k: k})
			s.skip(k * n)
			d.skipDescs(k)
		default:
			n := min(s.room(), d.room())
			mv = append(mv, cmove{d: d.addr(), s: s.addr(), n: n, k: 1})
			s.skip(n)
			d.skip(n)
		}
		if len(mv)-n0 > limit {
			return mv, false
		}
	}
	return mv, s.done() && d.done()
}
