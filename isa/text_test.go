package isa

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestStringGolden checks Inst.String against the golden corpus's canonical
// text (CASE.s, what `ndma disasm` prints): each decoded instruction's
// String, one per line, is the case's text, for every generation of the case.
func TestStringGolden(t *testing.T) {
	n := 0
	for _, c := range loadGolden(t) {
		if c.text == nil {
			continue
		}
		for _, g := range c.gens {
			insts, err := DecodeAll(g, c.words)
			if err != nil {
				t.Fatalf("%s/%s: %v", filepath.Base(c.file), c.name, err)
			}
			var b strings.Builder
			for i := range insts {
				b.WriteString(insts[i].String())
				b.WriteByte('\n')
				n++
			}
			if got := b.String(); got != string(c.text) {
				t.Errorf("%s/%s/%s: String differs from the golden text:\n got: %s\nwant: %s", filepath.Base(c.file), c.name, g, got, c.text)
			}
		}
	}
	if n == 0 {
		t.Fatal("no golden text (CASE.s) found")
	}
}

func TestStringEmpty(t *testing.T) {
	var in Inst
	if got := in.String(); got != "(empty instruction)" {
		t.Errorf("String of the zero Inst = %q", got)
	}
}
