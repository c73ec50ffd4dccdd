package asm

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"ndma/internal/samples"
	"ndma/isa"
)

// The golden corpus of package isa carries, per case, the canonical text
// (CASE.s) written by hand from docs/asm.md beside the hand-derived bytes
// (CASE.hex): the text assembles to exactly those bytes, and the bytes
// disassemble to exactly that text, for every generation of the case.
func TestGoldenText(t *testing.T) {
	n := 0
	for _, ar := range samples.Archives(t, "../isa/testdata/golden/*.txtar") {
		file, parts := ar.File, ar.Parts
		for _, member := range ar.Names {
			name, ok := strings.CutSuffix(member, ".s")
			if !ok {
				continue
			}
			n++
			words := goldenHex(t, parts[name+".hex"])
			for _, gs := range strings.Fields(string(parts[name+".gen"])) {
				g, err := isa.ParseGen(gs)
				if err != nil {
					t.Fatal(err)
				}
				t.Run(fmt.Sprintf("%s/%s/%s", filepath.Base(file), name, g), func(t *testing.T) {
					obj, err := Assemble(name+".s", parts[member], Options{Gen: g})
					if err != nil {
						t.Fatalf("assemble: %v", err)
					}
					if !bytes.Equal(obj.Code, words) {
						t.Errorf("assembled bytes differ from the golden hex:\n got %x\nwant %x", obj.Code, words)
					}
					text, err := Disassemble(g, words)
					if err != nil {
						t.Fatal(err)
					}
					text = bytes.TrimPrefix(text, []byte(".gen "+strings.ToLower(g.String())+"\n"))
					if !bytes.Equal(text, parts[member]) {
						t.Errorf("disassembly differs from the golden text:\n got: %s\nwant: %s", text, parts[member])
					}
				})
			}
		}
	}
	if n == 0 {
		t.Fatal("no golden text (CASE.s) found")
	}
}

func goldenHex(t *testing.T, data []byte) []byte {
	t.Helper()
	var b []byte
	for _, line := range strings.Split(string(data), "\n") {
		line, _, _ = strings.Cut(line, "#")
		line, _, _ = strings.Cut(line, "|")
		for _, tok := range strings.Fields(line) {
			if strings.HasSuffix(tok, ":") {
				continue
			}
			x, err := hex.DecodeString(tok)
			if err != nil {
				t.Fatalf("hex %q: %v", tok, err)
			}
			b = append(b, x...)
		}
	}
	return b
}
