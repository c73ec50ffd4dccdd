package cli

import (
	"fmt"

	"ndma/asm"
	"ndma/isa"
)

func runDisasm(e *env, args []string) error {
	cl := newCmdLine(e, "disasm", "FILE|-", "", "generation the words are for (name or version)")
	asJSON := cl.fs.Bool("json", false, "print a JSON array, one object per word (docs/json.md)")
	list := cl.fs.Bool("list", false, "print a listing: offset, opcode, mnemonic, struct, bytes")
	pos, gen, err := cl.parse(args, 1, "want one FILE (or - for stdin)")
	if err != nil {
		return err
	}
	if *asJSON && *list {
		return usagef("--json and --list: choose one form")
	}
	prog, err := loadProgram(e, pos[0], gen) // text is assembled first: one rule for every command (isText)
	if err != nil {
		return err
	}
	b := prog.Code
	if *asJSON {
		out, err := isa.AppendJSONStream(nil, gen, b)
		if err != nil {
			return fmt.Errorf("%s: %w", pos[0], err)
		}
		_, err = e.stdout.Write(out)
		return err
	}
	if *list {
		return listing(e, gen, pos[0], b)
	}
	text, err := asm.Disassemble(gen, b)
	if err != nil {
		return fmt.Errorf("%s: %w", pos[0], err)
	}
	if _, err = e.stdout.Write(text); err != nil {
		return err
	}
	if gen == isa.GenAny { // words whose layout is per generation print as .word: say how to decode them
		raw, name := 0, ""
		for d := isa.NewDecoder(gen, b); d.Next(); {
			if def := d.Inst().Def(); def.Decoded() && !def.DecodedOn(gen) {
				raw, name = raw+1, def.Mnemonic()
			}
		}
		if raw > 0 {
			fmt.Fprintf(e.stderr, "note: %d %s (%s, …) printed as .word: %s layout is per generation; give --gen (e.g. --gen trn2)\n", raw, plural(raw, "word"), name, map[bool]string{true: "its", false: "their"}[raw == 1])
		}
	}
	return nil
}

// listing prints one line per word: offset, opcode, mnemonic, struct and the bytes.
func listing(e *env, gen isa.Gen, name string, b []byte) error {
	d := isa.NewDecoder(gen, b)
	for d.Next() {
		in := d.Inst()
		line := func(off int, x *isa.Inst) {
			fmt.Fprintf(e.stdout, "%06x  %02x %-22s %-20s % x\n", off, uint8(x.Opcode()), x.Def().Mnemonic(),
				x.Layout().Name, b[off:off+isa.WordSize])
		}
		line(d.Offset(), in)
		if x, ok := in.Ext(); ok {
			line(d.Offset()+isa.WordSize, &x)
		}
	}
	if err := d.Err(); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}
