package sdma

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rogpeppe/go-internal/txtar"

	"ndma/dge"
	"ndma/isa"
)

var update = flag.Bool("update", false, "rewrite testdata/dumps.txtar from the current output (ndma's own dump format)")

// goldenWords are one word per resolved kind: the two worked examples of
// source document 003 (§7.2, §8) and an indirect gather and a gather
// transpose of 16 rows.
var goldenWords = []struct{ name, src string }{
	{"direct2d", `dmamemcpy semaphore=10, sem_increment=1, src_start_addr=hbm:0x0, src_step_elem=[4, 512], src_num_elem=[128, 1],
  src_elem_size=4, dst_start_addr=sbuf:0:0x0, dst_step_elem=[4, 512], dst_num_elem=[128, 1], dst_elem_size=4, in_dtype=FP32, out_dtype=FP32`},
	{"transpose", `dma_transpose semaphore=3, in_dtype=bf16, out_dtype=bf16, src_start_addr=sbuf:0:0x0, src_step_elem=[2, 256],
  src_num_elem=[128, 64], tile_src_row_step=256, tile_src_rows=16, tile_src_cols=128, dst_start_addr=sbuf:0:0x8000,
  dst_step_elem=[2, 128], dst_num_elem=[64, 128]`},
	{"indirect", `dma_indirect semaphore=5, sem_increment=1, idx_num_active_channels=128, indirect_mode=SRC, idx_bound_is_err=1,
  src_start_addr=hbm:0x0, src_step_elem=512, src_num_elem=128, src_elem_size=512, dst_start_addr=sbuf:0:0x30000,
  dst_step_elem=0x40000, dst_num_elem=8, dst_elem_size=512, src_idx_start_addr=sbuf:0:0x2000, in_dtype=fp16, out_dtype=fp16`},
	{"gather_transpose", `dma_gather_transpose semaphore=6, idx_num_active_channels=128, src_start_addr=hbm:0x0,
  src_step_elem=[2, 256], src_num_elem=[128, 16], src_idx_start_addr=sbuf:0:0x100, dst_start_addr=sbuf:0:0x1000,
  dst_step_elem_1=32, dst_num_elem=[16, 4], elem_size=8, dtype_lo=bf16, dtype_hi=bf16, gather_dim=Y`},
	// issue 16: a scatter's rows are its dst elements (GENERATE WR); a copy over 16
	// partitions fans out over two DMAs, each with its own context line
	{"scatter", `dma_indirect semaphore=7, sem_increment=1, idx_num_active_channels=128, indirect_mode=DST, scatter_dim=Z,
  non_unique_dst_idx=1, src_start_addr=sbuf:0:0x0, src_step_elem=64, src_num_elem=4, src_elem_size=64,
  dst_start_addr=hbm:0x1000, dst_step_elem=64, dst_num_elem=16, dst_elem_size=64, dst_idx_start_addr=sbuf:0:0x2000,
  in_dtype=fp16, out_dtype=fp16`},
	{"copy16partitions", `dmamemcpy semaphore=1, sem_increment=2, src_start_addr=sbuf:0:0x0, src_step_elem=[4, 0x40000],
  src_num_elem=[64, 16], src_elem_size=4, dst_start_addr=sbuf:16:0x1000, dst_step_elem=[4, 0x40000], dst_num_elem=[64, 16],
  dst_elem_size=4, in_dtype=FP32, out_dtype=FP32`},
}

// Golden dumps of every resolved word kind × generation × backend: the
// firmware-format trace and the descriptor listing. The format is ndma's own
// output, so -update may refresh it; the meaning is held by the walker tests
// and the 003 §7.2/§8 value tests.
func TestGoldenDumps(t *testing.T) {
	got := &txtar.Archive{Comment: []byte("Lowering dumps: word kind / generation / backend (go test ./sdma -run GoldenDumps -update).\n")}
	for _, w := range goldenWords {
		for _, g := range isa.Gens() {
			for _, b := range []dge.Backend{dge.Auto, dge.Pool, dge.Software, dge.RTL} {
				var out []byte
				p, err := dge.Lower(ptr(decodeText(t, g, w.src)), g, dge.Options{Backend: b})
				if err != nil {
					out = fmt.Appendf(out, "error: %v\n", err)
				} else {
					lw, err := Expand(p, Options{})
					if err != nil {
						out = p.AppendDump(out)
						out = fmt.Appendf(out, "error: %v\n", err)
					} else {
						out = lw.AppendTrace(out)
						out = lw.AppendListing(out)
					}
				}
				got.Files = append(got.Files, txtar.File{Name: fmt.Sprintf("%s/%s/%s", w.name, strings.ToLower(g.String()), b), Data: out})
			}
		}
	}
	const path = "testdata/dumps.txtar"
	if *update {
		if err := os.WriteFile(path, txtar.Format(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := txtar.ParseFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	wantBy := map[string]string{}
	for _, f := range want.Files {
		wantBy[f.Name] = string(f.Data)
	}
	for _, f := range got.Files {
		if d := cmp.Diff(wantBy[f.Name], string(f.Data)); d != "" {
			t.Errorf("%s (-want +got):\n%s", f.Name, d)
		}
	}
	if len(want.Files) != len(got.Files) {
		t.Errorf("%d golden dumps, %d produced", len(want.Files), len(got.Files))
	}
}

func ptr(in isa.Inst) *isa.Inst { return &in }

func decodeText(t *testing.T, g isa.Gen, src string) isa.Inst {
	t.Helper()
	in := word(t, isa.Cayman, src) // assembled with the v2–v4 map, as the goldens are
	in.Gen = g
	return in
}
