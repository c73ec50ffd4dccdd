package neff

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"ndma/internal/num"
	"ndma/isa"
)

// Fired is what one PSEUDO_DMA_TRIGGER (0xc1) does: the queue it names, the
// block it fires, and the real DMA_DIRECT2D words that move the block's
// bytes (the runtime's translation, as ndma models it).
type Fired struct {
	Queue     Queue
	Instance  int // the queue instance (<queue>_defId_<n>), 0 for a plain name
	Block     *Block
	Semaphore int        // signalled +1 when the block completes
	Words     []isa.Inst // one or more DMA_DIRECT2D words per descriptor
	Bytes     int64      // bytes the block writes
}

// MaxRuns bounds one descriptor side's walk, and MaxWords the DMA_DIRECT2D
// words one descriptor may become (runs that do not line up cannot fold): a
// size list cannot make ndma walk, or allocate, without end.
const (
	MaxRuns  = 1 << 20
	MaxWords = 1 << 14
)

// ErrTrigger marks a PSEUDO_DMA_TRIGGER that does not resolve.
var ErrTrigger = errors.New("unresolvable PSEUDO_DMA_TRIGGER")

// Resolve finds what a 0xc1 word of engine en names (neff.md §5.2):
// dma_queue_name → def.json dma_queue (owned by en) and its completion
// semaphore → the dma[] block with block_id. The result has no words yet.
func (sg *Subgraph) Resolve(en *Engine, trig *isa.Inst) (*Fired, error) {
	t, ok := trig.PseudoTrigger()
	if !ok {
		return nil, fmt.Errorf("%s is not a PSEUDO_DMA_TRIGGER: %w", trig.Def().Mnemonic(), ErrTrigger)
	}
	raw := t.DMAQueueName()
	name, ok := isa.TextBytes(raw[:])
	if !ok || name == "" {
		return nil, fmt.Errorf("dma_queue_name % x is no queue name: %w", raw[:], ErrTrigger)
	}
	if n := t.UseRawCount(); n != 0 {
		return nil, fmt.Errorf("queue %s: use_raw_count %d (block_id as a raw descriptor count) is not modelled: %w", name, n, ErrTrigger)
	}
	id := t.BlockID()
	q, inst, found := findQueue(sg.queues, name)
	if !found {
		return nil, fmt.Errorf("queue %q is not in %s/def.json dma_queue: %w", name, sg.Dir, ErrTrigger)
	}
	if q.Owner != en.Key {
		return nil, fmt.Errorf("queue %s is owned by %s, triggered from %s: %w", q.Name, q.Owner, en.Key, ErrTrigger)
	}
	sem, ok := q.Completion()
	if inst > 0 {
		if inst >= len(q.Semaphores) {
			return nil, fmt.Errorf("queue instance %s: %s has %d semaphores in its semaphore_set, no instance %d: %w", name, q.Name, len(q.Semaphores), inst, ErrTrigger)
		}
		sem = q.Semaphores[inst]
	}
	if !ok {
		return nil, fmt.Errorf("queue %s has no semaphore or semaphore_set: %w", q.Name, ErrTrigger)
	}
	b, ok := sg.Block(en, name, int(id))
	if !ok {
		return nil, fmt.Errorf("no dma[] block with queue %q and id %d in %s/%s or %s/def.json: %w", name, id, sg.Dir, en.Manifest, sg.Dir, ErrTrigger)
	}
	if len(b.Desc) == 0 {
		return nil, fmt.Errorf("%s: block has no descriptors: %w", b.Where, ErrTrigger)
	}
	return &Fired{Queue: q, Instance: inst, Block: b, Semaphore: sem}, nil
}

// BlockWords turns each descriptor of a block into DMA_DIRECT2D words over
// the placed variables; it returns them and the bytes they write.
func (sg *Subgraph) BlockWords(gen isa.Gen, b *Block, place map[int]uint64) ([]isa.Inst, int64, error) {
	var words []isa.Inst
	var bytes int64
	for k := range b.Desc {
		ws, n, err := sg.descWords(gen, &b.Desc[k], place)
		if err != nil {
			return nil, 0, fmt.Errorf("%s desc[%d]: %w", b.Where, k, err)
		}
		words, bytes = append(words, ws...), bytes+n
	}
	return words, bytes, nil
}

// Fire is Resolve, then BlockWords: the real words of a 0xc1 word. The
// first carries the trigger's events; the last signals the queue's
// completion semaphore +1 (INFERRED, RATIONALE.md).
func (sg *Subgraph) Fire(gen isa.Gen, en *Engine, trig *isa.Inst, place map[int]uint64) (*Fired, error) {
	fired, err := sg.Resolve(en, trig)
	if err != nil {
		return nil, err
	}
	if fired.Words, fired.Bytes, err = sg.BlockWords(gen, fired.Block, place); err != nil {
		return nil, err
	}
	fired.Words[0].CopyEvents(trig)
	last, _ := fired.Words[len(fired.Words)-1].Direct2D()
	if err := last.SetSemaphore(int64(fired.Semaphore)); err != nil {
		return nil, fmt.Errorf("queue %s: %w", fired.Queue.Name, err)
	}
	last.SetSemIncrement(1)
	return fired, nil
}

// findQueue looks a trigger's name up: a dma_queue key, or an instance name
// <queue>_defId_<n> of one (neff.md §4.4).
func findQueue(qs []Queue, name string) (Queue, int, bool) {
	for _, q := range qs {
		if q.Name == name {
			return q, 0, true
		}
	}
	if i := strings.LastIndex(name, "_defId_"); i > 0 {
		if n, err := strconv.Atoi(name[i+len("_defId_"):]); err == nil && n >= 0 {
			for _, q := range qs {
				if q.Name == name[:i] {
					return q, n, true
				}
			}
		}
	}
	return Queue{}, 0, false
}

// dtypeNames map the NEFF's dtype strings to DTYPE (neff.md §4.5).
var dtypeNames = map[string]string{
	"uint8": "UINT8", "int8": "INT8", "uint16": "UINT16", "int16": "INT16", "uint32": "UINT32", "int32": "INT32",
	"int64": "INT64", "uint64": "UINT64", "bfloat16": "BFLOAT16", "float16": "FP16", "float32": "FP32", "float32r": "FP32R",
	"float8e3": "FP8_EXP3", "float8e4": "FP8_EXP4", "float8e5": "FP8_EXP5", "float8_e4m3fn": "FP8_EXP4", "float8_e5m2": "FP8_EXP5",
}

// DType maps a NEFF dtype string ("" = raw bytes: UINT8) to its DTYPE value.
func DType(s string) (uint8, error) {
	if s == "" {
		s = "uint8"
	}
	n, ok := dtypeNames[s]
	if !ok {
		return 0, fmt.Errorf("dtype %q is not one ndma knows (float32, float16, bfloat16, float8e3/e4/e5, int/uint 8..64)", s)
	}
	v, _ := isa.DType.Parse(n)
	return uint8(v), nil
}

// run is a contiguous span of one side, in elements of that side's dtype.
type run struct {
	addr  uint64
	elems int64
}

// side is one walk of a descriptor.
type side struct {
	name         string // "from", "to", "from_arr[2]"
	v            Variable
	base         uint64
	sizes, steps []int64
	esize        int64
	amap         isa.AddressMap
}

// walk appends the side's runs: sizes[0] contiguous bytes (steps[0] 0 or 1;
// any other step makes each byte its own run, for 1-byte types only), higher
// dims repeat counts with byte steps; every run inside the variable.
func (s *side) walk(out []run) ([]run, error) {
	if len(s.sizes) == 0 {
		return nil, fmt.Errorf("%s_sizes is empty", s.name)
	}
	if len(s.steps) < len(s.sizes) && len(s.sizes) > 1 {
		return nil, fmt.Errorf("%s_steps has %d entries for %d sizes", s.name, len(s.steps), len(s.sizes))
	}
	count := int64(1)
	for d, n := range s.sizes {
		if n < 0 || n > math.MaxInt32 {
			return nil, fmt.Errorf("%s_sizes[%d] = %d: out of range (0..2^31-1)", s.name, d, n)
		}
		if d > 0 {
			if count *= n; count > MaxRuns {
				return nil, fmt.Errorf("%s walks more than %d runs", s.name, MaxRuns)
			}
		}
	}
	runLen, inner, innerStep := s.sizes[0], int64(1), int64(1)
	if len(s.steps) > 0 && s.steps[0] != 0 && s.steps[0] != 1 {
		if s.esize != 1 {
			return nil, fmt.Errorf("%s_steps[0] = %d: dim 0 must be contiguous for a %d-byte type", s.name, s.steps[0], s.esize)
		}
		runLen, inner, innerStep = 1, s.sizes[0], s.steps[0]
		if count *= inner; count > MaxRuns {
			return nil, fmt.Errorf("%s walks more than %d runs", s.name, MaxRuns)
		}
	}
	if runLen%s.esize != 0 {
		return nil, fmt.Errorf("%s_sizes[0] = %d bytes is not a whole number of %d-byte elements", s.name, runLen, s.esize)
	}
	if runLen == 0 || count == 0 {
		return out, nil
	}
	idx := make([]int64, len(s.sizes))
	for {
		off := int64(0)
		for d := 1; d < len(s.sizes); d++ {
			off += idx[d] * s.steps[d]
		}
		for i := int64(0); i < inner; i++ {
			o := off + i*innerStep
			if s.v.Type == "state-buffer" { // bounded by the SBUF map: one partition's active bytes
				r, p, po := s.amap.Split(s.base + uint64(o))
				if o < 0 || r != isa.SBUF || p >= s.amap.Partitions || po+uint64(runLen) > s.amap.SBUFActive {
					return nil, fmt.Errorf("%s: bytes %d..%d of %q are not inside one SBUF partition's %d active bytes", s.name, o, o+runLen, s.v.Name, s.amap.SBUFActive)
				}
			} else if o < 0 || o+runLen > s.v.Size {
				return nil, fmt.Errorf("%s: bytes %d..%d are outside %q (%d bytes)", s.name, o, o+runLen, s.v.Name, s.v.Size)
			}
			a := s.base + uint64(o)
			if n := len(out); n > 0 && out[n-1].addr+uint64(out[n-1].elems*s.esize) == a && out[n-1].elems < 1<<40 {
				out[n-1].elems += runLen / s.esize // adjacent runs are one run
			} else {
				out = append(out, run{a, runLen / s.esize})
			}
		}
		d := 1
		for ; d < len(s.sizes); d++ {
			if idx[d]++; idx[d] < s.sizes[d] {
				break
			}
			idx[d] = 0
		}
		if d == len(s.sizes) {
			return out, nil
		}
	}
}

// chunk is one element-aligned piece both sides agree on.
type chunk struct {
	src, dst uint64
	n        int64 // elements
}

// descWords turns one descriptor into DMA_DIRECT2D words: both sides walked
// into runs, the runs cut where either side's run ends (≤ 64 KiB a piece),
// and equal pieces at constant strides folded into the word's two dims.
func (sg *Subgraph) descWords(gen isa.Gen, d *Desc, place map[int]uint64) ([]isa.Inst, int64, error) {
	op, ok := computeOps[d.Op]
	if !ok {
		return nil, 0, fmt.Errorf("op %q is not modelled (copy, add, max, min)", d.Op)
	}
	fromT, err := DType(d.FromDtype)
	if err != nil {
		return nil, 0, fmt.Errorf("from_dtype: %w", err)
	}
	toS := d.ToDtype
	if toS == "" {
		toS = d.FromDtype
	}
	toT, err := DType(toS)
	if err != nil {
		return nil, 0, fmt.Errorf("to_dtype: %w", err)
	}
	fs, _ := num.Size(fromT)
	ts, _ := num.Size(toT)
	mk := func(name, v string, sizes, steps []int64, esize int) (*side, error) {
		vr, ok := sg.Var(v)
		if !ok {
			return nil, fmt.Errorf("%s %q is not a def.json variable", name, v)
		}
		base, ok := place[vr.ID]
		if !ok {
			return nil, fmt.Errorf("%s %q (%s) holds no bytes", name, v, vr.Type)
		}
		return &side{name: name, v: vr, base: base, sizes: sizes, steps: steps, esize: int64(esize), amap: isa.Map(gen)}, nil
	}
	var src []run
	parts := []Desc{*d}
	if len(d.FromArr) > 0 {
		parts = d.FromArr
	}
	for i, p := range parts {
		name := "from"
		if len(d.FromArr) > 0 {
			name = fmt.Sprintf("from_arr[%d].from", i)
		}
		s, err := mk(name, p.From, p.FromSizes, p.FromSteps, fs)
		if err != nil {
			return nil, 0, err
		}
		if src, err = s.walk(src); err != nil {
			return nil, 0, err
		}
	}
	t, err := mk("to", d.To, d.ToSizes, d.ToSteps, ts)
	if err != nil {
		return nil, 0, err
	}
	dst, err := t.walk(nil)
	if err != nil {
		return nil, 0, err
	}
	var ns, nd int64
	for _, r := range src {
		ns += r.elems
	}
	for _, r := range dst {
		nd += r.elems
	}
	if ns != nd {
		return nil, 0, fmt.Errorf("from moves %d elements (%d bytes), to takes %d (%d bytes)", ns, ns*int64(fs), nd, nd*int64(ts))
	}
	if ns == 0 {
		return nil, 0, fmt.Errorf("moves no bytes")
	}
	// cut into pieces both sides share, each at most 64 KiB on either side
	maxN := int64(65536 / max(fs, ts))
	var cs []chunk
	i, j := 0, 0
	var si, dj int64 // elements used of src[i], dst[j]
	for i < len(src) && j < len(dst) {
		n := min(src[i].elems-si, dst[j].elems-dj, maxN)
		cs = append(cs, chunk{src[i].addr + uint64(si*int64(fs)), dst[j].addr + uint64(dj*int64(ts)), n})
		if si += n; si == src[i].elems {
			i, si = i+1, 0
		}
		if dj += n; dj == dst[j].elems {
			j, dj = j+1, 0
		}
	}
	var words []isa.Inst
	for k := 0; k < len(cs); {
		c := cs[k]
		row, s0, d0 := fold1(cs[k:], 1)
		rows, s1, d1 := 1, int64(0), int64(0)
		next := k + row
		for rows < 65535 && next+row <= len(cs) {
			if r, a, b := fold1(cs[next:next+row], row); r != row || (row > 1 && (a != s0 || b != d0)) || cs[next].n != c.n {
				break
			}
			ds, dd := int64(cs[next].src)-int64(cs[next-row].src), int64(cs[next].dst)-int64(cs[next-row].dst)
			if rows == 1 {
				if !fitsI32(ds) || !fitsI32(dd) {
					break
				}
				s1, d1 = ds, dd
			} else if ds != s1 || dd != d1 {
				break
			}
			rows++
			next += row
		}
		sh := shapeOf(c.n, int64(fs), int64(ts), row, rows, s0, d0, s1, d1)
		next = k + sh.used
		w := isa.New(gen, isa.OpDMAMemcpy)
		v, _ := w.Direct2D()
		if err := firstErr( // in field order; elem_size 65536 is written 0 (§3.2)
			v.SetComputeOp(op),
			v.SetSrcStepElem(0, sh.s0), v.SetSrcStepElem(1, sh.s1), v.SetSrcNumElem(0, sh.n0), v.SetSrcNumElem(1, sh.n1),
			v.SetSrcElemSize(sh.es%65536),
			v.SetDstStepElem(0, sh.d0), v.SetDstStepElem(1, sh.d1), v.SetDstNumElem(0, sh.n0), v.SetDstNumElem(1, sh.n1),
			v.SetDstElemSize(sh.ed%65536),
			v.SetInDType(isa.DTypeCode(fromT)), v.SetOutDType(isa.DTypeCode(toT)),
		); err != nil {
			return nil, 0, err
		}
		v.SetSrcStartAddr(c.src)
		v.SetDstStartAddr(c.dst)
		if words = append(words, w); len(words) > MaxWords {
			return nil, 0, fmt.Errorf("needs more than %d DMA_DIRECT2D words: the two sides' runs do not line up into regular pieces", MaxWords)
		}
		k = next
	}
	return words, nd * int64(ts), nil
}

// computeOps are the descriptor ops ndma lowers, by the DGE_COMPUTE_OP they
// become (neff.md §4.5).
var computeOps = map[string]isa.DGEComputeOpCode{
	"": isa.DGEComputeOpNone, "copy": isa.DGEComputeOpNone,
	"add": isa.DGEComputeOpAdd, "max": isa.DGEComputeOpMax, "min": isa.DGEComputeOpMin,
}

// firstErr is the first non-nil error of a run of setter results.
func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// shape is one word's walk: elem sizes, counts and byte steps per side, and
// how many pieces it covers.
type shape struct {
	es, ed, n0, n1, s0, d0, s1, d1 int64
	used                           int
}

// shapeOf picks the word for rows × row pieces of n elements at strides
// (s0, d0) and (s1, d1), keeping every step a whole number of elements — the
// DGE counts its dims in elements (docs/lower.md): both dims when they
// allow it, else one row; else the piece cut into m-element sub-elements
// (m dividing n and both pitches) with the row as the second dim; else the
// piece alone.
func shapeOf(n, fs, ts int64, row, rows int, s0, d0, s1, d1 int64) shape {
	es, ed := n*fs, n*ts
	whole := func(s, e int64) bool { return s%e == 0 }
	dim0 := row == 1 || whole(s0, es) && whole(d0, ed)
	switch {
	case dim0 && (rows == 1 || whole(s1, es) && whole(d1, ed)):
		return shape{es, ed, int64(row), int64(rows), s0, d0, s1, d1, row * rows}
	case dim0:
		return shape{es, ed, int64(row), 1, s0, d0, 0, 0, row}
	case whole(s0, fs) && whole(d0, ts):
		m := gcd(gcd(n, abs(s0/fs)), abs(d0/ts))
		if n/m <= 65535 {
			return shape{m * fs, m * ts, n / m, int64(row), m * fs, m * ts, s0, d0, row}
		}
	}
	return shape{es, ed, 1, 1, 0, 0, 0, 0, 1}
}

func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

func abs(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

// fold1 is how many leading chunks (at most limit when limit > 1, else up
// to 65535) have the first one's length at constant src and dst strides.
func fold1(cs []chunk, limit int) (int, int64, int64) {
	if limit <= 1 {
		limit = 65535
	}
	if len(cs) < 2 || cs[1].n != cs[0].n {
		return 1, 0, 0
	}
	s0, d0 := int64(cs[1].src)-int64(cs[0].src), int64(cs[1].dst)-int64(cs[0].dst)
	if !fitsI32(s0) || !fitsI32(d0) {
		return 1, 0, 0
	}
	n := 2
	for n < len(cs) && n < limit && cs[n].n == cs[0].n &&
		int64(cs[n].src)-int64(cs[n-1].src) == s0 && int64(cs[n].dst)-int64(cs[n-1].dst) == d0 {
		n++
	}
	return n, s0, d0
}

func fitsI32(v int64) bool { return v >= math.MinInt32 && v <= math.MaxInt32 }
