package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ndma/internal/neffgen"
)

// writeNEFF builds p into dir/name.
func writeNEFF(t *testing.T, dir, name string, p *neffgen.Program) string {
	t.Helper()
	raw, err := p.Build()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// ndmaOut runs ndma, wants exit code, and returns stdout.
func ndmaOut(t *testing.T, code int, args ...string) string {
	t.Helper()
	var so, se bytes.Buffer
	if got := Main(args, nil, &so, &se); got != code {
		t.Fatalf("%v: exit %d, want %d: %s%s", args, got, code, so.String(), se.String())
	}
	return so.String()
}

// `neff lint` names the 16,384-run weight copy of neff.md §4.7 as small
// descriptors (§4.8: the profiler flags "small DMA transfers" below 4 KiB
// contiguous payload), with a fix; its --json parses; `neff info` carries
// the budget.
func TestNEFFLintWeights(t *testing.T) {
	path := writeNEFF(t, t.TempDir(), "w.neff", neffgen.Weights("cayman", false))
	out := ndmaOut(t, 0, "neff", "lint", path)
	for _, want := range []string{
		"finding small-descriptors: 1 words: data descriptors under 512 bytes (descriptor-bound); first: sg00 pool 0x0 qPoolIn block 0 word 0 (16384 of 16384 descriptors); fix: merge runs",
		"sg00 pool qPoolIn                 1   16528      65536  16384      0      0      0",
		"budget: ",
		"  sg00 queue qPoolIn (pool, in, 16 queues): load-time descriptors 16528, ring bytes ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
	var l struct {
		Findings []struct {
			Kind  string   `json:"kind"`
			Count int      `json:"count"`
			First []string `json:"first"`
		} `json:"findings"`
		Budget struct {
			Queues []struct {
				Queue       string `json:"queue"`
				Descriptors int    `json:"descriptors"`
			} `json:"queues"`
		} `json:"budget"`
	}
	if err := json.Unmarshal([]byte(ndmaOut(t, 0, "neff", "lint", "--json", path)), &l); err != nil {
		t.Fatal(err)
	}
	if len(l.Findings) == 0 || l.Findings[0].Kind != "small-descriptors" || len(l.Budget.Queues) != 2 {
		t.Fatalf("lint --json: %+v", l)
	}
	if info := ndmaOut(t, 0, "neff", "info", path); !strings.Contains(info, "  sg00 queue qPoolIn (pool, in, 16 queues): load-time descriptors 16528") {
		t.Errorf("info has no budget:\n%s", info)
	}
	// a filter keeps one engine's streams; a filter matching none is an error
	if out := ndmaOut(t, 0, "neff", "lint", "--engine", "POOL", "--subgraph", "sg00", path); !strings.Contains(out, "finding small-descriptors: 1 words") {
		t.Errorf("--engine POOL lost the pool copy:\n%s", out)
	}
	ndmaOut(t, 1, "neff", "lint", "--engine", "act", path)
	ndmaOut(t, 1, "neff", "lint", "--subgraph", "sg09", path)
}

// `neff diff`: exit 0 for the same DMA, 1 for a changed to_off (named by
// key), --json parses; two files are required.
func TestNEFFDiffExit(t *testing.T) {
	dir := t.TempDir()
	a := writeNEFF(t, dir, "a.neff", neffgen.Weights("cayman", false))
	twin := writeNEFF(t, dir, "twin.neff", neffgen.Weights("cayman", false))
	p := neffgen.Weights("cayman", false)
	p.Subgraphs[0].Engines[0].DMA[2].Desc[0].ToOff += 64
	b := writeNEFF(t, dir, "b.neff", p)
	if out := ndmaOut(t, 0, "neff", "diff", a, twin); !strings.Contains(out, "the DMA is the same\n") {
		t.Errorf("same: %s", out)
	}
	if out := ndmaOut(t, 1, "neff", "diff", a, b); !strings.Contains(out, "block sg00 pool qPoolData block 1 walk changed: desc[0] to_off 16384 → 16448\n") {
		t.Errorf("changed: %s", out)
	}
	var r struct {
		Same   bool `json:"same"`
		Blocks []struct {
			Details []string `json:"details"`
		} `json:"blocks"`
	}
	if err := json.Unmarshal([]byte(ndmaOut(t, 1, "neff", "diff", "--json", a, b)), &r); err != nil || r.Same || len(r.Blocks) != 1 {
		t.Fatalf("diff --json: %+v %v", r, err)
	}
	ndmaOut(t, 2, "neff", "diff", a)
}
