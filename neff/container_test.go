package neff_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"ndma/internal/neffgen"
	"ndma/internal/samples"
	"ndma/isa"
	"ndma/neff"
)

// build writes p or fails the test.
func build(t testing.TB, p *neffgen.Program) []byte {
	t.Helper()
	b, err := p.Build()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Every malformed-container path of the issue gives an error naming what
// and where — Parse, Subgraphs, CheckDef or a trigger's Resolve, whichever
// meets it first — and never a panic. (A stream that is not whole words is
// the runtime's check: device's TestMalformedWords.)
func TestMalformed(t *testing.T) {
	good := build(t, styleA())
	mut := func(f func(b []byte) []byte) []byte { return f(bytes.Clone(good)) }
	withExtra := func(ms ...neff.Member) []byte {
		p := styleA()
		p.Extra = ms
		return build(t, p)
	}
	gaps := styleA()
	seven := 7
	gaps.Subgraphs[0].Vars[2].ID = &seven
	unknownQ := styleA()
	unknownQ.Subgraphs[0].Engines[0].Asm = `pseudo_dma_trigger dma_queue_name="q_missing"`
	noDef := styleA()
	noDef.Subgraphs[0].Name = "sg00"
	for _, tc := range []struct {
		name string
		b    []byte
		want string
	}{
		{"short file", good[:700], "700 bytes: a NEFF has a 1024-byte header"},
		{"bad header size", mut(func(b []byte) []byte { b[8] = 0; b[9] = 2; return b }), "header_size (offset 0x8) = 0x200, want 0x400"},
		{"bad gzip", mut(func(b []byte) []byte { b[0x400+40] ^= 0xff; b[0x400+41] ^= 0xff; return b }), "payload (offset 0x400): gzip"},
		{"gzip magic only", mut(func(b []byte) []byte { copy(b[0x400+3:], make([]byte, 20)); return b }), "payload (offset 0x400)"},
		{"trailing garbage", append(bytes.Clone(good), "junk"...), "4 bytes after the payload at file offset"},
		{"tar with ..", withExtra(neff.Member{Name: "../evil", Data: []byte("x")}), `tar member "../evil": path is empty, absolute or climbs out with ..`},
		{"absolute name", withExtra(neff.Member{Name: "/etc/passwd", Data: []byte("x")}), `tar member "/etc/passwd"`},
		{"duplicate names", withExtra(neff.Member{Name: "./sg00/def.json", Data: []byte("{}")}), `tar member "sg00/def.json": duplicate tar member`},
		{"missing def.json", func() []byte {
			f, _ := neff.Parse(good, neff.Options{})
			var ms []neff.Member
			for _, m := range f.Members {
				if m.Name != "sg00/def.json" {
					ms = append(ms, m)
				}
			}
			b, _ := neff.Build(ms, neff.WriteOptions{})
			return b
		}(), `kelf-0.json: graph "sg00": no member "sg00/def.json"`},
		{"var id gaps", build(t, gaps), `sg00 def.json: var ids are not dense 0..5: [2] missing; "gradient_in" has 7`},
		{"unknown queue", build(t, unknownQ), `sg00 pool offset 0x0: PSEUDO_DMA_TRIGGER: queue "q_missing" is not in sg00/def.json dma_queue`},
		{"bad engine JSON", replace(t, good, "sg00/pool.json", `{"instr": "pool.bin", "dma": [{"queue": "q"}]}`), `sg00/pool.json dma[0] (queue q): no id`},
		{"engine JSON not JSON", replace(t, good, "sg00/pool.json", `{"instr": `), `sg00/pool.json: unexpected end of JSON input`},
	} {
		err := open3(tc.b)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v\nwant %q", tc.name, err, tc.want)
		}
	}
}

// replace is the NEFF b with member name's bytes replaced.
func replace(t *testing.T, b []byte, name, data string) []byte {
	f, err := neff.Parse(b, neff.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range f.Members {
		if f.Members[i].Name == name {
			f.Members[i].Data = []byte(data)
		}
	}
	out, err := neff.Build(f.Members, neff.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// styleA is neffgen.Triggered: the C08220 shape of neff.md §4.5/§5.2.
func styleA() *neffgen.Program { return neffgen.Triggered() }

// styleB is neffgen.Inline(n), built.
func styleB(t testing.TB, n int) []byte { return build(t, neffgen.Inline(n)) }

// open3 runs the reader end to end: Parse, Subgraphs, each subgraph's
// CheckDef and every trigger's Resolve; the first error or problem comes
// back as an error.
func open3(b []byte) error {
	f, err := neff.Parse(b, neff.Options{MaxInflated: 1 << 24})
	if err != nil {
		return err
	}
	sgs, err := f.Subgraphs()
	if err != nil {
		return err
	}
	for i := range sgs {
		sg := &sgs[i]
		if ps := sg.CheckDef(); len(ps) > 0 {
			return errors.New(ps[0].String())
		}
		if err := resolveAll(sg); err != nil {
			return err
		}
	}
	return nil
}

// resolveAll resolves every PSEUDO_DMA_TRIGGER of sg's streams (the words
// decoded for their fields only); the first failure is located as
// device.Check locates it.
func resolveAll(sg *neff.Subgraph) error {
	for e := range sg.Engines {
		en := &sg.Engines[e]
		d := isa.NewDecoder(isa.Cayman, en.Code)
		for d.Next() {
			if d.Inst().Opcode() != isa.OpPseudoDMATrigger {
				continue
			}
			if _, err := sg.Resolve(en, d.Inst()); err != nil {
				return fmt.Errorf("%s %s offset %#x: PSEUDO_DMA_TRIGGER: %w", sg.Name, en.Key, d.Offset(), err)
			}
		}
	}
	return nil
}

// FuzzNeff: any bytes through the whole reader — container, kelf, def.json,
// engine JSON, blocks, the def.json checks, every trigger resolved — give a
// result or an error, never a panic (device's FuzzNEFFCheck goes on to the
// words). Seeds: synthetic NEFFs of both styles, every
// dialect, and the real sample when it is there (read in place; corpus
// entries grown from it are not committed — the sample stays outside).
func FuzzNeff(f *testing.F) {
	f.Add(build(f, styleA()))
	p := styleA()
	p.Write.Raw = true
	f.Add(build(f, p))
	b := styleB(f, 4)
	f.Add(b)
	if s, err := os.ReadFile(filepath.Join(samples.Dir(), "matmul_small.neff")); err == nil { // $NDMA_NEFF_SAMPLES, as every sample test
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		nf, err := neff.Parse(b, neff.Options{MaxInflated: 1 << 20})
		if err != nil {
			return
		}
		nf.Tensors()
		nf.Target()
		sgs, err := nf.Subgraphs()
		if err != nil {
			return
		}
		for i := range sgs {
			sgs[i].CheckDef()
			resolveAll(&sgs[i])
		}
	})
}

// A zip bomb is refused from its tar header: a 64 MiB member (64 KiB of
// gzip) against a 1 MiB cap fails with ErrTooLarge having allocated far
// less than the member — nothing of it was inflated.
func TestZipBomb(t *testing.T) {
	b, err := neff.Build([]neff.Member{{Name: "kelf-0.json", Data: []byte("{}")}, {Name: "sg00/big.bin", Data: make([]byte, 64<<20)}}, neff.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err = neff.Parse(b, neff.Options{MaxInflated: 1 << 20})
	runtime.ReadMemStats(&after)
	if !errors.Is(err, neff.ErrTooLarge) || !strings.Contains(err.Error(), `tar member "sg00/big.bin" (67108864 bytes) passes the 1048576-byte inflation cap`) {
		t.Fatalf("%v", err)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 8<<20 {
		t.Errorf("Parse allocated %d bytes refusing a 64 MiB member", grew)
	}
}

// A NEFF of more subgraphs than neff.MaxSubgraphs is refused by name before
// any is resolved (a 52 KB file of a thousand once cost 1.3 GB); exactly
// MaxSubgraphs resolve.
func TestSubgraphCap(t *testing.T) {
	for _, n := range []int{neff.MaxSubgraphs, neff.MaxSubgraphs + 1} {
		p := neffgen.Inline(1)
		g := p.Subgraphs[0]
		p.Subgraphs = nil
		for i := range n {
			c := g
			c.Name = fmt.Sprintf("sg%03d", i)
			p.Subgraphs = append(p.Subgraphs, c)
		}
		f, err := neff.Parse(build(t, p), neff.Options{})
		if err != nil {
			t.Fatal(err)
		}
		sgs, err := f.Subgraphs()
		if n > neff.MaxSubgraphs {
			if !errors.Is(err, neff.ErrLimit) || !strings.Contains(err.Error(), "more than 64 subgraphs") {
				t.Errorf("%d subgraphs: %v, want the cap", n, err)
			}
		} else if err != nil || len(sgs) != n {
			t.Errorf("%d subgraphs: %d, %v", n, len(sgs), err)
		}
	}
}

// def.json's queue and variable numbers that no runtime could honour are
// problems: num_queues outside 1..16, a semaphore_set entry that is no
// semaphore index, an alignment that is no power of two (issue 30 L7: all
// were accepted).
func TestCheckDefNumbers(t *testing.T) {
	n := func(v int) *int { return &v }
	for _, tc := range []struct {
		name string
		edit func(g *neffgen.Graph)
		want string
	}{
		{"num_queues -1", func(g *neffgen.Graph) {
			q := g.Queues["qPoolDynamic"]
			q.NumQueues = n(-1)
			g.Queues["qPoolDynamic"] = q
		}, "num_queues -1"},
		{"num_queues 2^40", func(g *neffgen.Graph) {
			q := g.Queues["qPoolDynamic"]
			q.NumQueues = n(1 << 40)
			g.Queues["qPoolDynamic"] = q
		}, "num_queues 1099511627776"},
		{"semaphore_set 2^40", func(g *neffgen.Graph) {
			q := g.Queues["qPoolDynamic"]
			q.Set = append([]int{1 << 40}, q.Set[1:]...)
			g.Queues["qPoolDynamic"] = q
		}, "semaphore_set[0] = 1099511627776"},
		{"alignment 3", func(g *neffgen.Graph) { g.Vars[1].Alignment = 3 }, "alignment 3"},
		{"alignment -64", func(g *neffgen.Graph) { g.Vars[1].Alignment = -64 }, "alignment -64"},
		{"clean", func(*neffgen.Graph) {}, ""},
	} {
		p := neffgen.Inline(1)
		tc.edit(&p.Subgraphs[0])
		f, err := neff.Parse(build(t, p), neff.Options{})
		if err != nil {
			t.Fatal(err)
		}
		sgs, err := f.Subgraphs()
		if err != nil {
			t.Fatal(err)
		}
		var msgs []string
		for _, pr := range sgs[0].CheckDef() {
			msgs = append(msgs, pr.Msg)
		}
		got := strings.Join(msgs, "; ")
		if tc.want == "" && got != "" || tc.want != "" && !strings.Contains(got, tc.want) {
			t.Errorf("%s: problems %q, want %q", tc.name, got, tc.want)
		}
	}
}

// A payload damaged so it no longer parses, whose hash no longer matches
// it either, says both: the parse error (its sentinel kept for errors.Is)
// and the hash — before, the hash's warning was lost with the File. A
// payload that parses keeps the mismatch a warning (Strict: an error).
func TestDamagedPayloadNamesTheHash(t *testing.T) {
	good := build(t, styleA())
	bad := bytes.Clone(good)
	for i := neff.HeaderSize + 600; i < neff.HeaderSize+605; i++ {
		bad[i] ^= 0xff
	}
	f, err := neff.Parse(bad, neff.Options{})
	if f != nil || err == nil || !strings.Contains(err.Error(), "hash at offset 0xac does not match the payload") {
		t.Fatalf("damaged: %v, %v; want the parse error and the hash", f, err)
	}
	if _, plain := neff.Parse(bad[:len(bad)], neff.Options{Strict: true}); plain == nil || !errors.Is(plain, neff.ErrHash) {
		t.Errorf("strict: %v, want ErrHash", plain)
	}
	rehashed := bytes.Clone(good)
	rehashed[0xac] ^= 1 // the hash alone wrong: the payload still parses
	f, err = neff.Parse(rehashed, neff.Options{})
	if err != nil || f.HashKind != "mismatch" || len(f.Warnings) == 0 {
		t.Errorf("hash alone: %v, %v", f, err)
	}
}
