package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ndma/asm"
	"ndma/isa"
)

// matrixWords is n words, each with problems on every generation (a
// transpose with a bad tile) or on some (a memcpy that is fine), as binary.
func matrixWords(tb testing.TB, n int) []byte {
	tb.Helper()
	src := ".gen cayman\n" + strings.Repeat(
		"dma_transpose tile_src_rows=8, tile_src_cols=128, in_dtype=bf16, out_dtype=bf16, src_step_elem=[2, 256], src_num_elem=[128, 64], tile_src_row_step=256, dst_start_addr=sbuf:0:0x4000, dst_step_elem=[2, 128], dst_num_elem=[64, 128]\n"+
			"dmamemcpy src_start_addr=hbm:0x0, src_step_elem=[4, 512], src_num_elem=[128, 1], src_elem_size=4, dst_start_addr=sbuf:0:0x0, dst_step_elem=[4, 512], dst_num_elem=[128, 1], dst_elem_size=4, in_dtype=FP32, out_dtype=FP32\n", n/2)
	obj, err := asm.Assemble("matrix.s", []byte(src), asm.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	return obj.Code
}

// BenchmarkValidateAllGens is `ndma validate --all-gens` on 8,000 words: each
// generation's problems are grouped by word once (issue 15, M4).
func BenchmarkValidateAllGens(b *testing.B) {
	for _, n := range []int{8000, 16000} {
		b.Run(fmt.Sprintf("words=%d", n), func(b *testing.B) {
			path := filepath.Join(b.TempDir(), "words.bin")
			if err := os.WriteFile(path, matrixWords(b, n), 0o644); err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				var out, errb bytes.Buffer
				if st := Main([]string{"validate", "--all-gens", path}, strings.NewReader(""), &out, &errb); st > 1 {
					b.Fatalf("status %d: %s", st, errb.String())
				}
			}
		})
	}
}

// M4: --all-gens --json is the matrix as JSON, each cell the count of that
// word's problems in `validate --gen G --json`; --strict makes a warning an
// error in the cells, the table and "ok"; the matrix exits 1 when a cell
// shows an error (issue 34), 0 when none does.
func TestValidateAllGensJSONStrict(t *testing.T) {
	src := ".gen cayman\n" +
		"pseudo_dma_direct2d src_start_addr=hbm:0x40, dst_start_addr=hbm:0x100, src_step_elem=[4, 16], dst_step_elem=[4, 16], src_num_elem=[4,1], dst_num_elem=[4,1], src_elem_size=4, dst_elem_size=4, in_dtype=fp32, out_dtype=fp32\n"
	obj, err := asm.Assemble("w.s", []byte(src), asm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	code := append(matrixWords(t, 6), obj.Code...)
	path := filepath.Join(t.TempDir(), "words.bin")
	if err := os.WriteFile(path, code, 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) (string, int) {
		var out, errb bytes.Buffer
		st := Main(append([]string{"validate"}, args...), strings.NewReader(""), &out, &errb)
		return out.String(), st
	}
	type cell struct {
		Errors, Warnings int
		OK               bool
	}
	var m struct {
		Words  int
		Strict bool
		Gens   []struct {
			Gen              string
			Errors, Warnings int
			OK               bool
			Problems         []struct{ Index int }
		}
		Matrix []struct {
			Index    int
			Mnemonic string
			Cells    map[string]cell
		}
	}
	for _, strict := range []bool{false, true} {
		args := []string{"--all-gens", "--json", path}
		if strict {
			args = append(args, "--strict")
		}
		out, st := run(args...)
		if err := json.Unmarshal([]byte(out), &m); err != nil {
			t.Fatalf("%v: not JSON (%v):\n%.300s", args, err, out)
		}
		wantSt := 0
		for _, r := range m.Matrix {
			for _, c := range r.Cells {
				if c.Errors > 0 || strict && c.Warnings > 0 {
					wantSt = 1
				}
			}
		}
		if st != wantSt {
			t.Fatalf("%v: status %d, want %d", args, st, wantSt)
		}
		if m.Words != 7 || len(m.Matrix) != 7 || len(m.Gens) != len(isa.Gens()) || m.Strict != strict {
			t.Fatalf("%v: words %d, %d rows, %d gens, strict %v", args, m.Words, len(m.Matrix), len(m.Gens), m.Strict)
		}
		for gi, g := range isa.Gens() {
			one, _ := run("--gen", g.String(), "--json", path)
			var single struct {
				Errors, Warnings int
				Problems         []struct {
					Index    int
					Severity string
				}
			}
			if err := json.Unmarshal([]byte(one), &single); err != nil {
				t.Fatal(err)
			}
			if m.Gens[gi].Gen != g.String() || m.Gens[gi].Errors != single.Errors || m.Gens[gi].Warnings != single.Warnings || len(m.Gens[gi].Problems) != len(single.Problems) {
				t.Fatalf("%v %s: summary %+v, single-generation run %d errors %d warnings", args, g, m.Gens[gi], single.Errors, single.Warnings)
			}
			want := make([]cell, 7)
			for _, p := range single.Problems {
				if p.Severity == "error" {
					want[p.Index].Errors++
				} else {
					want[p.Index].Warnings++
				}
			}
			for k := range want {
				want[k].OK = want[k].Errors == 0 && (!strict || want[k].Warnings == 0)
				if got := m.Matrix[k].Cells[g.String()]; got != want[k] {
					t.Fatalf("%v: word %d on %s: %+v, want %+v", args, k, g, got, want[k])
				}
			}
		}
		if pseudo := m.Matrix[6].Cells["CAYMAN"]; pseudo.Warnings != 1 || pseudo.Errors != 0 || pseudo.OK == strict {
			t.Fatalf("%v: the pseudo word's cell %+v", args, pseudo)
		}
	}
	out, st := run("--all-gens", path)
	if st != 1 || !strings.Contains(out, "0x0180  PSEUDO_DMA_DIRECT2D  ok+1w  ok+1w") {
		t.Fatalf("table (status %d):\n%s", st, out)
	}
	out, st = run("--all-gens", "--strict", path)
	if st != 1 || !strings.Contains(out, "0x0180  PSEUDO_DMA_DIRECT2D  1 err  1 err") {
		t.Fatalf("--strict table (status %d):\n%s", st, out)
	}
}
