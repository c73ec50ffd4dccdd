package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"ndma/asm"
	"ndma/check"
	"ndma/isa"
)

func runValidate(e *env, args []string) error {
	cl := newCmdLine(e, "validate", "FILE|-", "", "generation to validate for (a text file's .gen is the default)")
	asJSON := cl.fs.Bool("json", false, "print the problems as JSON")
	allGens := cl.fs.Bool("all-gens", false, "print a matrix: every word × every generation")
	strict := cl.fs.Bool("strict", false, "count warnings (reserved bits, pseudo words) as errors")
	pos, gen, err := cl.parse(args, 1, "want one FILE (binary words or assembly text; - for stdin)")
	if err != nil {
		return err
	}
	if *allGens && gen != isa.GenAny {
		return usagef("--all-gens checks every generation: give it or --gen %s, not both", strings.ToLower(gen.String()))
	}
	code, fileGen, err := loadWords(e, pos[0], gen)
	if err != nil {
		return err
	}
	if gen == isa.GenAny {
		gen = fileGen
	}
	if *allGens {
		return validateMatrix(e, pos[0], code, *asJSON, *strict)
	}
	if gen == isa.GenAny {
		return usagef("no generation: give --gen G (or a .gen line in the text), or --all-gens")
	}
	ps, err := check.Stream(gen, code)
	if err != nil {
		return fmt.Errorf("%s: %w", pos[0], err)
	}
	errs := check.Errors(ps)
	if *strict {
		errs = len(ps)
	}
	words := len(code) / isa.WordSize
	if *asJSON {
		if ps == nil {
			ps = []check.Problem{}
		}
		b, err := json.MarshalIndent(map[string]any{"gen": gen.String(), "words": words, "errors": check.Errors(ps),
			"warnings": len(ps) - check.Errors(ps), "problems": ps}, "", "  ")
		if err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "%s\n", b)
	} else {
		for _, p := range ps {
			fmt.Fprintln(e.stdout, p)
		}
		fmt.Fprintf(e.stdout, "%d words on %s: %d errors, %d warnings\n", words, gen, check.Errors(ps), len(ps)-check.Errors(ps))
	}
	if errs > 0 {
		return failed{fmt.Sprintf("%d problems on %s", errs, gen)}
	}
	return nil
}

// failed is a command that ran and found the input bad: its output stands,
// exit status 1, and this one line on stderr.
type failed struct{ msg string }

func (f failed) Error() string { return f.msg }

// loadWords reads binary words, or assembles text (sniffed: a .s name, or
// UTF-8 without NUL bytes) with gen as the default generation.
func loadWords(e *env, path string, gen isa.Gen) ([]byte, isa.Gen, error) {
	obj, err := loadProgram(e, path, gen)
	if err != nil {
		return nil, isa.GenAny, err
	}
	return obj.Code, obj.Gen, nil
}

// isText is the one rule every command reads a file argument by: a .s
// name is assembly text, a .bin name binary words; any other name (stdin
// too) is text when it holds no NUL byte and is valid UTF-8.
func isText(path string, b []byte) bool {
	switch {
	case strings.HasSuffix(path, ".s"):
		return true
	case strings.HasSuffix(path, ".bin"):
		return false
	}
	return bytes.IndexByte(b, 0) < 0 && utf8.Valid(b)
}

// loadProgram reads binary words (one stream) or assembly text (its streams).
func loadProgram(e *env, path string, gen isa.Gen) (*asm.Object, error) {
	b, err := readInput(e, path)
	if err != nil {
		return nil, err
	}
	if len(b) == 0 {
		return nil, fmt.Errorf("%s: empty input: no words", path)
	}
	if !isText(path, b) {
		return &asm.Object{Gen: isa.GenAny, Code: b, Streams: []asm.Stream{{}}}, nil
	}
	obj, err := asm.Assemble(path, b, asm.Options{Gen: gen})
	if err != nil {
		if list, ok := err.(asm.ErrorList); ok {
			return nil, diagnostics{list}
		}
		return nil, err
	}
	return obj, nil
}

// matrixCell is one word on one generation.
type matrixCell struct {
	Errors   int  `json:"errors"`
	Warnings int  `json:"warnings"`
	OK       bool `json:"ok"` // no errors (with --strict: no warnings either)
}

// text is the cell as the table prints it; with --strict a warning is an error.
func (c matrixCell) text(strict bool) string {
	n := c.Errors
	if strict {
		n += c.Warnings
	}
	switch {
	case n > 0:
		return fmt.Sprintf("%d err", n)
	case c.Warnings > 0:
		return fmt.Sprintf("ok+%dw", c.Warnings)
	}
	return "ok"
}

// validateMatrix prints every word against every generation: a table, or
// with --json the matrix and each generation's problems. Each generation's
// problems are checked once and counted into their word's cell (linear in
// the words). Like validate with --gen, it exits 1 when a cell shows an
// error (issue 34: a matrix of errors exiting 0 read as a pass), naming the
// generations the file is valid on; --strict makes warnings errors in the
// cells, the totals and the status.
func validateMatrix(e *env, path string, code []byte, asJSON, strict bool) error {
	words := len(code) / isa.WordSize
	cells := make([][]matrixCell, len(isa.Gens())) // [generation][word]
	type genSummary struct {
		Gen      string          `json:"gen"`
		Version  string          `json:"version"`
		Errors   int             `json:"errors"`
		Warnings int             `json:"warnings"`
		OK       bool            `json:"ok"` // every word's cell is
		Problems []check.Problem `json:"problems"`
	}
	sums := make([]genSummary, len(isa.Gens()))
	verdict := func() error {
		var ok, bad []string
		for _, s := range sums {
			if s.OK {
				ok = append(ok, s.Version)
			} else {
				bad = append(bad, s.Version)
			}
		}
		if len(bad) == 0 {
			return nil
		}
		if len(ok) == 0 {
			ok = []string{"none"}
		}
		return failed{fmt.Sprintf("errors on %s; valid on %s", strings.Join(bad, " "), strings.Join(ok, " "))}
	}
	for gi, g := range isa.Gens() {
		ps, err := check.Stream(g, code)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		cs := make([]matrixCell, words)
		for _, p := range ps {
			if p.Index < 0 || p.Index >= words {
				continue
			}
			if p.Severity == check.Error {
				cs[p.Index].Errors++
			} else {
				cs[p.Index].Warnings++
			}
		}
		sum := genSummary{Gen: g.String(), Version: g.Version(), Errors: check.Errors(ps), Problems: ps, OK: true}
		sum.Warnings = len(ps) - sum.Errors
		for k := range cs {
			cs[k].OK = cs[k].Errors == 0 && (!strict || cs[k].Warnings == 0)
			sum.OK = sum.OK && cs[k].OK
		}
		if sum.Problems == nil {
			sum.Problems = []check.Problem{}
		}
		cells[gi], sums[gi] = cs, sum
	}
	if asJSON {
		type row struct {
			Index    int                   `json:"index"`
			Offset   int                   `json:"offset"`
			Mnemonic string                `json:"mnemonic"`
			Cells    map[string]matrixCell `json:"cells"` // by generation name
		}
		rows := make([]row, words)
		for idx := range rows {
			r := row{Index: idx, Offset: idx * isa.WordSize, Mnemonic: isa.Opcode(code[idx*isa.WordSize]).String(),
				Cells: make(map[string]matrixCell, len(isa.Gens()))}
			for gi, g := range isa.Gens() {
				r.Cells[g.String()] = cells[gi][idx]
			}
			rows[idx] = r
		}
		w := bufio.NewWriter(e.stdout)
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		if err := enc.Encode(map[string]any{"words": words, "strict": strict, "gens": sums, "matrix": rows}); err != nil {
			return err
		}
		if err := w.Flush(); err != nil {
			return err
		}
		return verdict()
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprint(tw, "offset\tword")
	for _, g := range isa.Gens() {
		fmt.Fprintf(tw, "\t%s", g.Version())
	}
	fmt.Fprintln(tw)
	for idx := 0; idx < words; idx++ {
		fmt.Fprintf(tw, "0x%04x\t%s", idx*isa.WordSize, isa.Opcode(code[idx*isa.WordSize]))
		for gi := range isa.Gens() {
			fmt.Fprintf(tw, "\t%s", cells[gi][idx].text(strict))
		}
		fmt.Fprintln(tw)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return verdict()
}
