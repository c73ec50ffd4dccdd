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
			Kind  string `json:"kind"`
			Count int    `json:"count"`
			First []struct {
				Subgraph, Engine, Queue, Text string
				Offset                        int
				Block, Word                   *int
			} `json:"first"`
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
	// the text's place, "sg00 pool 0x0 qPoolIn block 0 word 0", as fields
	if p := l.Findings[0].First[0]; p.Subgraph != "sg00" || p.Engine != "pool" || p.Offset != 0 || p.Queue != "qPoolIn" ||
		p.Block == nil || *p.Block != 0 || p.Word == nil || *p.Word != 0 || !strings.HasPrefix(p.Text, "sg00 pool 0x0 qPoolIn block 0 word 0 (") {
		t.Errorf("lint --json place: %+v", p)
	}
	if info := ndmaOut(t, 0, "neff", "info", path); !strings.Contains(info, "  sg00 queue qPoolIn (pool, in, 16 queues): load-time descriptors 16528") {
		t.Errorf("info has no budget:\n%s", info)
	}
	// a filter keeps one engine's streams; a filter matching none is a usage error (as lower and run)
	if out := ndmaOut(t, 0, "neff", "lint", "--engine", "POOL", "--subgraph", "sg00", path); !strings.Contains(out, "finding small-descriptors: 1 words") {
		t.Errorf("--engine POOL lost the pool copy:\n%s", out)
	}
	ndmaOut(t, 2, "neff", "lint", "--engine", "act", path)
	ndmaOut(t, 2, "neff", "lint", "--subgraph", "sg09", path)
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

// `neff check --in idx=…`: the mixed index tensor of field-tables §11.5's
// gather (an index ≥ src_num_elem = 16 is out of bounds) is caught, lane by
// lane, with error vs skip and the mixed group; exit 1; valid indices pass.
func TestNEFFCheckPreflight(t *testing.T) {
	dir := t.TempDir()
	path := writeNEFF(t, dir, "g.neff", neffgen.Gather(8, false))
	write := func(name string, v ...uint32) string {
		p := filepath.Join(dir, name)
		writeU32NPY(t, p, v...)
		return p
	}
	mixed := write("mixed.npy", 0, 1, 2, 99, 15, 0xffffffff, 13, 12)
	out := ndmaOut(t, 1, "neff", "check", "--in", "idx="+mixed, path)
	for _, want := range []string{
		"preflight sg00 pool 0x40 DMA_INDIRECT: 2 of 8 lanes out of bounds (mode error)\n",
		"  lane 3 src index 99: index 99 >= 16 elements (src_num_elem)\n",
		"  lane 5 src index 4294967295: index 4294967295 >= 16 elements (src_num_elem)\n",
		"  with errors on (error): the word faults at lane 3 and moves nothing",
		"  with errors off (skip): 2 lanes skipped, 6 move; 1 groups mix valid and invalid indices",
		"  mixed group: lanes 0..7 hold 6 valid and 2 invalid indices\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
	var j struct {
		Problems  []any `json:"problems"`
		Preflight struct {
			Words []struct {
				Invalid int `json:"invalid"`
			} `json:"words"`
		} `json:"preflight"`
	}
	if err := json.Unmarshal([]byte(ndmaOut(t, 1, "neff", "check", "--json", "--in", "idx="+mixed, path)), &j); err != nil || len(j.Preflight.Words) != 1 || j.Preflight.Words[0].Invalid != 2 {
		t.Fatalf("check --json: %+v %v", j, err)
	}
	ok := write("ok.npy", 0, 1, 2, 3, 15, 14, 13, 12)
	if out := ndmaOut(t, 0, "neff", "check", "--in", "idx="+ok, path); !strings.Contains(out, "preflight: 1 indirect words, 0 with out-of-bounds lanes (inputs: idx)\n") {
		t.Errorf("valid indices:\n%s", out)
	}
	ndmaOut(t, 2, "neff", "check", "--in", "nosuch="+ok, path)
	ndmaOut(t, 2, "neff", "check", "--in", "idx", path)
}

// `neff report -o`: the page is written as outputs are (reserved first, an
// existing directory never replaced), holds the NEFF's queues, and -o is
// required.
func TestNEFFReportOutput(t *testing.T) {
	dir := t.TempDir()
	path := writeNEFF(t, dir, "w.neff", neffgen.Weights("cayman", false))
	out := filepath.Join(dir, "r.html")
	if msg := ndmaOut(t, 0, "neff", "report", path, "-o", out); !strings.HasPrefix(msg, "wrote "+out+": 1 streams, 4 transfers") {
		t.Errorf("report: %s", msg)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"qPoolIn", "qPoolData"} {
		if !bytes.Contains(b, []byte(q)) {
			t.Errorf("the page does not name %s", q)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "d"), 0o755); err != nil {
		t.Fatal(err)
	}
	ndmaOut(t, 1, "neff", "report", path, "-o", filepath.Join(dir, "d"))
	ndmaOut(t, 2, "neff", "report", path)
}

// --subgraph and --engine keep their streams in the JSON of disasm, lower
// and lint; the words of a stream are the .bin's 64-byte words.
func TestNEFFJSONFilters(t *testing.T) {
	path := samplePath(t)
	var d []struct {
		Subgraph, Engine string
		Words            []json.RawMessage
	}
	if err := json.Unmarshal([]byte(ndmaOut(t, 0, "neff", "disasm", "--json", "--subgraph", "sg00", "--engine", "POOL", path)), &d); err != nil {
		t.Fatal(err)
	}
	// neff.md §3.1: "Member sizes in matmul_small sg00: … Pool.bin 448"
	if len(d) != 1 || d[0].Subgraph != "sg00" || d[0].Engine != "pool" || len(d[0].Words) != 448/64 {
		t.Fatalf("disasm --json filtered: %+v", d)
	}
	var l []struct {
		Engine string
		Stats  struct{ Lowered int }
	}
	if err := json.Unmarshal([]byte(ndmaOut(t, 0, "neff", "lower", "--json", "--stats", "--engine", "sp", path)), &l); err != nil {
		t.Fatal(err)
	}
	if len(l) != 2 || l[0].Engine != "sp" || l[0].Stats.Lowered != 1 {
		t.Fatalf("lower --json filtered: %+v", l)
	}
	var lint struct {
		Queues []struct{ Subgraph, Engine string }
	}
	if err := json.Unmarshal([]byte(ndmaOut(t, 0, "neff", "lint", "--json", "--subgraph", "sg00", "--engine", "sp", path)), &lint); err != nil {
		t.Fatal(err)
	}
	if len(lint.Queues) != 1 || lint.Queues[0].Subgraph != "sg00" || lint.Queues[0].Engine != "sp" {
		t.Fatalf("lint --json filtered: %+v", lint)
	}
}
