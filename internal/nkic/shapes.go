package nkic

import (
	"encoding/binary"

	"ndma/isa"
)

// The compiled-shape cache. A static copy's words (direct) are a function
// of the legs' dimensions, element sizes and dtypes, the compute op, the
// hwdge form and the target — and of the legs' start addresses only
// through the words' start-address fields, each word's address its leg's
// start plus an offset that follows from the dimensions. So a call of a
// shape compiled before reuses that compilation's words with the start
// addresses set again (through the typed setters, as direct sets them);
// the words are byte for byte those direct gives (shapes_test.go compiles
// random calls both ways).

// maxShapes bounds the cache; maxShapeWords bounds the words one entry
// holds (a call of more words compiles in full each time).
const (
	maxShapes     = 1 << 12
	maxShapeWords = 256
)

// shape is one compiled static copy: its words as run and as issued
// (pseudo: the hwdge PSEUDO_DMA_DIRECT2D forms), and each word's source
// and destination offsets from its legs' start addresses.
type shape struct {
	run, words []isa.Inst
	so, do     []int64
	pseudo     bool
}

// shapeKey is the cache key of a static copy: everything direct reads
// but the legs' addresses (and, for the hwdge form, their tensors).
func (p *Program) shapeKey(dst, src *leg, op isa.DGEComputeOpCode, pseudo bool) []byte {
	b := append(p.keyBuf[:0], byte(op), byte(isa.DTypeCode(src.dt)), byte(isa.DTypeCode(dst.dt)))
	if pseudo {
		b = append(b, 1)
	} else {
		b = append(b, 0)
	}
	b = binary.AppendVarint(b, src.esize)
	b = binary.AppendVarint(b, dst.esize)
	for _, l := range []*leg{src, dst} {
		b = binary.AppendUvarint(b, uint64(len(l.dims)))
		for _, d := range l.dims {
			b = binary.AppendVarint(b, d.n)
			b = binary.AppendVarint(b, d.step)
		}
	}
	p.keyBuf = b
	return b
}

// cached compiles a static copy from the cache; ok is false when the
// shape is not there or this call's addresses do not fit the hwdge
// form's variable offsets (direct then compiles it, reporting why).
func (p *Program) cached(lw *Lowered, key []byte, dst, src *leg) bool {
	sh := p.shapes[string(key)]
	if sh == nil {
		return false
	}
	n := len(sh.run)
	if sh.pseudo {
		for w := range n {
			if !varFits(src, sh.so[w]) || !varFits(dst, sh.do[w]) {
				return false
			}
		}
	}
	first := len(lw.Run)
	lw.Run = append(lw.Run, sh.run...)
	if sh.pseudo {
		lw.Words = append(lw.Words, sh.words...)
	} else {
		lw.Words = append(lw.Words, sh.run...)
	}
	for w := range n {
		sa, da := uint64(int64(src.addr)+sh.so[w]), uint64(int64(dst.addr)+sh.do[w])
		v, _ := lw.Run[first+w].Direct2D()
		v.SetSrcStartAddr(isa.ImmAddr8(sa))
		v.SetDstStartAddr(isa.ImmAddr8(da))
		if !sh.pseudo {
			lw.Words[first+w] = lw.Run[first+w]
		} else {
			ps, _ := lw.Words[first+w].PseudoDirect2D()
			ps.SetSrcStartAddr(isa.VarAddr8(uint16(src.t.id), uint32(sa-src.t.addr)))
			ps.SetDstStartAddr(isa.VarAddr8(uint16(dst.t.id), uint32(da-dst.t.addr)))
		}
	}
	return true
}

// varFits says whether a word's address (its leg's start plus off) is its
// tensor's base plus a var_offset the PSEUDO_ADDR8 var arm holds (32 bits)
// and the tensor a var_id (16 bits) — what pseudoOf's relocation checks.
func varFits(l *leg, off int64) bool {
	rel := int64(l.addr-l.t.addr) + off
	return rel >= 0 && rel < 1<<32 && l.t.id < 1<<16
}

// remember stores a static copy direct compiled (its words are lw's
// from first): a shape not cached yet, with room left.
func (p *Program) remember(key []byte, lw *Lowered, first int, pseudo bool, so, do []int64) {
	n := len(lw.Run) - first
	if n > maxShapeWords || len(p.shapes) >= maxShapes {
		return
	}
	if p.shapes == nil {
		p.shapes = map[string]*shape{}
	}
	sh := &shape{run: append([]isa.Inst(nil), lw.Run[first:]...), so: so, do: do, pseudo: pseudo}
	if pseudo {
		sh.words = append([]isa.Inst(nil), lw.Words[first:]...)
	}
	p.shapes[string(key)] = sh
}
