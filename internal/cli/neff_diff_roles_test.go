package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"ndma/internal/neffgen"
	"ndma/neff"
)

// walkBytes is the bytes a NEFF's dma[] blocks move, walked from its engine
// JSON members as plain maps (each block fired once in these kernels):
// per descriptor the product of from_sizes, sizes[0] in bytes (neff.md §4.7).
func walkBytes(t *testing.T, path string) uint64 {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := neff.Parse(raw, neff.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var n uint64
	for _, m := range f.Members {
		if !strings.HasSuffix(m.Name, ".json") || strings.HasSuffix(m.Name, "def.json") {
			continue
		}
		var j struct {
			DMA []struct {
				Desc []struct {
					FromSizes []uint64 `json:"from_sizes"`
				} `json:"desc"`
			} `json:"dma"`
		}
		if json.Unmarshal(m.Data, &j) != nil {
			continue
		}
		for _, b := range j.DMA {
			for _, d := range b.Desc {
				p := uint64(1)
				for _, s := range d.FromSizes {
					p *= s
				}
				n += p
			}
		}
	}
	return n
}

// weightsRenamed is neffgen.Weights with its variables renamed by names,
// as another build of the compiler names its spill slots.
func weightsRenamed(hbm bool, names map[string]string) *neffgen.Program {
	p := neffgen.Weights("cayman", hbm)
	g := &p.Subgraphs[0]
	for i := range g.Vars {
		if n, ok := names[g.Vars[i].Name]; ok {
			g.Vars[i].Name = n
		}
	}
	en := &g.Engines[0]
	for bi := range en.DMA {
		for di := range en.DMA[bi].Desc {
			d := &en.DMA[bi].Desc[di]
			if n, ok := names[d.From]; ok {
				d.From = n
			}
			if n, ok := names[d.To]; ok {
				d.To = n
			}
		}
	}
	return p
}

// `neff diff` of two builds of one kernel (neffgen.Weights with its HBM
// copy: two virtual spill slots of one size) whose spill variables the
// second build names anew — in an order where matching by name, or by
// type and size in name order, pairs them wrongly — and which fires three
// more qPoolIn blocks, ids 9–11 (issue 34 item 6): no variable line, the
// two renames under --json as the blocks that use them pair them, the
// three blocks added in numeric order, a totals line whose bytes are an
// independent walk of the engine JSON and whose times are `neff lint`'s.
func TestNEFFDiffRoles(t *testing.T) {
	a := writeNEFF(t, t.TempDir(), "a.neff", neffgen.Weights("cayman", true))
	names := map[string]string{"spill": "a_RematSpillSave7", "flat": "z_RematSpillSave3"}
	pb := weightsRenamed(true, names)
	en := &pb.Subgraphs[0].Engines[0]
	w := en.DMA[0] // qPoolIn block 0: w into SB
	for _, id := range []int{11, 9, 10} {
		en.DMA = append(en.DMA, neffgen.Compiled("qPoolIn", id, neffgen.SetOf(24), w.Desc...))
		en.Asm += neffgen.Trigger("qPoolIn", id)
	}
	b := writeNEFF(t, t.TempDir(), "b.neff", pb)

	code, out, errs := runCLI("neff", "diff", a, b)
	if code != 1 {
		t.Fatalf("exit %d: %s\n%s", code, errs, out)
	}
	if strings.Contains(out, "variable ") || strings.Contains(out, "RematSpill") {
		t.Errorf("renamed spill variables listed:\n%s", out)
	}
	if !strings.Contains(out, "2 variables renamed, matched by role") {
		t.Errorf("no rename count:\n%s", out)
	}
	var blocks []string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "block ") {
			blocks = append(blocks, l)
		}
	}
	want := []string{"block sg00 pool qPoolIn block 9 added", "block sg00 pool qPoolIn block 10 added", "block sg00 pool qPoolIn block 11 added"}
	if fmt.Sprint(blocks) != fmt.Sprint(want) {
		t.Errorf("blocks %q, want %q", blocks, want)
	}
	// the totals: bytes walked here, words a trigger each, time as lint estimates it
	lintNS := func(path string) int64 {
		_, js, errs := runCLI("neff", "lint", "--json", path)
		var l struct {
			FixedNS    int64 `json:"fixed_ns"`
			TransferNS int64 `json:"transfer_ns"`
		}
		if err := json.Unmarshal([]byte(js), &l); err != nil {
			t.Fatalf("lint: %v %s", err, errs)
		}
		return l.FixedNS + l.TransferNS
	}
	ba, bb := walkBytes(t, a), walkBytes(t, b)
	if bb != ba+3*65536 {
		t.Fatalf("the walk: %d → %d bytes, want three 64 KiB blocks more", ba, bb)
	}
	wantTotal := "total: 5 → 8 DMA words, " // the five triggers of Weights(hbm), three more
	wantBytes := fmt.Sprintf(" descriptors, %d → %d bytes, estimated DMA time %.3f → %.3f µs", ba, bb, float64(lintNS(a))/1000, float64(lintNS(b))/1000)
	if !strings.Contains(out, wantTotal) || !strings.Contains(out, wantBytes) {
		t.Errorf("want %q … %q in\n%s", wantTotal, wantBytes, out)
	}

	code, js, errs := runCLI("neff", "diff", "--json", a, b)
	if code != 1 {
		t.Fatalf("--json: exit %d %s", code, errs)
	}
	var r struct {
		Same    bool
		Renamed []struct{ A, B, Type string }
		Totals  struct{ A, B struct{ Bytes uint64 } }
		Blocks  []struct{ Block string }
	}
	if err := json.Unmarshal([]byte(js), &r); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, x := range r.Renamed {
		got[x.A] = x.B
	}
	if fmt.Sprint(got) != fmt.Sprint(names) || r.Totals.A.Bytes != ba || r.Totals.B.Bytes != bb || len(r.Blocks) != 3 || r.Same {
		t.Errorf("--json: renamed %v (want %v), totals %+v, blocks %+v", got, names, r.Totals, r.Blocks)
	}

	// the same build against itself: nothing renamed, the same
	if code, out, _ := runCLI("neff", "diff", b, b); code != 0 || strings.Contains(out, "renamed") || !strings.Contains(out, "the DMA is the same") {
		t.Errorf("b against b: exit %d\n%s", code, out)
	}
}

// A change of target is named, and is a difference.
func TestNEFFDiffTarget(t *testing.T) {
	a := writeNEFF(t, t.TempDir(), "a.neff", neffgen.Weights("cayman", false))
	b := writeNEFF(t, t.TempDir(), "b.neff", neffgen.Weights("sunda", false))
	code, out, errs := runCLI("neff", "diff", a, b)
	if code != 1 || !strings.Contains(out, "target CAYMAN → SUNDA") {
		t.Errorf("exit %d %s\n%s", code, errs, out)
	}
	code, js, _ := runCLI("neff", "diff", "--json", a, b)
	if code != 1 || !strings.Contains(js, `"target_a": "CAYMAN"`) || !strings.Contains(js, `"target_b": "SUNDA"`) {
		t.Errorf("--json: exit %d\n%s", code, js)
	}
}
