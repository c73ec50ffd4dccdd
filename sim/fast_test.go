package sim

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"ndma/internal/testutil"
	"reflect"
	"testing"

	"ndma/asm"
	"ndma/dge"
	"ndma/internal/control"
	"ndma/isa"
	"ndma/mem"
	"ndma/sdma"
)

// local is FromSoC without its checks: on every generation it gives
// FromSoC's address for core 0's HBM, SBUF and PSUM (field-tables §11.2),
// at their first and last bytes and inside.
func TestLocalIsFromSoC(t *testing.T) {
	for _, g := range []isa.Gen{isa.Sunda, isa.Cayman, isa.Mariana, isa.MarianaPlus, isa.Maverick} {
		m := isa.Map(g)
		socs := []uint64{m.HBMBase, m.HBMBase + 0x12345, m.HBMEnd - 1, 0x20_0000_0000, 0x20_0000_0000 + m.SBUFStride + 0x40, 0x20_0000_0000 + m.SBUFSize - 1}
		if m.PSUMSize > 0 {
			socs = append(socs, 0x28_0200_0000, 0x28_0200_0000+m.PSUMStride+8, 0x28_0200_0000+m.PSUMSize-1)
		}
		for _, s := range socs {
			a, core, err := m.FromSoC(s)
			if err != nil || core != 0 {
				t.Fatalf("%s: FromSoC(%#x) = core %d, %v", g, s, core, err)
			}
			if got := local(s, m.PSUMBase); got != a {
				t.Errorf("%s: local(%#x) = %#x, FromSoC %#x", g, s, got, a)
			}
		}
	}
}

// the generators of the differential tests, by kind
func genAny(r *rand.Rand, g isa.Gen, regs *[64]uint32, kind int) (string, isa.Gen) {
	extra := kind / 5 % 4
	switch k := kind % 5; {
	case k == 4:
		return genCopy2D(r, regs), isa.Maverick
	case extra == 0 && k == 3:
		return genDirect2D(r), g
	case extra == 0:
		return genIndexed(r, k), g
	case k == 3:
		return genDirect2DX(r, g, regs, extra), g
	case k == 0:
		return genTransposeX(r, g, regs, extra), g
	case k == 1:
		return genIndirectX(r, regs, extra), g
	}
	return genGatherX(r, g, regs, extra), g
}

// sameRun demands that the fast and the exact machine ended alike: the
// same error text, memory, semaphores and counts.
func sameRun(t *testing.T, what string, fast, exact *Machine, ef, ee error) {
	t.Helper()
	if fmt.Sprint(ef) != fmt.Sprint(ee) {
		t.Fatalf("%s:\nfast  %v\nexact %v", what, ef, ee)
	}
	if d, differ := mem.FirstDifference(fast.Mem, exact.Mem, true); differ {
		t.Fatalf("%s: memory differs (error %v): %v", what, ef, d)
	}
	if !reflect.DeepEqual(fast.Stats, exact.Stats) {
		t.Fatalf("%s: stats %+v, exact %+v", what, fast.Stats, exact.Stats)
	}
}

// The one-pass checks and the tile writes (prepareFast, writeTiles) are
// the per-descriptor path's: random words of every kind, and the
// transposes whose S2M lists are tiles (SBUF partitions, HBM rows), run
// alike on a machine held to the exact path.
func TestFastAgainstExact(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 1))
	gens := []isa.Gen{isa.Sunda, isa.Cayman, isa.Mariana, isa.MarianaPlus, isa.Maverick}
	tiled, turned := 0, 0
	for i := range testutil.Trials(240) {
		g := gens[r.IntN(len(gens))]
		var regs [64]uint32
		src, g := genAny(r, g, &regs, i%20)
		if i%12 == 11 { // a tiled transpose the generators rarely reach: 128 partitions, or 64 HBM rows
			src = fmt.Sprintf(`dma_transpose semaphore=2, in_dtype=fp16, out_dtype=fp16, src_start_addr=hbm:0x0, src_step_elem=[2, 256],
  src_num_elem=[128, %d], tile_src_row_step=256, tile_src_rows=16, tile_src_cols=128, dst_start_addr=sbuf:0:0x40,
  dst_step_elem=[2, %#x], dst_num_elem=[%[1]d, 128]`, 16*(1+r.IntN(8)), isa.Map(g).SBUFStride)
			if r.IntN(2) == 0 {
				src = `dma_transpose in_dtype=bf16, out_dtype=bf16, src_start_addr=hbm:0x0, src_step_elem=[2, 128],
  src_num_elem=[64, 64], tile_src_row_step=128, tile_src_rows=16, tile_src_cols=32, dst_start_addr=hbm:0x10000,
  dst_step_elem=[2, 128], dst_num_elem=[64, 64]`
			}
		}
		in, ok := tryWord(g, src)
		if !ok {
			continue
		}
		fast, exact := New(g), New(g)
		exact.exact = true
		fast.Regs, exact.Regs = regs, regs
		seed(t, rand.New(rand.NewPCG(uint64(i), 5)), g, simM{fast}, simM{exact})
		// Issue, not Exec: the effects' write spans too (Exec drops them unbuilt)
		var effs [2]control.Effect
		var errs [2]error
		for j, x := range []*Machine{fast, exact} {
			if effs[j], errs[j] = x.Issue(in); errs[j] == nil {
				effs[j].Apply()
			}
		}
		sameRun(t, src, fast, exact, errs[0], errs[1])
		if !reflect.DeepEqual(effs[0].Writes, effs[1].Writes) || !reflect.DeepEqual(effs[0].Queues, effs[1].Queues) {
			t.Fatalf("%s: write spans %v queues %v, exact %v %v", src, effs[0].Writes, effs[0].Queues, effs[1].Writes, effs[1].Queues)
		}
		if !reflect.DeepEqual(effs[0].Reads, effs[1].Reads) {
			t.Fatalf("%s: read spans %v, exact %v", src, effs[0].Reads, effs[1].Reads)
		}
		if errs[0] == nil && effs[0].Bytes > 0 && (len(effs[0].Writes) == 0 || len(effs[0].Reads) == 0) {
			t.Fatalf("%s: no write or read spans", src)
		}
		tiled, turned = tiled+fast.tiled, turned+fast.turned
	}
	// a destination row across two HBM pages allocated apart (the second
	// written first): turnInto's pieces
	// and a source across the end of the seeded page (the View of the tile
	// rows in pieces: one stored, one absent)
	for i, g := range []isa.Gen{isa.Cayman, isa.Maverick} {
		src := fmt.Sprintf(`dma_transpose in_dtype=bf16, out_dtype=bf16, src_start_addr=hbm:%#x, src_step_elem=[2, 128],
  src_num_elem=[64, 64], tile_src_row_step=128, tile_src_rows=16, tile_src_cols=32, dst_start_addr=hbm:0x1fc40,
  dst_step_elem=[2, 128], dst_num_elem=[64, 64]`, []int{0, 0xf000}[i])
		in, _ := tryWord(g, src)
		fast, exact := New(g), New(g)
		exact.exact = true
		for _, x := range []*Machine{fast, exact} {
			seed(t, rand.New(rand.NewPCG(9, 9)), g, simM{x})
			if err := x.Mem.Write(0x1_0002_0040, []byte{7}); err != nil {
				t.Fatal(err)
			}
		}
		sameRun(t, src, fast, exact, fast.Exec(in), exact.Exec(in))
		if fast.pieced == 0 || fast.viewed == 0 || i == 1 && fast.gathered == 0 {
			t.Fatalf("%s: destinations in pieces %d, rows from memory %d, gathered from pieces %d: a path of turnInto untested", g, fast.pieced, fast.viewed, fast.gathered)
		}
	}
	// MARIANA's SBUF partitions are active to their stride: a source of two
	// whole partitions is one extent of exactly its bytes, but no one region
	// (the View of it would fault): the rows come from the M2S stream
	{
		g := isa.Mariana
		src := `dma_transpose in_dtype=bf16, out_dtype=bf16, src_start_addr=sbuf:0:0x0, src_step_elem=[2, 256],
  src_num_elem=[128, 2048], tile_src_row_step=256, tile_src_rows=16, tile_src_cols=128, dst_start_addr=hbm:0x100000,
  dst_step_elem=[2, 4096], dst_num_elem=[2048, 128]`
		in, ok := tryWord(g, src)
		if !ok {
			t.Fatal("the two-partition transpose does not assemble")
		}
		fast, exact := New(g), New(g)
		exact.exact = true
		for _, x := range []*Machine{fast, exact} {
			seed(t, rand.New(rand.NewPCG(9, 10)), g, simM{x})
		}
		sameRun(t, src, fast, exact, fast.Exec(in), exact.Exec(in))
		// and destinations across a partition's end: each dst row's 32-byte
		// pieces lie in one partition each, the row across two (no tile plan)
		src = `dma_transpose in_dtype=bf16, out_dtype=bf16, src_start_addr=hbm:0x0, src_step_elem=[2, 64],
  src_num_elem=[32, 4096], tile_src_row_step=64, tile_src_rows=16, tile_src_cols=32, dst_start_addr=sbuf:0:0x3f000,
  dst_step_elem=[2, 0x80000], dst_num_elem=[4096, 32]`
		if in, ok = tryWord(g, src); !ok {
			t.Fatal("the partition-crossing transpose does not assemble")
		}
		fast, exact = New(g), New(g)
		exact.exact = true
		for _, x := range []*Machine{fast, exact} {
			seed(t, rand.New(rand.NewPCG(9, 11)), g, simM{x})
		}
		sameRun(t, src, fast, exact, fast.Exec(in), exact.Exec(in))
	}
	if tiled == 0 || turned == 0 || turned == tiled {
		t.Fatalf("%d queues written as tiles, %d of them turned into their order: writeTiles or turnPlanned untested", tiled, turned)
	}
	t.Logf("%d queues written as tiles, %d of them turned into their order", tiled, turned)
}

// The tile turn's shapes (turnTiles: stacks of tiles, the register turn
// and the loops) run as the per-descriptor path does: 40 tiles of 16 × 128
// (a stack of 32 and a shorter one after it), 8-column blocks (24 columns,
// and the SBUF partitions 128 KiB apart) and 16-column ones, 8- and 12-row
// tiles (12: the loops), 4-byte elements (the loops).
func TestTileTurnsAgainstExact(t *testing.T) {
	g := isa.Cayman
	for i, c := range []struct {
		dtype          string
		es, rows, cols int
		tr, tc         int
		dst            string
		dstStep        int
	}{
		{"bf16", 2, 640, 128, 16, 128, "hbm:0x100000", 1280},
		{"bf16", 2, 64, 48, 16, 24, "hbm:0x100000", 128},
		{"fp16", 2, 48, 64, 8, 16, "hbm:0x100040", 160},
		{"bf16", 2, 36, 64, 12, 16, "hbm:0x100000", 72},
		{"fp32", 4, 32, 32, 16, 32, "hbm:0x100000", 128},
		{"fp16", 2, 640, 128, 16, 128, "sbuf:0:0x40", int(isa.Map(g).SBUFStride)},
	} {
		src := fmt.Sprintf(`dma_transpose in_dtype=%s, out_dtype=%[1]s, src_start_addr=hbm:0x0, src_step_elem=[%d, %d],
  src_num_elem=[%d, %d], tile_src_row_step=%[3]d, tile_src_rows=%[6]d, tile_src_cols=%[7]d, dst_start_addr=%[8]s,
  dst_step_elem=[%[2]d, %#[9]x], dst_num_elem=[%[5]d, %[4]d]`, c.dtype, c.es, c.cols*c.es, c.cols, c.rows, c.tr, c.tc, c.dst, c.dstStep)
		in, ok := tryWord(g, src)
		if !ok {
			t.Fatalf("%s: does not assemble", src)
		}
		fast, exact := New(g), New(g)
		exact.exact = true
		for _, x := range []*Machine{fast, exact} {
			seed(t, rand.New(rand.NewPCG(uint64(i), 12)), g, simM{x})
		}
		sameRun(t, src, fast, exact, fast.Exec(in), exact.Exec(in))
		if fast.turned == 0 {
			t.Fatalf("%s: not turned into its destinations (turnPlanned): turnTiles untested", src)
		}
	}
}

func tryWord(g isa.Gen, src string) (*isa.Inst, bool) {
	obj, err := asm.Assemble("t.s", []byte(src), asm.Options{Gen: g})
	if err != nil {
		return nil, false // not legal on this generation
	}
	in, err := isa.Decode(g, obj.Code)
	return &in, err == nil
}

// A descriptor, doorbell or phase spoiled in a lowered word faults on the
// fast path exactly as on the per-descriptor one — the same text, naming
// the same descriptor — and leaves memory as it was; a harmless change
// runs alike.
func TestFastFaultsAsExact(t *testing.T) {
	faults := 0
	words := []string{
		`dmamemcpy semaphore=1, sem_increment=1, src_start_addr=hbm:0x0, src_step_elem=[128, 4096], src_num_elem=[20, 3], src_elem_size=64,
  dst_start_addr=sbuf:2:0x0, dst_step_elem=[64, 0x40000], dst_num_elem=[20, 3], dst_elem_size=64, in_dtype=u8, out_dtype=u8`,
		`dma_transpose semaphore=2, in_dtype=fp16, out_dtype=fp16, src_start_addr=hbm:0x0, src_step_elem=[2, 256],
  src_num_elem=[128, 64], tile_src_row_step=256, tile_src_rows=16, tile_src_cols=128, dst_start_addr=sbuf:0:0x0,
  dst_step_elem=[2, 0x40000], dst_num_elem=[64, 128]`,
		`dmamemcpy semaphore=1, sem_increment=4, src_start_addr=hbm:0x0, src_step_elem=[64, 0], src_num_elem=[300, 1], src_elem_size=64,
  dst_start_addr=hbm:0x40000, dst_step_elem=[128, 0], dst_num_elem=[300, 1], dst_elem_size=64, in_dtype=u8, out_dtype=u8`,
	}
	bad := []uint64{0x1000_0000_0000, 0x20_0000_0000 + 0x3fff0, 0x28_0200_0000 + 0x100, 0x20_0000_0000 - 8, 0x30_0000_0000 + 0x40, 0x28_0270_1800, 0x100}
	trials := testutil.Trials(400)
	for i := range trials {
		g := isa.Cayman
		src := words[i%len(words)]
		in := word(t, g, src)
		var out [2][]Work
		var fail [2]error
		ms := [2]*Machine{New(g), New(g)}
		ms[1].exact = true
		for j, x := range ms {
			x.RingSize = 16
			seed(t, rand.New(rand.NewPCG(uint64(i), 6)), g, simM{x})
			p, lw, err := sdma.Lower(in, g, dge.Options{}, sdma.Options{RingSize: 16})
			if err != nil {
				t.Fatal(err)
			}
			out[j] = x.works(p, lw)
		}
		// the same spoiling on both copies
		rs := rand.New(rand.NewPCG(uint64(i), 7))
		what := ""
		for j := range ms {
			rs = rand.New(rand.NewPCG(uint64(i), 7))
			what = spoil(rs, out[j], bad)
		}
		for j, x := range ms {
			fail[j] = x.RunWork("W", out[j])
		}
		sameRun(t, fmt.Sprintf("%s, %s", src, what), ms[0], ms[1], fail[0], fail[1])
		if fail[0] != nil {
			faults++
		}
	}
	// the time of a word run is EstimateNS of its lists, counted without them
	for _, src := range words {
		x := New(isa.Cayman)
		p, lw, err := sdma.Lower(word(t, isa.Cayman, src), isa.Cayman, dge.Options{}, sdma.Options{})
		if err != nil {
			t.Fatal(err)
		}
		qs, err := x.runQueues("W", x.works(p, lw))
		if err != nil {
			t.Fatal(err)
		}
		if got, want := queuesTime(p.Backend, qs), EstimateNS(p.Backend, lw.Queues); got != want {
			t.Errorf("time %d ns, EstimateNS %d ns\n%s", got, want, src)
		}
	}
	if faults < trials/4 {
		t.Fatalf("only %d of %d spoiled words faulted", faults, trials)
	}
	t.Logf("%d of %d spoiled words faulted alike", faults, trials)
}

// spoil changes one thing of a word's queues (the same for the same r):
// a descriptor's phase, buf_ptr, length or op, or a doorbell's count.
func spoil(r *rand.Rand, ws []Work, bad []uint64) string {
	q := &ws[r.IntN(len(ws))].Queue
	q.M2S, q.S2M = append([]sdma.Desc(nil), q.M2S...), append([]sdma.Desc(nil), q.S2M...) // the copies' own lists
	q.Doorbells = append([]sdma.Doorbell(nil), q.Doorbells...)
	list, leg := q.M2S, "M2S"
	if r.IntN(2) == 0 {
		list, leg = q.S2M, "S2M"
	}
	k := r.IntN(len(list))
	d := &list[k] // the layout's bytes (sdma.Layout): length 0–1, ring_phase byte 3 bits 0–1, op word1 bits 6–8, buf_ptr 8–15
	switch c := r.IntN(6); c {
	case 0:
		d[3] ^= 1
		return fmt.Sprintf("%s[%d] phase", leg, k)
	case 1, 2:
		v := bad[r.IntN(len(bad))]
		binary.LittleEndian.PutUint64(d[8:], v)
		return fmt.Sprintf("%s[%d] buf_ptr %#x", leg, k, v)
	case 3:
		binary.LittleEndian.PutUint16(d[0:], uint16(r.IntN(70000)))
		return fmt.Sprintf("%s[%d] length", leg, k)
	case 4:
		w := binary.LittleEndian.Uint32(d[4:])
		op, ty := 1+r.IntN(2), r.IntN(8) // DRE or CME, any type; or a CCE type the engines refuse
		if r.IntN(2) == 0 {
			op, ty = sdma.OpCCE, sdma.CCEExt+1+r.IntN(3)
		}
		w = w&^(7<<6|7<<9) | uint32(op)<<6 | uint32(ty)<<9
		binary.LittleEndian.PutUint32(d[4:], w)
		return fmt.Sprintf("%s[%d] op", leg, k)
	}
	b := r.IntN(len(q.Doorbells))
	q.Doorbells[b].Value += r.IntN(5) - 2
	if r.IntN(4) == 0 {
		q.Doorbells[b].Reg = "XDRTP_inc"
	}
	return fmt.Sprintf("doorbell %d", b)
}

// tileScan finds a tile plan exactly when one exists: brute force over
// every destination count P (descriptor k = t·P + p at a₀ + p·S + t·n,
// S = a₁ − a₀, |S| ≥ T·n, P, T ≥ 2), on lists built as plans and then
// perhaps spoiled in one address or length.
func TestTileScan(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 3))
	brute := func(as, ns []uint64) *tilePlan {
		K := len(as)
		for P := 2; P <= K; P++ {
			T := K / P
			if K%P != 0 || T < 2 {
				continue
			}
			S, ok := int64(as[1]-as[0]), true
			for k := range K {
				ok = ok && ns[k] == ns[0] && as[k] == as[0]+uint64(int64(k%P)*S+int64(k/P)*int64(ns[0]))
			}
			if ok && max(S, -S) >= int64(T)*int64(ns[0]) {
				return &tilePlan{a0: as[0], S: S, P: P, T: T, n: int(ns[0]), K: K}
			}
		}
		return nil
	}
	found := 0
	for range 3000 {
		P, T, n := 1+r.IntN(6), 1+r.IntN(6), uint64(1+r.IntN(4))*16
		S := int64(n) * int64(T+r.IntN(3)-1)
		if r.IntN(3) == 0 {
			S = -S
		}
		a0 := uint64(1<<20 + r.IntN(64))
		var as, ns []uint64
		for k := range P * T {
			as = append(as, a0+uint64(int64(k%P)*S+int64(k/P)*int64(n)))
			ns = append(ns, n)
		}
		if len(as) < 2 {
			continue
		}
		switch r.IntN(4) {
		case 0:
			as[r.IntN(len(as))] += uint64(r.IntN(3)) * n
		case 1:
			ns[r.IntN(len(ns))] += uint64(r.IntN(2))
		}
		ts := tileScan{ok: true}
		for k := range as {
			ts.add(as[k], ns[k], sdma.OpDRE)
		}
		got, want := ts.plan(), brute(as, ns)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("addresses %x lengths %v: scan %+v, brute force %+v", as, ns, got, want)
		}
		if got != nil {
			found++
		}
	}
	if found < 300 {
		t.Fatalf("only %d lists had a plan", found)
	}
}

// A cast or in-flight compute whose M2S descriptors read one stored piece,
// back to back, apart from every S2M write takes its stream in place
// (peekM2S) and runs as the exact path does; one whose src meets its dst
// reads its stream first (§11.3: reads before writes), as before.
func TestPeekM2SAgainstExact(t *testing.T) {
	for _, tc := range []struct {
		src  string
		peek bool
	}{
		{`dmamemcpy compute_op=ADD, src_start_addr=hbm:0x0, src_step_elem=[0x4000, 0], src_num_elem=[4, 1], src_elem_size=0x4000,
  dst_start_addr=hbm:0x10000, dst_step_elem=[0x4000, 0], dst_num_elem=[4, 1], dst_elem_size=0x4000, in_dtype=fp32, out_dtype=fp32`, true},
		{`dmamemcpy src_start_addr=hbm:0x0, src_step_elem=[0x4000, 0], src_num_elem=[4, 1], src_elem_size=0x4000,
  dst_start_addr=hbm:0x10000, dst_step_elem=[0x2000, 0], dst_num_elem=[4, 1], dst_elem_size=0x2000, in_dtype=fp32, out_dtype=bf16`, true},
		// the dst is the src shifted by 8 bytes: every S2M write meets the M2S extent
		{`dmamemcpy compute_op=ADD, src_start_addr=hbm:0x0, src_step_elem=[0x4000, 0], src_num_elem=[4, 1], src_elem_size=0x4000,
  dst_start_addr=hbm:0x8, dst_step_elem=[0x4000, 0], dst_num_elem=[4, 1], dst_elem_size=0x4000, in_dtype=fp32, out_dtype=fp32`, false},
	} {
		in, ok := tryWord(isa.Cayman, tc.src)
		if !ok {
			t.Fatalf("%s: does not assemble", tc.src)
		}
		fast, exact := New(isa.Cayman), New(isa.Cayman)
		exact.exact = true
		for _, x := range []*Machine{fast, exact} {
			seed(t, rand.New(rand.NewPCG(3, 4)), isa.Cayman, simM{x})
		}
		sameRun(t, tc.src, fast, exact, fast.Exec(in), exact.Exec(in))
		if got := fast.peeked > 0; got != tc.peek {
			t.Errorf("%s: stream taken in place %v, want %v", tc.src, got, tc.peek)
		}
	}
}
