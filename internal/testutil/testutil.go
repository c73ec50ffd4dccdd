// Package testutil holds what the project's tests share: how many trials a
// randomized test runs (fewer under -short, the everyday run) and assembling
// one word from its text.
package testutil

import (
	"testing"

	"ndma/asm"
	"ndma/isa"
)

// Trials is n for the full suite and n/4 (at least 2) under -short: a
// randomized test still reaches every path it draws from, fewer times.
func Trials(n int) int {
	if testing.Short() {
		return max(2, n/4)
	}
	return n
}

// Word assembles one word (a 0xd4 with its extension counts as one) of
// generation g from its text, failing the test on any error.
func Word(t testing.TB, g isa.Gen, src string) *isa.Inst {
	t.Helper()
	obj, err := asm.Assemble("t.s", []byte(src), asm.Options{Gen: g})
	if err != nil {
		t.Fatalf("%v\n%s", err, src)
	}
	in, err := isa.Decode(g, obj.Code)
	if err != nil {
		t.Fatal(err)
	}
	return &in
}
