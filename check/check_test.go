package check

import (
	"bytes"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"ndma"
	"ndma/asm"
	"ndma/internal/samples"
	"ndma/isa"
)

// The rule corpus (testdata/rules/*.txtar, written from docs/validate.md and
// the spec): per case, the generations, the words as assembly, and the exact
// set of problems expected — "#WORD PREDICATE" for an error, "#WORD warning
// PREDICATE" for a warning; nothing for a valid stream.
func TestRuleCorpus(t *testing.T) {
	covered := map[string]bool{}
	for _, ar := range samples.Archives(t, "testdata/rules/*.txtar") {
		file, parts := ar.File, ar.Parts
		for _, member := range ar.Names {
			name, ok := strings.CutSuffix(member, ".s")
			if !ok {
				continue
			}
			want := wantSet(t, parts[name+".want"])
			for _, w := range want {
				covered[strings.Fields(w)[len(strings.Fields(w))-1]] = true
			}
			for _, gs := range strings.Fields(string(parts[name+".gen"])) {
				g, err := isa.ParseGen(gs)
				if err != nil {
					t.Fatalf("%s/%s: %v", file, name, err)
				}
				t.Run(fmt.Sprintf("%s/%s/%s", filepath.Base(file), name, g), func(t *testing.T) {
					obj, err := asm.Assemble(name+".s", parts[member], asm.Options{Gen: g})
					if err != nil {
						t.Fatalf("assemble: %v", err)
					}
					ps, err := Stream(g, obj.Code)
					if err != nil {
						t.Fatal(err)
					}
					set := map[string]bool{} // a predicate failing on two fields counts once
					for _, p := range ps {
						set[problemKey(p)] = true
					}
					got := []string{}
					for k := range set {
						got = append(got, k)
					}
					sort.Strings(got)
					if d := cmp.Diff(want, got); d != "" {
						var full []string
						for _, p := range ps {
							full = append(full, p.String())
						}
						t.Errorf("problems (-want +got):\n%s\nall:\n  %s", d, strings.Join(full, "\n  "))
					}
				})
			}
		}
	}
	var missing []string
	for name := range predicates {
		if !covered[name] {
			missing = append(missing, name)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("no failing case in the corpus for %d predicates: %s", len(missing), strings.Join(missing, ", "))
	}
}

func problemKey(p Problem) string {
	if p.Severity == Warning {
		return fmt.Sprintf("#%d warning %s", p.Index, p.Predicate)
	}
	return fmt.Sprintf("#%d %s", p.Index, p.Predicate)
}

func wantSet(t *testing.T, b []byte) []string {
	t.Helper()
	out := []string{}
	for _, l := range strings.Split(string(b), "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "//") || l == "ok" {
			continue
		}
		out = append(out, strings.Join(strings.Fields(l), " "))
	}
	sort.Strings(out)
	return out
}

// holdsByConstruction are header predicates the decoding itself guarantees
// (docs/validate.md says why): they are named in the document, never failed.
var holdsByConstruction = map[string]bool{"has_cci_opcode": true}

// Every predicate is documented in docs/validate.md, and every predicate the
// document names is implemented.
func TestPredicatesDocumented(t *testing.T) {
	doc, err := os.ReadFile("../docs/validate.md")
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile("`((?:has|is|are|zero|reserved|follows)_[a-z0-9_]+)`")
	named := map[string]bool{}
	for _, m := range re.FindAllStringSubmatch(string(doc), -1) {
		named[m[1]] = true
	}
	for name := range predicates {
		if !named[name] {
			t.Errorf("predicate %s is not in docs/validate.md", name)
		}
	}
	for name := range named {
		if _, ok := predicates[name]; !ok && !strings.HasSuffix(name, "_") && !holdsByConstruction[name] {
			t.Errorf("docs/validate.md names %s, which check does not implement", name)
		}
	}
}

// The examples are legal on their generation (pseudo words warn).
func TestExamplesValid(t *testing.T) {
	names, _ := fs.Glob(ndma.Examples, "examples/*.s")
	for _, name := range names {
		src, _ := fs.ReadFile(ndma.Examples, name)
		obj, err := asm.Assemble(name, src, asm.Options{})
		if err != nil {
			t.Fatal(err)
		}
		ps, err := Stream(obj.Gen, obj.Code)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range ps {
			if p.Predicate != pPseudo {
				t.Errorf("%s: %s", name, p)
			}
		}
	}
}

// Every word that validates on a generation also round-trips, through bytes
// and through text.
func TestValidWordsRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 4))
	valid := 0
	for _, g := range isa.Gens() {
		for n := 0; n < 30000; n++ {
			w := make([]byte, isa.WordSize)
			for i := range w {
				if r.IntN(3) == 0 {
					w[i] = byte(r.IntN(256))
				}
			}
			ops := []byte{0xb8, 0xbb, 0xbd, 0xf1, 0xb4, 0xb6, 0xb9, 0xba, 0xd4}
			w[0], w[1] = ops[r.IntN(len(ops))], 0x10
			in, err := isa.Decode(g, w)
			if err != nil {
				t.Fatal(err)
			}
			if Errors(Validate(&in, g)) > 0 {
				continue
			}
			valid++
			back, _ := isa.Encode(in)
			text, err := asm.Disassemble(g, w)
			if err != nil {
				t.Fatal(err)
			}
			obj, err := asm.Assemble("v.s", text, asm.Options{Gen: g})
			if !bytes.Equal(back[:], w) || err != nil || !bytes.Equal(obj.Code, w) {
				t.Fatalf("%s: valid word does not round-trip: %x (%v)", g, w, err)
			}
		}
	}
	if valid == 0 {
		t.Fatal("no random word was valid: the property was never exercised")
	}
	t.Logf("%d valid random words round-tripped", valid)
}
