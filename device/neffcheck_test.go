package device

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"ndma/internal/neffgen"
	"ndma/isa"
	"ndma/neff"
)

// checkFile is checkWords over f's subgraphs, placed by Place: every word
// validated for gen, the §9.6 cross-checks and every block resolved —
// without what lower and run add (Check).
func checkFile(gen isa.Gen, f *neff.File) ([]neff.Problem, int, error) {
	sgs, err := f.Subgraphs()
	if err != nil {
		return nil, 0, err
	}
	place, err := Place(sgs)
	if err != nil {
		return nil, 0, err
	}
	ps, words := checkWords(gen, sgs, place)
	return ps, words, nil
}

// The word checks of the malformed NEFFs the reader leaves to the runtime:
// an engine stream that is not whole words, and, through checkWords as
// well as neff.Subgraph.CheckDef and Resolve, var id gaps and a trigger
// naming no queue — each located, never a panic.
func TestMalformedWords(t *testing.T) {
	good, err := neffgen.Triggered().Build()
	if err != nil {
		t.Fatal(err)
	}
	gaps := neffgen.Triggered()
	seven := 7
	gaps.Subgraphs[0].Vars[2].ID = &seven
	unknownQ := neffgen.Triggered()
	unknownQ.Subgraphs[0].Engines[0].Asm = `pseudo_dma_trigger dma_queue_name="q_missing"`
	short, err := neff.Parse(good, neff.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range short.Members {
		if short.Members[i].Name == "sg00/pool.bin" {
			short.Members[i].Data = []byte("\xc1\x10")
		}
	}
	for _, tc := range []struct {
		name string
		open func() (*neff.File, error)
		want string
	}{
		{"var id gaps", func() (*neff.File, error) { return gaps.Parse(neff.Options{}) }, `sg00 def.json: var ids are not dense 0..5: [2] missing; "gradient_in" has 7`},
		{"unknown queue", func() (*neff.File, error) { return unknownQ.Parse(neff.Options{}) }, `sg00 pool offset 0x0: PSEUDO_DMA_TRIGGER: queue "q_missing" is not in sg00/def.json dma_queue`},
		{"stream not whole words", func() (*neff.File, error) { return short, nil }, `sg00 pool:`},
	} {
		f, err := tc.open()
		if err != nil {
			t.Fatal(err)
		}
		ps, _, err := checkFile(isa.Cayman, f)
		if err == nil && len(ps) > 0 {
			err = errors.New(ps[0].String())
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v\nwant %q", tc.name, err, tc.want)
		}
	}
}

// FuzzNEFFCheck: any member bytes — def.json, a manifest, an engine's
// stream — in a NEFF through the reader and the runtime's checks —
// container, kelf, def.json, engine JSON, blocks, placement, every word
// checked and every trigger fired, every stream resolved and lowered
// (Check) — give a result or an error, never a panic. Structure-aware
// (neffgen.FuzzSeeds): mutating the gzip'd container itself reached
// nothing past its checksum. Seeds: synthetic NEFFs of both styles, the
// compute kernel and a gather.
func FuzzNEFFCheck(f *testing.F) {
	fuzzNEFFs(f, func(t *testing.T, nf *neff.File, sgs []neff.Subgraph) {
		checkFile(isa.Cayman, nf)
		Check(isa.Cayman, nf, sgs)
	})
}

// fuzzNEFFs runs fn on every fuzz input that opens as a NEFF: the seeds
// (synthetic NEFFs of both styles, the compute kernel and a gather),
// mutated structure-aware (neffgen.FuzzSeeds).
func fuzzNEFFs(f *testing.F, fn func(t *testing.T, nf *neff.File, sgs []neff.Subgraph)) {
	seeds, err := neffgen.NewFuzzSeeds(neffgen.Triggered(), neffgen.Inline(4), neffgen.HWVectorAdd("cayman"), neffgen.Gather(8, false))
	if err != nil {
		f.Fatal(err)
	}
	seeds.Each(func(which uint16, data []byte) { f.Add(which, data) })
	f.Fuzz(func(t *testing.T, which uint16, data []byte) {
		nf, sgs, err := neffgen.Open(seeds.NEFF(which, data), neff.Options{MaxInflated: 1 << 20})
		if err == nil {
			fn(t, nf, sgs)
		}
	})
}

// The allocator on matmul_small's sg00: SB at SBUF 0; x (65536), y (65536),
// output0 (32768) and the file variable (alignment 32768) in HBM in var_id
// order; the table unplaced. sg01 shares x, y and output0 with sg00 (one
// variable of the device) and its file variable follows sg00's.
func TestSamplePlace(t *testing.T) {
	_, sgs := openSample(t, "matmul_small.neff")
	place, err := Place(sgs)
	if err != nil {
		t.Fatal(err)
	}
	want := map[int]uint64{0: 0, 1: HBMBase, 2: HBMBase + 65536, 3: HBMBase + 131072, 4: HBMBase + 163840}
	if fmt.Sprint(place[0]) != fmt.Sprint(want) {
		t.Fatalf("placement %v, want %v", place[0], want)
	}
	if tb := sgs[0].Table(); fmt.Sprint(tb) != "[1 2 3]" {
		t.Fatalf("table %v", tb)
	}
	for _, v := range sgs[1].Variables() {
		if w, ok := sgs[0].Var(v.Name); ok && w.Type != "dge-table" && place[1][v.ID] != place[0][w.ID] {
			t.Errorf("sg01 %s at %#x, sg00's at %#x", v.Name, place[1][v.ID], place[0][w.ID])
		}
	}
}

// A 0xd4 whose sides move different byte counts and whose destination walk
// leaves its variable: both reported at the word (worked by hand: dst
// 256 elements of 128 B = 32768 B vs src 128 × 512 = 65536 B; the walk from
// x+0x100 at step 256 ends at 0x100 + 255·256 + 128 = 65664 > 65536).
func TestCheckPseudoWalk(t *testing.T) {
	p := neffgen.Inline(1)
	p.Subgraphs[0].Engines[0].Asm = "pseudo_dma_direct2d semaphore=24, sem_increment=16, src_start_addr=tbl(0), src_step_elem=[512, 1], src_num_elem=[128, 1], src_elem_size=512, " +
		"dst_start_addr=var(1)+0x100, dst_step_elem=[256, 1], dst_num_elem=[256, 1], dst_elem_size=128, in_dtype=FP16, out_dtype=FP16\n"
	f, err := p.Parse(neff.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ps, words, err := checkFile(isa.Cayman, f)
	if err != nil || words != 1 || len(ps) != 2 {
		t.Fatalf("%v: %d words, problems %v", err, words, ps)
	}
	for i, want := range []string{
		"sg00 pool offset 0x0: PSEUDO_DMA_DIRECT2D: has_equal_src_dst_bytes: dst_num_elem = 32768 bytes, must move as many bytes as the src: 65536",
		`sg00 pool offset 0x0: PSEUDO_DMA_DIRECT2D: dst_start_addr var 1 "x" + 0x100: the walk touches bytes 256..65664, the variable has 65536`,
	} {
		if !strings.HasPrefix(ps[i].String(), want) {
			t.Errorf("problem %d: %s\nwant %s", i, ps[i], want)
		}
	}
}

// The §9.6 address checks per arm: a table arm's walk against the variable
// the list names, the state-buffer against the SBUF map, a list entry
// naming no variable.
func TestCheckPseudoArms(t *testing.T) {
	const rows = "src_step_elem=[512, 1], src_num_elem=[128, 1], src_elem_size=512, dst_step_elem=[0x40000, 1], dst_num_elem=[128, 1], dst_elem_size=512, in_dtype=FP16, out_dtype=FP16"
	for _, tc := range []struct {
		arms string
		list []int
		want string
	}{
		{"src_start_addr=tbl(0)+0x100, dst_start_addr=var(0)", nil,
			`src_start_addr tbl(0) = var 1 "x" + 0x100: the walk touches bytes 256..65792, the variable has 65536`},
		{"src_start_addr=tbl(0), dst_start_addr=var(0)+0x3ff00", nil,
			`dst_start_addr var 0 "SB" + 0x3ff00: element (0, 0) at 0x3ff00 (512 bytes) is not inside one SBUF partition's 229376 active bytes`},
		{"src_start_addr=tbl(1), dst_start_addr=var(0)", []int{1, 9},
			"sg00 def.json: dge-table list[1] = 9 names no variable that holds bytes"},
		{"src_start_addr=tbl(1), dst_start_addr=var(0)", []int{1, 9},
			"src_start_addr names tbl(1) = var 9: not in def.json"},
	} {
		p := neffgen.Inline(1)
		if tc.list != nil {
			p.Subgraphs[0].Vars[3].List = tc.list
		}
		p.Subgraphs[0].Engines[0].Asm = "pseudo_dma_direct2d semaphore=24, sem_increment=16, " + tc.arms + ", " + rows + "\n"
		f, err := p.Parse(neff.Options{})
		if err != nil {
			t.Fatal(err)
		}
		ps, _, err := checkFile(isa.Cayman, f)
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, p := range ps {
			found = found || strings.Contains(p.String(), tc.want)
		}
		if !found {
			t.Errorf("%s: problems %v\nwant %q", tc.arms, ps, tc.want)
		}
	}
}

// A compute-on-DMA key ndma does not model refuses the descriptor by name;
// Check reports it, located, with the word-free block it concerns.
func TestStyleAUnmodelledKey(t *testing.T) {
	f, err := neffgen.VectorAdd("cayman", 1).Parse(neff.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range f.Members {
		if f.Members[i].Name == "sg00/SP.json" {
			f.Members[i].Data = bytes.Replace(f.Members[i].Data, []byte(`"op":"copy"`), []byte(`"op":"copy","scale":2`), 1)
		}
	}
	ps, _, err := checkFile(isa.Cayman, f)
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 1 || !strings.Contains(ps[0].String(), `sg00 sp: sg00/SP.json dma[0] (queue qSPIn, id 0) desc[0]: key "scale" (a compute-on-DMA option, docs/neff.md §4.5) is not modelled`) {
		t.Errorf("%v", ps)
	}
}

// Every §4.7 shape checks clean on its targets, its blocks' words valid.
func TestStyleAChecks(t *testing.T) {
	for _, target := range []string{"sunda", "cayman", "mariana", "maverick"} {
		for _, p := range []*neffgen.Program{neffgen.VectorAdd(target, 2), neffgen.Casts(target), neffgen.Transposes(target), neffgen.Weights(target, true)} {
			f, err := p.Parse(neff.Options{Strict: true})
			if err != nil {
				t.Fatal(err)
			}
			_, gen := f.Target()
			ps, words, err := checkFile(gen, f)
			if err != nil || len(ps) > 0 || words == 0 {
				t.Errorf("%s: %d words, %v %v", target, words, err, ps)
			}
		}
	}
}

// FuzzNEFFRunTimed: a mutated NEFF that checks clean runs on the engines
// under the time model — its fired blocks and inline DGE words on the
// packet-level model (sim's wordTransfer) — to a result or an error, never a
// panic; a result's kernel time is no earlier than its last transfer's end.
func FuzzNEFFRunTimed(f *testing.F) {
	fuzzNEFFs(f, func(t *testing.T, nf *neff.File, sgs []neff.Subgraph) {
		if probs, _, err := Check(isa.Cayman, nf, sgs); err != nil || len(probs) > 0 {
			return
		}
		im, err := Load(isa.Cayman, nf, sgs, nil)
		if err != nil {
			return
		}
		res, err := im.Run(NEFFOptions{Exec: Sim, DMAOnly: true, MaxRunBytes: 1 << 24, MaxMemory: 1 << 28})
		if err != nil || res == nil {
			return
		}
		for _, r := range res.Subgraphs {
			for _, mv := range r.Stats.Schedule {
				if mv.DueNS > r.Stats.TimeNS || mv.StartNS < mv.IssueNS && mv.Timed {
					t.Fatalf("%s %#x: %d→%d–%d, kernel time %d", mv.Stream, mv.Offset, mv.IssueNS, mv.StartNS, mv.DueNS, r.Stats.TimeNS)
				}
			}
		}
	})
}
