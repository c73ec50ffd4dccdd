package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ndma/asm"
	"ndma/device"
	"ndma/dge"
	"ndma/internal/array"
	"ndma/internal/neffgen"
	"ndma/internal/samples"
	"ndma/isa"
	"ndma/neff"
	"ndma/sdma"
)

// `ndma neff info` on the real sample: the header of neff.md §2.2 and the
// Pool stream's four 0xd4 words (§5.3).
func TestNEFFInfo(t *testing.T) {
	path := samplePath(t)
	var out, errb bytes.Buffer
	if code := Main([]string{"neff", "info", "--words", path}, nil, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, want := range []string{
		// the handshake of neff.md §5.3, read off the words (decoded by their
		// tables since docs/compute.md)
		"    0x000080 event_semaphore wait_mode=WAIT_FOR_SEM_GE_IMM, wait_idx=24, semaphore_value=16\n",
		"    0x000100 matmul update_mode=SEM_INC_COMPLETE, update_idx=5, src_mem_pattern.start_addr=sbuf:0:0x37b00,",
		"    0x0000c0 copy wait_mode=WAIT_FOR_SEM_GE_IMM, wait_idx=5, update_mode=SEM_INC_COMPLETE, update_idx=4, semaphore_value=2, src_mem_pattern.start_addr=psum:0:0x800,",
		"    0x000180 nop wait_mode=WAIT_FOR_SEM_GE_IMM, wait_idx=27, semaphore_value=16\n",
		"  engine pool (Pool.json → Pool.bin): 7 words: NOP 1, PSEUDO_BRANCH_LABEL 1, PSEUDO_DMA_DIRECT2D 4, SET_ORDERING_MODE 1; 0 dma[] blocks\n",
		"tensor y: float16 [256 128] (input)\n", "tensor output0: float16 [128 128] (output)\n",
		"tensor sg0000_identity_82_CRSM: float16 [128 128 1 1] (the data of file variable identity_82_sg0000)\n",
		"name \"file.neff\", uuid 00a04c53-5fd9-4f07-bffd-d5eacdefc852\n",
		"pkg_version 2, header_size 0x400, data_size 0xf000, neff_version 2.0, build \"\"\n",
		"feature_bits 0x209c00: vnc, DVE perf mode, bit 12, bit 15, bit 21\n",
		"payload: gzip + 7839 zero bytes; hash: md5 (4-byte words reversed)\n",
		"72 members:\n",
		"target cayman: CAYMAN v3 (trn2)\n",
		"subgraph sg00 (sg00/def.json): pe=PE.bin act=Activation.bin pool=Pool.bin dve=DVE.bin sp=SP.bin\n",
		"  var 5 DGETable0: dge-table, 0 bytes, list [1 2 3]\n",
		"  var 1 x: input, 65536 bytes, placed at 0x100000000\n",
		"  var 4 identity_82_sg0000: file, 32768 bytes, file value_sg0000_identity_82_CRSM.npy, alignment 32768, placed at 0x100028000\n",
		"  queue qPoolDynamic: owner pool, dynamic, 16 queues, semaphores [24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39]\n",
		"7 words: NOP 1, PSEUDO_BRANCH_LABEL 1, PSEUDO_DMA_DIRECT2D 4, SET_ORDERING_MODE 1\n",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("missing %q in:\n%s", want, out.String())
		}
	}
	if code := Main([]string{"neff", "info", "/nonexistent.neff"}, nil, &out, &errb); code != 1 {
		t.Errorf("a missing file: exit %d", code)
	}
}

// `ndma neff disasm` of every stream assembles back to the stream's bytes.
func TestNEFFDisasmRoundTrip(t *testing.T) {
	path := samplePath(t)
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	_, sgs, err := neffgen.Open(raw, neff.Options{})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, sg := range sgs {
		for _, en := range sg.Engines {
			var out, errb bytes.Buffer
			if code := Main([]string{"neff", "disasm", "--subgraph", sg.Name, "--engine", en.Key, path}, nil, &out, &errb); code != 0 {
				t.Fatalf("%s %s: exit %d: %s", sg.Name, en.Key, code, errb.String())
			}
			obj, err := asm.Assemble("d.s", out.Bytes(), asm.Options{})
			if err != nil {
				t.Fatalf("%s %s: %v", sg.Name, en.Key, err)
			}
			if !bytes.Equal(obj.Code, en.Code) {
				t.Fatalf("%s %s: the text assembles to different bytes", sg.Name, en.Key)
			}
			n++
		}
	}
	if n != 10 {
		t.Fatalf("%d streams, want 10 (2 subgraphs × 5 engines)", n)
	}
}

// `ndma neff check` finds no problem in the real sample (issue 9's test list).
func TestNEFFCheckSample(t *testing.T) {
	path := samplePath(t)
	var out, errb bytes.Buffer
	if code := Main([]string{"neff", "check", path}, nil, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s%s", code, out.String(), errb.String())
	}
	if want := "58 words in 2 subgraphs on CAYMAN: 0 problems\n"; out.String() != want {
		t.Fatalf("%q, want %q", out.String(), want)
	}
}

// `ndma neff check` failure paths on a synthetic NEFF: var ids not dense, no
// output, a 0xd4 semaphore outside its engine's queues, an unknown var, a
// table index past the list.
func TestNEFFCheckProblems(t *testing.T) {
	path := badCheckNEFF(t, t.TempDir())
	var out, errb bytes.Buffer
	if code := Main([]string{"neff", "check", path}, nil, &out, &errb); code != 1 {
		t.Fatalf("exit %d, want 1: %s", code, out.String())
	}
	for _, want := range []string{
		`sg00 def.json: var ids are not dense 0..2: [2] missing; "x" has 3`,
		"sg00 def.json: no output variable",
		"sg00 pool offset 0x0: PSEUDO_DMA_DIRECT2D: semaphore 9 is in no semaphore_set of a queue pool owns",
		"sg00 pool offset 0x0: PSEUDO_DMA_DIRECT2D: src_start_addr names var 7: not in def.json",
		"sg00 pool offset 0x0: PSEUDO_DMA_DIRECT2D: dst_start_addr table index 3 is past the dge-table list (1 entries)",
		"1 word in 1 subgraph on CAYMAN: 5 problems",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("missing %q in:\n%s", want, out.String())
		}
	}
}

// `ndma neff lower --stats` on the sample: sg00's Pool stream has four 0xd4
// words (neff.md §5.3), SP one; the others none, and are not listed.
func TestNEFFLowerSample(t *testing.T) {
	path := samplePath(t)
	var out, errb bytes.Buffer
	if code := Main([]string{"neff", "lower", "--stats", path}, nil, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, want := range []string{
		"# sg00 pool (sg00/Pool.bin)\nwords 7, lowered 4,",
		"# sg00 sp (sg00/SP.bin)\nwords 3, lowered 1,",
		"# 6 streams lower no DMA word: not listed\n", // pe, act, dve of both subgraphs
		"kernel time ", // the one kernel time (device.KernelTime), after the streams
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("missing %q", want)
		}
	}
	if strings.Contains(out.String(), "# sg00 pe") {
		t.Errorf("PE lowers no DMA word but is listed:\n%s", out.String())
	}
}

// samplePath is the real sample NEFF (read in place, never copied), or a
// skip — a failure when NDMA_REQUIRE_SAMPLES=1 (.ci/run sets it).
func samplePath(t *testing.T) string { return samples.Path(t, "matmul_small.neff") }

// `ndma neff run` on the sample: every word of both subgraphs executes; the
// PE stream's EVENT_SEMAPHORE (wait $S[24] ≥ 16, neff.md §5.3's handshake)
// runs only once the Pool DMA that adds 16 to $S[24] completes; the words
// outside ndma's ISA are listed as not computed; --out writes output0.
func TestNEFFRunSample(t *testing.T) {
	path := samplePath(t)
	out := filepath.Join(t.TempDir(), "o.npy")
	var so, se bytes.Buffer
	tlf := filepath.Join(t.TempDir(), "tl.json")
	if code := Main([]string{"neff", "run", "--trace", "--timeline", tlf, "--out", "output0=" + out, path}, nil, &so, &se); code != 0 {
		t.Fatalf("exit %d: %s", code, se.String())
	}
	for _, want := range []string{
		// Pool issues after its two prologue words (SET_ORDERING_MODE 13 ns,
		// PSEUDO_BRANCH_LABEL 44 ns: the compute model). Its inline words run
		// on the packet-level model (docs/sim.md "DMA time"): its DGE writes
		// one word's descriptors at a time (600 ns), then a Pool-issued DMA's
		// 770-ns latency; x is 128 rows of 512 B over 16 engines, each one
		// contiguous 4096-B stretch (a 4100-B packet with its semaphore),
		// engine e 57·e ns later: 0.057 + 0.6 + 0.77 + 15 × 0.057 + 0.159
		// (data) + 0.450 (the last packet's write) = 2.891
		"sg00 POOL offset 0x80: PSEUDO_DMA_DIRECT2D @0.057µs (completes at 2.891µs): x+0x0 → SB p0+0x37c00, 65536 bytes on qPoolDynamic\n",
		"sg00 PE offset 0x80: EVENT_SEMAPHORE @2.891µs (completes at 2.936µs)\n",
		// the first y load's descriptors wait for x's on Pool's DGE: it moves
		// from 0.057 + 2 × 0.6 + 0.77 = 2.027; 8 rows of 128 B an engine, a
		// 1028-B packet of 70 ns: 2.027 + 0.855 + 0.070 + 0.450 = 3.402
		"  @0.057→2.027–3.402µs       sg00 POOL 0xc0 ",
		// the store waits $S[4] ≥ 2: ACT's copies, after the MATMULs, after
		// the last y load ($S[26], moving from 2.627, ending 4.002): the last
		// pair (LDWEIGHTS 26 ns, MATMUL of 64 fp16 columns 42 + 0.169 × 64 =
		// 53) ends 4.081, ACT's copy of 64 elements (106 + 64 / 1.2 = 159 ns)
		// starts 36 ns later (the semaphore's wake, hw-timing §4.1) and the
		// store 36 ns after the copy: 4.081 + 36 + 159 + 36 = 4.312. It
		// moves from 4.312 + 0.6 + 0.77 = 5.682: the DGE lowers its
		// FP32 → FP16 cast onto one engine, a packet a 128-B row 10 ns apart
		// (a cast's issue), each row's write done 268 ns after its 20-ns data
		// or 24 ns after the row before (C3): 5.682 + 0.020 + 0.268 + 127 ×
		// 0.024 = 9.018
		"  @4.312→5.682–9.018µs       sg00 POOL 0x140 PSEUDO_DMA_DIRECT2D: SB p0+0x4200 → output0+0x0, 16384 bytes on qPoolDynamic\n",
		"  @4.312→5.682–9.018µs       sg01 POOL 0x140 PSEUDO_DMA_DIRECT2D: SB p0+0x4200 → output0+0x80, 16384 bytes on qPoolDynamic\n",
		"10 inline DGE words by the packet-level model",
		"wrote " + out + ": output0 <f2 [128 128]\n",
		"58 words executed in 2 subgraphs",
		// each subgraph's streams (neff.md's census of matmul_small), twice:
		// every word computed, none left to its EVENTS only
		"computed on ACT: ACTIVATION_TABLE_LOAD 2, COPY 4, PSEUDO_BRANCH_LABEL 2, SET_ORDERING_MODE 2\n",
		"computed on DVE: PSEUDO_BRANCH_LABEL 2, SET_ORDERING_MODE 2\n",
		"computed on PE: EVENT_SEMAPHORE 4, LDWEIGHTS 8, MATMUL 8, PSEUDO_BRANCH_LABEL 2, SET_ORDERING_MODE 2\n",
		"computed on POOL: NOP 2, PSEUDO_BRANCH_LABEL 2, SET_ORDERING_MODE 2\n",
		"computed on SP: PSEUDO_BRANCH_LABEL 2, SET_ORDERING_MODE 2\n",
		// ACT's stream: SET_ORDERING_MODE, PSEUDO_BRANCH_LABEL, the table
		// load, the transposes' eviction, then (word 4, 0x100) the product's
		// FP32 eviction the store reads (compute.md §5.6)
		"  its SB bytes last written by: sg00 ACT 0x100 COPY, sg01 ACT 0x100 COPY\n",
	} {
		if !strings.Contains(so.String(), want) {
			t.Errorf("missing %q", want)
		}
	}
	if strings.Contains(so.String(), "not computed") || strings.Contains(so.String(), "warning: output") {
		t.Errorf("words left uncomputed:\n%s", so.String())
	}
	if st, err := os.Stat(out); err != nil || st.Size() != 128+32768 {
		t.Errorf("output0: %v", err)
	}
	// a DMA track per stream that moved something, by queue; PE moved nothing
	if b, err := os.ReadFile(tlf); err != nil || !strings.Contains(string(b), `"args":{"name":"sg00 POOL DMA qPoolDynamic"}`) ||
		!strings.Contains(string(b), `"args":{"name":"sg00 SP DMA qSPDynamicHW"}`) || strings.Contains(string(b), `"sg00 PE DMA`) {
		t.Errorf("timeline: %v", err)
	}
}

// `neff lower` is deterministic: lowering the sample twice gives the same
// words, descriptors and bytes, stream by stream, descriptor by descriptor.
func TestNEFFLowerDeterministic(t *testing.T) {
	raw, err := os.ReadFile(samplePath(t))
	if err != nil {
		t.Fatal(err)
	}
	var runs [2][]string
	for k := range runs {
		for _, st := range lowerRaw(t, raw) {
			for _, w := range st.words {
				if w.lowered == nil {
					continue
				}
				for _, q := range w.lowered.Queues {
					for _, d := range append(append([]sdma.Desc(nil), q.M2S...), q.S2M...) {
						runs[k] = append(runs[k], fmt.Sprintf("%s %s %#x q%d %x", st.sg.Name, st.en.Key, w.Offset, q.DMA, d[:]))
					}
				}
			}
		}
	}
	if len(runs[0]) != 2*(961+160) { // two subgraphs: Pool 961 + SP 160 descriptors each (--stats)
		t.Errorf("%d descriptors, want %d", len(runs[0]), 2*(961+160))
	}
	if strings.Join(runs[0], "\n") != strings.Join(runs[1], "\n") {
		t.Error("two lowerings of the sample differ")
	}
}

// lowerRaw is `ndma neff lower` on a NEFF's bytes: parsed, resolved, lowered.
func lowerRaw(tb testing.TB, raw []byte) []streamLowered {
	_, sgs, err := neffgen.Open(raw, neff.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	streams, err := lowerNEFF(isa.Cayman, sgs, nil)
	if err != nil {
		tb.Fatal(err)
	}
	return streams
}

// BenchmarkNeffLower: a synthetic NEFF of 10,000 0xd4 words (neffgen.Inline,
// 64 KiB each) parsed, resolved, relocated and lowered to descriptors, each
// word handed on as it is lowered and none kept — the lowering of every
// `ndma neff lower` path (listing, --json, --stats), without their printing
// or counting. BenchmarkNeffLowerKept keeps every word's program and
// descriptors (lowerNEFF, as the tests compare two lowerings); no command
// holds them. BenchmarkNeffLowerStats is the path of `ndma neff lower
// --stats`: each word counted (with its cost-model time and findings).
func BenchmarkNeffLower(b *testing.B) {
	benchNeff(b, func(st *neffStream) (words, descs int, err error) {
		_, err = lowerSteps(isa.Cayman, st.steps, st.derr, dge.Options{}, sdma.Options{}, func(w loweredWord) {
			if w.lowered != nil {
				words, descs = words+1, descs+wordDescs(&w)
			}
		})
		return words, descs, err
	})
}

func BenchmarkNeffLowerKept(b *testing.B) {
	raw, err := neffgen.Inline(10000).Build()
	if err != nil {
		b.Fatal(err)
	}
	var words, descs int
	for b.Loop() {
		for _, st := range lowerRaw(b, raw) {
			for k := range st.words {
				if st.words[k].lowered != nil {
					words, descs = words+1, descs+wordDescs(&st.words[k])
				}
			}
		}
	}
	reportRates(b, words, descs)
}

func BenchmarkNeffLowerStats(b *testing.B) {
	benchNeff(b, func(st *neffStream) (int, int, error) { // as runNEFFLower --stats
		t, err := tallyStream(isa.Cayman, st)
		if err != nil {
			return 0, 0, err
		}
		return t.c.Lowered, t.c.Descriptors, nil
	})
}

// benchNeff is b.N lowerings of the 10,000-word synthetic NEFF: each time
// it is parsed and placed and lower has each stream; it reports the words
// and descriptors per second lower counts.
func benchNeff(b *testing.B, lower func(st *neffStream) (words, descs int, err error)) {
	raw, err := neffgen.Inline(10000).Build()
	if err != nil {
		b.Fatal(err)
	}
	var words, descs int
	for b.Loop() {
		_, sgs, err := neffgen.Open(raw, neff.Options{})
		if err != nil {
			b.Fatal(err)
		}
		place, err := device.Place(sgs)
		if err != nil {
			b.Fatal(err)
		}
		err = eachStream(isa.Cayman, sgs, place, nil, func(st *neffStream) error {
			w, d, err := lower(st)
			words, descs = words+w, descs+d
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	reportRates(b, words, descs)
}

// reportRates reports words and descriptors lowered over the benchmark's time.
func reportRates(b *testing.B, words, descs int) {
	s := b.Elapsed().Seconds()
	b.ReportMetric(float64(words)/s, "words/s")
	b.ReportMetric(float64(descs)/s, "descriptors/s")
}

// wordDescs is a lowered word's descriptors, on every queue.
func wordDescs(w *loweredWord) (n int) {
	for _, q := range w.lowered.Queues {
		n += len(q.M2S) + len(q.S2M)
	}
	return n
}

// Style A end to end on a synthetic NEFF (neffgen.Triggered, the C08220
// shape): check finds nothing; lower fires both blocks (one DMA_DIRECT2D
// each, 128 bytes, on its named queue); run moves input → gradient_in →
// output, the second trigger waiting for the first block's semaphore 10,
// so output holds exactly the given input; the schedule names the blocks.
func TestNEFFStyleA(t *testing.T) {
	dir := t.TempDir()
	raw, err := neffgen.Triggered().Build()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "a.neff")
	in := make([]byte, 128)
	for i := range in {
		in[i] = byte(3*i + 1)
	}
	var nb bytes.Buffer
	if err := array.Write(&nb, &array.Array{Descr: "|u1", Shape: []int{128}, Data: in}); err != nil {
		t.Fatal(err)
	}
	if os.WriteFile(path, raw, 0o644) != nil || os.WriteFile(filepath.Join(dir, "in.npy"), nb.Bytes(), 0o644) != nil {
		t.Fatal("write")
	}
	run := func(args ...string) string {
		t.Helper()
		var so, se bytes.Buffer
		if code := Main(args, nil, &so, &se); code != 0 {
			t.Fatalf("%v: exit %d: %s%s", args, code, so.String(), se.String())
		}
		return so.String()
	}
	if out := run("neff", "check", path); !strings.Contains(out, "3 words in 1 subgraph on CAYMAN: 0 problems") {
		t.Errorf("check:\n%s", out)
	}
	out := run("neff", "lower", "--stats", path)
	for _, want := range []string{"words 3, lowered 2,", "bytes M2S 256,", "queue q_gradient_in: words 1,", "queue q_gradient_out: words 1,"} {
		if !strings.Contains(out, want) {
			t.Errorf("lower: missing %q in\n%s", want, out)
		}
	}
	o := filepath.Join(dir, "out.npy")
	out = run("neff", "run", "--in", "input="+filepath.Join(dir, "in.npy"), "--out", "output="+o, path)
	for _, want := range []string{
		// the second issues when the first completes (its wait on $S[10]).
		// The packet model (timing.Trn2, by hand): one engine (a single
		// semaphore, increment 1), one 132-byte packet (128 + the 4-byte
		// semaphore write); a Pool trigger's packets may start 770 ns after
		// it, data 9 + 26·(132 − 36)/220 ≈ 20 ns (between the 36- and
		// 256-byte medians), last-packet lag 450 ns: done at 1240; the
		// second starts 770 after, at 2010, done 2010 + 20 + 450 = 2480.
		"@0.000→0.770–1.240µs       sg00 POOL 0x0 PSEUDO_DMA_TRIGGER: input+0x0 → gradient_in+0x0, 128 bytes on q_gradient_in block 0\n",
		"@1.240→2.010–2.480µs       sg00 POOL 0x40 PSEUDO_DMA_TRIGGER: gradient_in+0x0 → output+0x0, 128 bytes on q_gradient_out block 0\n",
		"3 words executed in 1 subgraph ",
		"computed on POOL: EVENT_SEMAPHORE 1\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("run: missing %q in\n%s", want, out)
		}
	}
	got, err := array.Load(o)
	if err != nil || !bytes.Equal(got.Data, in) {
		t.Fatalf("output %v: % x, want % x", err, got.Data[:8], in[:8])
	}
	os.Remove(o)
	run("neff", "run", "--exec", "ref", "--in", "input="+filepath.Join(dir, "in.npy"), "--out", "output="+o, path)
	if got, err := array.Load(o); err != nil || !bytes.Equal(got.Data, in) {
		t.Fatalf("--exec ref: output %v", err)
	}
}

// A hash that matches nothing is a warning on every neff subcommand, an
// error with --strict.
func TestNEFFHashStrict(t *testing.T) {
	p := neffgen.Triggered()
	p.Write.Hash = "none"
	raw, err := p.Build()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "h.neff")
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, sub := range []string{"check", "lower", "disasm", "run"} {
		var so, se bytes.Buffer
		if code := Main([]string{"neff", sub, path}, nil, &so, &se); code != 0 || !strings.Contains(se.String(), "warning: "+path+": hash (offset 0xac) matches neither") {
			t.Errorf("%s: exit %d, stderr %q", sub, code, se.String())
		}
		se.Reset()
		if code := Main([]string{"neff", sub, "--strict", path}, nil, &so, &se); code == 0 || !strings.Contains(se.String(), "hash mismatch") {
			t.Errorf("%s --strict: exit %d, stderr %q", sub, code, se.String())
		}
	}
}

// `neff run` never executes a 0xd4 whose walk leaves its variable: the run
// stops at that word with the check's message, and no output is written;
// a semaphore outside the engine's queues only warns.
func TestNEFFRunRefusesBadWalk(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		word, want string
		code       int
	}{
		{"dst_start_addr=var(1)+0x100, dst_step_elem=[512, 1], dst_num_elem=[128, 1], dst_elem_size=512, semaphore=24",
			`sg00 POOL offset 0x0 (PSEUDO_DMA_DIRECT2D): PSEUDO_DMA_DIRECT2D: dst_start_addr var 1 "x" + 0x100: the walk touches bytes 256..65792, the variable has 65536`, 1},
		{"dst_start_addr=var(0)+0x3ff00, dst_step_elem=[0x40000, 1], dst_num_elem=[128, 1], dst_elem_size=512, semaphore=24",
			`dst_start_addr var 0 "SB" + 0x3ff00: element (0, 0) at 0x3ff00 (512 bytes) is not inside one SBUF partition's 229376 active bytes`, 1},
		{"dst_start_addr=var(0), dst_step_elem=[0x40000, 1], dst_num_elem=[128, 1], dst_elem_size=512, semaphore=9",
			"warning: sg00 pool: PSEUDO_DMA_DIRECT2D: semaphore 9 is in no semaphore_set of a queue pool owns", 0},
	} {
		p := neffgen.Inline(1)
		p.Subgraphs[0].Engines[0].Asm = "pseudo_dma_direct2d sem_increment=16, src_start_addr=tbl(0), src_step_elem=[512, 1], src_num_elem=[128, 1], src_elem_size=512, in_dtype=FP16, out_dtype=FP16, " + tc.word + "\n"
		raw, err := p.Build()
		if err != nil {
			t.Fatal(err)
		}
		path, out := filepath.Join(dir, "w.neff"), filepath.Join(dir, "o.npy")
		os.Remove(out)
		if err := os.WriteFile(path, raw, 0o644); err != nil {
			t.Fatal(err)
		}
		var so, se bytes.Buffer
		code := Main([]string{"neff", "run", "--out", "out=" + out, path}, nil, &so, &se)
		if code != tc.code || !strings.Contains(so.String()+se.String(), tc.want) {
			t.Errorf("exit %d (want %d)\n%s%s\nwant %q", code, tc.code, so.String(), se.String(), tc.want)
		}
		if _, err := os.Stat(out); (err == nil) != (tc.code == 0) {
			t.Errorf("%s: output file present = %v", tc.want, err == nil)
		}
	}
}

// `neff run` writes all its outputs or none, refuses outputs that hold no
// bytes before running, and checks an --in array's dtype and shape against
// neff.json.
func TestNEFFRunOutputsAllOrNone(t *testing.T) {
	path := samplePath(t)
	dir := t.TempDir()
	o1 := filepath.Join(dir, "o1.npy")
	yT := filepath.Join(dir, "yT.npy")
	var b bytes.Buffer
	if err := array.Write(&b, &array.Array{Descr: "<f2", Shape: []int{128, 256}, Data: make([]byte, 65536)}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(yT, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--out", "output0=" + o1, "--out", "y=" + filepath.Join(dir, "nodir", "y.npy")}, "--out y=" + filepath.Join(dir, "nodir", "y.npy")},
		{[]string{"--out", "SB=" + o1}, `variable "SB" holds no bytes of its own`},
		{[]string{"--out", "DGETable0=" + o1}, `variable "DGETable0" holds no bytes of its own`},
		{[]string{"--in", "y=" + yT, "--out", "output0=" + o1}, "--in y=" + yT + ": <f2 [128 256] data, the NEFF's y is float16 [256 128]"},
	} {
		var so, se bytes.Buffer
		if code := Main(append(append([]string{"neff", "run"}, tc.args...), path), nil, &so, &se); code == 0 || !strings.Contains(se.String(), tc.want) {
			t.Errorf("%v: exit %d\n%s\nwant %q", tc.args, code, se.String(), tc.want)
		}
		if _, err := os.Stat(o1); err == nil {
			t.Errorf("%v: %s written by a failed run", tc.args, o1)
		}
		if ents, _ := os.ReadDir(dir); len(ents) != 1 {
			t.Errorf("%v: left %d files in %s", tc.args, len(ents), dir)
		}
	}
}

// A broken def.json fails info (after listing what it can) and check; a
// broken kelf is reported as the JSON error it is, not as a missing target.
func TestNEFFBrokenJSON(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		member, data, want string
	}{
		{"sg00/def.json", "{", "sg00/def.json: unexpected end of JSON input"},
		{"kelf-0.json", `{"graphs": [`, "kelf-0.json: unexpected end of JSON input"},
	} {
		f, err := neffgen.Triggered().Parse(neff.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for i := range f.Members {
			if f.Members[i].Name == tc.member {
				f.Members[i].Data = []byte(tc.data)
			}
		}
		raw, err := neff.Build(f.Members, neff.WriteOptions{})
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, "b.neff")
		if err := os.WriteFile(path, raw, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, sub := range []string{"info", "check", "run"} {
			var so, se bytes.Buffer
			if code := Main([]string{"neff", sub, path}, nil, &so, &se); code == 0 || !strings.Contains(se.String(), tc.want) {
				t.Errorf("%s %s: exit %d, stderr %q", tc.member, sub, code, se.String())
			}
		}
	}
}

// `neff run` on the sample: --dump of a variable and of a subgraph's core
// memory (x row p lands in sg01's SBUF partition p at +0x37c00, neff.md
// §5.3: the two dumps hold the same bytes), --exec both (ref and sim agree),
// the output's provenance, and --exec ref saying it has no DMA time.
func TestNEFFRunDumpsBothRef(t *testing.T) {
	path := samplePath(t)
	dir := t.TempDir()
	dx, dsb := filepath.Join(dir, "x.npy"), filepath.Join(dir, "sb.npy")
	var so, se bytes.Buffer
	if code := Main([]string{"neff", "run", "--exec", "both", "--dump", "x=" + dx, "--dump", "sg01:sbuf:0:0x37c00:fp16:128x256=" + dsb, path}, nil, &so, &se); code != 0 {
		t.Fatalf("exit %d: %s", code, se.String())
	}
	x, err1 := array.Load(dx)
	sb, err2 := array.Load(dsb)
	if err1 != nil || err2 != nil || len(x.Data) != 65536 || !bytes.Equal(x.Data, sb.Data) || x.Descr != "<f2" {
		t.Fatalf("dumps: %v %v, x %d bytes", err1, err2, len(x.Data))
	}
	for _, want := range []string{
		"wrote " + dsb + ": sg01 sbuf:0:0x37c00:fp16:128x256 <f2 [128 256]\n",
		"output output0: 32768 bytes written by DMA: sg00 POOL 0x140 (from SB), sg01 POOL 0x140 (from SB)\n",
	} {
		if !strings.Contains(so.String(), want) {
			t.Errorf("missing %q in\n%s", want, so.String())
		}
	}
	so.Reset()
	if code := Main([]string{"neff", "run", "--exec", "ref", path}, nil, &so, &se); code != 0 {
		t.Fatalf("ref: exit %d: %s", code, se.String())
	}
	if !strings.Contains(so.String(), "no DMA time (the reference has no cost model") || strings.Contains(so.String(), "0.000 µs") {
		t.Errorf("ref run reports times:\n%s", so.String())
	}
}

// Every output path is checked before the run: an unwritable one fails at
// once, nothing is written; a symlink is never replaced.
func TestNEFFRunChecksOutputsFirst(t *testing.T) {
	path := samplePath(t)
	dir := t.TempDir()
	tl := filepath.Join(dir, "tl.json")
	var so, se bytes.Buffer
	code := Main([]string{"neff", "run", "--trace", "--timeline", tl, "--out", "output0=" + filepath.Join(dir, "no", "o.npy"), path}, nil, &so, &se)
	if code == 0 || so.Len() != 0 || !strings.Contains(se.String(), "--out output0=") {
		t.Fatalf("exit %d, stdout %d bytes (the run ran), stderr %q", code, so.Len(), se.String())
	}
	if _, err := os.Stat(tl); err == nil {
		t.Error("a timeline was written for a run that never started")
	}
	// a symlink is written through: its target replaced, the link kept; a dangling one refused
	target, link := filepath.Join(dir, "target.npy"), filepath.Join(dir, "link.npy")
	if err := os.Symlink(target, link); err != nil {
		t.Skip(err)
	}
	se.Reset()
	if code := Main([]string{"neff", "run", "--out", "output0=" + link, path}, nil, &so, &se); code == 0 || !strings.Contains(se.String(), "a symlink to nothing") {
		t.Fatalf("dangling symlink: exit %d, stderr %q", code, se.String())
	}
	if err := os.WriteFile(target, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if code := Main([]string{"neff", "run", "--out", "output0=" + link, path}, nil, &so, &se); code != 0 {
		t.Fatalf("symlink: exit %d, stderr %q", code, se.String())
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Fatal("the symlink was replaced")
	}
	if st, err := os.Stat(target); err != nil || st.Size() != 128+32768 {
		t.Fatalf("the target was not written: %v", err)
	}
	// a device is written directly, never replaced
	if code := Main([]string{"neff", "run", "--out", "output0=" + os.DevNull, path}, nil, &so, &se); code != 0 {
		t.Fatalf("%s: exit %d, stderr %q", os.DevNull, code, se.String())
	}
	if st, err := os.Stat(os.DevNull); err != nil || st.Mode()&os.ModeDevice == 0 {
		t.Fatalf("%s is no longer a device", os.DevNull)
	}
}

// A run that deadlocks keeps its --trace and --timeline (they show where it
// stopped) and reports a line per blocked stream; no --out is written.
func TestNEFFRunDeadlockKeepsTimeline(t *testing.T) {
	dir := t.TempDir()
	p := neffgen.Inline(1) // a 0xd4 that waits $S[5] ≥ 1, which nothing raises
	p.Subgraphs[0].Engines[0].Asm = "pseudo_dma_direct2d wait_mode=WAIT_FOR_SEM_GE_IMM, wait_idx=5, semaphore_value=1, semaphore=24, sem_increment=16, src_start_addr=tbl(0), src_step_elem=[512, 1], src_num_elem=[128, 1], src_elem_size=512, dst_start_addr=var(0), dst_step_elem=[0x40000, 1], dst_num_elem=[128, 1], dst_elem_size=512, in_dtype=FP16, out_dtype=FP16\n"
	raw, err := p.Build()
	if err != nil {
		t.Fatal(err)
	}
	path, out, tl := filepath.Join(dir, "d.neff"), filepath.Join(dir, "o.npy"), filepath.Join(dir, "tl.json")
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	var so, se bytes.Buffer
	code := Main([]string{"neff", "run", "--trace", "--timeline", tl, "--out", "out=" + out, path}, nil, &so, &se)
	if code != 1 || !strings.Contains(se.String(), "deadlock: no stream can progress:\n  sg00 POOL waits at offset 0x0 (PSEUDO_DMA_DIRECT2D)") {
		t.Fatalf("exit %d, stderr %q", code, se.String())
	}
	// the stream's track, and no DMA track: nothing moved
	if b, err := os.ReadFile(tl); err != nil || !strings.Contains(string(b), `"sg00 POOL"`) || strings.Contains(string(b), `"sg00 POOL DMA`) {
		t.Errorf("timeline after the deadlock: %v\n%s", err, b)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("an output was written for a failed run")
	}
}
