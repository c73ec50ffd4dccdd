package timing

import (
	"strings"
	"testing"

	"ndma/isa"
)

// counts tallies packets by bytes.
func counts(ps []Packet) map[int64]int {
	out := map[int64]int{}
	for _, p := range ps {
		out[p.Bytes]++
	}
	return out
}

func fire(t *testing.T, m *Model, tr *Transfer, at int64) Result {
	t.Helper()
	r, err := m.Fire(tr, at)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// The packets of hw-timing's blocks, as its tables count them.
func TestPackets(t *testing.T) {
	for _, tc := range []struct {
		name  string
		tr    Transfer
		want  map[int64]int
		bytes int64
	}{
		// kernel 1: "each block: from_sizes [4000, 128] ..."; the packet
		// table: 4000-byte packets and "4004 (last packet of a block on an
		// engine: +4 B, the semaphore write)"; 512,064 bytes a transfer
		{"vector-add load", Transfer{Engines: 16, From: HBM, To: SB, Rows: []Run{{4000, 128}}}, map[int64]int{4000: 7 * 16, 4004: 16}, 512064},
		// kernel 2: "128 partitions × 512 bytes (64 KiB), i.e. 16 engines ×
		// one 4100-byte packet"
		{"transpose tile", Transfer{Engines: 16, From: HBM, To: SB, Rows: []Run{{512, 128}}}, map[int64]int{4100: 16}, 65600},
		// kernel 2's cast: "144 packets (128 × 512 B + 16 × 4 B)", 65,600 bytes
		{"identity cast", Transfer{Engines: 16, From: HBM, To: SB, Cast: true, Rows: []Run{{512, 128}}}, map[int64]int{512: 128, 4: 16}, 65600},
		// a row past the packet size is cut at 4096 (neff.md §4.8's 4 KiB packet)
		{"long rows", Transfer{Engines: 1, From: HBM, To: HBM, Rows: []Run{{10000, 2}}}, map[int64]int{4096: 4, 1808: 1, 1812: 1}, 20004},
		// rows of two sizes pack across the run boundary; an engine with
		// no rows still writes its semaphore
		// (5 engines, 4 rows: engine e takes rows [4e/5, 4(e+1)/5), so engine 0 none)
		{"mixed runs", Transfer{Engines: 5, From: SB, To: SB, Rows: []Run{{1000, 3}, {96, 1}}}, map[int64]int{4: 1, 1004: 3, 100: 1}, 3096 + 5*4},
		{"packing across runs", Transfer{Engines: 1, From: SB, To: SB, Rows: []Run{{1000, 3}, {96, 2}}}, map[int64]int{3000 + 2*96 + 4: 1}, 3196},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := New(Trn2())
			m.Keep = true
			r := fire(t, m, &tc.tr, 0)
			got := counts(r.Packets)
			if len(got) != len(tc.want) {
				t.Fatalf("packets by size %v, want %v", got, tc.want)
			}
			for b, n := range tc.want {
				if got[b] != n {
					t.Errorf("packets by size %v, want %v", got, tc.want)
				}
			}
			if r.Bytes != tc.bytes || r.NPackets != len(r.Packets) {
				t.Errorf("%d bytes in %d packets (%d kept), want %d bytes", r.Bytes, r.NPackets, len(r.Packets), tc.bytes)
			}
		})
	}
}

// The data times and lags at hw-timing's measured points.
func TestPacketTimes(t *testing.T) {
	p := Trn2()
	for _, tc := range []struct {
		bytes  int64
		lo, hi int64 // data time (start → data done), ns
	}{
		{4, 22, 22}, {512, 61, 61}, {4000, 155, 155}, // the medians
		{4004, 155, 156}, // median 156
		{4100, 158, 261}, // "173–178 ns (158–261 ...)": the uncontended end
	} {
		if got := p.DataTime(tc.bytes); got < tc.lo || got > tc.hi {
			t.Errorf("data time of %d bytes: %d ns, measured %d–%d", tc.bytes, got, tc.lo, tc.hi)
		}
	}
	for _, tc := range []struct {
		bytes  int64
		last   bool
		lo, hi int64
	}{
		{4000, false, 268, 275}, {512, false, 218, 218}, {4004, true, 468, 471}, {4100, true, 483, 483}, {4, true, 421, 421},
	} {
		if got := p.Lag(tc.bytes, tc.last); got < tc.lo || got > tc.hi {
			t.Errorf("lag of %d bytes (last %v): %d ns, measured %d–%d", tc.bytes, tc.last, got, tc.lo, tc.hi)
		}
	}
}

// One engine's packets run back to back (hw-timing: the next starts at the
// previous one's data done), the window by hand: 8 rows of 4000 B on one
// engine, SB to SB, triggered at 0 — the first packet at StartNS 1046 (the
// trigger's 740 ns is earlier), 8 data phases of 155 ns, the last lag 470:
// 1046 + 8·155 + 470 = 2756.
func TestOneEngine(t *testing.T) {
	m := New(Trn2())
	m.Keep = true
	r := fire(t, m, &Transfer{Engines: 1, From: SB, To: SB, Rows: []Run{{4000, 8}}}, 0)
	if r.StartNS != 1046 || r.EndNS != 1046+8*155+470 {
		t.Errorf("window %d–%d ns, want 1046–%d", r.StartNS, r.EndNS, 1046+8*155+470)
	}
	for k := 1; k < len(r.Packets); k++ {
		if r.Packets[k].StartNS != r.Packets[k-1].DataDoneNS {
			t.Errorf("packet %d starts at %d, the one before's data done at %d", k, r.Packets[k].StartNS, r.Packets[k-1].DataDoneNS)
		}
	}
	// a second transfer on the same engine waits for its data path: the
	// queue is in order
	r2 := fire(t, m, &Transfer{Engines: 1, From: SB, To: SB, Rows: []Run{{4000, 1}}}, 0)
	if r2.StartNS != 1046+8*155 || r2.EndNS != r2.StartNS+155+470 {
		t.Errorf("second window %d–%d, want %d–%d", r2.StartNS, r2.EndNS, 1046+8*155, 1046+8*155+155+470)
	}
	// fired later than the engines are free: at its trigger + 740
	r3 := fire(t, m, &Transfer{Engines: 1, From: SB, To: SB, Rows: []Run{{4000, 1}}}, 10000)
	if r3.StartNS != 10740 {
		t.Errorf("third starts at %d, want 10740", r3.StartNS)
	}
}

// The engines of a transfer start staggered by where it reads, and an HBM
// read of many short rows is held by its rows' cost.
func TestStaggerAndHBMRows(t *testing.T) {
	p := Trn2()
	m := New(p)
	m.Keep = true
	r := fire(t, m, &Transfer{Engines: 16, From: HBM, To: SB, Rows: []Run{{4000, 16}}}, 0)
	for _, pk := range r.Packets {
		if want := p.StartNS + int64(pk.Engine)*p.StaggerHBMNS; pk.StartNS != want {
			t.Errorf("engine %d starts at %d, want %d", pk.Engine, pk.StartNS, want)
		}
	}
	// 8 rows of 512 B on one engine, twice: the second packet waits for
	// the first's 8 row reads (8·30 ns), longer than its data phase
	m = New(p)
	tr := &Transfer{Engines: 1, From: HBM, To: SB, Rows: []Run{{512, 8}}}
	a, b := fire(t, m, tr, 0), fire(t, m, tr, 0)
	if b.StartNS != a.StartNS+8*p.HBMReadRowNS {
		t.Errorf("second starts at %d, want %d", b.StartNS, a.StartNS+8*p.HBMReadRowNS)
	}
}

func TestFor(t *testing.T) {
	if got := For(isa.Cayman); got.Source != Trn2().Source || got.DataTime(4000) != 155 {
		t.Errorf("cayman: %q, 4000 B in %d ns", got.Source, got.DataTime(4000))
	}
	for _, g := range []isa.Gen{isa.Maverick, isa.MarianaPlus} {
		if p := For(g); !strings.Contains(p.Source, "carried over from Trn2") || p.DataTime(4000) != 155 {
			t.Errorf("%s: %q, %d ns", g, p.Source, p.DataTime(4000))
		}
	}
	// Trn1 moves 17 B/ns where Trn2 moves 23 (neff.md §4.8): the per-byte
	// part of 4000 B (155 − 22 ns) scales by 23/17
	perByte := 133 * 23.0 / 17
	if got, want := For(isa.Sunda).DataTime(4000), int64(22+perByte+0.5); got != want {
		t.Errorf("sunda: 4000 B in %d ns, want %d", got, want)
	}
}

func TestFireErrors(t *testing.T) {
	m := New(Trn2())
	for _, tr := range []Transfer{
		{Queue: "q", Engines: 1 << 20, Rows: []Run{{4, 1}}},
		{Queue: "q", Rows: []Run{{0, 1}}},
		{Queue: "q", Rows: []Run{{4, -1}}},
	} {
		if _, err := m.Fire(&tr, 0); err == nil || !strings.Contains(err.Error(), "queue q") {
			t.Errorf("%+v: %v, want a located error", tr, err)
		}
	}
}

// FuzzFire: any transfer the model accepts has its bytes in its packets
// (every row and one semaphore write per engine), each packet's times in
// order, and its window spanning them.
func FuzzFire(f *testing.F) {
	f.Add(uint8(16), uint16(4000), uint16(128), uint16(96), uint8(3), false, false)
	f.Add(uint8(1), uint16(9000), uint16(2), uint16(0), uint8(0), true, true)
	f.Add(uint8(5), uint16(1), uint16(7), uint16(4097), uint8(9), false, true)
	f.Fuzz(func(t *testing.T, engines uint8, b1, n1, b2 uint16, n2 uint8, cast, hbm bool) {
		tr := &Transfer{Engines: int(engines), Cast: cast, Rows: []Run{{int64(b1), int64(n1)}, {int64(b2), int64(n2)}}}
		if hbm {
			tr.From, tr.To = HBM, HBM
		}
		m := New(Trn2())
		m.Keep = true
		r, err := m.Fire(tr, 0)
		if err != nil {
			return
		}
		e := int64(max(int(engines), 1))
		if engines == 0 {
			e = 16
		}
		var rows int64
		for _, run := range tr.Rows {
			rows += run.Count
		}
		sems := e * 4
		if want := tr.Bytes() + sems; r.Bytes != want {
			t.Fatalf("%d packet bytes, want %d", r.Bytes, want)
		}
		for _, p := range r.Packets {
			if p.StartNS < r.StartNS || p.DataDoneNS < p.StartNS || p.WriteDoneNS < p.DataDoneNS || p.WriteDoneNS > r.EndNS {
				t.Fatalf("packet %+v outside the window %d–%d", p, r.StartNS, r.EndNS)
			}
		}
	})
}
