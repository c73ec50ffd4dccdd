package check

import (
	"testing"

	"ndma/isa"
)

// FuzzValidate: any byte stream, on any generation, validates without a
// panic, and every problem names a known predicate.
func FuzzValidate(f *testing.F) {
	for _, op := range []byte{0xb8, 0xb9, 0xba, 0xbb, 0xbd, 0xf1, 0xb4, 0xb6, 0xd4, 0xda, 0x02} {
		w := make([]byte, 64)
		w[0], w[1] = op, 0x10
		f.Add(w, uint8(isa.Cayman))
	}
	// field-tables §3.12 words: a MEM_2D past the immediate cap across a 16 MiB
	// boundary, a 0xce, an RDMA_DESC_START with GEN's fields set
	for _, w := range [][]byte{
		{0xab, 0x10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x09, 0x01, 0x09, 0x01, 0xfc, 0xff, 0xff, 0x00, 0x01, 0, 0, 0, 0x01},
		{0xce, 0x10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x0c, 0x00, 0x02, 0x01, 0x07, 0, 0, 0, 0, 0x10, 0, 0, 0x01, 0, 0, 0, 0, 0, 0, 0, 0x3f},
		{0xf0, 0x10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x09, 0x00, 0x02, 0x03, 0, 0, 0, 0, 0, 0, 0, 0, 0x03},
	} {
		f.Add(append(w, make([]byte, 64-len(w))...), uint8(isa.Cayman))
	}
	f.Fuzz(func(t *testing.T, b []byte, gsel uint8) {
		g := isa.Gen(gsel % uint8(isa.Maverick+1))
		ps, _ := Stream(g, b)
		for _, p := range ps {
			if _, ok := PredicateProv(p.Predicate); !ok {
				t.Fatalf("unknown predicate %q", p.Predicate)
			}
			if p.Index < 0 || p.Offset >= len(b) {
				t.Fatalf("problem outside the stream: %+v", p)
			}
		}
	})
}
