package asm

import (
	"strings"

	"ndma/isa"
)

// Disassemble prints the canonical text of a stream of words (docs/asm.md):
// a .gen line when gen is known, then one line per word — fields in table
// order, only those not zero, enums by name, addresses in sugar form — and
// the indented slots of a COMPACT_CONTROL_INST. Assemble(Disassemble(w)) == w.
func Disassemble(gen isa.Gen, code []byte) ([]byte, error) {
	out := make([]byte, 0, len(code)*6+64) // canonical text runs to ~5 bytes per word byte
	if gen != isa.GenAny {
		out = append(out, ".gen "...)
		out = append(out, strings.ToLower(gen.String())...)
		out = append(out, '\n')
	}
	d := isa.NewDecoder(gen, code)
	for d.Next() {
		in := d.Inst()
		out = AppendInst(out, in)
		if x, ok := in.Ext(); ok {
			out = AppendInst(out, &x)
		}
	}
	if err := d.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// AppendInst appends the canonical text of one word (its line, and for a
// COMPACT_CONTROL_INST the 15 slot lines), each ending in a newline: isa's
// Inst.AppendText.
func AppendInst(dst []byte, in *isa.Inst) []byte { return in.AppendText(dst) }
