package nkic

import (
	"ndma/dge"
	"ndma/isa"
)

// The Fast path's time cache (Options.Fast). A word's time on the
// packet-level model (sim's wordTransfer, then timing.Time: runner.wordNS)
// is a function of the rows its lowering gives each DMA engine, where
// they read and write and whether they cast; those follow from the
// word's fields, and from its addresses only through the region, the
// SBUF/PSUM partition and the alignment within a 4 KiB block (INFERRED, RATIONALE.md "NKI kernels":
// the lowering splits rows by partition and by element; internal/nkic's
// cost tests hold the cached times to the engines' for every call of
// their kernels). So the key is the word with each immediate address
// reduced to (region, partition, offset mod 4096).

// maxCosts bounds the cache (a kernel has few word shapes; a pathological
// one runs every further shape on the engines).
const maxCosts = 1 << 16

// costKey is a word's shape: its bytes with addresses reduced, and the
// backend it lowers with. ok is false for the zero key (not cacheable).
type costKey struct {
	w       [isa.WordSize]byte
	backend dge.Backend
	desc    bool // the entry holds the descriptor count, not the time
	ok      bool
}

// descs is the key of the shape's descriptor count.
func (k costKey) descs() costKey { k.desc = true; return k }

// costKey is in's shape, or ok=false when its time may depend on more than
// the key holds: a register-held address or bound, a non-immediate form.
func (r *runner) costKey(b dge.Backend, in *isa.Inst, regs *[64]uint32) (costKey, bool) {
	for _, v := range regs {
		if v != 0 {
			return costKey{}, false
		}
	}
	k := costKey{backend: b, ok: true}
	if err := in.EncodeTo(k.w[:]); err != nil || in.Size() != isa.WordSize {
		return costKey{}, false
	}
	m := isa.Map(r.gen)
	leaves := in.Layout().Leaves()
	for i := range leaves {
		l := &leaves[i]
		if l.Field.Kind != isa.KAddr8 && l.Field.Kind != isa.KPseudoAddr8 {
			continue
		}
		a := isa.Addr8{Raw: in.Leaf(i), Pseudo: l.Field.Kind == isa.KPseudoAddr8}
		v, ok := a.Imm()
		if !ok {
			return costKey{}, false
		}
		reg, part, off := m.Split(v)
		red := uint64(reg)<<56 | uint64(part)<<40 | off%4096
		for j := 0; j < 8; j++ {
			k.w[l.Off+j] = byte(red >> (8 * j))
		}
	}
	return k, true
}
