package cli

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"ndma/internal/samples"
)

// lowerPickJSON is what the tests read of `neff lower --json`.
type lowerPickJSON []struct {
	Subgraph, Engine string
	Words            []struct {
		Offset   int
		Mnemonic string
		Queue    string
		Queues   []struct {
			Descriptors []struct {
				Leg    string
				Length int
			}
		}
	}
}

func lowerPicked(t *testing.T, args ...string) lowerPickJSON {
	t.Helper()
	code, out, errs := runCLI(append([]string{"neff", "lower", "--json"}, args...)...)
	if code != 0 {
		t.Fatalf("lower --json %q: exit %d: %s", args, code, errs)
	}
	var j lowerPickJSON
	if err := json.Unmarshal([]byte(out), &j); err != nil {
		t.Fatal(err)
	}
	return j
}

// `neff lower --queue Q --block N` lists the one 0xc1 trigger firing
// block N of Q (issue 34 item 4). The expectation is an independent walk of
// the engine JSON members (plain maps): each block's engine and the bytes
// its descriptors move (the product of from_sizes, sizes[0] in bytes,
// neff.md §4.7), which the listed word's M2S descriptors must add up to.
func TestNEFFLowerPickBlock(t *testing.T) {
	path := hwNEFF(t)
	type block struct {
		engine, queue string
		id            int
		bytes         int
	}
	var blocks []block
	for _, m := range engineDMA(t, path) {
		engine := strings.ToLower(strings.TrimSuffix(m.name[strings.LastIndex(m.name, "/")+1:], ".json"))
		for _, b := range m.dma {
			n := 0
			for _, d := range b["desc"].([]any) {
				p := 1
				for _, v := range d.(map[string]any)["from_sizes"].([]any) {
					p *= int(v.(float64))
				}
				n += p
			}
			blocks = append(blocks, block{engine, b["queue"].(string), int(b["id"].(float64)), n})
		}
	}
	if len(blocks) != 6 {
		t.Fatalf("the vector add has 6 blocks, the walk found %d", len(blocks))
	}
	offsets := map[string]bool{}
	for _, b := range blocks {
		j := lowerPicked(t, "--queue", b.queue, "--block", fmt.Sprint(b.id), path)
		if len(j) != 1 || j[0].Engine != b.engine || len(j[0].Words) == 0 {
			t.Fatalf("%s block %d: want one %s stream, got %+v", b.queue, b.id, b.engine, j)
		}
		got := 0
		for _, w := range j[0].Words {
			if w.Queue != b.queue || w.Offset != j[0].Words[0].Offset || w.Mnemonic != "PSEUDO_DMA_TRIGGER" {
				t.Errorf("%s block %d: word %+v is not the one trigger's", b.queue, b.id, w)
			}
			for _, q := range w.Queues {
				for _, d := range q.Descriptors {
					if d.Leg == "M2S" {
						got += d.Length
					}
				}
			}
		}
		if got != b.bytes {
			t.Errorf("%s block %d: the trigger's descriptors move %d bytes, the block's JSON %d", b.queue, b.id, got, b.bytes)
		}
		at := fmt.Sprint(b.engine, j[0].Words[0].Offset)
		if offsets[at] {
			t.Errorf("%s block %d: its trigger %s fires another block too", b.queue, b.id, at)
		}
		offsets[at] = true
		// the plain listing shows the same one trigger
		code, out, errs := runCLI("neff", "lower", "--queue", b.queue, "--block", fmt.Sprint(b.id), path)
		if code != 0 || strings.Count(out, "# sg00 ") != 1 || !strings.Contains(out, fmt.Sprintf("== %#06x PSEUDO_DMA_TRIGGER\n# queue %s\n", j[0].Words[0].Offset, b.queue)) {
			t.Errorf("%s block %d: exit %d %s\n%s", b.queue, b.id, code, errs, out)
		}
	}
}

// --queue lists exactly the words of the full listing on that queue, and
// --offset the word disasm decodes there (two paths: the whole lowering
// filtered by the test, the decoder); on a real NEFF.
func TestNEFFLowerPickQueueOffset(t *testing.T) {
	path := samples.Path(t, "matmul_small.neff")
	full := lowerPicked(t, path)
	perQueue := map[string]int{}
	for _, s := range full {
		for _, w := range s.Words {
			perQueue[s.Subgraph+" "+w.Queue]++
		}
	}
	if len(perQueue) < 2 {
		t.Fatalf("matmul_small lowers words on %d queues", len(perQueue))
	}
	for key, n := range perQueue {
		sg, q, _ := strings.Cut(key, " ")
		j := lowerPicked(t, "--subgraph", sg, "--queue", q, path)
		got := 0
		for _, s := range j {
			for _, w := range s.Words {
				if w.Queue != q || s.Subgraph != sg {
					t.Errorf("--queue %s: listed %s %+v", q, s.Subgraph, w)
				}
				got++
			}
		}
		if got != n {
			t.Errorf("%s: --queue lists %d words, the full listing %d", key, got, n)
		}
	}
	code, out, errs := runCLI("neff", "disasm", "--json", "--subgraph", "sg00", "--engine", "pool", path)
	if code != 0 {
		t.Fatal(errs)
	}
	var dis []struct {
		Words []struct {
			Offset   int
			Mnemonic string
		}
	}
	if err := json.Unmarshal([]byte(out), &dis); err != nil || len(dis) != 1 || len(dis[0].Words) < 2 {
		t.Fatalf("disasm: %v %+v", err, dis)
	}
	for _, w := range dis[0].Words {
		j := lowerPicked(t, "--subgraph", "sg00", "--engine", "pool", "--offset", fmt.Sprintf("%#x", w.Offset), path)
		if len(j) != 1 || len(j[0].Words) == 0 {
			t.Fatalf("--offset %#x: %+v", w.Offset, j)
		}
		for _, lw := range j[0].Words {
			if lw.Offset != w.Offset || lw.Mnemonic != w.Mnemonic {
				t.Errorf("--offset %#x: listed %d %s, disasm has %s", w.Offset, lw.Offset, lw.Mnemonic, w.Mnemonic)
			}
		}
	}
	// between two words: the nearest offsets suggested
	a, b := dis[0].Words[0].Offset, dis[0].Words[1].Offset
	code, _, errs = runCLI("neff", "lower", "--subgraph", "sg00", "--engine", "pool", "--offset", fmt.Sprint(a+1), path)
	if want := fmt.Sprintf("(did you mean %#x or %#x?)", a, b); code != 2 || !strings.Contains(errs, want) {
		t.Errorf("--offset %d: exit %d, want %q in %s", a+1, code, want, errs)
	}
}

// Unknown names get the nearest and the list (internal/suggest); the
// queues are def.json's, read by the test.
func TestNEFFLowerPickErrors(t *testing.T) {
	path := hwNEFF(t)
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"--queue", "qSPIO"}, []string{`unknown queue "qSPIO" (did you mean qSPIO0?)`, "qPoolIO0", "qSPIO0"}},
		{[]string{"--queue", "qPoolIO0", "--engine", "sp"}, []string{"no word of the streams selected runs on queue qPoolIO0"}}, // a queue of sp's subgraph: known, unused by sp
		{[]string{"--queue", "qSPIO0", "--block", "7"}, []string{`unknown block "7" (did you mean 3?); valid: 0, 1, 2, 3 (queue qSPIO0`}},
		{[]string{"--block", "-1"}, []string{`--block "-1": want a dma[] block id`}},
		{[]string{"--offset", "0x41", "--engine", "sp"}, []string{`unknown word offset "0x41" (did you mean 0x40 or 0x80?); valid: 0x0, 0x40, 0x80, 0xc0`}},
		{[]string{"--offset", "zz"}, []string{`--offset "zz": want a word's byte offset`}},
		{[]string{"--queue", "qSPIO0", "--block", "1", "--offset", "0"}, []string{"the word at offset 0x0 fires no block 1 of queue qSPIO0"}},
		{[]string{"--engine", "sx"}, []string{`unknown engine "sx" (did you mean sp?)`}},
		{[]string{"--subgraph", "sg0"}, []string{`unknown subgraph "sg0" (did you mean sg00 or sg01?)`}},
	} {
		code, out, errs := runCLI(append(append([]string{"neff", "lower"}, tc.args...), path)...)
		if code != 2 || out != "" {
			t.Errorf("%q: exit %d, out %q", tc.args, code, out)
		}
		for _, w := range tc.want {
			if !strings.Contains(errs, w) {
				t.Errorf("%q: want %q in %s", tc.args, w, errs)
			}
		}
	}
}

// A plain `neff lower` lists a stream only when it lowers a word, and
// counts the others (issue 34 item 4), as --stats does: the streams listed
// are those whose --json words are not empty.
func TestNEFFLowerOmitsEmptyStreams(t *testing.T) {
	path := samples.Path(t, "matmul_small.neff")
	j := lowerPicked(t, path)
	var want []string
	empty := 0
	for _, s := range j {
		if len(s.Words) == 0 {
			empty++
			continue
		}
		want = append(want, s.Subgraph+" "+s.Engine)
	}
	code, out, errs := runCLI("neff", "lower", path)
	if code != 0 {
		t.Fatal(errs)
	}
	var got []string
	for _, l := range strings.Split(out, "\n") {
		if f := strings.Fields(l); len(f) == 4 && f[0] == "#" && strings.HasPrefix(f[1], "sg") {
			got = append(got, f[1]+" "+f[2])
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(want) || empty == 0 {
		t.Errorf("listed %q, want %q", got, want)
	}
	if tail := fmt.Sprintf("# %d streams lower no DMA word: not listed\n", empty); !strings.HasSuffix(out, tail) {
		t.Errorf("want the last line %q", tail)
	}
}
