package inspect

import (
	"fmt"
	"strings"
	"testing"

	"ndma/internal/neffgen"
	"ndma/internal/samples/sampleneff"
	"ndma/isa"
	"ndma/neff"
)

func open(t *testing.T, p *neffgen.Program) []neff.Subgraph {
	t.Helper()
	_, sgs, err := p.Open(neff.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return sgs
}

// TestDiffToOff: moving one block's destination (neff.md §4.7: "from_off,
// to_off | a byte offset into the named variable, added to the walk") is a
// walk change of that block, named by key; nothing else differs.
func TestDiffToOff(t *testing.T) {
	a := open(t, neffgen.Weights("cayman", false))
	p := neffgen.Weights("cayman", false)
	p.Subgraphs[0].Engines[0].DMA[2].Desc[0].ToOff += 64 // qPoolData block 1: SB offset 16384 → 16448
	b := open(t, p)
	r, err := Diff(isa.Cayman, a, isa.Cayman, b)
	if err != nil {
		t.Fatal(err)
	}
	if r.Same || len(r.Blocks) != 1 || len(r.Variables) != 0 || len(r.Streams) != 0 {
		t.Fatalf("diff: %+v", r)
	}
	want := BlockDiff{Subgraph: "sg00", Engine: "pool", Block: "qPoolData block 1", Change: "walk changed", Details: []string{"desc[0] to_off 16384 → 16448"}}
	if got := r.Blocks[0]; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	same, err := Diff(isa.Cayman, a, isa.Cayman, open(t, neffgen.Weights("cayman", false)))
	if err != nil || !same.Same {
		t.Fatalf("a NEFF against its twin: %+v %v", same, err)
	}
}

// TestDiffInline: one more 0xd4 word is a word added on its queue — words,
// descriptors and bytes up by one word's (Inline: 128 rows of 512 bytes).
func TestDiffInline(t *testing.T) {
	r, err := Diff(isa.Cayman, open(t, neffgen.Inline(3)), isa.Cayman, open(t, neffgen.Inline(4)))
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Queues) != 1 || len(r.Blocks) != 1 || r.Blocks[0].Change != "added" || r.Blocks[0].Block != "PSEUDO_DMA_DIRECT2D at 0xc0" {
		t.Fatalf("diff: %+v", r)
	}
	q := r.Queues[0]
	if q.Queue != "qPoolDynamic" || q.A.Bytes != 3*65536 || q.B.Bytes != 4*65536 || q.B.Words["DMAMEMCPY"] != 4 {
		t.Fatalf("queue: %+v %+v %+v", q, q.A, q.B)
	}
}

// TestDiffSamples: the two samples (PROVENANCE.md: x[128,256] vs
// x[128,32768], fp16) differ in x's size; each is the same as itself.
func TestDiffSamples(t *testing.T) {
	read := func(name string) []neff.Subgraph {
		_, sgs := sampleneff.Open(t, name)
		return sgs
	}
	small, large := read("matmul_small.neff"), read("matmul_large.neff")
	r, err := Diff(isa.Cayman, small, isa.Cayman, large)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, v := range r.Variables {
		if v.Subgraph == "sg00" && v.Name == "x" {
			found = v.Change == "resized" && v.A == fmt.Sprintf("input %d bytes", 128*256*2) && v.B == fmt.Sprintf("input %d bytes", 128*32768*2)
		}
	}
	if r.Same || !found {
		t.Fatalf("small vs large: x not resized as PROVENANCE.md says: %+v", r.Variables)
	}
	if r, err := Diff(isa.Cayman, small, isa.Cayman, small); err != nil || !r.Same {
		t.Fatalf("a sample against itself: %v %v", err, r)
	}
	if !strings.Contains(fmt.Sprint(r.Queues), "qActDynamicHW") {
		t.Errorf("the large sample's ACT queue is not named: %+v", r.Queues)
	}
}

// TestDiffBrokenWord: a word of B that no longer resolves (it walks 512
// bytes past its variable, x of 65,536 bytes) is a problem only in B, not a
// word quietly gone: the diff is not the same, and says why B moves less.
// Its own reverse is a problem only in A.
func TestDiffBrokenWord(t *testing.T) {
	good := neffgen.Inline(2)
	bad := neffgen.Inline(2)
	asmText := bad.Subgraphs[0].Engines[0].Asm
	bad.Subgraphs[0].Engines[0].Asm = strings.Replace(asmText, "src_num_elem=[128, 1]", "src_num_elem=[129, 1]", 1)
	if bad.Subgraphs[0].Engines[0].Asm == asmText {
		t.Fatal("the word was not changed")
	}
	r, err := Diff(isa.Cayman, open(t, good), isa.Cayman, open(t, bad))
	if err != nil {
		t.Fatal(err)
	}
	if r.Same || len(r.Problems.A) != 0 || len(r.Problems.B) == 0 || !strings.Contains(strings.Join(r.Problems.B, "\n"), "offset 0x0") {
		t.Fatalf("problems %+v, same %v", r.Problems, r.Same)
	}
	back, err := Diff(isa.Cayman, open(t, bad), isa.Cayman, open(t, good))
	if err != nil || len(back.Problems.A) != len(r.Problems.B) || len(back.Problems.B) != 0 {
		t.Fatalf("reverse: %+v %v", back.Problems, err)
	}
	if self, err := Diff(isa.Cayman, open(t, bad), isa.Cayman, open(t, bad)); err != nil || !self.Same {
		t.Fatalf("a broken NEFF against itself: %+v %v", self, err)
	}
}
