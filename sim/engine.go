package sim

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"slices"

	"ndma/dge"
	"ndma/internal/control"
	"ndma/internal/hugemem"
	"ndma/internal/num"
	"ndma/isa"
	"ndma/mem"
	"ndma/sdma"
)

// ring is one M2S or S2M descriptor ring: software writes descriptors at
// the tail and rings the doorbell with their count; the engine takes them
// in order. The slot a descriptor lands in carries the phase of the ring's
// lap — 1 on a fresh ring, toggled on every wrap (field-tables §6.2) — and a
// doorbell may not add more than the ring holds. Each word's descriptors
// start on fresh rings, as the lowering stamps them (INFERRED).
type ring struct {
	size   int
	inline bool
	tail   int         // descriptors posted so far (the slot is tail mod size)
	seq    []sdma.Desc // what the engine takes, in order
}

// post is one doorbell: the next n descriptors of list, from cursor at.
func (r *ring) post(list []sdma.Desc, at, n int) error {
	if n < 0 {
		return fmt.Errorf("doorbell adds %d descriptors", n)
	}
	if n > r.size {
		return fmt.Errorf("doorbell adds %d descriptors to a ring of %d: ring overflow", n, r.size)
	}
	if at+n > len(list) {
		return fmt.Errorf("doorbell adds %d descriptors, %d are written", n, len(list)-at)
	}
	for k := at; k < at+n; k++ {
		if want := 1 ^ (r.tail/r.size)&1; !r.inline && list[k].Phase() != want {
			return &phaseError{slot: r.tail % r.size, k: k, got: list[k].Phase(), want: want}
		}
		r.tail++
	}
	r.seq = list[:at+n] // the doorbells post a leg's list in order: what the engine takes is its head
	return nil
}

type phaseError struct{ slot, k, got, want int }

func (e *phaseError) Error() string {
	return fmt.Sprintf("ring slot %d carries phase %d, the ring's lap expects %d: %v", e.slot, e.got, e.want, ErrPhase)
}

func (e *phaseError) Unwrap() error { return ErrPhase }

// Work is one queue's share of a word: the descriptors software posts to
// DMA engine DMA's M2S and S2M rings (with their doorbells), the value its
// completion descriptor adds, and the DRE's tile turn (nil: none).
type Work struct {
	Queue  sdma.Queue
	SemInc int
	Turn   func(stream []byte) []byte
	Inline bool        // descriptors carried in the word, not on a ring: no phase check
	DstMem *mem.Memory // the memory S2M writes when it is not this core's (a cross-core copy)
	tiles  tileGeom    // Turn's tiling when every element moves (zero: not known)
}

// queue is one Work as the engine executes it.
type queue struct {
	q        *sdma.Queue
	dst      *mem.Memory // the memory S2M writes
	m2s, s2m ring
	semInc   int
	turn     func([]byte) []byte
	stream   []byte // M2S bytes, then (after the DRE/CCE) the S2M bytes
	tiles    tileGeom
	planned  *tilePlan // the stream is left unturned for writeTiles to turn into plan's destinations (turnPlanned, turnInto)
	plan     *tilePlan // the S2M list's tile plan as prepareFast found it
	scanned  bool      // prepareFast checked the lists (plan nil: they have none)
	hull     span      // the S2M data descriptors' extent in q.dst (local addresses)
	m2sHull  span      // the M2S descriptors' extent (prepareFast)
	rows     []int     // tile row j's offset in m2sHull, read there, not into a stream (viewRows); nil: the stream
	m2sBytes int64     // the M2S stream's bytes
	s2mBytes int64     // every S2M descriptor's bytes, the completion's included
	moves    int       // its moves in x.cmoves (prepareCompact)
}

// run executes a lowered word's queues.
func (x *Machine) run(name string, p *dge.Program, lw *sdma.Lowered) error {
	ws := x.works(p, lw)
	qs, err := x.runQueues(name, ws)
	if err != nil {
		return err
	}
	x.Stats.TimeNS += queuesTime(p.Backend, qs)
	return nil
}

// works is a lowered word's queues as the engines take them.
func (x *Machine) works(p *dge.Program, lw *sdma.Lowered) []Work {
	if cap(x.workBuf) < len(lw.Queues) { // reused word after word: the word's queues point into it until the next
		x.workBuf = make([]Work, len(lw.Queues))
	}
	ws := x.workBuf[:len(lw.Queues)]
	for i := range lw.Queues {
		ch := &p.Channels[i]
		ws[i] = Work{Queue: lw.Queues[i], SemInc: ch.SemInc}
		if q := &lw.Queues[i]; len(q.M2S) > 0 && q.M2S[0].Op() == sdma.OpDRE || q.Runs != nil && q.Runs.Tmpl.Op() == sdma.OpDRE { // held as runs: the template's op
			keep := lw.Queues[i].Keep
			ws[i].Turn = func(b []byte) []byte { return dre(p, ch, keep, b, x.scratch(len(b))) }
			if keep == nil {
				ws[i].tiles = dreTiles(p, ch)
			}
		}
	}
	return ws
}

// RunWork posts every queue's descriptors, checks every descriptor, drains
// all M2S streams (reads before writes), turns or computes, then drains the
// S2M rings; the completion descriptors' semaphore writes apply at the end.
// Nothing is written unless everything checks; name is the word the faults
// name.
func (x *Machine) RunWork(name string, ws []Work) error {
	x.eff = control.Effect{}
	if err := x.runWork(name, ws); err != nil {
		return err
	}
	x.eff.Apply()
	return nil
}

// runWork is RunWork with the semaphore writes left in the word's effect.
func (x *Machine) runWork(name string, ws []Work) error {
	_, err := x.runQueues(name, ws)
	return err
}

// runQueues is runWork, returning the queues it ran.
func (x *Machine) runQueues(name string, ws []Work) ([]*queue, error) {
	size := x.RingSize
	if size <= 0 {
		size = sdma.DefaultRingSize
	}
	limit := x.maxBytes()
	x.nqueue = 0 // the queues of the word before are done with
	nq, nw, nr := len(x.eff.Queues), len(x.eff.Writes), len(x.eff.Reads)
	if qs, ok := x.prepareCompact(ws, size, limit); ok {
		for _, q := range qs {
			q.dst.ReserveDense(q.hull.lo, q.hull.hi, q.s2mBytes)
		}
		return qs, x.moveCompact(qs)
	}
	if q, ok := x.prepareXpose(ws, size, limit); ok {
		q.dst.ReserveDense(q.hull.lo, q.hull.hi, q.s2mBytes)
		return []*queue{q}, x.moveXpose(name, q)
	}
	x.materialize(ws)
	var qs []*queue
	free, ok := false, false
	if !x.exact {
		qs, free, ok = x.prepareFast(ws, size, limit)
	}
	if !ok { // off the common path, or at fault: the exact per-descriptor path names it
		x.eff.Queues, x.eff.Writes, x.eff.Reads = x.eff.Queues[:nq], x.eff.Writes[:nw], x.eff.Reads[:nr]
		var err error
		if qs, err = x.prepare(name, ws, size, limit); err != nil {
			return nil, err
		}
		free = x.streamFree(qs)
	}
	for _, q := range qs {
		q.dst.ReserveDense(q.hull.lo, q.hull.hi, q.s2mBytes) // one extent for a dense destination, not one per descriptor batch
	}
	if free {
		return qs, x.direct(qs)
	}
	return qs, x.moveStreams(name, qs)
}

// materialize writes out the descriptors of queues held as runs
// (sdma.Options.Compact) that prepareCompact did not take, into the
// machine's slab (the word's lists live there for the word).
func (x *Machine) materialize(ws []Work) {
	var buf [8]*sdma.Queue
	qs := buf[:0]
	for i := range ws {
		if ws[i].Queue.Runs != nil {
			qs = append(qs, &ws[i].Queue)
		}
	}
	sdma.Materialize(qs, &x.slab)
}

// maxBytes is the most a word's streams may carry (MaxBytes, or DefaultMaxBytes).
func (x *Machine) maxBytes() int64 {
	if x.MaxBytes > 0 {
		return x.MaxBytes
	}
	return DefaultMaxBytes
}

// prepare posts every queue's doorbells and checks every descriptor, one
// by one, naming the first fault (the exact path; prepareFast is the same
// in one pass for the common case).
func (x *Machine) prepare(name string, ws []Work, size int, limit int64) ([]*queue, error) {
	qs := make([]*queue, len(ws))
	for i := range ws {
		q := x.newQueue(&ws[i], size)
		var at [2]int
		for _, db := range q.q.Doorbells {
			leg, r, list, ok := q.rung(db.Reg)
			if !ok {
				return nil, &Fault{Mnemonic: name, DMA: q.q.DMA, Queue: q.q.Queue, Desc: -1, Err: fmt.Errorf("doorbell register %q (TDRTP_inc or RDRTP_inc)", db.Reg)}
			}
			if err := r.post(list, at[leg], db.Value); err != nil {
				f := &Fault{Mnemonic: name, DMA: q.q.DMA, Queue: q.q.Queue, Leg: [2]string{"M2S", "S2M"}[leg], Desc: -1, Err: err}
				if pe, ok := err.(*phaseError); ok {
					f.Desc, f.Addr = pe.k, list[pe.k].BufPtr()
				}
				return nil, f
			}
			at[leg] += db.Value
		}
		if at[0] != len(q.q.M2S) || at[1] != len(q.q.S2M) {
			return nil, &Fault{Mnemonic: name, DMA: q.q.DMA, Queue: q.q.Queue, Desc: -1, Err: fmt.Errorf("%d M2S and %d S2M descriptors written, %d and %d doorbelled", len(q.q.M2S), len(q.q.S2M), at[0], at[1])}
		}
		qs[i] = q
	}
	// check: addresses and balance, before anything moves
	for _, q := range qs {
		x.eff.Queues = append(x.eff.Queues, q.q.DMA)
	}
	var moved int64
	nw, nr := len(x.eff.Writes), len(x.eff.Reads)
	for _, q := range qs {
		nw, nr = nw+len(q.s2m.seq), nr+len(q.m2s.seq)
	}
	if !x.dropSpans {
		x.eff.Writes = hugemem.Grow(x.eff.Writes, nw-len(x.eff.Writes)) // at most a span per S2M descriptor: no regrowth
		x.eff.Reads = hugemem.Grow(x.eff.Reads, nr-len(x.eff.Reads))
	}
	for _, q := range qs {
		var in, out uint64
		for leg, r := range []*ring{&q.m2s, &q.s2m} {
			for k, d := range r.seq {
				bad := func(err error) error {
					return &Fault{Mnemonic: name, DMA: q.q.DMA, Queue: q.q.Queue, Leg: [2]string{"M2S", "S2M"}[leg], Desc: k, Addr: d.BufPtr(), Err: err}
				}
				if leg == 1 && isEvtSem(d.BufPtr()) {
					if d.Length() != 4 {
						return nil, bad(fmt.Errorf("a semaphore write of %d bytes (4 expected)", d.Length()))
					}
					q.s2mBytes += 4
					continue
				}
				if d.Op() == sdma.OpCCE && d.OpType() > sdma.CCEExt {
					return nil, bad(fmt.Errorf("CCE type %d: %w", d.OpType(), ErrUnsupported))
				}
				a, core, err := x.Mem.Map.FromSoC(d.BufPtr())
				if err == nil && core != 0 {
					err = fmt.Errorf("core %d's memory: ndma runs core 0", core)
				}
				if err == nil {
					m := x.Mem
					if leg == 1 {
						m = q.dst
					}
					err = m.Check(a, d.Length())
				}
				if err != nil {
					return nil, bad(err)
				}
				if leg == 0 {
					in += uint64(d.Length())
					if !x.dropSpans {
						x.addRead(a, a+uint64(d.Length()))
					}
				} else {
					out += uint64(d.Length())
					if out == uint64(d.Length()) {
						q.hull = span{a, a}
					}
					q.hull = span{min(q.hull.lo, a), max(q.hull.hi, a+uint64(d.Length()))}
					if x.dropSpans {
						continue
					}
					x.addSpan(a, a+uint64(d.Length()))
				}
			}
		}
		q.m2sBytes, q.s2mBytes = int64(in), q.s2mBytes+int64(out)
		if err := balance(q.q, in, out); err != nil {
			return nil, &Fault{Mnemonic: name, DMA: q.q.DMA, Queue: q.q.Queue, Desc: -1, Err: err}
		}
		if moved += int64(in + out); moved > limit {
			return nil, &Fault{Mnemonic: name, DMA: q.q.DMA, Queue: q.q.Queue, Desc: -1, Err: fmt.Errorf("the word's streams carry more than the %d bytes allowed (Machine.MaxBytes)", limit)}
		}
	}
	return qs, nil
}

// moveStreams reads every queue's M2S stream (reads before writes, across
// queues), turns or computes, then writes the S2M descriptors out.
func (x *Machine) moveStreams(name string, qs []*queue) error {
	// M2S: every queue's stream, before anything is written; the streams
	// and their turns are cut from one arena (scratch)
	need := 0
	for _, q := range qs {
		need += int(q.m2sBytes)
		if q.turn != nil {
			need += int(q.m2sBytes)
			if q.plan != nil { // turnInto's scratch, destinations padded apart
				need += q.plan.P * 128
			}
		}
	}
	x.arenaFor(need)
	for _, q := range qs {
		if len(qs) == 1 && q.turn != nil && x.turnPlanned(q) && x.viewRows(q) {
			x.Stats.M2SBytes += uint64(q.m2sBytes) // read by the turn, straight from memory
			x.Stats.Descriptors += len(q.m2s.seq)
			continue
		}
		if len(qs) == 1 && q.turn == nil && x.peekM2S(q) {
			continue // the stream is memory's own bytes: no S2M write reaches them
		}
		q.stream = x.scratch(int(q.m2sBytes))
		if err := x.readM2S(name, q); err != nil {
			return err
		}
		if q.turn != nil && q.planned == nil && !x.turnPlanned(q) {
			q.stream = q.turn(q.stream)
		}
	}
	// S2M: write the streams out; CCE descriptors cast or compute per scalar
	for _, q := range qs {
		if err := x.writeS2M(name, q); err != nil {
			return err
		}
	}
	return nil
}

// peekM2S takes q's M2S stream in place (mem.Peek) where its descriptors
// read one stored piece of memory in order, back to back, that no S2M
// descriptor writes: reading it first or as S2M goes is then the same
// (field-tables §11.3: reads before writes). It reports false, having done
// nothing, anywhere else.
func (x *Machine) peekM2S(q *queue) bool {
	mh, seq, pb := q.m2sHull, q.m2s.seq, x.Mem.Map.PSUMBase
	if x.Tracing || x.exact || !q.scanned || len(seq) == 0 || q.dst != x.Mem ||
		mh.hi-mh.lo != uint64(q.m2sBytes) || mh.lo < q.hull.hi && q.hull.lo < mh.hi {
		return false
	}
	a := mh.lo
	for k := range seq {
		ln, _, _, _, buf := seq[k].Head()
		if local(buf, pb) != a {
			return false
		}
		a += uint64(ln)
	}
	b := x.Mem.Peek(mh.lo, int(q.m2sBytes))
	if b == nil {
		return false
	}
	q.stream = b
	x.Stats.M2SBytes += uint64(len(b))
	x.Stats.Descriptors += len(seq)
	x.peeked++
	return true
}

// readM2S reads q's M2S descriptors into q.stream, in order; descriptors
// that continue each other in memory are read as one access (the same bytes).
func (x *Machine) readM2S(name string, q *queue) error {
	seq, pb := q.m2s.seq, x.Mem.Map.PSUMBase
	off := 0
	for k := 0; k < len(seq); {
		a, n := local(seq[k].BufPtr(), pb), seq[k].Length()
		e := k + 1
		for e < len(seq) && local(seq[e].BufPtr(), pb) == a+uint64(n) {
			n += seq[e].Length()
			e++
		}
		err := byRun(seq[k:e], pb, a, q.stream[off:off+n], x.Mem.Read)
		if err != nil { // cannot happen: checked
			return &Fault{Mnemonic: name, DMA: q.q.DMA, Queue: q.q.Queue, Leg: "M2S", Desc: -1, Addr: seq[k].BufPtr(), Err: err}
		}
		if x.Tracing {
			for j := k; j < e; j++ {
				t := seq[j] // copied here: only a traced descriptor escapes
				x.Tracef("DMA[%d] M2S %s", q.q.DMA, &t)
			}
		}
		off, k = off+n, e
	}
	x.Stats.M2SBytes += uint64(off)
	x.Stats.Descriptors += len(seq)
	return nil
}

// byRun moves b between memory and a run of descriptors that continue each
// other from a (f is memory's Read or Write) as one access, or — the run
// crossing a region's end — descriptor by descriptor.
func byRun(run []sdma.Desc, pb, a uint64, b []byte, f func(uint64, []byte) error) error {
	err := f(a, b)
	if err != nil && len(run) > 1 {
		err = nil
		for j, o := 0, 0; j < len(run) && err == nil; j++ {
			l := run[j].Length()
			err = f(local(run[j].BufPtr(), pb), b[o:o+l])
			o += l
		}
	}
	return err
}

// writeS2M writes q.stream out through q's S2M descriptors, in order, and
// applies the completion writes.
func (x *Machine) writeS2M(name string, q *queue) error {
	if ok, err := x.writeTiles(q); ok || err != nil {
		if err != nil { // cannot happen: checked
			return &Fault{Mnemonic: name, DMA: q.q.DMA, Queue: q.q.Queue, Leg: "S2M", Desc: -1, Addr: q.s2m.seq[0].BufPtr(), Err: err}
		}
		return nil
	}
	pb := x.Mem.Map.PSUMBase
	off, wrote := 0, 0
	seq := q.s2m.seq
	for k := 0; k < len(seq); k++ {
		d := &seq[k]
		if x.s2mStart(q, *d) {
			continue
		}
		a, n := local(d.BufPtr(), pb), d.Length()
		var err error
		if d.Op() == sdma.OpCCE {
			// CCE descriptors of one type and dtypes whose writes continue
			// each other: one conversion (ApplySlice's every-CPU runs, a
			// loaded destination moved in the same pass: mem.Combine)
			e := k + 1
			for e < len(seq) && seq[e].Op() == sdma.OpCCE && seq[e].OpType() == d.OpType() && !isEvtSem(seq[e].BufPtr()) &&
				sameDtypes(&seq[e], d) && local(seq[e].BufPtr(), pb) == a+uint64(n) {
				n += seq[e].Length()
				e++
			}
			off, err = x.cce(q.dst, d, a, n, q.stream, off)
			for j := k + 1; j < e; j++ {
				x.s2mStart(q, seq[j]) // counted and traced; none is a completion
			}
			wrote, k = wrote+n, e-1
		} else {
			// plain writes that continue each other in memory: one access
			e := k + 1
			for e < len(seq) && seq[e].Op() != sdma.OpCCE && !isEvtSem(seq[e].BufPtr()) && local(seq[e].BufPtr(), pb) == a+uint64(n) {
				n += seq[e].Length()
				e++
			}
			err = byRun(seq[k:e], pb, a, q.stream[off:off+n], q.dst.Write)
			for j := k + 1; j < e; j++ {
				x.s2mStart(q, seq[j]) // counted and traced; none is a completion
			}
			off, wrote, k = off+n, wrote+n, e-1
		}
		if err != nil { // cannot happen: checked above
			return &Fault{Mnemonic: name, DMA: q.q.DMA, Queue: q.q.Queue, Leg: "S2M", Desc: -1, Addr: d.BufPtr(), Err: err}
		}
	}
	if x.Stats.S2MBytes += uint64(wrote); wrote > 0 {
		x.queueBytes(q.q.DMA, wrote)
	}
	return nil
}

// arenaFor readies the machine's scratch arena for a word that takes need
// bytes of it: kept from word to word, so a word's M2S streams and DRE turns
// reuse the memory of the words before instead of allocating and zeroing it
// anew, and one allocation (huge pages when large) serves all its queues.
func (x *Machine) arenaFor(need int) {
	if cap(x.arena) < need {
		x.arena = hugemem.Bytes(need)
	}
	x.arena = x.arena[:0]
}

// scratch is the next n bytes of the arena (contents undefined).
func (x *Machine) scratch(n int) []byte {
	k := len(x.arena)
	if cap(x.arena)-k < n { // more than arenaFor was told: a buffer of its own
		return make([]byte, n)
	}
	x.arena = x.arena[:k+n]
	return x.arena[k : k+n : k+n]
}

// newQueue is the engines' state for work w, its rings of size slots.
func (x *Machine) newQueue(w *Work, size int) *queue {
	if x.nqueue == len(x.queues) { // a word's queues (16 for a copy over every DMA engine) allocated once, not each word
		x.queues = append(x.queues, new(queue))
	}
	q := x.queues[x.nqueue]
	x.nqueue++
	*q = queue{q: &w.Queue, semInc: w.SemInc, turn: w.Turn, dst: x.Mem, tiles: w.tiles}
	if w.DstMem != nil {
		q.dst = w.DstMem
	}
	q.m2s.size, q.s2m.size = size, size
	q.m2s.inline, q.s2m.inline = w.Inline, w.Inline
	return q
}

// rung is the leg (0 M2S, 1 S2M), ring and descriptor list a doorbell
// register rings; ok is false for a register that is not a doorbell.
func (q *queue) rung(reg string) (leg int, r *ring, list []sdma.Desc, ok bool) {
	switch reg {
	case "TDRTP_inc":
		return 0, &q.m2s, q.q.M2S, true
	case "RDRTP_inc":
		return 1, &q.s2m, q.q.S2M, true
	}
	return 0, nil, nil, false
}

// s2mStart counts and traces an S2M descriptor; a completion descriptor is
// applied here, and done reports it (it moves no stream bytes).
func (x *Machine) s2mStart(q *queue, d sdma.Desc) (done bool) {
	x.Stats.Descriptors++
	if x.Tracing {
		t := d // copied here: only a traced descriptor escapes
		x.Tracef("DMA[%d] S2M %s", q.q.DMA, &t)
	}
	if isEvtSem(d.BufPtr()) {
		x.semWrite(d.BufPtr(), int32(q.semInc))
		return true
	}
	return false
}

// queueBytes counts bytes an engine's S2M wrote.
func (x *Machine) queueBytes(dma, n int) {
	if x.Stats.QueueBytes == nil {
		x.Stats.QueueBytes = map[int]uint64{}
	}
	x.Stats.QueueBytes[dma] += uint64(n)
}

// isEvtSem reports an address in core 0's EVT_SEM block (field-tables §7,
// §11.2: isa.EvtSemBase up to isa.EvtSemEnd).
func isEvtSem(soc uint64) bool { return soc >= isa.EvtSemBase && soc < isa.EvtSemEnd }

// semWrite is a 4-byte write into the EVT_SEM block: SET, INC or DEC a
// semaphore, or set an event (field-tables §7) — reported as the word's
// change, landed by the scheduler at the DMA's completion.
func (x *Machine) semWrite(soc uint64, v int32) {
	c := control.Change{Mem: x.Mem}
	switch {
	case soc >= isa.EvtSemDecBase:
		c.Idx, c.Add = int((soc-isa.EvtSemDecBase)/isa.EvtSemIndexSize%256), -v
	case soc >= isa.EvtSemIncBase:
		c.Idx, c.Add = int((soc-isa.EvtSemIncBase)/isa.EvtSemIndexSize%256), v
	case soc >= isa.EvtSemSetBase:
		c.Idx, c.Set, c.Value = int((soc-isa.EvtSemSetBase)/isa.EvtSemIndexSize%256), true, v
	case soc < isa.EvtSemReadBase: // the event window; READ writes nothing
		c.Idx, c.Event, c.Set, c.Value = int((soc-isa.EvtSemBase)/isa.EvtSemIndexSize%256), true, true, v&1
	default:
		return
	}
	x.eff.Changes = append(x.eff.Changes, c)
}

// balance: the streams carry equal bytes, or — through a CCE cast or
// compute — equal elements.
func balance(q *sdma.Queue, in, out uint64) error {
	cce := len(q.M2S) > 0 && q.M2S[0].Op() == sdma.OpCCE
	for k := range q.S2M { // an S2M CCE descriptor casts what a CCE M2S leg of its dtypes carries, whole scalars (raw descriptors: DMA_IMMEDIATE, RunWork)
		d := &q.S2M[k]
		if isEvtSem(d.BufPtr()) {
			continue
		}
		if d.Op() != sdma.OpCCE {
			if cce {
				return fmt.Errorf("S2M descriptor %d is not CCE, the M2S leg is: %w", k, ErrStream)
			}
			continue
		}
		di, do := d.Dtypes()
		if !cce {
			return fmt.Errorf("S2M descriptor %d is CCE (%s → %s), the M2S leg is not: %w", k, isa.DType().Format(uint64(di)), isa.DType().Format(uint64(do)), ErrStream)
		}
		if mi, mo := q.M2S[0].Dtypes(); mi != di || mo != do {
			return fmt.Errorf("S2M descriptor %d casts %s → %s, the M2S leg %s → %s: %w", k, isa.DType().Format(uint64(di)), isa.DType().Format(uint64(do)),
				isa.DType().Format(uint64(mi)), isa.DType().Format(uint64(mo)), ErrStream)
		}
		if so, ok := num.Size(do); ok && d.Length()%so != 0 {
			return fmt.Errorf("S2M descriptor %d: %d bytes are no whole number of %d-byte %s scalars: %w", k, d.Length(), so, isa.DType().Format(uint64(do)), ErrStream)
		}
	}
	if cce {
		di, do := q.M2S[0].Dtypes()
		si, ok1 := num.Size(di)
		so, ok2 := num.Size(do)
		if !ok1 || !ok2 {
			return fmt.Errorf("CCE dtypes %s → %s: %w", isa.DType().Format(uint64(di)), isa.DType().Format(uint64(do)), ErrUnsupported)
		}
		if in%uint64(si) != 0 || out%uint64(so) != 0 || in/uint64(si) != out/uint64(so) {
			return fmt.Errorf("M2S %d bytes of %d-byte elements, S2M %d bytes of %d-byte elements: %w", in, si, out, so, ErrStream)
		}
		return nil
	}
	if in != out {
		return fmt.Errorf("M2S %d bytes, S2M %d bytes: %w", in, out, ErrStream)
	}
	return nil
}

// sameDtypes: two CCE descriptors cast between the same DTYPEs.
func sameDtypes(a, b *sdma.Desc) bool {
	ai, ao := a.Dtypes()
	bi, bo := b.Dtypes()
	return ai == bi && ao == bo
}

// cce writes the n bytes of CCE descriptors d and those after it that
// continue it (its type and dtypes) at a from the stream at off and returns
// the stream's new offset: each scalar cast (EXT) or combined with the
// destination's current value (ADD, FMA = multiply, MAX, MIN) —
// internal/num.ApplySlice, as ref — in memory's own backing where the
// scalars are aligned.
func (x *Machine) cce(m *mem.Memory, d *sdma.Desc, a uint64, n int, stream []byte, off int) (int, error) {
	in, out := d.Dtypes()
	si, _ := num.Size(in)
	so, _ := num.Size(out)
	src := stream[off : off+n/so*si]
	op := isa.DGEComputeOpNone
	if t := d.OpType(); t != sdma.CCEExt {
		op = isa.DGEComputeOpAdd + isa.DGEComputeOpCode(t) // CCE ADD/FMA/MAX/MIN are compute_op ADD/MULTIPLY/MAX/MIN (sdma opOf)
	}
	if a%uint64(so) == 0 { // scalars aligned: memory's pieces end between them, so they convert in place
		var aerr error
		conv := func(dd []byte, o int) {
			if aerr == nil {
				aerr = num.ApplySlice(uint8(op), in, out, dd, src[o/so*si:])
			}
		}
		var err error
		if op == isa.DGEComputeOpNone {
			err = m.Fill(a, n, conv)
		} else {
			err = m.Combine(a, n, func(dd, old []byte, o int) { // with what the writes before left
				if aerr == nil {
					aerr = num.ApplySliceFrom(uint8(op), in, out, dd, old, src[o/so*si:])
				}
			})
		}
		return off + len(src), cmp.Or(err, aerr)
	}
	res := make([]byte, n)
	if op != isa.DGEComputeOpNone {
		if err := m.Read(a, res); err != nil {
			return off, err
		}
	}
	if err := num.ApplySlice(uint8(op), in, out, res, src); err != nil {
		return off, err
	}
	return off + len(src), m.Write(a, res)
}

// dre turns the tiles of a transpose stream (the DRE contract of docs/lower.md):
// M2S carries each tile's rows in order, S2M takes its columns. Tiles are
// tile_src_rows × tile_src_cols elements (edge tiles smaller) for
// DMA_TRANSPOSE, and blocks of 16 gathered rows × L for DMA_GATHER_TRANSPOSE.
// keep (nil: all) is the lowering's mask of the elements quiet bounds left
// in the streams (src row-major): a tile carries only those, in the same
// orders.
//
// out (len(in) bytes) receives the turned stream.
func dre(p *dge.Program, ch *dge.Channel, keep []bool, in, out []byte) []byte {
	es := int(ch.Src.ElemSize)
	var rows, cols, tr, tc int
	switch p.Kind {
	case dge.KindTranspose:
		rows, cols = int(ch.Src.Num[1]), int(ch.Src.Num[0])
		r, c := p.Tile.Rows, p.Tile.Cols
		tr, tc = int(r), int(c)
	case dge.KindGatherTranspose:
		rows, cols = int(ch.Src.Num[1]), int(ch.Dst.Num[1])
		tr, tc = 16, cols
	default:
		return in
	}
	var at []int // a masked tile's elements: where each sits in the stream (−1: not there)
	o := 0
	for rb := 0; rb < rows; rb += tr {
		h := min(tr, rows-rb)
		for cb := 0; cb < cols; cb += tc {
			w := min(tc, cols-cb)
			if keep == nil {
				turn(out[o:o+h*w*es], in[o:o+h*w*es], h, w, es)
				o += h * w * es
				continue
			}
			at = at[:0]
			q := o
			for r := 0; r < h; r++ {
				for c := 0; c < w; c++ {
					if keep[(rb+r)*cols+cb+c] {
						at, q = append(at, q), q+es
					} else {
						at = append(at, -1)
					}
				}
			}
			for c := 0; c < w; c++ {
				for r := 0; r < h; r++ {
					if s := at[r*w+c]; s >= 0 {
						copy(out[o:o+es], in[s:s+es])
						o += es
					}
				}
			}
		}
	}
	return out
}

// turn writes the h × w tile of es-byte elements in (row-major) into out
// column by column: out(c, r) = in(r, c). The 2- and 4-byte elements move
// as words, not as a copy call each; 2-byte tiles of multiples of 8 rows
// and columns as 8 × 8 blocks in registers (turn8).
func turn(out, in []byte, h, w, es int) {
	switch {
	case canTurn8(h, w, es) && h <= 64 && w <= 512:
		turnTile8(out, in, h, w)
	case es == 2 && h%4 == 0:
		turn2x4(out[:2*h*w], in[:2*h*w], h, w)
	case es == 2:
		for c := 0; c < w; c++ {
			col := out[2*c*h : 2*(c+1)*h]
			for r := range h {
				binary.LittleEndian.PutUint16(col[2*r:], binary.LittleEndian.Uint16(in[2*(r*w+c):]))
			}
		}
	case es == 4:
		for c := 0; c < w; c++ {
			col := out[4*c*h : 4*(c+1)*h]
			for r := range h {
				binary.LittleEndian.PutUint32(col[4*r:], binary.LittleEndian.Uint32(in[4*(r*w+c):]))
			}
		}
	default:
		for c := 0; c < w; c++ {
			for r := 0; r < h; r++ {
				copy(out[(c*h+r)*es:(c*h+r+1)*es], in[(r*w+c)*es:])
			}
		}
	}
}

// turn2x4 is turn of 2-byte elements, h a multiple of 4: four columns of
// four rows are four 8-byte loads turned in registers, and a column's h
// elements are stored one after another (its line written whole before the
// next column's; an SBUF transpose's 16-row tiles: issue 17).
func turn2x4(out, in []byte, h, w int) {
	in = in[:2*h*w]
	c := 0
	for ; c+4 <= w; c += 4 {
		o0, o1, o2, o3 := 2*c*h, 2*(c+1)*h, 2*(c+2)*h, 2*(c+3)*h
		for r, i := 0, 2*c; r < h; r, i = r+4, i+8*w {
			// four rows of four 2-byte elements turned in registers: cj holds
			// element j of a0, a1, a2, a3 (written out: a call is not inlined)
			a0, a1 := binary.LittleEndian.Uint64(in[i:]), binary.LittleEndian.Uint64(in[i+2*w:])
			a2, a3 := binary.LittleEndian.Uint64(in[i+4*w:]), binary.LittleEndian.Uint64(in[i+6*w:])
			t0, t1 := a0&lanes02|(a1&lanes02)<<16, a0>>16&lanes02|a1&^lanes02
			t2, t3 := a2&lanes02|(a3&lanes02)<<16, a2>>16&lanes02|a3&^lanes02
			binary.LittleEndian.PutUint64(out[o0+2*r:o0+2*r+8], t0&0xffffffff|t2<<32)
			binary.LittleEndian.PutUint64(out[o1+2*r:o1+2*r+8], t1&0xffffffff|t3<<32)
			binary.LittleEndian.PutUint64(out[o2+2*r:o2+2*r+8], t0>>32|t2&^0xffffffff)
			binary.LittleEndian.PutUint64(out[o3+2*r:o3+2*r+8], t1>>32|t3&^0xffffffff)
		}
	}
	for ; c < w; c++ {
		o := 2 * c * h
		for r := 0; r < h; r++ {
			binary.LittleEndian.PutUint16(out[o+2*r:], binary.LittleEndian.Uint16(in[2*(r*w+c):]))
		}
	}
}

// lanes02 selects 16-bit lanes 0 and 2 of a word.
const lanes02 = 0x0000ffff0000ffff

// streamFree reports whether the stream can be skipped: plain copies (no
// DRE, no CCE) whose writes touch no byte any queue reads, so moving each
// run straight from its source is the same as reading everything first.
func (x *Machine) streamFree(qs []*queue) bool {
	// first the two extents alone: apart (a table and its gathered copy, a
	// strided source and its packed copy), no span list is built at all
	hulls, n := [2]span{{lo: ^uint64(0)}, {lo: ^uint64(0)}}, [2]int{}
	for _, q := range qs {
		if q.turn != nil || q.dst != x.Mem {
			return false
		}
		for leg, r := range []*ring{&q.m2s, &q.s2m} {
			for _, d := range r.seq {
				if leg == 1 && isEvtSem(d.BufPtr()) {
					continue
				}
				if d.Op() != sdma.OpCME {
					return false
				}
				h := &hulls[leg]
				h.lo, h.hi = min(h.lo, d.BufPtr()), max(h.hi, d.BufPtr()+uint64(d.Length()))
				n[leg]++
			}
		}
	}
	if n[0] == 0 || n[1] == 0 || hulls[0].hi <= hulls[1].lo || hulls[1].hi <= hulls[0].lo {
		return true
	}
	reads, writes := make([]span, 0, n[0]), make([]span, 0, n[1])
	for _, q := range qs {
		for leg, r := range []*ring{&q.m2s, &q.s2m} {
			for _, d := range r.seq {
				if leg == 1 && isEvtSem(d.BufPtr()) {
					continue
				}
				sp := span{d.BufPtr(), d.BufPtr() + uint64(d.Length())}
				if leg == 0 {
					reads = append(reads, sp)
				} else {
					writes = append(writes, sp)
				}
			}
		}
	}
	if len(reads)*len(writes) > 1<<16 {
		return !overlapSorted(reads, writes)
	}
	for _, w := range writes {
		for _, r := range reads {
			if w.lo < r.hi && r.lo < w.hi {
				return false
			}
		}
	}
	return true
}

type span struct{ lo, hi uint64 }

// overlapSorted: does any write span meet any read span (a sorted sweep;
// conservative — it may report an overlap that is not there, never misses one).
func overlapSorted(reads, writes []span) bool {
	slices.SortFunc(reads, func(a, b span) int { return cmp.Compare(a.lo, b.lo) })
	slices.SortFunc(writes, func(a, b span) int { return cmp.Compare(a.lo, b.lo) })
	i := 0
	var reach uint64 // the furthest end of reads starting before the current write's end
	for _, w := range writes {
		for i < len(reads) && reads[i].lo < w.hi {
			reach = max(reach, reads[i].hi)
			if reads[i].hi > w.lo && reads[i].lo < w.hi {
				return true
			}
			i++
		}
		if reach > w.lo {
			return true
		}
	}
	return false
}

// direct moves each queue's M2S runs straight into its S2M runs, chunk by
// chunk, with the completion writes in their places.
func (x *Machine) direct(qs []*queue) error {
	// consecutive chunks that continue each other on both sides move as one;
	// moves of one length are batched, in order, into one CopyRows (a
	// gather's rows: one call per 4096, not one per index)
	var pd, ps uint64
	var pn int
	const batch = 4096
	if cap(x.rows[0]) < batch {
		x.rows = [2][]uint64{make([]uint64, 0, batch), make([]uint64, 0, batch)}
	}
	da, sa := x.rows[0][:0], x.rows[1][:0]
	bn := 0
	rows := func() error {
		if len(da) == 0 {
			return nil
		}
		_, err := x.Mem.CopyRows(da, sa, bn)
		da, sa = da[:0], sa[:0]
		return err
	}
	// moves of bn bytes a constant step apart on both sides (a strided
	// leg's rows) are held as a progression and go as one mem.CopyStrided
	// when long: no address, batch and lookup per row, as ref moves them
	var g struct {
		d, s   uint64
		ds, ss int64
		k      int
	}
	emit := func() error {
		if g.k >= 64 {
			if err := rows(); err != nil { // the rows before it first: moves keep their order
				return err
			}
			_, err := x.Mem.CopyStrided(g.d, g.ds, g.s, g.ss, bn, g.k)
			g.k = 0
			return err
		}
		for i := range g.k {
			if len(da) == batch {
				if err := rows(); err != nil {
					return err
				}
			}
			da, sa = append(da, g.d+uint64(int64(i)*g.ds)), append(sa, g.s+uint64(int64(i)*g.ss))
		}
		g.k = 0
		return nil
	}
	flush := func() error {
		if pn == 0 {
			return nil
		}
		if pn != bn {
			if err := emit(); err != nil {
				return err
			}
			if err := rows(); err != nil {
				return err
			}
			bn = pn
		}
		switch {
		case g.k == 0:
			g.d, g.s, g.k = pd, ps, 1
		case g.k == 1:
			g.ds, g.ss, g.k = int64(pd-g.d), int64(ps-g.s), 2
		case pd == g.d+uint64(int64(g.k)*g.ds) && ps == g.s+uint64(int64(g.k)*g.ss):
			g.k++
		default:
			if err := emit(); err != nil {
				return err
			}
			g.d, g.s, g.k = pd, ps, 1
		}
		pn = 0
		return nil
	}
	pb := x.Mem.Map.PSUMBase
	for _, q := range qs {
		src := q.m2s.seq
		si, so := 0, 0 // current M2S descriptor and offset in it
		var sl int     // its length and address
		var sb uint64
		if len(src) > 0 {
			l, _, _, _, b := src[0].Head()
			sl, sb = l, local(b, pb)
		}
		wrote := 0
		for k := range q.s2m.seq {
			d := &q.s2m.seq[k]
			if x.s2mStart(q, *d) {
				continue
			}
			dl, db := d.Length(), local(d.BufPtr(), pb)
			for do := 0; do < dl; {
				n := min(dl-do, sl-so)
				if dd, ss := db+uint64(do), sb+uint64(so); pn > 0 && dd == pd+uint64(pn) && ss == ps+uint64(pn) {
					pn += n
				} else {
					if err := flush(); err != nil {
						return err // cannot happen: checked
					}
					pd, ps, pn = dd, ss, n
				}
				do, so = do+n, so+n
				if so == sl {
					if x.Tracing {
						t := src[si] // copied here: only a traced descriptor escapes
						x.Tracef("DMA[%d] M2S %s", q.q.DMA, &t)
					}
					if si, so = si+1, 0; si < len(src) {
						l, _, _, _, b := src[si].Head()
						sl, sb = l, local(b, pb)
					}
				}
			}
			wrote += dl
		}
		x.Stats.Descriptors += si
		x.Stats.M2SBytes += uint64(q.m2sBytes)
		if x.Stats.S2MBytes += uint64(wrote); wrote > 0 {
			x.queueBytes(q.q.DMA, wrote)
		}
	}
	if err := flush(); err != nil {
		return err
	}
	err := emit()
	if err == nil {
		err = rows()
	}
	x.rows = [2][]uint64{da[:0], sa[:0]}
	return err
}
