package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"ndma/internal/neffgen"
	"ndma/internal/samples"
)

// placeNEFFs are the NEFFs the placement test runs: both samples (skipped
// when absent, unless NDMA_REQUIRE_SAMPLES=1) and every synthetic shape
// neffgen builds — the §4.7 shapes of neffgen.Shapes (on CAYMAN; -short
// off, on every target too), hw-timing's two kernels and the indirect ones.
// A run that fails still lists its placement (runFails).
func placeNEFFs(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, name := range []string{"matmul_small.neff", "matmul_large.neff"} {
		t.Run("sample "+name, func(t *testing.T) { out[name] = samples.Path(t, name) })
	}
	dir := t.TempDir()
	write := func(name string, p *neffgen.Program) {
		raw, err := p.Build()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		path := filepath.Join(dir, name+".neff")
		if err := os.WriteFile(path, raw, 0o644); err != nil {
			t.Fatal(err)
		}
		out[name] = path
	}
	targets := []string{"cayman"}
	if !testing.Short() {
		targets = append(targets, "sunda", "mariana", "maverick")
	}
	for _, target := range targets {
		for _, s := range neffgen.Shapes(target) {
			p := s.Program
			p.Target = target
			write(s.Name+"-"+target, p)
		}
	}
	write("hw-vector-add", neffgen.HWVectorAdd("cayman"))
	write("hw-transpose", neffgen.HWTranspose("cayman"))
	write("gather", neffgen.Gather(4, true)) // out-of-bounds lanes skipped: random indices run
	write("gather-transpose", neffgen.GatherTranspose(4))
	return out
}

// runFails are the NEFFs whose run with neff run's random inputs fails —
// the gather-transpose's random row indices are out of its table's bounds
// — after the placement: their JSON still lists every variable.
var runFails = map[string]bool{"gather-transpose": true}

// varKey names one variable of a NEFF: its subgraph, var id and name.
type varKey struct {
	subgraph string
	id       int
	name     string
}

// `neff info --json` and `neff run --json` place every variable at the
// same address (issue 28 item 2: one allocator, device.Place): each JSON
// parsed on its own here, info's hex `address_text` and numeric `address` agree,
// and every variable either lists is at one address in both — on sg01 of
// matmul_large.neff too, whose spill variables once printed 8 MiB below
// where the run put them.
func TestNEFFInfoRunPlacement(t *testing.T) {
	for name, path := range placeNEFFs(t) {
		t.Run(name, func(t *testing.T) {
			code, out, errs := runCLI("neff", "info", "--json", path)
			if code != 0 {
				t.Fatalf("neff info: exit %d: %s", code, errs)
			}
			var info struct {
				Subgraphs []struct {
					Name      string `json:"name"`
					Variables []struct {
						ID      int     `json:"var_id"`
						Name    string  `json:"name"`
						Type    string  `json:"type"`
						Placed  string  `json:"address_text"`
						Address *uint64 `json:"address"`
					} `json:"variables"`
				} `json:"subgraphs"`
			}
			if err := json.Unmarshal([]byte(out), &info); err != nil {
				t.Fatalf("neff info --json: %v", err)
			}
			infoAt := map[varKey]uint64{}
			kinds := map[varKey]string{}
			for _, sg := range info.Subgraphs {
				for _, v := range sg.Variables {
					k := varKey{sg.Name, v.ID, v.Name}
					kinds[k] = v.Type
					if v.Placed == "" && v.Address == nil {
						continue
					}
					a, err := strconv.ParseUint(v.Placed, 0, 64)
					if err != nil || v.Address == nil || *v.Address != a {
						t.Fatalf("%v: address_text %q, address %v (%v)", k, v.Placed, v.Address, err)
					}
					infoAt[k] = a
				}
			}
			// a whole run, and a run of the last subgraph only (--subgraph): the
			// others are placed all the same
			last := info.Subgraphs[len(info.Subgraphs)-1].Name
			variants := [][]string{nil, {"--subgraph", last}}
			if testing.Short() && len(info.Subgraphs) == 1 {
				variants = variants[:1] // one subgraph: --subgraph runs the same
			}
			for _, args := range variants {
				code, out, errs = runCLI(append(append([]string{"neff", "run", "--json", "--dma-only"}, args...), path)...)
				if code != 0 && !runFails[name] || code == 0 && runFails[name] {
					t.Fatalf("neff run: exit %d: %s", code, errs)
				}
				var run struct {
					Status    string `json:"status"`
					Variables []struct {
						Subgraph string  `json:"subgraph"`
						ID       int     `json:"var_id"`
						Name     string  `json:"name"`
						Kind     string  `json:"kind"`
						Address  float64 `json:"address"` // a JSON number, as any reader takes it
					} `json:"variables"`
				}
				if err := json.Unmarshal([]byte(out), &run); err != nil {
					t.Fatalf("neff run --json: %v", err)
				}
				if want := map[bool]string{false: "ok", true: "error"}[runFails[name]]; run.Status != want {
					t.Errorf("run status %q, want %q", run.Status, want)
				}
				runAt := map[varKey]uint64{}
				for _, v := range run.Variables {
					k := varKey{v.Subgraph, v.ID, v.Name}
					if v.Kind != kinds[k] {
						t.Errorf("%v: kind %q in the run, %q in info", k, v.Kind, kinds[k])
					}
					runAt[k] = uint64(v.Address)
				}
				if len(runAt) == 0 || len(runAt) != len(infoAt) {
					t.Errorf("%d variables placed in info, %d in the run", len(infoAt), len(runAt))
				}
				for k, a := range infoAt {
					if r, ok := runAt[k]; !ok || r != a {
						t.Errorf("%s %s (var %d): info places it at %#x, the run at %s", k.subgraph, k.name, k.id, a, map[bool]string{true: fmt.Sprintf("%#x", r), false: "nothing"}[ok])
					}
				}
			}
		})
	}
}
