package asm

import (
	"strings"
	"testing"

	"ndma/internal/samples"
	"ndma/isa"
)

// The error corpus (testdata/errors.txtar): each NAME.s has one bad line;
// NAME.err lists the expected diagnostics, file:line:col: message, in order.
// A line of NAME.err matches a diagnostic that starts with it (so a long
// "expected one of …" list may be cut short).
func TestErrorCorpus(t *testing.T) {
	ar := samples.Archives(t, "testdata/errors.txtar")[0]
	parts := ar.Parts
	n := 0
	for _, member := range ar.Names {
		name, ok := strings.CutSuffix(member, ".s")
		if !ok {
			continue
		}
		n++
		t.Run(name, func(t *testing.T) {
			want := strings.Split(strings.TrimSpace(string(parts[name+".err"])), "\n")
			obj, err := Assemble(member, parts[member], Options{Gen: isa.GenAny})
			if err == nil {
				t.Fatalf("assembled without error (%d bytes); want:\n%s", len(obj.Code), strings.Join(want, "\n"))
			}
			list, ok := err.(ErrorList)
			if !ok {
				t.Fatalf("error %T, want ErrorList", err)
			}
			var got []string
			for _, e := range list {
				got = append(got, e.Error())
			}
			if len(got) != len(want) {
				t.Fatalf("%d diagnostics, want %d:\n got: %s\nwant: %s", len(got), len(want), strings.Join(got, "\n      "), strings.Join(want, "\n      "))
			}
			for i := range want {
				if !strings.HasPrefix(got[i], strings.TrimSpace(want[i])) {
					t.Errorf("diagnostic %d:\n got: %s\nwant: %s", i, got[i], want[i])
				}
			}
		})
	}
	if n < 20 {
		t.Fatalf("only %d cases in the error corpus", n)
	}
}

// Errors are collected, capped, and an Object is never half-built.
func TestErrorCap(t *testing.T) {
	src := strings.Repeat("dmamemcpy src_num_elem=[70000, 0]\n", MaxErrors+20)
	obj, err := Assemble("many.s", []byte(src), Options{})
	list, _ := err.(ErrorList)
	if obj != nil || len(list) != MaxErrors {
		t.Fatalf("obj %v, %d errors; want nil and %d", obj, len(list), MaxErrors)
	}
	if list[1].Line != 2 || list[1].Col != 25 {
		t.Fatalf("second error at %d:%d, want 2:25", list[1].Line, list[1].Col)
	}
}
