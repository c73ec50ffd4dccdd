package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ndma/internal/neffgen"
)

// appendOffset is the listing's "== %#06x" built without fmt: it must be
// fmt's text for every offset a stream can hold (fmt pads the digits to six,
// not counting the 0x prefix).
func TestAppendOffsetIsFmt(t *testing.T) {
	for _, off := range []int{0, 1, 0x40, 0xfffff, 0x100000, 0x123456, 0xfffffff, 1<<40 + 3, -64} {
		if got, want := string(appendOffset(nil, off)), fmt.Sprintf("%#06x", off); got != want {
			t.Errorf("appendOffset(%#x) = %q, want %q", off, got, want)
		}
	}
}

// neff lower --json writes its words stream by stream; the bytes must be
// those of the whole document built first and written by writeJSON (as it
// was before it streamed): the same words, with --all and without, over a
// NEFF of two subgraphs.
func TestNEFFLowerJSONStreamsWriteJSON(t *testing.T) {
	raw, err := os.ReadFile(samplePath(t))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "s.neff")
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, all := range []bool{false, true} {
		var want bytes.Buffer
		doc := []lowerStreamJSON{}
		for _, st := range lowerRaw(t, raw) { // every word kept, then the document built whole
			j := lowerStreamJSON{Subgraph: st.sg.Name, Engine: st.en.Key, Instr: st.en.Instr, Words: []loweredWord{}}
			for i := range st.words {
				w := &st.words[i]
				j.Stats.add(w)
				if w.Skipped == "" || all {
					w.detail()
					j.Words = append(j.Words, *w)
				}
			}
			doc = append(doc, j)
		}
		if err := writeJSON(&want, doc); err != nil {
			t.Fatal(err)
		}
		args := []string{"neff", "lower", "--json", path}
		if all {
			args = append(args, "--all")
		}
		var so, se bytes.Buffer
		if code := Main(args, nil, &so, &se); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, se.String())
		}
		if !bytes.Equal(so.Bytes(), want.Bytes()) {
			t.Errorf("--all %v: streamed JSON (%d bytes) differs from writeJSON's (%d bytes)", all, so.Len(), want.Len())
		}
		if !json.Valid(so.Bytes()) {
			t.Errorf("--all %v: not valid JSON", all)
		}
	}
}

// A stream that fails to lower (a 0xd4 naming a variable def.json lacks:
// relocation refuses it, neff.md §9.6) prints nothing on stdout with --json,
// though the words before it lowered: the streamed document is never left
// half written.
func TestNEFFLowerJSONFailurePrintsNothing(t *testing.T) {
	p := neffgen.Inline(3)
	p.Subgraphs[0].Engines[0].Asm += "pseudo_dma_direct2d semaphore=24, sem_increment=16, src_start_addr=var(9), src_step_elem=[512, 1], src_num_elem=[128, 1], src_elem_size=512, " +
		"dst_start_addr=var(0), dst_step_elem=[0x40000, 1], dst_num_elem=[128, 1], dst_elem_size=512, in_dtype=FP16, out_dtype=FP16\n"
	raw, err := p.Build()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "bad.neff")
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	var so, se bytes.Buffer
	code := Main([]string{"neff", "lower", "--json", path}, nil, &so, &se)
	if code == 0 || so.Len() != 0 || !strings.Contains(se.String(), "offset 0xc0") || !strings.Contains(se.String(), "var 9") {
		t.Errorf("exit %d, stdout %d bytes, stderr %q: want a failure naming offset 0xc0 and var 9, nothing on stdout", code, so.Len(), se.String())
	}
}
