package asm

import (
	"bytes"
	"strings"
	"testing"

	"ndma/isa"
)

// assembleOK assembles src on gen and fails the test on a diagnostic.
func assembleOK(t *testing.T, src string, gen isa.Gen) *Object {
	t.Helper()
	obj, err := Assemble("t.s", []byte(src), Options{Gen: gen})
	if err != nil {
		t.Fatalf("%v\nsource:\n%s", err, src)
	}
	return obj
}

// diag assembles src, wants it refused, and returns the diagnostics as text.
func diag(t *testing.T, src string, gen isa.Gen) string {
	t.Helper()
	obj, err := Assemble("t.s", []byte(src), Options{Gen: gen})
	if err == nil {
		t.Fatalf("assembled (%d bytes); want a diagnostic\nsource:\n%s", len(obj.Code), src)
	}
	return err.Error()
}

// L1: a statement continued over many lines is the statement on one line,
// its columns still point into the right source line, and statements
// continued one after another do not share text.
func TestContinuedStatements(t *testing.T) {
	one := "dmamemcpy src_elem_size=4, dst_elem_size=8, src_num_elem=[3, 1], dst_num_elem=[3, 1]\n"
	want := assembleOK(t, one+one, isa.Cayman).Code
	cont := "dmamemcpy src_elem_size=4,\n" + strings.Repeat("  ,\n", 50_000) + "  dst_elem_size=8, src_num_elem=[3, 1],\n\tdst_num_elem=[3, 1]\n"
	got := assembleOK(t, cont+cont, isa.Cayman)
	if !bytes.Equal(got.Code, want) {
		t.Fatalf("continued statements assemble differently from one-line ones")
	}
	if got.Lines[1] != 50_004 {
		t.Fatalf("second word from line %d, want 50004", got.Lines[1])
	}
	d := diag(t, "dmamemcpy src_elem_size=4,\n  ,\n    dst_elem_size=4, bogus=1\n", isa.Cayman)
	if !strings.HasPrefix(d, "t.s:3:22: unknown field bogus") {
		t.Fatalf("got %q, want t.s:3:22: unknown field bogus …", d)
	}
}

// L7: an .equ may name an .equ or a label defined later in the file; a cycle
// is refused as one.
func TestForwardEqu(t *testing.T) {
	fwd := assembleOK(t, ".gen cayman\n.equ SEM, BASE\n.equ BASE, NEXT\n.equ NEXT, end\n.equ INC, 1\ndmamemcpy semaphore=SEM, sem_increment=INC\nend:\n", isa.GenAny)
	back := assembleOK(t, ".gen cayman\ndmamemcpy semaphore=64, sem_increment=1\n", isa.GenAny)
	if !bytes.Equal(fwd.Code, back.Code) {
		t.Fatalf("forward .equ chain assembles differently")
	}
	// BASE+0 is not an expression: it is refused by name, not as a forward reference
	if d := diag(t, ".equ A, B+0\n.equ B, 1\n", isa.Cayman); !strings.Contains(d, `"B+0" is not a number, label or .equ name`) {
		t.Fatalf("got %q", d)
	}
	fwd = assembleOK(t, ".equ A, B\n.equ B, 3\ncompact_control_inst\n    mov_imm_lo_s r1, A\n", isa.Maverick)
	back = assembleOK(t, "compact_control_inst\n    mov_imm_lo_s r1, 3\n", isa.Maverick)
	if !bytes.Equal(fwd.Code, back.Code) {
		t.Fatalf("forward .equ in a CCI slot assembles differently")
	}
	d := diag(t, ".equ A, B\n.equ B, A\ndmamemcpy semaphore=A\n", isa.Cayman)
	if !strings.Contains(d, "t.s:2:9: .equ A (line 1) depends on itself") {
		t.Fatalf("cycle: got %q", d)
	}
	if d := diag(t, ".equ A, 1\n.equ A, 2\n", isa.Cayman); !strings.Contains(d, "t.s:2:6: .equ A defined twice (first at line 1)") {
		t.Fatalf("duplicate: got %q", d)
	}
}

// L11: a file has one generation. A second .gen naming another one, or a
// .gen after words assembled under another, is refused; the same .gen again
// (one per stream, as `neff disasm` prints them) and a .gen before the first
// word (over the default) are not.
func TestOneGenerationPerFile(t *testing.T) {
	w := "dmamemcpy src_start_addr=sbuf:1:0x0, dst_start_addr=hbm:0x0, src_elem_size=4, dst_elem_size=4\n"
	d := diag(t, ".gen cayman\n"+w+".gen maverick\n"+w, isa.GenAny)
	if !strings.Contains(d, "t.s:3:6: .gen MAVERICK: the file is CAYMAN since line 1 (one generation per file)") {
		t.Fatalf("got %q", d)
	}
	d = diag(t, w+".gen maverick\n"+w, isa.Cayman)
	if !strings.Contains(d, "t.s:2:6: .gen MAVERICK after words assembled for CAYMAN: put .gen before the first word") {
		t.Fatalf("got %q", d)
	}
	if d := diag(t, w+".gen maverick\n", isa.GenAny); !strings.Contains(d, "after words assembled without a generation") {
		t.Fatalf("got %q", d)
	}
	if d := diag(t, ".gen cayman\n.gen v5\n", isa.GenAny); !strings.Contains(d, ".gen MAVERICK: the file is CAYMAN since line 1") {
		t.Fatalf("got %q", d)
	}
	obj := assembleOK(t, ".gen maverick\n"+w+".engine act\n.gen v5\n"+w, isa.Cayman)
	if obj.Gen != isa.Maverick || len(obj.Code) != 2*isa.WordSize {
		t.Fatalf("gen %v, %d bytes", obj.Gen, len(obj.Code))
	}
	if obj := assembleOK(t, w+".gen cayman\n"+w, isa.Cayman); obj.Gen != isa.Cayman {
		t.Fatalf("gen %v", obj.Gen)
	}
}

// L4 (the assembler's part): a diagnostic quoting binary input escapes its
// control bytes, bytes that are not UTF-8 and invisible format characters;
// other non-ASCII text is kept.
func TestDiagnosticsEscapeControlBytes(t *testing.T) {
	d := diag(t, string(make([]byte, 64)), isa.GenAny)
	if want := "t.s:1:1: unknown mnemonic " + strings.Repeat(`\x00`, 64); d != want {
		t.Fatalf("got %q\nwant %q", d, want)
	}
	d = diag(t, "dmamemcpy\x01 x=1\n\xff\xfe\x1b[2J bad\nfoo\u202e\u0085 bar\n", isa.GenAny)
	want := "t.s:1:1: unknown mnemonic dmamemcpy\\x01 (did you mean dmamemcpy?)\n" +
		"t.s:2:1: unknown mnemonic \\xff\\xfe\\x1b[2J\n" +
		"t.s:3:1: unknown mnemonic foo\\u202e\\u0085"
	if d != want {
		t.Fatalf("got %q\nwant %q", d, want)
	}
	e := &Error{File: "a\tb.s", Line: 1, Col: 2, Msg: "é — ok\x7f"}
	if got := e.Error(); got != `a\x09b.s:1:2: é — ok\x7f` {
		t.Fatalf("got %q", got)
	}
}

// M9: CCIBlock reads a bare block: slots and labels, indented or not, at
// their own lines and columns; it is the word with its mnemonic line.
func TestCCIBlockOption(t *testing.T) {
	body := "# counts to 3\n\nmov_imm_lo r2, 3\nloop:\n  sub r2, r2, r4\n\tbr_rel_imm_t r2, loop\n"
	blk, err := Assemble("b.cci", []byte(body), Options{Gen: isa.Maverick, CCIBlock: true})
	if err != nil {
		t.Fatal(err)
	}
	word := assembleOK(t, "compact_control_inst\n    mov_imm_lo r2, 3\nloop:\n    sub r2, r2, r4\n    br_rel_imm_t r2, loop\n", isa.Maverick)
	if !bytes.Equal(blk.Code, word.Code) {
		t.Fatalf("block and word differ")
	}
	_, err = Assemble("b.cci", []byte("\n  # x\n   bogus r1\n"), Options{Gen: isa.Maverick, CCIBlock: true})
	if err == nil || err.Error() != "b.cci:3:4: unknown compact instruction bogus" {
		t.Fatalf("got %v, want b.cci:3:4: unknown compact instruction bogus", err)
	}
}
