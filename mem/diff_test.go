package mem

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"ndma/isa"
)

// cliFirstDifference is internal/cli/run.go's firstDifference and snapAddr
// as they were (over Snapshot keys), kept here as the oracle FirstDifference
// must agree with.
func cliFirstDifference(a, b *Memory) string {
	sa, sb := a.Snapshot(), b.Snapshot()
	best, bestAddr := "", uint64(1<<63)
	for k, va := range sa {
		vb, ok := sb[k]
		if !ok {
			vb = make([]byte, len(va))
		}
		addr, kind := cliSnapAddr(a, k)
		for i := range va {
			if i < len(vb) && va[i] != vb[i] {
				if kind == "sems" {
					return fmt.Sprintf("$S[%d]: ref %d, sim %d", i/4, a.Sems[i/4], b.Sems[i/4])
				}
				if addr+uint64(i) < bestAddr {
					bestAddr = addr + uint64(i)
					best = fmt.Sprintf("address %#x (%s): ref %#02x, sim %#02x", bestAddr, kind, va[i], vb[i])
				}
				break
			}
		}
	}
	for k, vb := range sb {
		if _, ok := sa[k]; ok {
			continue
		}
		addr, kind := cliSnapAddr(a, k)
		for i, v := range vb {
			if v != 0 && addr+uint64(i) < bestAddr {
				bestAddr, best = addr+uint64(i), fmt.Sprintf("address %#x (%s): ref 0x00, sim %#02x", addr+uint64(i), kind, v)
				break
			}
		}
	}
	return best
}

func cliSnapAddr(m *Memory, key string) (uint64, string) {
	var n uint64
	switch {
	case strings.HasPrefix(key, "sbuf"):
		fmt.Sscan(key[4:], &n)
		return n * m.Map.SBUFStride, fmt.Sprintf("sbuf partition %d", n)
	case strings.HasPrefix(key, "psum"):
		fmt.Sscan(key[4:], &n)
		return m.Map.PSUMBase + n*m.Map.PSUMStride, fmt.Sprintf("psum partition %d", n)
	case strings.HasPrefix(key, "hbm"):
		fmt.Sscan(key[3:], &n)
		return n * PageSize, "hbm"
	}
	return 0, "sems"
}

// naiveFirstDifference reads both memories through Read over every
// partition and page either one holds, in address order, and scans the
// bytes one by one.
func naiveFirstDifference(a, b *Memory, hbm bool) (Difference, bool) {
	for i := 0; i < 256; i++ {
		if a.Sems[i] != b.Sems[i] {
			return Difference{Kind: SemaphoreDiff, Index: i, A: int64(a.Sems[i]), B: int64(b.Sems[i])}, true
		}
	}
	// §7: 128 partitions; stride 256 KiB (1 MiB on v5); active 192/224/256/512 KiB
	stride, active := uint64(256<<10), map[isa.Gen]uint64{isa.Sunda: 192 << 10, isa.Cayman: 224 << 10, isa.Mariana: 256 << 10, isa.Maverick: 512 << 10}[a.Gen]
	if a.Gen == isa.Maverick {
		stride = 1 << 20
	}
	type span struct{ lo, n uint64 }
	var spans []span
	for p := 0; p < 128; p++ {
		if a.sbuf[p] != nil || b.sbuf[p] != nil {
			spans = append(spans, span{uint64(p) * stride, active})
		}
	}
	for p := 0; p < 128; p++ {
		if a.psum[p] != nil || b.psum[p] != nil {
			spans = append(spans, span{0x2000000 + uint64(p)*32<<10, 16 << 10})
		}
	}
	if hbm {
		for k := uint64(0x1_0000_0000 / PageSize); k < 0x20_0000_0000/PageSize; k++ {
			if a.hbm.dir[k/hbmLeaf] == nil && b.hbm.dir[k/hbmLeaf] == nil {
				k += hbmLeaf - 1 - k%hbmLeaf // a whole leaf absent on both sides
				continue
			}
			if a.hbm.page(k) != nil || b.hbm.page(k) != nil {
				spans = append(spans, span{k * PageSize, PageSize})
			}
		}
	}
	for _, s := range spans {
		x, y := make([]byte, s.n), make([]byte, s.n)
		if err := a.Read(s.lo, x); err != nil {
			panic(err)
		}
		if err := b.Read(s.lo, y); err != nil {
			panic(err)
		}
		for i := range x {
			if x[i] != y[i] {
				addr := s.lo + uint64(i)
				r, where := isa.HBM, "hbm"
				switch {
				case addr < 128*stride:
					r, where = isa.SBUF, fmt.Sprintf("sbuf partition %d", addr/stride)
				case addr < 0x2400000:
					r, where = isa.PSUM, fmt.Sprintf("psum partition %d", (addr-0x2000000)/(32<<10))
				}
				return Difference{Kind: ByteDiff, Addr: addr, Region: r, Where: where, A: int64(x[i]), B: int64(y[i])}, true
			}
		}
	}
	for i := 0; i < 256; i++ {
		if a.Events[i] != b.Events[i] {
			return Difference{Kind: EventDiff, Index: i, A: b2i(a.Events[i]), B: b2i(b.Events[i])}, true
		}
	}
	return Difference{}, false
}

// randomAddr is an address of one of a few partitions / pages, so that
// random writes collide and land in untouched storage about equally.
func randomAddr(r *rand.Rand, m *Memory, n int) uint64 {
	switch r.IntN(3) {
	case 0:
		return uint64(r.IntN(6))*m.Map.SBUFStride + uint64(r.IntN(int(m.Map.SBUFActive)-n))
	case 1:
		if m.Map.PSUMSize > 0 {
			return m.Map.PSUMBase + uint64(r.IntN(6))*m.Map.PSUMStride + uint64(r.IntN(int(m.Map.PSUMActive)-n))
		}
	}
	page := []uint64{0, 1, 2, 900, 4097, 1<<21 - 0x1_0000 - 1}[r.IntN(6)] // the last is the window's last page
	return m.Map.HBMBase + page*PageSize + uint64(r.IntN(PageSize-n))
}

// FirstDifference against the CLI's Snapshot comparison and the naive
// reader, over random memories: equal ones, one or several bytes changed
// in SBUF, PSUM or HBM, storage on one side only (zero and not), untouched
// pages, semaphores and events.
func TestFirstDifferenceAgainstNaive(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	gens := []isa.Gen{isa.Cayman, isa.Sunda, isa.Mariana, isa.Maverick}
	found := map[string]int{}
	for trial := 0; trial < 400; trial++ {
		g := gens[trial%len(gens)]
		a, b := New(g), New(g)
		for range 1 + r.IntN(6) {
			n := 1 + r.IntN(3000)
			addr, data := randomAddr(r, a, n), make([]byte, n)
			for i := range data {
				data[i] = byte(r.IntN(3)) // zeros often: a changed byte may be a zero
			}
			if err := a.Write(addr, data); err != nil {
				t.Fatal(err)
			}
			if err := b.Write(addr, data); err != nil {
				t.Fatal(err)
			}
		}
		for range r.IntN(4) {
			m := []*Memory{a, b}[r.IntN(2)]
			switch r.IntN(8) {
			case 0:
				m.Sems[r.IntN(256)] = int32(r.IntN(5)) - 2
			case 1:
				m.Events[r.IntN(256)] = r.IntN(2) == 0
			case 2: // zeros: new storage that reads as untouched
				n := 1 + r.IntN(100)
				if err := m.Write(randomAddr(r, m, n), make([]byte, n)); err != nil {
					t.Fatal(err)
				}
			default:
				if err := m.Write(randomAddr(r, m, 1), []byte{byte(r.IntN(256))}); err != nil {
					t.Fatal(err)
				}
			}
		}
		got, ok := FirstDifference(a, b, true)
		want, wok := naiveFirstDifference(a, b, true)
		if ok != wok || got != want {
			t.Fatalf("trial %d (%s): FirstDifference = %+v, %v; naive %+v, %v", trial, g, got, ok, want, wok)
		}
		if a.Events == b.Events { // the CLI never compared events
			cli, text := cliFirstDifference(a, b), ""
			if ok {
				text = got.String()
			}
			if text != cli {
				t.Fatalf("trial %d (%s): FirstDifference says %q (found %v), the CLI's comparison %q", trial, g, got, ok, cli)
			}
		}
		if !ok {
			found["none"]++
		} else if got.Kind == ByteDiff {
			found[got.Region.String()]++
		} else {
			found[fmt.Sprint(got.Kind)]++
		}
		// hbm false: the same, with no HBM bytes in the answer
		got, ok = FirstDifference(a, b, false)
		want, wok = naiveFirstDifference(a, b, false)
		if ok != wok || got != want {
			t.Fatalf("trial %d (%s) without HBM: FirstDifference = %+v, %v; naive %+v, %v", trial, g, got, ok, want, wok)
		}
	}
	t.Logf("found: %v", found)
	for _, k := range []string{"none", "sbuf", "psum", "hbm", fmt.Sprint(SemaphoreDiff), fmt.Sprint(EventDiff)} {
		if found[k] < 5 {
			t.Errorf("only %d trials found %s: the test does not cover it (%v)", found[k], k, found)
		}
	}
}

// The texts, worked by hand from §7 / §11.2: SBUF partition 3 on v3 starts at
// 3 × 256 KiB = 0xc0000; PSUM partition 2 at 0x2000000 + 2 × 32 KiB; v5's
// SBUF partition 3 at 3 MiB.
func TestDifferenceText(t *testing.T) {
	tests := []struct {
		gen  isa.Gen
		set  func(a, b *Memory)
		hbm  bool
		want string
	}{
		{isa.Cayman, func(a, b *Memory) { a.Write(0xc0010, []byte{0xab}) }, true, "address 0xc0010 (sbuf partition 3): ref 0xab, sim 0x00"},
		{isa.Cayman, func(a, b *Memory) { b.Write(0x2010005, []byte{7}) }, true, "address 0x2010005 (psum partition 2): ref 0x00, sim 0x07"},
		{isa.Maverick, func(a, b *Memory) { b.Write(0x300001, []byte{0x10}) }, true, "address 0x300001 (sbuf partition 3): ref 0x00, sim 0x10"},
		{isa.Cayman, func(a, b *Memory) { a.Write(0x1_0002_0000, []byte{1}); b.Write(0x1_0002_0000, []byte{2}) }, true, "address 0x100020000 (hbm): ref 0x01, sim 0x02"},
		{isa.Cayman, func(a, b *Memory) { a.Write(0x1_0002_0000, []byte{1}) }, false, ""},
		{isa.Cayman, func(a, b *Memory) { a.Write(0x1_0002_0000, []byte{1}); a.Sems[9], b.Sems[9] = -1, 4 }, true, "$S[9]: ref -1, sim 4"},
		{isa.Cayman, func(a, b *Memory) { a.Write(0xc0010, []byte{0xab}); a.Events[200] = true }, true, "address 0xc0010 (sbuf partition 3): ref 0xab, sim 0x00"},
		{isa.Cayman, func(a, b *Memory) { b.Events[200] = true; a.Events[201] = true }, true, "event 200: ref false, sim true"},
		{isa.Cayman, func(a, b *Memory) { b.Write(0x40, make([]byte, 100)) }, true, ""}, // zeros are untouched memory
		// the lowest address wins across partitions and regions
		{isa.Cayman, func(a, b *Memory) {
			a.Write(0x1_0000_0000, []byte{1})
			b.Write(0x2000000, []byte{1})
			a.Write(5<<18+3, []byte{1})
			b.Write(5<<18+2, []byte{1})
		}, true, "address 0x140002 (sbuf partition 5): ref 0x00, sim 0x01"},
	}
	for i, tc := range tests {
		a, b := New(tc.gen), New(tc.gen)
		tc.set(a, b)
		d, ok := FirstDifference(a, b, tc.hbm)
		if got := map[bool]string{true: d.String()}[ok]; got != tc.want {
			t.Errorf("case %d: %q, want %q", i, got, tc.want)
		}
		if tc.want != "" && d.Format("x", "y") != strings.NewReplacer("ref", "x", "sim", "y").Replace(tc.want) {
			t.Errorf("case %d: Format(x, y) = %q", i, d.Format("x", "y"))
		}
	}
}

// Two cores on one HBM compare the HBM as equal without reading it, and
// their SBUF differences still count.
func TestFirstDifferenceShared(t *testing.T) {
	h := NewHBM()
	a, b := NewCore(isa.Cayman, h), NewCore(isa.Cayman, h)
	a.Write(0x1_0000_0000, []byte{1})
	if d, ok := FirstDifference(a, b, true); ok {
		t.Fatalf("cores sharing an HBM differ: %v", d)
	}
	b.Write(0x10, []byte{3})
	if d, ok := FirstDifference(a, b, true); !ok || d.String() != "address 0x10 (sbuf partition 0): ref 0x00, sim 0x03" {
		t.Fatalf("got %v, %v", d, ok)
	}
}

// BenchmarkFirstDifference: two equal memories of 32 MiB HBM and 8 SBUF
// partitions, then the one byte that differs at the end.
func BenchmarkFirstDifference(b *testing.B) {
	x, y := New(isa.Cayman), New(isa.Cayman)
	data := make([]byte, 32<<20)
	for i := range data {
		data[i] = byte(i)
	}
	for _, m := range []*Memory{x, y} {
		m.Write(0x1_0000_0000, data)
		for p := range 8 {
			m.Write(uint64(p)<<18, data[:224<<10])
		}
	}
	y.Write(0x1_0000_0000+32<<20-1, []byte{0})
	b.SetBytes(32<<20 + 8*224<<10)
	for b.Loop() {
		if _, ok := FirstDifference(x, y, true); !ok {
			b.Fatal("no difference")
		}
	}
}
