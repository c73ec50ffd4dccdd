package cli

import (
	"encoding/json"
	"strings"
	"testing"
)

// `neff run --engine K` filters the listing, not the run: each engine's
// transfers are the unfiltered run's transfers of that engine, and together
// the engines' lists are the whole run (issue 18 item 5).
func TestNEFFRunEngineFilter(t *testing.T) {
	path := samplePath(t)
	type tr struct {
		Subgraph, Engine string
		Offset           int
		StartNS          int64 `json:"start_ns"`
		EndNS            int64 `json:"end_ns"`
	}
	transfers := func(args ...string) []tr {
		var doc struct{ Transfers []tr }
		out := ndmaOut(t, 0, append(append([]string{"neff", "run", "--json"}, args...), path)...)
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		return doc.Transfers
	}
	all := transfers()
	byEngine := map[string][]tr{}
	for _, x := range all {
		byEngine[x.Engine] = append(byEngine[x.Engine], x)
	}
	if len(byEngine) < 2 || all[len(all)-1].EndNS == 0 {
		t.Fatalf("the sample's run has transfers on %d engines (the test needs two) or no times: %+v", len(byEngine), all)
	}
	n := 0
	for _, k := range []string{"pe", "act", "pool", "dve", "sp"} {
		got := transfers("--engine", strings.ToUpper(k))
		n += len(got)
		if len(got) != len(byEngine[k]) {
			t.Fatalf("--engine %s: %d transfers, the whole run has %d of it", k, len(got), len(byEngine[k]))
		}
		for i := range got {
			if got[i] != byEngine[k][i] { // same times too: the whole subgraph still ran
				t.Errorf("--engine %s transfer %d: %+v, the whole run's %+v", k, i, got[i], byEngine[k][i])
			}
		}
	}
	if n != len(all) {
		t.Errorf("the engines' lists hold %d transfers, the run %d", n, len(all))
	}
	ndmaOut(t, 2, "neff", "run", "--engine", "nosuch", path)
}
