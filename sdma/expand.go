package sdma

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"sync"

	"ndma/dge"
	"ndma/internal/hugemem"
	"ndma/isa"
)

// Expansion of a DGE program into descriptors — field-tables §6.2, §8.4,
// §11.7: per channel an M2S (read) list and an S2M (write) list on one queue,
// one descriptor per maximal contiguous run of at most 64 KiB, the streams
// carrying equal bytes; one more S2M descriptor writes the completion
// increment into the EVT_SEM INC window; then a doorbell per leg.

// MaxRun is the most bytes one descriptor moves.
const MaxRun = 65536

// DefaultRingSize is the descriptors of one ring in the DGE_MEMORY carveout
// (INFERRED: the sources give only the inline path's 4 and TDRL ≤ 2^24).
const DefaultRingSize = 4096

// MaxDescriptors bounds one leg's descriptors of one expansion, so a
// corrupt word cannot exhaust memory; a longer program streams through its
// ring fill by fill (RATIONALE "Rings", INFERRED), the bound is ndma's.
const MaxDescriptors = 1 << 24

// DGEMemory is the SoC base of the DGE_MEMORY carveout of TPB 0 (field-tables §7).
const DGEMemory = 0x20_4000_0000

// coreStride: core c's on-chip windows are core 0's + c × coreStride (field-tables §11.2).
const coreStride = 0x10_0000_0000

// onCore moves a core-0 on-chip SoC address (DGE_MEMORY, EVT_SEM) to core c's window (§11.2).
func onCore(soc uint64, core int) uint64 { return soc + uint64(core)*coreStride }

// IndexFunc returns index j of a word's index tensor: which = 0 for the src
// indices, 1 for the dst indices. Lowering has no memory: `run` reads them
// from SBUF, `lower` uses identity indices unless told otherwise.
type IndexFunc func(which, j int) (uint32, error)

// Identity is the IndexFunc j → j.
func Identity(which, j int) (uint32, error) { return uint32(j), nil }

// Options steer the expansion.
type Options struct {
	RingSize int              // descriptors per ring; 0: DefaultRingSize
	Regs     map[uint8]uint32 // registers holding bound limits
	Index    IndexFunc        // for INDIRECT1D and GATHER_XPOSE; nil: Identity
	// Slab, when not nil, is the descriptor memory Expand cuts the lists
	// from and keeps for the next expansion given the same Slab: an executor
	// lowering word after word writes its descriptors into the same pages
	// instead of allocating and faulting new ones each word (issue 17). The
	// next such expansion overwrites the lists of the one before.
	Slab *[]Desc
	// Into, when not nil, is the Lowered Expand fills and returns, its
	// queues' and doorbells' storage reused: with Slab, a caller that keeps
	// no lowering past the next word (`neff lower`, word after word)
	// allocates nothing a word once they have grown. The next such
	// expansion overwrites the one before. A compact expansion (Compact)
	// builds its own.
	Into *Lowered
	// Compact holds a DIRECT2D word's lists, or a (gather-)transpose's, as
	// descriptor runs (Queue.Runs, sdma/compact.go) where every channel's
	// legs allow it, none written out: for an executor that moves a run in
	// one call and writes the descriptors out (Materialize) only off that
	// path.
	Compact bool
}

// Doorbell is one tail-pointer write.
type Doorbell struct {
	DMA   int
	Reg   string // "TDRTP_inc" (M2S) or "RDRTP_inc" (S2M)
	Value int    // descriptors added
}

// Queue is one channel's rings.
type Queue struct {
	DMA       int
	Queue     int    // the engine's queue (0 for the DGE's rings; the v5 words' queue_id)
	M2S, S2M  []Desc // S2M ends with the completion descriptor
	M2SBase   uint64 // SoC address of the M2S ring
	S2MBase   uint64
	Doorbells []Doorbell
	// Keep is the DRE's element mask of a transpose whose quiet bounds leave
	// elements out (src block row-major, r·cols + c; gather: lane j·L + k):
	// the streams carry only the kept ones. nil: every element moves.
	Keep []bool
	// Runs, from an expansion with Options.Compact, holds the lists as
	// descriptor runs; M2S, S2M are nil until Materialize writes them.
	Runs *Runs
}

// Lowered is a program expanded into descriptors.
type Lowered struct {
	Program *dge.Program
	Queues  []Queue
	ring    int        // the ring size the queues were expanded for (Log)
	bells   []Doorbell // the storage of the queues' Doorbells (Options.Into reuses it)
}

// Log is the firmware-format lines of the expansion, "P%i: Generating %i
// descriptors; ring_ndesc = %i" (field-tables §8.3), one per generation pass —
// here per ring fill of each queue — built when asked, not per word lowered.
func (lw *Lowered) Log() []string {
	var out []string
	if lw.ring <= 0 { // not built by Expand
		return nil
	}
	for i := range lw.Queues {
		q := &lw.Queues[i]
		for at := 0; at < max(len(q.M2S), len(q.S2M)); at += lw.ring {
			n := max(0, min(lw.ring, len(q.M2S)-at)) + max(0, min(lw.ring, len(q.S2M)-at))
			out = append(out, string(generating(nil, q.DMA, n, lw.ring)))
		}
	}
	return out
}

// Errors of the three bound layers (field-tables §8.4).
var (
	ErrBounds     = isa.KindError(isa.ErrBounds, "S: DGE: Failed bounds check")
	ErrTooMany    = errors.New("more descriptors than ndma expands")
	ErrStreamSize = errors.New("M2S and S2M streams carry different bytes")
)

// runPool holds the run buffers of expansions past: lowering a NEFF's words
// one after another allocates them once, not per word.
var runPool = sync.Pool{New: func() any { return new([2][]run) }}

type run struct {
	addr uint64 // Neuron address
	n    uint64
}

// appendRun adds [addr, addr+n), merged with the run before when contiguous.
func appendRun(rs []run, addr, n uint64) []run {
	if k := len(rs) - 1; k >= 0 && rs[k].addr+rs[k].n == addr {
		rs[k].n += n
		return rs
	}
	return append(rs, run{addr, n})
}

// legRuns walks a leg (dim 0 innermost) into maximal contiguous runs; it
// stops once it holds more than limit runs (more than ndma expands).
func legRuns(rs []run, l *dge.Leg, limit int) []run {
	es := uint64(l.ElemSize)
	rowContig := l.Step[0] == int64(l.ElemSize)
	if n := l.Elements(); n > 0 { // at most a run per row (per element when rows are not contiguous): no regrowth
		if rowContig {
			n /= uint64(max(l.Num[0], 1))
		}
		rs = hugemem.Grow(rs, int(min(n, uint64(limit)+1)))
	}
	rows(l, 1, func(base int64) bool {
		if rowContig {
			rs = appendRun(rs, uint64(base), uint64(l.Num[0])*es)
		} else if l.Num[0] > 0 {
			// a step other than the element's: no element continues the one
			// before in its row, only the row's first may continue the run
			// before (appendRun's merge, tested once a row)
			rs = appendRun(rs, uint64(base), es)
			for i := int64(1); i < int64(l.Num[0]); i++ {
				rs = append(rs, run{uint64(base + i*l.Step[0]), es})
			}
		}
		return len(rs) <= limit
	})
	return rs
}

// rows calls f with the start of every row of a leg along the dims below
// from — every dim-0 row for from = 1, every dim-1 sweep for 2 — the dims
// from on counted like an odometer; f returns false to stop.
func rows(l *dge.Leg, from int, f func(base int64) bool) {
	var idx [7]uint32
	for {
		base := int64(l.Addr)
		for d := from; d < len(idx); d++ {
			base += int64(idx[d]) * l.Step[d]
		}
		if !f(base) {
			return
		}
		d := from
		for ; d < len(idx); d++ {
			if idx[d]++; idx[d] < l.Num[d] {
				break
			}
			idx[d] = 0
		}
		if d == len(idx) {
			return
		}
	}
}

// Lower is the whole lowering of one resolved word: the DGE's micro-op
// program (dge.Lower), then its descriptors (Expand) — what `ndma lower`
// lists and the engines execute. p is nil when the DGE does not lower the
// word (err says why); lw is nil when the expansion fails.
func Lower(in *isa.Inst, gen isa.Gen, dopt dge.Options, opt Options) (p *dge.Program, lw *Lowered, err error) {
	return LowerInto(nil, in, gen, dopt, opt)
}

// LowerInto is Lower with the program lowered into prog (dge.LowerInto:
// its channels', micro-ops' and index values' storage reused) when prog is
// not nil — for a caller that keeps neither the program nor its lowering
// past the next word (the engines, word after word).
func LowerInto(prog *dge.Program, in *isa.Inst, gen isa.Gen, dopt dge.Options, opt Options) (p *dge.Program, lw *Lowered, err error) {
	if dopt.Index == nil && opt.Index != nil {
		dopt.Index = opt.Index // the rows read the index tensor once; Expand takes the values from them
	}
	if prog != nil {
		p, err = dge.LowerInto(prog, in, gen, dopt)
	} else {
		p, err = dge.Lower(in, gen, dopt)
	}
	if err != nil {
		if errors.Is(err, dge.ErrIndex) {
			return p, nil, err // the word lowered, its rows could not be read
		}
		return nil, nil, err
	}
	lw, err = Expand(p, opt)
	return p, lw, err
}

// Expand turns a program into descriptor lists, checking the bound layers.
func Expand(p *dge.Program, opt Options) (*Lowered, error) {
	if opt.RingSize <= 0 {
		opt.RingSize = DefaultRingSize
	}
	if p.Indices[0] != nil || p.Indices[1] != nil {
		if opt.Index != nil && p.IndicesAssumed {
			return nil, fmt.Errorf("the program's rows were generated from assumed (identity) indices: give the index tensor to the lowering (dge.Options.Index), not to Expand")
		}
		opt.Index = p.IndexValue // the values the per-row program was generated from (dge emitRows)
	}
	if opt.Index == nil {
		opt.Index = Identity
	}
	op, optype := opOf(p)
	tmpl := template(p, op, optype)
	if opt.Compact {
		if lw, ok := expandCompact(p, opt, tmpl); ok {
			return lw, nil
		}
	}
	lw := opt.Into
	if lw == nil {
		lw = &Lowered{Queues: make([]Queue, 0, len(p.Channels))}
	}
	*lw = Lowered{Program: p, Queues: lw.Queues[:0], ring: opt.RingSize, bells: lw.bells}
	m := isa.Map(p.Gen)
	sc := runPool.Get().(*[2][]run) // the runs are scratch: only the descriptors stay
	defer runPool.Put(sc)
	var slab []Desc // every queue's descriptors, cut from as few allocations as the sizes allow
	if opt.Slab != nil {
		slab = (*opt.Slab)[:0]
	}
	bells := lw.bells[:0] // likewise the doorbells
	for c := range p.Channels {
		ch := &p.Channels[c]
		src, dst, keep, err := channelRuns(p, ch, opt.Index, opt.Regs, MaxDescriptors, sc[0][:0], sc[1][:0])
		sc[0], sc[1] = src[:0], dst[:0] // grown: the next channel and word reuse them
		if err != nil {
			return nil, err
		}
		if len(src) > MaxDescriptors || len(dst) >= MaxDescriptors {
			return nil, fmt.Errorf("DMA[%d]: more than %d runs on a leg: %w", ch.DMA, MaxDescriptors, ErrTooMany)
		}
		sb, nm, errM := tally(src, MaxDescriptors) // one pass each: bytes and descriptors
		db, ns, errS := tally(dst, MaxDescriptors-1)
		if err := streamCheck(p, sb, db); err != nil {
			return nil, fmt.Errorf("DMA[%d]: %w", ch.DMA, err)
		}
		if err := boundsCheck(p, ch, src, dst, opt.Regs); err != nil {
			return nil, err
		}
		lw.Queues = append(lw.Queues, queueOf(p, ch, opt.RingSize))
		q := &lw.Queues[len(lw.Queues)-1] // filled in place
		q.Keep = keep
		if errM != nil {
			return nil, fmt.Errorf("DMA[%d] M2S: %w", ch.DMA, errM)
		}
		if errS != nil {
			return nil, fmt.Errorf("DMA[%d] S2M: %w", ch.DMA, errS)
		}
		if cap(slab)-len(slab) < nm+ns+1 {
			// room for this channel's lists and their completion descriptor, and as much for each channel after it
			size := (nm + ns + 1) * (len(p.Channels) - c)
			if opt.Slab == nil {
				slab = hugemem.Slice[Desc](size)[:0]
			} else { // a kept slab never shrinks: words that alternate reuse it
				slab = hugemem.Slice[Desc](max(size, 2*cap(slab)))[:0]
				*opt.Slab = slab
			}
		}
		if q.M2S, err = descs(src, m, tmpl, p.Core, nm, opt.RingSize, &slab); err != nil {
			return nil, fmt.Errorf("DMA[%d] M2S: %w", ch.DMA, err)
		}
		if q.S2M, err = descs(dst, m, tmpl, p.Core, ns+1, opt.RingSize, &slab); err != nil {
			return nil, fmt.Errorf("DMA[%d] S2M: %w", ch.DMA, err)
		}
		q.S2M = append(q.S2M, completion(p, len(q.S2M), opt.RingSize))
		nb := 2 * ((max(len(q.M2S), len(q.S2M)) + opt.RingSize - 1) / opt.RingSize) // at most two doorbells a fill
		if cap(bells)-len(bells) < nb {
			size := nb * (len(p.Channels) - c)
			if opt.Into != nil {
				size = max(size, 2*cap(bells)) // kept doorbells never shrink, as a kept slab
			}
			bells = make([]Doorbell, 0, size)
			lw.bells = bells
		}
		k := len(bells)
		bells = fills(bells, ch.DMA, len(q.M2S), len(q.S2M), opt.RingSize)
		q.Doorbells = bells[k:len(bells):len(bells)]
	}
	return lw, nil
}

// generating appends the firmware line "P%i: Generating %i descriptors;
// ring_ndesc = %i" (field-tables §8.3), built without fmt: lowering a NEFF
// writes one per channel of every word.
func generating(b []byte, dma, n, ring int) []byte {
	b = append(b, 'P')
	b = strconv.AppendInt(b, int64(dma), 10)
	b = append(b, ": Generating "...)
	b = strconv.AppendInt(b, int64(n), 10)
	b = append(b, " descriptors; ring_ndesc = "...)
	return strconv.AppendInt(b, int64(ring), 10)
}

// fills appends the doorbells of a program streamed through its rings:
// each fill writes at most a ring of descriptors on each leg and rings its
// doorbell, the next fill is written once the engine has drained the ring
// (RATIONALE "Rings and performance", INFERRED: the firmware's
// DescriptorStream count check, field-tables §6.2, holds per fill). A
// program within the ring is one fill.
func fills(out []Doorbell, dma, m2s, s2m, ring int) []Doorbell {
	for at := 0; at < max(m2s, s2m); at += ring {
		if n := min(ring, m2s-at); n > 0 {
			out = append(out, Doorbell{dma, "TDRTP_inc", n})
		}
		if n := min(ring, s2m-at); n > 0 {
			out = append(out, Doorbell{dma, "RDRTP_inc", n})
		}
	}
	return out
}

// cceOf is the CCE type of an in-flight compute op (a code past MIN is MIN's).
var cceOf = [...]int{isa.DGEComputeOpAdd: CCEAdd, isa.DGEComputeOpMultiply: CCEFMA, isa.DGEComputeOpMax: CCEMax, isa.DGEComputeOpMin: CCEMin}

// opOf is the descriptors' op: DRE for the transposes, CCE for a cast or
// in-flight compute, CME COPY otherwise.
func opOf(p *dge.Program) (op, optype int) {
	switch {
	case p.Kind == dge.KindTranspose || p.Kind == dge.KindGatherTranspose:
		return OpDRE, 0
	case isa.DGEComputeOpCode(p.ComputeOp) != isa.DGEComputeOpNone:
		return OpCCE, cceOf[min(isa.DGEComputeOpCode(p.ComputeOp), isa.DGEComputeOpMin)]
	case p.InDtype != p.OutDtype:
		return OpCCE, CCEExt
	}
	return OpCME, CMECopy
}

// descs cuts runs into descriptors of at most 64 KiB, FIRST on the first and
// LAST on the last.
//
// The list is cut from *slab, which has room for total descriptors (count
// of the runs, and one more for an S2M list's completion descriptor): a
// word's descriptors are a few allocations, not one a list.
//
// Each descriptor is tmpl (template: the word's op and dtypes, a ring's first
// phase) with its length and buf_ptr set, and the phase of its slot's lap on
// a ring of ring descriptors (as phase stamps it).
func descs(rs []run, m isa.AddressMap, tmpl Desc, core, total, ring int, slab *[]Desc) ([]Desc, error) {
	k := len(*slab)
	*slab = (*slab)[:k+total]
	out := (*slab)[k : k+total : k+total]
	st := newStamper(tmpl)
	head := st.head // a local: the stores below would make the loop reload a field
	i, lap, next := 0, 0, ring
	fast := twoWords         // a local: the stores below would make the loop reload a global
	var lo, hi, delta uint64 // the region of the run before ([lo, hi), empty at first) and its SoC offset
	for _, r := range rs {
		// SoC is a translation within each region (§11.2): a run in the same
		// region as the one before takes its offset, not another look-up
		soc := r.addr + delta
		if r.addr < lo || r.addr >= hi {
			var err error
			if soc, err = m.SoC(r.addr, core); err != nil { // the core the program was lowered for
				return nil, err
			}
			switch reg, _, _ := m.Split(r.addr); reg {
			case isa.SBUF:
				lo, hi = 0, m.SBUFSize
			case isa.PSUM:
				lo, hi = m.PSUMBase, m.PSUMBase+m.PSUMSize
			default:
				lo, hi = m.HBMBase, m.HBMEnd
			}
			delta = soc - r.addr
		}
		if fast && r.n-1 < MaxRun && i != next && i < len(out) { // r.n in 1..MaxRun (unsigned): one descriptor, in the lap of the one before
			binary.LittleEndian.PutUint64(out[i][0:8], head[lap]|r.n&0xffff)
			binary.LittleEndian.PutUint64(out[i][8:16], soc)
			i++
			continue
		}
		for off := uint64(0); off < r.n; off += MaxRun {
			if i == next {
				lap, next = lap^1, next+ring
			}
			st.put(&out[i], lap, min(MaxRun, r.n-off), soc+off) // 0 is 64 KiB
			i++
		}
	}
	out = out[:i]
	if n := len(out); n > 0 {
		out[0].setFlags(true, out[0].Last(), false)
		out[n-1].setFlags(out[n-1].First(), true, false)
	}
	return out, nil
}

// twoWords: the layout puts length in bits 0–15 of the descriptor's first
// 8-byte word and buf_ptr in the whole second one (field-tables §6.1), so
// descs writes a descriptor as two stores — found from the table's fields,
// not assumed.
var twoWords = func() bool {
	var l, b Desc
	fLength.Put(l[:], 0xffff)
	fBufPtr.Put(b[:], ^uint64(0))
	return binary.LittleEndian.Uint64(l[0:]) == 0xffff && binary.LittleEndian.Uint64(l[8:]) == 0 &&
		binary.LittleEndian.Uint64(b[0:]) == 0 && binary.LittleEndian.Uint64(b[8:]) == ^uint64(0)
}()

// tally is the bytes of runs and count's descriptors (its error past limit).
func tally(rs []run, limit int) (bytes uint64, n int, err error) {
	for _, r := range rs {
		bytes += r.n
		if err == nil {
			if n += int(min((r.n+MaxRun-1)/MaxRun, uint64(limit)+1)); n > limit {
				n, err = 0, fmt.Errorf("more than %d descriptors: %w", limit, ErrTooMany)
			}
		}
	}
	return bytes, n, err
}

// count is the descriptors runs cut into at most 64 KiB each, refused past limit.
func count(rs []run, limit int) (int, error) {
	total := 0
	for _, r := range rs {
		total += int(min((r.n+MaxRun-1)/MaxRun, uint64(limit)+1))
		if total > limit {
			return 0, fmt.Errorf("more than %d descriptors: %w", limit, ErrTooMany)
		}
	}
	return total, nil
}

// template is every data descriptor of p before its length and buf_ptr:
// the op and type, a CCE descriptor's dtypes, and phase 1, a fresh ring's
// (phase restamps the slots past a ring).
func template(p *dge.Program, op, optype int) Desc {
	d := newDesc(0, 0, op, optype)
	if op == OpCCE {
		d.setCCE(p.InDtype, p.OutDtype)
	}
	d.setPhase(1)
	return d
}

// phase stamps the ring phase: a fresh ring starts at slot 0 with phase 1;
// the phase toggles each time the ring wraps (field-tables §6.2).
func phase(ds []Desc, ring int) {
	for i := range ds {
		ds[i].setPhase(1 ^ (i/ring)&1)
	}
}

// streamCheck: the two streams carry equal bytes, or — with a cast or
// compute — equal elements.
func streamCheck(p *dge.Program, sb, db uint64) error {
	if p.InDtype == p.OutDtype || p.Kind != dge.KindDirect2D && p.Kind != dge.KindIndirect1D {
		if sb != db {
			return fmt.Errorf("M2S %d bytes, S2M %d bytes: %w", sb, db, ErrStreamSize)
		}
		return nil
	}
	return nil // element counts were checked by the program
}

// boundsCheck is the first bound layer: with bc_enabled, the last byte of
// every run must not pass r[bc_reg] (field-tables §2.3, §8.4).
func boundsCheck(p *dge.Program, ch *dge.Channel, src, dst []run, regs map[uint8]uint32) error {
	for k, leg := range []struct {
		l  *dge.Leg
		rs []run
	}{{&ch.Src, src}, {&ch.Dst, dst}} {
		if !leg.l.Bound.Enabled {
			continue
		}
		for i, r := range leg.rs {
			if last := r.addr + r.n - 1; last > leg.l.Bound.Limit(regs, last) || leg.l.Bound.Limit(regs, r.addr) != leg.l.Bound.Limit(regs, last) {
				quiet := ""
				if leg.l.Bound.Quiet {
					quiet = " (error notification suppressed)"
				}
				return fmt.Errorf("%w. $S[%d]+=%d. DMA[%d] %s run %d: last byte %#x > limit %s = %#x%s",
					ErrBounds, p.Semaphore, ch.SemInc, ch.DMA, [...]string{"src", "dst"}[k], i, last, isa.BoundRegName(int(leg.l.Bound.Reg), last), leg.l.Bound.Limit(regs, last), quiet)
			}
		}
	}
	return nil
}

// AppendListing appends one line per descriptor — queue, leg, index, length,
// flags, op, buf_ptr — and the doorbells, in the order a queue takes them.
func (lw *Lowered) AppendListing(dst []byte) []byte {
	for _, q := range lw.Queues {
		for _, leg := range []struct {
			name string
			ds   []Desc
		}{{"M2S", q.M2S}, {"S2M", q.S2M}} {
			for i := range leg.ds { // "  DMA[%d] %s[%d] %s\n", without fmt: a NEFF lists millions
				dst = dmaTag(dst, q.DMA)
				dst = append(append(dst, ' '), leg.name...)
				dst = append(strconv.AppendInt(append(dst, '['), int64(i), 10), "] "...)
				dst = append(leg.ds[i].AppendText(dst), '\n')
			}
		}
		for _, db := range q.Doorbells { // "  DMA[%d] doorbell %s += %d\n"
			dst = append(append(append(dmaTag(dst, db.DMA), " doorbell "...), db.Reg...), " += "...)
			dst = append(strconv.AppendInt(dst, int64(db.Value), 10), '\n')
		}
	}
	return dst
}

// dmaTag appends "  DMA[n]".
func dmaTag(b []byte, n int) []byte {
	return append(strconv.AppendInt(append(b, "  DMA["...), int64(n), 10), ']')
}
