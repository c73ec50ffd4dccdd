package dge

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"ndma/isa"
)

// emitRows stores each row's micro-ops straight into the slab (issue 17);
// the per-row program must be the one the plain version below — the
// lowering as it was written from 003 §3.1 and 000 §8e, op by op with
// append — builds: the same GENERATEs and DIMPUSHes, skipped lanes and index
// values, on random indexed words of every mode, bound and backend, with
// indices in range, past their leg or bound register, of 2^31 and more, and
// rows outside the memory map; and lowered with NoRowOps, the rows
// ChannelOps builds and the dump are those too.
func TestEmitRowsIsModel(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 5))
	gens := []isa.Gen{isa.Cayman, isa.MarianaPlus}
	var compared, skips, errs, gathers int // what the words covered: the test fails on too little
	for it := range 400 {
		gen := gens[it%2]
		lanes := 1 + r.IntN(40)
		idx := make([][2]uint32, lanes)
		for j := range idx {
			for w := range idx[j] {
				switch r.IntN(8) {
				case 0:
					idx[j][w] = uint32(64 + r.IntN(64)) // past a 64-element leg
				case 1:
					idx[j][w] = 1<<31 + uint32(r.IntN(4))
				case 2:
					idx[j][w] = uint32(r.Uint32())
				default:
					idx[j][w] = uint32(r.IntN(64))
				}
			}
		}
		regs := map[uint8]uint32{3: uint32(r.IntN(70)), 4: uint32(r.IntN(70))}
		bound := func(name string) string {
			if r.IntN(2) == 0 {
				return ""
			}
			return fmt.Sprintf(", %s.bc_enabled=1, %s.bc_reg=%d", name, name, 3+r.IntN(2))
		}
		srcAddr := []string{"hbm:0x0", "hbm:0xffff000", "sbuf:0:0x0", "sbuf:120:0x3f000"}[r.IntN(4)]
		var word string
		if r.IntN(3) == 0 {
			word = fmt.Sprintf(`dma_gather_transpose semaphore=%d, idx_num_active_channels=128, src_start_addr=%s, src_step_elem=[2, %d],
  src_num_elem=[8, %d], src_idx_start_addr=sbuf:0:0x100, dst_start_addr=sbuf:1:0x0, dst_step_elem_1=%d,
  dst_num_elem=[%d, 8], elem_size=16, dtype_lo=bf16, dtype_hi=bf16, gather_dim=%s%s`,
				r.IntN(32), srcAddr, []int{16, 4096, 0x10000000}[r.IntN(3)], lanes, 2*lanes, lanes, []string{"X", "Y", "Z", "W"}[r.IntN(4)], bound("src_idx_bound_reg"))
		} else {
			mode := []string{"SRC", "DST", "SRC_DST"}[r.IntN(3)]
			sn, dn := 64, lanes
			if mode == "DST" {
				sn, dn = lanes, 64
			}
			word = fmt.Sprintf(`dma_indirect semaphore=%d, sem_increment=1, idx_num_active_channels=128, indirect_mode=%s, idx_bound_is_err=%d,
  non_unique_dst_idx=1, src_start_addr=%s, src_step_elem=%d, src_num_elem=%d, src_elem_size=64,
  dst_start_addr=hbm:0x100000, dst_step_elem=64, dst_num_elem=%d, dst_elem_size=64, src_idx_start_addr=sbuf:0:0x2000,
  dst_idx_start_addr=sbuf:0:0x3000, in_dtype=fp16, out_dtype=fp16%s%s`,
				r.IntN(32), mode, r.IntN(2), srcAddr, []int{64, 4096, 0x1000000}[r.IntN(3)], sn, dn, bound("src_idx_bound_reg"), bound("dst_idx_bound_reg"))
		}
		insts := assemble(t, word)
		var index func(which, j int) (uint32, error)
		switch r.IntN(4) {
		case 0: // assumed: the identity
		case 1:
			bad := r.IntN(lanes)
			index = func(which, j int) (uint32, error) {
				if which == 1 && j == bad {
					return 0, fmt.Errorf("unreadable")
				}
				return idx[j][which], nil
			}
		default:
			index = func(which, j int) (uint32, error) { return idx[j][which], nil }
		}
		for _, b := range []Backend{Auto, Pool, RTL} {
			opt := Options{Backend: b, Regs: regs, Index: index}
			p, err := Lower(&insts[0], gen, opt)
			if p == nil {
				continue // refused before the rows (a backend without indirection, a step): not the rows' business
			}
			// the program as lower leaves it before its rows, the rows built by the model
			q := *p
			q.Channels = slices.Clone(p.Channels)
			q.Channels[0].Ops = nil
			q.Skipped, q.Indices, q.IndicesAssumed, q.opSlab, q.idxSlab = nil, [2][]uint32{}, false, nil, [2][]uint32{}
			qerr := q.emitRowsModel(isa.Map(gen), opt.Index, opt.Regs)
			if fmt.Sprint(err) != fmt.Sprint(qerr) {
				t.Fatalf("%s\nbackend %s: error %v, the model's %v", word, b, err, qerr)
			}
			compared++
			if err != nil {
				errs++
				continue
			}
			if len(p.Skipped) > 0 {
				skips++
			}
			if p.Kind == KindGatherTranspose {
				gathers++
			}
			if d := cmp.Diff(q.Channels[0].Ops, p.Channels[0].Ops); d != "" {
				t.Fatalf("%s\nbackend %s: ops differ from the model's (-model +emitRows):\n%s", word, b, d)
			}
			if !slices.Equal(q.Skipped, p.Skipped) || q.IndicesAssumed != p.IndicesAssumed {
				t.Fatalf("%s\nbackend %s: skipped %v (assumed %v), the model's %v (%v)", word, b, p.Skipped, p.IndicesAssumed, q.Skipped, q.IndicesAssumed)
			}
			for w := range 2 {
				if !slices.Equal(q.Indices[w], p.Indices[w]) || (q.Indices[w] == nil) != (p.Indices[w] == nil) {
					t.Fatalf("%s\nbackend %s: indices[%d] %v, the model's %v", word, b, w, p.Indices[w], q.Indices[w])
				}
			}
			if string(p.AppendDump(nil)) != string(q.AppendDump(nil)) {
				t.Fatalf("%s\nbackend %s: dumps differ", word, b)
			}
			// NoRowOps: the rows left out of Channels[0].Ops, built by ChannelOps as stored
			opt.NoRowOps = true
			u, err := Lower(&insts[0], gen, opt)
			if err != nil {
				t.Fatalf("%s\nbackend %s, NoRowOps: %v", word, b, err)
			}
			if n := len(u.Channels[0].Ops); n > 1 {
				t.Fatalf("%s\nbackend %s, NoRowOps: %d ops stored, want the REGWRITE at most", word, b, n)
			}
			if d := cmp.Diff(q.Channels[0].Ops, u.ChannelOps(0)); d != "" {
				t.Fatalf("%s\nbackend %s, NoRowOps: ChannelOps differ from the model's (-model +ChannelOps):\n%s", word, b, d)
			}
			if !slices.Equal(q.Skipped, u.Skipped) || string(u.AppendDump(nil)) != string(q.AppendDump(nil)) {
				t.Fatalf("%s\nbackend %s, NoRowOps: skipped %v or dump differ from the model's", word, b, u.Skipped)
			}
		}
	}
	t.Logf("%d programs compared: %d with skipped lanes, %d index errors, %d gather-transposes", compared, skips, errs, gathers)
	if compared < 200 || skips < 50 || errs < 20 || gathers < 50 {
		t.Errorf("the words covered too little: %d programs, %d with skips, %d errors, %d gather-transposes", compared, skips, errs, gathers)
	}
}

// emitRowsModel is emitRows as it was before issue 17's rework (append per
// op, a closure per lane): the reference the test holds the rows to.
func (p *Program) emitRowsModel(m isa.AddressMap, index func(which, j int) (uint32, error), regs map[uint8]uint32) error {
	if index == nil {
		index, p.IndicesAssumed = func(_, j int) (uint32, error) { return uint32(j), nil }, true
	}
	ch := &p.Channels[0] // an indexed word runs on one channel (fanOut)
	read := func(which, n int) error {
		if cap(p.idxSlab[which]) < n { // LowerInto reuses the last word's
			p.idxSlab[which] = make([]uint32, n)
		}
		p.Indices[which] = p.idxSlab[which][:n]
		clear(p.Indices[which])
		for j := range n {
			v, err := index(which, j)
			if err != nil {
				return fmt.Errorf("%w: %s index %d: %w", ErrIndex, [...]string{"src", "dst"}[which], j, err)
			}
			p.Indices[which][j] = v
		}
		return nil
	}
	regWrite := p.Gen == isa.Cayman || p.Gen == isa.Mariana // REGWRITE retired from MARIANA_PLUS on (003 §3.3)
	dims := p.Backend.Dims()
	var src, dst [maxDims]int64 // the legs' steps in elements (a step emit would refuse, emitRows refuses too)
	for d := 0; d < dims; d++ {
		var err error
		if src[d], err = elemStep(&ch.Src, d, "src"); err != nil {
			return err
		}
		if dst[d], err = elemStep(&ch.Dst, d, "dst"); err != nil {
			return err
		}
	}
	if p.Kind == KindGatherTranspose {
		// 000 §8e: row = idx[c]; src_row = src + row·src_step_elem[1]; GENERATE(src_row,
		// elem_size); DIMPUSH src (…, src_step_elem[0]), dst (…, dst_step_elem_1). The
		// row's L elements are its counts (RATIONALE.md: 000 §8e's 16/128 are the tile).
		n, l := int(ch.Src.Num[1]), ch.Dst.Num[1]
		if err := read(0, n); err != nil {
			return err
		}
		ss, ds := src[0], dst[1] // the row walks src dim 0 and dst dim 1
		ch.Ops = p.ops(1 + n*(dims+1))
		if regWrite { // ahead of the data BDs, once per channel (003 §3.3, §4)
			ch.Ops = append(ch.Ops, Op{Kind: RegWrite})
		}
		ib := p.Index.Bound[0]
		for j, v := range p.Indices[0] {
			if v >= 1<<31 || ib.Enabled && uint64(v) > uint64(regs[ib.Reg]) { // the bounds of sdma's gather (field-tables §11.5)
				p.Skipped = append(p.Skipped, j)
				continue
			}
			soc, err := m.SoC(uint64(int64(ch.Src.Addr)+int64(v)*ch.Src.Step[1]), p.Core)
			if err != nil { // outside the memory map: the expansion reports it where it moves bytes
				p.Skipped = append(p.Skipped, j)
				continue
			}
			ch.Ops = append(ch.Ops, Op{Kind: Generate, Dir: RD, Addr: soc, ElemSize: int32(p.RowBytes), Sem: int32(p.Semaphore), Row: int32(j)})
			ch.Ops = append(ch.Ops, Op{Kind: DimPush, SrcNum: l, DstNum: l, SrcStep: ss, DstStep: ds})
			for d := 1; d < dims; d++ {
				ch.Ops = append(ch.Ops, Op{Kind: DimPush, SrcNum: 1, DstNum: 1})
			}
		}
		return nil
	}
	// INDIRECT1D: lane j is one element of each leg (field-tables §11.5): a gather
	// reads src[idx_s[j]], a scatter writes dst[idx_d[j]]; the GENERATE is the
	// indexed leg's, RD at the src element, or WR at the dst element of a scatter.
	mode := p.Index.Mode
	lanes := int(ch.Dst.Num[0])
	if !mode.SrcIndexed() {
		lanes = int(ch.Src.Num[0])
	}
	for which, on := range [2]bool{mode.SrcIndexed(), mode.DstIndexed()} {
		if on {
			if err := read(which, lanes); err != nil {
				return err
			}
		}
	}
	ss, ds := src[0], dst[0]
	at := func(l *Leg, which, j int) (uint64, bool) {
		v := uint32(j)
		if idx := p.Indices[which]; idx != nil {
			v = idx[j]
			if lim := p.Index.Bound[which]; v >= l.Num[0] || lim.Enabled && uint64(v) > uint64(regs[lim.Reg]) { // sdma's lane rule (§11.5)
				return 0, false
			}
		}
		return uint64(int64(l.Addr) + int64(v)*l.Step[0]), true
	}
	ch.Ops = p.ops(1 + lanes*(dims+1))
	if regWrite {
		ch.Ops = append(ch.Ops, Op{Kind: RegWrite})
	}
	for j := range lanes {
		s, ok1 := at(&ch.Src, 0, j)
		d, ok2 := at(&ch.Dst, 1, j)
		if !ok1 || !ok2 {
			p.Skipped = append(p.Skipped, j)
			continue
		}
		g := Op{Kind: Generate, Dir: RD, Addr: s, ElemSize: int32(ch.Src.ElemSize), Sem: int32(p.Semaphore), Row: int32(j)}
		if mode == IndexDst {
			g.Dir, g.Addr, g.ElemSize = WR, d, int32(ch.Dst.ElemSize)
		}
		var err error
		if g.Addr, err = m.SoC(g.Addr, p.Core); err != nil {
			p.Skipped = append(p.Skipped, j)
			continue
		}
		ch.Ops = append(ch.Ops, g, Op{Kind: DimPush, SrcNum: 1, DstNum: 1, SrcStep: ss, DstStep: ds})
		for d := 1; d < dims; d++ {
			ch.Ops = append(ch.Ops, Op{Kind: DimPush, SrcNum: 1, DstNum: 1})
		}
	}
	return nil
}

// socs answers what AddressMap.SoC answers (field-tables §11.2), address for
// address, over runs that stay in one region and jump between SBUF, PSUM,
// HBM and unmapped addresses, on every generation and a few cores.
func TestSocsIsSoC(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 2))
	for _, g := range isa.Gens() {
		m := isa.Map(g)
		for core := range 3 {
			tr := socs{m: &m, core: core}
			a := uint64(0)
			for range 5000 {
				switch r.IntN(8) {
				case 0:
					a = uint64(r.Int64N(int64(m.SBUFSize)))
				case 1:
					a = m.PSUMBase + uint64(r.Int64N(int64(max(m.PSUMSize, 1))))
				case 2:
					a = m.HBMBase + uint64(r.Int64N(1<<34))
				case 3:
					a = uint64(r.Uint64())
				default:
					a += uint64(r.IntN(1 << 16)) // on in the region, perhaps past its end
				}
				want, werr := m.SoC(a, core)
				got, err := tr.soc(a)
				if got != want || (err == nil) != (werr == nil) {
					t.Fatalf("%s core %d: soc(%#x) = %#x, %v; SoC says %#x, %v", g, core, a, got, err, want, werr)
				}
			}
		}
	}
}
