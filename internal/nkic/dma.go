package nkic

import (
	"errors"
	"fmt"

	"ndma/dge"
	"ndma/dtype"
	"ndma/isa"
)

// DGE modes (nki.isa.dge_mode).
const (
	ModeUnknown = "unknown"
	ModeNone    = "none"
	ModeSW      = "swdge"
	ModeHW      = "hwdge"
)

// Completion semaphores of the words a call issues (INFERRED: any index
// serves one stream; docs/nki.md): each DMA word adds 1 to semaphore
// semDMA at completion.
const semDMA = 1

// boundReg is the register a DMA_GATHER_TRANSPOSE's index bound is read
// from (field-tables §11.5: index ≤ r[bc_reg]); the compiler sets it per
// word (INFERRED: any register the program does not otherwise use).
const boundReg = 60

// maxWords bounds the words one call may become (a pattern of many outer
// dimensions becomes one word per outer element).
const maxWords = 1 << 16

// Lowered is one call compiled: the words as issued (Words; the hwdge
// PSEUDO_DMA_DIRECT2D there), the words that execute (Run), the DGE mode
// and backend they lower with, and what the runner needs for OOB reports.
type Lowered struct {
	Call    *Call
	Mode    string      // the DGE mode used: none, swdge, hwdge ("" for compute)
	Backend dge.Backend // the DGE backend the words lower with
	Queue   string      // who issues: "gpsimd (SW DGE)", "sync (HW DGE)", "static descriptors"
	Words   []isa.Inst
	Run     []isa.Inst
	Regs    map[uint8]uint32 // registers the words read (bound limits)
	Bytes   int64            // bytes the call moves (elements × dst element size)

	// Compute calls: the engine, and whether the words computed it
	// (Exact) or ndma's Go fallback did.
	Engine string
	Exact  bool
	Note   string // why a compute call is not exact; what a DMA call's words stand for
	eval   func(r *runner) error
	ns     int64 // a compute call's predicted time (ctime.go)

	idx  *leg // the indirect leg's index tile (OOB reports)
	ind  *leg // the indirect leg
	skip bool // a dynamic offset out of bounds under oob_mode=skip: no word
}

func (p *Program) checkCall(c *Call) error {
	switch c.DGEMode {
	case "", ModeUnknown, ModeNone, ModeSW, ModeHW:
	default:
		return progErr("dge_mode %q: want unknown, none, swdge or hwdge", c.DGEMode)
	}
	switch c.OOBMode {
	case "", "error", "skip":
	default:
		return progErr("oob_mode %q: want error or skip", c.OOBMode)
	}
	switch c.Op {
	case "dma_copy", "load", "store", "dma_transpose", "dma_compute":
	case "random_seed": // random.go: no dst
	default:
		_, word := wordOps[c.Op]
		if !word && loopOps[c.Op] == nil {
			return progErr("op %q is not one ndma knows (docs/nki.md lists them)", c.Op)
		}
	}
	return nil
}

// modeFor is the DGE mode a call runs with: the one given, or — unknown —
// the one the compiler would pick (INFERRED, docs/nki.md): SUNDA has no
// DGE (none); an indirect access needs the software DGE; otherwise the
// hardware DGE.
func (p *Program) modeFor(c *Call, indirect bool) string {
	m := c.DGEMode
	if m == "" || m == ModeUnknown {
		switch {
		case p.gen == isa.Sunda:
			return ModeNone
		case indirect:
			return ModeSW
		}
		return ModeHW
	}
	return m
}

func illegal(format string, a ...any) error {
	return fmt.Errorf("%w: %s", ErrIllegal, fmt.Sprintf(format, a...))
}

// legal applies NKI's per-target rules for a DMA call in mode (the
// dma_copy / dma_transpose / dma_compute pages of the NKI API reference).
func (p *Program) legal(c *Call, mode string, indirect, dynamic bool) error {
	t := targetName(p.gen)
	switch {
	case mode == ModeHW && p.gen == isa.Sunda:
		return illegal("dge_mode=hwdge: the hardware DGE is NeuronCore-v3 or newer; %s is NeuronCore-v2", t)
	case mode == ModeSW && p.gen == isa.Sunda && !indirect:
		return illegal("dge_mode=swdge: %s has no DGE (its Pool engine writes descriptors); use dge_mode=none", t)
	case indirect && mode != ModeSW && !(mode == ModeNone && p.gen == isa.Sunda):
		return illegal("dge_mode=%s: a vector_offset (gather/scatter) needs the software DGE (swdge)", mode)
	case dynamic && mode == ModeNone && p.gen != isa.Sunda:
		return illegal("dge_mode=none: a scalar_offset (dynamic start) needs a DGE (swdge or hwdge): none builds descriptors before the run")
	case c.DstRMWOp != "" && c.OOBMode == "skip":
		return illegal("dst_rmw_op with oob_mode=skip: only oob_mode=error is allowed with a read-modify-write")
	}
	return nil
}

// compileDMA compiles a DMA call.
func (p *Program) compileDMA(c *Call) (*Lowered, error) {
	switch c.Op {
	case "dma_transpose":
		return p.compileTranspose(c)
	case "dma_compute":
		return p.compileCompute(c)
	}
	if c.Src == nil || c.Dst == nil {
		return nil, progErr("%s needs src and dst", c.Op)
	}
	rmw := isa.DGEComputeOpNone
	switch c.DstRMWOp {
	case "":
	case "add", "np.add", "nl.add":
		rmw = isa.DGEComputeOpAdd
	default:
		return nil, illegal("dst_rmw_op=%s: only nl.add is supported", c.DstRMWOp)
	}
	return p.copyOp(c, c.Dst, c.Src, rmw)
}

// compileCompute is dma_compute: dst = srcs[0] + srcs[1] (scales 1.0), the
// DMA engines' CCE adding in FP32.
func (p *Program) compileCompute(c *Call) (*Lowered, error) {
	if p.gen == isa.Sunda {
		return nil, illegal("dma_compute is Trn2 and Trn3 only; the target is trn1")
	}
	if c.ReduceOp != "add" && c.ReduceOp != "nl.add" {
		return nil, illegal("reduce_op=%s: only nl.add is supported", c.ReduceOp)
	}
	for _, s := range c.Scales {
		if s != 1 {
			return nil, illegal("scales %v: every scale must be 1.0", c.Scales)
		}
	}
	if len(c.Srcs) != 2 || c.Dst == nil {
		return nil, illegal("dma_compute takes dst and exactly 2 srcs here (%d given)", len(c.Srcs))
	}
	if c.UniqueIndices != nil && !*c.UniqueIndices {
		return nil, illegal("unique_indices=False: dma_compute supports unique indices only")
	}
	// the source that is the destination is the read-modify-write's old value
	other := -1
	for k, s := range c.Srcs {
		if sameAP(s, c.Dst) {
			other = 1 - k
		}
	}
	if other >= 0 {
		return p.copyOp(c, c.Dst, c.Srcs[other], isa.DGEComputeOpAdd)
	}
	a, err := p.copyOp(c, c.Dst, c.Srcs[0], isa.DGEComputeOpNone)
	if err != nil {
		return nil, err
	}
	b, err := p.copyOp(c, c.Dst, c.Srcs[1], isa.DGEComputeOpAdd)
	if err != nil {
		return nil, err
	}
	a.Words, a.Run = append(a.Words, b.Words...), append(a.Run, b.Run...)
	a.Backend = b.Backend // the copy-add's CCE path carries the plain copy too
	a.Bytes += b.Bytes
	return a, nil
}

// sameAP says whether two access patterns name the same elements the same
// way (the vector_offset by its tensor).
func sameAP(a, b *AP) bool {
	if a == nil || b == nil || a.Tensor != b.Tensor || a.Offset != b.Offset || a.IndirectDim != b.IndirectDim || len(a.Pattern) != len(b.Pattern) || len(a.Slices) != len(b.Slices) {
		return false
	}
	for i := range a.Pattern {
		if a.Pattern[i] != b.Pattern[i] {
			return false
		}
	}
	for i := range a.Slices {
		if a.Slices[i] != b.Slices[i] {
			return false
		}
	}
	if (a.ScalarOffset == nil) != (b.ScalarOffset == nil) || a.ScalarOffset != nil && *a.ScalarOffset != *b.ScalarOffset {
		return false
	}
	if (a.VectorOffset == nil) != (b.VectorOffset == nil) {
		return false
	}
	return a.VectorOffset == nil || a.VectorOffset.Tensor == b.VectorOffset.Tensor
}

// resolveLegs resolves dst and src, an OOB dynamic offset reported by the
// call's oob_mode.
func (p *Program) resolveLegs(c *Call, dstAP, srcAP *AP) (dst, src *leg, skip bool, err error) {
	var oob *OOBError
	dst, err = p.resolve(dstAP, "dst")
	if errors.As(err, &oob) {
		if c.OOBMode == "skip" {
			skip, err = true, nil
		}
	}
	if err != nil {
		return nil, nil, false, err
	}
	src, err = p.resolve(srcAP, "src")
	if errors.As(err, &oob) {
		if c.OOBMode == "skip" {
			skip, err = true, nil
		}
	}
	return dst, src, skip, err
}

// copyOp compiles dst (op)= src: a static copy (DMAMEMCPY words), or a
// gather / scatter (DMA_INDIRECT) when one side has a vector_offset.
func (p *Program) copyOp(c *Call, dstAP, srcAP *AP, op isa.DGEComputeOpCode) (*Lowered, error) {
	dst, src, skip, err := p.resolveLegs(c, dstAP, srcAP)
	if err != nil {
		return nil, err
	}
	indirect := dst.ind >= 0 || src.ind >= 0
	mode := p.modeFor(c, indirect)
	if err := p.legal(c, mode, indirect, dst.dynamic || src.dynamic); err != nil {
		return nil, err
	}
	if src.elems != dst.elems {
		return nil, progErr("src has %d elements (%v), dst %d (%v): a copy moves element for element", src.elems, src.shape, dst.elems, dst.shape)
	}
	lw := &Lowered{Call: c, Mode: mode}
	lw.Backend, lw.Queue = p.backend(mode, indirect, op != isa.DGEComputeOpNone || src.dt != dst.dt)
	lw.Bytes = dst.elems * dst.esize
	if skip {
		lw.skip, lw.Note = true, "a dynamic offset out of bounds: skipped (oob_mode=skip)"
		return lw, nil
	}
	if indirect {
		return lw, p.indirect(lw, c, dst, src, op)
	}
	return lw, p.direct(lw, dst, src, op, mode == ModeHW)
}

// backend is the DGE backend and queue of a mode (docs/nki.md): swdge the
// software DGE on the GpSimd (Pool) engine; hwdge the hardware DGE a
// sequencer drives (its RTL path is pure transport: a cast or compute
// goes through the Pool path's CCE); none the runtime's prebuilt
// descriptors, listed here through the DGE's Pool path (INFERRED: ndma has
// no separate descriptor-block lowering for words; the descriptors are the
// same).
func (p *Program) backend(mode string, indirect, cce bool) (dge.Backend, string) {
	switch mode {
	case ModeSW:
		if p.gen == isa.Sunda {
			return dge.Auto, "gpsimd (dma_memcopy kernel)"
		}
		return dge.Software, "gpsimd (SW DGE)"
	case ModeHW:
		if cce || indirect {
			return dge.Pool, "sync (HW DGE)"
		}
		return dge.RTL, "sync (HW DGE)"
	}
	return dge.Auto, "static descriptors"
}

// normalize drops one-element dimensions and merges a dimension into the
// one inside it where it continues it.
func normalize(ds []dim) []dim {
	out := make([]dim, 0, len(ds))
	for _, d := range ds {
		if d.n == 1 {
			continue
		}
		if k := len(out) - 1; k >= 0 && d.step == out[k].step*out[k].n {
			out[k].n *= d.n
			continue
		}
		out = append(out, d)
	}
	return out
}

// cdim is a dimension both legs of a copy share: count, src and dst byte
// steps.
type cdim struct{ n, s, d int64 }

func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// align walks two legs' dimensions (innermost first) into common ones:
// element k of the src goes to element k of the dst.
func align(a, b []dim) ([]cdim, error) {
	a, b = append([]dim(nil), a...), append([]dim(nil), b...)
	var out []cdim
	for len(a) > 0 && len(b) > 0 {
		x, y := a[0], b[0]
		g := gcd(x.n, y.n)
		if g == 1 {
			return nil, errors.New("the src and dst patterns share no common shape (their element orders interleave)")
		}
		out = append(out, cdim{g, x.step, y.step})
		if x.n == g {
			a = a[1:]
		} else {
			a[0] = dim{x.n / g, x.step * g}
		}
		if y.n == g {
			b = b[1:]
		} else {
			b[0] = dim{y.n / g, y.step * g}
		}
	}
	// merge what continues on both legs
	m := out[:0]
	for _, d := range out {
		if k := len(m) - 1; k >= 0 && d.s == m[k].s*m[k].n && d.d == m[k].d*m[k].n {
			m[k].n *= d.n
			continue
		}
		m = append(m, d)
	}
	return m, nil
}

// maxElemBytes is the largest elem_size a DMA word's u16 field holds.
const maxElemBytes = 0xffff

// rowElems is how many elements one DMA element (elem_size) holds: the
// largest run both legs walk contiguously whose size every other step is a
// whole multiple of (has_whole_elem_steps, docs/validate.md), within the
// u16 elem_size on both legs.
func rowElems(ds []cdim, se, de int64) int64 {
	if len(ds) == 0 || ds[0].s != se || ds[0].d != de {
		return 1
	}
	best := int64(1)
	n := ds[0].n
	for k := int64(1); k*k <= n; k++ {
		if n%k != 0 {
			continue
		}
		for _, r := range [2]int64{k, n / k} {
			if r <= best || r*max(se, de) > maxElemBytes {
				continue
			}
			ok := true
			for _, d := range ds[1:] {
				if d.n > 1 && (d.s%(r*se) != 0 || d.d%(r*de) != 0) {
					ok = false
					break
				}
			}
			if n/r > 1 && (ds[0].s*r%(r*se) != 0) {
				ok = false
			}
			if ok {
				best = r
			}
		}
	}
	return best
}

// split16 cuts dimensions of more than 65535 elements (the u16 num_elem)
// into two.
func split16(ds []cdim) ([]cdim, error) {
	var out []cdim
	for _, d := range ds {
		for d.n > 0xffff {
			f := int64(0)
			for k := int64(0xffff); k >= 2; k-- {
				if d.n%k == 0 {
					f = k
					break
				}
			}
			if f == 0 {
				return nil, fmt.Errorf("a dimension of %d elements (a prime past 65535) fits no num_elem field", d.n)
			}
			out = append(out, cdim{f, d.s, d.d})
			d = cdim{d.n / f, d.s * f, d.d * f}
		}
		out = append(out, d)
	}
	return out, nil
}

// direct compiles a static copy into DMAMEMCPY words: the legs' common
// dimensions, the innermost contiguous run as the element, two dimensions
// per word and one word per element of the dimensions outside them.
func (p *Program) direct(lw *Lowered, dst, src *leg, op isa.DGEComputeOpCode, pseudo bool) error {
	var key []byte
	if !p.noShapes {
		key = p.shapeKey(dst, src, op, pseudo)
		if p.cached(lw, key, dst, src) {
			return nil
		}
		key = append([]byte(nil), key...) // shapeKey's buffer is reused by the compiles below
	}
	ds, err := align(normalize(src.dims), normalize(dst.dims))
	if err != nil {
		return progErr("%v", err)
	}
	r := rowElems(ds, src.esize, dst.esize)
	if r > 1 {
		if ds[0].n == r {
			ds = ds[1:]
		} else {
			ds[0] = cdim{ds[0].n / r, ds[0].s * r, ds[0].d * r}
		}
	}
	if ds, err = split16(ds); err != nil {
		return progErr("%v", err)
	}
	for len(ds) < 2 {
		last := cdim{1, r * src.esize, r * dst.esize}
		if k := len(ds) - 1; k >= 0 {
			last = cdim{1, ds[k].s * ds[k].n, ds[k].d * ds[k].n}
		}
		ds = append(ds, last)
	}
	outer := ds[2:]
	words := int64(1)
	for _, d := range outer {
		if words *= d.n; words > maxWords {
			break
		}
	}
	if words > maxWords {
		return illegal("the pattern needs %d DMA words (more than %d): too many dimensions outside the two a word walks", words, maxWords)
	}
	in, out := isa.DTypeCode(src.dt), isa.DTypeCode(dst.dt)
	first := len(lw.Run)
	so, do := make([]int64, 0, words), make([]int64, 0, words)
	for w := int64(0); w < words; w++ {
		sa, da := src.addr, dst.addr
		k := w
		for _, d := range outer {
			i := k % d.n
			k /= d.n
			sa, da = uint64(int64(sa)+i*d.s), uint64(int64(da)+i*d.d)
		}
		so, do = append(so, int64(sa-src.addr)), append(do, int64(da-dst.addr))
		word := isa.New(p.gen, isa.OpDMAMemcpy)
		v, _ := word.Direct2D()
		v.SetSrcStartAddr(isa.ImmAddr8(sa))
		v.SetDstStartAddr(isa.ImmAddr8(da))
		errs := []error{
			v.SetSemaphore(semDMA), v.SetSemIncrement(1), v.SetComputeOp(op),
			v.SetSrcElemSize(r * src.esize), v.SetDstElemSize(r * dst.esize),
			v.SetInDType(in), v.SetOutDType(out),
		}
		for i := range 2 {
			errs = append(errs, v.SetSrcNumElem(i, ds[i].n), v.SetSrcStepElem(i, ds[i].s), v.SetDstNumElem(i, ds[i].n), v.SetDstStepElem(i, ds[i].d))
		}
		if err := errors.Join(errs...); err != nil {
			return progErr("a DMAMEMCPY field does not fit: %v", err)
		}
		lw.Run = append(lw.Run, word)
		if !pseudo || op != isa.DGEComputeOpNone {
			lw.Words = append(lw.Words, word)
			continue
		}
		ps, err := p.pseudoOf(&word, src, dst, sa, da, isa.DGEOpcodeDMADirect2D)
		if err != nil {
			return err
		}
		lw.Words = append(lw.Words, ps)
	}
	if key != nil {
		p.remember(key, lw, first, pseudo && op == isa.DGEComputeOpNone, so, do)
	}
	return nil
}

// pseudoOf is the hwdge form of a resolved DMAMEMCPY / DMA_TRANSPOSE: the
// PSEUDO_DMA_DIRECT2D a sequencer issues (field-tables §3.3), its addresses
// var(tensor)+offset, relocated by the runtime (dge.Relocate) into exactly
// the resolved word — checked here, so the two forms cannot drift.
func (p *Program) pseudoOf(run *isa.Inst, src, dst *leg, sa, da uint64, op isa.DGEOpcodeCode) (isa.Inst, error) {
	ps := isa.New(p.gen, isa.OpPseudoDMADirect2D)
	v, _ := ps.PseudoDirect2D()
	s, d, _ := run.Legs2D()
	var in, out isa.DTypeCode
	if r, ok := run.Direct2D(); ok {
		in, out = r.InDType(), r.OutDType()
	} else if r, ok := run.Xpose(); ok {
		in, out = r.InDType(), r.OutDType()
		s.Elem, d.Elem = src.esize, dst.esize
		s.Num[0], s.Num[1] = int64(r.SrcNumElem(0)), int64(r.SrcNumElem(1))
		s.Step[0], s.Step[1] = r.SrcStepElem(0), r.SrcStepElem(1)
		d.Num[0], d.Num[1] = int64(r.DstNumElem(0)), int64(r.DstNumElem(1))
		d.Step[0], d.Step[1] = r.DstStepElem(0), r.DstStepElem(1)
	}
	v.SetSrcStartAddr(isa.VarAddr8(uint16(src.t.id), uint32(sa-src.t.addr)))
	v.SetDstStartAddr(isa.VarAddr8(uint16(dst.t.id), uint32(da-dst.t.addr)))
	errs := []error{v.SetSemaphore(semDMA), v.SetSemIncrement(1), v.SetDGEOp(op),
		v.SetSrcElemSize(s.Elem), v.SetDstElemSize(d.Elem), v.SetInDType(in), v.SetOutDType(out)}
	for i := range 2 {
		errs = append(errs, v.SetSrcNumElem(i, s.Num[i]), v.SetSrcStepElem(i, s.Step[i]), v.SetDstNumElem(i, d.Num[i]), v.SetDstStepElem(i, d.Step[i]))
	}
	if err := errors.Join(errs...); err != nil {
		return ps, progErr("a PSEUDO_DMA_DIRECT2D field does not fit: %v", err)
	}
	rel, err := dge.Relocate(&ps, p.vars())
	if err != nil {
		return ps, fmt.Errorf("relocating the hwdge word: %w", err)
	}
	if op == isa.DGEOpcodeDMADirect2D && !rel.Equal(run) {
		return ps, fmt.Errorf("the hwdge word relocates to %s, not the word compiled", rel.Def().Mnemonic())
	}
	return ps, nil
}

// vars is the relocation table of the hwdge words: variable i is tensor i.
func (p *Program) vars() *dge.Vars {
	if p.relocVars == nil {
		v := &dge.Vars{Base: make(map[uint16]uint64, len(p.Tensors))}
		for _, t := range p.Tensors {
			v.Base[uint16(t.id)] = t.addr
		}
		p.relocVars = v
	}
	return p.relocVars
}

// rowOf is the contiguous row of an indirect leg: the dims other than the
// indirect one must walk one run of elements.
func rowOf(l *leg) (elems int64, err error) {
	var others []dim
	for k, d := range l.dims {
		if k != l.ind {
			others = append(others, d)
		}
	}
	others = normalize(others)
	switch {
	case len(others) == 0:
		return 1, nil
	case len(others) == 1 && others[0].step == l.esize:
		return others[0].n, nil
	}
	return 0, illegal("the indexed rows of %q are not contiguous (%d dimensions besides the indirect one): a DMA_INDIRECT moves one run per index", l.t.Name, len(others))
}

// lanesOf is the other leg of a gather or scatter as N rows of row
// elements: its byte step between rows.
func lanesOf(l *leg, n, row int64) (int64, error) {
	ds := normalize(l.dims)
	switch {
	case len(ds) == 0:
		return row * l.esize, nil
	case len(ds) == 1 && row == 1:
		return ds[0].step, nil
	case len(ds) == 1 && ds[0].step == l.esize && ds[0].n == n*row:
		return row * l.esize, nil
	case len(ds) == 2 && ds[0].step == l.esize && ds[0].n == row && ds[1].n == n:
		return ds[1].step, nil
	}
	return 0, illegal("%q: %d rows of %d elements do not lie at one step apart", l.t.Name, n, row)
}

// idxAddr is the ADDR4 of an index tile: index j at partition (p0 + j mod
// 128), byte offset off0 + 4·(j div 128) (field-tables §11.5) — a (N, 1)
// tile for N ≤ 128, or a (128, K) tile read column by column.
func (p *Program) idxAddr(l *leg, n int64) (isa.Addr4, error) {
	ds := normalize(l.dims)
	m := isa.Map(p.gen)
	ok := len(ds) == 0 ||
		len(ds) == 1 && n <= 128 && ds[0].step == int64(m.SBUFStride) ||
		len(ds) == 2 && ds[0].n == 128 && ds[0].step == int64(m.SBUFStride) && ds[1].step == 4
	if !ok {
		return 0, illegal("the index tile of %q must be a (N, 1) column for N ≤ 128 or a (128, K) tile read column by column", l.t.Name)
	}
	if l.addr%4 != 0 {
		return 0, illegal("the index tile of %q is not 4-byte aligned", l.t.Name)
	}
	return isa.Addr4(l.addr), nil
}

// indirect compiles a gather (src indexed) or scatter (dst indexed) into a
// DMA_INDIRECT through the software DGE (field-tables §3.5, §11.5).
func (p *Program) indirect(lw *Lowered, c *Call, dst, src *leg, op isa.DGEComputeOpCode) error {
	if dst.ind >= 0 && src.ind >= 0 {
		return illegal("both src and dst have a vector_offset: one indexed side per DMA")
	}
	ix, other := src, dst
	mode := isa.IndirectModeSrc
	if dst.ind >= 0 {
		ix, other, mode = dst, src, isa.IndirectModeDst
	}
	n := ix.dims[ix.ind].n
	row, err := rowOf(ix)
	if err != nil {
		return err
	}
	ostep, err := lanesOf(other, n, row)
	if err != nil {
		return err
	}
	ia, err := p.idxAddr(ix.idx, n)
	if err != nil {
		return err
	}
	lw.idx, lw.ind = ix.idx, ix
	// The DGE counts steps in elements (field-tables §11.3): a lane's row
	// whose size does not divide the steps moves as columns of the largest
	// size that does, one DMA_INDIRECT word each, the same indices.
	ixStep := ix.dims[ix.ind].step
	chunk := row
	for _, st := range [2][2]int64{{ixStep, ix.esize}, {ostep, other.esize}} {
		if n > 1 || st == [2]int64{ixStep, ix.esize} {
			if st[0]%st[1] != 0 {
				return illegal("a step of %d bytes is no whole number of %d-byte elements", st[0], st[1])
			}
			chunk = gcd(chunk, st[0]/st[1])
		}
	}
	if row/chunk > maxWords {
		return illegal("rows of %d elements in columns of %d: more than %d DMA_INDIRECT words", row, chunk, maxWords)
	}
	nonUnique := int64(0)
	if c.UniqueIndices != nil && !*c.UniqueIndices || c.DstRMWOp != "" && c.UniqueIndices == nil {
		nonUnique = 1 // the legacy dst_rmw_op accumulates repeated indices in order (the compiler serializes them)
	}
	for k := int64(0); k < row/chunk; k++ {
		word := isa.New(p.gen, isa.OpDMAIndirect)
		v, _ := word.Indirect1D()
		v.SetSrcStartAddr(isa.ImmAddr8(src.addr + uint64(k*chunk*src.esize)))
		v.SetDstStartAddr(isa.ImmAddr8(dst.addr + uint64(k*chunk*dst.esize)))
		ss, ds := ostep, ostep
		sn, dn := n, n
		if mode == isa.IndirectModeSrc {
			ss, sn = ixStep, ix.bound
			v.SetSrcIdxStartAddr(ia)
		} else {
			ds, dn = ixStep, ix.bound
			v.SetDstIdxStartAddr(ia)
		}
		f := v.Flags()
		errs := []error{
			v.SetSemaphore(semDMA), v.SetSemIncrement(1), v.SetIdxNumActiveChannels(128),
			f.SetIndirectMode(mode), f.SetIdxBoundIsErr(b2i(c.OOBMode != "skip")), f.SetNonUniqueDstIdx(nonUnique),
			v.SetSrcStepElem(ss), v.SetSrcNumElem(sn), v.SetSrcElemSize(chunk * src.esize),
			v.SetDstStepElem(ds), v.SetDstNumElem(dn), v.SetDstElemSize(chunk * dst.esize),
			v.SetInDType(isa.DTypeCode(src.dt)), v.SetOutDType(isa.DTypeCode(dst.dt)), v.SetComputeOp(op),
		}
		if err := errors.Join(errs...); err != nil {
			return progErr("a DMA_INDIRECT field does not fit: %v", err)
		}
		lw.Words, lw.Run = append(lw.Words, word), append(lw.Run, word)
	}
	return nil
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// xposeCols is the widest tile column count ≤ 128 (2-byte) / 64 (4-byte)
// dividing the row (field-tables §11.5).
func xposeCols(c, esize int64) int64 {
	lim := int64(128)
	if esize == 4 {
		lim = 64
	}
	for k := min(lim, c); k >= 1; k-- {
		if c%k == 0 {
			return k
		}
	}
	return 1
}

// compileTranspose is dma_transpose: a 2-D DMA_TRANSPOSE (16-row tiles
// turned by the DRE), or — with a vector_offset on the src — a
// DMA_GATHER_TRANSPOSE through the software DGE.
func (p *Program) compileTranspose(c *Call) (*Lowered, error) {
	if c.Src == nil || c.Dst == nil {
		return nil, progErr("dma_transpose needs src and dst")
	}
	if len(c.Axes) > 0 && !(len(c.Axes) == 2 && c.Axes[0] == 1 && c.Axes[1] == 0) {
		return nil, illegal("axes %v: ndma supports the 2-D transpose (1, 0) only", c.Axes)
	}
	dst, src, skip, err := p.resolveLegs(c, c.Dst, c.Src)
	if err != nil {
		return nil, err
	}
	if p.gen == isa.Sunda {
		return nil, illegal("dma_transpose is NeuronCore-v3 or newer (DMA_TRANSPOSE, DMA_GATHER_TRANSPOSE); the target is trn1")
	}
	indirect := src.ind >= 0
	mode := p.modeFor(c, indirect)
	switch {
	case indirect && mode != ModeSW:
		return nil, illegal("dge_mode=%s: an indirect transpose's only modes are unknown and swdge", mode)
	case !indirect && mode != ModeHW:
		return nil, illegal("dge_mode=%s: a direct transpose's only modes are unknown and hwdge", mode)
	case dst.ind >= 0:
		return nil, illegal("a vector_offset on the dst of a transpose")
	case src.dt != dst.dt:
		return nil, illegal("src %s, dst %s: a DMA transpose moves one dtype", src.t.DType, dst.t.DType)
	case dst.t.Buffer != "sbuf":
		return nil, illegal("the dst of a DMA transpose must be in SBUF (the DRE writes SBUF rows), not %s", dst.t.Buffer)
	}
	lw := &Lowered{Call: c, Mode: mode, Bytes: dst.elems * dst.esize}
	lw.Backend, lw.Queue = p.backend(mode, indirect, true)
	if mode == ModeSW {
		lw.Backend = dge.Software
	}
	if skip {
		lw.skip, lw.Note = true, "a dynamic offset out of bounds: skipped (oob_mode=skip)"
		return lw, nil
	}
	if indirect {
		return lw, p.gatherTranspose(lw, c, dst, src)
	}
	if len(src.shape) != 2 || len(dst.shape) != 2 {
		return nil, illegal("src %v, dst %v: a 2-D transpose needs 2-D access patterns", src.shape, dst.shape)
	}
	R, C := src.shape[0], src.shape[1]
	if dst.shape[0] != C || dst.shape[1] != R {
		return nil, illegal("dst shape %v: the transpose of src %v is [%d, %d]", dst.shape, src.shape, C, R)
	}
	if src.esize != 2 && mode == ModeHW && c.DGEMode == ModeHW {
		return nil, illegal("dge_mode=hwdge: a hardware DGE transpose moves a 2-byte dtype, not %s", src.t.DType)
	}
	if c.DGEMode == ModeHW && (R != 16 || C%128 != 0) {
		return nil, illegal("dge_mode=hwdge: src.shape[0] must be 16 and src.shape[-1] a multiple of 128 (src %v)", src.shape)
	}
	if R%16 != 0 {
		return nil, illegal("src %v: the DMA transpose cuts 16-row tiles: src.shape[0] must be a multiple of 16", src.shape)
	}
	if src.dims[0].step != src.esize || dst.dims[0].step != dst.esize {
		return nil, illegal("the rows of a DMA transpose must be contiguous on both sides")
	}
	word := isa.New(p.gen, isa.OpDMATranspose)
	v, _ := word.Xpose()
	v.SetSrcStartAddr(isa.ImmAddr8(src.addr))
	v.SetDstStartAddr(isa.ImmAddr8(dst.addr))
	errs := []error{
		v.SetSemaphore(semDMA), v.SetInDType(isa.DTypeCode(src.dt)), v.SetOutDType(isa.DTypeCode(dst.dt)),
		v.SetSrcStepElem(0, src.esize), v.SetSrcStepElem(1, src.dims[1].step), v.SetSrcNumElem(0, C), v.SetSrcNumElem(1, R),
		v.SetTileSrcRowStep(src.dims[1].step), v.SetTileSrcRows(16), v.SetTileSrcCols(xposeCols(C, src.esize)),
		v.SetDstStepElem(0, dst.esize), v.SetDstStepElem(1, dst.dims[1].step), v.SetDstNumElem(0, R), v.SetDstNumElem(1, C),
	}
	if err := errors.Join(errs...); err != nil {
		return nil, progErr("a DMA_TRANSPOSE field does not fit: %v", err)
	}
	lw.Run = []isa.Inst{word}
	ps, err := p.pseudoOf(&word, src, dst, src.addr, dst.addr, isa.DGEOpcodeDMATranspose)
	if err != nil {
		return nil, err
	}
	rel, err := dge.Relocate(&ps, p.vars())
	if err != nil || !rel.Equal(&word) {
		// the runtime derives the tile geometry itself (docs/lower.md §1); where
		// it would differ, the resolved word is issued as it is
		lw.Words = []isa.Inst{word}
		return lw, nil
	}
	lw.Words = []isa.Inst{ps}
	return lw, nil
}

// gatherTranspose is the indirect transpose: N rows idx[j] of L two-byte
// elements of an HBM table, turned into dst (L, N) in SBUF: dst(k, j) =
// src[idx[j], k] (DMA_GATHER_TRANSPOSE, field-tables §3.7, §11.5).
func (p *Program) gatherTranspose(lw *Lowered, c *Call, dst, src *leg) error {
	n := src.dims[src.ind].n
	switch {
	case src.t.chip:
		return illegal("an indirect transpose reads an HBM table; %q is in %s", src.t.Name, src.t.Buffer)
	case src.esize != 2:
		return illegal("an indirect transpose moves a 2-byte dtype, not %s", src.t.DType)
	case n%16 != 0 || n < 16:
		return illegal("%d indices: an indirect transpose takes a multiple of 16", n)
	case src.idx.dt != dtype.U32:
		return illegal("the indices of an indirect transpose are uint32, not %s", src.idx.t.DType)
	}
	L, err := rowOf(src)
	if err != nil {
		return err
	}
	if L > 128 {
		return illegal("rows of %d elements: an indirect transpose's src.shape[-1] is at most 128", L)
	}
	dd := normalize(dst.dims)
	ok := len(dst.shape) == 2 && dst.shape[0] == L && dst.shape[1] == n && (len(dd) == 2 && dd[0].step == 2 || len(dd) == 1 && n == 1)
	if !ok {
		return illegal("dst %v: the indirect transpose of %d rows of %d elements is (%d, %d), its rows contiguous", dst.shape, n, L, L, n)
	}
	ia, err := p.idxAddr(src.idx, n)
	if err != nil {
		return err
	}
	lw.idx, lw.ind = src.idx, src
	word := isa.New(p.gen, isa.OpDMAGatherTranspose)
	v, _ := word.GatherXpose()
	v.SetSrcStartAddr(isa.ImmAddr8(src.addr))
	v.SetDstStartAddr(isa.ImmAddr8(dst.addr))
	v.SetSrcIdxStartAddr(ia)
	b := v.SrcIdxBoundReg()
	errs := []error{
		v.SetSemaphore(semDMA), v.SetIdxNumActiveChannels(128),
		v.SetSrcStepElem(0, 2), v.SetSrcStepElem(1, src.dims[src.ind].step), v.SetSrcNumElem(0, L), v.SetSrcNumElem(1, n),
		v.SetDstStepElem1(dd[1].step), v.SetDstNumElem(0, n), v.SetDstNumElem(1, L), v.SetElemSize(2 * L),
		v.DType().SetDTypeLo(isa.DTypeCode(src.dt)), v.DType().SetDTypeHi(isa.DTypeCode(src.dt)),
		v.Flags().SetGatherDim(isa.IndirectDimY), b.SetBCReg(boundReg), b.SetBCEnabled(1), b.SetBCDisableOOBErrorNotif(b2i(c.OOBMode == "skip")),
	}
	if err := errors.Join(errs...); err != nil {
		return progErr("a DMA_GATHER_TRANSPOSE field does not fit: %v", err)
	}
	lw.Regs = map[uint8]uint32{boundReg: uint32(src.bound - 1)} // the limit is inclusive (§11.5)
	lw.Words, lw.Run = []isa.Inst{word}, []isa.Inst{word}
	return nil
}
