package asm

import (
	"bytes"
	"strings"
	"testing"

	"ndma/isa"
)

// Issue 16 item 5: 000 §3b spells DMA_ADDR_MODE 0x3/0x5/0x7 "…32I=0x3 /
// …32I=0x5 / …64I=0x7"; the field-tables spellings REG_IMM_OFFSET32_I,
// REG_REG_OFFSET32_I, REG_REG_OFFSET64_I stay accepted and assemble to the
// same bytes, and disassembly prints the 000 spelling.
func TestAddrModeAliases(t *testing.T) {
	for _, c := range []struct{ doc, alias string }{
		{"REG_IMM_OFFSET32I", "REG_IMM_OFFSET32_I"},
		{"REG_REG_OFFSET32I", "REG_REG_OFFSET32_I"},
		{"REG_REG_OFFSET64I", "reg_reg_offset64_i"},
	} {
		src := func(mode string) []byte {
			return []byte(".gen v5\ndma_memcpy2 addr_mode.src=" + mode + ", addr_mode.dst=" + mode +
				", src_start_addr=regs(r1, r2, r3, 0x10), dst_start_addr=regs(r4, r5, r6, 0x20)\n")
		}
		a, err := Assemble("doc.s", src(c.doc), Options{Gen: isa.Maverick})
		if err != nil {
			t.Fatalf("%s: %v", c.doc, err)
		}
		b, err := Assemble("alias.s", src(c.alias), Options{Gen: isa.Maverick})
		if err != nil {
			t.Fatalf("%s: %v", c.alias, err)
		}
		if !bytes.Equal(a.Code, b.Code) {
			t.Errorf("%s and %s assemble differently", c.doc, c.alias)
		}
		text, err := Disassemble(isa.Maverick, a.Code)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(text), "addr_mode.src="+c.doc+",") || strings.Contains(string(text), "_I,") {
			t.Errorf("disassembly does not print %s:\n%s", c.doc, text)
		}
	}
}
