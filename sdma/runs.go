package sdma

import (
	"fmt"

	"ndma/dge"
	"ndma/internal/hugemem"
	"ndma/internal/num"
	"ndma/isa"
)

// The byte runs each leg of a channel moves, in stream order, per word kind
// (field-tables §11.3, §11.5).

// maxElements bounds the elements one expansion walks one by one.
const maxElements = 1 << 24

// channelRuns returns the runs of a channel's two legs and, where quiet
// bounds leave elements of a transpose out, the DRE's keep mask (nil: every
// element moves).
//
// s0 and d0 are empty buffers the runs are appended to (the caller's, reused
// word after word).
func channelRuns(p *dge.Program, ch *dge.Channel, index IndexFunc, regs map[uint8]uint32, limit int, s0, d0 []run) (src, dst []run, keep []bool, err error) {
	for _, l := range []*dge.Leg{&ch.Src, &ch.Dst} {
		if n := l.Elements(); n > maxElements && l.Step[0] != int64(l.ElemSize) {
			return nil, nil, nil, fmt.Errorf("%s: %d elements to walk one by one: more than ndma expands (%d)", p.Kind, n, maxElements)
		}
	}
	switch p.Kind {
	case dge.KindDirect2D:
		if quiet(ch.Src.Bound) || quiet(ch.Dst.Bound) {
			src, dst, err = quietRuns(p, ch, regs, limit, s0, d0)
			return src, dst, nil, err
		}
		return legRuns(s0, &ch.Src, limit), legRuns(d0, &ch.Dst, limit), nil, nil
	case dge.KindTranspose:
		return transposeRuns(p, ch, regs, limit, s0, d0)
	case dge.KindIndirect1D:
		src, dst, err = indirectRuns(p, ch, index, regs, limit, s0, d0)
		return src, dst, nil, err
	case dge.KindGatherTranspose:
		return gatherRuns(p, ch, index, regs, limit, s0, d0)
	}
	return nil, nil, nil, fmt.Errorf("sdma: no expansion for %s", p.Kind)
}

// quiet: a bound register enabled with its error notification off.
func quiet(b dge.BoundCheck) bool { return b.Enabled && b.Quiet }

// past reports an element of es bytes at a whose last byte passes its leg's
// enabled bound r[bc_reg] (field-tables §11.5; inclusive limit).
func past(b dge.BoundCheck, a, es uint64, regs map[uint8]uint32) bool {
	return b.Enabled && a+es-1 > b.Limit(regs, a+es-1)
}

// pastErr is the error of an element past an erroring bound (§8.4 layer 1).
func pastErr(p *dge.Program, ch *dge.Channel, leg string, l *dge.Leg, k int, a uint64, regs map[uint8]uint32) error {
	last := a + uint64(l.ElemSize) - 1
	return fmt.Errorf("%w. $S[%d]+=%d. DMA[%d] %s element %d: last byte %#x > limit %s = %#x",
		ErrBounds, p.Semaphore, ch.SemInc, ch.DMA, leg, k, last, isa.BoundRegName(int(l.Bound.Reg), last), l.Bound.Limit(regs, last))
}

// quietRuns: a DIRECT2D with a quiet bound (field-tables §11.5: past the
// limit the lane is skipped, its destination untouched). In the byte stream
// a lane is a dst element: it is written when it is within its bound and
// every src element it takes bytes from is within its own; then its bytes of
// the src stream go on M2S (whole src elements or parts of them) and it goes
// on S2M. Through a cast or compute its out scalars take the in scalars of
// the same numbers. An element past an erroring bound is an error, whatever
// the other leg does (ref checks each leg whole).
func quietRuns(p *dge.Program, ch *dge.Channel, regs map[uint8]uint32, limit int, s0, d0 []run) (src, dst []run, err error) {
	src, dst = s0, d0
	isz, osz := uint64(1), uint64(1) // bytes per scalar; a plain copy moves bytes
	if p.ComputeOp != uint8(isa.DGEComputeOpNone) || p.InDtype != p.OutDtype {
		i, ok1 := num.Size(p.InDtype)
		o, ok2 := num.Size(p.OutDtype)
		if !ok1 || !ok2 {
			return nil, nil, fmt.Errorf("CCE dtypes %s → %s: no scalar size", isa.DType().Format(uint64(p.InDtype)), isa.DType().Format(uint64(p.OutDtype)))
		}
		isz, osz = uint64(i), uint64(o)
	}
	ss, ds := uint64(ch.Src.ElemSize), uint64(ch.Dst.ElemSize)
	// the src elements the current dst element takes bytes from: a window of
	// the src walk, from src element base on
	type elt struct {
		a  uint64
		ok bool
	}
	var win []elt
	base, sw, dw := uint64(0), walker{l: &ch.Src}, walker{l: &ch.Dst}
	for k := uint64(0); k < ch.Dst.Elements(); k++ {
		d := dw.next()
		dok := !past(ch.Dst.Bound, d, ds, regs)
		if !dok && !ch.Dst.Bound.Quiet {
			return nil, nil, pastErr(p, ch, "dst", &ch.Dst, int(k), d, regs)
		}
		lo, hi := k*ds/osz*isz, (k+1)*ds/osz*isz // its bytes of the src stream
		for base+uint64(len(win)) <= (hi-1)/ss {
			a := sw.next()
			ok := !past(ch.Src.Bound, a, ss, regs)
			if !ok && !ch.Src.Bound.Quiet {
				return nil, nil, pastErr(p, ch, "src", &ch.Src, int(base)+len(win), a, regs)
			}
			win = append(win, elt{a, ok})
		}
		drop := lo/ss - base
		win, base = win[drop:], base+drop
		ok := dok
		for _, e := range win[:(hi-1)/ss-base+1] {
			ok = ok && e.ok
		}
		if !ok {
			continue
		}
		for b := lo; b < hi; { // the stream bytes [lo, hi) from the src elements that hold them
			i, off := b/ss-base, b%ss
			n := min(ss-off, hi-b)
			src, b = appendRun(src, win[i].a+off, n), b+n
		}
		if dst = appendRun(dst, d, ds); len(src) > limit || len(dst) > limit {
			break // more than ndma expands: the caller reports it
		}
	}
	return src, dst, nil
}

// walker yields a leg's element addresses one by one, dim 0 innermost.
type walker struct {
	l   *dge.Leg
	idx [7]uint32
}

func (w *walker) next() uint64 {
	a := int64(w.l.Addr)
	for d, i := range w.idx {
		a += int64(i) * w.l.Step[d]
	}
	for d := range w.idx {
		if w.idx[d]++; w.idx[d] < w.l.Num[d] {
			break
		}
		w.idx[d] = 0
	}
	return uint64(a)
}

func elem(l *dge.Leg, i ...int64) uint64 {
	a := int64(l.Addr)
	for d, x := range i {
		a += x * l.Step[d]
	}
	return uint64(a)
}

// elem2 is elem(l, i0, i1) without the variadic slice (the tile loops' path).
func elem2(l *dge.Leg, i0, i1 int64) uint64 {
	return uint64(int64(l.Addr) + i0*l.Step[0] + i1*l.Step[1])
}

// transposeRuns: the DRE moves 16-row × C-column tiles; M2S reads a tile's
// rows in src order, the crossbar turns the tile, S2M writes its columns as
// dst rows (dst(i0 = r, i1 = c) = src(i0 = c, i1 = r)). With a quiet bound,
// an element pair with either side past its limit leaves both streams, and
// keep (src row-major: r·cols + c) tells the DRE which are there.
func transposeRuns(p *dge.Program, ch *dge.Channel, regs map[uint8]uint32, limit int, s0, d0 []run) (src, dst []run, keep []bool, err error) {
	src, dst = s0, d0
	rows, cols := int64(ch.Src.Num[1]), int64(ch.Src.Num[0])
	tr, tc := p.Tile.Rows, p.Tile.Cols
	if tr == 0 || tc == 0 {
		return nil, nil, nil, fmt.Errorf("DMA_TRANSPOSE: tile_src_rows %d × tile_src_cols %d: no tiles", tr, tc)
	}
	es := uint64(ch.Src.ElemSize)
	if quiet(ch.Src.Bound) || quiet(ch.Dst.Bound) {
		if rows*cols > maxElements {
			return nil, nil, nil, fmt.Errorf("DMA_TRANSPOSE: %d elements to bound one by one: more than ndma expands (%d)", rows*cols, maxElements)
		}
		keep = make([]bool, rows*cols)
		for r := int64(0); r < rows; r++ {
			for c := int64(0); c < cols; c++ {
				s, d := elem2(&ch.Src, c, r), elem2(&ch.Dst, r, c)
				sp, dp := past(ch.Src.Bound, s, es, regs), past(ch.Dst.Bound, d, es, regs)
				if sp && !ch.Src.Bound.Quiet {
					return nil, nil, nil, pastErr(p, ch, "src", &ch.Src, int(c+r*cols), s, regs)
				}
				if dp && !ch.Dst.Bound.Quiet {
					return nil, nil, nil, pastErr(p, ch, "dst", &ch.Dst, int(r+c*rows), d, regs)
				}
				keep[r*cols+c] = !sp && !dp
			}
		}
	}
	// a tile row (src) or column (dst) of contiguous elements is one run, as
	// element by element appendRun would merge it
	srcRow, dstCol := keep == nil && ch.Src.Step[0] == int64(es), keep == nil && ch.Dst.Step[0] == int64(es)
	if srcRow && dstCol { // at most a run per tile row and per tile column: one allocation each
		tiles := func(n, t int64) int64 { return (n + t - 1) / t }
		src = hugemem.Grow(src, int(min(rows*tiles(cols, int64(tc)), int64(limit)+1)))
		dst = hugemem.Grow(dst, int(min(cols*tiles(rows, int64(tr)), int64(limit)+1)))
		src, dst = tileRuns(src, dst, &ch.Src, &ch.Dst, rows, cols, int64(tr), int64(tc), es, limit)
		return src, dst, nil, nil
	}
	for rb := int64(0); rb < rows; rb += int64(tr) {
		re := min(rows, rb+int64(tr))
		for cb := int64(0); cb < cols; cb += int64(tc) {
			ce := min(cols, cb+int64(tc))
			for r := rb; r < re; r++ {
				if srcRow {
					src = appendRun(src, elem2(&ch.Src, cb, r), uint64(ce-cb)*es)
					continue
				}
				for c := cb; c < ce; c++ {
					if keep == nil || keep[r*cols+c] {
						src = appendRun(src, elem2(&ch.Src, c, r), es)
					}
				}
			}
			for c := cb; c < ce; c++ {
				if dstCol {
					dst = appendRun(dst, elem2(&ch.Dst, rb, c), uint64(re-rb)*es)
					continue
				}
				for r := rb; r < re; r++ {
					if keep == nil || keep[r*cols+c] {
						dst = appendRun(dst, elem2(&ch.Dst, r, c), es)
					}
				}
			}
			if len(src) > limit || len(dst) > limit {
				return src, dst, keep, nil // more than ndma expands: the caller reports it
			}
		}
	}
	return src, dst, keep, nil
}

// tileRuns is transposeRuns' loop where a tile row and a tile column are
// each one run (every element moves, dim 0 contiguous on both legs): a run
// per tile row, then a run per tile column, each merged with the run before
// when it continues it (appendRun), the addresses stepped rather than
// computed run by run. src and dst have room for every run (no regrowth
// within the loop).
func tileRuns(src, dst []run, s, d *dge.Leg, rows, cols, tr, tc int64, es uint64, limit int) ([]run, []run) {
	sa, s0, s1 := int64(s.Addr), s.Step[0], s.Step[1]
	da, d0, d1 := int64(d.Addr), d.Step[0], d.Step[1]
	for rb := int64(0); rb < rows; rb += tr {
		h := min(rows-rb, tr)
		for cb := int64(0); cb < cols; cb += tc {
			w := min(cols-cb, tc)
			src = stepRuns(src, uint64(sa+cb*s0+rb*s1), s1, uint64(w)*es, h)
			dst = stepRuns(dst, uint64(da+rb*d0+cb*d1), d1, uint64(h)*es, w)
			if len(src) > limit || len(dst) > limit {
				return src, dst // more than ndma expands: the caller reports it
			}
		}
	}
	return src, dst
}

// stepRuns appends k runs of n bytes, the first at a, step bytes apart
// (two's complement), each merged with the run before when contiguous.
func stepRuns(rs []run, a uint64, step int64, n uint64, k int64) []run {
	if k == 0 {
		return rs
	}
	if j := len(rs) - 1; j >= 0 && rs[j].addr+rs[j].n == a {
		rs[j].n += n
		a, k = a+uint64(step), k-1
	}
	if uint64(step) == n { // each continues the one before: one run
		if j := len(rs) - 1; j >= 0 && rs[j].addr+rs[j].n == a {
			rs[j].n += uint64(k) * n
			return rs
		}
		return append(rs, run{a, uint64(k) * n})
	}
	if k > int64(cap(rs)-len(rs)) { // cannot happen: transposeRuns made room
		for ; k > 0; k-- {
			rs, a = appendRun(rs, a, n), a+uint64(step)
		}
		return rs
	}
	j := len(rs)
	rs = rs[:j+int(k)]
	for i := range rs[j:] {
		rs[j+i] = run{a, n}
		a += uint64(step)
	}
	return rs
}

// indirectRuns: INDIRECT1D per lane j (field-tables §11.5) — SRC (gather)
// dst[j] = src[idx_s[j]], DST (scatter) dst[idx_d[j]] = src[j], SRC_DST both.
// An index past its leg or its bound register r[bc_reg] is an error, or —
// idx_bound_is_err 0 — its lane is left out of both streams (the SW-DGE
// checks indices as it generates; ref skips the same lanes).
func indirectRuns(p *dge.Program, ch *dge.Channel, index IndexFunc, regs map[uint8]uint32, limit int, s0, d0 []run) (src, dst []run, err error) {
	src, dst = s0, d0
	mode := p.Index.Mode
	lanes := int64(ch.Dst.Num[0])
	if !mode.SrcIndexed() { // scatter: one lane per src element (field-tables §11.5)
		lanes = int64(ch.Src.Num[0])
	}
	type side struct {
		l       *dge.Leg
		indexed bool
		idx     []uint32 // the values the per-row program was generated from (nil: ask index)
		lim     uint64   // the largest index in range and within the bound register
		own     bool     // each lane's element its own run (its GENERATE's descriptor)
	}
	var legs [2]side
	for which, l := range [2]*dge.Leg{&ch.Src, &ch.Dst} {
		s := side{l: l, indexed: [2]bool{mode.SrcIndexed(), mode.DstIndexed()}[which]}
		if v := p.Indices[which]; s.indexed && int64(len(v)) == lanes {
			s.idx = v // Expand's index is p.IndexValue over these: read them in place
		}
		s.lim = uint64(l.Num[0]) - 1 // 0 elements: every index is out of range (lim wraps; checked below)
		if b := p.Index.Bound[which]; b.Enabled {
			s.lim = min(s.lim, uint64(regs[b.Reg]))
		}
		// an indexed leg's row is its GENERATE's one descriptor, never merged
		// with its neighbour (003 §3.1: "GENERATE emits exactly one
		// descriptor. For an indirect gather it is called once per gathered
		// row"); SUNDA's POOL kernel has no GENERATE and keeps maximal runs
		s.own = s.indexed && p.Backend != dge.NoDGE
		legs[which] = s
	}
	// at is lane j's element on leg which and its index v (an indexed
	// leg); ok = false: the lane is skipped
	at := func(which int, j int64) (a uint64, v uint32, ok bool, err error) {
		s := &legs[which]
		if !s.indexed {
			return elem(s.l, j), 0, true, nil
		}
		if s.idx != nil {
			v = s.idx[j]
		} else if v, err = index(which, int(j)); err != nil {
			return 0, 0, false, err
		}
		if uint64(v) <= s.lim && s.l.Num[0] > 0 {
			return uint64(int64(s.l.Addr) + int64(v)*s.l.Step[0]), v, true, nil
		}
		bad := ""
		switch lim := p.Index.Bound[which]; {
		case v >= s.l.Num[0]:
			bad = fmt.Sprintf("index %d is out of bounds (%d elements)", v, s.l.Num[0])
		case lim.Enabled && uint64(v) > uint64(regs[lim.Reg]):
			bad = fmt.Sprintf("index %d > limit r%d = %d", v, lim.Reg, regs[lim.Reg])
		}
		if p.Index.BoundIsErr {
			return 0, 0, false, fmt.Errorf("DMA_INDIRECT lane %d: %s: %w", j, bad, ErrBounds)
		}
		return 0, 0, false, nil
	}
	for k := range legs { // an indexed leg holds a run per lane; the other one mostly merges
		if legs[k].own {
			if k == 0 {
				src = hugemem.Grow(src, int(min(lanes, int64(limit)+1)))
			} else {
				dst = hugemem.Grow(dst, int(min(lanes, int64(limit)+1)))
			}
		}
	}
	var seen map[uint32]int64 // a dst index's lane, when dst indices must be unique: indices, not addresses (§11.5; a dst step of 0 repeats no index)
	unique := mode.DstIndexed() && !p.Index.NonUniqueDst
	ss, ds := uint64(ch.Src.ElemSize), uint64(ch.Dst.ElemSize)
	// addr is lane j's element on leg s when the lane is the common one —
	// its index (if any) read in place and in range — else ok false, and
	// at decides
	addr := func(s *side, j int64) (a uint64, ok bool) {
		v := uint64(j)
		if s.indexed {
			if s.idx == nil || uint64(s.idx[j]) > s.lim || s.l.Num[0] == 0 {
				return 0, false
			}
			v = uint64(s.idx[j])
		}
		return uint64(int64(s.l.Addr) + int64(v)*s.l.Step[0]), true
	}
	// a gather's lanes (src indexed, read in place; dst walked): the common
	// lane inline, without addr's call
	gather := legs[0].indexed && legs[0].idx != nil && ch.Src.Num[0] > 0 && !legs[1].indexed && !unique
	sIdx, sLim := legs[0].idx, legs[0].lim
	sBase, sStep, dBase, dStep := int64(ch.Src.Addr), ch.Src.Step[0], int64(ch.Dst.Addr), ch.Dst.Step[0]
	for j := int64(0); j < lanes; j++ {
		if gather && uint64(sIdx[j]) <= sLim {
			src = laneRun(src, uint64(sBase+int64(sIdx[j])*sStep), ss, legs[0].own)
			if dst = appendRun(dst, uint64(dBase+j*dStep), ds); len(src) > limit || len(dst) > limit {
				break
			}
			continue
		}
		if !unique {
			s, ok1 := addr(&legs[0], j)
			d, ok2 := addr(&legs[1], j)
			if ok1 && ok2 {
				src = laneRun(src, s, ss, legs[0].own)
				if dst = laneRun(dst, d, ds, legs[1].own); len(src) > limit || len(dst) > limit {
					break
				}
				continue
			}
		}
		s, _, ok1, err := at(0, j)
		if err != nil {
			return nil, nil, err
		}
		d, v, ok2, err := at(1, j)
		if err != nil {
			return nil, nil, err
		}
		if !ok1 || !ok2 {
			continue
		}
		if unique {
			if seen == nil {
				seen = map[uint32]int64{}
			}
			if prev, dup := seen[v]; dup {
				return nil, nil, &LaneError{Lane: int(j), Rule: "non_unique_dst_idx", Err: fmt.Errorf("dst index %d repeats lane %d and non_unique_dst_idx is 0", v, prev)}
			}
			seen[v] = j
		}
		src = laneRun(src, s, ss, legs[0].own)
		dst = laneRun(dst, d, ds, legs[1].own)
		if len(src) > limit || len(dst) > limit {
			break
		}
	}
	return src, dst, nil
}

// LaneError is a lane's fault under a rule of DMA_INDIRECT, named as the
// reference names it (the rule: the field the word breaks).
type LaneError struct {
	Lane int
	Rule string
	Err  error
}

func (e *LaneError) Error() string {
	return fmt.Sprintf("DMA_INDIRECT lane %d: %s: %v", e.Lane, e.Rule, e.Err)
}

func (e *LaneError) Unwrap() error { return e.Err }

// laneRun adds a lane's element: its own run on an indexed leg, merged with
// the run before on the contiguous one.
func laneRun(rs []run, a, n uint64, indexed bool) []run {
	if indexed {
		return append(rs, run{a, n})
	}
	return appendRun(rs, a, n)
}

// gatherRuns: GATHER_XPOSE — row j of L two-byte elements at src +
// idx[j]·src_step_elem[1]; the DRE turns blocks of 16 rows so that S2M writes,
// per column k, 16 consecutive dst elements at dst + 2·j + k·dst_step_elem_1.
// As ref (field-tables §11.5): an index of 2^31 or more, or past
// src_idx_bound_reg's limit, is an error — or, that register's error
// notification off, its lane leaves both streams; then dst_bound_reg bounds
// each dst element of the lanes left, quiet or as an error. keep (j·L + k)
// tells the DRE which elements are there (nil: all).
func gatherRuns(p *dge.Program, ch *dge.Channel, index IndexFunc, regs map[uint8]uint32, limit int, s0, d0 []run) (src, dst []run, keep []bool, err error) {
	src, dst = s0, d0
	n, l := int64(ch.Src.Num[1]), int64(ch.Dst.Num[1])
	es := uint64(ch.Src.ElemSize)
	ib, db := p.Index.Bound[0], ch.Dst.Bound
	idx := p.Indices[0] // Expand's index is p.IndexValue over these: read them in place
	ask := int64(len(idx)) != n
	if ask { // no per-row program (SUNDA): index j read as its lane is checked
		idx = make([]uint32, n)
	}
	lim := uint64(1<<31 - 1) // an index is at most this, and its bound register's limit
	if ib.Enabled {
		lim = min(lim, uint64(regs[ib.Reg]))
	}
	skip := func(e int64) {
		if keep == nil {
			keep = make([]bool, n*l)
			for i := range keep {
				keep[i] = true
			}
		}
		keep[e] = false
	}
	for j := range n {
		if ask {
			if idx[j], err = index(0, int(j)); err != nil {
				return nil, nil, nil, err
			}
		}
		v := idx[j]
		if uint64(v) <= lim && !db.Enabled {
			continue // the common lane: nothing to check further
		}
		bad := ""
		switch {
		case v >= 1<<31:
			bad = fmt.Sprintf("index %d >= 2^31", v)
		case ib.Enabled && uint64(v) > uint64(regs[ib.Reg]):
			bad = fmt.Sprintf("index %d > limit r%d = %d", v, ib.Reg, regs[ib.Reg])
		}
		if bad != "" {
			if !ib.Quiet {
				return nil, nil, nil, fmt.Errorf("DMA_GATHER_TRANSPOSE lane %d: %s: %w", j, bad, ErrBounds)
			}
			for k := range l {
				skip(j*l + k)
			}
			continue
		}
		for k := int64(0); db.Enabled && k < l; k++ {
			if d := elem(&ch.Dst, j, k); past(db, d, es, regs) {
				if !db.Quiet {
					return nil, nil, nil, pastErr(p, ch, "dst", &ch.Dst, int(j*l+k), d, regs)
				}
				skip(j*l + k)
			}
		}
	}
	const block = 16
	srcRow := keep == nil && ch.Src.Step[0] == int64(es)
	dstCol := keep == nil && ch.Dst.Step[0] == int64(es) // a block's column of contiguous elements is one run, as element by element appendRun would merge it
	if srcRow && dstCol {                                // at most a run per row and one per block column: one allocation each
		src = hugemem.Grow(src, int(min(n, int64(limit)+1)))
		dst = hugemem.Grow(dst, int(min(l*((n+block-1)/block), int64(limit)+1)))
	}
	for jb := int64(0); jb < n; jb += block {
		je := min(n, jb+block)
		for j := jb; j < je; j++ {
			if srcRow { // a gathered row of contiguous elements is one run
				src = appendRun(src, elem2(&ch.Src, 0, int64(idx[j])), uint64(l)*es)
				continue
			}
			for k := int64(0); k < l; k++ {
				if keep == nil || keep[j*l+k] {
					src = appendRun(src, elem2(&ch.Src, k, int64(idx[j])), es)
				}
			}
		}
		switch cn := uint64(je-jb) * es; { // a block column's bytes
		case dstCol && ch.Dst.Step[1] != int64(cn):
			// the block's columns never continue one another: only the first
			// may continue the run before it (appendRun's merge, tested once)
			dst = appendRun(dst, elem2(&ch.Dst, jb, 0), cn)
			for k := int64(1); k < l; k++ {
				dst = append(dst, run{elem2(&ch.Dst, jb, k), cn})
			}
		case dstCol:
			for k := int64(0); k < l; k++ {
				dst = appendRun(dst, elem2(&ch.Dst, jb, k), cn)
			}
		default:
			for k := int64(0); k < l; k++ {
				for j := jb; j < je; j++ {
					if keep == nil || keep[j*l+k] {
						dst = appendRun(dst, elem2(&ch.Dst, j, k), es)
					}
				}
			}
		}
		if len(src) > limit || len(dst) > limit {
			break
		}
	}
	return src, dst, keep, nil
}
