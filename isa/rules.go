package isa

// Rules that several packages applied each in their own words, written once.

// ElemBytes is the byte size an elem_size field holds: 0 means 64 KiB
// (field-tables §3.2, §11.3).
func ElemBytes(v uint64) int64 {
	if v == 0 {
		return 65536
	}
	return int64(v)
}

// Leg2D is one 2-D leg of a DMA_DIRECT2D-shaped word (DMA_DIRECT2D,
// PSEUDO_DMA_DIRECT2D, DMA_COPY2D): element (i0, i1) starts at
// start + i0·Step[0] + i1·Step[1] and is Elem bytes (field-tables §11.3).
type Leg2D struct {
	Elem int64    // bytes per element: elem_size, 0 read as 65536
	Num  [2]int64 // num_elem, dim 0 innermost
	Step [2]int64 // signed byte steps
}

// Elements is num_elem[0]·num_elem[1].
func (l Leg2D) Elements() int64 { return l.Num[0] * l.Num[1] }

// Bytes is what the leg moves: Elements·Elem.
func (l Leg2D) Bytes() int64 { return l.Elements() * l.Elem }

// Extent is the byte range [lo, hi) the leg's walk touches relative to its
// start; (0, 0) when it has no element.
func (l Leg2D) Extent() (lo, hi int64) { return WalkExtent(l.Elem, l.Num[:], l.Step[:]) }

// WalkExtent is the byte range [lo, hi) relative to its start that a walk of
// elem-byte elements touches, num[d] elements at signed byte step step[d] in
// dimension d (field-tables §11.3): a negative step reaches below the start.
// A walk with a zero count touches nothing: (0, 0).
func WalkExtent[N ~uint16 | ~uint32 | ~uint64 | ~int | ~int64](elem int64, num []N, step []int64) (lo, hi int64) {
	hi = elem
	for d, n := range num {
		if n == 0 {
			return 0, 0
		}
		if span := int64(n-1) * step[d]; span < 0 {
			lo += span
		} else {
			hi += span
		}
	}
	return lo, hi
}

// eventsPaths are the spec paths of the EVENTS block (field-tables §2.2) in
// table order: what a resolved or fired word carries over from its pseudo
// word.
var eventsPaths = func() []string {
	var p []string
	for _, l := range eventsLayout.Fields {
		p = append(p, "events."+l.Name)
	}
	return p
}()
