package asm

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"ndma/isa"
)

// The golden corpus of package isa carries, per case, the canonical text
// (CASE.s) written by hand from docs/asm.md beside the hand-derived bytes
// (CASE.hex): the text assembles to exactly those bytes, and the bytes
// disassemble to exactly that text, for every generation of the case.
func TestGoldenText(t *testing.T) {
	files, err := filepath.Glob("../isa/testdata/golden/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden files: %v", err)
	}
	n := 0
	for _, file := range files {
		ar, err := txtar.ParseFile(file)
		if err != nil {
			t.Fatal(err)
		}
		parts := map[string][]byte{}
		for _, f := range ar.Files {
			parts[f.Name] = f.Data
		}
		for _, f := range ar.Files {
			name, ok := strings.CutSuffix(f.Name, ".s")
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
					obj, err := Assemble(name+".s", f.Data, Options{Gen: g})
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
					if !bytes.Equal(text, f.Data) {
						t.Errorf("disassembly differs from the golden text:\n got: %s\nwant: %s", text, f.Data)
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
