package nkic

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"testing"
)

// TestAppendCallsJSON: the hand-written encoding is encoding/json's, byte
// for byte — on a real run's trace (words, resolved hwdge words, notes,
// detail lists) and on random calls whose strings need escaping.
func TestAppendCallsJSON(t *testing.T) {
	var calls []CallTrace // a run's trace: hwdge (resolved words) and swdge copies, with detail
	for _, mode := range []string{ModeHW, ModeSW} {
		p, in := benchProgram(t, 8, mode, 8)
		_, tr, err := Run(p, in, Options{Fast: true, Detail: true})
		if err != nil {
			t.Fatal(err)
		}
		calls = append(calls, tr.Calls...)
	}
	if len(calls[0].Words) == 0 || calls[0].Words[0].Resolved == "" || len(calls[0].DGE) == 0 || len(calls[0].DMAs) == 0 {
		t.Fatalf("the run traced no resolved words or detail: %+v", calls[0])
	}
	tr := &Trace{Calls: calls}
	cases := [][]CallTrace{nil, {}, tr.Calls}
	rng := rand.New(rand.NewPCG(3, 4))
	strs := []string{"", "plain", `quote " and \ back`, "<tag> & amp", "a<b", "a>b", "a&b", "tab\tnew\nline\x01", "→ unicode ∑", "bad \xff utf8", "\u2028 sep", "end"}
	pick := func() string { return strs[rng.IntN(len(strs))] }
	for range 200 {
		c := CallTrace{Index: rng.IntN(5) - 1, Op: pick(), File: pick(), Line: rng.IntN(3) - 1, Kind: pick(), Mode: pick(), Backend: pick(),
			Queue: pick(), Engine: pick(), Exact: rng.IntN(2) == 0, Note: pick(), Bytes: rng.Int64N(1<<40) - 1<<39, Descriptors: rng.IntN(3),
			RowsSkipped: rng.IntN(2), TimeNS: rng.Int64()}
		for range rng.IntN(3) {
			c.Words = append(c.Words, WordTrace{Hex: pick(), Text: pick(), Resolved: pick()})
		}
		if rng.IntN(3) == 0 {
			c.Words = []WordTrace{}
		}
		for range rng.IntN(3) {
			c.DMAs = append(c.DMAs, rng.IntN(16)-1)
			c.DGE = append(c.DGE, pick())
			c.Desc = append(c.Desc, pick())
		}
		cases = append(cases, []CallTrace{c, tr.Calls[rng.IntN(len(tr.Calls))]})
	}
	for i, cs := range cases {
		want, err := json.Marshal(cs)
		if err != nil {
			t.Fatal(err)
		}
		if got := AppendCallsJSON([]byte("x"), cs); !bytes.Equal(got[1:], want) || got[0] != 'x' {
			t.Fatalf("case %d:\n got %s\nwant %s", i, got, want)
		}
	}
}
