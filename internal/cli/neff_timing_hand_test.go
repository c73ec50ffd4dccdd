package cli

import (
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"
)

// An independent review of issue 19 on hw-timing.md's vector add, every
// figure worked by hand from the document and the model's stated rules
// (docs/sim.md, timing/params.go), then checked on `neff run --json`.
//
// Packets, from hw-timing.md: "Every transfer is spread over all 16
// engines of the queue set (num_queues 16), each engine taking the rows of
// 8 partitions; each engine's pieces are cut into packets of at most the
// contiguous run. Each engine's last packet of a block carries 4 extra
// bytes." A block is "from_sizes [4000, 128]": 128 rows of 4000 B, so an
// engine takes 128 / 16 = 8 rows, one 4000-byte packet each, the last
// 4004 B: 7·4000 + 4004 = 32,004 B an engine, 16 · 32,004 = 512,064 B —
// the table's "512,064" bytes a transfer.
//
// Times, by hand from the model's rules (docs/sim.md "Kernel time",
// timing/params.go and compute.go): every stream starts with
// SET_ORDERING_MODE (12.5 → 13 ns) and PSEUDO_BRANCH_LABEL (44 ns), so SP's
// triggers issue at 57, 157, 257, 357 (100 ns a trigger). A packet of 4000
// or 4004 B takes 8 + 4000/27.1 → 156 ns of data; an engine's last packet's
// write-done lag is 450 ns. An SP-issued block's engine e may start 900 +
// 57e ns after its trigger; each engine runs its 8 packets back to back,
// load k after load k−1: engine 0 of load k starts at 957 + 8·156·k =
// 957 + 1248k, engine 15 ends 15·57 + 1248 + 450 = 2553 ns after that
// (its own start: load k−1's engine 15 frees it later than its ready
// time). The DVE add (given 1.200 µs) waits load 1 and load 3 (a block's
// semaphore reaches the DVE as the block ends: hw-timing §4.1 −71, +10 ns);
// Pool's store k fires 36 ns after the add's end (its semaphore reaching
// Pool: hw-timing §4.1 "TT end → Pool trigger +37, +35"; Pool-issued: 770
// ns, SB reads 14 ns an engine): store 0 at 4758 + 1200 + 36 = 5994, first
// packet 6764, end 6764 + 210 + 1248 + 450 = 8672; store 1 at 7254 + 1200
// + 36 = 8490 → 9260–11168. The kernel ends with Pool's NOP waiting store
// 1: 11168 + 22 = 11190.
func TestVectorAddTimingByHand(t *testing.T) {
	path := hwNEFF(t)
	code, out, errs := runCLI("neff", "run", "--json", "--packets", "--engine-time", "TENSOR_TENSOR=1.2us", path)
	if code != 0 {
		t.Fatalf("exit %d: %s%s", code, out, errs)
	}
	var doc runJSON
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("--json does not parse: %v\n%s", err, out)
	}
	type win struct{ issue, start, end int64 }
	hand := []win{
		{57, 957, 3510}, {157, 2205, 3510 + 1248}, {257, 3453, 3510 + 2*1248}, {357, 4701, 3510 + 3*1248},
		{5994, 6764, 8672}, {8490, 9260, 11168},
	}
	// hw-timing.md kernel 1's transfer table (µs): "qSPIO0 | 0 | 512,064 |
	// 1.088 – 3.731" … "qPoolIO0 | 1 | 512,064 | 9.846 – 11.765"
	measured := [][2]float64{{1.088, 3.731}, {2.868, 5.451}, {4.084, 6.707}, {5.299, 7.927}, {7.407, 9.325}, {9.846, 11.765}}
	if len(doc.Transfers) != len(hand) {
		t.Fatalf("%d transfers, want %d", len(doc.Transfers), len(hand))
	}
	within := func(got int64, want float64) bool { return math.Abs(float64(got)/1000-want) <= 0.25*want }
	for i, tr := range doc.Transfers {
		// the table's bytes are the packets' (payload + 16 semaphore
		// writes of 4 bytes); bytes is the payload, 128 rows × 4000
		if tr.PacketBytes != 512064 || tr.Bytes != 128*4000 {
			t.Errorf("transfer %d: %d bytes in packets of %d, want 512,000 in 512,064", i, tr.Bytes, tr.PacketBytes)
		}
		h := hand[i]
		if tr.IssueNS != h.issue || tr.StartNS != h.start || tr.EndNS != h.end {
			t.Errorf("transfer %d (%s block %v): issued %d, window %d–%d; by hand %d, %d–%d", i, tr.Queue, tr.Block, tr.IssueNS, tr.StartNS, tr.EndNS, h.issue, h.start, h.end)
		}
		m := measured[i]
		if !within(tr.StartNS, m[0]) || !within(tr.EndNS, m[1]) || !within(tr.EndNS-tr.StartNS, m[1]-m[0]) {
			t.Errorf("transfer %d: window %d–%d ns, measured %.3f–%.3f µs: more than 25 %% off", i, tr.StartNS, tr.EndNS, m[0], m[1])
		}
		perEngine := map[int][]int64{}
		for _, p := range tr.Packets {
			perEngine[p.DMAEngine] = append(perEngine[p.DMAEngine], p.Bytes)
		}
		if len(perEngine) != 16 {
			t.Errorf("transfer %d on %d DMA engines, want 16", i, len(perEngine))
		}
		for e, bs := range perEngine {
			want := []int64{4000, 4000, 4000, 4000, 4000, 4000, 4000, 4004}
			if !slices.Equal(bs, want) {
				t.Errorf("transfer %d engine %d: packets %v, want %v", i, e, bs, want)
			}
		}
	}
	// the kernel: the NOP after store 1, 11.190 µs, within 15 % of "kernel 11.765 µs"
	if doc.TimeNS != 11190 || math.Abs(float64(doc.TimeNS)/1000-11.765) > 0.15*11.765 {
		t.Errorf("kernel %d ns, by hand 11190 (measured 11.765 µs)", doc.TimeNS)
	}
}

// Untrusted --engine-time values: each a usage error naming the argument,
// never a run. The pseudo words a run replaces by DMA words (0xc1, 0xd4,
// 0xce) are refused like the words ndma computes: a time given them would
// be printed as an assumption and silently ignored (the DMA model times
// what they resolve to).
func TestEngineTimeUntrusted(t *testing.T) {
	path := hwNEFF(t)
	for _, tc := range []struct{ arg, want string }{
		{"=5", "want OPCODE=DURATION"},
		{"TENSOR_TENSOR=", "want OPCODE=DURATION"},
		{"TENSOR_TENSOR=-5", "want 0 to 1h"},
		{"TENSOR_TENSOR=2h", "want 0 to 1h"},
		{"TENSOR_TENSOR=3600000000001", "want 0 to 1h"},
		{"TENSOR_TENSOR=99999999999999999999", "want e.g. 1.2us"},
		{"TENSOR_TENSOR=1e3", "want e.g. 1.2us"},
		{"TENSOR_TENSOR=NaNus", "want e.g. 1.2us"},
		{"0x9999=1", "unknown opcode"},
		{"PSEUDO_DMA_TRIGGER=1us", "resolves to"},
		{"0xc1=1us", "resolves to"},
		{"0xd4=1us", "resolves to"},
		{"0xce=1us", "resolves to"},
	} {
		code, out, errs := runCLI("neff", "run", "--engine-time", tc.arg, path)
		if code != 2 || out != "" || !strings.Contains(errs, "--engine-time \""+tc.arg+"\"") || !strings.Contains(errs, tc.want) {
			t.Errorf("--engine-time %s: exit %d, stdout %q, stderr %q; want exit 2 and %q", tc.arg, code, out, errs, tc.want)
		}
	}
	// the bound itself is accepted: 1h = 3.6e12 ns
	if code, _, errs := runCLI("neff", "run", "--engine-time", "TENSOR_TENSOR=1h", path); code != 0 {
		t.Errorf("1h: exit %d %s", code, errs)
	}
}
