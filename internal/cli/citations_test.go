package cli

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"ndma/internal/samples"
	"ndma/isa"
)

// A citation a user can follow names a file of docs/ and, optionally,
// sections of it: "docs/neff.md §4.8", "docs/field-tables.md §3.8, §5.3",
// "docs/compute.md §9". A source document's section is "000 §3d" or
// "source document 003 §7.2" beside "docs/sources.md", whose headings
// carry those numbers.
var (
	// docCite is a docs/ path and the sections after it (", ", " and ",
	// "–" between them).
	docCite = regexp.MustCompile(`docs/([A-Za-z0-9_-]+\.md)((?:(?:, | and | |–|-)§[0-9]+[a-z]?(?:\.[0-9]+)*)*)`)
	// srcCite is a source document's sections.
	srcCite = regexp.MustCompile(`\b(000|003)((?:(?:, | and | |–|-)§[0-9]+[a-z]?(?:\.[0-9]+)*)+)`)
	section = regexp.MustCompile(`§([0-9]+[a-z]?(?:\.[0-9]+)*)`)
	// unfollowable names a document without its docs/ path: the spec files
	// a user does not have, or a bare section.
	unfollowable = regexp.MustCompile(`(?:^|[^/A-Za-z-])(neff\.md|field-tables|hw-timing|compute\.md|sources\.md)|§`)
)

// docHeadings is each docs/ file's heading numbers: "4.8" for
// "### 4.8 Load-time…", "9" for "## 9. S4D4_TR…", "000 §3d" for
// "### 000 §3d. 0xbd…" (docs/sources.md).
func docHeadings(t *testing.T, root string) map[string]map[string]bool {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no docs/*.md under %s: %v", root, err)
	}
	num := regexp.MustCompile(`^#+ ((?:00[03] §)?[0-9]+[a-z]?(?:\.[0-9]+)*)[. ]`)
	out := map[string]map[string]bool{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		h := map[string]bool{}
		for _, line := range strings.Split(string(b), "\n") {
			if m := num.FindStringSubmatch(line); m != nil {
				h[m[1]] = true
			}
		}
		out[filepath.Base(f)] = h
	}
	return out
}

// citationProblems is what is wrong with the citations of text s: a docs/
// file or section that does not exist, a source-document section without
// docs/sources.md or missing there, or a document named without its docs/
// path (a bare "§11.2", "neff.md §4.8", "hw-timing.md").
func citationProblems(s string, heads map[string]map[string]bool) []string {
	var probs []string
	rest := s
	for _, m := range docCite.FindAllStringSubmatchIndex(s, -1) {
		file, secs := s[m[2]:m[3]], s[m[4]:m[5]]
		h, ok := heads[file]
		if !ok {
			probs = append(probs, fmt.Sprintf("docs/%s does not exist", file))
		}
		for _, sm := range section.FindAllStringSubmatch(secs, -1) {
			if ok && !h[sm[1]] {
				probs = append(probs, fmt.Sprintf("docs/%s has no §%s", file, sm[1]))
			}
		}
		rest = rest[:m[0]] + strings.Repeat(" ", m[1]-m[0]) + rest[m[1]:]
	}
	for _, m := range srcCite.FindAllStringSubmatchIndex(s, -1) {
		doc, secs := s[m[2]:m[3]], s[m[4]:m[5]]
		if !strings.Contains(s, "docs/sources.md") {
			probs = append(probs, fmt.Sprintf("%s%s without docs/sources.md", doc, secs))
		}
		for _, sm := range section.FindAllStringSubmatch(secs, -1) {
			if !heads["sources.md"][doc+" §"+sm[1]] {
				probs = append(probs, fmt.Sprintf("docs/sources.md has no %s §%s", doc, sm[1]))
			}
		}
		rest = rest[:m[0]] + strings.Repeat(" ", m[1]-m[0]) + rest[m[1]:]
	}
	for _, m := range unfollowable.FindAllStringSubmatch(rest, -1) {
		probs = append(probs, fmt.Sprintf("%q is not a docs/ path", strings.TrimSpace(m[0])))
	}
	return probs
}

// TestCitationChecker holds the checker to hand-made cases, so that the
// tests below cannot pass by matching nothing.
func TestCitationChecker(t *testing.T) {
	heads := map[string]map[string]bool{
		"neff.md":    {"4": true, "4.8": true},
		"sources.md": {"000 §3d": true, "003 §7.2": true},
	}
	for _, c := range []struct {
		s    string
		bad  int
		what string
	}{
		{"over the limit (docs/neff.md §4.8)", 0, "a docs/ section"},
		{"see docs/neff.md", 0, "a docs/ file"},
		{"docs/neff.md §4, §4.8 and §4.9", 1, "the last section missing"},
		{"docs/neff.md §4.8–§4.9", 1, "a range's end missing"},
		{"docs/nothere.md", 1, "a missing file"},
		{"over the limit (neff.md §4.8)", 2, "no docs/ path: the file and the bare section"},
		{"the tile rule (000 §3d, docs/sources.md)", 0, "a source section beside docs/sources.md"},
		{"source document 003 §7.2", 1, "a source section alone"},
		{"source document 003 §7.3 (docs/sources.md)", 1, "a source section missing"},
		{"measured (hw-timing.md)", 1, "the timing spec by name"},
		{"field-tables §11.2", 2, "the field tables by name"},
		{"bytes 0-6 (§11.2)", 1, "a bare section"},
		{"docs/field-tables.md", 1, "a file missing from the headings"},
	} {
		if got := citationProblems(c.s, heads); len(got) != c.bad {
			t.Errorf("%s: %q: %d problems %q, want %d", c.what, c.s, len(got), got, c.bad)
		}
	}
}

// TestSourceCitations: every string literal of the Go sources (outside
// tests) that cites a document — tool messages, notes printed by lint,
// budget, run, describe's ISA table notes, dge and sim errors, the demo —
// cites a docs/ file and section that exist.
func TestSourceCitations(t *testing.T) {
	root := repoRoot(t)
	heads := docHeadings(t, root)
	cue := regexp.MustCompile(`§|\.md\b|field-tables|hw-timing|source document`)
	n := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "python") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, p, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(node ast.Node) bool {
			lit, ok := node.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			if err != nil || !cue.MatchString(s) {
				return true
			}
			n++
			for _, pr := range citationProblems(s, heads) {
				rel, _ := filepath.Rel(root, fset.Position(lit.Pos()).String())
				t.Errorf("%s: %s in %q", rel, pr, s)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 50 { // the sources cite well over a hundred times: a walk that found few went wrong
		t.Fatalf("only %d citing string literals found", n)
	}
}

// TestOutputCitations runs the commands that print notes — describe for
// every opcode on every generation, demo, neff lint, check
// and run on the sample NEFFs (lint prints the budget) — and checks every citation they print.
func TestOutputCitations(t *testing.T) {
	if testing.Short() {
		t.Skip("runs describe on every opcode and lint/run on the sample NEFFs")
	}
	heads := docHeadings(t, repoRoot(t))
	check := func(args []string, out string) {
		t.Helper()
		for _, line := range strings.Split(out, "\n") {
			for _, pr := range citationProblems(line, heads) {
				t.Errorf("ndma %s: %s in %q", strings.Join(args, " "), pr, line)
			}
		}
	}
	var runs [][]string
	for _, gen := range []string{"trn1", "trn2", "trn3", "maverick"} {
		runs = append(runs, []string{"demo", "--gen", gen})
		for op := 0; op < 256; op++ {
			if isa.Lookup(isa.Opcode(op)) != nil {
				runs = append(runs, []string{"describe", "--gen", gen, fmt.Sprintf("%#02x", op)})
			}
		}
	}
	for _, name := range []string{"matmul_small.neff", "matmul_large.neff"} {
		p := samples.Path(t, name)
		runs = append(runs, []string{"neff", "lint", p}, []string{"neff", "check", p},
			[]string{"neff", "info", p}, []string{"neff", "run", p})
	}
	described := 0
	for _, args := range runs {
		_, out, errs := runCLI(args...)
		if args[0] == "describe" && len(out) > 0 {
			described++
		}
		check(args, out+errs)
	}
	if described < 50 {
		t.Fatalf("describe printed %d opcodes: the list was not read", described)
	}
}

// docsCite is a citation inside the project's own documents, where the
// docs/ prefix may be left out: "field-tables §11.2", "neff.md §4.8",
// "000 §3d".
var docsCite = regexp.MustCompile(`(?:docs/)?(field-tables|neff|compute|hw-timing|sources)(?:\.md)?((?:(?:, | and | |–|-)§[0-9]+[a-z]?(?:\.[0-9]+)*)+)|\b(000|003)((?:(?:, | and | |–|-)§[0-9]+[a-z]?(?:\.[0-9]+)*)+)`)

// TestDocCitations: the README, RATIONALE.md, docs/ and the examples' comments cite sections of
// docs/ (and of the source documents, through docs/sources.md) that exist.
func TestDocCitations(t *testing.T) {
	root := repoRoot(t)
	heads := docHeadings(t, root)
	files, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	examples, _ := filepath.Glob(filepath.Join(root, "examples", "*.s"))
	files = append(append(files, examples...), filepath.Join(root, "README.md"), filepath.Join(root, "RATIONALE.md"))
	n := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			for _, m := range docsCite.FindAllStringSubmatch(line, -1) {
				file, secs, prefix := m[1]+".md", m[2], ""
				if m[3] != "" {
					file, secs, prefix = "sources.md", m[4], m[3]+" §"
				}
				for _, sm := range section.FindAllStringSubmatch(secs, -1) {
					n++
					key := sm[1]
					if prefix != "" {
						key = prefix + sm[1]
					}
					if !heads[file][key] {
						t.Errorf("%s:%d: docs/%s has no %s: %s", filepath.Base(f), i+1, file, key, line)
					}
				}
			}
		}
	}
	if n < 100 {
		t.Fatalf("only %d section citations found in the documents", n)
	}
}
