package ref

import (
	"encoding/binary"
	"fmt"

	"ndma/internal/control"
	"ndma/isa"
)

// The data-movement words, each reduced to a move (field-tables §11.3–§11.5).

// limit refuses a word whose legs would move more than --max-bytes, before
// anything is built.
func (w *word) limit(legs ...isa.Leg2D) error {
	var total int64
	for _, l := range legs {
		total += l.Bytes()
	}
	if total > w.x.maxBytes() {
		return w.fault(-1, "max-bytes", fmt.Errorf("the word moves %d bytes, more than the %d allowed", total, w.x.maxBytes()))
	}
	return nil
}

// leg2D walks the 2-D leg l whose start address a is the field
// leg+"_start_addr".
func (w *word) leg2D(leg string, a isa.Addr8, l isa.Leg2D) (elems, error) {
	start, err := w.addr8(leg+"_start_addr", a)
	if err != nil {
		return elems{}, err
	}
	return walk2D(start, [2]int{int(l.Num[0]), int(l.Num[1])}, l.Step, int(l.Elem)), nil
}

// direct2D: DMAMEMCPY (§3.2, §11.3, §11.4).
func (w *word) direct2D() error {
	deltas, err := w.events()
	if err != nil {
		return err
	}
	v, _ := w.in.Direct2D()
	if rule, err := control.ShapeRules(w.in, w.x.Mem.Gen); err != nil { // the counts and steps both executors refuse alike
		return w.fault(-1, rule, err)
	}
	src, dst, _ := w.in.Legs2D()
	if err := w.limit(src, dst); err != nil {
		return err
	}
	m := &move{in: v.InDType(), out: v.OutDType(), compute: v.ComputeOp()}
	if m.src, err = w.leg2D("src", v.SrcStartAddr(), src); err != nil {
		return err
	}
	if m.dst, err = w.leg2D("dst", v.DstStartAddr(), dst); err != nil {
		return err
	}
	if err := w.checkBound(&m.src, w.bound(v.SrcBoundReg()), "src_bound_reg"); err != nil {
		return err
	}
	if err := w.checkBound(&m.dst, w.bound(v.DstBoundReg()), "dst_bound_reg"); err != nil {
		return err
	}
	deltas = append(deltas, semDelta{Idx: int(v.Semaphore()), Add: int32(v.SemIncrement())})
	return w.run(m, deltas)
}

// xpose: DMA_TRANSPOSE — dst(i0 = r, i1 = c) = src(i0 = c, i1 = r) (§11.5).
func (w *word) xpose() error {
	deltas, err := w.events()
	if err != nil {
		return err
	}
	v, _ := w.in.Xpose()
	if rule, err := control.XposeRules(v, w.x.Mem.Gen); err != nil { // the types and tiles both executors refuse alike
		return w.fault(-1, rule, err)
	}
	if rule, err := control.ShapeRules(w.in, w.x.Mem.Gen); err != nil {
		return w.fault(-1, rule, err)
	}
	dt := v.OutDType()
	size, _ := dtypeSize(dt, w.x.Mem.Gen)
	cols, rows := int(v.SrcNumElem(0)), int(v.SrcNumElem(1))
	if int(v.DstNumElem(0)) != rows || int(v.DstNumElem(1)) != cols {
		return w.fault(-1, "has_valid_xpose_shape", fmt.Errorf("dst_num_elem [%d, %d] must be [%d, %d]", v.DstNumElem(0), v.DstNumElem(1), rows, cols))
	}
	deltas = append(deltas, semDelta{Idx: int(v.Semaphore()), Add: 1}) // no sem_increment field: +1 (RATIONALE.md)
	if done, err := w.xposeRows(v, size, rows, cols, deltas); done || err != nil {
		return err
	}
	// both legs walk elements of the dtype's size (the word has no elem_size)
	sl, dl := xposeLeg(size, v.SrcNumElem, v.SrcStepElem), xposeLeg(size, v.DstNumElem, v.DstStepElem)
	if err := w.limit(sl, dl); err != nil {
		return err
	}
	src, err := w.leg2D("src", v.SrcStartAddr(), sl)
	if err != nil {
		return err
	}
	da, err := w.addr8("dst_start_addr", v.DstStartAddr())
	if err != nil {
		return err
	}
	// the dst in the src's walk order: src element (c, r) → dst element (i0 = r, i1 = c),
	// so a src row r is the dst walked along its dim 1
	perm := walk2D(da, [2]int{cols, rows}, [2]int64{v.DstStepElem(1), v.DstStepElem(0)}, size)
	m := &move{src: src, dst: perm, in: dt, out: dt}
	if err := w.checkBound(&m.src, w.bound(v.SrcBoundReg()), "src_bound_reg"); err != nil {
		return err
	}
	if err := w.checkBound(&m.dst, w.bound(v.DstBoundReg()), "dst_bound_reg"); err != nil {
		return err
	}
	return w.run(m, deltas)
}

// xposeLeg is a transpose leg: num_elem and step_elem of the word, elements
// of the dtype's size bytes.
func xposeLeg(size int, num func(int) uint64, step func(int) int64) isa.Leg2D {
	return isa.Leg2D{Elem: int64(size), Num: [2]int64{int64(num(0)), int64(num(1))}, Step: [2]int64{step(0), step(1)}}
}

func dtypeSize(d isa.DTypeCode, g isa.Gen) (int, bool) {
	bits, ok := isa.DTypeBits(uint8(d), g)
	if !ok || bits%8 != 0 {
		return 0, false
	}
	return bits / 8, true
}

// indexes reads n UINT32 indices of an index tensor at an ADDR4 with C
// channels: index j at partition (base + j mod C), offset + 4·(j div C) (§11.5).
func (w *word) indexes(path string, channels, n int) ([]uint32, error) {
	if channels <= 0 {
		return nil, w.fault(-1, "idx_num_active_channels", fmt.Errorf("0 channels: no index tensor"))
	}
	base, err := w.addr4(path)
	if err != nil {
		return nil, err
	}
	stride := w.x.Mem.Map.SBUFStride
	out := make([]uint32, n)
	// Index j sits in partition j%channels, column j/channels: read each
	// partition's column run in one access, then scatter it (§11.5).
	per := (n + channels - 1) / channels
	buf := make([]byte, 4*per)
	for c := 0; c < channels && c < n; c++ {
		cnt := (n - c + channels - 1) / channels          // indexes c, c+channels, … below n
		a := control.IndexAddr(stride, base, channels, c) // then 4 bytes on per index in this partition
		if err := w.x.Mem.Read(a, buf[:4*cnt]); err != nil {
			// Name the first lane in index order whose own 4 bytes fault.
			for j := 0; j < n; j++ {
				if e := w.x.Mem.Check(control.IndexAddr(stride, base, channels, j), 4); e != nil {
					return nil, w.fault(j, path, e)
				}
			}
			return nil, w.fault(c, path, err)
		}
		for i := 0; i < cnt; i++ {
			out[c+i*channels] = binary.LittleEndian.Uint32(buf[4*i:])
		}
	}
	return out, nil
}

// indexOK applies an index bound (§11.5): an index past the leg or the bound
// register is an error, or — errors off — skips the lane.
func (w *word) indexOK(j int, v uint32, n int, b bound, errorsOn bool, what string) (bool, error) {
	bad := ""
	switch {
	case n == 1<<31 && v >= 1<<31: // a gather's row index: signed 32-bit, no leg length to name
		bad = fmt.Sprintf("index %d is 2^31 or more: a row index is a signed 32-bit value", v)
	case int(v) >= n:
		bad = fmt.Sprintf("index %d >= %d elements", v, n)
	case b.on && uint64(v) > b.limit:
		bad = fmt.Sprintf("index %d > limit r%d = %d", v, b.reg, b.limit)
	}
	if bad == "" {
		return true, nil
	}
	if errorsOn {
		return false, w.fault(j, what, fmt.Errorf("%s: %w", bad, ErrBounds))
	}
	w.x.Tracef("%s lane %d skipped: %s", w.name, j, bad)
	return false, nil
}

// indirect1D: DMA_INDIRECT (§3.5, §11.5): SRC gathers dst[j] = src[idx_s[j]],
// DST scatters dst[idx_d[j]] = op(dst, src[j]), SRC_DST does both.
func (w *word) indirect1D() error {
	deltas, err := w.events()
	if err != nil {
		return err
	}
	v, _ := w.in.Indirect1D()
	if rule, err := control.IndirectRules(v); err != nil { // refused alike by both executors
		return w.fault(-1, rule, err)
	}
	if rule, err := control.ShapeRules(w.in, w.x.Mem.Gen); err != nil {
		return w.fault(-1, rule, err)
	}
	mode := v.Flags().IndirectMode()
	C := int(v.IdxNumActiveChannels())
	sa, da, err := w.addrs(v.SrcStartAddr(), v.DstStartAddr())
	if err != nil {
		return err
	}
	sn, dn := int(v.SrcNumElem()), int(v.DstNumElem())
	ss, ds := v.SrcStepElem(), v.DstStepElem()
	sz, dz := int(isa.ElemBytes(v.SrcElemSize())), int(isa.ElemBytes(v.DstElemSize()))
	lanes := dn
	if mode == isa.IndirectModeDst {
		lanes = sn
	}
	errorsOn := v.Flags().IdxBoundIsErr() == 1
	var is, id []uint32
	if mode != isa.IndirectModeDst {
		if is, err = w.indexes("src_idx_start_addr", C, lanes); err != nil {
			return err
		}
	}
	if mode != isa.IndirectModeSrc {
		if id, err = w.indexes("dst_idx_start_addr", C, lanes); err != nil {
			return err
		}
	}
	src, dst := elems{size: sz}, elems{size: dz}
	if is != nil { // an indexed leg takes up to a row per lane; the other one mostly merges into few
		src.rows = make([]row, 0, lanes)
	}
	if id != nil {
		dst.rows = make([]row, 0, lanes)
	}
	seen := map[uint32]int{}
	sb, db := w.bound(v.SrcIdxBoundReg()), w.bound(v.DstIdxBoundReg())
	unique := v.Flags().NonUniqueDstIdx() == 0
	if is != nil && id == nil { // a gather: its dst lanes are the dst leg's elements in order
		if err := w.gather1D(&src, &dst, is, sa, ss, sn, sb, errorsOn, da, ds); err != nil {
			return err
		}
		lanes = 0 // done
	}
	for j := 0; j < lanes; j++ {
		s, d := uint32(j), uint32(j)
		ok := true
		if is != nil {
			s = is[j]
			// in range and under the bound: the common case, checked inline
			if int(s) >= sn || sb.on && uint64(s) > sb.limit {
				if ok, err = w.indexOK(j, s, sn, sb, errorsOn, "src index"); err != nil {
					return err
				}
			}
		}
		if ok && id != nil {
			d = id[j]
			if int(d) >= dn || db.on && uint64(d) > db.limit {
				if ok, err = w.indexOK(j, d, dn, db, errorsOn, "dst index"); err != nil {
					return err
				}
			}
			if ok {
				if prev, dup := seen[d]; dup && unique {
					return w.fault(j, "non_unique_dst_idx", fmt.Errorf("dst index %d repeats lane %d and non_unique_dst_idx is 0", d, prev))
				}
				seen[d] = j
			}
		}
		if !ok {
			w.x.Stats.Skipped++
			continue
		}
		src.add1(uint64(int64(sa) + int64(s)*ss))
		dst.add1(uint64(int64(da) + int64(d)*ds))
	}
	deltas = append(deltas, semDelta{Idx: int(v.Semaphore()), Add: int32(v.SemIncrement())})
	m := &move{src: src, dst: dst, in: v.InDType(), out: v.OutDType(), compute: v.ComputeOp()}
	return w.run(m, deltas) // lanes apply in order: a repeated dst index accumulates
}

// gather1D is indirect1D's lanes of a gather (SRC): lane j moves src element
// is[j] to dst element j; src and dst are empty. The src elements are added
// lane by lane (indices that follow each other merge as add1 merges them);
// the dst elements of the lanes before the first skipped one are added at
// once, as add1 would hold them — one row when they are contiguous, else
// one per lane — and lane by lane after it.
func (w *word) gather1D(src, dst *elems, is []uint32, sa uint64, ss int64, sn int, sb bound, errorsOn bool, da uint64, ds int64) error {
	head := func(k int) { // the dst elements of lanes [0, k), dst empty
		switch {
		case k == 0:
		case ds == int64(dst.size):
			dst.rows = append(dst.rows, row{da, uint32(k), int32(dst.size)})
		default:
			dst.rows = make([]row, k, len(is))
			for j := range dst.rows {
				dst.rows[j] = row{uint64(int64(da) + int64(j)*ds), 1, int32(dst.size)}
			}
		}
		dst.n = k
	}
	// src is empty: its rows are the ones built here, each of elements of
	// its size one after another, so add1's merge is "continues the last row"
	rows, next := src.rows, uint64(0) // next: the address that continues the last row
	dense := true                     // no lane skipped yet: the dst elements wait for head
	for j, s := range is {
		// in range and under the bound: the common case, checked inline
		if int(s) >= sn || sb.on && uint64(s) > sb.limit {
			ok, err := w.indexOK(j, s, sn, sb, errorsOn, "src index")
			if err != nil {
				return err
			}
			if !ok {
				w.x.Stats.Skipped++
				if dense {
					head(j)
					dense = false
				}
				continue
			}
		}
		a := uint64(int64(sa) + int64(s)*ss)
		if k := len(rows) - 1; k >= 0 && a == next {
			rows[k].n++
		} else {
			rows = append(rows, row{a, 1, int32(src.size)})
		}
		next = a + uint64(src.size)
		src.n++
		if !dense {
			dst.add1(uint64(int64(da) + int64(j)*ds))
		}
	}
	src.rows = rows
	if dense {
		head(len(is))
	}
	return nil
}

// gatherXpose: DMA_GATHER_TRANSPOSE (§3.7, §11.5): row j of L = elem_size/2
// two-byte elements at src + idx[j]·src_step_elem[1]; dst(i0 = j, i1 = k) at
// dst + 2·j + k·dst_step_elem_1.
func (w *word) gatherXpose() error {
	deltas, err := w.events()
	if err != nil {
		return err
	}
	v, _ := w.in.GatherXpose()
	if rule, err := control.GatherXposeRules(v, w.x.Mem.Gen); err != nil { // the type and shape both executors refuse alike
		return w.fault(-1, rule, err)
	}
	if rule, err := control.ShapeRules(w.in, w.x.Mem.Gen); err != nil {
		return w.fault(-1, rule, err)
	}
	n, l := int(v.SrcNumElem(1)), int(v.ElemSize())/2
	sa, da, err := w.addrs(v.SrcStartAddr(), v.DstStartAddr())
	if err != nil {
		return err
	}
	idx, err := w.indexes("src_idx_start_addr", int(v.IdxNumActiveChannels()), n)
	if err != nil {
		return err
	}
	s0, s1, d1 := v.SrcStepElem(0), v.SrcStepElem(1), v.DstStepElem1()
	b, db := w.bound(v.SrcIdxBoundReg()), w.bound(v.DstBoundReg())
	deltas = append(deltas, semDelta{Idx: int(v.Semaphore()), Add: 1})
	if done, err := w.gatherRows(sa, da, idx, l, s0, s1, d1, b, db.on, deltas); done || err != nil {
		return err
	}
	hi := v.DType().DTypeHi()
	m := &move{in: hi, out: hi, src: elems{size: 2, rows: make([]row, 0, n)}, dst: elems{size: 2, rows: make([]row, 0, n)}}
	for j, v := range idx {
		ok, err := w.indexOK(j, v, 1<<31, b, !b.quiet, "src index")
		if err != nil {
			return err
		}
		if !ok {
			w.x.Stats.Skipped++
			continue
		}
		m.src.add(uint64(int64(sa)+int64(v)*s1), l, s0)
		m.dst.add(uint64(int64(da)+2*int64(j)), l, d1)
	}
	if err := w.checkBound(&m.dst, db, "dst_bound_reg"); err != nil {
		return err
	}
	return w.run(m, deltas)
}
