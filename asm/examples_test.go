package asm

import (
	"bytes"
	"io/fs"
	"testing"

	"ndma"
	"ndma/isa"
)

// Every example program assembles, and its canonical text reassembles to the
// same bytes; the examples cover every opcode with a layout.
func TestExamples(t *testing.T) {
	names, err := fs.Glob(ndma.Examples, "examples/*.s")
	if err != nil || len(names) < 10 {
		t.Fatalf("examples: %v (%d)", err, len(names))
	}
	seen := map[isa.Opcode]bool{}
	for _, name := range names {
		src, _ := fs.ReadFile(ndma.Examples, name)
		obj, err := Assemble(name, src, Options{})
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		text, err := Disassemble(obj.Gen, obj.Code)
		if err != nil {
			t.Fatal(err)
		}
		again, err := Assemble(name, text, Options{})
		if err != nil || !bytes.Equal(again.Code, obj.Code) {
			t.Errorf("%s: canonical text does not reassemble: %v\n%s", name, err, text)
		}
		for off := 0; off < len(obj.Code); off += isa.WordSize {
			seen[isa.Opcode(obj.Code[off])] = true
		}
	}
	for _, d := range isa.Catalog() {
		if d.Decoded() && !seen[d.Opcode] {
			t.Errorf("no example uses %s", d.Name)
		}
	}
}
