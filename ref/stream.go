package ref

import (
	"errors"
	"fmt"

	"ndma/internal/num"
	"ndma/isa"
)

// The byte-stream move every DMA word reduces to (field-tables §11.3–§11.5):
// a list of src elements whose bytes, concatenated in walk order, fill a list
// of dst elements in walk order — with a cast or an in-flight compute per
// scalar, lanes that bounds checks skip, reads before writes, and no effect
// at all on a fault.

// elems is a list of element addresses of one size.
type elems struct {
	addr []uint64
	size int
	skip []bool // lanes a quiet bounds check leaves out (nil: none)
}

func (e *elems) bytes() int64 { return int64(len(e.addr)) * int64(e.size) }

// walk2D lists a 2-D leg's elements, dim 0 innermost (§11.3).
func walk2D(start uint64, num [2]int, step [2]int64, size int) elems {
	e := elems{addr: make([]uint64, 0, num[0]*num[1]), size: size}
	for i1 := 0; i1 < num[1]; i1++ {
		for i0 := 0; i0 < num[0]; i0++ {
			e.addr = append(e.addr, uint64(int64(start)+int64(i0)*step[0]+int64(i1)*step[1]))
		}
	}
	return e
}

// checkBound applies a BOUND_CHECK_REG to a leg: an element whose last byte
// passes the limit faults, or — errors off — is skipped (§11.5).
func (w *word) checkBound(e *elems, b bound, what string) error {
	if !b.on {
		return nil
	}
	for k, a := range e.addr {
		if last := a + uint64(e.size) - 1; last > b.limit {
			if !b.quiet {
				return w.fault(k, what, fmt.Errorf("last byte %#x > limit r%d = %#x: %w", last, b.reg, b.limit, ErrBounds))
			}
			if e.skip == nil {
				e.skip = make([]bool, len(e.addr))
			}
			e.skip[k] = true
		}
	}
	return nil
}

// mapped checks every element is valid memory (before anything is written).
func (w *word) mapped(e *elems, what string) error {
	if e.skip == nil {
		if k, err := w.x.Mem.CheckRows(e.addr, e.size); err != nil {
			return w.fault(k, what, err)
		}
		return nil
	}
	for k, a := range e.addr {
		if e.skip[k] {
			continue
		}
		if err := w.x.Mem.Check(a, e.size); err != nil {
			return w.fault(k, what, err)
		}
	}
	return nil
}

// move is one word's data movement.
type move struct {
	src, dst elems
	in, out  isa.DTypeCode        // equal: no cast
	compute  isa.DGEComputeOpCode // NONE: no compute
}

// run executes the move atomically: every check first, then the reads, then
// the writes; the staged semaphore changes apply last.
func (w *word) run(m *move, deltas []semDelta) error {
	total := m.src.bytes() + m.dst.bytes()
	if total > w.x.maxBytes() {
		return w.fault(-1, "max-bytes", fmt.Errorf("the word moves %d bytes, more than the %d allowed", total, w.x.maxBytes()))
	}
	plain := m.compute == isa.DGEComputeOpNone && m.in == m.out
	if plain && m.src.skip == nil && m.dst.skip == nil && m.src.size == m.dst.size && len(m.src.addr) == len(m.dst.addr) && !overlaps(&m.src, &m.dst) {
		return w.copyDirect(m, deltas) // CopyRows checks every row before it moves one
	}
	if err := w.mapped(&m.src, "src"); err != nil {
		return err
	}
	if err := w.mapped(&m.dst, "dst"); err != nil {
		return err
	}
	var isz, osz int = 1, 1
	if !plain {
		var ok1, ok2 bool
		isz, ok1 = num.Size(uint8(m.in))
		osz, ok2 = num.Size(uint8(m.out))
		if !ok1 || !ok2 {
			return w.fault(-1, "dtype", fmt.Errorf("%s → %s: %w", isa.DType.Format(uint64(m.in)), isa.DType.Format(uint64(m.out)), ErrUnsupported))
		}
		if m.src.bytes()%int64(isz) != 0 || m.dst.bytes()%int64(osz) != 0 || m.src.bytes()/int64(isz) != m.dst.bytes()/int64(osz) {
			return w.fault(-1, "element count", fmt.Errorf("src %d bytes of %s, dst %d bytes of %s: a cast or compute moves element for element (§11.4)",
				m.src.bytes(), isa.DType.Format(uint64(m.in)), m.dst.bytes(), isa.DType.Format(uint64(m.out))))
		}
	} else if m.src.bytes() != m.dst.bytes() {
		return w.fault(-1, "byte count", fmt.Errorf("src moves %d bytes, dst %d: both legs carry the same bytes (§11.3)", m.src.bytes(), m.dst.bytes()))
	}
	// reads before writes: the whole src stream, and for compute the old dst
	in := make([]byte, m.src.bytes())
	have := make([]bool, 0)
	if m.src.skip != nil {
		have = make([]bool, len(in))
	}
	for k, a := range m.src.addr {
		buf := in[k*m.src.size : (k+1)*m.src.size]
		if m.src.skip != nil {
			if m.src.skip[k] {
				continue
			}
			for b := range buf {
				have[k*m.src.size+b] = true
			}
		}
		if err := w.x.Mem.Read(a, buf); err != nil {
			return w.fault(k, "src", err)
		}
	}
	out := in
	var outHave []bool
	if m.src.skip != nil {
		outHave = have
	}
	if !plain {
		old := make([]byte, m.dst.bytes())
		if m.compute != isa.DGEComputeOpNone {
			for k, a := range m.dst.addr {
				if m.dst.skip != nil && m.dst.skip[k] {
					continue
				}
				if err := w.x.Mem.Read(a, old[k*m.dst.size:(k+1)*m.dst.size]); err != nil {
					return w.fault(k, "dst", err)
				}
			}
		}
		out = make([]byte, m.dst.bytes())
		if m.src.skip != nil {
			outHave = make([]bool, len(out))
		}
		for s := 0; s < len(in)/isz; s++ {
			if m.src.skip != nil && !have[s*isz] {
				continue
			}
			v := getLE(in[s*isz:], isz)
			r, err := scalar(m, v, getLE(old[s*osz:], osz))
			if err != nil {
				return w.fault(s, "cast", err)
			}
			putLE(out[s*osz:], osz, r)
			for b := 0; outHave != nil && b < osz; b++ {
				outHave[s*osz+b] = true
			}
		}
	}
	lanes := 0
	for k, a := range m.dst.addr {
		lo := k * m.dst.size
		buf := out[lo : lo+m.dst.size]
		if m.dst.skip != nil && m.dst.skip[k] || outHave != nil && !all(outHave[lo:lo+m.dst.size]) {
			w.x.Stats.Skipped++
			w.x.Tracef("%s: dst element %d at %#x skipped (out of bounds)", w.name, k, a)
			continue
		}
		if err := w.x.Mem.Write(a, buf); err != nil {
			return w.fault(k, "dst", err) // cannot happen: checked above
		}
		lanes++
	}
	w.x.Stats.Lanes += lanes
	w.x.Stats.BytesMoved += uint64(lanes * m.dst.size)
	w.x.Tracef("%s: read %d elements (%d bytes), wrote %d elements (%d bytes)", w.name, len(m.src.addr), m.src.bytes(), lanes, lanes*m.dst.size)
	w.apply(deltas)
	return nil
}

func all(b []bool) bool {
	for _, x := range b {
		if !x {
			return false
		}
	}
	return true
}

// copyDirect is the plain, disjoint copy: element pairs merged into runs and
// moved without staging.
func (w *word) copyDirect(m *move, deltas []semDelta) error {
	if k, err := w.x.Mem.CopyRows(m.dst.addr, m.src.addr, m.src.size); err != nil {
		// name the fault as the checks of the general path do
		if err := w.mapped(&m.src, "src"); err != nil {
			return err
		}
		if err := w.mapped(&m.dst, "dst"); err != nil {
			return err
		}
		return w.fault(k, "copy", err)
	}
	w.x.Stats.Lanes += len(m.dst.addr)
	w.x.Stats.BytesMoved += uint64(m.dst.bytes())
	w.x.Tracef("%s: copied %d elements (%d bytes)", w.name, len(m.src.addr), m.src.bytes())
	w.apply(deltas)
	return nil
}

// overlaps reports whether the two legs' byte extents intersect.
func overlaps(a, b *elems) bool {
	alo, ahi := extent(a)
	blo, bhi := extent(b)
	return alo < bhi && blo < ahi
}

func extent(e *elems) (lo, hi uint64) {
	if len(e.addr) == 0 {
		return 0, 0
	}
	lo, hi = e.addr[0], e.addr[0]
	for _, a := range e.addr {
		lo, hi = min(lo, a), max(hi, a)
	}
	return lo, hi + uint64(e.size)
}

// scalar is one cast or compute (internal/num.Apply, §11.4).
func scalar(m *move, src, old uint64) (uint64, error) {
	r, err := num.Apply(uint8(m.compute), uint8(m.in), uint8(m.out), src, old)
	if errors.Is(err, num.ErrOp) {
		return 0, fmt.Errorf("%v: %w", err, ErrUnsupported)
	}
	return r, err
}

func getLE(b []byte, n int) uint64 {
	var v uint64
	for i := n - 1; i >= 0; i-- {
		v = v<<8 | uint64(b[i])
	}
	return v
}

func putLE(b []byte, n int, v uint64) {
	for i := 0; i < n; i++ {
		b[i] = byte(v >> (8 * i))
	}
}
