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
