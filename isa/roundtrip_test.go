package isa

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"testing"
)

func decodedOpcodes() []Opcode {
	var ops []Opcode
	for i := range catalog {
		if catalog[i].Decoded() {
			ops = append(ops, catalog[i].Opcode)
		}
	}
	return ops
}

// randomWord is 64 random bytes with the given opcode; half the time the
// bytes are biased towards the patterns that select rarer union arms.
func randomWord(r *rand.Rand, op Opcode) []byte {
	w := make([]byte, WordSize)
	for i := range w {
		w[i] = byte(r.Uint32())
	}
	if r.IntN(2) == 0 {
		for i := range w {
			if r.IntN(3) == 0 {
				w[i] &= 0xF0 // marker-like bytes with few low bits
			}
		}
	}
	w[0] = byte(op)
	return w
}

// Seeded random words of every struct: bytes → Inst → bytes is the identity,
// and Inst → JSON → Inst is the identity (the JSON path rebuilds every union
// from its form and fields, independently of the raw leaves).
func TestRandomRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(2026, 11))
	for _, op := range append(decodedOpcodes(), 0x02, 0x77, 0xc1) {
		for n := 0; n < 2000; n++ {
			w := randomWord(r, op)
			if op == OpPseudoDMADirect2D && n%2 == 0 { // with its extension
				w = append(w, randomWord(r, OpPseudoExtension)...)
			}
			gen := allGens[r.IntN(len(allGens))]
			in, err := Decode(gen, w)
			if err != nil {
				t.Fatalf("%s: %v", op, err)
			}
			if in.Size() != len(w) {
				t.Fatalf("%s: size %d, want %d", op, in.Size(), len(w))
			}
			got, err := AppendEncoded(nil, in)
			if err != nil || !bytes.Equal(got, w) {
				t.Fatalf("%s: encode(decode(w)) != w\n got %x\nwant %x", op, got, w)
			}
			back, err := ParseJSON(gen, in.AppendJSON(nil, 0))
			if err != nil {
				t.Fatalf("%s: ParseJSON: %v\n%s", op, err, in.AppendJSON(nil, 0))
			}
			if x, ok := in.Ext(); ok {
				xb, err := ParseJSON(gen, x.AppendJSON(nil, 64))
				if err != nil {
					t.Fatalf("ext: %v", err)
				}
				if err := back.SetExt(xb, true); err != nil {
					t.Fatal(err)
				}
			}
			if !back.Equal(&in) {
				t.Fatalf("%s: ParseJSON(JSON(x)) != x for %x", op, w)
			}
		}
	}
}

func TestStreamAndTruncation(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	var stream []byte
	var want []int // offsets of instructions
	for _, op := range []Opcode{0xb8, 0xd4, 0xbb, 0xd4, 0xb6, 0x02} {
		want = append(want, len(stream))
		stream = append(stream, randomWord(r, op)...)
		if op == 0xd4 && len(want) == 2 {
			stream = append(stream, randomWord(r, 0xda)...)
		}
	}
	var got []int
	d := NewDecoder(Cayman, stream)
	for d.Next() {
		got = append(got, d.Offset())
	}
	if d.Err() != nil {
		t.Fatal(d.Err())
	}
	if len(got) != len(want) {
		t.Fatalf("offsets %v, want %v", got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("offsets %v, want %v", got, want)
		}
	}
	// Every truncation point names the offset of the incomplete word.
	for cut := 1; cut < len(stream); cut++ {
		if cut%WordSize == 0 {
			continue
		}
		_, err := DecodeAll(Cayman, stream[:cut])
		var de *DecodeError
		if !errors.As(err, &de) || !errors.Is(err, ErrTruncated) {
			t.Fatalf("cut %d: err %v, want a truncation", cut, err)
		}
		if de.Offset != cut/WordSize*WordSize || de.Have != cut%WordSize {
			t.Fatalf("cut %d: %v", cut, err)
		}
	}
	// A 0xd4 whose following 0xda is cut short is an error at the 0xda.
	short := append(randomWord(r, 0xd4), 0xda, 0x01)
	_, err := Decode(Cayman, short)
	var de *DecodeError
	if !errors.As(err, &de) || de.Offset != 64 || de.Opcode != 0xda {
		t.Fatalf("short extension: %v", err)
	}
	if _, err := Decode(Cayman, nil); err == nil || err.Error() != "offset 0x0: truncated word: 0 of 64 bytes" {
		t.Fatalf("empty: %v", err)
	}
}

func TestSetRanges(t *testing.T) {
	in := New(Cayman, OpDMAMemcpy)
	for _, c := range []struct {
		path string
		v    int64
		ok   bool
	}{
		{"src_num_elem[0]", 65535, true}, {"src_num_elem[0]", 65536, false}, {"src_num_elem[0]", -1, false},
		{"src_step_elem[1]", -2147483648, true}, {"src_step_elem[1]", 2147483648, false},
		{"dma_configs.priority_class", 7, true}, {"dma_configs.priority_class", 8, false},
		{"src_bound_reg.bc_enabled", 1, true}, {"src_bound_reg.bc_enabled", 2, false},
		{"src_nm_elem[0]", 1, false},
	} {
		err := in.Set(c.path, c.v)
		if (err == nil) != c.ok {
			t.Errorf("Set(%s, %d) = %v", c.path, c.v, err)
		}
	}
	if v, _ := in.Int("src_step_elem[1]"); v != -2147483648 {
		t.Errorf("Int = %d", v)
	}
	if _, err := in.Uint("nope"); !errors.Is(err, ErrNoField) {
		t.Errorf("Uint(nope) = %v", err)
	}
}

func TestParseJSONErrors(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"mnemonic":"DMAMEMCPY","fields":{"src_nm_elem":[1,2]}}`, "fields.src_nm_elem: unknown field"},
		{`{"mnemonic":"DMAMEMCPY","fields":{"src_num_elem":[70000,0]}}`, "fields.src_num_elem[0]: 70000 does not fit u16"},
		{`{"mnemonic":"DMAMEMCPY","fields":{"in_dtype":"bf61"}}`, `unknown DTYPE value "bf61"`},
		{`{"opcode":187,"mnemonic":"DMAMEMCPY","fields":{}}`, "names opcode 0xb8"},
		{`{"fields":{}}`, "no opcode"},
		{`{"mnemonic":"DMAMEMCPY","fields":{"src_start_addr":{"form":"reg","marker":0}}}`, `selects form "imm", not "reg"`},
		{`{"mnemonic":"DMAMEMCPY","fields":{"src_start_addr":{"form":"imm","marker":1}}}`, "outside the mask"},
		{`{"mnemonic":"COMPACT_CONTROL_INST","fields":{"insts":[{"op":"ADD","type":"MEM"}]}}`, "want an array of 15"},
	} {
		_, err := ParseJSON(Cayman, []byte(c.in))
		if err == nil || !bytes.Contains([]byte(err.Error()), []byte(c.want)) {
			t.Errorf("ParseJSON(%s) = %v, want %q", c.in, err, c.want)
		}
	}
}

// Decode and Encode allocate nothing (counted, not timed).
func TestNoAllocs(t *testing.T) {
	stream := mixedStream(64)
	var d Decoder
	var w [WordSize]byte
	allocs := testing.AllocsPerRun(100, func() {
		d = Decoder{gen: Mariana, b: stream}
		for d.Next() {
			d.inst.encodeTo(w[:])
		}
	})
	if allocs != 0 || d.Err() != nil {
		t.Fatalf("%v allocations per stream (err %v)", allocs, d.Err())
	}
}
