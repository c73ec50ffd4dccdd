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
