package isa

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rogpeppe/go-internal/txtar"
)

// The golden corpus: testdata/golden/*.txtar. Each case is CASE.gen
// (generations), CASE.hex (the words, written by hand from the field tables —
// never produced by ndma's encoder; '#' starts a comment), CASE.json (the
// expected `disasm --json` array) and CASE.s (the canonical text; package asm
// checks it). Both directions are checked:
// bytes → JSON, and JSON → bytes.

type goldenCase struct {
	file, name string
	gens       []Gen
	words      []byte
	json       []byte
	text       []byte // CASE.s: the canonical assembly text (checked by package asm)
}

func loadGolden(t *testing.T) []goldenCase {
	t.Helper()
	files, err := filepath.Glob("testdata/golden/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden files: %v", err)
	}
	var cases []goldenCase
	for _, file := range files {
		ar, err := txtar.ParseFile(file)
		if err != nil {
			t.Fatal(err)
		}
		byName := map[string]*goldenCase{}
		var order []string
		for _, f := range ar.Files {
			name, ext, ok := strings.Cut(f.Name, ".")
			if !ok {
				t.Fatalf("%s: file %q is not CASE.gen/.hex/.json", file, f.Name)
			}
			c := byName[name]
			if c == nil {
				c = &goldenCase{file: file, name: name}
				byName[name] = c
				order = append(order, name)
			}
			switch ext {
			case "gen":
				for _, g := range strings.Fields(string(f.Data)) {
					gen, err := ParseGen(g)
					if err != nil {
						t.Fatalf("%s/%s: %v", file, name, err)
					}
					c.gens = append(c.gens, gen)
				}
			case "hex":
				c.words = parseHex(t, file+"/"+f.Name, f.Data)
			case "json":
				c.json = f.Data
			case "s":
				c.text = f.Data
			default:
				t.Fatalf("%s: unknown part %q", file, f.Name)
			}
		}
		for _, n := range order {
			c := byName[n]
			if len(c.gens) == 0 || c.words == nil || c.json == nil {
				t.Fatalf("%s/%s: needs .gen, .hex and .json", file, n)
			}
			cases = append(cases, *c)
		}
	}
	return cases
}

func parseHex(t *testing.T, where string, data []byte) []byte {
	t.Helper()
	var b []byte
	for ln, line := range strings.Split(string(data), "\n") {
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		if i := strings.IndexByte(line, '|'); i >= 0 {
			line = line[:i]
		}
		for _, tok := range strings.Fields(line) {
			if strings.HasSuffix(tok, ":") { // an "0x40:" offset label
				continue
			}
			x, err := hex.DecodeString(tok)
			if err != nil {
				t.Fatalf("%s:%d: %q: %v", where, ln+1, tok, err)
			}
			b = append(b, x...)
		}
	}
	if len(b) == 0 || len(b)%WordSize != 0 {
		t.Fatalf("%s: %d bytes, not a whole number of 64-byte words", where, len(b))
	}
	return b
}

func jsonValue(t *testing.T, where string, b []byte) any {
	t.Helper()
	var v any
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		t.Fatalf("%s: bad JSON: %v", where, err)
	}
	return v
}

func TestGoldenDecode(t *testing.T) {
	for _, c := range loadGolden(t) {
		for _, g := range c.gens {
			t.Run(fmt.Sprintf("%s/%s/%s", filepath.Base(c.file), c.name, g), func(t *testing.T) {
				got, err := AppendJSONStream(nil, g, c.words)
				if err != nil {
					t.Fatal(err)
				}
				want := jsonValue(t, "want", c.json)
				if d := cmp.Diff(want, jsonValue(t, "got", got)); d != "" {
					t.Errorf("decode mismatch (-golden +decoded):\n%s", d)
				}
			})
		}
	}
}

func TestGoldenEncode(t *testing.T) {
	for _, c := range loadGolden(t) {
		for _, g := range c.gens {
			t.Run(fmt.Sprintf("%s/%s/%s", filepath.Base(c.file), c.name, g), func(t *testing.T) {
				var objs []json.RawMessage
				if err := json.Unmarshal(c.json, &objs); err != nil {
					t.Fatalf("golden JSON is not an array: %v", err)
				}
				var got []byte
				for i, o := range objs {
					in, err := ParseJSON(g, o)
					if err != nil {
						t.Fatalf("object %d: %v", i, err)
					}
					if got, err = AppendEncoded(got, in); err != nil {
						t.Fatal(err)
					}
				}
				if !bytes.Equal(got, c.words) {
					t.Errorf("encode mismatch:\n got %x\nwant %x", got, c.words)
				}
			})
		}
	}
}

// Every decoded opcode × generation row of the catalog has a golden case.
func TestGoldenCoverage(t *testing.T) {
	have := map[[2]int]bool{}
	for _, c := range loadGolden(t) {
		for _, g := range c.gens {
			for off := 0; off < len(c.words); off += WordSize {
				have[[2]int{int(c.words[off]), int(g)}] = true
			}
		}
	}
	var missing []string
	for i := range catalog {
		d := &catalog[i]
		if !d.Decoded() {
			continue
		}
		for _, g := range allGens {
			if d.Gens.Has(g) && d.DecodedOn(g) && !have[[2]int{int(d.Opcode), int(g)}] {
				missing = append(missing, fmt.Sprintf("%s×%s", d.Name, g))
			}
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("no golden case for %d opcode × generation rows: %s", len(missing), strings.Join(missing, ", "))
	}
}
