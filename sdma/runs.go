package sdma

import (
	"fmt"

	"ndma/dge"
)

// The byte runs each leg of a channel moves, in stream order, per word kind
// (field-tables §11.3, §11.5).

// maxElements bounds the elements one expansion walks one by one.
const maxElements = 1 << 24

func channelRuns(p *dge.Program, ch *dge.Channel, index IndexFunc, regs map[uint8]uint32, limit int) (src, dst []run, err error) {
	for _, l := range []*dge.Leg{&ch.Src, &ch.Dst} {
		if n := l.Elements(); n > maxElements && l.Step[0] != int64(l.ElemSize) {
			return nil, nil, fmt.Errorf("%s: %d elements to walk one by one: more than ndma expands (%d)", p.Kind, n, maxElements)
		}
	}
	switch p.Kind {
	case dge.KindDirect2D:
		if quiet(ch.Src.Bound) || quiet(ch.Dst.Bound) {
			return quietRuns(p, ch, regs, limit)
		}
		return legRuns(nil, &ch.Src, limit), legRuns(nil, &ch.Dst, limit), nil
	case dge.KindTranspose:
		return transposeRuns(p, ch, limit)
	case dge.KindIndirect1D:
		return indirectRuns(p, ch, index, regs, limit)
	case dge.KindGatherTranspose:
		return gatherRuns(p, ch, index, limit)
	}
	return nil, nil, fmt.Errorf("sdma: no expansion for %s", p.Kind)
}

// quiet: a bound register enabled with its error notification off.
func quiet(b dge.BoundCheck) bool { return b.Enabled && b.Quiet }

// quietRuns: a DIRECT2D whose quiet bound leaves elements out (field-tables
// §11.5: the lane is skipped, its destination untouched). With equal element
// sizes and no cast, src element k feeds dst element k, so a pair whose src
// or dst element passes its limit leaves both streams. Other shapes of the
// stream keep the bound as an error (boundsCheck).
func quietRuns(p *dge.Program, ch *dge.Channel, regs map[uint8]uint32, limit int) (src, dst []run, err error) {
	if ch.Src.ElemSize != ch.Dst.ElemSize || p.InDtype != p.OutDtype || ch.Src.Elements() != ch.Dst.Elements() || ch.Src.Elements() > maxElements {
		return legRuns(nil, &ch.Src, limit), legRuns(nil, &ch.Dst, limit), nil
	}
	se, de := legElems(&ch.Src), legElems(&ch.Dst)
	es := uint64(ch.Src.ElemSize)
	past := func(l *dge.Leg, a uint64) bool {
		return quiet(l.Bound) && a+es-1 > uint64(regs[l.Bound.Reg])
	}
	for k := range se {
		if past(&ch.Src, se[k]) || past(&ch.Dst, de[k]) {
			continue
		}
		src, dst = appendRun(src, se[k], es), appendRun(dst, de[k], es)
		if len(src) > limit || len(dst) > limit {
			break
		}
	}
	return src, dst, nil
}

// legElems lists a leg's element addresses, dim 0 innermost.
func legElems(l *dge.Leg) []uint64 {
	var out []uint64
	rows(l, func(base int64) bool {
		for i := int64(0); i < int64(l.Num[0]); i++ {
			out = append(out, uint64(base+i*l.Step[0]))
		}
		return true
	})
	return out
}

func elem(l *dge.Leg, i ...int64) uint64 {
	a := int64(l.Addr)
	for d, x := range i {
		a += x * l.Step[d]
	}
	return uint64(a)
}

// transposeRuns: the DRE moves 16-row × C-column tiles; M2S reads a tile's
// rows in src order, the crossbar turns the tile, S2M writes its columns as
// dst rows (dst(i0 = r, i1 = c) = src(i0 = c, i1 = r)).
func transposeRuns(p *dge.Program, ch *dge.Channel, limit int) (src, dst []run, err error) {
	rows, cols := int64(ch.Src.Num[1]), int64(ch.Src.Num[0])
	tr, tc := p.Tile.Rows, p.Tile.Cols
	if tr == 0 || tc == 0 {
		return nil, nil, fmt.Errorf("DMA_TRANSPOSE: tile_src_rows %d × tile_src_cols %d: no tiles", tr, tc)
	}
	es := uint64(ch.Src.ElemSize)
	for rb := int64(0); rb < rows; rb += int64(tr) {
		re := min(rows, rb+int64(tr))
		for cb := int64(0); cb < cols; cb += int64(tc) {
			ce := min(cols, cb+int64(tc))
			for r := rb; r < re; r++ {
				for c := cb; c < ce; c++ {
					src = appendRun(src, elem(&ch.Src, c, r), es)
				}
			}
			for c := cb; c < ce; c++ {
				for r := rb; r < re; r++ {
					dst = appendRun(dst, elem(&ch.Dst, r, c), es)
				}
			}
			if len(src) > limit || len(dst) > limit {
				return src, dst, nil // more than a ring: the caller reports it
			}
		}
	}
	return src, dst, nil
}

// indirectRuns: INDIRECT1D per lane j (field-tables §11.5) — SRC (gather)
// dst[j] = src[idx_s[j]], DST (scatter) dst[idx_d[j]] = src[j], SRC_DST both.
// An index past its leg or its bound register r[bc_reg] is an error, or —
// idx_bound_is_err 0 — its lane is left out of both streams (the SW-DGE
// checks indices as it generates; ref skips the same lanes).
func indirectRuns(p *dge.Program, ch *dge.Channel, index IndexFunc, regs map[uint8]uint32, limit int) (src, dst []run, err error) {
	mode := p.Index.Mode
	lanes := int64(ch.Dst.Num[0])
	if !mode.SrcIndexed() { // scatter: one lane per src element (field-tables §11.5)
		lanes = int64(ch.Src.Num[0])
	}
	// at is lane j's element on leg l; ok = false: the lane is skipped
	at := func(l *dge.Leg, which int, indexed bool, j int64) (a uint64, ok bool, err error) {
		if !indexed {
			return elem(l, j), true, nil
		}
		v, err := index(which, int(j))
		if err != nil {
			return 0, false, err
		}
		bad := ""
		switch lim := p.Index.Bound[which]; {
		case v >= l.Num[0]:
			bad = fmt.Sprintf("index %d is out of bounds (%d elements)", v, l.Num[0])
		case lim.Enabled && uint64(v) > uint64(regs[lim.Reg]):
			bad = fmt.Sprintf("index %d > limit r%d = %d", v, lim.Reg, regs[lim.Reg])
		}
		if bad == "" {
			return elem(l, int64(v)), true, nil
		}
		if p.Index.BoundIsErr {
			return 0, false, fmt.Errorf("DMA_INDIRECT lane %d: %s: %w", j, bad, ErrBounds)
		}
		return 0, false, nil
	}
	seen := map[uint64]int64{}
	for j := int64(0); j < lanes; j++ {
		s, ok1, err := at(&ch.Src, 0, mode.SrcIndexed(), j)
		if err != nil {
			return nil, nil, err
		}
		d, ok2, err := at(&ch.Dst, 1, mode.DstIndexed(), j)
		if err != nil {
			return nil, nil, err
		}
		if !ok1 || !ok2 {
			continue
		}
		if mode.DstIndexed() && !p.Index.NonUniqueDst {
			if prev, dup := seen[d]; dup {
				return nil, nil, fmt.Errorf("DMA_INDIRECT lane %d: dst index repeats lane %d and non_unique_dst_idx is 0", j, prev)
			}
			seen[d] = j
		}
		src = appendRun(src, s, uint64(ch.Src.ElemSize))
		dst = appendRun(dst, d, uint64(ch.Dst.ElemSize))
		if len(src) > limit || len(dst) > limit {
			break
		}
	}
	return src, dst, nil
}

// gatherRuns: GATHER_XPOSE — row j of L two-byte elements at src +
// idx[j]·src_step_elem[1]; the DRE turns blocks of 16 rows so that S2M writes,
// per column k, 16 consecutive dst elements at dst + 2·j + k·dst_step_elem_1.
func gatherRuns(p *dge.Program, ch *dge.Channel, index IndexFunc, limit int) (src, dst []run, err error) {
	n, l := int64(ch.Src.Num[1]), int64(ch.Dst.Num[1])
	es := uint64(ch.Src.ElemSize)
	const block = 16
	for jb := int64(0); jb < n; jb += block {
		je := min(n, jb+block)
		for j := jb; j < je; j++ {
			v, err := index(0, int(j))
			if err != nil {
				return nil, nil, err
			}
			for k := int64(0); k < l; k++ {
				src = appendRun(src, elem(&ch.Src, k, int64(v)), es)
			}
		}
		for k := int64(0); k < l; k++ {
			for j := jb; j < je; j++ {
				dst = appendRun(dst, elem(&ch.Dst, j, k), es)
			}
		}
		if len(src) > limit || len(dst) > limit {
			break
		}
	}
	return src, dst, nil
}
