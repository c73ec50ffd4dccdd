package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"ndma/internal/neffgen"
)

// run reports the control state it leaves: one DMAMEMCPY that increments
// $S[3] once (its semaphore=3, sem_increment=1) leaves $S[3] = 1 and no
// other semaphore, on each executor and both; --stats prints the same as
// lines.
func TestRunFinalState(t *testing.T) {
	dir := t.TempDir()
	prog := filepath.Join(dir, "p.s")
	src := ".gen cayman\ndmamemcpy semaphore=3, sem_increment=1, in_dtype=u8, out_dtype=u8, src_start_addr=hbm:0x0, src_step_elem=[1, 64], src_num_elem=[64, 1], src_elem_size=1, dst_start_addr=hbm:0x1000, dst_step_elem=[1, 64], dst_num_elem=[64, 1], dst_elem_size=1\n"
	if err := os.WriteFile(prog, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, exec := range []string{"ref", "sim", "both"} {
		code, out, errs := runCLI("run", "--json", "--exec", exec, prog)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", exec, code, errs)
		}
		var v struct {
			Final struct {
				Cores []struct {
					Core       int
					Semaphores map[string]int32
					Events     []int
				}
			}
		}
		if err := json.Unmarshal([]byte(out), &v); err != nil {
			t.Fatal(err)
		}
		if len(v.Final.Cores) != 1 || len(v.Final.Cores[0].Semaphores) != 1 || v.Final.Cores[0].Semaphores["3"] != 1 {
			t.Errorf("%s: final %+v, want core 0 with $S[3] = 1 only", exec, v.Final)
		}
	}
	code, out, errs := runCLI("run", "--stats", prog)
	if code != 0 || !strings.Contains(out, "core 0 final: $S[3]=1\n") {
		t.Errorf("--stats: exit %d %s\n%s", code, errs, out)
	}
}

// --sem and --reg take a 32-bit value signed or unsigned alike: -1 and
// 0xffffffff are the same bits, 2^32 and -2^31-1 are refused by both.
func TestSemRegValues(t *testing.T) {
	for _, tc := range []struct {
		v  string
		ok bool
	}{{"-1", true}, {"0xffffffff", true}, {"-2147483648", true}, {"4294967296", false}, {"-2147483649", false}, {"x", false}} {
		sems, err1 := semValues(multi{"5=" + tc.v})
		regs, err2 := regValues(multi{"r5=" + tc.v})
		if (err1 == nil) != tc.ok || (err2 == nil) != tc.ok {
			t.Errorf("%s: --sem %v, --reg %v; want ok %v", tc.v, err1, err2, tc.ok)
			continue
		}
		if tc.ok && uint32(sems[5]) != regs[5] {
			t.Errorf("%s: --sem bits %#x, --reg %#x", tc.v, uint32(sems[5]), regs[5])
		}
	}
}

// A --dump naming a subgraph the NEFF does not have says so, for a
// variable and for an address alike (issue 30: the address form said
// "not a number, label or .equ name").
func TestNEFFDumpMissingSubgraph(t *testing.T) {
	path := samplePath(t)
	for _, spec := range []string{"sg07:x=" + filepath.Join(t.TempDir(), "a.npy"), "sg07:0x0:u8:4=" + filepath.Join(t.TempDir(), "b.npy")} {
		code, _, errs := runCLI("neff", "run", "--dump", spec, path)
		if code == 0 || !strings.Contains(errs, "the NEFF has no subgraph sg07") {
			t.Errorf("--dump %s: exit %d, %s", spec, code, errs)
		}
	}
}

// --stats counts the program's traffic: the same bytes read and written
// under --exec both as under each executor (the comparison of the two
// devices once counted a 64 KiB page read).
func TestStatsBothCountsOnce(t *testing.T) {
	prog := filepath.Join(t.TempDir(), "p.s")
	src := ".gen cayman\ndmamemcpy in_dtype=u8, out_dtype=u8, src_start_addr=hbm:0x0, src_step_elem=[1, 64], src_num_elem=[64, 1], src_elem_size=1, dst_start_addr=hbm:0x1000, dst_step_elem=[1, 64], dst_num_elem=[64, 1], dst_elem_size=1\n"
	if err := os.WriteFile(prog, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, exec := range []string{"ref", "sim", "both"} {
		code, out, errs := runCLI("run", "--stats", "--exec", exec, prog)
		if code != 0 || !strings.Contains(out, "hbm: read 64, written 64 bytes\n") {
			t.Errorf("%s: exit %d %s\n%s", exec, code, errs, out)
		}
	}
}

// neff run --out streams a variable from the device into its file: writing
// a 512 MiB output allocates a small fraction of it (it once read the
// whole variable into one block: a NEFF declaring 50 GiB died of it).
func TestNEFFOutStreamed(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 512 MiB")
	}
	p := neffgen.Inline(1)
	const size = 512 << 20
	for i := range p.Subgraphs[0].Vars {
		if p.Subgraphs[0].Vars[i].Name == "out" {
			p.Subgraphs[0].Vars[i].Size = size
		}
	}
	dir := t.TempDir()
	path := writeNEFF(t, dir, "big.neff", p)
	out := filepath.Join(dir, "out.npy")
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	code, _, errs := runCLI("neff", "run", "--out", "out="+out, path)
	runtime.ReadMemStats(&after)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if st, err := os.Stat(out); err != nil || st.Size() < size {
		t.Fatalf("out.npy: %v", err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > size/4 {
		t.Errorf("writing a %d-byte output allocated %d bytes", size, got)
	}
}

// A run that would hold more HBM than --max-memory stops with the cap named
// (a 13 KB NEFF of twelve 512 MiB descriptors once took 5.8 GB); the same
// run under a cap it fits finishes.
func TestNEFFRunMemoryCap(t *testing.T) {
	p := neffgen.HWVectorAdd("cayman") // writes out: 1,024,000 bytes, 16 HBM pages of 64 KiB
	path := writeNEFF(t, t.TempDir(), "p.neff", p)
	code, _, errs := runCLI("neff", "run", "--max-memory", "65536", path)
	if code == 0 || !strings.Contains(errs, "past the cap of 65536") || !strings.Contains(errs, "over the run's memory cap") {
		t.Errorf("--max-memory 65536: exit %d, %s", code, errs)
	}
	if code, _, errs := runCLI("neff", "run", "--max-memory", "2097152", path); code != 0 {
		t.Errorf("--max-memory 2 MiB: exit %d, %s", code, errs)
	}
}

// The three-stream reproducer: POOL's copy reads hbm:0x2000 while
// DVE's copy writing it is in flight, nothing ordering the two. run --json
// lists the race (it once gave only a count, and no race check saw reads).
func TestRunJSONListsReadRace(t *testing.T) {
	copyWord := func(extra, src, dst string) string {
		return "dmamemcpy " + extra + "in_dtype=u8, out_dtype=u8, src_start_addr=hbm:" + src + ", src_step_elem=[1, 64], src_num_elem=[64, 1], src_elem_size=1, dst_start_addr=hbm:" + dst + ", dst_step_elem=[1, 64], dst_num_elem=[64, 1], dst_elem_size=1\n"
	}
	src := ".gen cayman\n.engine act\n" + copyWord("semaphore=1, sem_increment=1, ", "0x0", "0x1000") +
		".engine pool\n" + copyWord("wait_mode=WAIT_FOR_SEM_GE_IMM, wait_idx=1, semaphore_value=1, ", "0x2000", "0x3000") +
		".engine dve\n" + copyWord("", "0x0", "0x2000")
	prog := filepath.Join(t.TempDir(), "race.s")
	if err := os.WriteFile(prog, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	_, out, errs := runCLI("run", "--json", prog)
	var v struct{ Warnings []string }
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("%v: %s %s", err, out, errs)
	}
	if len(v.Warnings) != 1 || !strings.Contains(v.Warnings[0], "POOL core 0 offset 0x0 (DMAMEMCPY) reads 64 bytes at hbm:0x2000..hbm:0x203f that DVE core 0 offset 0x0 (DMAMEMCPY), in flight, writes") {
		t.Errorf("warnings %q", v.Warnings)
	}
}

// --max-bytes is the whole run's byte budget (issue 30 item 2): the vector
// add writes a_vec and b_vec into SBUF and out back, 3 × 1,024,000 bytes;
// one byte less is refused before a byte moves, by neff check too, and
// the output is not written.
func TestNEFFRunByteBudget(t *testing.T) {
	p := neffgen.HWVectorAdd("cayman")
	dir := t.TempDir()
	path := writeNEFF(t, dir, "p.neff", p)
	out := filepath.Join(dir, "out.npy")
	code, _, errs := runCLI("neff", "run", "--max-bytes", "3071999", "--out", "out="+out, path)
	if code != 1 || !strings.Contains(errs, "plan to write 3072000 bytes") || !strings.Contains(errs, "over the run's byte budget") {
		t.Errorf("--max-bytes 3071999: exit %d, %s", code, errs)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a refused run wrote its output: %v", err)
	}
	code, stdout, _ := runCLI("neff", "check", "--max-bytes", "3071999", path)
	if code != 1 || !strings.Contains(stdout, "more than the run's budget of 3071999") {
		t.Errorf("neff check --max-bytes 3071999: exit %d, %s", code, stdout)
	}
	for _, exec := range []string{"sim", "ref"} {
		if code, _, errs := runCLI("neff", "run", "--exec", exec, "--max-bytes", "3072000", "--out", "out="+out, path); code != 0 {
			t.Errorf("--exec %s --max-bytes 3072000: exit %d, %s", exec, code, errs)
		}
	}
	if code, _, _ := runCLI("neff", "check", "--max-bytes", "3072000", path); code != 0 {
		t.Errorf("neff check --max-bytes 3072000: exit %d", code)
	}
	for _, bad := range []string{"0", "-2", "x"} {
		if code, _, _ := runCLI("neff", "run", "--max-bytes", bad, path); code != 2 {
			t.Errorf("--max-bytes %s: exit %d, want 2", bad, code)
		}
	}
}
