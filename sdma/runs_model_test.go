package sdma

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"ndma/dge"
	"ndma/isa"
)

// indirectRuns and gatherRuns read the per-row program's index values in
// place and take the common lane without a call per index (issue 17); the
// runs, keep masks and errors must be those of the plain versions below —
// the expansion as it was written from field-tables §11.5, an index call
// per lane — on random indexed words of every mode and bound, with indices
// in range, past their leg or bound register, of 2^31 and more, quiet and
// erroring, through the per-row program (p.IndexValue) and without one
// (SUNDA: the caller's index function).
func TestIndexedRunsAreModel(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 6))
	var compared, errs, skips, gathers int
	for it := range 600 {
		gen := []isa.Gen{isa.Cayman, isa.MarianaPlus, isa.Sunda}[it%3]
		lanes := 1 + r.IntN(48)
		idx := make([][2]uint32, lanes)
		dirty := r.IntN(2) == 0 // some indices out of range or past a bound, or none
		for j := range idx {
			for w := range idx[j] {
				switch r.IntN(10) + 2*b2i(!dirty) {
				case 0:
					idx[j][w] = uint32(64 + r.IntN(64))
				case 1:
					idx[j][w] = 1<<31 + uint32(r.IntN(4))
				default:
					idx[j][w] = uint32(r.IntN(64))
				}
			}
		}
		regs := map[uint8]uint32{3: uint32(r.IntN(80)), 4: uint32(r.IntN(80)), 5: 0x100000 + uint32(r.IntN(0x400))}
		bound := func(name string, reg int) string {
			switch r.IntN(3) {
			case 0:
				return ""
			case 1:
				return fmt.Sprintf(", %s.bc_enabled=1, %s.bc_reg=%d", name, name, reg)
			}
			return fmt.Sprintf(", %s.bc_enabled=1, %s.bc_reg=%d, %s.bc_disable_oob_error_notif=1", name, name, reg, name)
		}
		var src string
		if r.IntN(5) < 2 && gen != isa.Sunda { // no GATHER_XPOSE on SUNDA
			src = fmt.Sprintf(`dma_gather_transpose idx_num_active_channels=128, src_start_addr=hbm:0x0, src_step_elem=[%d, 64],
  src_num_elem=[8, %d], src_idx_start_addr=sbuf:0:0x100, dst_start_addr=hbm:0x100000, dst_step_elem_1=%d,
  dst_num_elem=[%d, 8], elem_size=16, dtype_lo=bf16, dtype_hi=bf16, gather_dim=Y%s%s`,
				[]int{2, 2, 4}[r.IntN(3)], lanes, []int{2 * lanes, 2*lanes + 2, 32}[r.IntN(3)], lanes, bound("src_idx_bound_reg", 3+r.IntN(2)), bound("dst_bound_reg", 5))
		} else {
			mode := []string{"SRC", "DST", "SRC_DST"}[r.IntN(3)]
			sn, dn := 64, lanes
			if mode == "DST" {
				sn, dn = lanes, 64
			}
			src = fmt.Sprintf(`dma_indirect idx_num_active_channels=128, indirect_mode=%s, idx_bound_is_err=%d, non_unique_dst_idx=%d,
  src_start_addr=hbm:0x0, src_step_elem=%d, src_num_elem=%d, src_elem_size=64, dst_start_addr=hbm:0x100000, dst_step_elem=64,
  dst_num_elem=%d, dst_elem_size=64, src_idx_start_addr=sbuf:0:0x2000, dst_idx_start_addr=sbuf:0:0x3000, in_dtype=fp16, out_dtype=fp16%s%s`,
				mode, r.IntN(2), r.IntN(2), []int{64, 128}[r.IntN(2)], sn, dn, bound("src_idx_bound_reg", 3), bound("dst_idx_bound_reg", 4))
		}
		in := word(t, gen, src)
		bad := -1
		if r.IntN(5) == 0 {
			bad = r.IntN(lanes)
		}
		index := func(which, j int) (uint32, error) {
			if j == bad && which == 0 {
				return 0, fmt.Errorf("index %d unreadable", j)
			}
			return idx[j][which], nil
		}
		p, err := dge.Lower(&in, gen, dge.Options{Regs: regs, Index: index})
		if p == nil {
			t.Fatalf("%v\n%s", err, src)
		}
		if err != nil {
			continue // the rows could not be read: Expand never runs
		}
		f := index // SUNDA: no per-row program, the caller's function (Expand's own choice)
		if p.Indices[0] != nil || p.Indices[1] != nil {
			f = p.IndexValue
		}
		ch := &p.Channels[0]
		var s1, d1, s2, d2 []run
		var k1, k2 []bool
		var e1, e2 error
		if p.Kind == dge.KindGatherTranspose {
			gathers++
			s1, d1, k1, e1 = gatherRuns(p, ch, f, regs, MaxDescriptors, nil, nil)
			s2, d2, k2, e2 = gatherRunsModel(p, ch, f, regs, MaxDescriptors, nil, nil)
		} else {
			s1, d1, e1 = indirectRuns(p, ch, f, regs, MaxDescriptors, nil, nil)
			s2, d2, e2 = indirectRunsModel(p, ch, f, regs, MaxDescriptors, nil, nil)
		}
		compared++
		if fmt.Sprint(e1) != fmt.Sprint(e2) {
			t.Fatalf("%s\n%s: error %v, the model's %v", src, gen, e1, e2)
		}
		if e1 != nil {
			errs++
			continue
		}
		if len(p.Skipped) > 0 || k1 != nil {
			skips++
		}
		if !slices.Equal(s1, s2) || !slices.Equal(d1, d2) || !slices.Equal(k1, k2) || (k1 == nil) != (k2 == nil) {
			t.Fatalf("%s\n%s: runs differ from the model's:\nsrc %v\n    %v\ndst %v\n    %v\nkeep %v\n     %v", src, gen, s1, s2, d1, d2, k1, k2)
		}
	}
	t.Logf("%d expansions compared: %d errors, %d with skipped lanes, %d gather-transposes", compared, errs, skips, gathers)
	if compared < 400 || errs < 40 || skips < 100 || gathers < 80 {
		t.Errorf("the words covered too little: %d compared, %d errors, %d with skips, %d gathers", compared, errs, skips, gathers)
	}
}

// indirectRunsModel and gatherRunsModel are the two as they were before
// issue 17's rework: the references the test holds them to.
func indirectRunsModel(p *dge.Program, ch *dge.Channel, index IndexFunc, regs map[uint8]uint32, limit int, s0, d0 []run) (src, dst []run, err error) {
	src, dst = s0, d0
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
	seen := map[uint32]int64{}
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
			v, _ := index(1, int(j)) // read without error: at read it
			if prev, dup := seen[v]; dup {
				return nil, nil, &LaneError{Lane: int(j), Rule: "non_unique_dst_idx", Err: fmt.Errorf("dst index %d repeats lane %d and non_unique_dst_idx is 0", v, prev)}
			}
			seen[v] = j
		}
		// an indexed leg's row is its GENERATE's one descriptor, never merged
		// with its neighbour (003 §3.1: "GENERATE emits exactly one
		// descriptor. For an indirect gather it is called once per gathered
		// row"); SUNDA's POOL kernel has no GENERATE and keeps maximal runs
		src = laneRun(src, s, uint64(ch.Src.ElemSize), mode.SrcIndexed() && p.Backend != dge.NoDGE)
		dst = laneRun(dst, d, uint64(ch.Dst.ElemSize), mode.DstIndexed() && p.Backend != dge.NoDGE)
		if len(src) > limit || len(dst) > limit {
			break
		}
	}
	return src, dst, nil
}

func gatherRunsModel(p *dge.Program, ch *dge.Channel, index IndexFunc, regs map[uint8]uint32, limit int, s0, d0 []run) (src, dst []run, keep []bool, err error) {
	src, dst = s0, d0
	n, l := int64(ch.Src.Num[1]), int64(ch.Dst.Num[1])
	es := uint64(ch.Src.ElemSize)
	ib, db := p.Index.Bound[0], ch.Dst.Bound
	idx := make([]uint32, n)
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
		v, err := index(0, int(j))
		if err != nil {
			return nil, nil, nil, err
		}
		idx[j] = v
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
		for k := int64(0); k < l; k++ {
			if dstCol {
				dst = appendRun(dst, elem2(&ch.Dst, jb, k), uint64(je-jb)*es)
				continue
			}
			for j := jb; j < je; j++ {
				if keep == nil || keep[j*l+k] {
					dst = appendRun(dst, elem2(&ch.Dst, j, k), es)
				}
			}
		}
		if len(src) > limit || len(dst) > limit {
			break
		}
	}
	return src, dst, keep, nil
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
