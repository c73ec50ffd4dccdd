package mem

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"testing"

	"ndma/isa"
)

// TestShareOnchip: the caller's array is the region — a write through the
// memory lands at partition·active + offset in it, a write to it reads
// back through the memory — and a wrong length or region is refused.
func TestShareOnchip(t *testing.T) {
	for _, g := range []isa.Gen{isa.Sunda, isa.Cayman, isa.Mariana} {
		m := New(g)
		mp := isa.Map(g)
		for _, tc := range []struct {
			r      isa.Region
			active uint64
			base   uint64
			stride uint64
		}{{isa.SBUF, mp.SBUFActive, 0, mp.SBUFStride}, {isa.PSUM, mp.PSUMActive, mp.PSUMBase, mp.PSUMStride}} {
			data := make([]byte, uint64(mp.Partitions)*tc.active)
			if err := m.ShareOnchip(tc.r, data[1:]); err == nil {
				t.Fatalf("%v %v: a short array was accepted", g, tc.r)
			}
			if err := m.ShareOnchip(tc.r, data); err != nil {
				t.Fatal(err)
			}
			addr := tc.base + 3*tc.stride + 16
			if err := m.Write(addr, []byte{1, 2, 3}); err != nil {
				t.Fatal(err)
			}
			if at := 3*tc.active + 16; data[at] != 1 || data[at+2] != 3 {
				t.Fatalf("%v %v: the write is not in the shared array at %d", g, tc.r, at)
			}
			data[127*tc.active+tc.active-1] = 9
			b := make([]byte, 1)
			if err := m.Read(tc.base+127*tc.stride+tc.active-1, b); err != nil || b[0] != 9 {
				t.Fatalf("%v %v: read %v %v, want the array's 9", g, tc.r, b, err)
			}
		}
		if err := m.ShareOnchip(isa.HBM, nil); err == nil {
			t.Fatal("HBM was accepted")
		}
	}
}

// TestCopyStridedSharedPartitions: a strided copy whose leg walks one row
// per partition of a shared SBUF or PSUM (one host slice for the leg,
// partLeg) moves the bytes and counts the stats a memory of its own
// storage does (the window per partition path), and both agree with a plain
// loop of row reads and writes; faults are the same.
func TestCopyStridedSharedPartitions(t *testing.T) {
	gens := []isa.Gen{isa.Cayman, isa.Mariana}
	if testing.Short() {
		gens = gens[:1]
	}
	for _, g := range gens {
		mp := isa.Map(g)
		sb, ps, hb := uint64(0), mp.PSUMBase, mp.HBMBase
		ss, pst := int64(mp.SBUFStride), int64(mp.PSUMStride)
		type tc struct {
			name     string
			dst      uint64
			dstStep  int64
			src      uint64
			srcStep  int64
			n, count int
		}
		cases := []tc{
			{"sbuf rows to hbm", hb + 4096, 32, sb + 3*uint64(ss) + 40, ss, 32, 100},
			{"hbm to sbuf rows", sb + 64, ss, hb + 1000, 32, 32, 128},
			{"sbuf to sbuf", sb + 5*uint64(ss) + 8, ss, sb + 2*uint64(ss) + 500, ss, 7, 120},
			{"to the last partition", sb + 8*uint64(ss) + 16, ss, hb + 77, 16, 16, mp.Partitions - 8},
			{"words of 8 and 4", hb + 1<<20, 8, sb + 100, ss, 8, 64},
			{"hbm never written to sbuf", sb + 256, ss, hb + 1<<30, 4, 4, 128},
			{"every other partition", sb + 4096, 2 * ss, hb + 500, 12, 12, 60},
			{"hbm pages apart to sbuf", sb + 1024, ss, hb + 3<<20, 70000, 24, 128},
			{"past the last partition", sb + 4*uint64(ss), ss, hb, 16, 16, mp.Partitions - 3},
			{"past a partition's end", sb + uint64(mp.SBUFActive) - 8, ss, hb, 16, 16, 4},
		}
		if mp.PSUMActive > 0 {
			cases = append(cases, tc{"psum rows to sbuf rows", sb + 192, ss, ps + 3*uint64(pst) + 64, pst, 64, 100},
				tc{"hbm to psum rows", ps + 8, pst, hb + 9000, 40, 40, 128})
		}
		rng := rand.New(rand.NewPCG(1, uint64(g)))
		sbuf := make([]byte, uint64(mp.Partitions)*mp.SBUFActive)
		psum := make([]byte, uint64(mp.Partitions)*mp.PSUMActive)
		hbm := make([]byte, 8<<20)
		for _, b := range [][]byte{sbuf, psum, hbm} {
			for i := range b {
				b[i] = byte(rng.Uint32())
			}
		}
		for _, c := range cases {
			// shared: the arrays are the regions; own and loop: the same bytes written in
			shared, own, loop := New(g), New(g), New(g)
			if err := shared.ShareOnchip(isa.SBUF, slices.Clone(sbuf)); err != nil {
				t.Fatal(err)
			}
			if mp.PSUMActive > 0 {
				if err := shared.ShareOnchip(isa.PSUM, slices.Clone(psum)); err != nil {
					t.Fatal(err)
				}
			}
			for _, m := range []*Memory{shared, own, loop} {
				for p := range mp.Partitions {
					if m != shared {
						must(t, m.Write(sb+uint64(p)*uint64(ss), sbuf[uint64(p)*mp.SBUFActive:][:mp.SBUFActive]))
						if mp.PSUMActive > 0 {
							must(t, m.Write(ps+uint64(p)*uint64(pst), psum[uint64(p)*mp.PSUMActive:][:mp.PSUMActive]))
						}
					}
				}
				must(t, m.Write(hb, hbm))
				m.Stats = Stats{}
			}
			k1, err1 := shared.CopyStrided(c.dst, c.dstStep, c.src, c.srcStep, c.n, c.count)
			k2, err2 := own.CopyStrided(c.dst, c.dstStep, c.src, c.srcStep, c.n, c.count)
			if (err1 == nil) != (err2 == nil) || k1 != k2 || err1 != nil && err1.Error() != err2.Error() {
				t.Fatalf("%v %s: shared %d %v, own %d %v", g, c.name, k1, err1, k2, err2)
			}
			if err1 != nil {
				continue
			}
			row := make([]byte, c.n)
			for i := range c.count { // the plain loop: rows are disjoint, any order
				must(t, loop.Read(at(c.src, c.srcStep, i), row))
				must(t, loop.Write(at(c.dst, c.dstStep, i), row))
			}
			if shared.Stats != own.Stats {
				t.Errorf("%v %s: stats %+v shared, %+v own", g, c.name, shared.Stats, own.Stats)
			}
			for _, rg := range [][2]uint64{{hb, hb + 8<<20}, {hb + 1<<30, hb + 1<<30 + 4096}} {
				for a := rg[0]; a < rg[1]; a += 1 << 16 {
					for _, m := range []*Memory{own, loop} {
						if x, y := peek(t, shared, a, 1<<16), peek(t, m, a, 1<<16); !bytes.Equal(x, y) {
							t.Fatalf("%v %s: HBM %#x differs", g, c.name, a)
						}
					}
				}
			}
			for p := range mp.Partitions {
				for _, rg := range [][2]uint64{{sb, mp.SBUFActive}, {ps, mp.PSUMActive}} {
					if rg[1] == 0 {
						continue
					}
					a := rg[0] + uint64(p)*map[uint64]uint64{sb: uint64(ss), ps: uint64(pst)}[rg[0]]
					for _, m := range []*Memory{own, loop} {
						if x, y := peek(t, shared, a, int(rg[1])), peek(t, m, a, int(rg[1])); !bytes.Equal(x, y) {
							t.Fatalf("%v %s: partition %d at %#x differs", g, c.name, p, a)
						}
					}
				}
			}
		}
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func peek(t *testing.T, m *Memory, a uint64, n int) []byte {
	t.Helper()
	b := make([]byte, n)
	must(t, m.Read(a, b))
	return b
}
