package cli

import (
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
	code, fileGen, err := loadWords(e, pos[0], gen)
	if err != nil {
		return err
	}
	if gen == isa.GenAny {
		gen = fileGen
	}
	if *allGens {
		return validateMatrix(e, code)
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

// loadProgram reads binary words (one stream) or assembly text (its streams).
func loadProgram(e *env, path string, gen isa.Gen) (*asm.Object, error) {
	b, err := readInput(e, path)
	if err != nil {
		return nil, err
	}
	if len(b) == 0 {
		return nil, fmt.Errorf("%s: empty input: no words", path)
	}
	if !strings.HasSuffix(path, ".s") && (bytes.IndexByte(b, 0) >= 0 || !utf8.Valid(b)) {
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

// validateMatrix prints every word against every generation.
func validateMatrix(e *env, code []byte) error {
	tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprint(tw, "offset\tword")
	for _, g := range isa.Gens {
		fmt.Fprintf(tw, "\t%s", g.Version())
	}
	fmt.Fprintln(tw)
	per := map[isa.Gen][]check.Problem{}
	for _, g := range isa.Gens {
		ps, err := check.Stream(g, code)
		if err != nil {
			return err
		}
		per[g] = ps
	}
	for idx := 0; idx < len(code)/isa.WordSize; idx++ {
		fmt.Fprintf(tw, "0x%04x\t%s", idx*isa.WordSize, isa.Opcode(code[idx*isa.WordSize]))
		for _, g := range isa.Gens {
			nerr, nwarn := 0, 0
			for _, p := range per[g] {
				if p.Index != idx {
					continue
				}
				if p.Severity == check.Error {
					nerr++
				} else {
					nwarn++
				}
			}
			cell := "ok"
			switch {
			case nerr > 0:
				cell = fmt.Sprintf("%d err", nerr)
			case nwarn > 0:
				cell = fmt.Sprintf("ok+%dw", nwarn)
			}
			fmt.Fprintf(tw, "\t%s", cell)
		}
		fmt.Fprintln(tw)
	}
	return tw.Flush()
}
