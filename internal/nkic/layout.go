package nkic

import (
	"errors"
	"fmt"

	"ndma/dtype"
	"ndma/isa"
)

// Placement (docs/nki.md "Memory"): HBM tensors one after another from the
// HBM base, on-chip tensors one after another from partition 0 offset 0 of
// their buffer, each at a 64-byte boundary (DMA_TRANSPOSE's and
// GATHER_TRANSPOSE's destinations must be 32-byte aligned, field-tables
// §11.5; 64 also keeps descriptors on whole cache lines — INFERRED). A
// tensor given an offset (and partition) is placed there instead.
const placeAlign = 64

func alignUp(v, a uint64) uint64 { return (v + a - 1) / a * a }

func (p *Program) place(m isa.AddressMap) error {
	for _, t := range p.Tensors {
		if err := p.placeOne(m, t); err != nil {
			return err
		}
	}
	return nil
}

// placeOne places t after the tensors placed before it (or where its
// offset and partition say).
func (p *Program) placeOne(m isa.AddressMap, t *Tensor) error {
	if p.next == nil {
		p.next = map[string]uint64{"sbuf": 0, "psum": 0}
	}
	bytes := uint64(t.elems) * uint64(t.esize)
	if !t.chip {
		off := alignUp(p.nextHBM, placeAlign)
		if t.Offset != nil {
			if *t.Offset < 0 {
				return progErr("tensor %q: offset %d is negative", t.Name, *t.Offset)
			}
			off = uint64(*t.Offset)
		}
		if off+bytes > m.HBMEnd-m.HBMBase {
			return progErr("tensor %q: %d bytes at HBM offset %#x pass the HBM window", t.Name, bytes, off)
		}
		t.addr = m.HBMBase + off
		p.nextHBM = max(p.nextHBM, off+bytes)
		return nil
	}
	row := uint64(t.free) * uint64(t.esize) // bytes per partition
	active, stride, base, what := m.SBUFActive, m.SBUFStride, uint64(0), "SBUF"
	if t.Buffer == "psum" {
		if m.PSUMSize == 0 {
			return &CallError{&Call{Op: "ndarray", index: -1}, fmt.Errorf("%w: tensor %q: %s has no PSUM", ErrIllegal, t.Name, p.gen)}
		}
		active, stride, base, what = m.PSUMActive, m.PSUMStride, m.PSUMBase, "PSUM"
	}
	off := alignUp(p.next[t.Buffer], placeAlign)
	part := 0
	if t.Offset != nil {
		if *t.Offset < 0 {
			return progErr("tensor %q: offset %d is negative", t.Name, *t.Offset)
		}
		off = uint64(*t.Offset)
	}
	if t.Partition != nil {
		part = *t.Partition
	}
	if part < 0 || part > m.Partitions-t.Shape[0] { // not part+Shape[0]: a partition near 2^63 wraps past the check
		return progErr("tensor %q: %d partitions from partition %d: the buffer has %d", t.Name, t.Shape[0], part, m.Partitions)
	}
	if off+row > active {
		return fmt.Errorf("%w: tensor %q needs %d bytes per partition at offset %d: %s %s has %d KiB per partition",
			ErrIllegal, t.Name, row, off, targetName(p.gen), what, active>>10)
	}
	t.addr = base + uint64(part)*stride + off
	if t.Offset == nil {
		p.next[t.Buffer] = off + row
	}
	return nil
}

// targetName is the NKI platform name of a generation.
func targetName(g isa.Gen) string {
	switch g {
	case isa.Sunda:
		return "trn1"
	case isa.Cayman:
		return "trn2"
	case isa.Mariana:
		return "trn3"
	}
	return g.String()
}

// dim is one dimension of a leg: count and byte step in the Neuron address
// space (on chip a whole-partition step is a multiple of the partition
// stride).
type dim struct {
	n    int64
	step int64
}

// maxReach bounds a pattern's offset and each dimension's reach, in
// elements: past 2^41 it leaves any tensor (at most 2^40 elements), and
// under it the reach of MaxDims dimensions plus the offset stays far
// inside an int64.
const maxReach = 1 << 41

// leg is an access pattern resolved to addresses.
// partStride is the bytes between one partition of t's on-chip buffer and
// the next (SBUF or PSUM: the address map's stride).
func (p *Program) partStride(t *Tensor) int64 {
	m := isa.Map(p.gen)
	if t.Buffer == "psum" {
		return int64(m.PSUMStride)
	}
	return int64(m.SBUFStride)
}

type leg struct {
	t     *Tensor
	dt    dtype.DType
	esize int64
	addr  uint64  // the address of the pattern's element (0, …, 0), the indirect dim's index taken as 0
	dims  []dim   // innermost first
	elems int64   // elements the pattern walks (the indirect dim counted by its lanes)
	shape []int64 // the pattern's counts, outermost first

	// An indirect leg: dims[ind] walks the index tile's values.
	ind   int // −1: none
	idx   *leg
	bound int64 // indices valid for the indirect dim: 0 ≤ i < bound
	axis  int   // the tensor axis the indirect dim indexes (for the OOB message)

	dynamic bool // a scalar offset: the start is a run-time value
}

func (p *Program) tensorOf(a *AP, what string) (*Tensor, error) {
	if a == nil {
		return nil, progErr("no %s", what)
	}
	t := p.byName[a.Tensor]
	if t == nil {
		return nil, progErr("%s: no tensor %q", what, a.Tensor)
	}
	return t, nil
}

// pattern is the AP's pattern, outermost first: given, from slices, or the
// whole tensor.
func (a *AP) pattern(t *Tensor) ([][2]int64, int64, error) {
	strides := make([]int64, len(t.Shape))
	s := int64(1)
	for i := len(t.Shape) - 1; i >= 0; i-- {
		strides[i] = s
		s *= int64(t.Shape[i])
	}
	switch {
	case a.Pattern != nil && a.Slices != nil:
		return nil, 0, errors.New("pattern and slices are exclusive")
	case a.Pattern != nil:
		if len(a.Pattern) == 0 || len(a.Pattern) > MaxDims {
			return nil, 0, fmt.Errorf("pattern of %d dimensions: want 1 to %d", len(a.Pattern), MaxDims)
		}
		return a.Pattern, a.Offset, nil
	case a.Slices != nil:
		if len(a.Slices) != len(t.Shape) {
			return nil, 0, fmt.Errorf("%d slices for a tensor of %d axes", len(a.Slices), len(t.Shape))
		}
		pat := make([][2]int64, len(t.Shape))
		off := a.Offset
		for i, sl := range a.Slices {
			start, stop, step := sl[0], sl[1], sl[2]
			if step <= 0 {
				return nil, 0, fmt.Errorf("axis %d: step %d: want a positive step", i, step)
			}
			stop = min(stop, int64(t.Shape[i])) // over-long slices clip, as NumPy's do
			if start < 0 || start >= stop {
				return nil, 0, fmt.Errorf("axis %d: slice [%d:%d] of %d is empty or negative", i, start, sl[1], t.Shape[i])
			}
			n := (stop - start + step - 1) / step
			pat[i] = [2]int64{step * strides[i], n}
			off += start * strides[i]
		}
		return pat, off, nil
	}
	pat := make([][2]int64, len(t.Shape))
	for i := range t.Shape {
		pat[i] = [2]int64{strides[i], int64(t.Shape[i])}
	}
	return pat, a.Offset, nil
}

// resolve turns an AP into a leg over the target's address map. A static
// pattern outside its tensor is a program error; a scalar offset that
// takes it outside is an OOBError (the DGE's run-time check).
func (p *Program) resolve(a *AP, what string) (*leg, error) {
	t, err := p.tensorOf(a, what)
	if err != nil {
		return nil, err
	}
	if a.DType != "" && a.DType != t.DType {
		return nil, fmt.Errorf("%w: %s: a reinterpreting view (dtype %s of a %s tensor) is not supported yet", ErrProgram, what, a.DType, t.DType)
	}
	pat, off, err := a.pattern(t)
	if err != nil {
		return nil, progErr("%s on %q: %v", what, t.Name, err)
	}
	l := &leg{t: t, dt: t.dt, esize: int64(t.esize), ind: -1}
	if off < -maxReach || off > maxReach { // past any tensor (≤ 2^40 elements); bounded, off+lo..off+hi cannot wrap
		return nil, progErr("%s on %q: offset %d elements is outside the tensor's %d", what, t.Name, off, t.elems)
	}
	far := false // a scalar offset past any tensor: out of bounds whatever the pattern, kept out of off's sum
	if a.ScalarOffset != nil {
		if so := *a.ScalarOffset; so < -maxReach || so > maxReach {
			far = true
		} else {
			off += so
		}
		l.dynamic = true
	}
	ind := -1
	if a.VectorOffset != nil {
		if a.IndirectDim < 0 || a.IndirectDim >= len(pat) {
			return nil, progErr("%s: indirect_dim %d: the pattern has %d dimensions", what, a.IndirectDim, len(pat))
		}
		ind = a.IndirectDim
	}
	// the flat element range the static dims reach
	lo, hi := off, off
	l.elems = 1
	for d, sn := range pat {
		step, n := sn[0], sn[1]
		if n <= 0 || n > 1<<31 {
			return nil, progErr("%s: pattern dimension %d counts %d: want 1 to 2^31", what, d, n)
		}
		if step < -(1<<40) || step > 1<<40 {
			return nil, progErr("%s: pattern dimension %d steps %d", what, d, step)
		}
		if l.elems > (1<<40)/n { // checked before the product: eight dims of 2^31 wrap an int64 (to 0 at four of 2^16)
			return nil, progErr("%s: the pattern walks more than 2^40 elements", what)
		}
		if d != ind && (n-1) > maxReach/max(step, -step, 1) { // 2^40 × 2^31 wraps; a dim this long leaves any tensor
			return nil, progErr("%s on %q: pattern dimension %d (%d steps of %d) reaches past the tensor's %d elements", what, t.Name, d, n, step, t.elems)
		}
		l.elems *= n
		l.shape = append(l.shape, n)
		if d == ind {
			continue
		}
		if step > 0 {
			hi += step * (n - 1)
		} else {
			lo += step * (n - 1)
		}
	}
	if ind >= 0 {
		step := pat[ind][0]
		if step <= 0 {
			return nil, progErr("%s: the indirect dimension's step %d: want a positive step", what, step)
		}
		l.ind, l.axis = len(pat)-1-ind, ind
		if far || lo < 0 || hi >= t.elems {
			return nil, progErr("%s on %q: the row at index 0 (elements %d..%d) is outside the tensor's %d", what, t.Name, lo, hi, t.elems)
		}
		l.bound = (t.elems-1-hi)/step + 1
		idx, err := p.resolve(a.VectorOffset, what+" vector_offset")
		if err != nil {
			return nil, err
		}
		if idx.ind >= 0 || idx.dynamic {
			return nil, progErr("%s: the vector_offset is itself indirect", what)
		}
		if !idx.t.chip || idx.t.Buffer != "sbuf" {
			return nil, fmt.Errorf("%w: %s: the index tensor %q is in %s: vector_offset indices must be in SBUF", ErrIllegal, what, idx.t.Name, idx.t.Buffer)
		}
		if idx.dt != dtype.U32 && idx.dt != dtype.I32 {
			return nil, fmt.Errorf("%w: %s: the index tensor %q is %s: want uint32 (or int32)", ErrIllegal, what, idx.t.Name, idx.t.DType)
		}
		if idx.elems != pat[ind][1] {
			return nil, progErr("%s: %d indices for an indirect dimension of %d", what, idx.elems, pat[ind][1])
		}
		l.idx = idx
	} else if far || lo < 0 || hi >= t.elems {
		if l.dynamic {
			return l, &OOBError{Lane: -1, Index: *a.ScalarOffset, Bound: t.elems - (hi - lo), Axis: 0}
		}
		return nil, progErr("%s on %q: elements %d..%d are outside the tensor's %d", what, t.Name, lo, hi, t.elems)
	}
	if !t.chip {
		l.addr = t.addr + uint64(off)*uint64(t.esize)
		for d := len(pat) - 1; d >= 0; d-- {
			l.dims = append(l.dims, dim{pat[d][1], pat[d][0] * int64(t.esize)})
		}
		return l, nil
	}
	// on chip: element e is partition e / F, offset e % F; a dimension
	// either steps whole partitions or stays inside one
	F := t.free
	stride := p.partStride(t)
	part, f0 := off/F, off%F
	flo, fhi := f0, f0
	for d := len(pat) - 1; d >= 0; d-- {
		step, n := pat[d][0], pat[d][1]
		switch {
		case n == 1:
			l.dims = append(l.dims, dim{1, 0})
		case step%F == 0 && step != 0 && F > 1 || F == 1:
			l.dims = append(l.dims, dim{n, step / F * stride})
		default:
			l.dims = append(l.dims, dim{n, step * int64(t.esize)})
			if d == ind {
				return nil, fmt.Errorf("%w: %s: an indirect dimension inside an on-chip partition (step %d) is not supported", ErrIllegal, what, step)
			}
			if step > 0 {
				fhi += step * (n - 1)
			} else {
				flo += step * (n - 1)
			}
		}
	}
	if flo < 0 || fhi >= F {
		return nil, progErr("%s on %q: a dimension crosses a partition's %d elements (its free offsets %d..%d): on-chip patterns step whole partitions or stay inside one", what, t.Name, F, flo, fhi)
	}
	l.addr = t.addr + uint64(part*stride) + uint64(f0*int64(t.esize))
	return l, nil
}
