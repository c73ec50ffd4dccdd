package sim

import (
	"ndma/sdma"
)

// The engines on a DMA_TRANSPOSE or DMA_GATHER_TRANSPOSE held as descriptor
// runs (sdma.Options.Compact, issue 17): a DescRun per tile (a gather: per
// run of gathered rows) per leg, or coarser. The checks are
// prepareFast's at each run's ends (core 0's HBM, or one SBUF partition's
// active bytes per descriptor), the S2M tile plan is read off the runs
// (a run per piece row: P destinations S apart, run t at a₀ + t·n), the
// tile rows' offsets off the M2S runs, and the tiles are turned straight
// into their destinations (turnInto) — no descriptor written out, checked
// or scanned. Anything else — two queues, tiles not whole, reads meeting
// writes, a tile row across two descriptors — has its descriptors written
// out (sdma.Materialize) and runs as before.

// runExtent is run d's extent in local addresses, ok where each of its
// descriptors lies in core 0's HBM or in one SBUF partition's active bytes
// (prepareFast's cases), checked at the run's ends.
func (x *Machine) runExtent(d *sdma.DescRun) (lo, hi uint64, ok bool) {
	m := &x.Mem.Map
	lo, hi = d.Addr, d.At(d.N-1) // the ends of a progression (sdma checked it spans no wrap)
	if d.Step < 0 {
		lo, hi = hi, lo
	}
	n := uint64(d.Length)
	switch {
	case lo >= m.HBMBase && hi < m.HBMEnd && n <= m.HBMEnd-hi:
		return lo, hi + n, true
	case lo >= sbufSoC && hi-sbufSoC < m.SBUFSize:
		l, h, stride := lo-sbufSoC, hi-sbufSoC, m.SBUFStride
		switch {
		case d.Step%int64(stride) == 0: // whole partitions apart (one descriptor too): one offset in each
			ok = l&(stride-1)+n <= m.SBUFActive
		default: // all in one partition: the last starts furthest in
			ok = l/stride == h/stride && h&(stride-1)+n <= m.SBUFActive
		}
		return l, h + n, ok
	}
	return 0, 0, false
}

// runPlan is the tile plan of S2M runs rs (ok false: not that shape): run t
// is piece row t, P descriptors of n bytes S apart from a₀ + t·n.
func runPlan(rs []sdma.DescRun, pb uint64) (pl tilePlan, ok bool) {
	r0 := &rs[0]
	P, S, n, T := r0.N, r0.Step, r0.Length, len(rs)
	if P < 2 || T < 2 || max(S, -S) < int64(T)*int64(n) {
		return pl, false
	}
	a0 := local(r0.Addr, pb)
	for t := range rs {
		d := &rs[t]
		if d.N != P || d.Step != S || d.Length != n || local(d.Addr, pb) != a0+uint64(t*n) {
			return pl, false
		}
	}
	return tilePlan{a0: a0, S: S, P: P, T: T, n: n, K: P * T}, true
}

// prepareXpose checks a transpose's one queue held as runs and plans its
// turn (q.planned); ok false: off the path, nothing changed.
func (x *Machine) prepareXpose(ws []Work, size int, limit int64) (q *queue, ok bool) {
	if x.Tracing || x.exact || len(ws) != 1 {
		return nil, false
	}
	w := &ws[0]
	r := w.Queue.Runs
	if r == nil || w.Turn == nil || w.tiles.es == 0 || w.Inline || w.DstMem != nil && w.DstMem != x.Mem || r.Tmpl.Op() != sdma.OpDRE ||
		!isEvtSem(r.Done.BufPtr()) || r.Done.Length() != 4 || len(r.M2S) == 0 || len(r.S2M) == 0 {
		return nil, false
	}
	q = x.newQueue(w, size)
	if !posted(q, size) {
		return nil, false
	}
	rb := q.tiles.tc * q.tiles.es // a tile row's bytes: each in one descriptor (viewRows)
	if rb <= 0 {
		return nil, false
	}
	hulls := [2]span{{lo: ^uint64(0)}, {lo: ^uint64(0)}}
	var bytes [2]uint64
	for leg, rs := range [2][]sdma.DescRun{r.M2S, r.S2M} {
		for k := range rs {
			d := &rs[k]
			lo, hi, ok := x.runExtent(d)
			if !ok || leg == 0 && d.Length%rb != 0 {
				return nil, false
			}
			h := &hulls[leg]
			h.lo, h.hi = min(h.lo, lo), max(h.hi, hi)
			bytes[leg] += uint64(d.N) * uint64(d.Length)
		}
	}
	mh, hull := hulls[0], hulls[1]
	switch {
	case bytes[0] != bytes[1] || int64(bytes[0]+bytes[1]) > limit: // balance; max-bytes
		return nil, false
	case mh.lo < hull.hi && hull.lo < mh.hi: // the reads meet the writes: the stream path
		return nil, false
	case mh.hi-mh.lo == bytes[0] && !x.Mem.Fits(mh.lo, int(bytes[0])): // one region holds the source (viewRows)
		return nil, false
	}
	pl, ok := runPlan(r.S2M, x.Mem.Map.PSUMBase)
	if !ok {
		return nil, false
	}
	q.m2sHull, q.hull, q.plan, q.scanned = mh, hull, &pl, true
	q.m2sBytes, q.s2mBytes = int64(bytes[0]), int64(bytes[1])+4
	if !x.turnPlanned(q) {
		return nil, false
	}
	x.eff.Queues = append(x.eff.Queues, q.q.DMA)
	if !x.dropSpans {
		x.runReads(r.M2S)
		x.runSpans(r.S2M)
	}
	x.compacted++
	return q, true
}

// moveXpose turns q's tiles into their destinations (turnInto) — the tile
// rows where memory holds them: the source itself where the M2S runs read
// it in order back to back, else each row at its offset — then the
// completion write, counted as moveStreams and writeTiles count them.
func (x *Machine) moveXpose(name string, q *queue) error {
	r, pl, pb := q.q.Runs, q.planned, x.Mem.Map.PSUMBase
	x.arenaFor(pl.P * padRun(pl.T*pl.n)) // turnInto's scratch, for destinations in pieces
	if inOrder(r.M2S, q.m2sHull.lo, pb) {
		q.stream = x.Mem.Peek(q.m2sHull.lo, int(q.m2sBytes)) // nil: not stored in one piece
	}
	if q.stream == nil {
		rb := q.tiles.tc * q.tiles.es
		rows := make([]int, 0, int(q.m2sBytes)/rb)
		for k := range r.M2S {
			d := &r.M2S[k]
			a := int(local(d.Addr, pb) - q.m2sHull.lo)
			for i := range d.N {
				o := a + i*int(d.Step)
				for j := 0; j < d.Length; j += rb {
					rows = append(rows, o+j)
				}
			}
		}
		q.rows = rows
		x.viewed++
	}
	x.Stats.M2SBytes += uint64(q.m2sBytes) // read by the turn, straight from memory
	x.Stats.Descriptors += r.N[0]
	if err := x.turnInto(q, pl); err != nil { // cannot happen: checked
		return &Fault{Mnemonic: name, DMA: q.q.DMA, Queue: q.q.Queue, Leg: "S2M", Desc: -1, Addr: r.S2M[0].Addr, Err: err}
	}
	x.tiled++
	x.Stats.Descriptors += pl.K
	x.s2mStart(q, r.Done)
	x.Stats.S2MBytes += uint64(pl.K * pl.n)
	x.queueBytes(q.q.DMA, pl.K*pl.n)
	return nil
}

// inOrder: runs whose descriptors read memory from lo on, back to back, in
// order — the stream is then memory's bytes as they lie.
func inOrder(rs []sdma.DescRun, lo, pb uint64) bool {
	a := lo
	for k := range rs {
		d := &rs[k]
		if d.N > 1 && d.Step != int64(d.Length) || local(d.Addr, pb) != a {
			return false
		}
		a += uint64(d.N * d.Length)
	}
	return true
}
