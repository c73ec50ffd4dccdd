package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"ndma/neff"
)

// `neff info` summarises each engine's dma[] blocks per queue and lists
// them with --blocks, each descriptor's from_off / to_off and the block's
// instruction (#comment) shown (issue 34 item 3). The expectation is an
// independent walk of the engine JSON members (plain maps, not ndma's block
// reader): blocks, descriptors and the bytes the sizes multiply to, per queue.
func TestNEFFInfoBlocks(t *testing.T) {
	path := hwNEFF(t)
	type qsum struct {
		blocks, descs int
		bytes         int64
	}
	var wantSummary, wantBlocks []string
	for _, m := range engineDMA(t, path) {
		sums, order := map[string]*qsum{}, []string(nil)
		for _, b := range m.dma {
			q := b["queue"].(string)
			if sums[q] == nil {
				sums[q], order = &qsum{}, append(order, q)
			}
			s := sums[q]
			s.blocks++
			descs := b["desc"].([]any)
			s.descs += len(descs)
			for _, d := range descs {
				d := d.(map[string]any)
				n := int64(1)
				for _, v := range d["from_sizes"].([]any) {
					n *= int64(v.(float64))
				}
				s.bytes += n
				if off, _ := d["from_off"].(float64); off != 0 {
					wantBlocks = append(wantBlocks, fmt.Sprintf("%s+%d sizes", d["from"], int64(off)))
				}
				if off, _ := d["to_off"].(float64); off != 0 {
					wantBlocks = append(wantBlocks, fmt.Sprintf("→ %s+%d sizes", d["to"], int64(off)))
				}
			}
			wantBlocks = append(wantBlocks, fmt.Sprintf("queue %s, id %d, instruction %s,", q, int(b["id"].(float64)), b["#comment"]))
		}
		for _, q := range order {
			s := sums[q]
			wantSummary = append(wantSummary, fmt.Sprintf("    queue %s: %d blocks, %d descriptors, %d bytes", q, s.blocks, s.descs, s.bytes))
		}
	}
	if len(wantSummary) != 2 || len(wantBlocks) < 8 {
		t.Fatalf("the vector add has blocks on two queues with offsets: %q %q", wantSummary, wantBlocks)
	}
	code, out, errs := runCLI("neff", "info", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, w := range wantSummary {
		if !strings.Contains(out, w) {
			t.Errorf("summary lacks %q:\n%s", w, out)
		}
	}
	if strings.Contains(out, "desc[0]") {
		t.Errorf("the summary lists descriptors:\n%s", out)
	}
	_, full, _ := runCLI("neff", "info", "--blocks", path)
	for _, w := range wantBlocks {
		if !strings.Contains(full, w) {
			t.Errorf("--blocks lacks %q:\n%s", w, full)
		}
	}
}

// Without --gen, neff info reads the file for its kelf target, named with
// its version and instance family, as every other neff command does; --gen
// still overrides it, and says so.
func TestNEFFInfoTargetDefault(t *testing.T) {
	path := vaddNEFF(t, "sunda")
	_, out, _ := runCLI("neff", "info", path)
	if !strings.Contains(out, "\ntarget sunda: SUNDA v2 (trn1/inf2)\n") || strings.Contains(out, "read as") {
		t.Errorf("neff info:\n%.400s", out)
	}
	_, out, _ = runCLI("neff", "info", "--gen", "trn2", path)
	if !strings.Contains(out, "\nwords read as CAYMAN v3 (trn2) (--gen)\n") {
		t.Errorf("neff info --gen trn2:\n%.400s", out)
	}
}

// memberDMA is one engine JSON member's dma[] blocks, as plain maps.
type memberDMA struct {
	name string // "sg00/SP.json"
	dma  []map[string]any
}

// engineDMA walks a NEFF's engine JSON members (not def.json) with a dma[]
// list as plain maps, independent of package neff's block reader (which
// only opens the container here).
func engineDMA(t *testing.T, path string) []memberDMA {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := neff.Parse(raw, neff.Options{}) // the container only: the members' bytes
	if err != nil {
		t.Fatal(err)
	}
	var out []memberDMA
	for _, m := range f.Members {
		if !strings.HasSuffix(m.Name, ".json") || strings.HasSuffix(m.Name, "def.json") {
			continue
		}
		var j struct {
			DMA []map[string]any `json:"dma"`
		}
		if json.Unmarshal(m.Data, &j) != nil || len(j.DMA) == 0 {
			continue
		}
		out = append(out, memberDMA{m.Name, j.DMA})
	}
	return out
}
