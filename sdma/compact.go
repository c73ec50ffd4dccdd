package sdma

import (
	"encoding/binary"
	"math/bits"
	"sync"

	"ndma/dge"
	"ndma/internal/hugemem"
	"ndma/isa"
)

// Compact expansion (Options.Compact, issue 17): a DIRECT2D word's lists,
// or a DMA_TRANSPOSE's or DMA_GATHER_TRANSPOSE's whose tile rows and
// columns are each one run, held as descriptor runs — descriptors in a row
// whose buf_ptrs step by one amount — instead of written out one by one. A
// strided leg of half a million 64-byte rows is then a run or two, a
// transpose's leg a run per tile or per row of tiles, checked at its ends
// and moved in one call by an executor, and written out (Materialize) only
// where an executor needs the descriptors themselves. Materialize writes
// the very descriptors the expansion without Compact writes
// (TestCompactMaterialize, FuzzCompact, TestCompactXpose, FuzzCompactXpose,
// TestCompactGather, FuzzCompactGather).

// DescRun is N descriptors in a row of one list, each Length bytes
// (1..MaxRun), descriptor i's buf_ptr Addr + i·Step (SoC addresses). Its
// descriptors' other fields are the queue's template (Runs.Tmpl) with the
// phase of their slot's lap and FIRST/LAST on the list's ends, as Expand
// writes them.
type DescRun struct {
	Addr   uint64
	Step   int64
	N      int
	Length int
}

// At is descriptor i's buf_ptr.
func (r *DescRun) At(i int) uint64 { return r.Addr + uint64(int64(i)*r.Step) }

// Runs is a queue's lists as descriptor runs (Options.Compact).
type Runs struct {
	M2S, S2M []DescRun // the data descriptors; S2M's completion descriptor is Done
	Done     Desc      // the completion descriptor, S2M's last
	Tmpl     Desc      // the data descriptors' template: op, type, dtypes, a fresh ring's phase
	N        [2]int    // the M2S and S2M descriptors, S2M's completion included
	ring     int
}

// Count is the queue's M2S and S2M descriptors, written out or held as runs.
func (q *Queue) Count() (m2s, s2m int) {
	if q.Runs != nil {
		return q.Runs.N[0], q.Runs.N[1]
	}
	return len(q.M2S), len(q.S2M)
}

// Materialize writes the lists of queues held as runs out into their M2S
// and S2M lists (and drops the runs), cut from *slab as Expand cuts its
// lists (a larger one is kept there; nil: fresh memory). The slab must not
// hold descriptors still in use: a compact expansion writes none into it.
func Materialize(qs []*Queue, slab *[]Desc) {
	total := 0
	for _, q := range qs {
		if q.Runs != nil {
			total += q.Runs.N[0] + q.Runs.N[1]
		}
	}
	if total == 0 {
		return
	}
	var s []Desc
	if slab != nil && cap(*slab) >= total {
		s = (*slab)[:0]
	} else {
		s = hugemem.Slice[Desc](total)[:0]
		if slab != nil {
			*slab = s
		}
	}
	for _, q := range qs {
		r := q.Runs
		if r == nil {
			continue
		}
		st := newStamper(r.Tmpl)
		q.M2S = st.write(r.M2S, r.N[0], r.ring, &s)
		q.S2M = append(st.write(r.S2M, r.N[1], r.ring, &s)[:r.N[1]-1], r.Done)
		q.Runs = nil
	}
}

// stamper writes data descriptors from a template: its length and buf_ptr
// set, in the phase of its slot's lap (as phase stamps it).
type stamper struct {
	tm   [2]Desc   // by lap: phase 1, then 0 (field-tables §6.2)
	head [2]uint64 // their first words, length 0
}

func newStamper(tmpl Desc) stamper {
	s := stamper{tm: [2]Desc{tmpl, tmpl}}
	s.tm[1].setPhase(0)
	for l := range s.head {
		s.head[l] = binary.LittleEndian.Uint64(s.tm[l][0:8]) &^ 0xffff
	}
	return s
}

// put writes d: n bytes (1..MaxRun; MaxRun is length 0) at SoC address soc, in lap's phase.
func (s *stamper) put(d *Desc, lap int, n, soc uint64) {
	if twoWords { // the template's first word with the length, and the buf_ptr word
		binary.LittleEndian.PutUint64(d[0:8], s.head[lap]|n&0xffff)
		binary.LittleEndian.PutUint64(d[8:16], soc)
		return
	}
	*d = s.tm[lap]
	fLength.Put(d[:], n&0xffff)
	fBufPtr.Put(d[:], soc)
}

// write cuts total descriptors from *slab and writes the runs' into them
// (an S2M list leaves its last for the completion), FIRST on the first and
// LAST on the last data descriptor, as descs does.
func (s *stamper) write(rs []DescRun, total, ring int, slab *[]Desc) []Desc {
	k := len(*slab)
	*slab = (*slab)[:k+total]
	out := (*slab)[k : k+total : k+total]
	i := 0
	for r := range rs {
		dr := &rs[r]
		for j := 0; j < dr.N; j++ {
			s.put(&out[i], (i/ring)&1, uint64(dr.Length), dr.At(j))
			i++
		}
	}
	if i > 0 {
		out[0].setFlags(true, out[0].Last(), false)
		out[i-1].setFlags(out[i-1].First(), true, false)
	}
	return out[:i:total]
}

// prog is k runs of n bytes, run i at addr + i·step (modulo 2^64): a leg's
// rows without each written out. Its runs never continue one another
// (step ≠ n), and the last run of a prog never continues the next prog's
// first: expanded run by run, a prog list is appendRun's list.
type prog struct {
	addr, n uint64
	step    int64
	k       uint64
}

func (g *prog) last() uint64 { return g.addr + (g.k-1)*uint64(g.step) }

// addRun is appendRun on a prog list: the run merges with the last run when
// it continues it, extends the last prog when it is its next run, or starts
// a prog.
func addRun(ps []prog, addr, n uint64) []prog {
	if j := len(ps) - 1; j >= 0 {
		g := &ps[j]
		switch l := g.last(); {
		case l+g.n == addr: // continues the last run: merged, as appendRun merges it
			if g.k == 1 {
				g.n += n
				return ps
			}
			g.k--
			return append(ps, prog{addr: l, n: g.n + n, k: 1})
		case g.n == n && g.k == 1: // a second run of the same size: the step is theirs (≠ n: it does not continue)
			g.step, g.k = int64(addr-g.addr), 2
			return ps
		case g.n == n && l+uint64(g.step) == addr:
			g.k++
			return ps
		}
	}
	return append(ps, prog{addr: addr, n: n, k: 1})
}

// addRuns is k addRuns of n bytes, run i at addr + i·step, in O(1).
func addRuns(ps []prog, addr, n uint64, step int64, k uint64) []prog {
	switch {
	case k == 0:
		return ps
	case step == int64(n): // back to back: one run
		return addRun(ps, addr, n*k)
	}
	ps = addRun(ps, addr, n)
	if k == 1 {
		return ps
	}
	// the others continue no run (step ≠ n): they extend the last prog when
	// they are its next runs, else they are a prog of their own
	g := &ps[len(ps)-1]
	if g.n == n && (g.k == 1 && g.addr == addr || g.k > 1 && g.step == step && g.last() == addr) {
		g.step, g.k = step, g.k+k-1
		return ps
	}
	return append(ps, prog{addr: addr + uint64(step), n: n, step: step, k: k - 1})
}

// legProgs is legRuns as progs: a contiguous row (or, where rows are not
// contiguous, an element) at a time along dim 1 (dim 0), one addRuns per
// row of the dims above. ok false where legRuns would walk what progs do
// not model (an empty dimension or element, more than limit runs, more than
// maxElements elements one by one): the caller expands the word as before.
func legProgs(ps []prog, l *dge.Leg, limit uint64) ([]prog, bool) {
	es := uint64(l.ElemSize)
	if es == 0 {
		return ps, false
	}
	for _, n := range l.Num {
		if n == 0 {
			return ps, false
		}
	}
	if hi, b := bits.Mul64(l.Elements(), es); hi != 0 || b > 1<<48 {
		return ps, false
	}
	from, n, step, k := 1, es, l.Step[0], uint64(l.Num[0]) // elements along dim 0
	if l.Step[0] == int64(l.ElemSize) {
		from, n, step, k = 2, k*es, l.Step[1], uint64(l.Num[1]) // contiguous rows along dim 1
	} else if l.Elements() > maxElements {
		return ps, false
	}
	runs, ok := uint64(0), true
	rows(l, from, func(base int64) bool {
		ps = addRuns(ps, uint64(base), n, step, k)
		runs += k
		ok = runs <= limit
		return ok
	})
	return ps, ok
}

// progBytes is the bytes and descriptors of a leg's progs (descriptors of
// at most MaxRun bytes).
func progBytes(ps []prog) (bytes, n uint64) {
	for _, g := range ps {
		bytes += g.n * g.k
		n += (g.n + MaxRun - 1) / MaxRun * g.k
	}
	return bytes, n
}

// progLast is the highest last byte of a prog's runs (the prog spans no wrap: descRuns checked).
func progLast(g *prog) uint64 { return max(g.addr, g.last()) + g.n - 1 }

// descRuns cuts a leg's progs into descriptor runs, as descs cuts runs:
// each run of a prog in the region of its first, translated to SoC. ok
// false where a prog's runs do not all start in one region, or its
// addresses wrap.
func descRuns(out []DescRun, ps []prog, m isa.AddressMap, core int) ([]DescRun, bool) {
	for i := range ps {
		g := &ps[i]
		if g.k > 1 { // |step|·(k−1) without wrap, below 2^62
			mag := uint64(g.step)
			if g.step < 0 {
				mag = -mag
			}
			hi, span := bits.Mul64(mag, g.k-1)
			if hi != 0 || span >= 1<<62 || g.step > 0 && g.addr+span < g.addr || g.step < 0 && span > g.addr {
				return out, false
			}
		}
		r0, _, _ := m.Split(g.addr)
		r1, _, _ := m.Split(g.last())
		if r0 != r1 || r0 == isa.Unmapped || g.last()+g.n < g.last() {
			return out, false
		}
		soc, err := m.SoC(g.addr, core) // a translation within the region (§11.2)
		if err != nil {
			return out, false
		}
		delta := soc - g.addr
		if g.n <= MaxRun {
			out = addDescRun(out, DescRun{soc, g.step, int(g.k), int(g.n)})
			continue
		}
		full, rem := g.n/MaxRun, g.n%MaxRun
		for j := uint64(0); j < g.k; j++ {
			a := g.addr + j*uint64(g.step) + delta
			out = addDescRun(out, DescRun{a, MaxRun, int(full), MaxRun})
			if rem > 0 {
				out = addDescRun(out, DescRun{a + full*MaxRun, 0, 1, int(rem)})
			}
		}
	}
	return out, true
}

// descRunsCap is the descriptor runs descRuns cuts progs into, at most.
func descRunsCap(ps []prog) int {
	n := 0
	for i := range ps {
		if ps[i].n <= MaxRun {
			n++
		} else {
			n += 2 * int(min(ps[i].k, 1<<20))
		}
	}
	return n
}

// progPool holds the prog buffers of compact expansions past (runPool's
// counterpart): a transpose's thousands of progs are allocated once, not
// per word.
var progPool = sync.Pool{New: func() any { return new([2][]prog) }}

// addDescRun appends r, joined to the run before where it continues its
// progression.
func addDescRun(out []DescRun, r DescRun) []DescRun {
	if r.N == 1 {
		r.Step = 0 // one descriptor has no step: its runs compare equal
	}
	if j := len(out) - 1; j >= 0 && out[j].Length == r.Length {
		p := &out[j]
		switch {
		case p.N == 1 && r.N == 1:
			p.Step, p.N = int64(r.Addr-p.Addr), 2
			return out
		case p.N == 1 && int64(r.Addr-p.Addr) == r.Step:
			p.Step, p.N = r.Step, r.N+1
			return out
		case p.N > 1 && p.At(p.N) == r.Addr && (r.N == 1 || r.Step == p.Step):
			p.N += r.N
			return out
		}
	}
	return append(out, r)
}

// maxTiles bounds the tiles a compact transpose walks (two progs or more
// each): past it the word is expanded as before.
const maxTiles = 1 << 20

// tileProgs is tileRuns as progs: a transpose's tile rows (src) and tile
// columns (dst), a prog per tile on each leg at most, merged as appendRun
// merges their runs (addRuns). ok false off tileRuns' case — dim 0
// contiguous on both legs (a tile row and a tile column each one run) — or
// where the walk is empty, its bytes past 2^48, or its tiles past
// maxTiles: the caller expands the word as before.
func tileProgs(src, dst []prog, p *dge.Program, ch *dge.Channel) (_, _ []prog, ok bool) {
	s, d := &ch.Src, &ch.Dst
	es := uint64(s.ElemSize)
	rows, cols := uint64(s.Num[1]), uint64(s.Num[0])
	tr, tc := uint64(p.Tile.Rows), uint64(p.Tile.Cols)
	if es == 0 || rows == 0 || cols == 0 || tr == 0 || tc == 0 || s.Step[0] != int64(es) || d.Step[0] != int64(es) {
		return src, dst, false
	}
	if hi, n := bits.Mul64(rows*cols, es); hi != 0 || n > 1<<48 { // rows, cols below 2^32: their product does not wrap
		return src, dst, false
	}
	if (rows+tr-1)/tr*((cols+tc-1)/tc) > maxTiles {
		return src, dst, false
	}
	// the addresses as tileRuns computes them (int64, two's complement)
	sa, s0, s1 := int64(s.Addr), s.Step[0], s.Step[1]
	da, d0, d1 := int64(d.Addr), d.Step[0], d.Step[1]
	for rb := uint64(0); rb < rows; rb += tr {
		h := min(rows-rb, tr)
		for cb := uint64(0); cb < cols; cb += tc {
			w := min(cols-cb, tc)
			src = addRuns(src, uint64(sa+int64(cb)*s0+int64(rb)*s1), w*es, s1, h)
			dst = addRuns(dst, uint64(da+int64(rb)*d0+int64(cb)*d1), h*es, d1, w)
		}
	}
	return src, dst, true
}

// gatherProgs is gatherRuns as progs where every lane moves and each
// gathered row and each block column is one run (dim 0 contiguous on both
// legs): a run per row (addRun), a prog per 16-row block's columns
// (addRuns), merged as appendRun merges them. ok false where an index is
// past 2^31 or its bound register's limit, the dst bound is enabled (lanes
// to check or skip), the index values are not the program's (SUNDA's POOL
// kernel asks for them), or the walk is empty or past 2^48 bytes: the caller
// expands the word as before, which names the fault.
func gatherProgs(src, dst []prog, p *dge.Program, ch *dge.Channel, regs map[uint8]uint32) (_, _ []prog, ok bool) {
	s, d := &ch.Src, &ch.Dst
	n, l, es := uint64(s.Num[1]), uint64(d.Num[1]), uint64(s.ElemSize)
	idx := p.Indices[0]
	if es == 0 || n == 0 || l == 0 || n > 1<<22 || uint64(len(idx)) != n || d.Bound.Enabled || s.Step[0] != int64(es) || d.Step[0] != int64(es) {
		return src, dst, false
	}
	if hi, b := bits.Mul64(n*l, es); hi != 0 || b > 1<<48 { // n, l below 2^32: their product does not wrap
		return src, dst, false
	}
	lim := uint64(1<<31 - 1) // gatherRuns' common lane: an index of at most this and its bound register's limit
	if ib := p.Index.Bound[0]; ib.Enabled {
		lim = min(lim, uint64(regs[ib.Reg]))
	}
	const block = 16
	for jb := uint64(0); jb < n; jb += block {
		je := min(n, jb+block)
		for _, v := range idx[jb:je] {
			if uint64(v) > lim {
				return src, dst, false
			}
			src = addRun(src, elem2(s, 0, int64(v)), l*es)
		}
		dst = addRuns(dst, elem2(d, int64(jb), 0), (je-jb)*es, d.Step[1], l)
	}
	return src, dst, true
}

// expandCompact is Expand of a DIRECT2D, or of a DMA_TRANSPOSE of
// tileProgs' case or a DMA_GATHER_TRANSPOSE of gatherProgs', without a quiet bound into queues held as runs; ok
// false where the word is anything else, or anything of it is off the
// common path — a check that fails included: the caller expands it as
// before, which names the fault.
func expandCompact(p *dge.Program, opt Options, tmpl Desc) (*Lowered, bool) {
	if p.Kind != dge.KindDirect2D && p.Kind != dge.KindTranspose && p.Kind != dge.KindGatherTranspose {
		return nil, false
	}
	m := isa.Map(p.Gen)
	lw := &Lowered{Program: p, Queues: make([]Queue, 0, len(p.Channels)), ring: opt.RingSize}
	sc := progPool.Get().(*[2][]prog) // the progs are scratch: only the descriptor runs stay
	defer progPool.Put(sc)
	ps := sc
	for c := range p.Channels {
		ch := &p.Channels[c]
		if quiet(ch.Src.Bound) || quiet(ch.Dst.Bound) {
			return nil, false
		}
		r := &Runs{Tmpl: tmpl, ring: opt.RingSize}
		switch p.Kind {
		case dge.KindTranspose:
			var ok bool
			if ps[0], ps[1], ok = tileProgs(ps[0][:0], ps[1][:0], p, ch); !ok {
				return nil, false
			}
		case dge.KindGatherTranspose:
			var ok bool
			if ps[0], ps[1], ok = gatherProgs(ps[0][:0], ps[1][:0], p, ch, opt.Regs); !ok {
				return nil, false
			}
		}
		var bytes [2]uint64
		for k, l := range [2]*dge.Leg{&ch.Src, &ch.Dst} {
			if p.Kind == dge.KindDirect2D {
				var ok bool
				if ps[k], ok = legProgs(ps[k][:0], l, MaxDescriptors); !ok {
					return nil, false
				}
			}
			b, n := progBytes(ps[k])
			if n+uint64(k) > MaxDescriptors { // S2M: and its completion
				return nil, false
			}
			bytes[k], r.N[k] = b, int(n)+k
			if l.Bound.Enabled { // the first bound layer (boundsCheck)
				for i := range ps[k] {
					g := &ps[k][i]
					last := progLast(g)
					if lo := min(g.addr, g.last()); last > l.Bound.Limit(opt.Regs, last) || l.Bound.Limit(opt.Regs, lo) != l.Bound.Limit(opt.Regs, last) {
						return nil, false // the exact path names the element
					}
				}
			}
			rs, ok := descRuns(make([]DescRun, 0, descRunsCap(ps[k])), ps[k], m, p.Core)
			if !ok {
				return nil, false
			}
			if k == 0 {
				r.M2S = rs
			} else {
				r.S2M = rs
			}
		}
		if streamCheck(p, bytes[0], bytes[1]) != nil {
			return nil, false
		}
		q := queueOf(p, ch, opt.RingSize)
		r.Done = completion(p, r.N[1]-1, opt.RingSize)
		q.Runs = r
		q.Doorbells = fills(nil, ch.DMA, r.N[0], r.N[1], opt.RingSize)
		lw.Queues = append(lw.Queues, q)
	}
	return lw, true
}

// queueOf is channel ch's queue before its lists: its DMA and ring bases in
// the DGE_MEMORY carveout of p's core.
func queueOf(p *dge.Program, ch *dge.Channel, ring int) Queue {
	q := Queue{DMA: ch.DMA, M2SBase: onCore(DGEMemory, p.Core) + uint64(2*ch.DMA)*uint64(ring)*16}
	q.S2MBase = q.M2SBase + uint64(ring)*16
	return q
}

// completion is the S2M completion descriptor after n data descriptors:
// the increment of p's semaphore on p's core, in its slot's lap.
func completion(p *dge.Program, n, ring int) Desc {
	done := newDesc(4, onCore(isa.EvtSemInc(p.Semaphore), p.Core), OpCME, CMECopy)
	done.setFlags(true, true, true)
	done.setPhase(1 ^ (n/ring)&1) // its slot's lap, as phase stamps it
	return done
}
