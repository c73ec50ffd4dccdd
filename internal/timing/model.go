package timing

import (
	"fmt"
	"slices"
)

// Mem is where one side of a transfer is: HBM or a core's SBUF.
type Mem uint8

const (
	HBM Mem = iota
	SB
)

func (m Mem) String() string { return [...]string{"HBM", "SB"}[m] }

// Run is one descriptor of a block as the engines see it: Count rows of
// Bytes contiguous bytes each (the innermost run of the written side,
// repeated over its outer dimensions). Contiguous: on the DRAM side the
// rows follow one another (row stride = row bytes), so an engine's share
// is one stretch of DRAM (hw-timing §2.1). Element > 0: the copy reads one
// element of that many bytes at a time (DRAM → DRAM with an innermost run
// of one element: C1), one descriptor per element.
type Run struct {
	Bytes, Count int64
	Contiguous   bool
	Element      int64
}

// Transfer is one dma[] block, or one inline DGE word (Inline), as the
// engines see it: its descriptors in
// order, where it reads and writes, and how many engines its queue
// spreads it over.
type Transfer struct {
	Queue    string
	Block    int
	Engines  int // the queue's num_queues (0: Params.Engines)
	From, To Mem
	Rows     []Run
	Cast     bool // a cast (dtypes differ): one row a packet, the semaphore its own packet
	// WideSemaphore: the semaphore write riding on each engine's last
	// packet is twice SemaphoreBytes (hw-timing §2.1 "some blocks carry
	// +8 B": conv2d_2's reloads, 2056 = 2048 + 8).
	WideSemaphore bool
	Issuer        string // the engine whose trigger fires it (the queue's owner: "sp", "pool", "act")
	// Inline: an inline DGE word, not a dma[] block (Block is -1): the
	// engines get its descriptors from the issuer's DGE, which runs one
	// word at a time, DGEWordNS each (Params.DGEWordNS), and its rows are
	// already spread over the engines — Shares[i] is engine
	// ShareEngines[i]'s (the lowered word's channel to that DMA engine).
	Inline       bool
	Shares       [][]Run
	ShareEngines []int
}

// Bytes is the data the transfer writes (its rows).
func (t *Transfer) Bytes() int64 {
	var n int64
	for _, r := range t.Rows {
		n += r.Bytes * r.Count
	}
	for _, sh := range t.Shares {
		for _, r := range sh {
			n += r.Bytes * r.Count
		}
	}
	return n
}

// Packet is one DMA packet as the model runs it: its engine, bytes (the
// semaphore write included), the rows (or element descriptors) it holds,
// and its three times, as hw-timing's profiles give them (start, data
// done, write done).
type Packet struct {
	Engine                           int
	Bytes, Rows                      int64
	Elements                         int64 // element descriptors it carries (C1); 0: rows
	StartNS, DataDoneNS, WriteDoneNS int64

	last   bool // its engine's last packet of the block (the semaphore write)
	behind bool // a semaphore packet of its own: it follows its block's last packet on the engine, no other queue's packet between (docs/sim.md "Packet timing", C4)
	packed bool // whole rows packed from a strided DRAM side or SB → SB (RowDataNS a row past the first)
}

// Result is one transfer's timing: its window, from its first packet's
// start to its last packet's write done, and its packets (Model.Keep).
type Result struct {
	StartNS, EndNS int64
	NPackets       int
	Bytes          int64 // packet bytes, semaphore writes included
	Packets        []Packet
}

// pend is a packet waiting on its engine for its turn.
type pend struct {
	pk     Packet
	flight int
	ready  int64 // the earliest it may start (its transfer's trigger latency and stagger)
}

// engState is what one DMA engine's next packet depends on.
type engState struct {
	data, write int64   // data path free (data done of the last packet), last write done
	recent      []write // the packets whose writes may be outstanding, oldest first
	rr          int     // the queue served last (round robin), -1: none
	qdata       []int64 // per queue: its last packet's data done here (+1; 0: none)
}

// write is a packet's write done and its descriptors.
type write struct{ wd, descs int64 }

// planned is a pending packet's tentative turn.
type planned struct {
	q             int // queue index
	start, dd, wd int64
	flight        int
}

// engine is one DMA engine: its committed state, the packets waiting per
// queue (in each queue's trigger order), and the tentative plan of them;
// tail is the state after the plan and heads how far it went in each
// queue, so a plan can be carried on (extend).
type engine struct {
	st     engState
	queues [][]pend
	plan   []planned
	tail   engState
	heads  []int
}

// flight is a fired transfer whose packets are not all committed.
type flight struct {
	t        *Transfer
	pending  int
	res      Result
	planEnd  int64
	finished bool
}

// Model is one core's DMA engines. A fired transfer's packets wait on
// their engines; each engine serves the queues that have a packet ready
// round robin, one packet each (C4: hw-timing §2.4), its packets' data
// phases back to back, its writes completing one at a time in order (C3,
// §2.3), a data phase waiting until the packet WriteBuffer back has
// written (C1/C2, §2.5–2.6). A packet's turn is final once it has started:
// Fire at time t commits every packet that starts by t and plans the rest
// again with the new transfer (a later trigger can delay a packet that has
// not started: End changes until then).
type Model struct {
	P Params
	// Keep keeps every packet in each Result (the --packets listing).
	Keep    bool
	engines []engine
	qindex  map[string]int
	flights []flight
	// dispatch is when each issuer's next block may reach the engines: the
	// last block's ready time plus its engine share's issue time (Params.DispatchInOrder).
	dispatch map[string]int64
	// dge is when each issuer's DGE is free for its next inline word.
	dge map[string]int64
	// replan: every change plans its engines from scratch (tests: the
	// reference the carried-on plans are held to).
	replan bool
}

// New is a model of idle engines with p's constants.
func New(p Params) *Model {
	m := &Model{P: p, qindex: map[string]int{}, dispatch: map[string]int64{}, dge: map[string]int64{}}
	m.grow(max(p.Engines, 1))
	return m
}

func (m *Model) grow(n int) {
	for len(m.engines) < n {
		m.engines = append(m.engines, engine{st: engState{rr: -1}, tail: engState{rr: -1}}) // an empty plan: its tail is the committed state
	}
}

// maxEngines bounds a queue's num_queues (a NEFF field: untrusted).
const maxEngines = 1024

// maxPackets bounds one transfer's packets (a resolved block is far
// smaller): a NEFF's sizes are untrusted.
const maxPackets = 1 << 24

// Fire fires transfer t at issueNS and returns its id: every packet that
// starts by issueNS is committed, t's packets join their engines' queues,
// the rest is planned again. It fails only on a transfer no engine can
// run.
func (m *Model) Fire(t *Transfer, issueNS int64) (int, error) {
	p := &m.P
	n := t.Engines
	if n <= 0 {
		n = p.Engines
	}
	if t.Shares != nil {
		if len(t.ShareEngines) != len(t.Shares) {
			return 0, fmt.Errorf("queue %s: %d shares on %d engines", t.Queue, len(t.Shares), len(t.ShareEngines))
		}
		n = 0
		for _, e := range t.ShareEngines {
			if e < 0 || e >= maxEngines {
				return 0, fmt.Errorf("queue %s: DMA engine %d: at most %d", t.Queue, e, maxEngines)
			}
			n = max(n, e+1)
		}
	}
	if n > maxEngines {
		return 0, fmt.Errorf("queue %s: %d engines (num_queues): at most %d", t.Queue, n, maxEngines)
	}
	var total int64
	for _, r := range t.allRuns() {
		if r.Bytes <= 0 || r.Count < 0 || r.Element < 0 {
			return 0, fmt.Errorf("queue %s block %d: a run of %d rows of %d bytes", t.Queue, t.Block, r.Count, r.Bytes)
		}
		if packets := r.Bytes / max(p.MaxPacketBytes, 1) * r.Count; packets > maxPackets || r.Count > maxPackets || total > maxPackets {
			return 0, fmt.Errorf("queue %s block %d: over %d packets", t.Queue, t.Block, maxPackets)
		}
		total += r.Count
		if r.Element > 0 {
			total += r.Bytes / r.Element * r.Count / max(p.ElementsPerPacket, 1)
		}
	}
	m.commit(issueNS)
	m.grow(n)
	q, ok := m.qindex[t.Queue]
	if !ok {
		q = len(m.qindex)
		m.qindex[t.Queue] = q
	}
	id := len(m.flights)
	m.flights = append(m.flights, flight{t: t, res: Result{StartNS: -1}})
	ready := issueNS + p.TriggerNS
	if isEngine(t.Issuer, "sp") {
		ready = issueNS + p.TriggerSPNS
	}
	stagger := p.StaggerSBNS
	if t.From == HBM {
		stagger = p.StaggerHBMNS
	}
	if t.Inline { // the issuer's DGE writes the word's descriptors first, one word at a time (DGEWordNS)
		at := max(issueNS, m.dge[t.Issuer]) + p.DGEWordNS
		m.dge[t.Issuer] = at
		ready += at - issueNS
	}
	var buf []Packet
	if t.Shares != nil { // spread over the engines already: each share on its engine, staggered in order
		for i, e := range t.ShareEngines {
			buf = m.own(buf[:0], t, t.Shares[i])
			m.queue(e, q, id, buf, ready+int64(i)*stagger)
		}
		m.ends()
		return id, nil
	}
	if p.DispatchInOrder { // the issuer hands its blocks over one at a time
		ready = max(ready, m.dispatch[t.Issuer])
		buf = m.share(buf[:0], t, 0, n)
		var bytes int64
		for _, pk := range buf {
			bytes += pk.Bytes
		}
		m.dispatch[t.Issuer] = ready + p.DataTime(bytes, t.To)
	}
	for e := 0; e < n; e++ {
		buf = m.share(buf[:0], t, e, n)
		m.queue(e, q, id, buf, ready+int64(e)*stagger)
	}
	m.ends()
	return id, nil
}

// queue puts packets pks of transfer id on engine e's queue q, ready at
// at, and plans the engine again.
func (m *Model) queue(e, q, id int, pks []Packet, at int64) {
	eng := &m.engines[e]
	for len(eng.queues) <= q {
		eng.queues = append(eng.queues, nil)
	}
	for _, pk := range pks {
		pk.Engine = e
		eng.queues[q] = append(eng.queues[q], pend{pk: pk, flight: id, ready: at})
	}
	m.flights[id].pending += len(pks)
	m.extend(e, q)
}

// extend plans engine e again after packets joined its queue q: when q is
// the only queue with packets waiting there, the plan carries on from its
// tail (round robin has nothing to interleave: the same turns a full plan
// would give, without replaying the backlog); else planEngine.
func (m *Model) extend(e, q int) {
	eng := &m.engines[e]
	if m.replan {
		m.planEngine(e)
		return
	}
	for k := range eng.queues {
		if k != q && len(eng.queues[k]) > 0 {
			m.planEngine(e)
			return
		}
	}
	for len(eng.heads) < len(eng.queues) {
		eng.heads = append(eng.heads, 0)
	}
	st := &eng.tail
	for eng.heads[q] < len(eng.queues[q]) {
		pd := &eng.queues[q][eng.heads[q]]
		s, dd, wd := m.P.serve(st, q, &pd.pk, pd.ready, m.flights[pd.flight].t)
		st.rr = q
		eng.plan = append(eng.plan, planned{q: q, start: s, dd: dd, wd: wd, flight: pd.flight})
		eng.heads[q]++
	}
}

// allRuns is every run of t's rows and shares.
func (t *Transfer) allRuns() []Run {
	if t.Shares == nil {
		return t.Rows
	}
	var rs []Run
	for _, sh := range t.Shares {
		rs = append(rs, sh...)
	}
	return rs
}

// End is transfer id's last write done as planned now (final once every
// packet of it has started: by then no later trigger can move it).
func (m *Model) End(id int) int64 {
	fl := &m.flights[id]
	return max(fl.res.EndNS, fl.planEnd)
}

// Finish commits every packet: the Results are final.
func (m *Model) Finish() { m.commit(1<<62 - 1) }

// Result is transfer id's timing (final after Finish).
func (m *Model) Result(id int) Result { return m.flights[id].res }

// Fired is how many transfers have been fired.
func (m *Model) Fired() int { return len(m.flights) }

// Time runs transfer t alone on idle engines fired at issueNS: its final
// timing (a model of its own, p's constants).
func Time(p Params, t *Transfer, issueNS int64, keep bool) (Result, error) {
	m := New(p)
	m.Keep = keep
	id, err := m.Fire(t, issueNS)
	if err != nil {
		return Result{}, err
	}
	m.Finish()
	return m.Result(id), nil
}

// serve runs packet pk (ready at ready) next on an engine in state st:
// its start, data done and write done.
func (p *Params) serve(st *engState, q int, pk *Packet, ready int64, t *Transfer) (start, dd, wd int64) {
	start = max(ready, st.data)
	for len(st.qdata) <= q {
		st.qdata = append(st.qdata, 0)
	}
	if st.qdata[q] > 0 { // the queue's own next packet: BackToBackNS after its last (another queue's may run meanwhile)
		gap := p.BackToBackNS
		if isEngine(t.Issuer, "sp") {
			gap = p.BackToBackSPNS
		}
		start = max(start, st.qdata[q]-1+gap)
	}
	descs := max(pk.Elements, pk.Rows, 1)
	if p.WriteBuffer > 0 { // the writes still outstanding may hold WriteBuffer descriptors, this one's included
		sum := descs
		for k := len(st.recent) - 1; k >= 0; k-- {
			if sum += st.recent[k].descs; sum > p.WriteBuffer {
				start = max(start, st.recent[k].wd)
				break
			}
		}
	}
	data := p.dataTime(pk, t)
	dd = start + data
	lag := p.Lag(t.To, pk.last)
	if pk.packed && t.To == HBM && pk.Rows > 1 { // strided DRAM rows written one by one (RowLagNS)
		lag += p.RowLagNS * (pk.Rows - 1)
	}
	wd = max(dd+lag, st.write+p.WriteHold(pk))
	st.data, st.write, st.qdata[q] = dd, wd, dd+1
	if t.Cast && p.CastIssueNS > 0 { // a cast row's data phase runs beside the next packets (hw-timing §2.4: 10 ns apart)
		st.data = start + min(p.CastIssueNS, data)
		st.qdata[q] = st.data + 1
	}
	if p.WriteBuffer > 0 {
		k := 0 // drop the writes done by this start: they hold nothing
		for k < len(st.recent) && st.recent[k].wd <= start {
			k++
		}
		st.recent = append(st.recent[:0], st.recent[k:]...)
		st.recent = append(st.recent, write{wd, descs})
	}
	return start, dd, wd
}

// dataTime is packet pk's data time (start → data done) in transfer t.
func (p *Params) dataTime(pk *Packet, t *Transfer) int64 {
	if pk.Elements > 0 {
		return round(float64(pk.Elements) * p.ElementDataNS)
	}
	return p.DataTime(pk.Bytes, t.To)
}

// choose is the queue engine e serves next at time t from state st, with
// heads[q] the next pending packet of queue q: round robin from the one
// after the last served among those ready by t, else the earliest ready.
// -1: nothing pending.
func (eng *engine) choose(st *engState, heads []int, t int64) int {
	nq := len(eng.queues)
	if q := st.rr; q >= 0 && q < nq && heads[q] < len(eng.queues[q]) && eng.queues[q][heads[q]].pk.behind && eng.queues[q][heads[q]].ready <= t {
		return q // a semaphore packet of its own stays behind its block's last packet, as trn2's rides inside it (RATIONALE.md)
	}
	best, bestReady := -1, int64(0)
	for k := 1; k <= nq; k++ {
		q := (st.rr + k) % nq
		if q < 0 {
			q += nq
		}
		if heads[q] >= len(eng.queues[q]) {
			continue
		}
		r := eng.queues[q][heads[q]].ready
		if r <= t {
			return q
		}
		if best < 0 || r < bestReady {
			best, bestReady = q, r
		}
	}
	return best
}

// planEngine plans engine e's pending packets from its committed state.
func (m *Model) planEngine(e int) {
	eng := &m.engines[e]
	st := eng.st
	st.recent, st.qdata = slices.Clone(st.recent), slices.Clone(st.qdata)
	heads := make([]int, len(eng.queues))
	eng.plan = eng.plan[:0]
	for {
		q := eng.choose(&st, heads, st.data)
		if q < 0 {
			eng.tail, eng.heads = st, heads
			return
		}
		pd := &eng.queues[q][heads[q]]
		s, dd, wd := m.P.serve(&st, q, &pd.pk, pd.ready, m.flights[pd.flight].t)
		st.rr = q
		eng.plan = append(eng.plan, planned{q: q, start: s, dd: dd, wd: wd, flight: pd.flight})
		heads[q]++
	}
}

// ends sets every unfinished transfer's planned end from the plans.
func (m *Model) ends() {
	for i := range m.flights {
		if !m.flights[i].finished {
			m.flights[i].planEnd = 0
		}
	}
	for e := range m.engines {
		for _, pl := range m.engines[e].plan {
			fl := &m.flights[pl.flight]
			fl.planEnd = max(fl.planEnd, pl.wd)
		}
	}
}

// commit makes final every planned packet that starts by now, engine by
// engine in plan order (the plan is what serve gives on the committed
// state: committing replays it).
func (m *Model) commit(now int64) {
	for e := range m.engines {
		eng := &m.engines[e]
		k := 0
		for k < len(eng.plan) && eng.plan[k].start <= now {
			k++
		}
		if k == 0 {
			continue
		}
		popped := make([]int, len(eng.queues))
		for _, pl := range eng.plan[:k] {
			pd := &eng.queues[pl.q][popped[pl.q]]
			popped[pl.q]++
			fl := &m.flights[pd.flight]
			s, dd, wd := m.P.serve(&eng.st, pl.q, &pd.pk, pd.ready, fl.t)
			eng.st.rr = pl.q
			pk := pd.pk
			pk.StartNS, pk.DataDoneNS, pk.WriteDoneNS = s, dd, wd
			r := &fl.res
			if r.StartNS < 0 || s < r.StartNS {
				r.StartNS = s
			}
			r.EndNS = max(r.EndNS, wd)
			r.Bytes += pk.Bytes
			r.NPackets++
			if m.Keep {
				r.Packets = append(r.Packets, pk)
			}
			if fl.pending--; fl.pending == 0 {
				fl.finished, fl.planEnd = true, 0
			}
		}
		for q := range eng.queues {
			eng.queues[q] = eng.queues[q][popped[q]:]
			if q < len(eng.heads) {
				eng.heads[q] -= popped[q]
			}
		}
		// the rest of the plan stands: replanned from the new committed
		// state it would give the same turns (nothing joined meanwhile)
		eng.plan = eng.plan[k:]
		if m.replan {
			m.planEngine(e)
		}
	}
	m.ends()
}

// share appends engine e's packets of t (n engines): each descriptor is
// spread over all the engines separately (C6, hw-timing §2.1: "each
// descriptor is spread over all 16 engines separately (8 rows each)"),
// engine e taking rows [e·N/n, (e+1)·N/n) of each; the semaphore write
// rides on the engine's last packet, or is a packet of its own (trn1,
// casts, element descriptors). An engine with no rows sends the semaphore
// alone.
func (m *Model) share(out []Packet, t *Transfer, e, n int) []Packet {
	p := &m.P
	own, elements := p.SemaphoreOwnPacket || t.Cast, false
	for _, r := range t.Rows {
		lo, hi := int64(e)*r.Count/int64(n), int64(e+1)*r.Count/int64(n)
		if r.Element > 0 {
			own, elements = true, true
		}
		out = p.packets(out, r, hi-lo, t)
	}
	return m.semaphore(out, t, own, elements)
}

// own appends the packets of one engine's rows rs, as an inline DGE word
// gives them (Transfer.Shares), and its semaphore write, as share does.
func (m *Model) own(out []Packet, t *Transfer, rs []Run) []Packet {
	p := &m.P
	own, elements := p.SemaphoreOwnPacket || t.Cast, false
	for _, r := range rs {
		if r.Element > 0 {
			own, elements = true, true
		}
		out = p.packets(out, r, r.Count, t)
	}
	return m.semaphore(out, t, own, elements)
}

// semaphore adds an engine's semaphore write to its packets out: on its
// last packet, or as a packet of its own (own; elements: an element
// descriptor block's).
func (m *Model) semaphore(out []Packet, t *Transfer, own, elements bool) []Packet {
	p := &m.P
	if own || len(out) == 0 {
		// trn1's semaphore packet stays behind the block's last packet, as
		// trn2's rides inside it (RATIONALE.md); a cast's and an element
		// block's take their turn, as before (no profile shows their order)
		behind := len(out) > 0 && p.SemaphoreOwnPacket && !t.Cast && !elements
		return append(out, Packet{Bytes: p.SemaphoreBytes, last: true, behind: behind})
	}
	sem := p.SemaphoreBytes
	if t.WideSemaphore {
		sem *= 2
	}
	out[len(out)-1].Bytes += sem
	out[len(out)-1].last = true
	return out
}

// packets appends the packets of k rows of run r (one engine's share of
// one descriptor), by hw-timing §2.1's laws.
func (p *Params) packets(out []Packet, r Run, k int64, t *Transfer) []Packet {
	if k <= 0 {
		return out
	}
	maxP := max(p.MaxPacketBytes, 1)
	switch {
	case r.Element > 0: // C1: one descriptor per element, ElementsPerPacket a packet
		descs := k * max(r.Bytes/r.Element, 1)
		per := max(p.ElementsPerPacket, 1)
		for descs > 0 {
			d := min(descs, per)
			out = append(out, Packet{Bytes: d * r.Element, Rows: d, Elements: d})
			descs -= d
		}
	case t.Cast: // one row a packet
		for j := int64(0); j < k; j++ {
			out = cut(out, r.Bytes, maxP)
		}
	case r.Contiguous && (t.From == HBM) != (t.To == HBM): // the engine's share: one stretch of DRAM
		s := k * r.Bytes
		if s <= p.PackBytes {
			pk := Packet{Bytes: s, Rows: k}
			return append(out, pk)
		}
		pieces := max(2, (s+maxP-1)/maxP) // "otherwise as two equal packets (never more)": more only past the packet limit
		for i := int64(0); i < pieces; i++ {
			b := s / pieces
			if i == pieces-1 {
				b = s - b*(pieces-1)
			}
			pk := Packet{Bytes: b, Rows: max(k/pieces, 1)}
			out = append(out, pk)
		}
	case r.Bytes > p.PackBytes: // a long row travels whole, cut only past the packet limit
		for j := int64(0); j < k; j++ {
			out = cut(out, r.Bytes, maxP)
		}
	default: // whole rows packed up to PackBytes
		per := max(p.PackBytes/r.Bytes, 1)
		for left := k; left > 0; {
			rows := min(left, per)
			pk := Packet{Bytes: rows * r.Bytes, Rows: rows, packed: true}
			out = append(out, pk)
			left -= rows
		}
	}
	return out
}

// cut appends one row of b bytes as packets of at most maxP bytes.
func cut(out []Packet, b, maxP int64) []Packet {
	for b > 0 {
		n := min(b, maxP)
		out = append(out, Packet{Bytes: n, Rows: 1})
		b -= n
	}
	return out
}

// Join is t and u, two inline DGE words one step issues, as one transfer:
// their shares in order. Either may be nil (not built): then the other.
func (t *Transfer) Join(u *Transfer) *Transfer {
	switch {
	case t == nil:
		return u
	case u == nil:
		return t
	}
	j := *t
	j.Shares = append(slices.Clone(t.Shares), u.Shares...)
	j.ShareEngines = append(slices.Clone(t.ShareEngines), u.ShareEngines...)
	j.Rows = append(slices.Clone(t.Rows), u.Rows...)
	j.Cast = t.Cast || u.Cast
	return &j
}
