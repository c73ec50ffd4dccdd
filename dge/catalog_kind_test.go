package dge

import (
	"errors"
	"testing"

	"ndma/isa"
)

// The catalog's DGE kind is what Lower makes of the word: an opcode with a
// kind is lowered (whatever its fields then say), one without — 0xb9
// DMA_MEMCPY2 and 0xba DMA_IMMEDIATE among them, which the engines run
// without a DGE program — is not. Before, the catalog gave 0xb9 and 0xba
// DGE kind 0 (INFERRED) while Lower refused them.
func TestCatalogDGEKindIsLower(t *testing.T) {
	for _, d := range isa.Catalog() {
		if d.Pseudo || !d.Decoded() {
			continue
		}
		gen := isa.GenAny
		for _, g := range isa.Gens() {
			if d.Presence(g) == "Y" {
				gen = g
				break
			}
		}
		var b [64]byte
		b[0], b[1] = byte(d.Opcode), 16
		in, err := isa.Decode(gen, b[:])
		if err != nil {
			t.Fatalf("%s: %v", d.Name, err)
		}
		p, err := Lower(&in, gen, Options{})
		lowered := !errors.Is(err, ErrNotLowered)
		if lowered != (d.DGEKind >= 0) {
			t.Errorf("%#02x %s: DGE kind %d, but Lower: %v", uint8(d.Opcode), d.Name, d.DGEKind, err)
		}
		if p != nil && int(p.Kind) != d.DGEKind {
			t.Errorf("%#02x %s: DGE kind %d, Lower made a %s program", uint8(d.Opcode), d.Name, d.DGEKind, p.Kind)
		}
	}
	for _, op := range []uint8{0xb9, 0xba} {
		d, _ := isa.LookupName([]string{0xb9: "DMA_MEMCPY2", 0xba: "DMA_IMMEDIATE"}[op])
		if d == nil || d.DGEKind != -1 || !d.EngineDMA {
			t.Errorf("%#x: want no DGE kind, a DMA the engines run", op)
		}
	}
}
