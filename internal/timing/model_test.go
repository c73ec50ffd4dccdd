package timing

import (
	"slices"
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

func alone(t *testing.T, p Params, tr *Transfer) Result {
	t.Helper()
	r, err := Time(p, tr, 0, true)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// The packets of hw-timing §2.1's blocks, per engine as its ring metadata
// counts them (16 engines, 8 of the 128 rows each), one law a case.
func TestPacketLaws(t *testing.T) {
	trn2, trn1 := Trn2(), Trn1()
	for _, tc := range []struct {
		name string
		p    Params
		tr   Transfer
		want map[int64]int // packets by bytes over all 16 engines
	}{
		// strided DRAM rows packed up to 4096 B: stream fd1k rows of 4000 B → 7 × 4000 + 4004
		{"strided 4000-B rows", trn2, Transfer{From: HBM, To: SB, Rows: []Run{{Bytes: 4000, Count: 128}}}, map[int64]int{4000: 7 * 16, 4004: 16}},
		// conv2d_2 X rows of 1792 B → 2 rows = 3584 B a packet: 4 × 3584 (+4 last)
		{"strided 1792-B rows", trn2, Transfer{From: HBM, To: SB, Rows: []Run{{Bytes: 1792, Count: 128}}}, map[int64]int{3584: 3 * 16, 3588: 16}},
		// transpose [512 128] → one 4096(+4)-B packet an engine
		{"strided 512-B rows", trn2, Transfer{From: HBM, To: SB, Rows: []Run{{Bytes: 512, Count: 128}}}, map[int64]int{4100: 16}},
		// a row past 4096 B travels whole (no 4 KiB cap): conv2d_3 W rows of 4608 B
		{"no 4 KiB cap", trn2, Transfer{From: HBM, To: SB, Rows: []Run{{Bytes: 4608, Count: 128}}}, map[int64]int{4608: 7 * 16, 4612: 16}},
		// contiguous DRAM side: the engine's share ≤ 4096 B is one packet (conv2d_3 SB → out 8 × 512)
		{"contiguous share ≤ 4 KiB", trn2, Transfer{From: SB, To: HBM, Rows: []Run{{Bytes: 512, Count: 128, Contiguous: true}}}, map[int64]int{4100: 16}},
		// else two equal packets: conv2d_4 output 8 × 840 = 6720 → 3360 + 3364
		{"contiguous share in two", trn2, Transfer{From: SB, To: HBM, Rows: []Run{{Bytes: 840, Count: 128, Contiguous: true}}}, map[int64]int{3360: 16, 3364: 16}},
		// conv2d_3 out reload 8 × 4608 → 2 × 18,432(+4)
		{"contiguous 36 KiB share", trn2, Transfer{From: HBM, To: SB, Rows: []Run{{Bytes: 4608, Count: 128, Contiguous: true}}}, map[int64]int{18432: 16, 18436: 16}},
		// tiny rows packed: bias [2 128] fp16 → 8 × 2 + 4 = 20 B
		{"tiny rows", trn2, Transfer{From: HBM, To: SB, Rows: []Run{{Bytes: 2, Count: 128, Contiguous: true}}}, map[int64]int{20: 16}},
		// casts: one row a packet, the semaphore its own 4-B packet (8 × 512 + 4 an engine)
		{"cast", trn2, Transfer{From: HBM, To: SB, Cast: true, Rows: []Run{{Bytes: 512, Count: 128}}}, map[int64]int{512: 128, 4: 16}},
		// C1: conv2d_2 W, 16,384 two-byte element descriptors: 16 × 128-B packets + 1 × 4 B an engine
		{"element descriptors", trn2, Transfer{From: HBM, To: HBM, Rows: []Run{{Bytes: 2, Count: 16384, Element: 2}}}, map[int64]int{128: 16 * 16, 4: 16}},
		// C6: conv2d_2 output [33,032 128] + [65,536 128] → 8 × 33,032 + 7 × 65,536 + 65,540 an engine
		{"per-descriptor split", trn2, Transfer{From: SB, To: HBM, Rows: []Run{{Bytes: 33032, Count: 128}, {Bytes: 65536, Count: 128}}}, map[int64]int{33032: 8 * 16, 65536: 7 * 16, 65540: 16}},
		// trn1: 8 × 4000 contiguous → 2 × 16,000 and the semaphore its own packet
		{"trn1 contiguous", trn1, Transfer{From: HBM, To: SB, Rows: []Run{{Bytes: 4000, Count: 128, Contiguous: true}}}, map[int64]int{16000: 32, 4: 16}},
		// trn1's 32,000-B packet limit: a 40,000-B row is cut
		{"trn1 packet limit", trn1, Transfer{Engines: 1, From: SB, To: HBM, Rows: []Run{{Bytes: 40000, Count: 1}}}, map[int64]int{32000: 1, 8000: 1, 4: 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := alone(t, tc.p, &tc.tr)
			got := counts(r.Packets)
			if len(got) != len(tc.want) {
				t.Fatalf("packets by size %v, want %v", got, tc.want)
			}
			for b, n := range tc.want {
				if got[b] != n {
					t.Fatalf("packets by size %v, want %v", got, tc.want)
				}
			}
		})
	}
}

// Packet times at hw-timing §2.2's measured points (within their spread).
func TestPacketTimes(t *testing.T) {
	p := Trn2()
	for _, tc := range []struct {
		bytes  int64
		lo, hi int64
	}{
		{4, 9, 22}, {36, 9, 9}, {256, 35, 35}, {512, 61, 61}, {2304, 93, 93}, {3584, 138, 144}, {4000, 150, 158}, {4608, 173, 181},
		{8192, 300, 312}, {18436, 680, 700}, {33032, 1215, 1240}, {65536, 2400, 2430},
	} {
		if got := p.DataTime(tc.bytes, SB); got < tc.lo || got > tc.hi {
			t.Errorf("trn2 data time of %d B: %d ns, measured %d–%d", tc.bytes, got, tc.lo, tc.hi)
		}
	}
	// trn1 §2.8: 16,000 B in 924 ns DRAM→SB, 672 ns SB→DRAM
	q := Trn1()
	if got := q.DataTime(16000, SB); got < 915 || got > 940 {
		t.Errorf("trn1 16,000 B to SB: %d ns, measured 924", got)
	}
	if got := q.DataTime(16000, HBM); got < 665 || got > 690 {
		t.Errorf("trn1 16,000 B to DRAM: %d ns, measured 672", got)
	}
	// lags: §2.2 222–291 / 257–302 ns, last 418–485 ns
	for _, tc := range []struct {
		to     Mem
		last   bool
		lo, hi int64
	}{{SB, false, 222, 291}, {HBM, false, 257, 302}, {SB, true, 418, 485}, {HBM, true, 418, 485}} {
		if got := p.Lag(tc.to, tc.last); got < tc.lo || got > tc.hi {
			t.Errorf("lag to %v (last %v): %d, measured %d–%d", tc.to, tc.last, got, tc.lo, tc.hi)
		}
	}
}

// One engine, one queue: packets back to back, the window by hand.
// 8 rows of 4000 B, SB → SB, fired at 0 by Pool: the first packet at
// TriggerNS, 8 data phases of DataTime(4000), the last lag.
func TestOneEngine(t *testing.T) {
	p := Trn2()
	tr := &Transfer{Engines: 1, From: SB, To: SB, Issuer: "pool", Rows: []Run{{Bytes: 4000, Count: 8}}}
	r := alone(t, p, tr)
	d := p.DataTime(4000, SB)
	want := p.TriggerNS + 7*d + p.DataTime(4004, SB) + p.LastLagNS
	if r.StartNS != p.TriggerNS || r.EndNS != want {
		t.Errorf("window %d–%d ns, want %d–%d", r.StartNS, r.EndNS, p.TriggerNS, want)
	}
	for k := 1; k < len(r.Packets); k++ {
		if r.Packets[k].StartNS != r.Packets[k-1].DataDoneNS {
			t.Errorf("packet %d starts at %d, the one before's data done at %d", k, r.Packets[k].StartNS, r.Packets[k-1].DataDoneNS)
		}
	}
	// SP's triggers take longer to reach the engines (§2.2)
	tr.Issuer = "sp"
	if r := alone(t, p, tr); r.StartNS != p.TriggerSPNS {
		t.Errorf("SP-issued: first packet at %d, want %d", r.StartNS, p.TriggerSPNS)
	}
}

// C4: two queues' transfers on one engine alternate packet by packet
// (hw-timing §2.4), each stretched; one queue's transfers stay in order.
func TestRoundRobin(t *testing.T) {
	m := New(Trn2())
	m.Keep = true
	a := &Transfer{Queue: "qA", Engines: 1, From: SB, To: SB, Rows: []Run{{Bytes: 2304, Count: 8}}}
	b := &Transfer{Queue: "qB", Engines: 1, From: SB, To: SB, Rows: []Run{{Bytes: 256, Count: 8}}, Cast: true, Issuer: "act"} // another issuer: both ready at once (DispatchInOrder)
	ia, _ := m.Fire(a, 0)
	ib, _ := m.Fire(b, 0)
	m.Finish()
	ra, rb := m.Result(ia), m.Result(ib)
	var order []string
	all := append(append([]Packet{}, ra.Packets...), rb.Packets...)
	for len(all) > 0 { // by start
		k := 0
		for i := range all {
			if all[i].StartNS < all[k].StartNS {
				k = i
			}
		}
		q := "A"
		if all[k].Bytes <= 256 {
			q = "B"
		}
		order = append(order, q)
		all = append(all[:k], all[k+1:]...)
	}
	if got := strings.Join(order, ""); !strings.HasPrefix(got, "ABABABAB") {
		t.Errorf("service order %s, want the queues alternating", got)
	}
	aloneA := alone(t, Trn2(), a)
	if ra.EndNS-ra.StartNS <= aloneA.EndNS-aloneA.StartNS {
		t.Errorf("A shared %d ns, alone %d: sharing the engine must stretch it", ra.EndNS-ra.StartNS, aloneA.EndNS-aloneA.StartNS)
	}
}

// trn1's semaphore is a 4-B packet of its own; it follows its block's last
// data packet on the engine though another queue has a packet ready, as
// trn2's semaphore rides inside that packet (RATIONALE.md). By hand, from
// docs/sim.md's trn1 figures (16,000 B to SB 925 ns at 17.3 B/ns, to DRAM
// 672 at 23.8; an SP queue's next packet 88 ns after its last, a Pool
// queue's 127; the semaphore packet 7 ns and 84 of lag; triggers 476 / 558):
// load p0 476–1401; the store, ready since 558, takes the turn: 1401–2073;
// load p1 2073–2998; its semaphore 2998 + 88 = 3086–3093, ending 3177; the
// store's second packet only then, at 3093 (round robin would have put it
// at 2998, before the semaphore).
func TestSemaphoreBehind(t *testing.T) {
	m := New(Trn1())
	m.Keep = true
	load := &Transfer{Queue: "qSPIO0", Engines: 1, From: HBM, To: SB, Issuer: "sp", Rows: []Run{{Bytes: 4000, Count: 8, Contiguous: true}}}
	store := &Transfer{Queue: "qPoolIO0", Engines: 1, From: SB, To: HBM, Issuer: "pool", Rows: []Run{{Bytes: 4000, Count: 8, Contiguous: true}}}
	il, _ := m.Fire(load, 0)
	is, _ := m.Fire(store, 0)
	m.Finish()
	rl, rs := m.Result(il), m.Result(is)
	starts := func(pks []Packet) (s []int64) {
		for _, pk := range pks {
			s = append(s, pk.StartNS)
		}
		return s
	}
	if got, want := starts(rl.Packets), []int64{476, 2073, 3086}; !slices.Equal(got, want) || rl.EndNS != 3177 {
		t.Errorf("load packets start %v, end %d; by hand %v, 3177", got, rl.EndNS, want)
	}
	if got, want := starts(rs.Packets), []int64{1401, 3093, 3093 + 672 + 127}; !slices.Equal(got, want) {
		t.Errorf("store packets start %v; by hand %v", got, want)
	}
}

// A later trigger delays a planned transfer that has not started yet (End
// changes), never one whose packets have all started.
func TestRetime(t *testing.T) {
	m := New(Trn2())
	a := &Transfer{Queue: "qA", Engines: 1, From: SB, To: SB, Rows: []Run{{Bytes: 4000, Count: 64}}}
	b := &Transfer{Queue: "qB", Engines: 1, From: SB, To: SB, Rows: []Run{{Bytes: 4000, Count: 64}}, Issuer: "act"}
	ia, _ := m.Fire(a, 0)
	before := m.End(ia)
	if _, err := m.Fire(b, 0); err != nil {
		t.Fatal(err)
	}
	if after := m.End(ia); after <= before {
		t.Errorf("A ends at %d after B fired, %d before: B's packets alternate with A's", after, before)
	}
	m2 := New(Trn2())
	ic, _ := m2.Fire(a, 0)
	end := m2.End(ic)
	if _, err := m2.Fire(b, end); err != nil { // fired after A's last packet started
		t.Fatal(err)
	}
	if got := m2.End(ic); got != end {
		t.Errorf("A's end moved from %d to %d by a trigger after it", end, got)
	}
}

// C3: a queue firing blocks faster than its engines' writes complete sees
// each transfer last longer than the one before: hw-timing §4.2's
// transpose qPoolIO0, 4100-B packets of 8 strided DRAM rows, a block every
// ~0.17 µs, "durations grow steadily from 0.9 to 2.4 µs" over 64 blocks
// (24 ns a block).
func TestWriteBacklog(t *testing.T) {
	m := New(Trn2())
	var ids []int
	for k := 0; k < 64; k++ {
		tr := &Transfer{Queue: "qPoolIO0", Engines: 16, From: SB, To: HBM, Issuer: "pool", Rows: []Run{{Bytes: 512, Count: 128}}}
		id, err := m.Fire(tr, int64(k)*170)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	m.Finish()
	first, last := m.Result(ids[0]), m.Result(ids[len(ids)-1])
	growth := float64((last.EndNS-last.StartNS)-(first.EndNS-first.StartNS)) / float64(len(ids)-1)
	if growth < 15 || growth > 35 {
		t.Errorf("transfers grow %.1f ns a block, measured ≈ 24", growth)
	}
}

// C1: element descriptors clear at ElementWriteNS each on an engine: a
// block of 1024 descriptors an engine takes ~105 µs (hw-timing §2.5:
// 3785 µs over 36 blocks).
func TestElementThroughput(t *testing.T) {
	m := New(Trn2())
	tr := &Transfer{Queue: "qSPIO0", Engines: 16, From: HBM, To: HBM, Issuer: "sp", Rows: []Run{{Bytes: 2, Count: 16384, Element: 2}}}
	var last int
	for k := 0; k < 8; k++ {
		last, _ = m.Fire(tr, 0)
	}
	m.Finish()
	per := float64(m.Result(last).EndNS) / 8 / 1000
	if per < 95 || per > 115 {
		t.Errorf("%.1f µs a block, measured ≈ 105", per)
	}
}

func TestFor(t *testing.T) {
	if got := For(isa.Cayman); got.Gen != "CAYMAN" || got.MaxPacketBytes != 64<<10 {
		t.Errorf("cayman: %+v", got)
	}
	if got := For(isa.Sunda); got.Gen != "SUNDA" || got.MaxPacketBytes != 32000 || !got.SemaphoreOwnPacket {
		t.Errorf("sunda: %+v", got)
	}
	for _, g := range []isa.Gen{isa.Maverick, isa.MarianaPlus} {
		if p := For(g); !strings.Contains(p.Source, "carried over from trn2") {
			t.Errorf("%s: %q", g, p.Source)
		}
	}
}

func TestFireErrors(t *testing.T) {
	m := New(Trn2())
	for _, tr := range []Transfer{
		{Queue: "q", Engines: 1 << 20, Rows: []Run{{Bytes: 4, Count: 1}}},
		{Queue: "q", Rows: []Run{{Bytes: 0, Count: 1}}},
		{Queue: "q", Rows: []Run{{Bytes: 4, Count: -1}}},
		{Queue: "q", Rows: []Run{{Bytes: 4, Count: 1 << 40}}},
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
	f.Add(uint8(16), uint16(4000), uint16(128), uint16(96), uint8(3), false, false, false)
	f.Add(uint8(1), uint16(9000), uint16(2), uint16(0), uint8(0), true, true, true)
	f.Add(uint8(5), uint16(1), uint16(7), uint16(4097), uint8(9), false, true, false)
	f.Fuzz(func(t *testing.T, engines uint8, b1, n1, b2 uint16, n2 uint8, cast, hbm, contig bool) {
		tr := &Transfer{Engines: int(engines), Cast: cast, From: SB, To: HBM,
			Rows: []Run{{Bytes: int64(b1), Count: int64(n1), Contiguous: contig}, {Bytes: int64(b2), Count: int64(n2)}}}
		if hbm {
			tr.From = HBM
		}
		r, err := Time(Trn2(), tr, 0, true)
		if err != nil {
			return
		}
		e := int64(max(int(engines), 1))
		if engines == 0 {
			e = 16
		}
		if want := tr.Bytes() + e*4; r.Bytes != want {
			t.Fatalf("%d packet bytes, want %d", r.Bytes, want)
		}
		for _, p := range r.Packets {
			if p.StartNS < r.StartNS || p.DataDoneNS < p.StartNS || p.WriteDoneNS < p.DataDoneNS || p.WriteDoneNS > r.EndNS {
				t.Fatalf("packet %+v outside the window %d–%d", p, r.StartNS, r.EndNS)
			}
		}
	})
}

// C2: a queue sharing its engines with element descriptor loads waits
// behind them (hw-timing §2.6): conv2d_2's reloads, 16 × 2056-B packets
// (8 rows of 256 B, DRAM contiguous, 4-D: +8 semaphore bytes), take
// 1–2 µs alone and 40–71 µs while the element loads of qSPIO0 (16 blocks
// in flight) hold the engines' writes; their data phase is still a 2056-B
// one.
func TestElementBacklog(t *testing.T) {
	p := Trn2()
	reload := &Transfer{Queue: "qSPSpillReload0", Engines: 16, From: HBM, To: SB, Issuer: "sp", WideSemaphore: true,
		Rows: []Run{{Bytes: 256, Count: 128, Contiguous: true}}}
	lone := alone(t, p, reload)
	if d := lone.EndNS - lone.StartNS; d < 1000 || d > 2500 {
		t.Errorf("reload alone: %d ns, want 1–2.5 µs", d)
	}
	if got := counts(lone.Packets); got[2056] != 16 || len(got) != 1 {
		t.Errorf("reload packets %v, want 16 × 2056 B (+8 semaphore bytes)", got)
	}
	m := New(p)
	m.Keep = true
	w := &Transfer{Queue: "qSPIO0", Engines: 16, From: HBM, To: HBM, Issuer: "sp", Rows: []Run{{Bytes: 2, Count: 16384, Element: 2}}}
	for k := 0; k < 16; k++ {
		if _, err := m.Fire(w, int64(k)*100); err != nil {
			t.Fatal(err)
		}
	}
	// the first reload follows W block 0's end (~105 µs): blocks 1–15 run
	id, err := m.Fire(reload, 110_000)
	if err != nil {
		t.Fatal(err)
	}
	m.Finish()
	r := m.Result(id)
	if d := r.EndNS - r.StartNS; d < 30_000 || d > 80_000 {
		t.Errorf("reload behind element loads: %.1f µs, measured 40–71 µs", float64(d)/1000)
	}
	for _, pk := range r.Packets {
		if data := pk.DataDoneNS - pk.StartNS; data != p.DataTime(2056, SB) {
			t.Errorf("a reload packet's data phase %d ns, want %d: the wait is for the writes, not the data", data, p.DataTime(2056, SB))
			break
		}
	}
}

// A cast's packets hold their engine's issue only CastIssueNS each (hw-timing
// §2.4: conv2d_4's 35-ns cast packets started 10 ns apart): alone, packet k
// starts k × CastIssueNS after the first; beside another queue the engine
// alternates, the other queue's packet starting CastIssueNS after the cast's
// and the cast's next at that packet's data done.
func TestCastIssue(t *testing.T) {
	p := Trn2()
	c := &Transfer{Queue: "qC", Engines: 1, From: HBM, To: SB, Issuer: "pool", Cast: true, Rows: []Run{{Bytes: 512, Count: 8}}}
	r := alone(t, p, c)
	if len(r.Packets) != 9 {
		t.Fatalf("%d packets, want 8 rows + the semaphore", len(r.Packets))
	}
	for k, pk := range r.Packets {
		if want := p.TriggerNS + int64(k)*p.CastIssueNS; pk.StartNS != want {
			t.Errorf("cast packet %d starts at %d, want %d", k, pk.StartNS, want)
		}
	}
	m := New(p)
	m.Keep = true
	w := &Transfer{Queue: "qW", Engines: 1, From: HBM, To: SB, Issuer: "act", Rows: []Run{{Bytes: 2304, Count: 8}}}
	ic, _ := m.Fire(c, 0)
	iw, _ := m.Fire(w, 0)
	m.Finish()
	rc, rw := m.Result(ic), m.Result(iw)
	dW := p.DataTime(2304, SB)
	for k := 0; k < 8; k++ {
		cs := p.TriggerNS + int64(k)*(p.CastIssueNS+dW)
		if rc.Packets[k].StartNS != cs || rw.Packets[k].StartNS != cs+p.CastIssueNS {
			t.Errorf("round %d: cast at %d, W at %d; want %d and %d", k, rc.Packets[k].StartNS, rw.Packets[k].StartNS, cs, cs+p.CastIssueNS)
		}
	}
}

// A store of packed strided DRAM rows lags RowLagNS a row past the first
// (hw-timing §2.2: the transpose's 8-row Pool stores 739 ns against 483);
// a contiguous store of the same bytes lags as any packet.
func TestRowLag(t *testing.T) {
	p := Trn2()
	p.RowWriteNS, p.WriteRateBytesPerNS = 0, 1e9 // the lag alone, no C3 hold
	strided := &Transfer{Engines: 1, From: SB, To: HBM, Issuer: "pool", Rows: []Run{{Bytes: 512, Count: 8}}}
	r := alone(t, p, strided)
	pk := r.Packets[0]
	if want := pk.DataDoneNS + p.LastLagNS + 7*p.RowLagNS; pk.WriteDoneNS != want {
		t.Errorf("strided 8-row store: write done %d, want %d", pk.WriteDoneNS, want)
	}
	strided.Rows[0].Contiguous = true
	pk = alone(t, p, strided).Packets[0]
	if want := pk.DataDoneNS + p.LastLagNS; pk.WriteDoneNS != want {
		t.Errorf("contiguous store: write done %d, want %d", pk.WriteDoneNS, want)
	}
	// a load of the same packed rows writes SB partitions: no row lag
	load := &Transfer{Engines: 1, From: HBM, To: SB, Issuer: "pool", Rows: []Run{{Bytes: 512, Count: 8}}}
	pk = alone(t, p, load).Packets[0]
	if want := pk.DataDoneNS + p.LastLagNS; pk.WriteDoneNS != want {
		t.Errorf("strided load: write done %d, want %d", pk.WriteDoneNS, want)
	}
}

// An issuer hands its blocks over one at a time (DispatchInOrder): its
// second block reaches the engines DataTime(engine 0's bytes) after its
// first is ready, even on another queue with idle engines (hw-timing §4.4:
// conv2d_3's cast 1.37 µs after W block 0, 8 × 4608 B an engine); another
// issuer's block is not held.
func TestDispatchInOrder(t *testing.T) {
	p := Trn2()
	// W on engine 0 alone; the cast over engines 0 and 1: its engine-1 share
	// meets an idle engine, so it starts at the hand-over plus one stagger
	w := &Transfer{Queue: "qW", Engines: 1, From: HBM, To: SB, Issuer: "sp", Rows: []Run{{Bytes: 4608, Count: 8}}}
	c := &Transfer{Queue: "qC", Engines: 2, From: HBM, To: SB, Issuer: "sp", Cast: true, Rows: []Run{{Bytes: 512, Count: 16}}}
	start1 := func(r Result) int64 {
		at := int64(-1)
		for _, pk := range r.Packets {
			if pk.Engine == 1 && (at < 0 || pk.StartNS < at) {
				at = pk.StartNS
			}
		}
		return at
	}
	m := New(p)
	m.Keep = true
	iw, _ := m.Fire(w, 0)
	ic, _ := m.Fire(c, 100)
	m.Finish()
	if got := m.Result(iw).StartNS; got != p.TriggerSPNS {
		t.Errorf("W starts at %d, want %d", got, p.TriggerSPNS)
	}
	want := p.TriggerSPNS + p.DataTime(8*4608+p.SemaphoreBytes, SB) + p.StaggerHBMNS // W's 8 rows and semaphore, as one stretch
	if got := start1(m.Result(ic)); got != want {
		t.Errorf("the cast starts on engine 1 at %d, want %d (W's hand-over)", got, want)
	}
	c.Issuer = "pool" // another issuer's block is not held
	m = New(p)
	m.Keep = true
	m.Fire(w, 0)
	ic, _ = m.Fire(c, 100)
	m.Finish()
	if got, want := start1(m.Result(ic)), 100+p.TriggerNS+p.StaggerHBMNS; got != want {
		t.Errorf("another issuer's cast starts on engine 1 at %d, want %d", got, want)
	}
}
