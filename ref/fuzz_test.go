package ref

import (
	"testing"

	"ndma/isa"
)

// FuzzRef: random words over a small, seeded memory run to a result or a
// fault — never a panic — and a fault changes nothing.
func FuzzRef(f *testing.F) {
	for _, op := range []byte{0xb8, 0xbb, 0xbd, 0xf1, 0xb9} {
		w := make([]byte, 64)
		w[0], w[1] = op, 0x10
		w[32], w[34], w[36], w[56], w[58], w[60] = 4, 1, 4, 4, 1, 4
		f.Add(w, uint8(isa.Cayman))
	}
	f.Fuzz(func(t *testing.T, w []byte, gsel uint8) {
		if len(w) != 64 {
			return
		}
		g := isa.Gens()[int(gsel)%len(isa.Gens())]
		in, err := isa.Decode(g, w)
		if err != nil {
			return
		}
		x := New(g)
		x.MaxBytes = 1 << 20 // a small world
		for i := range x.Regs {
			x.Regs[i] = uint32(i * 0x40)
		}
		seed := make([]byte, 4096)
		for i := range seed {
			seed[i] = byte(i)
		}
		x.Mem.Write(0, seed)
		x.Mem.Write(0x1_0000_0000, seed)
		before := x.Mem.Snapshot()
		if err := x.Exec(&in); err != nil {
			after := x.Mem.Snapshot()
			if len(after) != len(before) {
				t.Fatalf("a fault allocated memory: %v", err)
			}
			for k, v := range before {
				if string(after[k]) != string(v) {
					t.Fatalf("a fault changed %s: %v", k, err)
				}
			}
		}
	})
}
