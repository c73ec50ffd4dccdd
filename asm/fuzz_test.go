package asm

import (
	"bytes"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"ndma/isa"
)

// FuzzAsm: arbitrary text never panics the assembler; text that assembles
// disassembles to text that assembles to the same bytes.
func FuzzAsm(f *testing.F) {
	for _, s := range []string{
		"dmamemcpy semaphore=10, src_num_elem=[128, 1], in_dtype=bf16, src_start_addr=hbm:0x40",
		"pseudo_dma_direct2d src_start_addr=var(3)+0x40, dst_start_addr=shape(tbl(1))\npseudo_extension indirect_mode=DST",
		".gen maverick\ncompact_control_inst\n    mov_imm_lo r1, 0\nl:\n    add r1, r1, r2\n    br_rel_imm_t r1, l",
		".equ X, 3\nlab: dma_transpose semaphore=X, dst_start_addr=sbuf:1:0x20,\n  tile_src_rows=16",
		".word " + string(bytes.Repeat([]byte("ab"), 64)),
		"dma_memcpy2 addr_mode.src=REG_PAIR, src_start_addr=regs(r1, r2, r3, 0x10)",
		"dma_indirect src_idx_start_addr=indirect(reg(r7)), flags.indirect_mode=SRC_DST",
		"dma_immediate descriptor_imm=[bytes(00112233445566778899aabbccddeeff)]",
		"tensor_store dtype=UINT32, src_datasrc=IMMEDIATE, num_elem=[4, 1], start_addr=sbuf:0:0x100, data=[0x44, 0x33, 0x22, 0x11]",
		"tensor_load dtype=INT64, num_elem=[2, 1], start_addr=reg(r4, r5), step_elem=[-1, 0], data=[8, 10]",
		"pseudo_tensor_load dtype=UINT8, num_elem=[3, 1], var_id=1, var_offset=0x40, data=[20, 21, 22]",
		"extended_inst extended_opcode=RDMA_DESC_GEN, dma_engine_mask=4, src_addr=0x1000, dst_addr=reg(r3)",
		string(make([]byte, 64)),         // a binary word read as text: its diagnostic escapes the NULs
		"dmamemcpy\x1b[2J\xff x=\u202e1", // control bytes, a byte that is not UTF-8, a bidi override
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		obj, err := Assemble("fuzz.s", []byte(src), Options{Gen: isa.Cayman})
		if err != nil {
			list, ok := err.(ErrorList)
			if !ok {
				t.Fatalf("error of type %T", err)
			}
			for _, e := range list { // one printable line each
				if d := e.Error(); !utf8.ValidString(d) || strings.ContainsFunc(d, func(r rune) bool {
					return r < 0x20 || 0x7f <= r && r < 0xa0 || unicode.Is(unicode.Cf, r)
				}) {
					t.Fatalf("diagnostic with a control byte: %q", d)
				}
			}
			return
		}
		text, err := Disassemble(obj.Gen, obj.Code)
		if err != nil {
			t.Fatalf("disassemble what we assembled: %v", err)
		}
		again, err := Assemble("again.s", text, Options{Gen: obj.Gen})
		if err != nil {
			t.Fatalf("reassemble:\n%s\n%v", text, err)
		}
		if !bytes.Equal(again.Code, obj.Code) {
			t.Fatalf("asm(disasm(asm(t))) != asm(t)\n%s", text)
		}
	})
}

// FuzzRoundTrip: any 64 bytes (any stream) disassemble to text that
// assembles back to exactly those bytes, for the generation given.
func FuzzRoundTrip(f *testing.F) {
	for _, op := range decodedOpcodes() {
		w := make([]byte, 64)
		w[0], w[1] = byte(op), 0x10
		f.Add(w, uint8(isa.Cayman))
	}
	// Opcodes outside the catalog (SUNDA's ACT 0x21 and 0x42, neff.md §4.7),
	// a catalog opcode without a table, an unknown pseudo byte, and a 0xf1
	// on SUNDA, where it does not exist: raw or not, on every generation.
	for _, g := range append([]isa.Gen{isa.GenAny}, isa.Gens()...) {
		for _, op := range []byte{0x21, 0x42, 0x23, 0xc5, 0x00, 0xff, 0xf1} {
			w := make([]byte, 64)
			w[0], w[1], w[4], w[5], w[6], w[7], w[8] = op, 0x10, 0x04, 10, 0x13, 22, 1
			for i := 12; i < 64; i++ {
				w[i] = byte(i*37 + int(op))
			}
			f.Add(w, uint8(g))
		}
	}
	f.Add(bytes.Repeat([]byte{0x21, 0x10, 0, 0, 0x04, 0x0a, 0x13, 0x16}, 16), uint8(isa.Sunda))
	f.Fuzz(func(t *testing.T, w []byte, gsel uint8) {
		if len(w) == 0 || len(w)%isa.WordSize != 0 {
			return
		}
		g := isa.Gen(gsel % uint8(isa.Maverick+1))
		text, err := Disassemble(g, w)
		if err != nil {
			t.Fatalf("disassemble: %v", err)
		}
		obj, err := Assemble("rt.s", text, Options{Gen: g})
		if err != nil {
			t.Fatalf("assemble:\n%s\n%v", text, err)
		}
		if !bytes.Equal(obj.Code, w) {
			t.Fatalf("asm(disasm(w)) != w\n got %x\nwant %x\n%s", obj.Code, w, text)
		}
	})
}
