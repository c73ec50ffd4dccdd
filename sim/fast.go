package sim

import (
	"encoding/binary"
	"unsafe"

	"ndma/dge"
	"ndma/internal/hugemem"
	"ndma/mem"
	"ndma/sdma"
)

// The engines' common path in few passes (issue 17): a word of half a
// million descriptors is posted, checked and moved in one pass over each
// leg's list for the checks and one for the move, not six. Whatever falls
// off the common path — a doorbell or phase out of order, a descriptor
// outside core 0's HBM and SBUF, an unbalanced stream, a cross-core
// destination — runs the exact per-descriptor path (prepare), which names
// the fault as before.

// Core 0's on-chip windows in the SoC map (field-tables §11.2; isa.AddressMap.FromSoC).
const (
	sbufSoC = 0x20_0000_0000
	psumSoC = 0x28_0200_0000
)

// local is the core-0 Neuron address of a SoC address that has been checked
// (FromSoC mapped it to core 0): FromSoC without its checks.
func local(s, psumBase uint64) uint64 {
	switch {
	case s < sbufSoC: // HBM: the same numbers
		return s
	case s < psumSoC:
		return s - sbufSoC
	}
	return psumBase + (s - psumSoC)
}

// prepareFast is prepare for the common case, in one pass over each leg:
// every doorbell posts the next descriptors of its leg, every descriptor
// carries its lap's phase, every data descriptor lies in core 0's HBM or in
// one SBUF partition's active bytes. It also reports whether the streams
// may skip the stream buffer (streamFree). ok false: something is off the
// common path (nothing but x.eff was changed, which the caller restores).
func (x *Machine) prepareFast(ws []Work, size int, limit int64) (qs []*queue, free, ok bool) {
	m := &x.Mem.Map
	qs = make([]*queue, len(ws))
	for i := range ws {
		if ws[i].DstMem != nil && ws[i].DstMem != x.Mem {
			return nil, false, false
		}
		q := x.newQueue(&ws[i], size)
		var at [2]int
		for _, db := range q.q.Doorbells {
			leg, r, list, ok := q.rung(db.Reg)
			if !ok {
				return nil, false, false
			}
			if db.Value < 0 || db.Value > size || at[leg]+db.Value > len(list) {
				return nil, false, false
			}
			at[leg] += db.Value
			r.tail, r.seq = at[leg], list[:at[leg]]
		}
		if at[0] != len(q.q.M2S) || at[1] != len(q.q.S2M) {
			return nil, false, false
		}
		qs[i] = q
	}
	for _, q := range qs {
		x.eff.Queues = append(x.eff.Queues, q.q.DMA)
	}
	nw, nr := len(x.eff.Writes), len(x.eff.Reads)
	for _, q := range qs {
		nw, nr = nw+len(q.s2m.seq), nr+len(q.m2s.seq)
	}
	spans := !x.dropSpans
	if spans {
		x.eff.Writes = hugemem.Grow(x.eff.Writes, nw-len(x.eff.Writes)) // at most a span per S2M descriptor: no regrowth
		x.eff.Reads = hugemem.Grow(x.eff.Reads, nr-len(x.eff.Reads))    // and per M2S descriptor
	}
	// streamFree's first test, gathered on the way: plain copies whose read
	// and write extents (SoC addresses) are apart
	free = true
	hulls, cnt := [2]span{{lo: ^uint64(0)}, {lo: ^uint64(0)}}, [2]int{}
	hbmLo, hbmHi := m.HBMBase, m.HBMEnd
	sbufSize, sbufMask, sbufActive := m.SBUFSize, m.SBUFStride-1, m.SBUFActive
	writes, reads := x.eff.Writes, x.eff.Reads // kept in registers through the loops, stored back at the end (reads only on success: the caller truncates)
	var moved int64
	for _, q := range qs {
		if q.turn != nil {
			free = false
		}
		var in, out, sem uint64
		cce := false // a CCE descriptor on either leg: only then does balance look at each one
		hull, mh := q.hull, span{}
		ts := tileScan{ok: q.dst == x.Mem && !x.Tracing}
		for leg, r := range []*ring{&q.m2s, &q.s2m} {
			seq := r.seq
			lo, hi, n0 := hulls[leg].lo, hulls[leg].hi, 0
			for base := 0; base < len(seq); base += size {
				want := 1 ^ (base/size)&1 // the phase of the ring's lap (post)
				for k := base; k < min(len(seq), base+size); k++ {
					ln, ph, op, ty, s := seq[k].Head()
					n := uint64(ln)
					if !r.inline && ph != want {
						x.eff.Writes = writes
						return nil, false, false
					}
					if leg == 1 && isEvtSem(s) {
						if n != 4 {
							x.eff.Writes = writes
							return nil, false, false
						}
						sem += 4
						ts.sem = true
						continue
					}
					cce = cce || op == sdma.OpCCE
					if op == sdma.OpCCE && ty > sdma.CCEExt {
						x.eff.Writes = writes
						return nil, false, false
					}
					var a uint64
					switch {
					case s >= hbmLo && s < hbmHi && n <= hbmHi-s:
						a = s
					case s >= sbufSoC && s-sbufSoC < sbufSize && (s-sbufSoC)&sbufMask+n <= sbufActive:
						a = s - sbufSoC
					default: // PSUM, another core, outside memory: the exact path
						x.eff.Writes = writes
						return nil, false, false
					}
					if op != sdma.OpCME {
						free = false
					}
					lo, hi, n0 = min(lo, s), max(hi, s+n), n0+1
					if leg == 0 {
						if in == 0 {
							mh = span{a, a}
						}
						in, mh = in+n, span{min(mh.lo, a), max(mh.hi, a+n)}
						if spans {
							if k := len(reads) - 1; k >= 0 && reads[k][1] == a { // continuing the read before
								reads[k][1] += n
							} else {
								reads = append(reads, [2]uint64{a, a + n})
							}
						}
						continue
					}
					if ts.ok { // the plan's common step inline; the rest in add
						if a == ts.exp && n == ts.n && ts.P != 0 && ts.p+1 != ts.P && op != sdma.OpCCE && !ts.sem {
							ts.p, ts.exp, ts.k = ts.p+1, ts.exp+ts.S, ts.k+1
						} else {
							ts.add(a, n, op)
						}
					}
					if out += n; out == n {
						hull = span{a, a}
					}
					hull = span{min(hull.lo, a), max(hull.hi, a+n)}
					if !spans {
						continue
					}
					if k := len(writes) - 1; k >= 0 && writes[k][1] == a { // continuing the write before
						writes[k][1] += n
					} else {
						writes = append(writes, [2]uint64{a, a + n})
					}
				}
			}
			hulls[leg], cnt[leg] = span{lo, hi}, cnt[leg]+n0
		}
		q.hull, q.m2sHull, q.plan, q.scanned = hull, mh, ts.plan(), true
		q.m2sBytes, q.s2mBytes = int64(in), int64(out+sem)
		if cce && balance(q.q, in, out) != nil || !cce && in != out { // balance's byte rule, without its pass, where no descriptor is CCE
			x.eff.Writes = writes
			return nil, false, false
		}
		if moved += int64(in + out); moved > limit {
			x.eff.Writes = writes
			return nil, false, false
		}
	}
	x.eff.Writes, x.eff.Reads = writes, reads
	if free && cnt[0] > 0 && cnt[1] > 0 && hulls[0].hi > hulls[1].lo && hulls[1].hi > hulls[0].lo {
		free = x.streamFree(qs) // the extents meet: span by span
	}
	return qs, free, true
}

// tilePlan is an S2M list whose data descriptors are the tiles of a
// transpose: P destinations (partitions, or dst rows) each taking T pieces
// of n bytes that continue each other — descriptor k = t·P + p at
// a₀ + p·S + t·n, K = T·P of them — then only completion descriptors. The
// P destinations are apart (|S| ≥ T·n): no write meets another, so each
// destination is one access taking its pieces from the stream, the same
// bytes as a write per descriptor.
type tilePlan struct {
	a0      uint64
	S       int64
	P, T, n int
	K       int // data descriptors
}

// padRun is where turnInto's scratch puts destination after destination of
// b bytes: an odd number of cache lines apart, so that a tile's columns,
// written to P destinations at once, fall in different cache sets (b a
// multiple of 4 KiB, as a 4096-row transpose's 8 KiB, would put them all
// in one).
func padRun(b int) int {
	r := (b + 63) &^ 63
	if r/64%2 == 0 {
		r += 64
	}
	return r
}

// tileScan finds an S2M list's tile plan descriptor by descriptor, on the
// check's pass (prepareFast): the plan's next address is kept, so each
// descriptor costs a comparison.
type tileScan struct {
	ok, sem bool   // still a plan; a completion seen (only completions may follow)
	k       int    // data descriptors seen
	a0, n   uint64 // the first's address, every one's length
	S       uint64 // the step between destinations (two's complement)
	P, p    int    // destinations (0: the first piece of each not passed yet); the next one's
	row     uint64 // a₀ + t·n: the current piece's start in destination 0
	exp     uint64 // the next descriptor's address under the plan
}

func (t *tileScan) add(a, n uint64, op int) {
	switch {
	case !t.ok:
		return
	case op == sdma.OpCCE || t.sem:
		t.ok = false
	case t.k == 0:
		t.a0, t.n, t.row = a, n, a
	case n != t.n:
		t.ok = false
	case t.k == 1:
		t.S = a - t.a0
		t.exp = a + t.S
	case t.P == 0 && a == t.exp:
		t.exp += t.S
	case t.P == 0: // destination 0's second piece: there are k destinations
		t.P, t.p, t.row = t.k, 1, t.a0+t.n
		t.ok, t.exp = a == t.row, a+t.S
	case a != t.exp:
		t.ok = false
	case t.p+1 == t.P:
		t.p, t.row = 0, t.row+t.n
		t.exp = t.row
	default:
		t.p, t.exp = t.p+1, t.exp+t.S
	}
	t.k++
}

// plan is the scan's tile plan (nil: none).
func (t *tileScan) plan() *tilePlan {
	if !t.ok || t.P < 2 || t.k%t.P != 0 {
		return nil
	}
	T, S := t.k/t.P, int64(t.S)
	if T < 2 || max(S, -S) < int64(T)*int64(t.n) {
		return nil
	}
	return &tilePlan{a0: t.a0, S: S, P: t.P, T: T, n: int(t.n), K: t.k}
}

// planTiles finds q's S2M list's tile plan (ok false: not this shape):
// prepareFast's, or on the exact path a scan of its own.
func (x *Machine) planTiles(q *queue) (pl tilePlan, ok bool) {
	if pl, ok = x.findPlan(q); !ok {
		return pl, false
	}
	for p := range pl.P { // each destination one access: in one region (MARIANA's SBUF partitions meet end to start)
		if !x.Mem.Fits(pl.a0+uint64(int64(p)*pl.S), pl.T*pl.n) {
			return pl, false
		}
	}
	return pl, true
}

// findPlan is planTiles before the destinations' check.
func (x *Machine) findPlan(q *queue) (pl tilePlan, ok bool) {
	seq := q.s2m.seq
	switch {
	case x.Tracing || x.exact || q.dst != x.Mem:
		return pl, false
	case q.plan != nil:
		return *q.plan, true
	case q.scanned || len(seq) < 64:
		return pl, false
	}
	pb := x.Mem.Map.PSUMBase
	n := seq[0].Length()
	a0 := local(seq[0].BufPtr(), pb)
	S := int64(local(seq[1].BufPtr(), pb) - a0)
	P := 1
	for P < len(seq) && !isEvtSem(seq[P].BufPtr()) && int64(local(seq[P].BufPtr(), pb)-a0) == int64(P)*S {
		P++
	}
	K := P
	for K < len(seq) && !isEvtSem(seq[K].BufPtr()) {
		K++
	}
	T := K / P
	if P < 2 || T < 2 || K%P != 0 || max(S, -S) < int64(T*n) {
		return pl, false
	}
	for k := K; k < len(seq); k++ {
		if !isEvtSem(seq[k].BufPtr()) {
			return pl, false
		}
	}
	for k := range K {
		d := &seq[k]
		if d.Op() == sdma.OpCCE || d.Length() != n || local(d.BufPtr(), pb) != a0+uint64(int64(k%P)*S+int64(k/P*n)) {
			return pl, false
		}
	}
	return tilePlan{a0: a0, S: S, P: P, T: T, n: n, K: K}, true
}

// writeTiles writes q's S2M stream by its tile plan: a stream left
// unturned for it (q.planned, turnPlanned) is turned straight into the
// destinations; otherwise, when the list has a plan, one Fill per
// destination takes its pieces from the stream. ok false: no plan (nothing
// was done).
func (x *Machine) writeTiles(q *queue) (ok bool, err error) {
	pl := q.planned
	if pl == nil {
		p, ok := x.planTiles(q)
		if !ok {
			return false, nil
		}
		pl = &p
	}
	stream, P, T, n := q.stream, pl.P, pl.T, pl.n
	if q.planned != nil {
		err = x.turnInto(q, pl)
	} else {
		for p := range P {
			err = q.dst.Fill(pl.a0+uint64(int64(p)*pl.S), T*n, func(dst []byte, off int) {
				for b := 0; b < len(dst); {
					t, w := (off+b)/n, (off+b)%n
					b += copy(dst[b:], stream[(t*P+p)*n+w:(t*P+p+1)*n])
				}
			})
			if err != nil {
				break
			}
		}
	}
	if err != nil {
		return true, err
	}
	x.tiled++
	seq := q.s2m.seq
	x.Stats.Descriptors += pl.K
	for k := pl.K; k < len(seq); k++ {
		x.s2mStart(q, seq[k])
	}
	x.Stats.S2MBytes += uint64(pl.K * n)
	x.queueBytes(q.q.DMA, pl.K*n)
	return true, nil
}

// turnInto turns q's stream (dre's input, every tile full) into the plan's
// destinations: each destination's bytes are taken from memory with one
// Fill — mem.Fill hands the memory's own backing — and, when each is one
// piece, the tiles are turned straight into them; otherwise into a scratch
// buffer (destination p at p·run) copied into the pieces after.
func (x *Machine) turnInto(q *queue, pl *tilePlan) error {
	P, T, n := pl.P, pl.T, pl.n
	pieces, first := make([]mem.Piece, 0, P), make([]int, P+1)
	for p := range P {
		first[p] = len(pieces)
		var err error
		if pieces, err = q.dst.FillPieces(pieces, pl.a0+uint64(int64(p)*pl.S), T*n); err != nil {
			return err
		}
	}
	first[P] = len(pieces)
	dsts := make([][]byte, P)
	var out []byte
	if len(pieces) == P { // every destination one piece
		for p := range P {
			dsts[p] = pieces[p].B
		}
	} else {
		run := padRun(T * n)
		out = x.scratch(P * run)
		x.pieced++
		for p := range P {
			dsts[p] = out[p*run : p*run+T*n]
		}
	}
	rb := q.tiles.tc * q.tiles.es // a tile row's bytes
	if q.rows == nil {            // the M2S stream: tile row j at j·rb
		err := x.turnTiles(q, pl, dsts, tileRows{b: q.stream, rb: rb})
		return cmpOrCopy(err, out, pieces, first, dsts)
	}
	// the tile rows straight from memory: the M2S descriptors' extent is one
	// View (which counts exactly their bytes read), turned inside it when it
	// is one piece, else gathered into a scratch first
	lo, ext := q.m2sHull.lo, int(q.m2sHull.hi-q.m2sHull.lo)
	if ext != int(q.m2sBytes) { // rows strewn over the extent (a gather's): each read where it lies
		err := x.turnTiles(q, pl, dsts, x.gatherRows(q, rb))
		return cmpOrCopy(err, out, pieces, first, dsts)
	}
	if b := x.Mem.Peek(lo, ext); b != nil { // stored in one piece (an attached file's pages too, which View bounces): turned in place
		err := x.turnTiles(q, pl, dsts, tileRows{b: b, off: q.rows})
		return cmpOrCopy(err, out, pieces, first, dsts)
	}
	var img []byte
	done := false
	err := x.Mem.View(lo, ext, func(b []byte) error {
		if len(b) == ext {
			done = true
			return x.turnTiles(q, pl, dsts, tileRows{b: b, off: q.rows})
		}
		if img == nil {
			img = x.scratch(ext)[:0]
			x.gathered++
		}
		img = append(img, b...)
		return nil
	})
	if err == nil && !done {
		err = x.turnTiles(q, pl, dsts, tileRows{b: img, off: q.rows})
	}
	return cmpOrCopy(err, out, pieces, first, dsts)
}

// gatherRows is q's tile rows of rb bytes, each where memory stores it
// (mem.Peek of the extent where it is stored in one piece, else of each
// row, as ref's gatherInPlace reads a gather's rows), or — a row
// not stored in one piece (across an HBM page's end, owed, absent) — read
// into a scratch of its own. Each row is read once, so memory counts
// exactly the M2S descriptors' bytes read (viewRows: every row in one
// descriptor, every descriptor's bytes in rows).
func (x *Machine) gatherRows(q *queue, rb int) tileRows {
	lo, ext := q.m2sHull.lo, int(q.m2sHull.hi-q.m2sHull.lo)
	if b := x.Mem.Peek(lo, ext); b != nil { // the extent stored in one piece: each row at its offset in it, not a Peek each
		r, _, _ := x.Mem.Map.Split(lo)
		x.Mem.Stats.Read[r] -= uint64(ext - len(q.rows)*rb) // Peek counted the extent; the descriptors read their rows
		return tileRows{b: b, off: q.rows, strewn: true}
	}
	rs := make([][]byte, len(q.rows))
	var own []byte
	for j, o := range q.rows {
		a := q.m2sHull.lo + uint64(o)
		if rs[j] = x.Mem.Peek(a, rb); rs[j] != nil {
			rs[j] = rs[j][:rb:rb]
			continue
		}
		if own == nil {
			own = x.scratch(len(q.rows) * rb)
			x.gathered++
		}
		rs[j] = own[j*rb : (j+1)*rb : (j+1)*rb]
		x.Mem.Read(a, rs[j]) // checked (prepareFast: each descriptor in one region): cannot fail
	}
	return tileRows{rs: rs, strewn: true}
}

// cmpOrCopy finishes turnInto: after err nothing; with a scratch (out),
// each destination's bytes are copied into its pieces.
func cmpOrCopy(err error, out []byte, pieces []mem.Piece, first []int, dsts [][]byte) error {
	if err != nil || out == nil {
		return err
	}
	for p := range dsts {
		mem.CopyToPieces(pieces[first[p]:first[p+1]], 0, dsts[p])
	}
	return nil
}

// tileRows is where turnTiles finds tile row j: rs[j], or at off[j] in b,
// or (both nil) at j·rb, the M2S stream's order.
type tileRows struct {
	b      []byte
	off    []int
	rb     int
	rs     [][]byte
	strewn bool // a gather's rows, not one source's (oneSet)
}

// at is tile row j's first n bytes.
func (t *tileRows) at(j, n int) []byte {
	if t.rs != nil {
		return t.rs[j][:n:n]
	}
	o := j * t.rb
	if t.off != nil {
		o = t.off[j]
	}
	return t.b[o : o+n : o+n]
}

// turnTiles turns q's tiles (every tile full, their rows where tr says)
// into the plan's destinations dsts.
func (x *Machine) turnTiles(q *queue, pl *tilePlan, dsts [][]byte, tr tileRows) error {
	P, T, n := pl.P, pl.T, pl.n
	g := q.tiles
	h, w, es := g.tr, g.tc, g.es
	// tile order: where a tile's w columns are a block of the destinations
	// (w divides P), the tiles writing one block go one after another, m at
	// a time stacked (a destination's m pieces continue each other), so the
	// block's destinations fill whole lines (a 4096-row transpose would
	// otherwise spread each line's writes 32 tiles apart)
	per := 0
	if P%w == 0 {
		per = P / w // tiles per row of destinations
	}
	reg := canTurn8(h, w, es)
	m := 1
	switch {
	case per == 0:
	case reg: // the register turn writes 16 bytes of a column at once: long stacks, each destination's lines written whole
		m = max(1, stackBytes/(h*w*es))
	default:
		m = stackOf(h, w*es, per*h*w*es)
		if tr.off != nil || tr.rs != nil {
			m = min(m, 2) // rows from memory: their strides are the source's, not the stream's
		}
	}
	m = min(m, T)
	rb := w * es                    // a tile row's bytes
	var cols, rows [][]byte         // the loops' (turnStack)
	var colp, rowp []unsafe.Pointer // the register turn's (turnPtrs)
	blocks := 1                     // 8-column blocks a row group (turn8)
	if reg {
		colp, rowp = make([]unsafe.Pointer, w), make([]unsafe.Pointer, m*h)
		if w%16 == 0 && pl.S%(128<<10) != 0 && (!tr.strewn || !oneSet(dsts)) {
			blocks = 2 // 32 bytes of each row's line at once, 16 destinations' lines in flight
		}
	} else {
		cols, rows = make([][]byte, w), make([][]byte, m*h)
	}
	// stack: tiles ti, ti + per, …, ti + (k−1)·per, turned together; tile
	// ti's column c goes to destination d mod P at piece d div P, d = ti·w + c
	stack := func(ti, k int) {
		col := k * h * es // the bytes of a destination the stack writes
		switch {
		case reg && per != 0: // destinations ti mod per · w + c, all at piece ti div per
			p0, o := ti%per*w, ti/per*n
			for c, d := range dsts[p0 : p0+w] {
				colp[c] = unsafe.Pointer(unsafe.SliceData(d[o : o+col]))
			}
		case reg:
			for c := range colp {
				d := ti*w + c
				colp[c] = unsafe.Pointer(unsafe.SliceData(dsts[d%P][d/P*n : d/P*n+col]))
			}
		default:
			for c := range cols {
				d := ti*w + c
				cols[c] = dsts[d%P][d/P*n : d/P*n+col]
			}
		}
		for j := range k { // tile ti + j·per's rows
			r0 := (ti + j*per) * h
			if reg {
				for r := range h {
					rowp[j*h+r] = unsafe.Pointer(unsafe.SliceData(tr.at(r0+r, rb)))
				}
				continue
			}
			for r := range h {
				rows[j*h+r] = tr.at(r0+r, rb)
			}
		}
		if reg {
			turnPtrs(colp, rowp[:k*h], w, k*h, blocks)
		} else {
			turnStack(cols, rows, h, w, es, k)
		}
	}
	if per == 0 {
		for ti := range pl.K / w {
			stack(ti, 1)
		}
		return nil
	}
	for g := range per {
		for t := 0; t < T; t += m {
			stack(t*per+g, min(m, T-t))
		}
	}
	return nil
}

// stackBytes is the source bytes of the tiles the register turn takes at
// once (32 tiles of 16 × 128 two-byte elements): the stack's rows stay in a
// 1 MiB L2 while each of its 8- or 16-column blocks reads them, and each
// destination's piece is long (32 tiles: 1 KiB, sixteen whole lines).
const stackBytes = 128 << 10

// canTurn8 is whether tiles of h × w es-byte elements turn through turn8:
// 2-byte elements, h and w multiples of 8, on an architecture that has it.
func canTurn8(h, w, es int) bool {
	return haveTurn8 && es == 2 && h > 0 && w > 0 && h%8 == 0 && w%8 == 0
}

// oneSet is whether the destinations all start at one offset in a 4 KiB
// page of the host's memory: their lines at each step then fall in one set
// of a 64-set L1 (a gather-transpose's dst rows 8 KiB apart), whose 8 ways
// hold 8 destinations' lines in flight, not 16. Gathered rows (turnTiles:
// tr.strewn) then take one block: 0.21–0.25 ms against 0.37 ms for 256
// destinations 8, 12, 16 or 32 KiB apart, 4096 rows of 512 B; one or two
// lines off, two blocks do as well (BenchmarkTurnStride). A transpose's
// rows, one source's, keep two: its 4096 × 4096 (dst rows 8 KiB apart)
// ran 27–33 ms with two, 32–35 ms with one.
func oneSet(dsts [][]byte) bool {
	o := uintptr(unsafe.Pointer(unsafe.SliceData(dsts[0]))) % 4096
	for _, d := range dsts[1:] {
		if uintptr(unsafe.Pointer(unsafe.SliceData(d)))%4096 != o {
			return false
		}
	}
	return true
}

// turnPtrs turns n rows of w 2-byte elements (row r at rows[r], w·2 bytes)
// into w columns (column c at cols[c], n·2 bytes) through turn8, k
// 8-column blocks a row group: w a multiple of 8k and n of 8 (canTurn8),
// the rows and columns slices the caller cut, so each lies within its
// memory. Two blocks read 32 bytes of each row's line at a visit, with 16
// destinations' lines in flight; one block keeps 8 in flight, for
// destinations a multiple of 128 KiB apart (SBUF partitions), which all
// fall in one set of a 1 MiB 8-way L2, and for those in one L1 set (oneSet).
func turnPtrs(cols, rows []unsafe.Pointer, w, n, k int) {
	if w%(8*k) != 0 || n%8 != 0 {
		panic("turnPtrs: not whole 8 × 8k blocks")
	}
	_, _ = cols[w-1], rows[n-1] // as many pointers as the kernel reads
	turn8(&cols[0], &rows[0], w, n, k)
}

// turnTile8 is turn of an h × w tile of 2-byte elements through turnPtrs
// (canTurn8, h ≤ 64, w ≤ 512: the pointers on the stack).
func turnTile8(out, in []byte, h, w int) {
	in, out = in[:2*h*w], out[:2*h*w]
	var rp [64]unsafe.Pointer
	var cp [512]unsafe.Pointer
	for r := range h {
		rp[r] = unsafe.Pointer(&in[2*r*w])
	}
	for c := range w {
		cp[c] = unsafe.Pointer(&out[2*c*h])
	}
	k := 1
	if w%16 == 0 {
		k = 2
	}
	turnPtrs(cp[:w], rp[:h], w, h, k)
}

// tileGeom is the DRE's tiling (dre) of a stream whose every element
// moves: rows × cols elements of es bytes, in tiles of tr × tc (edge tiles
// smaller), tile after tile, row by row within a tile.
type tileGeom struct{ rows, cols, tr, tc, es int }

// dreTiles is dre's tiling of channel ch of p (zero: p has no DRE turn).
func dreTiles(p *dge.Program, ch *dge.Channel) tileGeom {
	es := int(ch.Src.ElemSize)
	switch p.Kind {
	case dge.KindTranspose:
		return tileGeom{int(ch.Src.Num[1]), int(ch.Src.Num[0]), int(p.Tile.Rows), int(p.Tile.Cols), es}
	case dge.KindGatherTranspose:
		return tileGeom{int(ch.Src.Num[1]), int(ch.Dst.Num[1]), 16, int(ch.Dst.Num[1]), es}
	}
	return tileGeom{}
}

// turnPlanned leaves q's stream unturned for writeTiles to turn straight
// into its S2M tile plan's destinations (turnInto), when each S2M piece is
// a whole tile column: every tile full (tr × tc), n = tr·es, so piece k is
// column k mod tc of tile k div tc — dre's stream — and goes to the plan's
// destination k mod P at piece k div P. ok false: not this shape (the
// caller turns as dre does).
func (x *Machine) turnPlanned(q *queue) bool {
	g := q.tiles
	if g.es == 0 || g.tr <= 0 || g.tc <= 0 || g.rows%g.tr != 0 || g.cols%g.tc != 0 || int(q.m2sBytes) != g.rows*g.cols*g.es {
		return false
	}
	pl, ok := x.planTiles(q)
	if !ok || pl.n != g.tr*g.es || pl.K*pl.n != int(q.m2sBytes) {
		return false
	}
	q.planned = &pl
	x.turned++
	return true
}

// viewRows is whether a planned word's one queue may take its tile rows
// straight from memory rather than from an M2S stream: the M2S extent lies
// apart from every byte S2M writes (so reading while writing reads what a
// read before would) and each tile row lies in one descriptor; q.rows then
// holds each row's offset from the extent's start. Where the extent holds
// exactly the descriptors' bytes in one region (a transpose's source) it is
// read as one View (which counts exactly their bytes read); otherwise (a
// gather's rows, strewn over a table) each row is read where it lies
// (turnInto: gatherRows).
func (x *Machine) viewRows(q *queue) bool {
	mh, seq := q.m2sHull, q.m2s.seq
	if x.Tracing || x.exact || !q.scanned || len(seq) == 0 || mh.lo < q.hull.hi && q.hull.lo < mh.hi {
		return false
	}
	if mh.hi-mh.lo == uint64(q.m2sBytes) && !x.Mem.Fits(mh.lo, int(mh.hi-mh.lo)) { // one region holds it (MARIANA's whole SBUF partitions meet)
		return false
	}
	rb := q.tiles.tc * q.tiles.es // a tile row's bytes
	rows := make([]int, int(q.m2sBytes)/rb)
	pb := x.Mem.Map.PSUMBase
	k, start := 0, 0 // the descriptor holding stream offset j·rb, and where it starts in the stream
	ln, _, _, _, buf := seq[0].Head()
	for j := range rows {
		o := j * rb
		for o >= start+ln {
			k++
			start += ln
			ln, _, _, _, buf = seq[k].Head()
		}
		if o+rb > start+ln { // a row across two descriptors
			return false
		}
		rows[j] = int(local(buf, pb) - mh.lo + uint64(o-start))
	}
	q.rows = rows
	x.viewed++
	return true
}

// stackOf is how many tiles of h rows of rowBytes, stride bytes apart, a
// turnStack takes at once: at most 4, and no more than fit the cache — the
// rows' addresses are powers of two apart as often as not (4 KiB tiles of
// 256-byte rows), so they crowd few sets of a 64-set, 8-way L1 of 64-byte
// lines; a stack keeps at most 4 of its rows in any one set, the rest of
// the ways for the destinations.
func stackOf(h, rowBytes, stride int) int {
	for m := 4; m > 1; m-- {
		var sets [64]int
		crowded := false
		for j := range m {
			for r := range h {
				k := (j*stride + r*rowBytes) / 64 % 64
				sets[k]++
				crowded = crowded || sets[k] > 4
			}
		}
		if !crowded {
			return m
		}
	}
	return 1
}

// turnStack turns m tiles of h × w es-byte elements stacked, row r of
// tile j in rows[j·h + r]: element (r, c) of tile j goes to
// cols[c][(j·h + r)·es:], so a column's m pieces are written one after
// another.
func turnStack(cols, rows [][]byte, h, w, es, m int) {
	c := 0
	if es == 2 && h%4 == 0 {
		for ; c+4 <= w; c += 4 {
			c0, c1, c2, c3 := cols[c], cols[c+1], cols[c+2], cols[c+3]
			i := 2 * c
			for r := 0; r < m*h; r += 4 {
				// four rows of four 2-byte elements turned in registers (turn2x4)
				a0, a1 := binary.LittleEndian.Uint64(rows[r][i:]), binary.LittleEndian.Uint64(rows[r+1][i:])
				a2, a3 := binary.LittleEndian.Uint64(rows[r+2][i:]), binary.LittleEndian.Uint64(rows[r+3][i:])
				t0, t1 := a0&lanes02|(a1&lanes02)<<16, a0>>16&lanes02|a1&^lanes02
				t2, t3 := a2&lanes02|(a3&lanes02)<<16, a2>>16&lanes02|a3&^lanes02
				o := 2 * r
				binary.LittleEndian.PutUint64(c0[o:o+8], t0&0xffffffff|t2<<32)
				binary.LittleEndian.PutUint64(c1[o:o+8], t1&0xffffffff|t3<<32)
				binary.LittleEndian.PutUint64(c2[o:o+8], t0>>32|t2&^0xffffffff)
				binary.LittleEndian.PutUint64(c3[o:o+8], t1>>32|t3&^0xffffffff)
			}
		}
	}
	for ; c < w; c++ { // the columns past the last four, or every column
		for r := range m * h {
			copy(cols[c][r*es:(r+1)*es], rows[r][c*es:])
		}
	}
}
