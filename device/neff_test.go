package device

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"ndma/internal/neffgen"
	"ndma/internal/samples"
	"ndma/isa"
	"ndma/neff"
)

func openSample(t testing.TB, name string) (*neff.File, []neff.Subgraph) {
	t.Helper()
	f, sgs, err := neffgen.Open(samples.Read(t, name), neff.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return f, sgs
}

// The run leaves in each core's SBUF exactly what neff.md §5.3 names: per
// partition p, x row p at +0x37c00 (512 B), y[p, c:c+64] at +0x37f00 and
// y[128+p, c:c+64] at +0x37e00 (128 B each; c = 0 on sg00, 64 on sg01), the
// identity constant's row p at +0x37b00 (256 B); and every completion
// semaphore of the handshake reached 16 (sem_increment) on both cores.
func TestNEFFRunSBUF(t *testing.T) {
	f, sgs := openSample(t, "matmul_small.neff")
	x, y := make([]byte, 128*256*2), make([]byte, 256*128*2)
	for i := range x { // distinct 16-bit patterns: a misplaced row cannot match
		x[i] = byte(i*7 + i>>9)
	}
	for i := range y {
		y[i] = byte(i*13 + i>>8 + 1)
	}
	in := map[string]Input{"x": {Data: x, Descr: "<f2", Shape: []int{128, 256}}, "y": {Data: y, Descr: "<f2", Shape: []int{256, 128}}}
	for _, exec := range []Exec{Sim, Ref} {
		im, err := Load(isa.Cayman, f, sgs, in)
		if err != nil {
			t.Fatal(err)
		}
		res, err := im.Run(NEFFOptions{Exec: exec})
		if err != nil {
			t.Fatalf("%s: %v", exec, err)
		}
		if len(res.Subgraphs) != 2 || im.Device.Cores() != 2 {
			t.Fatalf("%d subgraphs on %d cores", len(res.Subgraphs), im.Device.Cores())
		}
		// the identity constant: fp16 1.0 (0x3c00) on the diagonal of 128×128
		ident := make([]byte, 128*128*2)
		for i := 0; i < 128; i++ {
			ident[(i*128+i)*2+1] = 0x3c
		}
		for k, r := range res.Subgraphs {
			m := im.Device.Core(r.Core)
			col := 64 * k * 2 // byte offset of the half this core loads
			for p := 0; p < 128; p++ {
				for _, c := range []struct {
					off  uint64
					want []byte
				}{
					{0x37c00, x[p*512 : p*512+512]},
					{0x37f00, y[p*256+col : p*256+col+128]},
					{0x37e00, y[(128+p)*256+col : (128+p)*256+col+128]},
					{0x37b00, ident[p*256 : p*256+256]},
				} {
					a, err := isa.Map(isa.Cayman).Join(isa.SBUF, p, c.off)
					if err != nil {
						t.Fatal(err)
					}
					got := make([]byte, len(c.want))
					if err := m.Read(a, got); err != nil {
						t.Fatal(err)
					}
					if !bytes.Equal(got, c.want) {
						t.Fatalf("%s %s partition %d +%#x: got % x…, want % x…", exec, r.Name, p, c.off, got[:8], c.want[:8])
					}
				}
			}
			for _, sem := range []int{8, 24, 25, 26, 27} {
				if v := m.Sems[sem]; v != 16 {
					t.Errorf("%s %s: $S[%d] = %d, want 16", exec, r.Name, sem, v)
				}
			}
		}
	}
}

// Declared sizes cost nothing until touched: two 600 MiB inputs the words
// never read are placed, loaded (lazily generated) and run without their
// bytes; a variable the HBM window cannot hold, or of an unknown type, is a
// check problem (issue 15, H6 and L6).
func TestDeclaredSizes(t *testing.T) {
	p := neffgen.Inline(1)
	g := &p.Subgraphs[0]
	g.Vars = append(g.Vars, neffgen.Var{Name: "big0", Type: "input", Size: 600 << 20}, neffgen.Var{Name: "big1", Type: "input", Size: 600 << 20})
	f, sgs, err := p.Open(neff.Options{})
	if err != nil {
		t.Fatal(err)
	}
	im, err := Load(isa.Cayman, f, sgs, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := im.Run(NEFFOptions{Exec: Sim}); err != nil {
		t.Fatal(err)
	}
	if pages := im.Device.Core(0).Pages(); pages > 64 { // x and out: 2 × 64 KiB; 1.2 GiB would be 19,200 pages
		t.Errorf("%d HBM pages stored: the untouched inputs took memory", pages)
	}
	if ps, _, err := Check(isa.Cayman, f, sgs); err != nil || len(ps) != 0 {
		t.Fatalf("check: %v %v", ps, err)
	}

	g.Vars = append(g.Vars, neffgen.Var{Name: "huge", Type: "input", Size: 1 << 40}, neffgen.Var{Name: "odd", Type: "bogus", Size: 64})
	if f, sgs, err = p.Open(neff.Options{}); err != nil {
		t.Fatal(err)
	}
	ps, _, err := Check(isa.Cayman, f, sgs)
	if err != nil {
		t.Fatal(err)
	}
	var msgs []string
	for _, p := range ps {
		msgs = append(msgs, p.String())
	}
	all := strings.Join(msgs, "\n")
	for _, want := range []string{`var 6 "huge": 1099511627776 bytes placed at`, `run past the HBM window`, `var 7 "odd" has type "bogus"`} {
		if !strings.Contains(all, want) {
			t.Errorf("missing %q in\n%s", want, all)
		}
	}
}

// An invalid neff.json is said, not silently dropped (issue 15, L6).
func TestInvalidNEFFJSONWarns(t *testing.T) {
	p := neffgen.Inline(1)
	p.Extra = append(p.Extra, neff.Member{Name: "neff.json", Data: []byte("{not json")})
	f, err := p.Parse(neff.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(f.Warnings, func(w string) bool { return strings.HasPrefix(w, "neff.json is not valid JSON") }) {
		t.Fatalf("warnings %q", f.Warnings)
	}
}

// A negative size is a check problem and neff info says it is invalid
// rather than "-5 bytes" (issue 15, L6).
func TestNegativeSize(t *testing.T) {
	p := neffgen.Inline(1)
	p.Subgraphs[0].Vars = append(p.Subgraphs[0].Vars, neffgen.Var{Name: "neg", Type: "input", Size: -5})
	f, sgs, err := p.Open(neff.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ps, _, err := Check(isa.Cayman, f, sgs)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, p := range ps {
		found = found || strings.Contains(p.String(), `var 4 "neg" has size -5`)
	}
	if !found {
		t.Fatalf("problems %v", ps)
	}
}

// The scale sample, matmul_large.neff (neff-samples/PROVENANCE.md: 4,384
// 0xd4 words per subgraph, spill variables, an ACT-owned DGE queue), checks
// clean with the code lower and run use: every stream resolves and every
// DGE word lowers. (Its run is BenchmarkNEFFRun and bench/neff_scale.sh.)
func TestLargeSampleChecks(t *testing.T) {
	f, sgs := openSample(t, "matmul_large.neff")
	ps, words, err := Check(isa.Cayman, f, sgs)
	if err != nil || len(ps) != 0 {
		t.Fatalf("%v: %d problems, first %v", err, len(ps), ps[:min(len(ps), 3)])
	}
	if words != 2*29795 { // 21,269 PE + 103 ACT + 6,873 Pool + 1,101 DVE + 449 SP words a subgraph (neff info)
		t.Errorf("%d words, want %d", words, 2*29795)
	}
}

// A 0xd4's SB leg is in the NEFF's own SB space, partition·2^18 + offset
// (neff.md §4.7), whatever the generation's stride: on MAVERICK, whose
// partitions are 1 MiB apart (field-tables §7), the Inline NEFF's word —
// 128 rows of 512 bytes at var(0), step 0x40000 — puts x row p in partition
// p, at p × 1 MiB. On CAYMAN the same bytes land at p × 256 KiB.
func TestSBSpaceMapped(t *testing.T) {
	for _, tc := range []struct {
		target string
		gen    isa.Gen
		stride uint64
	}{{"maverick", isa.Maverick, 1 << 20}, {"cayman", isa.Cayman, 256 << 10}} {
		p := neffgen.Inline(1)
		p.Target = tc.target
		f, sgs, err := p.Open(neff.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if ps, _, err := Check(tc.gen, f, sgs); err != nil || len(ps) != 0 {
			t.Fatalf("%s: check %v %v", tc.target, ps, err)
		}
		x := make([]byte, 65536)
		for i := range x {
			x[i] = byte(i*5 + i>>9)
		}
		for _, exec := range []Exec{Ref, Sim} {
			im, err := Load(tc.gen, f, sgs, map[string]Input{"x": {Data: x}})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := im.Run(NEFFOptions{Exec: exec}); err != nil {
				t.Fatalf("%s %s: %v", tc.target, exec, err)
			}
			for part := 0; part < 128; part++ {
				got := make([]byte, 512)
				if err := im.Device.Core(0).Read(uint64(part)*tc.stride, got); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, x[part*512:(part+1)*512]) {
					t.Fatalf("%s %s: partition %d at %#x holds % x…, want x row %d", tc.target, exec, part, uint64(part)*tc.stride, got[:4], part)
				}
			}
		}
	}
}
