package asm

import (
	"bytes"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"ndma/isa"
)

func decodedOpcodes() []isa.Opcode {
	var ops []isa.Opcode
	for _, d := range isa.Catalog() {
		if d.Decoded() {
			ops = append(ops, d.Opcode)
		}
	}
	return append(ops, 0x02, 0xa0, 0x77) // and words without a table
}

// randomWord is 64 random bytes with opcode op; often with sparse bytes and
// marker-like patterns so that every union arm and enum name turns up.
func randomWord(r *rand.Rand, op isa.Opcode) []byte {
	w := make([]byte, isa.WordSize)
	for i := range w {
		switch r.IntN(4) {
		case 0:
			w[i] = 0
		case 1:
			w[i] = byte(r.IntN(8))
		case 2:
			w[i] = byte(r.Uint32()) & 0xf0
		default:
			w[i] = byte(r.Uint32())
		}
	}
	w[0] = byte(op)
	if r.IntN(2) == 0 {
		w[1] = 0x10
	}
	return w
}

// asm(disasm(w)) == w for random words of every struct and generation, and
// the text is a fixed point: disasm(asm(t)) == t.
func TestRoundTripRandomWords(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 29))
	for _, g := range append([]isa.Gen{isa.GenAny}, isa.Gens()...) {
		for _, op := range decodedOpcodes() {
			for n := 0; n < 300; n++ {
				w := randomWord(r, op)
				if op == isa.OpPseudoDMADirect2D && n%3 == 0 {
					w = append(w, randomWord(r, isa.OpPseudoExtension)...)
				}
				text, err := Disassemble(g, w)
				if err != nil {
					t.Fatal(err)
				}
				obj, err := Assemble("rt.s", text, Options{Gen: g})
				if err != nil {
					t.Fatalf("%s %s: %v\n%s", g, isa.Opcode(op), err, text)
				}
				if !bytes.Equal(obj.Code, w) {
					t.Fatalf("%s: asm(disasm(w)) != w\n got %x\nwant %x\n%s", g, obj.Code, w, text)
				}
				again, _ := Disassemble(g, obj.Code)
				if !bytes.Equal(again, text) {
					t.Fatalf("%s: disasm not a fixed point:\n%s\n%s", g, text, again)
				}
			}
		}
	}
}

// asm(disasm(w)) == w for every opcode byte — decoded, known raw, and
// outside ndma's catalog (SUNDA's 0x21 and 0x42, neff.md §4.7) — on every
// generation, with random payloads and headers, and the text is a fixed point.
func TestRoundTripEveryOpcode(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 42))
	for _, g := range append([]isa.Gen{isa.GenAny}, isa.Gens()...) {
		for op := 0; op < 256; op++ {
			var code []byte
			for n := 0; n < 8; n++ {
				code = append(code, randomWord(r, isa.Opcode(op))...)
			}
			text, err := Disassemble(g, code)
			if err != nil {
				t.Fatal(err)
			}
			obj, err := Assemble("op.s", text, Options{Gen: g})
			if err != nil {
				t.Fatalf("%s %#02x: %v\n%s", g, op, err, text)
			}
			if !bytes.Equal(obj.Code, code) {
				t.Fatalf("%s %#02x: asm(disasm(w)) != w\n got %x\nwant %x\n%s", g, op, obj.Code, code, text)
			}
			if again, _ := Disassemble(g, obj.Code); !bytes.Equal(again, text) {
				t.Fatalf("%s %#02x: disasm not a fixed point:\n%s\n%s", g, op, text, again)
			}
			if !isa.Lookup(isa.Opcode(op)).Decoded() && !bytes.Contains(text, []byte(".word ")) {
				t.Fatalf("%s %#02x: a word without a table is not printed raw:\n%s", g, op, text)
			}
		}
	}
}

// disasm(asm(t)) is the canonical form of t: hand-written, non-canonical
// spellings (short enum names, element keys, any order, continuation lines)
// come back canonical, and the bytes agree with the canonical text's.
func TestCanonicalForm(t *testing.T) {
	cases := []struct{ in, want string }{
		{"DMAMEMCPY out_dtype=bf16 in_dtype=BF16 src_num_elem[1]=1 src_num_elem[0]=0x80 sem_increment=1",
			"dmamemcpy sem_increment=1, src_num_elem=[128, 1], in_dtype=BFLOAT16, out_dtype=BFLOAT16"},
		{"dma_memcpy events.wait_mode=wait_gt_imm, wait_idx=3,\n    update_mode=inc_complete src_step_elem=[-4]",
			"dmamemcpy wait_mode=WAIT_FOR_SEM_GT_IMM, wait_idx=3, update_mode=SEM_INC_COMPLETE, src_step_elem=[-4, 0]"},
		{"dma_direct2d src_start_addr=0x100000040 dst_start_addr=0x40040 dst_bound_reg.bc_enabled=1",
			"dmamemcpy src_start_addr=hbm:0x40, dst_bound_reg.bc_enabled=1, dst_start_addr=sbuf:1:0x40"},
		{".equ SEM, 7\nDMA_TRANSPOSE semaphore=SEM tile_src_rows=16 dma_configs.priority_class=2",
			"dma_transpose tile_src_rows=16, semaphore=7, priority_class=2"},
		{"pseudo_dma_direct2d src_start_addr=var(3)+64, dst_start_addr=tbl(0)+0",
			"pseudo_dma_direct2d src_start_addr=var(3)+0x40, dst_start_addr=tbl(0)"},
		{"dma_indirect src_idx_start_addr=indirect(reg(r7)), dst_idx_start_addr=psum:2:0x10",
			"dma_indirect src_idx_start_addr=indirect(reg(r7)), dst_idx_start_addr=psum:2:0x10"},
		{"compact_control_inst\n  top: add r1, r2, r3\n  br_rel_imm r0, top",
			"compact_control_inst\n    add r1, r2, r3\n    br_rel_imm r0, -1\n" + strings.Repeat("    nop\n", 13)},
	}
	for _, c := range cases {
		obj, err := Assemble("c.s", []byte(c.in), Options{Gen: isa.Cayman})
		if err != nil {
			t.Errorf("%q: %v", c.in, err)
			continue
		}
		got, err := Disassemble(isa.Cayman, obj.Code)
		if err != nil {
			t.Fatal(err)
		}
		want := ".gen cayman\n" + strings.TrimSuffix(c.want, "\n") + "\n"
		if string(got) != want {
			t.Errorf("%q:\n got %q\nwant %q", c.in, got, want)
		}
	}
}

// .engine and .core split a program into streams at the word boundaries.
func TestStreams(t *testing.T) {
	src := `.gen cayman
dmamemcpy semaphore=1
.engine pool
dmamemcpy semaphore=2
dmamemcpy semaphore=3
.engine ACT
.core 2
dmamemcpy semaphore=4
`
	obj, err := Assemble("s.s", []byte(src), Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []Stream{{Engine: "", Core: 0, Start: 0}, {Engine: "POOL", Core: 0, Start: 64}, {Engine: "ACT", Core: 2, Start: 192}}
	if !reflect.DeepEqual(obj.Streams, want) {
		t.Fatalf("streams %+v, want %+v", obj.Streams, want)
	}
	if n := len(obj.StreamCode(1)); n != 128 {
		t.Fatalf("POOL stream: %d bytes, want 128", n)
	}
	one, _ := Assemble("o.s", []byte(".gen cayman\ndmamemcpy semaphore=1\n"), Options{})
	if !reflect.DeepEqual(one.Streams, []Stream{{}}) {
		t.Fatalf("a file without directives: %+v", one.Streams)
	}
}
