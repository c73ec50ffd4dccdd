package sim

import (
	"fmt"

	"ndma/dge"
	"ndma/internal/num"
	"ndma/isa"
	"ndma/sdma"
)

// EVT_SEM windows of core 0 (field-tables §7, §11.2): 4 bytes per index.
const (
	evtSem    = 0x28_0270_0000
	evtSemSet = evtSem + 0x1400
	evtSemInc = evtSem + 0x1800
	evtSemDec = evtSem + 0x1C00
	evtSemEnd = evtSem + 0x2000
)

// ring is one M2S or S2M descriptor ring as the engine drains it: software
// writes descriptors at the tail and rings the doorbell; the engine takes
// them from the head, each slot carrying the phase of the ring's current
// lap (1 on a fresh ring, toggled on every wrap — field-tables §6.2).
type ring struct {
	slots      []sdma.Desc
	head, tail int
	lap        int // wraps of the tail so far
}

// post writes descriptors and rings the doorbell (TDRTP_inc / RDRTP_inc).
func (r *ring) post(ds []sdma.Desc) error {
	if len(ds) > len(r.slots)-(r.tail-r.head) {
		return fmt.Errorf("doorbell adds %d descriptors to a ring of %d holding %d: ring overflow", len(ds), len(r.slots), r.tail-r.head)
	}
	for _, d := range ds {
		r.slots[r.tail%len(r.slots)] = d
		r.tail++
	}
	return nil
}

// take is the next descriptor; its phase must be the lap's.
func (r *ring) take() (sdma.Desc, int, error) {
	k := r.head
	d := r.slots[k%len(r.slots)]
	r.head++
	if want := 1 ^ (k/len(r.slots))&1; d.Phase() != want {
		return d, k, fmt.Errorf("slot %d carries phase %d, the ring's lap expects %d: %w", k%len(r.slots), d.Phase(), want, ErrPhase)
	}
	return d, k, nil
}

// queue is one channel's work: its rings and its completion share.
type queue struct {
	q        *sdma.Queue
	m2s, s2m ring
	semInc   int
	stream   []byte // M2S bytes, then (after the DRE/CCE) the S2M bytes
}

// run executes a lowered word: post every queue's descriptors, check every
// descriptor, drain all M2S streams (reads before writes), turn or compute,
// then drain the S2M rings. Nothing is written unless everything checks.
func (x *Machine) run(name string, p *dge.Program, lw *sdma.Lowered) error {
	size := x.RingSize
	if size <= 0 {
		size = sdma.DefaultRingSize
	}
	qs := make([]*queue, len(lw.Queues))
	for i := range lw.Queues {
		q := &queue{q: &lw.Queues[i], semInc: p.Channels[i].SemInc}
		q.m2s.slots, q.s2m.slots = make([]sdma.Desc, size), make([]sdma.Desc, size)
		for _, db := range q.q.Doorbells { // the doorbell counts what the ring receives
			r, ds := &q.m2s, q.q.M2S
			if db.Reg == "RDRTP_inc" {
				r, ds = &q.s2m, q.q.S2M
			}
			if db.Value != len(ds) {
				return &Fault{Mnemonic: name, DMA: q.q.DMA, Desc: -1, Err: fmt.Errorf("doorbell %s += %d for %d descriptors", db.Reg, db.Value, len(ds))}
			}
			if err := r.post(ds); err != nil {
				return &Fault{Mnemonic: name, DMA: q.q.DMA, Desc: -1, Err: err}
			}
		}
		qs[i] = q
	}
	// check: phases, addresses, balance
	for _, q := range qs {
		var in, out uint64
		for leg, r := range []*ring{&q.m2s, &q.s2m} {
			for k := r.head; k < r.tail; k++ {
				d := r.slots[k%len(r.slots)]
				legName := [2]string{"M2S", "S2M"}[leg]
				bad := func(err error) error {
					return &Fault{Mnemonic: name, DMA: q.q.DMA, Leg: legName, Desc: k - r.head, Addr: d.BufPtr(), Err: err}
				}
				if want := 1 ^ (k/len(r.slots))&1; d.Phase() != want {
					return bad(fmt.Errorf("phase %d, the lap expects %d: %w", d.Phase(), want, ErrPhase))
				}
				if leg == 1 && isEvtSem(d.BufPtr()) {
					if d.Length() != 4 {
						return bad(fmt.Errorf("a semaphore write of %d bytes (4 expected)", d.Length()))
					}
					continue
				}
				a, core, err := x.Mem.Map.FromSoC(d.BufPtr())
				if err == nil && core != 0 {
					err = fmt.Errorf("core %d's memory: ndma runs core 0", core)
				}
				if err == nil {
					err = x.Mem.Check(a, d.Length())
				}
				if err != nil {
					return bad(err)
				}
				if leg == 0 {
					in += uint64(d.Length())
				} else {
					out += uint64(d.Length())
				}
			}
		}
		if err := balance(p, q.q, in, out); err != nil {
			return &Fault{Mnemonic: name, DMA: q.q.DMA, Desc: -1, Err: err}
		}
	}
	// M2S: every queue's stream, before anything is written
	for _, q := range qs {
		for q.m2s.head < q.m2s.tail {
			d, _, err := q.m2s.take()
			if err != nil {
				return &Fault{Mnemonic: name, DMA: q.q.DMA, Leg: "M2S", Desc: -1, Err: err}
			}
			a, _, _ := x.Mem.Map.FromSoC(d.BufPtr())
			n := len(q.stream)
			q.stream = append(q.stream, make([]byte, d.Length())...)
			if err := x.Mem.Read(a, q.stream[n:]); err != nil {
				return &Fault{Mnemonic: name, DMA: q.q.DMA, Leg: "M2S", Desc: -1, Addr: d.BufPtr(), Err: err}
			}
			x.Stats.M2SBytes += uint64(d.Length())
			x.Stats.Descriptors++
			x.tracef("DMA[%d] M2S %s", q.q.DMA, &d)
		}
		if len(q.q.M2S) > 0 && q.q.M2S[0].Op() == sdma.OpDRE {
			q.stream = dre(p, &p.Channels[indexOf(qs, q)], q.stream)
		}
	}
	// S2M: write the streams out; CCE descriptors cast or compute per scalar
	for _, q := range qs {
		off := 0
		for q.s2m.head < q.s2m.tail {
			d, _, err := q.s2m.take()
			if err != nil {
				return &Fault{Mnemonic: name, DMA: q.q.DMA, Leg: "S2M", Desc: -1, Err: err}
			}
			x.Stats.Descriptors++
			x.tracef("DMA[%d] S2M %s", q.q.DMA, &d)
			if isEvtSem(d.BufPtr()) {
				x.semWrite(d.BufPtr(), int32(q.semInc))
				continue
			}
			a, _, _ := x.Mem.Map.FromSoC(d.BufPtr())
			n := d.Length()
			var out []byte
			if d.Op() == sdma.OpCCE {
				out, off, err = x.cce(&d, a, q.stream, off)
				if err != nil {
					return &Fault{Mnemonic: name, DMA: q.q.DMA, Leg: "S2M", Desc: -1, Addr: d.BufPtr(), Err: err}
				}
			} else {
				out, off = q.stream[off:off+n], off+n
			}
			if err := x.Mem.Write(a, out); err != nil {
				return &Fault{Mnemonic: name, DMA: q.q.DMA, Leg: "S2M", Desc: -1, Addr: d.BufPtr(), Err: err}
			}
			x.Stats.S2MBytes += uint64(n)
			if x.Stats.QueueBytes == nil {
				x.Stats.QueueBytes = map[int]uint64{}
			}
			x.Stats.QueueBytes[q.q.DMA] += uint64(n)
		}
	}
	return nil
}

func indexOf(qs []*queue, q *queue) int {
	for i, v := range qs {
		if v == q {
			return i
		}
	}
	return -1
}

func isEvtSem(soc uint64) bool { return soc >= evtSem && soc < evtSemEnd }

// semWrite is a 4-byte write into the EVT_SEM block: SET, INC or DEC a
// semaphore, or set an event (field-tables §7).
func (x *Machine) semWrite(soc uint64, v int32) {
	switch {
	case soc >= evtSemDec:
		x.Mem.Sems[(soc-evtSemDec)/4%256] -= v
	case soc >= evtSemInc:
		x.Mem.Sems[(soc-evtSemInc)/4%256] += v
	case soc >= evtSemSet:
		x.Mem.Sems[(soc-evtSemSet)/4%256] = v
	case soc < evtSem+0x1000:
		x.Mem.Events[(soc-evtSem)/4%256] = v&1 == 1
	}
}

// balance: the streams carry equal bytes, or — through a CCE cast or
// compute — equal elements.
func balance(p *dge.Program, q *sdma.Queue, in, out uint64) error {
	if len(q.M2S) > 0 && q.M2S[0].Op() == sdma.OpCCE {
		di, do := q.M2S[0].Dtypes()
		si, ok1 := num.Size(di)
		so, ok2 := num.Size(do)
		if !ok1 || !ok2 {
			return fmt.Errorf("CCE dtypes %s → %s: %w", isa.DType.Format(uint64(di)), isa.DType.Format(uint64(do)), ErrUnsupported)
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

// cce produces one S2M descriptor's bytes from the stream at off: each
// scalar cast (EXT) or combined with the destination's current value (ADD,
// FMA = multiply, MAX, MIN) — internal/num.Apply, as ref.
func (x *Machine) cce(d *sdma.Desc, a uint64, stream []byte, off int) ([]byte, int, error) {
	in, out := d.Dtypes()
	si, _ := num.Size(in)
	so, _ := num.Size(out)
	n := d.Length()
	res := make([]byte, n)
	op := uint8(0)
	if t := d.OpType(); t != sdma.CCEExt {
		op = uint8(t) + 1 // CCE ADD/FMA/MAX/MIN are compute_op 1..4 (sdma opOf)
		if err := x.Mem.Read(a, res); err != nil {
			return nil, off, err
		}
	}
	for k := 0; k < n/so; k++ {
		v, err := num.Apply(op, in, out, le(stream[off+k*si:], si), le(res[k*so:], so))
		if err != nil {
			return nil, off, err
		}
		for b := 0; b < so; b++ {
			res[k*so+b] = byte(v >> (8 * b))
		}
	}
	return res, off + n/so*si, nil
}

func le(b []byte, n int) uint64 {
	var v uint64
	for i := n - 1; i >= 0; i-- {
		v = v<<8 | uint64(b[i])
	}
	return v
}

// dre turns the tiles of a transpose stream (the DRE contract of docs/lower.md):
// M2S carries each tile's rows in order, S2M takes its columns. Tiles are
// tile_src_rows × tile_src_cols elements (edge tiles smaller) for
// DMA_TRANSPOSE, and blocks of 16 gathered rows × L for DMA_GATHER_TRANSPOSE.
func dre(p *dge.Program, ch *dge.Channel, in []byte) []byte {
	out := make([]byte, len(in))
	es := int(ch.Src.ElemSize)
	var rows, cols, tr, tc int
	switch p.Kind {
	case dge.KindTranspose:
		rows, cols = int(ch.Src.Num[1]), int(ch.Src.Num[0])
		r, _ := p.Word.Uint("tile_src_rows")
		c, _ := p.Word.Uint("tile_src_cols")
		tr, tc = int(r), int(c)
	case dge.KindGatherTranspose:
		rows, cols = int(ch.Src.Num[1]), int(ch.Dst.Num[1])
		tr, tc = 16, cols
	default:
		return in
	}
	o := 0
	for rb := 0; rb < rows; rb += tr {
		h := min(tr, rows-rb)
		for cb := 0; cb < cols; cb += tc {
			w := min(tc, cols-cb)
			for c := 0; c < w; c++ {
				for r := 0; r < h; r++ {
					copy(out[o+(c*h+r)*es:o+(c*h+r+1)*es], in[o+(r*w+c)*es:])
				}
			}
			o += h * w * es
		}
	}
	return out
}
