package timing

import "testing"

// Inline DGE words (Transfer.Inline, Shares): each share on its own engine,
// the issuer's DGE writing one word at a time. By hand, trn2, two Pool
// words fired at 0, each one share on engine 3 (2 rows of 2048 B from
// contiguous HBM: one 4096-B stretch, one packet of 4096 + 4) and one on
// engine 5 (3 strided rows of 1000 B: packed into one 3000-B packet + 4):
//   - word 0's DGE ends at 600, word 1's at 1200 (one at a time); each is
//     ready TriggerNS (770) later: 1370 and 1970, its second share one
//     stagger (HBM: 57) after its first;
//   - engine 3: word 0's packet 1370 + DataTime(4100); word 1's at 1970;
//   - engine 5: word 0's packet at 1427 + DataTime(3004); word 1's at 2027;
//   - each word ends at its later share's data done + LastLagNS.
func TestInlineShares(t *testing.T) {
	p := Trn2()
	m := New(p)
	m.Keep = true
	word := func() *Transfer {
		return &Transfer{Queue: "qPoolDynamic", Block: -1, Inline: true, From: HBM, To: SB, Issuer: "pool",
			Shares:       [][]Run{{{Bytes: 2048, Count: 2, Contiguous: true}}, {{Bytes: 1000, Count: 3}}},
			ShareEngines: []int{3, 5}}
	}
	a, err := m.Fire(word(), 0)
	if err != nil {
		t.Fatal(err)
	}
	b, err := m.Fire(word(), 0)
	if err != nil {
		t.Fatal(err)
	}
	m.Finish()
	d3, d5 := p.DataTime(4100, SB), p.DataTime(3004, SB)
	for k, id := range []int{a, b} {
		ready := 600*int64(k+1) + p.TriggerNS
		r := m.Result(id)
		if len(r.Packets) != 2 || r.Bytes != 4100+3004 {
			t.Fatalf("word %d: %d packets, %d bytes; want 2 of 4100 + 3004", k, len(r.Packets), r.Bytes)
		}
		got := map[int]Packet{r.Packets[0].Engine: r.Packets[0], r.Packets[1].Engine: r.Packets[1]}
		if got[3].StartNS != ready || got[5].StartNS != ready+p.StaggerHBMNS {
			t.Errorf("word %d: engine 3 at %d, engine 5 at %d; by hand %d, %d", k, got[3].StartNS, got[5].StartNS, ready, ready+p.StaggerHBMNS)
		}
		end := max(ready+d3, ready+p.StaggerHBMNS+d5) + p.LastLagNS
		if r.StartNS != ready || r.EndNS != end {
			t.Errorf("word %d: %d–%d, by hand %d–%d", k, r.StartNS, r.EndNS, ready, end)
		}
	}
	// a share on an engine past the model's bound, or shares without engines, are refused
	bad := word()
	bad.ShareEngines = []int{3}
	if _, err := New(p).Fire(bad, 0); err == nil {
		t.Error("2 shares on 1 engine: no error")
	}
	bad = word()
	bad.ShareEngines = []int{3, maxEngines}
	if _, err := New(p).Fire(bad, 0); err == nil {
		t.Error("engine past the bound: no error")
	}
	// Join: two words one step issues, their shares in order
	j := word().Join(word())
	if len(j.Shares) != 4 || j.ShareEngines[2] != 3 || j.Bytes() != 2*(4096+3000) {
		t.Errorf("joined: %d shares on %v, %d bytes", len(j.Shares), j.ShareEngines, j.Bytes())
	}
	if (*Transfer)(nil).Join(nil) != nil {
		t.Error("nil joined with nil is not nil")
	}
}

// FuzzCarriedPlans: the plans carried on from their tails (extend) and the
// plans a commit keeps give every transfer the turns that planning every
// engine from scratch at every change gives (Model.replan): a random
// sequence of transfers — blocks and inline words, on three queues, SB or
// HBM, casts — fired at random times.
func FuzzCarriedPlans(f *testing.F) {
	f.Add([]byte{0, 16, 40, 3, 1, 200, 2, 7, 9, 0, 5, 90, 4, 4, 4, 1})
	f.Add([]byte{255, 1, 1, 1, 1, 1, 0, 0, 0, 200, 200, 200, 7, 7, 7, 7, 9, 9, 9, 9})
	f.Fuzz(func(t *testing.T, prog []byte) {
		if len(prog) > 256 {
			return
		}
		run := func(replan bool) []Result {
			m := New(Trn2())
			m.Keep, m.replan = true, replan
			var ids []int
			var now int64
			for i := 0; i+4 <= len(prog); i += 4 {
				op, a, b, c := prog[i], prog[i+1], prog[i+2], prog[i+3]
				now += int64(a) * 37
				tr := &Transfer{Queue: []string{"qA", "qB", "qC"}[op%3], Block: i, Issuer: []string{"sp", "pool", "act"}[op/3%3],
					From: Mem(op / 9 % 2), To: Mem(op / 18 % 2), Cast: op&64 != 0}
				if op&128 != 0 { // an inline word: shares on a few engines
					tr.Inline, tr.Block = true, -1
					for k := 0; k < int(c%4)+1; k++ {
						tr.Shares = append(tr.Shares, []Run{{Bytes: int64(b)*16 + 1, Count: int64(c%9) + 1, Contiguous: k%2 == 0}})
						tr.ShareEngines = append(tr.ShareEngines, (int(b)+5*k)%16)
					}
				} else {
					tr.Engines = int(c%16) + 1
					tr.Rows = []Run{{Bytes: int64(b)*32 + 1, Count: int64(c%40) + 1, Contiguous: op&32 != 0}}
				}
				id, err := m.Fire(tr, now)
				if err != nil {
					t.Fatal(err)
				}
				ids = append(ids, id)
			}
			m.Finish()
			out := make([]Result, len(ids))
			for k, id := range ids {
				out[k] = m.Result(id)
			}
			return out
		}
		got, want := run(false), run(true)
		for k := range want {
			g, w := got[k], want[k]
			if g.StartNS != w.StartNS || g.EndNS != w.EndNS || g.Bytes != w.Bytes || len(g.Packets) != len(w.Packets) {
				t.Fatalf("transfer %d: %d–%d %d B %d packets; from scratch %d–%d %d B %d packets", k, g.StartNS, g.EndNS, g.Bytes, len(g.Packets), w.StartNS, w.EndNS, w.Bytes, len(w.Packets))
			}
			for j := range w.Packets {
				if g.Packets[j] != w.Packets[j] {
					t.Fatalf("transfer %d packet %d: %+v; from scratch %+v", k, j, g.Packets[j], w.Packets[j])
				}
			}
		}
	})
}
