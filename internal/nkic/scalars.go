package nkic

import (
	"ndma/dtype"
	"ndma/isa"
)

// A per-partition scalar operand (NKI's tensor-valued operand0/operand1 of
// tensor_scalar, activation's bias): a (P, 1) tile read by the word through
// a pointer scalar, POINTER_IMMEDIATE — the pointer names the element in
// the partition of the data's first one, each partition reading its own
// (docs/compute.md §5, §8).

// scalarPtr is the pointer field value of the (P, 1) tile a names for a
// word whose data leg starts at data's partition and spans ch partitions;
// the tile's dtype must be one of want.
func (p *Program) scalarPtr(a *AP, what string, data *leg, ch int64, want ...dtype.DType) (int64, dtype.DType, error) {
	l, err := p.resolve(a, what)
	if err != nil {
		return 0, 0, err
	}
	c, err := p.operand(l, 3)
	if err != nil {
		return 0, 0, err
	}
	if c.elems() != 1 || c.ch != ch {
		return 0, 0, illegal("%s %q: a per-partition operand is a (P, 1) tile over the data's %d partitions, not %d partitions × %d elements", what, l.t.Name, ch, c.ch, c.elems())
	}
	ok := false
	for _, d := range want {
		ok = ok || l.dt == d
	}
	if !ok {
		return 0, 0, illegal("%s %q is %s: the word reads a per-partition operand as %v", what, l.t.Name, l.t.DType, want)
	}
	m := isa.Map(p.gen)
	_, q, _ := m.Split(l.addr)
	_, p0, _ := m.Split(data.addr)
	if q < p0 {
		return 0, 0, illegal("%s %q starts at partition %d, the data at %d: the word reads partition p of the operand for data partition p", what, l.t.Name, q, p0)
	}
	ptr := l.addr - uint64(p0)*uint64(p.partStride(l.t)) // the element in the data's first partition's row
	if ptr > isa.Addr4ImmMask {
		return 0, 0, illegal("%s %q: address %#x does not fit a pointer scalar", what, l.t.Name, ptr)
	}
	return int64(ptr), l.dt, nil
}
