package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ndma/internal/neffgen"
)

// hwNEFF writes hw-timing.md's vector add as a synthetic NEFF.
func hwNEFF(t *testing.T) string { return vaddNEFF(t, "cayman") }

// vaddNEFF writes the vector add built for target to a temporary file.
func vaddNEFF(t *testing.T, target string) string {
	t.Helper()
	raw, err := neffgen.HWVectorAdd(target).Build()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "vadd.neff")
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func runCLI(args ...string) (code int, stdout, stderr string) {
	var so, se bytes.Buffer
	code = Main(args, nil, &so, &se)
	return code, so.String(), se.String()
}

// `ndma neff run --json`: every transfer with its queue, block and window,
// the DVE's given time between the loads and the stores it waits for.
func TestNEFFRunJSON(t *testing.T) {
	path := hwNEFF(t)
	code, out, errs := runCLI("neff", "run", "--json", "--packets", "--engine-time", "TENSOR_TENSOR=1.2us", path)
	if code != 0 {
		t.Fatalf("exit %d: %s%s", code, out, errs)
	}
	var doc runJSON
	if err := json.Unmarshal([]byte(out), &doc); err != nil { // stdout is the JSON alone
		t.Fatalf("%v:\n%s", err, out)
	}
	if doc.Status != "ok" || doc.Model == nil || doc.Model.Gen != "CAYMAN" || doc.EngineTimes["TENSOR_TENSOR"] != 1200 {
		t.Errorf("status %q, model %+v, engine times %v", doc.Status, doc.Model, doc.EngineTimes)
	}
	// hw-timing kernel 1: SP fires qSPIO0 blocks 0–3, Pool qPoolIO0 0–1,
	// each 512,000 payload bytes (128 rows × 4000) in 512,064 packet bytes
	// (+ 16 semaphore writes of 4); the blocks read a_vec 0, b_vec 0, a_vec
	// 4000, b_vec 4000 into SB 213368, 225368, 221368, 217368 and the
	// stores SB 0 / 4000 into out 0 / 4000 (neffgen.HWVectorAdd's def.json)
	want := []struct {
		engine, queue  string
		block          int
		src, dst       string // variable or "SB"
		srcOff, dstOff uint64
	}{{"sp", "qSPIO0", 0, "a_vec", "SB", 0, 213368}, {"sp", "qSPIO0", 1, "b_vec", "SB", 0, 225368}, {"sp", "qSPIO0", 2, "a_vec", "SB", 4000, 221368},
		{"sp", "qSPIO0", 3, "b_vec", "SB", 4000, 217368}, {"pool", "qPoolIO0", 0, "SB", "out", 0, 0}, {"pool", "qPoolIO0", 1, "SB", "out", 4000, 4000}}
	// where each variable is, from neff info's own listing
	var info struct {
		Subgraphs []struct {
			Variables []struct {
				Name    string  `json:"name"`
				Address *uint64 `json:"address"`
			} `json:"variables"`
		} `json:"subgraphs"`
	}
	if err := json.Unmarshal([]byte(ndmaOut(t, 0, "neff", "info", "--json", path)), &info); err != nil {
		t.Fatal(err)
	}
	at := map[string]uint64{}
	for _, v := range info.Subgraphs[0].Variables {
		if v.Address != nil {
			at[v.Name] = *v.Address
		}
	}
	end := func(e endJSON, name string, off uint64) bool {
		if name == "SB" { // SB partition 0 at off: address off (field-tables §11.2)
			return e.Space == "sbuf" && e.Partition == 0 && e.Offset == off && e.Address != nil && *e.Address == off && e.Variable == ""
		}
		return e.Space == "hbm" && e.Variable == name && e.Address != nil && *e.Address == at[name]+off && e.Offset == at[name]+off-0x1_0000_0000
	}
	if len(doc.Transfers) != len(want) {
		t.Fatalf("%d transfers, want %d", len(doc.Transfers), len(want))
	}
	for i, w := range want {
		tr := doc.Transfers[i]
		if tr.Subgraph != "sg00" || tr.Engine != w.engine || tr.Queue != w.queue || tr.Block == nil || *tr.Block != w.block || tr.Bytes != 512000 || tr.PacketBytes != 512064 || tr.Timing != "packet" ||
			!end(tr.Src, w.src, w.srcOff) || !end(tr.Dst, w.dst, w.dstOff) {
			t.Errorf("transfer %d: %+v, want %+v", i, tr, w)
			continue
		}
		// its window is its packets': the first start, the last write done
		// (issue 19: "end = the last packet's write done")
		lo, hi, engines := tr.Packets[0].StartNS, int64(0), map[int]bool{}
		for _, p := range tr.Packets {
			lo, hi = min(lo, p.StartNS), max(hi, p.WriteDoneNS)
			engines[p.DMAEngine] = true
		}
		if len(tr.Packets) != 128 || len(engines) != 16 || lo != tr.StartNS || hi != tr.EndNS || tr.StartNS < tr.IssueNS {
			t.Errorf("transfer %d: %d packets on %d engines, window %d–%d, packets %d–%d, issued %d", i, len(tr.Packets), len(engines), tr.StartNS, tr.EndNS, lo, hi, tr.IssueNS)
		}
	}
	// Pool's block 0 waits $S[6] ≥ 1: the DVE's first add, which waits for
	// block 1 ($S[9] ≥ 16) and then takes the given 1.200 µs; its semaphore
	// reaches Pool 36 ns later (hw-timing §4.1: +37, +35)
	if got, want := doc.Transfers[4].IssueNS, doc.Transfers[1].EndNS+1200+36; got != want {
		t.Errorf("qPoolIO0 block 0 issued at %d ns, want qSPIO0 block 1's end + 1200 + 36 = %d", got, want)
	}
	// the kernel ends with Pool's last NOP, after the last transfer (hw-timing §4.6: "the last Pool NOP ends after the last write done")
	if doc.TimeNS <= doc.Transfers[5].EndNS || doc.TimeNS > doc.Transfers[5].EndNS+100 {
		t.Errorf("time %d ns, the last transfer ends at %d: want the NOP after it", doc.TimeNS, doc.Transfers[5].EndNS)
	}
	// the reference has no clock: the same blocks, their data bytes (128 × 4000), no times
	code, out, _ = runCLI("neff", "run", "--exec", "ref", "--json", path)
	var ref runJSON
	if code != 0 || json.Unmarshal([]byte(out), &ref) != nil || len(ref.Transfers) != 6 || ref.Model != nil {
		t.Fatalf("ref: exit %d, %s", code, out)
	}
	seen := map[string]bool{} // in the reference's issue order (no clock): each block once
	for i, tr := range ref.Transfers {
		if tr.Block == nil || tr.Bytes != 128*4000 || tr.Timing != "none" || tr.EndNS != 0 {
			t.Errorf("ref transfer %d: %+v", i, tr)
			continue
		}
		seen[fmt.Sprintf("%s %s %d", tr.Engine, tr.Queue, *tr.Block)] = true
	}
	for _, w := range want {
		if !seen[fmt.Sprintf("%s %s %d", w.engine, w.queue, w.block)] {
			t.Errorf("ref: no transfer of %+v", w)
		}
	}
	// without --engine-time the compute model times the add (128 × 1000
	// fp32 on the DVE: hw-timing §5 measures 1201 ns): Pool fires within
	// 2 % of that after block 1
	code, out, _ = runCLI("neff", "run", "--json", path)
	var model runJSON
	if code != 0 || json.Unmarshal([]byte(out), &model) != nil || model.Transfers[0].Packets != nil {
		t.Fatalf("no engine time: exit %d", code)
	}
	if d := model.Transfers[4].IssueNS - model.Transfers[1].EndNS; math.Abs(float64(d)-(1201+36)) > 0.02*1201 {
		t.Errorf("no engine time: pool issued %d ns after block 1's end, measured add 1201 ns and wake 36", d)
	}
}

// The human report states the engine-time assumption and each queue's
// window; the timeline has the DMA engines as tracks.
func TestNEFFRunTimingReport(t *testing.T) {
	path := hwNEFF(t)
	tl := filepath.Join(t.TempDir(), "tl.json")
	code, out, errs := runCLI("neff", "run", "--engine-time", "0x41=1200", "--timeline", tl, path)
	if code != 0 {
		t.Fatalf("exit %d: %s%s", code, out, errs)
	}
	for _, want := range []string{"engine times: TENSOR_TENSOR 1.200 µs, every other word of the compute and control engines by the compute model", "kernel time", "critical path (6 segments, µs), first to last:", "0.457–7.254     qSPIO0 block 3 (moving from 4.701)\n", "0.000–0.457     SP 0x0–0x140 (6 words)\n", "8.454–8.535     POOL 0xc0\n", "sg00 queue qSPIO0: 4 transfers, window ", "sg00 queue qPoolIO0: 2 transfers"} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
	b, err := os.ReadFile(tl)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Events []struct {
			Name string         `json:"name"`
			Ph   string         `json:"ph"`
			Tid  int            `json:"tid"`
			Args map[string]any `json:"args"`
		} `json:"traceEvents"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	tracks, packets := map[string]bool{}, 0
	for _, e := range doc.Events {
		if e.Ph == "M" {
			if n, _ := e.Args["name"].(string); strings.HasPrefix(n, "DMA engine ") {
				tracks[n] = true
			}
		}
		if e.Ph == "X" && strings.HasPrefix(e.Name, "q") {
			packets++
		}
	}
	if len(tracks) != 16 || packets != 6*128 { // 16 engines; 6 transfers of 128 packets
		t.Errorf("%d DMA engine tracks, %d packets", len(tracks), packets)
	}
}

func TestNEFFRunEngineTimeErrors(t *testing.T) {
	path := hwNEFF(t)
	for _, tc := range []struct{ arg, want string }{
		{"TENSOR_TENSOR", "want OPCODE=DURATION"},
		{"NOSUCH=1us", "unknown opcode"},
		{"DMAMEMCPY=1us", "ndma computes DMAMEMCPY"},
		{"TENSOR_TENSOR=-1us", "want 0 to 1h"},
		{"TENSOR_TENSOR=soon", "duration \"soon\""},
	} {
		code, _, errs := runCLI("neff", "run", "--engine-time", tc.arg, path)
		if code == 0 || !strings.Contains(errs, tc.want) {
			t.Errorf("--engine-time %s: exit %d, %q; want %q", tc.arg, code, errs, tc.want)
		}
	}
	if code, _, errs := runCLI("neff", "run", "--engine-time", "0x41=1", "--engine-time", "TENSOR_TENSOR=2", path); code == 0 || !strings.Contains(errs, "given twice") {
		t.Errorf("twice: exit %d, %q", code, errs)
	}
	if code, _, errs := runCLI("neff", "run", "--packets", path); code == 0 || !strings.Contains(errs, "give --json too") {
		t.Errorf("--packets alone: exit %d, %q", code, errs)
	}
}

// `neff lint`'s descriptor cost is the sum of `neff lower --stats`' per
// stream: both count the words one after another, a fired block without a
// DGE instruction (its descriptors were built at load) — before, lower
// --stats added 600 ns a fired block that lint did not.
func TestLintAndLowerStatsCostAgree(t *testing.T) {
	path := writeNEFF(t, t.TempDir(), "transpose.neff", neffgen.HWTranspose("cayman"))
	num := func(s, after string) float64 {
		i := strings.Index(s, after)
		if i < 0 {
			t.Fatalf("no %q in\n%s", after, s)
		}
		var v float64
		if _, err := fmt.Sscan(s[i+len(after):], &v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	_, lint, _ := runCLI("neff", "lint", path)
	_, lower, _ := runCLI("neff", "lower", "--stats", path)
	var sum float64
	for _, part := range strings.Split(lower, "descriptor cost ")[1:] {
		sum += num("descriptor cost "+part, "descriptor cost ")
	}
	if l := num(lint, "descriptor cost "); sum == 0 || math.Abs(l-sum) > 0.002 {
		t.Errorf("lint %.3f µs, lower --stats' streams %.3f µs in all", l, sum)
	}
}

// Under --dma-only the outputs' warning says the user asked for it (the
// compute words ran for their EVENTS only), not that ndma cannot compute
// them; a whole run of the same NEFF computes them and warns of nothing.
func TestDMAOnlyWarningSaysWhy(t *testing.T) {
	path := writeNEFF(t, t.TempDir(), "conv.neff", neffgen.HWConv2dF16Small())
	_, out, _ := runCLI("neff", "run", "--dma-only", path)
	if !strings.Contains(out, "may not hold the kernel's values: --dma-only ran the compute words for their EVENTS only (") {
		t.Errorf("--dma-only:\n%s", out)
	}
	if _, out, _ := runCLI("neff", "run", path); strings.Contains(out, "may not hold the kernel's values") {
		t.Errorf("a whole run warns:\n%s", out)
	}
}
