//go:build !gentyped

package isa

import "fmt"

// Typed access (typed_gen.go): gentyped writes one view type per layout
// table, whose methods read and write the fields in the word (a word's at
// constant places, a sub-struct's by leaf index), so that a mistyped field
// name does not compile. The generator builds this package
// with -tags gentyped, which leaves out typed_gen.go and the files that use
// it (this one), so that it never depends on the file it writes.
//
//go:generate go run -tags gentyped ./internal/gentyped

// Legs2D returns the src and dst legs of a word with 2-D legs (DMA_DIRECT2D,
// PSEUDO_DMA_DIRECT2D, DMA_COPY2D); ok is false for any other word.
func (in *Inst) Legs2D() (src, dst Leg2D, ok bool) {
	if v, ok := in.Direct2D(); ok {
		return leg2D(v.SrcElemSize(), v.SrcNumElem, v.SrcStepElem), leg2D(v.DstElemSize(), v.DstNumElem, v.DstStepElem), true
	}
	if v, ok := in.PseudoDirect2D(); ok {
		return leg2D(v.SrcElemSize(), v.SrcNumElem, v.SrcStepElem), leg2D(v.DstElemSize(), v.DstNumElem, v.DstStepElem), true
	}
	if v, ok := in.Copy2D(); ok {
		return leg2D(v.SrcElemSize(), v.SrcNumElem, v.SrcStepElem), leg2D(v.DstElemSize(), v.DstNumElem, v.DstStepElem), true
	}
	return Leg2D{}, Leg2D{}, false
}

func leg2D(elem uint64, num func(int) uint64, step func(int) int64) Leg2D {
	return Leg2D{Elem: ElemBytes(elem), Num: [2]int64{int64(num(0)), int64(num(1))}, Step: [2]int64{step(0), step(1)}}
}

// CopyEvents copies the EVENTS block of src into in (field-tables §2.2: the
// block a resolved or fired word keeps from its pseudo word); false when
// either word has none.
func (in *Inst) CopyEvents(src *Inst) bool {
	d, ok1 := in.Events()
	s, ok2 := src.Events()
	if !ok1 || !ok2 {
		return false
	}
	n := len(eventsLayout.Fields) // every EVENTS field is one leaf
	for k := range n {
		in.putLeaf(d.at+k, src.leafAt(s.at+k))
	}
	return true
}

// elemAt is leaf first+i of an n-element array, refusing an index outside it.
func elemAt(first, n, i int) int {
	if uint(i) >= uint(n) {
		outOfRange(i, n)
	}
	return first + i
}

// outOfRange is elemAt's panic, kept out of line so that elemAt inlines.
//
//go:noinline
func outOfRange(i, n int) { panic(fmt.Sprintf("isa: index %d out of range [0:%d]", i, n)) }
