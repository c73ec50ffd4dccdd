package device

import (
	"fmt"
	"math"
	"ndma/dtype"

	"ndma/isa"
	"ndma/neff"
)

// A descriptor becomes pieces: DMA_DIRECT2D words that move its bytes, and
// for a transpose tile the same bytes as one DMA_TRANSPOSE word when the
// tile fits that word's rules (Fire picks which, neff.md §4.7; docs/neff.md).
type piece struct {
	words []isa.Inst // DMA_DIRECT2D
	xpose *isa.Inst  // nil, or a DMA_TRANSPOSE moving the same bytes as words
}

// computeOps are the descriptor ops ndma lowers, by the DGE_COMPUTE_OP they
// become (neff.md §4.5): copy and cast move (a cast is in_dtype ≠
// out_dtype, field-tables §3.2), add/max/min combine with the destination.
var computeOps = map[string]isa.DGEComputeOpCode{
	"": isa.DGEComputeOpNone, "copy": isa.DGEComputeOpNone, "cast": isa.DGEComputeOpNone,
	"add": isa.DGEComputeOpAdd, "max": isa.DGEComputeOpMax, "min": isa.DGEComputeOpMin,
}

// wide reports a 64-bit DTYPE: not a memcpy dtype (field-tables §3.2).
func wide(dt uint8) bool {
	return isa.DTypeCode(dt) == isa.DTypeInt64 || isa.DTypeCode(dt) == isa.DTypeUint64
}

// mkSide is the walk of one endpoint: variable v (by name), placed.
func mkSide(gen isa.Gen, sg *neff.Subgraph, name, v string, off int64, sizes, steps []int64, unit int64, place map[int]uint64) (*side, error) {
	vr, ok := sg.Var(v)
	if !ok {
		return nil, fmt.Errorf("%s %q is not a def.json variable", name, v)
	}
	base, ok := place[vr.ID]
	if !ok {
		return nil, fmt.Errorf("%s %q (%s) holds no bytes", name, v, vr.Type)
	}
	return &side{name: name, v: vr, base: base, off: off, sizes: sizes, steps: steps, unit: unit, amap: isa.Map(gen)}, nil
}

// descPieces resolves one descriptor over the placed variables: its pieces
// and the bytes it writes.
func descPieces(gen isa.Gen, sg *neff.Subgraph, d *neff.Desc, place map[int]uint64) ([]piece, int64, error) {
	if len(d.Unmodelled) > 0 {
		return nil, 0, fmt.Errorf("key %q (a compute-on-DMA option, docs/neff.md §4.5) is not modelled", d.Unmodelled[0])
	}
	if d.TransposeOp != "" || d.TransposeShape != nil || d.TransposeElementSize != 0 || d.Op == "transpose" {
		return transposePieces(gen, sg, d, place)
	}
	op, ok := computeOps[d.Op]
	if !ok {
		return nil, 0, fmt.Errorf("op %q is not modelled (copy, cast, add, max, min, or a transpose by transpose_op)", d.Op)
	}
	if d.NumTilingDimensions > 1 {
		return nil, 0, fmt.Errorf("num_tiling_dimensions %d without a transpose is not modelled (1 in every observed copy, docs/neff.md §4.7)", d.NumTilingDimensions)
	}
	fromD, err := dtype.FromNEFF(d.FromDtype)
	if err != nil {
		return nil, 0, fmt.Errorf("from_dtype: %w", err)
	}
	toS := d.ToDtype
	if toS == "" {
		toS = d.FromDtype
	}
	toD, err := dtype.FromNEFF(toS)
	if err != nil {
		return nil, 0, fmt.Errorf("to_dtype: %w", err)
	}
	fromT, toT := uint8(fromD), uint8(toD) // the words' DTYPE fields
	fu, tu := fromD.Size(), toD.Size()
	// the word's element types: the dtypes themselves, except that a 64-bit
	// copy moves as UINT32 pairs (INT64/UINT64 are no memcpy dtypes, §3.2)
	inT, outT, fs, ts := fromT, toT, int64(fu), int64(tu)
	if wide(fromT) || wide(toT) {
		if fromT != toT || op != isa.DGEComputeOpNone {
			return nil, 0, fmt.Errorf("from_dtype %s, to_dtype %s, op %q: a DMA word cannot cast or compute INT64/UINT64 (not memcpy dtypes, docs/field-tables.md §3.2)", orRaw(d.FromDtype), orRaw(toS), d.Op)
		}
		inT, outT, fs, ts = uint8(isa.DTypeUint32), uint8(isa.DTypeUint32), 4, 4
	}
	var src []run
	parts := []neff.Desc{*d}
	if len(d.FromArr) > 0 {
		parts = d.FromArr
	}
	for i, p := range parts {
		name := "from"
		if len(d.FromArr) > 0 {
			name = fmt.Sprintf("from_arr[%d].from", i)
		}
		s, err := mkSide(gen, sg, name, p.From, p.FromOff, p.FromSizes, p.FromSteps, int64(fu), place)
		if err != nil {
			return nil, 0, err
		}
		if src, err = s.walk(src); err != nil {
			return nil, 0, err
		}
	}
	t, err := mkSide(gen, sg, "to", d.To, d.ToOff, d.ToSizes, d.ToSteps, int64(tu), place)
	if err != nil {
		return nil, 0, err
	}
	dst, err := t.walk(nil)
	if err != nil {
		return nil, 0, err
	}
	var sb, db int64
	for _, r := range src {
		sb += r.n
	}
	for _, r := range dst {
		db += r.n
	}
	if sb/int64(fu) != db/int64(tu) {
		return nil, 0, fmt.Errorf("from moves %d elements (%d bytes), to takes %d (%d bytes)", sb/int64(fu), sb, db/int64(tu), db)
	}
	if sb == 0 {
		return nil, 0, fmt.Errorf("moves no bytes")
	}
	// cut into pieces both sides share, each at most 64 KiB on either side
	maxN := 65536 / max(fs, ts)
	var cs []chunk
	i, j := 0, 0
	var si, dj int64 // word elements used of src[i], dst[j]
	for i < len(src) && j < len(dst) {
		if len(cs) >= maxChunks {
			return nil, 0, fmt.Errorf("moves more than %d pieces of at most 64 KiB", maxChunks)
		}
		n := min(src[i].n/fs-si, dst[j].n/ts-dj, maxN)
		cs = append(cs, chunk{src[i].addr + uint64(si*fs), dst[j].addr + uint64(dj*ts), n})
		if si += n; si == src[i].n/fs {
			i, si = i+1, 0
		}
		if dj += n; dj == dst[j].n/ts {
			j, dj = j+1, 0
		}
	}
	words, err := foldWords(gen, cs, fs, ts, op, inT, outT)
	if err != nil {
		return nil, 0, err
	}
	return []piece{{words: words}}, db, nil
}

// maxChunks bounds the pieces one descriptor is cut into (runs of up to
// 2^31 bytes are cut at 64 KiB): twice the runs a side may have.
const maxChunks = 2 * MaxRuns

// orRaw names a dtype string, "" as the raw bytes it means.
func orRaw(s string) string {
	if s == "" {
		return "uint8 (none given)"
	}
	return s
}

// chunk is one element-aligned piece both sides agree on.
type chunk struct {
	src, dst uint64
	n        int64 // elements
}

// foldWords turns chunks into DMA_DIRECT2D words: equal chunks at constant
// strides folded into the word's two dims, each word's steps whole
// elements (shapeOf). fs and ts are the element bytes of inT and outT.
func foldWords(gen isa.Gen, cs []chunk, fs, ts int64, op isa.DGEComputeOpCode, inT, outT uint8) ([]isa.Inst, error) {
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
		sh := shapeOf(c.n, fs, ts, row, rows, s0, d0, s1, d1)
		next = k + sh.used
		w := isa.New(gen, isa.OpDMAMemcpy)
		v, _ := w.Direct2D()
		if err := firstErr( // in field order; elem_size 65536 is written 0 (§3.2)
			v.SetComputeOp(op),
			v.SetSrcStepElem(0, sh.s0), v.SetSrcStepElem(1, sh.s1), v.SetSrcNumElem(0, sh.n0), v.SetSrcNumElem(1, sh.n1),
			v.SetSrcElemSize(sh.es%65536),
			v.SetDstStepElem(0, sh.d0), v.SetDstStepElem(1, sh.d1), v.SetDstNumElem(0, sh.n0), v.SetDstNumElem(1, sh.n1),
			v.SetDstElemSize(sh.ed%65536),
			v.SetInDType(isa.DTypeCode(inT)), v.SetOutDType(isa.DTypeCode(outT)),
		); err != nil {
			return nil, err
		}
		v.SetSrcStartAddr(c.src)
		v.SetDstStartAddr(c.dst)
		if words = append(words, w); len(words) > MaxWords {
			return nil, fmt.Errorf("needs more than %d DMA_DIRECT2D words: the two sides' runs do not line up into regular pieces", MaxWords)
		}
		k = next
	}
	return words, nil
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
