package dge

import (
	"bytes"
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	"ndma/isa"
)

func hexWord(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.Join(strings.Fields(s), ""))
	if err != nil || len(b) != isa.WordSize {
		t.Fatalf("bad hex (%d bytes): %v", len(b), err)
	}
	return b
}

// field-tables §3.12: "Pseudo 0xcd/0xce replace start_addr by var_id u32@16
// + var_offset u32@20"; 000: "0xce → 0xaa". Words by hand: a 0xce with
// var_id 7, var_offset 0x1000 becomes the 0xaa whose start_addr@16 is the
// immediate ADDR8 0x1_0000_3000 (variable 7 at 0x1_0000_2000): bytes 0–6
// little-endian, marker byte 7 = 0; every other byte as it was.
func TestRelocateMem2D(t *testing.T) {
	pseudo := hexWord(t, `ce 10 00 00  05 03 00 00  01 00 00 00  0a 00 02 01
		07 00 00 00  00 10 00 00  01 00 00 00  00 00 00 00
		08 09 00 00  00 00 00 00  00 00 00 00  00 00 00 00
		00 00 00 00  00 00 00 00  00 00 00 00  00 00 00 00`)
	want := hexWord(t, `aa 10 00 00  05 03 00 00  01 00 00 00  0a 00 02 01
		00 30 00 00  01 00 00 00  01 00 00 00  00 00 00 00
		08 09 00 00  00 00 00 00  00 00 00 00  00 00 00 00
		00 00 00 00  00 00 00 00  00 00 00 00  00 00 00 00`)
	in, err := isa.Decode(isa.Cayman, pseudo)
	if err != nil {
		t.Fatal(err)
	}
	vars := &Vars{Base: map[uint16]uint64{7: 0x1_0000_2000}}
	out, err := Relocate(&in, vars)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := isa.Encode(out)
	if !bytes.Equal(got[:], want) {
		t.Fatalf("relocated\n% x\nwant\n% x", got, want)
	}
	// 0xcd → 0xab, the same way
	pseudo[0], want[0] = 0xcd, 0xab
	in, _ = isa.Decode(isa.Cayman, pseudo)
	if out, err = Relocate(&in, vars); err != nil {
		t.Fatal(err)
	}
	if got, _ = isa.Encode(out); !bytes.Equal(got[:], want) {
		t.Fatalf("0xcd relocated to\n% x", got)
	}
	// a variable not in the table
	if _, err := Relocate(&in, &Vars{}); !errors.Is(err, ErrMissingVar) {
		t.Fatalf("missing variable: %v", err)
	}
	// "Whole span must lie in one aligned 16 MiB region": two FP32 from 8 bytes
	// before a 16 MiB boundary end at its last byte; from 4 bytes before, they cross it
	vars.Base[7] = 0x1_0100_0000 - 0x1000 - 8
	if _, err := Relocate(&in, vars); err != nil {
		t.Fatalf("at the boundary, inside: %v", err)
	}
	vars.Base[7] += 4
	if _, err := Relocate(&in, vars); err == nil || !strings.Contains(err.Error(), "16 MiB") {
		t.Fatalf("across the boundary: %v", err)
	}
}
