package isa

import (
	"bytes"
	"encoding/hex"
	"strings"
	"testing"
)

// FuzzDecode: any byte stream either decodes or fails with an error (never a
// panic), and every decoded instruction re-encodes to its exact bytes and
// survives the JSON round trip. The corpus it found is kept in
// testdata/fuzz/FuzzDecode.
func FuzzDecode(f *testing.F) {
	seed := func(op Opcode) []byte {
		in := New(Cayman, op)
		b, _ := AppendEncoded(nil, in)
		return b
	}
	for i := range catalog {
		f.Add(seed(catalog[i].Opcode))
	}
	f.Add(append(seed(OpPseudoDMADirect2D), seed(OpPseudoExtension)...))
	f.Add(append(seed(OpPseudoDMADirect2D), 0xda, 0x10))
	f.Add([]byte{0xb8, 0x10})
	// the scalar movers and RDMA words of field-tables §3.12, by hand
	// (testdata/golden/mem2d.txtar store-imm, load-reg; extended.txtar rdma)
	f.Add(unhex(f, "ab100000 00000000 00000000 09010401 00010000 00000000 01000000 00000000 44332211 88776655 01000000 02000000 00000000 00000000 00000000 00000000"))
	f.Add(unhex(f, "aa100000 05030000 01000000 04000302 04050000 00000080 ffffffff 08000000 00010203 3e3f0000 00000000 00000000 00000000 00000000 00000000 00000000"))
	f.Add(unhex(f, "f0100000 00000000 00000000 08010203 01000000 2a000000 08000000 00100000 00200000 00020000 01050000 00000000 00000000 00000000 00000000 00000000"))
	f.Fuzz(func(t *testing.T, b []byte) {
		d := NewDecoder(Maverick, b)
		for d.Next() {
			in := d.Inst()
			got, err := AppendEncoded(nil, *in)
			if err != nil {
				t.Fatal(err)
			}
			if want := b[d.Offset() : d.Offset()+in.Size()]; !bytes.Equal(got, want) {
				t.Fatalf("@%#x: re-encode\n got %x\nwant %x", d.Offset(), got, want)
			}
			back, err := ParseJSON(Maverick, in.AppendJSON(nil, 0))
			if err != nil {
				t.Fatalf("@%#x: ParseJSON: %v", d.Offset(), err)
			}
			if x, ok := in.Ext(); ok {
				xb, err := ParseJSON(Maverick, x.AppendJSON(nil, 0))
				if err != nil {
					t.Fatalf("ext: %v", err)
				}
				back.SetExt(xb, true)
			}
			if !back.Equal(in) {
				t.Fatalf("@%#x: JSON round trip differs", d.Offset())
			}
		}
		if d.Err() == nil && len(b)%WordSize != 0 {
			t.Fatalf("%d bytes decoded without a truncation error", len(b))
		}
	})
}

// unhex is a seed word written as hex (spaces ignored).
func unhex(f *testing.F, s string) []byte {
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil || len(b) != WordSize {
		f.Fatalf("seed %q: %v (%d bytes)", s, err, len(b))
	}
	return b
}
