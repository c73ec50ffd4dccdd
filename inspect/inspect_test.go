package inspect

import (
	"encoding/json"
	"fmt"
	"path"
	"strings"
	"testing"

	"ndma/internal/neffgen"
	"ndma/internal/samples"
	"ndma/internal/samples/sampleneff"
	"ndma/isa"
	"ndma/neff"
)

// rawDesc is the test's own reading of a dma[] descriptor's JSON (neff.md
// §4.5/§4.7), independent of package neff's resolver.
type rawDesc struct {
	From, To             string
	FromOff              int64   `json:"from_off"`
	ToOff                int64   `json:"to_off"`
	FromSizes, FromSteps []int64 `json:"-"`
	FS                   []int64 `json:"from_sizes"`
	FSt                  []int64 `json:"from_steps"`
	TS                   []int64 `json:"to_sizes"`
	TSt                  []int64 `json:"to_steps"`
	FromDtype            string  `json:"from_dtype"`
	ToDtype              string  `json:"to_dtype"`
	TransposeOp          string  `json:"transpose_op"`
}

type rawBlock struct {
	Queue string    `json:"queue"`
	ID    int       `json:"id"`
	Desc  []rawDesc `json:"desc"`
}

// jsonBlocks reads every engine JSON member's dma list straight from the
// container's members.
func jsonBlocks(t *testing.T, f *neff.File) map[string][]rawBlock {
	t.Helper()
	out := map[string][]rawBlock{} // subgraph dir → blocks
	for _, m := range f.Members {
		if !strings.HasSuffix(m.Name, ".json") || strings.HasSuffix(m.Name, "def.json") {
			continue
		}
		var j struct {
			DMA []rawBlock `json:"dma"`
		}
		if json.Unmarshal(m.Data, &j) != nil || len(j.DMA) == 0 {
			continue
		}
		dir := path.Dir(m.Name)
		out[dir] = append(out[dir], j.DMA...)
	}
	return out
}

// runs is the contiguous runs of a side's byte walk, each cut at 64 KiB
// (neff.md §4.8: "one descriptor moves at most 64 KiB"), split first into
// parts equal consecutive chunks of the walk.
func runs(offs []int64, parts int) int {
	n := 0
	per := len(offs) / parts
	for c := 0; c < parts; c++ {
		chunk := offs[c*per : (c+1)*per]
		runLen := int64(0)
		for i := range chunk {
			if i == 0 || chunk[i] != chunk[i-1]+1 || runLen == 64<<10 {
				n++
				runLen = 0
			}
			runLen++
		}
	}
	return n
}

// TestBudgetIndependent holds BudgetOf to a count from the descriptor JSON:
// each side's byte walk (samples.Walk, neff.md §4.7: "sizes[0] … bytes on
// each side") cut into contiguous runs of at most 64 KiB — one data
// descriptor each (§4.8: "a copy is one M2S + one S2M descriptor") — on
// each channel the transfer is split over, and one completion per channel.
// The channel split is how the runtime places a fired block (docs/hw-timing.md
// §2.1, C6: "each descriptor is spread over all 16 engines separately"),
// on SUNDA as on CAYMAN: a descriptor of one dtype on both sides goes to
// min(16, P) engines along the P SBUF partitions it spans, or — DRAM to
// DRAM — along its outermost size of more than one row; a cast (different
// element sizes) stays on one. Ring bytes are 16 per entry (§4.8:
// "descriptor size | 16 bytes"), a ring a multiple of 16, at least 32.
func TestBudgetIndependent(t *testing.T) {
	for _, target := range []string{"cayman", "sunda"} {
		for _, s := range neffgen.Shapes(target) {
			if s.Name == "transposes" || s.Name == "inline" {
				continue // tiles move element by element or by the DRE; TestLintShapes covers them
			}
			f, sgs, err := s.Program.Open(neff.Options{})
			if err != nil {
				t.Fatal(s.Name, err)
			}
			gen := isa.Cayman
			if target == "sunda" {
				gen = isa.Sunda
			}
			b, err := BudgetOf(gen, sgs)
			if err != nil {
				t.Fatal(s.Name, err)
			}
			if len(b.Problems) > 0 {
				t.Fatalf("%s: %v", s.Name, b.Problems)
			}
			type want struct{ m2s, s2m, done int }
			exp := map[string]*want{}
			for dir, blocks := range jsonBlocks(t, f) {
				for _, blk := range blocks {
					for _, d := range blk.Desc {
						src := samples.Walk(d.FromOff, d.FS, d.FSt)
						dst := samples.Walk(d.ToOff, d.TS, d.TSt)
						parts := 1
						switch {
						case d.FromDtype != d.ToDtype: // a cast: one engine
						case d.From == "SB" || d.To == "SB":
							sb := src
							if d.To == "SB" {
								sb = dst
							}
							seen := map[int64]bool{}
							for _, o := range sb {
								seen[o>>18] = true
							}
							parts = min(16, len(seen))
						default: // DRAM to DRAM: the outermost size of more than one row
							for k := len(d.FS) - 1; k >= 1; k-- {
								if d.FS[k] > 1 {
									parts = min(16, int(d.FS[k]))
									break
								}
							}
						}
						k := dir + " " + blk.Queue
						if exp[k] == nil {
							exp[k] = &want{}
						}
						exp[k].m2s += runs(src, parts)
						exp[k].s2m += runs(dst, parts)
						exp[k].done += parts
					}
				}
			}
			got := map[string]bool{}
			for _, q := range b.Queues {
				for _, in := range q.Instances {
					k := q.Subgraph + " " + q.Queue
					w := exp[k]
					if w == nil {
						t.Fatalf("%s %s: budget has a queue the JSON has no block for", s.Name, k)
					}
					got[k] = true
					if in.M2S != w.m2s || in.S2M != w.s2m || in.Completions != w.done || in.Descriptors != w.m2s+w.s2m+w.done {
						t.Errorf("%s %s %s: M2S %d S2M %d completions %d (total %d), want %d %d %d", target, s.Name, k, in.M2S, in.S2M, in.Completions, in.Descriptors, w.m2s, w.s2m, w.done)
					}
					var bytes int64
					for _, r := range in.Rings {
						n := max(r.M2S, r.S2M)
						e := max(32, (n+15)/16*16)
						if r.Entries != e {
							t.Errorf("%s %s DMA[%d]: %d entries for %d descriptors, want %d", s.Name, k, r.DMA, r.Entries, n, e)
						}
						bytes += int64(e) * 2 * 16
					}
					if in.RingBytes != bytes {
						t.Errorf("%s %s: ring bytes %d, want %d", s.Name, k, in.RingBytes, bytes)
					}
				}
			}
			for k := range exp {
				if !got[k] {
					t.Errorf("%s %s: blocks in the JSON, none in the budget", s.Name, k)
				}
			}
		}
	}
}

// TestWeightsFlagged: the 16,384 × 4-byte weight copy (neff.md §4.7: "a
// weight copy from_sizes [4, 128, 128], from_steps [1, 36, 9216] is 16,384
// runs of 4 bytes") is flagged — §4.8: "< 256 B per partition:
// overhead-bound … the profiler flags "small DMA transfers" below 4 KiB
// contiguous payload".
func TestWeightsFlagged(t *testing.T) {
	_, sgs, err := neffgen.Weights("cayman", false).Open(neff.Options{})
	if err != nil {
		t.Fatal(err)
	}
	a, err := Analyze(isa.Cayman, sgs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	l := LintOf(a)
	var small *Finding
	for i := range l.Findings {
		if l.Findings[i].Kind == KindSmallDescriptors {
			small = &l.Findings[i]
		}
	}
	if small == nil || small.First[0].Text != "sg00 pool 0x0 qPoolIn block 0 word 0 (16384 of 16384 descriptors)" {
		t.Fatalf("the weight copy is not flagged first: %+v", small)
	}
	// the same place as fields (docs/json.md): block 0's word 0 of qPoolIn, at offset 0 of pool
	if p := small.First[0]; p.Subgraph != "sg00" || p.Engine != "pool" || p.Offset != 0 || p.Queue != "qPoolIn" ||
		p.Block == nil || *p.Block != 0 || p.Word == nil || *p.Word != 0 || p.Detail != "16384 of 16384 descriptors" {
		t.Fatalf("the place's fields: %+v", p)
	}
	var in *QueueLint
	for i := range l.Queues {
		if l.Queues[i].Queue == "qPoolIn" {
			in = &l.Queues[i]
		}
	}
	// 16,384 source runs of 4 bytes: every one under 512 bytes
	if in == nil || in.Histogram.Under512 != 16384 || in.Histogram.Total() != 16384 {
		t.Fatalf("qPoolIn histogram: %+v", in)
	}
	// §4.8: "~1.3 µs per transfer (cross-engine semaphore to start); ~600 ns per
	// hardware-DGE instruction" — a fired block's descriptors are built at
	// load ("DGE mode none"), so its one word pays the 1.3 µs alone
	if in.OverheadShare <= 0 || in.OverheadShare >= 1 || in.FixedNS != 1300 ||
		in.OverheadShare != float64(in.FixedNS)/float64(in.FixedNS+in.TransferNS) {
		t.Fatalf("qPoolIn time: %+v", in)
	}
}

// TestLintShapes runs lint and the budget over every synthetic shape on
// every style-A target and the samples: nothing refused, every word's
// histogram counts its descriptors, the aggregated findings at most
// FirstPlaces places each.
func TestLintShapes(t *testing.T) {
	check := func(name string, gen isa.Gen, sgs []neff.Subgraph) (*Lint, *Analysis) {
		a, err := Analyze(gen, sgs, Options{})
		if err != nil {
			t.Fatal(name, err)
		}
		l := LintOf(a)
		if len(l.Problems) > 0 {
			t.Errorf("%s: %v", name, l.Problems)
		}
		sum := 0
		for _, q := range l.Queues {
			sum += q.Histogram.Total()
		}
		if sum != l.Histogram.Total() {
			t.Errorf("%s: queue histograms %d, total %d", name, sum, l.Histogram.Total())
		}
		for _, f := range l.Findings {
			if len(f.First) > FirstPlaces || len(f.First) > f.Count || f.Fix == "" {
				t.Errorf("%s: finding %+v", name, f)
			}
		}
		return l, a
	}
	for _, target := range []struct {
		name string
		gen  isa.Gen
	}{{"cayman", isa.Cayman}, {"sunda", isa.Sunda}} {
		for _, s := range neffgen.Shapes(target.name) {
			if s.Name == "inline" && target.gen == isa.Sunda {
				continue // its 0xd4 words are CAYMAN's (the kelf says cayman)
			}
			_, sgs, err := s.Program.Open(neff.Options{})
			if err != nil {
				t.Fatal(err)
			}
			check(target.name+" "+s.Name, target.gen, sgs)
		}
	}
	for _, name := range []string{"matmul_small.neff", "matmul_large.neff"} {
		f, sgs := sampleneff.Open(t, name)
		l, a := check(name, isa.Cayman, sgs)
		b, err := BudgetFrom(a)
		if err != nil {
			t.Fatal(err)
		}
		// the inline words are every 0xd4 of the engine streams: counted
		// straight from the .bin members (neff.md §5.1: 64-byte words, byte 0 the opcode)
		want := 0
		for _, m := range f.Members {
			if strings.HasSuffix(m.Name, ".bin") && len(m.Data)%64 == 0 {
				for o := 0; o < len(m.Data); o += 64 {
					if m.Data[o] == 0xd4 {
						want++
					}
				}
			}
		}
		got := 0
		for _, q := range b.Queues {
			got += q.DGEWords
			if q.Descriptors != 0 {
				t.Errorf("%s %s: %d load-time descriptors; the samples have no dma[] blocks", name, q.Queue, q.Descriptors)
			}
		}
		if got != want || l.Words != want {
			t.Errorf("%s: budget %d DGE words, lint %d words, the streams hold %d 0xd4 words", name, got, l.Words, want)
		}
	}
}

// TestBudgetQueues: neff.md §4.8 — "16 DMA engines per NeuronCore, 16
// queues per engine; queue 15 of every engine reserved for collectives;
// queue 14 reserved for the NX cores on some engines (… v3: 0–4, 7, 8)".
// A subgraph of 15 queues of 16 engines each needs 15 queues on every
// engine: one too many on engine 0 (14 left), exactly enough on engine 5
// (15 left): engines 0–4, 7 and 8 are over. A block named for queue instance 1 (`<queue>_defId_1`, neff.md
// §4.4) is budgeted apart from instance 0 and takes a queue of its own.
func TestBudgetQueues(t *testing.T) {
	p := neffgen.VectorAdd("cayman", 1)
	g := &p.Subgraphs[0]
	for i := 0; i < 13; i++ { // with qSPIn and qSPOut: 15
		g.Queues[fmt.Sprintf("qExtra%d", i)] = neffgen.Queue{Owner: "sp", Type: "data", Set: neffgen.SetOf(100 + i)}
	}
	b, err := BudgetOf(isa.Cayman, open(t, p))
	if err != nil {
		t.Fatal(err)
	}
	nx := []int{0, 1, 2, 3, 4, 7, 8}
	if len(b.Problems) != len(nx) {
		t.Fatalf("problems: %v", b.Problems)
	}
	for i, e := range nx {
		if !strings.HasPrefix(b.Problems[i], fmt.Sprintf("sg00 DMA engine %d: 15 queues needed, 14 left", e)) {
			t.Errorf("problem %d: %s", i, b.Problems[i])
		}
	}
	for _, e := range b.Engines {
		want := map[bool]int{true: 14, false: 15}[e.DMA <= 4 || e.DMA == 7 || e.DMA == 8]
		if e.Used != 15 || e.Available != want {
			t.Errorf("engine %+v, want 15 used of %d", e, want)
		}
	}

	p = neffgen.VectorAdd("cayman", 1)
	sp := &p.Subgraphs[0].Engines[1]
	extra := sp.DMA[0]
	extra.Queue, extra.ID = "qSPIn_defId_1", 0
	sp.DMA = append(sp.DMA, extra)
	b, err = BudgetOf(isa.Cayman, open(t, p))
	if err != nil || len(b.Problems) > 0 {
		t.Fatal(err, b.Problems)
	}
	for _, q := range b.Queues {
		if q.Queue != "qSPIn" {
			continue
		}
		if len(q.Instances) != 2 || q.Instances[1].Instance != 1 || q.Instances[1].Blocks != 1 || q.Instances[0].Blocks != 4 ||
			q.Instances[1].Descriptors != q.Instances[0].Descriptors/4 {
			t.Fatalf("instances: %+v", q.Instances)
		}
	}
	if b.Engines[0].Used != 3 { // qSPIn instances 0 and 1, qSPOut
		t.Errorf("engine 0: %+v", b.Engines[0])
	}
}
