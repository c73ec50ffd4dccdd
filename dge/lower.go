package dge

import (
	"cmp"
	"errors"
	"fmt"
	"slices"

	"ndma/isa"
)

// Lowering a resolved word into its Program (source document 003 §4–§5).

// Options steer lowering.
type Options struct {
	Backend Backend          // Auto: Pool for DIRECT2D and TRANSPOSE, Software for INDIRECT1D and GATHER_XPOSE
	Regs    map[uint8]uint32 // engine registers, for the bound limits r[bc_reg] the $S dump prints
	Core    int              // NeuronCore of the SoC addresses
	// Index returns index j of an indexed word's index tensor (which = 0 src,
	// 1 dst): `run` reads it from memory; nil is the identity j → j, which
	// the program records as assumed (IndicesAssumed).
	Index func(which, j int) (uint32, error)
	// NoRowOps leaves an indexed word's per-row GENERATEs and DIMPUSHes out
	// of Channels[0].Ops, which then holds only the ops ahead of the rows;
	// ChannelOps (and the dump) builds them as they would be stored. For the
	// engines, which execute the descriptors and never read the micro-ops: a
	// 4,096-row word is 20,480 of them, 1 MB (issue 17).
	NoRowOps bool
	// Engines, for a word of a block the runtime placed (a fired dma[]
	// block, neff.md §4.7: its descriptors built at load, DGE mode
	// "none"), is its queue's DMA engines: the word's rows are spread over
	// that many (at most 16) whatever the backend and wherever the legs
	// are, as docs/hw-timing.md §2.1 measured (C6: "each descriptor is
	// spread over all 16 engines separately") and the packet model shares
	// them; 0: the DGE's fan-out rule.
	Engines int
}

// ErrNotLowered is returned for words the DGE does not lower.
var ErrNotLowered = errors.New("not lowered by the DGE")

// ErrIndex wraps a failure to read an index tensor: the word lowered (Lower
// returns its program with the error), its rows did not.
var ErrIndex = errors.New("index tensor")

// partitionSpanPerChannel is the fan-out rule: a leg spanning P SBUF
// partitions uses ceil(P/8) channels, at most 16 (INFERRED, RATIONALE.md).
const (
	partitionsPerChannel = 8
	maxChannels          = 16
)

// Lower turns a resolved DMA word into the micro-op program of its backend.
func Lower(in *isa.Inst, gen isa.Gen, opt Options) (*Program, error) {
	if opt.Core < 0 {
		return nil, fmt.Errorf("core %d: a NeuronCore number is 0 or more", opt.Core)
	}
	return (&Program{}).lower(in, gen, opt)
}

// LowerInto is Lower into p, reusing the storage of p's channels, micro-ops
// and index values: for a caller that lowers word after word and keeps no
// program past the next word (a NEFF's --stats, its listing). It returns
// what Lower would, p or nil; p's previous program is gone either way.
func LowerInto(p *Program, in *isa.Inst, gen isa.Gen, opt Options) (*Program, error) {
	if opt.Core < 0 {
		return nil, fmt.Errorf("core %d: a NeuronCore number is 0 or more", opt.Core)
	}
	chans, ops, idx := p.Channels[:0], p.opSlab[:0], p.idxSlab
	*p = Program{Channels: chans, opSlab: ops, idxSlab: idx}
	return p.lower(in, gen, opt)
}

// lower fills p, a zero Program but for the storage LowerInto keeps.
func (p *Program) lower(in *isa.Inst, gen isa.Gen, opt Options) (*Program, error) {
	p.Gen, p.Core = gen, opt.Core
	var err error
	switch in.Opcode() {
	case isa.OpPseudoDMADirect2D:
		return nil, fmt.Errorf("PSEUDO_DMA_DIRECT2D: relocate it first (its addresses are NEFF variables): %w", ErrNotLowered)
	case isa.OpDMAMemcpy:
		p.Kind = KindDirect2D
		err = p.direct2D(in)
	case isa.OpDMATranspose:
		p.Kind = KindTranspose
		err = p.xpose(in)
	case isa.OpDMAIndirect:
		p.Kind = KindIndirect1D
		err = p.indirect1D(in)
	case isa.OpDMAGatherTranspose:
		p.Kind = KindGatherTranspose
		err = p.gatherXpose(in)
	default:
		return nil, fmt.Errorf("%s: %w", in.Def().Mnemonic(), ErrNotLowered)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", in.Def().Mnemonic(), err)
	}
	for _, l := range []*Leg{&p.Src, &p.Dst} {
		for d := range l.Num {
			if l.Num[d] == 0 {
				if d < 2 && !(p.Kind == KindIndirect1D && d == 1) {
					return nil, fmt.Errorf("%s: %s_num_elem[%d] = 0: nothing to move", in.Def().Mnemonic(), map[bool]string{true: "src", false: "dst"}[l.IsSrc], d)
				}
				l.Num[d] = 1 // unused dimensions walk once
			}
		}
	}
	if err := p.sameData(); err != nil {
		return nil, fmt.Errorf("%s: %w", in.Def().Mnemonic(), err)
	}
	if err := p.chooseBackend(opt.Backend); err != nil {
		return nil, err
	}
	m := isa.Map(gen)
	for _, l := range []*Leg{&p.Src, &p.Dst} {
		if l.SoC, err = m.SoC(l.Addr, p.Core); err != nil {
			return nil, fmt.Errorf("%s: %s: %w", in.Def().Mnemonic(), map[bool]string{true: "src", false: "dst"}[l.IsSrc], err)
		}
	}
	for k, l := range []*Leg{&p.Src, &p.Dst} {
		if l.Bound.Enabled {
			p.BoundLimit[k] = l.Bound.Limit(opt.Regs, l.Addr) // the leg's limit where it starts
		}
	}
	if err := p.fanOut(m, opt.Engines); err != nil {
		return nil, err
	}
	p.reshape(m)
	if p.PerRow() && p.Backend != NoDGE {
		return p, p.emitRows(m, opt.Index, opt.Regs, !opt.NoRowOps)
	}
	return p, p.emit()
}

// immediate is the address a of the field at path, which must hold an
// immediate after relocation.
func immediate(path string, a isa.Addr8) (uint64, error) {
	v, ok := a.Imm()
	if !ok {
		return 0, fmt.Errorf("%s: address form %q not supported by lowering (register and table addresses are resolved at run time)", path, a.Form())
	}
	if a.ShapeFromReg() {
		return 0, fmt.Errorf("%s: the shape comes from a $S register, known only at run time", path)
	}
	return v, nil
}

// boundCheck decodes a BOUND_CHECK_REG (field-tables §2.3).
func boundCheck(r isa.BoundCheckRegView) BoundCheck {
	return BoundCheck{Enabled: r.BCEnabled() == 1, Quiet: r.BCDisableOOBErrorNotif() == 1, Reg: uint8(r.BCReg())}
}

// leg2D is the 2-D leg of elem-byte elements at the address a of the field
// leg+"_start_addr", num_elem and step_elem read through num and step.
func leg2D(leg string, a isa.Addr8, elem uint32, num func(int) uint64, step func(int) int64) (Leg, error) {
	path := "src_start_addr" // a constant: a joined string would allocate per word
	if leg == "dst" {
		path = "dst_start_addr"
	}
	start, err := immediate(path, a)
	if err != nil {
		return Leg{}, err
	}
	l := Leg{Addr: start, ElemSize: elem, IsSrc: leg == "src"}
	for d := 0; d < 2; d++ {
		l.Num[d], l.Step[d] = uint32(num(d)), step(d)
	}
	return l, nil
}

func (p *Program) direct2D(in *isa.Inst) error {
	v, _ := in.Direct2D()
	p.Semaphore, p.SemIncrement = int(v.Semaphore()), int(v.SemIncrement())
	p.InDtype, p.OutDtype = uint8(v.InDType()), uint8(v.OutDType())
	p.ComputeOp = uint8(v.ComputeOp())
	var err error
	if p.Src, err = leg2D("src", v.SrcStartAddr(), uint32(isa.ElemBytes(v.SrcElemSize())), v.SrcNumElem, v.SrcStepElem); err != nil {
		return err
	}
	if p.Dst, err = leg2D("dst", v.DstStartAddr(), uint32(isa.ElemBytes(v.DstElemSize())), v.DstNumElem, v.DstStepElem); err != nil {
		return err
	}
	p.Src.Bound, p.Dst.Bound = boundCheck(v.SrcBoundReg()), boundCheck(v.DstBoundReg())
	return nil
}

// sameData is the second bound layer (field-tables §8.4): a plain copy moves
// as many bytes out as in; a cast or compute as many elements, each dst
// element a whole number of out scalars (the totals of DIRECT2D; an
// INDIRECT1D's depend on its lanes, and the engines balance them).
func (p *Program) sameData() error {
	if p.Kind != KindDirect2D && p.Kind != KindIndirect1D {
		return nil
	}
	if p.ComputeOp == uint8(isa.DGEComputeOpNone) && p.InDtype == p.OutDtype {
		if p.Kind == KindDirect2D && p.Src.Bytes() != p.Dst.Bytes() {
			return fmt.Errorf("src moves %d bytes, dst %d: without a cast or compute both legs carry the same bytes (docs/field-tables.md §8.4)", p.Src.Bytes(), p.Dst.Bytes())
		}
		return nil
	}
	in, err1 := dtypeBytes(uint64(p.InDtype), p.Gen)
	out, err2 := dtypeBytes(uint64(p.OutDtype), p.Gen)
	if err1 != nil || err2 != nil {
		return fmt.Errorf("a cast or compute needs whole-byte dtypes: %v", errors.Join(err1, err2))
	}
	if p.Kind == KindDirect2D && (p.Src.Bytes()%uint64(in) != 0 || p.Dst.Bytes()%uint64(out) != 0 || p.Src.Bytes()/uint64(in) != p.Dst.Bytes()/uint64(out)) {
		return fmt.Errorf("src has %d bytes of %s, dst %d bytes of %s: a cast or compute moves element for element (docs/field-tables.md §11.4)",
			p.Src.Bytes(), isa.DType().Format(uint64(p.InDtype)), p.Dst.Bytes(), isa.DType().Format(uint64(p.OutDtype)))
	}
	if p.Dst.ElemSize%out != 0 { // the CCE's scalars may not straddle two dst elements
		return fmt.Errorf("dst elements of %d bytes are no whole number of %s scalars", p.Dst.ElemSize, isa.DType().Format(uint64(p.OutDtype)))
	}
	return nil
}

func dtypeBytes(d uint64, g isa.Gen) (uint32, error) {
	bits, ok := isa.DTypeBits(uint8(d), g)
	if !ok || bits%8 != 0 {
		return 0, fmt.Errorf("dtype %s has no whole-byte size", isa.DType().Format(d))
	}
	return uint32(bits / 8), nil
}

// noIncrement is the completion increment of the words without a
// sem_increment field (the transposes): 1 (INFERRED, RATIONALE.md).
const noIncrement = 1

func (p *Program) xpose(in *isa.Inst) error {
	v, _ := in.Xpose()
	p.Semaphore, p.SemIncrement = int(v.Semaphore()), noIncrement
	p.InDtype, p.OutDtype = uint8(v.InDType()), uint8(v.OutDType())
	size, err := dtypeBytes(uint64(v.OutDType()), p.Gen)
	if err != nil {
		return err
	}
	if p.Src, err = leg2D("src", v.SrcStartAddr(), size, v.SrcNumElem, v.SrcStepElem); err != nil {
		return err
	}
	if p.Dst, err = leg2D("dst", v.DstStartAddr(), size, v.DstNumElem, v.DstStepElem); err != nil {
		return err
	}
	p.Src.Bound, p.Dst.Bound = boundCheck(v.SrcBoundReg()), boundCheck(v.DstBoundReg())
	// the DRE cuts the block into tiles of these (field-tables §3.6, §11.5)
	p.Tile = Tile{Rows: uint32(v.TileSrcRows()), Cols: uint32(v.TileSrcCols())}
	if p.Src.Num[1] != p.Dst.Num[0] || p.Src.Num[0] != p.Dst.Num[1] {
		return fmt.Errorf("dst_num_elem [%d, %d] is not the transpose of src_num_elem [%d, %d] (docs/field-tables.md §11.5)", p.Dst.Num[0], p.Dst.Num[1], p.Src.Num[0], p.Src.Num[1])
	}
	return nil
}

func (p *Program) indirect1D(in *isa.Inst) error {
	v, _ := in.Indirect1D()
	p.Semaphore, p.SemIncrement = int(v.Semaphore()), int(v.SemIncrement())
	p.InDtype, p.OutDtype = uint8(v.InDType()), uint8(v.OutDType())
	p.ComputeOp = uint8(v.ComputeOp())
	// DMA_INDIRECT_FLAGS and the two index bounds (field-tables §2.5, §3.5)
	f := v.Flags()
	p.Index = Indexing{
		Mode:         IndexMode(f.IndirectMode()),
		BoundIsErr:   f.IdxBoundIsErr() == 1,
		NonUniqueDst: f.NonUniqueDstIdx() == 1,
		GatherDim:    uint8(f.GatherDim()),
		ScatterDim:   uint8(f.ScatterDim()),
		Bound:        [2]BoundCheck{boundCheck(v.SrcIdxBoundReg()), boundCheck(v.DstIdxBoundReg())},
	}
	src, err := immediate("src_start_addr", v.SrcStartAddr())
	if err != nil {
		return err
	}
	p.Src = Leg{Addr: src, ElemSize: uint32(isa.ElemBytes(v.SrcElemSize())), IsSrc: true}
	p.Src.Num[0], p.Src.Step[0] = uint32(v.SrcNumElem()), v.SrcStepElem()
	dst, err := immediate("dst_start_addr", v.DstStartAddr())
	if err != nil {
		return err
	}
	p.Dst = Leg{Addr: dst, ElemSize: uint32(isa.ElemBytes(v.DstElemSize()))}
	p.Dst.Num[0], p.Dst.Step[0] = uint32(v.DstNumElem()), v.DstStepElem()
	return nil
}

func (p *Program) gatherXpose(in *isa.Inst) error {
	v, _ := in.GatherXpose()
	p.Semaphore, p.SemIncrement = int(v.Semaphore()), noIncrement
	p.InDtype, p.OutDtype = uint8(v.DType().DTypeLo()), uint8(v.DType().DTypeHi())
	// src rows are gathered through one index tensor; its bound has no flags coupling (field-tables §2.3, §3.7)
	p.Index = Indexing{Mode: IndexSrc, GatherDim: uint8(v.Flags().GatherDim()), Bound: [2]BoundCheck{boundCheck(v.SrcIdxBoundReg())}}
	size, err := dtypeBytes(uint64(p.OutDtype), p.Gen)
	if err != nil {
		return err
	}
	src, err := immediate("src_start_addr", v.SrcStartAddr())
	if err != nil {
		return err
	}
	dst, err := immediate("dst_start_addr", v.DstStartAddr())
	if err != nil {
		return err
	}
	p.Src = Leg{Addr: src, ElemSize: size, IsSrc: true}
	p.RowBytes = int(v.ElemSize())
	for d := 0; d < 2; d++ {
		p.Src.Num[d], p.Src.Step[d] = uint32(v.SrcNumElem(d)), v.SrcStepElem(d)
	}
	// dst(i0 = j, i1 = k) at dst + 2·j + k·dst_step_elem_1: dim-0 step is the dtype size (§3.7, §11.5)
	p.Dst = Leg{Addr: dst, ElemSize: size, Bound: boundCheck(v.DstBoundReg())} // keyed on the dst ADDR8 (§3.7)
	p.Dst.Num[0], p.Dst.Num[1] = uint32(v.DstNumElem(0)), uint32(v.DstNumElem(1))
	p.Dst.Step[0], p.Dst.Step[1] = int64(size), v.DstStepElem1()
	return nil
}

// chooseBackend applies the rule: SUNDA has no DGE; auto is Pool for DIRECT2D
// and TRANSPOSE, Software for the indexed words; RTL moves bytes only.
func (p *Program) chooseBackend(b Backend) error {
	if p.Gen == isa.Sunda {
		if p.Kind != KindDirect2D && p.Kind != KindIndirect1D {
			return fmt.Errorf("%s does not exist on SUNDA", p.Kind)
		}
		p.Backend = NoDGE
		return nil
	}
	if b == Auto {
		b = Pool
		if p.Kind == KindIndirect1D || p.Kind == KindGatherTranspose {
			b = Software
		}
	}
	if b == RTL && (p.InDtype != p.OutDtype || p.ComputeOp != uint8(isa.DGEComputeOpNone) || p.Src.Bound.Enabled || p.Dst.Bound.Enabled) {
		return fmt.Errorf("the RTL backend is pure transport: no cast, compute or bounds (docs/field-tables.md §8.2)")
	}
	if (b == Pool || b == RTL) && p.PerRow() { // only the software backend carries indirection_dim (field-tables §8.2)
		return fmt.Errorf("the %s backend has no indirection: %s needs the software backend", backendTitle[b], p.Kind)
	}
	p.Backend = b
	return nil
}

var backendTitle = map[Backend]string{Pool: "Pool", RTL: "RTL"}

// partDim finds the dimension of a leg that walks SBUF partitions (a byte
// step of at least one partition stride, more than one element).
func partDim(l *Leg, m isa.AddressMap) int {
	if r, _, _ := m.Split(l.Addr); r != isa.SBUF {
		return -1
	}
	for d := maxDims - 1; d >= 0; d-- {
		s := l.Step[d]
		if s < 0 {
			s = -s
		}
		if l.Num[d] > 1 && uint64(s) >= m.SBUFStride {
			return d
		}
	}
	return -1
}

// Partitions is the number of SBUF partitions the leg spans (0 off SBUF).
func (l *Leg) Partitions(m isa.AddressMap) int { return partitions(l, m) }

// partitions is the number of SBUF partitions a leg spans (0 off SBUF).
func partitions(l *Leg, m isa.AddressMap) int {
	if r, _, _ := m.Split(l.Addr); r != isa.SBUF {
		return 0
	}
	lo, hi := l.extent()
	return int((hi-1)/m.SBUFStride-lo/m.SBUFStride) + 1
}

// fanOut splits the transfer over channels (INFERRED rule, RATIONALE.md): a
// leg spanning P SBUF partitions uses ceil(P/8) channels, at most 16; the
// split is along that leg's partition dimension, and only where both legs
// have the same shape (so each channel's share is itself a 2-D pattern) and
// no dst byte is written twice (the channels run one after another, which
// is stream order only along the outermost dimension);
// everything else, HBM-only transfers included, uses one channel. A word
// of a runtime-placed block (engines > 0) is spread over its queue's
// engines instead, whatever the backend: along a leg's partition
// dimension, else the outermost dimension of more than one element (a
// DRAM → DRAM copy; each element of elem_size bytes moves whole), each
// engine an even share, as the packet model shares a
// block (docs/hw-timing.md §2.1, C6).
func (p *Program) fanOut(m isa.AddressMap, engines int) error {
	n, dim := 1, -1
	splittable := p.Src.Num == p.Dst.Num && p.Src.ElemSize == p.Dst.ElemSize && p.Kind == KindDirect2D && !p.Dst.revisits()
	if splittable && (p.Backend != NoDGE || engines > 0) {
		for _, l := range []*Leg{&p.Src, &p.Dst} {
			if d := partDim(l, m); d >= 0 {
				c := min(maxChannels, (partitions(l, m)+partitionsPerChannel-1)/partitionsPerChannel)
				if engines > 0 {
					c = min(maxChannels, engines)
				}
				if c > n {
					n, dim = c, d
				}
			}
		}
		if dim < 0 && engines > 0 { // no partition dimension: the outermost of more than one element
			for d := maxDims - 1; d >= 0; d-- {
				if p.Src.Num[d] > 1 {
					n, dim = min(maxChannels, engines), d
					break
				}
			}
		}
		if dim >= 0 && int(p.Src.Num[dim]) < n {
			n = int(p.Src.Num[dim])
		}
	}
	total := p.Src.Num
	if cap(p.Channels) >= n { // LowerInto: the last word's channels, cleared
		p.Channels = p.Channels[:n]
		clear(p.Channels)
	} else {
		p.Channels = make([]Channel, n)
	}
	for c := range p.Channels {
		ch := &p.Channels[c] // filled in place: a Channel is two legs, 264 bytes
		ch.DMA, ch.Src, ch.Dst = c, p.Src, p.Dst
		if dim >= 0 {
			lo := int(total[dim]) * c / n
			hi := int(total[dim]) * (c + 1) / n
			for _, l := range []*Leg{&ch.Src, &ch.Dst} {
				l.Addr = uint64(int64(l.Addr) + int64(lo)*l.Step[dim])
				l.Num[dim] = uint32(hi - lo)
				var err error
				if l.SoC, err = m.SoC(l.Addr, p.Core); err != nil {
					return err
				}
			}
		}
		// sem_increment is spread over the channels; the total is what counts (§11.6)
		ch.SemInc = p.SemIncrement / n
		if c < p.SemIncrement%n {
			ch.SemInc++
		}
	}
	return nil
}

// revisits reports whether the leg's walk may touch a byte twice. It is
// conservative: false only when, by increasing |step|, every dimension steps
// past all the bytes of the dimensions inside it.
func (l *Leg) revisits() bool {
	type dim struct {
		n    int64
		step int64
	}
	ds := make([]dim, 0, maxDims) // on the stack
	for d, n := range l.Num {
		if n > 1 {
			ds = append(ds, dim{int64(n), max(l.Step[d], -l.Step[d])})
		}
	}
	slices.SortFunc(ds, func(a, b dim) int { return cmp.Compare(a.step, b.step) })
	span := int64(l.ElemSize) // the bytes the inner dimensions cover
	for _, d := range ds {
		if d.step < span {
			return true
		}
		span += d.step * (d.n - 1)
	}
	return false
}

// emit builds each channel's micro-ops.
func (p *Program) emit() error {
	if p.Backend == NoDGE {
		return nil
	}
	regWrite := p.Gen == isa.Cayman || p.Gen == isa.Mariana // REGWRITE retired from MARIANA_PLUS on (003 §3.3)
	per := 1 + p.Backend.Dims() + b2i(regWrite)
	slab := p.ops(per * len(p.Channels)) // every channel's ops cut from one allocation
	wr := p.writesHBM()                  // the transfer's, the same on every channel
	for c := range p.Channels {
		ch := &p.Channels[c]
		ch.Ops = slab[len(slab) : len(slab) : len(slab)+per]
		slab = slab[:len(slab)+per]
		if regWrite {
			ch.Ops = append(ch.Ops, Op{Kind: RegWrite})
		}
		g := Op{Kind: Generate, Dir: RD, Addr: ch.Src.SoC, ElemSize: int32(ch.Src.ElemSize), Sem: int32(p.Semaphore)}
		if wr {
			g.Dir, g.Addr, g.ElemSize = WR, ch.Dst.SoC, int32(ch.Dst.ElemSize)
		}
		ch.Ops = append(ch.Ops, g)
		for d := 0; d < p.Backend.Dims(); d++ {
			op := Op{Kind: DimPush, SrcNum: ch.Src.Num[d], DstNum: ch.Dst.Num[d]}
			var err error
			if op.SrcStep, err = elemStep(&ch.Src, d, "src"); err != nil {
				return err
			}
			if op.DstStep, err = elemStep(&ch.Dst, d, "dst"); err != nil {
				return err
			}
			ch.Ops = append(ch.Ops, op)
		}
	}
	return nil
}

// emitRows is the program of an indexed word: one GENERATE per gathered row
// — 003 §3.1: GENERATE "is called once per gathered row (the per-row address
// is the index-driven address-gen result)"; 000 §8e loops over the indices,
// dge_generate(src_row, elem = i->elem_size, semaphore) then the row's
// dimpush — and each row's DIMPUSHes, one per backend dimension (003 §4).
// The index values are read here, once, and kept in p.Indices: the
// expansion uses them. A lane whose index is out of range or past its bound
// register, or whose row lies outside the memory map, gets no GENERATE
// (p.Skipped); the expansion reports or skips it as the word's flags say.
//
// With store false the rows are not stored (Options.NoRowOps): p.rows holds
// what ChannelOps needs to build them.
func (p *Program) emitRows(m isa.AddressMap, index func(which, j int) (uint32, error), regs map[uint8]uint32, store bool) error {
	if index == nil {
		p.IndicesAssumed = true
	}
	ch := &p.Channels[0] // an indexed word runs on one channel (fanOut)
	read := func(which, n int) error {
		if cap(p.idxSlab[which]) < n { // LowerInto reuses the last word's
			p.idxSlab[which] = make([]uint32, n)
		}
		idx := p.idxSlab[which][:n]
		p.Indices[which] = idx
		if index == nil { // assumed: the identity
			for j := range idx {
				idx[j] = uint32(j)
			}
			return nil
		}
		for j := range idx {
			v, err := index(which, j)
			if err != nil {
				clear(idx[j:]) // the indices not read are 0
				return fmt.Errorf("%w: %s index %d: %w", ErrIndex, [...]string{"src", "dst"}[which], j, err)
			}
			idx[j] = v
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
	// Each row is its GENERATE, then its DIMPUSHes: the row's own, and
	// dims−1 of one element; the ops are stored straight into the slab
	// (a 4,096-row word is 20,480 of them).
	var ops []Op
	k := 0 // ops stored
	start := func(rows int) {
		if !store {
			rows = 0 // the ops ahead of the rows only
		}
		ops = p.ops(1 + rows*(dims+1))
		ops = ops[:cap(ops)]
		if regWrite { // ahead of the data BDs, once per channel (003 §3.3, §4)
			ops[0], k = Op{Kind: RegWrite}, 1
		}
	}
	tr := socs{m: &m, core: p.Core}
	one := Op{Kind: DimPush, SrcNum: 1, DstNum: 1}
	row := func(g, push Op) {
		r := ops[k : k+1+dims]
		r[0], r[1] = g, push
		for d := 2; d < len(r); d++ {
			r[d] = one
		}
		k += 1 + dims
	}
	if p.Kind == KindGatherTranspose {
		// 000 §8e: row = idx[c]; src_row = src + row·src_step_elem[1]; GENERATE(src_row,
		// elem_size); DIMPUSH src (…, src_step_elem[0]), dst (…, dst_step_elem_1). The
		// row's L elements are its counts (RATIONALE.md: 000 §8e's 16/128 are the tile).
		n, l := int(ch.Src.Num[1]), ch.Dst.Num[1]
		if err := read(0, n); err != nil {
			return err
		}
		push := Op{Kind: DimPush, SrcNum: l, DstNum: l, SrcStep: src[0], DstStep: dst[1]} // the row walks src dim 0 and dst dim 1
		g := Op{Kind: Generate, Dir: RD, ElemSize: int32(p.RowBytes), Sem: int32(p.Semaphore)}
		start(n)
		ib := p.Index.Bound[0]
		lim := uint64(1<<31 - 1) // the bounds of sdma's gather (field-tables §11.5)
		if ib.Enabled {
			lim = min(lim, uint64(regs[ib.Reg]))
		}
		base, step := int64(ch.Src.Addr), ch.Src.Step[1]
		p.rows = rowPlan{on: !store, g: g, push: push, dims: dims, base: base, step: step, which: 0, lanes: n}
		for j, v := range p.Indices[0] {
			if uint64(v) > lim {
				p.Skipped = append(p.Skipped, j)
				continue
			}
			soc, err := tr.soc(uint64(base + int64(v)*step))
			if err != nil { // outside the memory map: the expansion reports it where it moves bytes
				p.Skipped = append(p.Skipped, j)
				continue
			}
			if store {
				g.Addr, g.Row = soc, int32(j)
				row(g, push)
			}
		}
		ch.Ops = ops[:k]
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
	// an index is in range below its leg's element count and, its bound
	// register enabled, at most r[bc_reg] — sdma's lane rule (§11.5)
	var lim [2]uint64
	for which, l := range [2]*Leg{&ch.Src, &ch.Dst} {
		lim[which] = uint64(l.Num[0]) - 1 // Num[0] ≥ 1: lower refuses a count of 0
		if b := p.Index.Bound[which]; b.Enabled {
			lim[which] = min(lim[which], uint64(regs[b.Reg]))
		}
	}
	sIdx, dIdx := p.Indices[0], p.Indices[1]
	g := Op{Kind: Generate, Dir: RD, ElemSize: int32(ch.Src.ElemSize), Sem: int32(p.Semaphore)}
	leg := &ch.Src
	if mode == IndexDst {
		g.Dir, g.ElemSize, leg = WR, int32(ch.Dst.ElemSize), &ch.Dst
	}
	base, step := int64(leg.Addr), leg.Step[0]
	push := Op{Kind: DimPush, SrcNum: 1, DstNum: 1, SrcStep: src[0], DstStep: dst[0]}
	p.rows = rowPlan{on: !store, g: g, push: push, dims: dims, base: base, step: step, which: b2i(mode == IndexDst), lanes: lanes}
	start(lanes)
	for j := range lanes {
		v := uint32(j) // the GENERATE's leg's element
		if sIdx != nil {
			if uint64(sIdx[j]) > lim[0] {
				p.Skipped = append(p.Skipped, j)
				continue
			}
			v = sIdx[j]
		}
		if dIdx != nil {
			if uint64(dIdx[j]) > lim[1] {
				p.Skipped = append(p.Skipped, j)
				continue
			}
			if mode == IndexDst {
				v = dIdx[j]
			}
		}
		soc, err := tr.soc(uint64(base + int64(v)*step))
		if err != nil {
			p.Skipped = append(p.Skipped, j)
			continue
		}
		if store {
			g.Addr, g.Row = soc, int32(j)
			row(g, push)
		}
	}
	ch.Ops = ops[:k]
	return nil
}

// socs translates Neuron addresses to SoC ones (m.SoC on core) a region at a
// time: each window maps linearly (field-tables §11.2: SBUF and PSUM at an
// offset, HBM as itself), so within the region of the address before, an
// address's SoC one is at that address's offset — one look-up per region,
// not one per row.
type socs struct {
	m             *isa.AddressMap
	core          int
	lo, hi, delta uint64 // the last region [lo, hi) and its offset (empty at first)
}

func (t *socs) soc(a uint64) (uint64, error) {
	if a >= t.lo && a < t.hi {
		return a + t.delta, nil
	}
	s, err := t.m.SoC(a, t.core)
	if err != nil {
		return 0, err
	}
	switch r, _, _ := t.m.Split(a); r {
	case isa.SBUF:
		t.lo, t.hi = 0, t.m.SBUFSize
	case isa.PSUM:
		t.lo, t.hi = t.m.PSUMBase, t.m.PSUMBase+t.m.PSUMSize
	default:
		t.lo, t.hi = t.m.HBMBase, t.m.HBMEnd
	}
	t.delta = s - a
	return s, nil
}

// rowPlan is what the rows of an indexed word lowered with NoRowOps are built
// from (ChannelOps): lane j not skipped is g at the SoC address of element
// Indices[which][j] of the GENERATE's leg (base + v·step), then push, then
// dims−1 DIMPUSHes of one element — the ops emitRows stores otherwise.
type rowPlan struct {
	on         bool
	g, push    Op
	dims       int
	base, step int64
	which      int
	lanes      int
}

// ChannelOps is channel c's micro-ops: Channels[c].Ops, with an indexed
// word's rows built here when it was lowered with Options.NoRowOps.
func (p *Program) ChannelOps(c int) []Op {
	ch := &p.Channels[c]
	r := &p.rows
	if !r.on || c != 0 {
		return ch.Ops
	}
	out := make([]Op, len(ch.Ops), len(ch.Ops)+(r.lanes-len(p.Skipped))*(r.dims+1))
	copy(out, ch.Ops)
	m := isa.Map(p.Gen)
	tr := socs{m: &m, core: p.Core}
	one := Op{Kind: DimPush, SrcNum: 1, DstNum: 1}
	skipped := p.Skipped // ascending
	for j := range r.lanes {
		if len(skipped) > 0 && skipped[0] == j {
			skipped = skipped[1:]
			continue
		}
		g := r.g
		g.Addr, _ = tr.soc(uint64(r.base + int64(p.Indices[r.which][j])*r.step)) // a lane not skipped is in the map
		g.Row = int32(j)
		out = append(out, g, r.push)
		for d := 1; d < r.dims; d++ {
			out = append(out, one)
		}
	}
	return out
}

// ops is an empty micro-op list with room for n: the last word's storage
// under LowerInto, else a new allocation.
func (p *Program) ops(n int) []Op {
	if cap(p.opSlab) < n {
		p.opSlab = make([]Op, 0, n)
	}
	return p.opSlab[:0:n]
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// elemStep is a byte step in elements (DIMPUSH counts in elements, §11.3).
// A dimension of one element never steps: its step pushes as 0 when it is
// not a whole number of elements (real NEFF words carry step 1 there).
func elemStep(l *Leg, d int, leg string) (int64, error) {
	if l.Step[d]%int64(l.ElemSize) != 0 {
		if l.Num[d] == 1 {
			return 0, nil
		}
		return 0, fmt.Errorf("%s_step_elem[%d] = %d is not a multiple of the %d-byte element: the DGE counts in elements (docs/field-tables.md §11.3)", leg, d, l.Step[d], l.ElemSize)
	}
	return l.Step[d] / int64(l.ElemSize), nil
}

// writesHBM reports a transfer from on-chip memory into HBM: the S2M (WR)
// leg drives it (source document 003 §7.2, q_gradient_out).
func (p *Program) writesHBM() bool {
	m := isa.Map(p.Gen)
	rs, _, _ := m.Split(p.Src.Addr)
	rd, _, _ := m.Split(p.Dst.Addr)
	return rd == isa.HBM && rs != isa.HBM
}

// reshape records the reshape analysis lines of 003 §5.2 — "S: DGE Reshape:
// Analyzed tensor …" for every leg ("Per tensor: count, target stride in
// partitions (%dP), base, a strategy + kind, partition range/count"), then
// "Assessed tensor pair params …", which "resolves the FINAL Reshape Kind +
// the #DMA fan-out". The integer values are ndma's (field-tables §8.1: "NOT
// recoverable"; RATIONALE.md): the target is the leg's partition dimension,
// else its outermost dimension of more than one element; Strategy 1 walks
// SBUF partitions, 0 does not; Partition Range is the partitions the leg
// spans, Num Partitions those it touches (0 off SBUF).
func (p *Program) reshape(m isa.AddressMap) {
	p.reshapeLog.minParts = 0
	for k, l := range []*Leg{&p.Src, &p.Dst} {
		span, touched, strategy := partitions(l, m), 0, 0
		d := partDim(l, m)
		if d >= 0 {
			strategy = 1
			touched = min(int(l.Num[d]), span) // a step of at least one stride lands on a new partition each time
		} else {
			d = 0
			for k := maxDims - 1; k > 0; k-- {
				if l.Num[k] > 1 {
					d = k
					break
				}
			}
			if span > 0 {
				touched = span
			}
		}
		stride := int64(m.SBUFStride)
		baseP := int64(0)
		if span > 0 {
			baseP = int64(l.Addr) / stride
		}
		p.reshapeLog.legs[k] = reshapeLeg{nelem: l.Num[d], step: l.Step[d], stepP: l.Step[d] / stride, base: uint32(l.Addr), baseP: baseP, strategy: strategy, span: span, touched: touched}
		if touched > 0 && (p.reshapeLog.minParts == 0 || touched < p.reshapeLog.minParts) {
			p.reshapeLog.minParts = touched
		}
	}
	p.reshapeLog.done = true
}

// reshapeLeg is what one leg's "Analyzed tensor" line prints (reshape).
type reshapeLeg struct {
	nelem                   uint32
	step, stepP, baseP      int64
	base                    uint32
	strategy, span, touched int
}

// reshapeLog is the reshape analysis of a lowering, kept as numbers: its
// lines are formatted only when printed (ReshapeLines), not per word lowered.
type reshapeLog struct {
	legs     [2]reshapeLeg
	minParts int
	done     bool
}

// ReshapeLines are the reshape log lines (003 §5.2; see reshape), nil for a
// program that was not lowered by Lower.
func (p *Program) ReshapeLines() []string {
	r := &p.reshapeLog
	if !r.done {
		return nil
	}
	out := make([]string, 0, 3)
	for _, l := range r.legs {
		out = append(out, fmt.Sprintf("S: DGE Reshape: Analyzed tensor (nelem_target = %d, step_target = 0x%X (%dP), base = 0x%X (%dP)): Reshape Strategy = %d, Requested Reshape Kind = %d, Partition Range = %d, Num Partitions = %d",
			l.nelem, uint32(l.step), l.stepP, l.base, l.baseP, l.strategy, p.RequestedReshapeKind(), l.span, l.touched))
	}
	return append(out, fmt.Sprintf("S: DGE Reshape: Assessed tensor pair params (Requested Reshape Kind = %d, Min Num Partitions = %d, #DMA Avail = %d): Reshape Kind = %d, #DMA = %d",
		p.RequestedReshapeKind(), r.minParts, maxChannels, p.ReshapeKind(), len(p.Channels)))
}
