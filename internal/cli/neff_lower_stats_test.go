package cli

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"ndma/internal/samples"
)

// `neff lower --stats` groups its findings a line per kind, as lint does,
// and leaves out the streams that lower nothing (issue 34 item 4). The
// expectation is walked from `neff lower --json`'s descriptors: per word,
// the M2S descriptors under 512 bytes; the words with any, and the range of
// their counts, are the descriptor-bound line of each stream.
func TestNEFFLowerStatsGrouped(t *testing.T) {
	path := samples.Path(t, "matmul_small.neff")
	code, js, errs := runCLI("neff", "lower", "--json", path)
	if code != 0 {
		t.Fatalf("lower --json: %s", errs)
	}
	var streams []struct {
		Subgraph, Engine string
		Words            []struct {
			Queues []struct {
				Descriptors []struct {
					Leg    string
					Length int
				}
			}
		}
	}
	if err := json.Unmarshal([]byte(js), &streams); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCLI("neff", "lower", "--stats", path)
	if code != 0 {
		t.Fatalf("lower --stats: %s", errs)
	}
	sections := map[string]string{}
	for _, sec := range strings.Split(out, "# ")[1:] {
		head, body, _ := strings.Cut(sec, "\n")
		sections[strings.Join(strings.Fields(head)[:min(2, len(strings.Fields(head)))], " ")] = body
	}
	empty := 0
	for _, st := range streams {
		key := st.Subgraph + " " + st.Engine
		if len(st.Words) == 0 {
			empty++
			if _, listed := sections[key]; listed {
				t.Errorf("%s lowers nothing but is listed", key)
			}
			continue
		}
		words, lo, hi := 0, 1<<30, 0
		for _, w := range st.Words {
			small := 0
			for _, q := range w.Queues {
				for _, d := range q.Descriptors {
					if d.Leg == "M2S" && d.Length < 512 {
						small++
					}
				}
			}
			if small > 0 {
				words, lo, hi = words+1, min(lo, small), max(hi, small)
			}
		}
		body, ok := sections[key]
		if !ok {
			t.Errorf("%s lowers %d words but is not listed", key, len(st.Words))
			continue
		}
		if n := strings.Count(body, "finding:"); n > 2 {
			t.Errorf("%s: %d finding lines, want one per kind:\n%s", key, n, body)
		}
		if words > 0 {
			span := fmt.Sprint(lo)
			if hi != lo {
				span += ".." + fmt.Sprint(hi)
			}
			want := fmt.Sprintf("finding: %d words (PSEUDO_DMA_DIRECT2D): %s of ", words, span)
			if !strings.Contains(body, want) || !strings.Contains(body, "descriptor-bound") {
				t.Errorf("%s: want %q in\n%s", key, want, body)
			}
		}
	}
	if want := fmt.Sprintf("# %d streams lower no DMA word: not listed\n", empty); empty == 0 || !strings.Contains(out, want) {
		t.Errorf("want %q in\n%s", want, out)
	}
}
