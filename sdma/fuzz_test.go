package sdma

import (
	"testing"

	"ndma/dge"
	"ndma/isa"
)

// FuzzLower: any decodable word on any generation and backend relocates,
// lowers and expands to an error or to a program — never a panic — and the
// output streams through its rings: no doorbell adds more than a ring, the
// doorbells post every descriptor, each slot carries its lap's phase.
func FuzzLower(f *testing.F) {
	for _, op := range []byte{0xb8, 0xbb, 0xbd, 0xf1, 0xd4} {
		w := make([]byte, 64)
		w[0], w[1] = op, 0x10
		w[32], w[34], w[56], w[58] = 4, 1, 4, 1 // a few elements
		f.Add(w, uint8(isa.Cayman), uint8(0))
	}
	vars := &dge.Vars{Base: map[uint16]uint64{0: 0, 1: 0x1_0000_0000, 2: 0x1_0001_0000}, Table: []uint16{1, 2}}
	f.Fuzz(func(t *testing.T, b []byte, gsel, bsel uint8) {
		g := isa.Gens()[int(gsel)%len(isa.Gens())]
		backend := dge.Backend(bsel % 4)
		d := isa.NewDecoder(g, b)
		for d.Next() {
			in := *d.Inst()
			if in.Opcode() == isa.OpPseudoDMADirect2D {
				r, err := dge.Relocate(&in, vars)
				if err != nil {
					continue
				}
				in = r
			}
			p, err := dge.Lower(&in, g, dge.Options{Backend: backend})
			if err != nil {
				continue
			}
			_ = p.AppendDump(nil)
			lw, err := Expand(p, Options{RingSize: 256})
			if err != nil {
				continue
			}
			for _, q := range lw.Queues {
				var posted [2]int
				for _, db := range q.Doorbells {
					if db.Value > 256 {
						t.Fatalf("a doorbell of %d descriptors on a ring of 256", db.Value)
					}
					posted[map[string]int{"TDRTP_inc": 0, "RDRTP_inc": 1}[db.Reg]] += db.Value
				}
				if posted != [2]int{len(q.M2S), len(q.S2M)} {
					t.Fatalf("doorbells post %v descriptors, the lists hold %d and %d", posted, len(q.M2S), len(q.S2M))
				}
				for _, ds := range [][]Desc{q.M2S, q.S2M} {
					for i, d := range ds {
						if d.Phase() != 1^(i/256)&1 {
							t.Fatalf("slot %d of lap %d carries phase %d", i%256, i/256, d.Phase())
						}
					}
				}
			}
		}
	})
}
