package neff_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"ndma/internal/neffgen"
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
// and where — Parse, Subgraphs or Check, whichever meets it first — and
// never a panic.
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
		{"stream not whole words", replace(t, good, "sg00/pool.bin", "\xc1\x10"), `sg00 pool:`},
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

// styleB is neffgen.Inline(n), built.
func styleB(t testing.TB, n int) []byte { return build(t, neffgen.Inline(n)) }

// open3 runs the reader end to end: Parse, Subgraphs, Check; the first
// error or problem comes back as an error.
func open3(b []byte) error {
	f, err := neff.Parse(b, neff.Options{MaxInflated: 1 << 24})
	if err != nil {
		return err
	}
	ps, _, err := f.Check(isa.Cayman)
	if err != nil {
		return err
	}
	if len(ps) > 0 {
		return errors.New(ps[0].String())
	}
	return nil
}

// FuzzNeff: any bytes through the whole reader — container, kelf, def.json,
// engine JSON, blocks, placement, every trigger fired — give a result or an
// error, never a panic. Seeds: synthetic NEFFs of both styles, every
// dialect, and the real sample when it is there (read in place; corpus
// entries grown from it are not committed — the sample stays outside).
func FuzzNeff(f *testing.F) {
	f.Add(build(f, styleA()))
	p := styleA()
	p.Write.Raw = true
	f.Add(build(f, p))
	b := styleB(f, 4)
	f.Add(b)
	if s, err := os.ReadFile(filepath.Join("..", "..", "shared", "neff-samples", "matmul_small.neff")); err == nil {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		nf, err := neff.Parse(b, neff.Options{MaxInflated: 1 << 20})
		if err != nil {
			return
		}
		nf.Tensors()
		nf.Target()
		nf.Check(isa.Cayman)
	})
}

// A 0xd4 whose sides move different byte counts and whose destination walk
// leaves its variable: both reported at the word (worked by hand: dst
// 256 elements of 128 B = 32768 B vs src 128 × 512 = 65536 B; the walk from
// x+0x100 at step 256 ends at 0x100 + 255·256 + 128 = 65664 > 65536).
func TestCheckPseudoWalk(t *testing.T) {
	p := neffgen.Inline(1)
	p.Subgraphs[0].Engines[0].Asm = "pseudo_dma_direct2d semaphore=24, sem_increment=16, src_start_addr=tbl(0), src_step_elem=[512, 1], src_num_elem=[128, 1], src_elem_size=512, " +
		"dst_start_addr=var(1)+0x100, dst_step_elem=[256, 1], dst_num_elem=[256, 1], dst_elem_size=128, in_dtype=FP16, out_dtype=FP16\n"
	f, err := neff.Parse(build(t, p), neff.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ps, words, err := f.Check(isa.Cayman)
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
		f, err := neff.Parse(build(t, p), neff.Options{})
		if err != nil {
			t.Fatal(err)
		}
		ps, _, err := f.Check(isa.Cayman)
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
