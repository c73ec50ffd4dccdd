package sim

import (
	"ndma/internal/hugemem"
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
		q := &queue{q: &ws[i].Queue, semInc: ws[i].SemInc, turn: ws[i].Turn, dst: x.Mem}
		q.m2s.size, q.s2m.size = size, size
		q.m2s.inline, q.s2m.inline = ws[i].Inline, ws[i].Inline
		var at [2]int
		for _, db := range q.q.Doorbells {
			leg, r, list := 0, &q.m2s, q.q.M2S
			switch db.Reg {
			case "TDRTP_inc":
			case "RDRTP_inc":
				leg, r, list = 1, &q.s2m, q.q.S2M
			default:
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
	nw := len(x.eff.Writes)
	for _, q := range qs {
		nw += len(q.s2m.seq)
	}
	x.eff.Writes = hugemem.Grow(x.eff.Writes, nw-len(x.eff.Writes)) // at most a span per S2M descriptor: no regrowth
	// streamFree's first test, gathered on the way: plain copies whose read
	// and write extents (SoC addresses) are apart
	free = true
	hulls, cnt := [2]span{{lo: ^uint64(0)}, {lo: ^uint64(0)}}, [2]int{}
	var moved int64
	for _, q := range qs {
		if q.turn != nil {
			free = false
		}
		var in, out, sem uint64
		for leg, r := range []*ring{&q.m2s, &q.s2m} {
			seq := r.seq
			for base := 0; base < len(seq); base += size {
				want := 1 ^ (base/size)&1 // the phase of the ring's lap (post)
				for k := base; k < min(len(seq), base+size); k++ {
					d := &seq[k]
					if !r.inline && d.Phase() != want {
						return nil, false, false
					}
					s, n := d.BufPtr(), uint64(d.Length())
					if leg == 1 && isEvtSem(s) {
						if n != 4 {
							return nil, false, false
						}
						sem += 4
						continue
					}
					op := d.Op()
					if op == sdma.OpCCE && d.OpType() > sdma.CCEExt {
						return nil, false, false
					}
					var a uint64
					switch {
					case s >= m.HBMBase && s < m.HBMEnd && n <= m.HBMEnd-s:
						a = s
					case s >= sbufSoC && s-sbufSoC < m.SBUFSize && (s-sbufSoC)&(m.SBUFStride-1)+n <= m.SBUFActive:
						a = s - sbufSoC
					default: // PSUM, another core, outside memory: the exact path
						return nil, false, false
					}
					if op != sdma.OpCME {
						free = false
					}
					h := &hulls[leg]
					h.lo, h.hi = min(h.lo, s), max(h.hi, s+n)
					cnt[leg]++
					if leg == 0 {
						in += n
						continue
					}
					if out += n; out == n {
						q.hull = span{a, a}
					}
					q.hull = span{min(q.hull.lo, a), max(q.hull.hi, a+n)}
					if w := x.eff.Writes; len(w) > 0 && w[len(w)-1][1] == a { // continuing the write before
						w[len(w)-1][1] += n
					} else {
						x.eff.Writes = append(x.eff.Writes, [2]uint64{a, a + n})
					}
				}
			}
		}
		q.m2sBytes, q.s2mBytes = int64(in), int64(out+sem)
		if balance(q.q, in, out) != nil {
			return nil, false, false
		}
		if moved += int64(in + out); moved > limit {
			return nil, false, false
		}
	}
	if free && cnt[0] > 0 && cnt[1] > 0 && hulls[0].hi > hulls[1].lo && hulls[1].hi > hulls[0].lo {
		free = x.streamFree(qs) // the extents meet: span by span
	}
	return qs, free, true
}

// writeTiles writes q's S2M stream when its data descriptors are the tiles
// of a transpose: P destinations (partitions, or dst rows) each taking T
// pieces of n bytes that continue each other — descriptor k = t·P + p at
// a₀ + p·S + t·n — then only completion descriptors. The P destinations
// are apart (|S| ≥ T·n), so no write meets another and each destination
// is one access that takes its pieces from the stream: the same bytes as
// a write per descriptor. ok false: not this shape (nothing was done).
func (x *Machine) writeTiles(q *queue) (ok bool, err error) {
	seq := q.s2m.seq
	if x.Tracing || x.exact || len(seq) < 64 {
		return false, nil
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
		return false, nil
	}
	for k := K; k < len(seq); k++ {
		if !isEvtSem(seq[k].BufPtr()) {
			return false, nil
		}
	}
	for k := range K {
		d := &seq[k]
		if d.Op() == sdma.OpCCE || d.Length() != n || local(d.BufPtr(), pb) != a0+uint64(int64(k%P)*S+int64(k/P*n)) {
			return false, nil
		}
	}
	stream := q.stream
	for p := range P {
		err := q.dst.Fill(a0+uint64(int64(p)*S), T*n, func(dst []byte, off int) {
			for b := 0; b < len(dst); {
				t, w := (off+b)/n, (off+b)%n
				c := copy(dst[b:], stream[(t*P+p)*n+w:(t*P+p+1)*n])
				b += c
			}
		})
		if err != nil {
			return true, err
		}
	}
	x.tiled++
	x.Stats.Descriptors += K
	for k := K; k < len(seq); k++ {
		x.s2mStart(q, seq[k])
	}
	x.Stats.S2MBytes += uint64(K * n)
	x.queueBytes(q.q.DMA, K*n)
	return true, nil
}
