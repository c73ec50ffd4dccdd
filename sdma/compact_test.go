package sdma

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"ndma/asm"
	"ndma/dge"
	"ndma/isa"
)

// compactCases are DIRECT2D words of every shape legProgs walks, with the
// descriptor runs a compact expansion must hold, derived by hand from the
// word (field-tables §11.3: one descriptor per maximal contiguous run of at
// most 64 KiB, SoC addresses of §11.2). runs nil: the expansion may not be
// compact (it must then be Expand's, byte for byte, all the same).
// hbm is hbm:0x0, the Neuron address of HBM's first byte on CAYMAN (field-tables §11.2).
const hbm = 0x1_0000_0000

var compactCases = []struct {
	name, word string
	m2s, s2m   []DescRun // data descriptors only
}{
	{"strided src, packed dst", `dmamemcpy src_start_addr=hbm:0x0, src_step_elem=[128, 0x3fff80], src_num_elem=[32767, 4], src_elem_size=64,
  dst_start_addr=hbm:0x10000000, dst_step_elem=[64, 0x1fffc0], dst_num_elem=[32767, 4], dst_elem_size=64, in_dtype=u8, out_dtype=u8`,
		// src: 64-byte elements 128 apart; each dim-1 row starts 32767·128 after the one before: one progression
		[]DescRun{{hbm, 128, 4 * 32767, 64}},
		// dst: 4·32767·64 = 8,388,352 bytes back to back = 127 full descriptors and one of 65,280
		[]DescRun{{hbm + 0x10000000, 65536, 127, 65536}, {hbm + 0x10000000 + 127*65536, 0, 1, 65280}}},
	{"contiguous 1 MiB", `dmamemcpy src_start_addr=hbm:0x0, src_step_elem=[4096, 0], src_num_elem=[256, 1], src_elem_size=4096,
  dst_start_addr=hbm:0x10000000, dst_step_elem=[4096, 0], dst_num_elem=[256, 1], dst_elem_size=4096, in_dtype=u8, out_dtype=u8`,
		[]DescRun{{hbm, 65536, 16, 65536}}, []DescRun{{hbm + 0x10000000, 65536, 16, 65536}}},
	{"rows of 96 KiB, 256 KiB apart", `dmamemcpy src_start_addr=hbm:0x0, src_step_elem=[4096, 0x40000], src_num_elem=[24, 3], src_elem_size=4096,
  dst_start_addr=hbm:0x10000000, dst_step_elem=[4096, 0x18000], dst_num_elem=[24, 3], dst_elem_size=4096, in_dtype=u8, out_dtype=u8`,
		// each src row: a full descriptor and one of 32 KiB
		[]DescRun{{hbm, 0, 1, 65536}, {hbm + 65536, 0, 1, 32768}, {hbm + 0x40000, 0, 1, 65536}, {hbm + 0x40000 + 65536, 0, 1, 32768}, {hbm + 0x80000, 0, 1, 65536}, {hbm + 0x80000 + 65536, 0, 1, 32768}},
		// dst: 3·96 KiB back to back = 4 full descriptors and one of 32 KiB
		[]DescRun{{hbm + 0x10000000, 65536, 4, 65536}, {hbm + 0x10000000 + 4*65536, 0, 1, 32768}}},
	{"descending rows into SBUF partitions", `dmamemcpy src_start_addr=hbm:0x100000, src_step_elem=[4, -256], src_num_elem=[16, 8], src_elem_size=4,
  dst_start_addr=sbuf:3:0x100, dst_step_elem=[4, 0x40000], dst_num_elem=[16, 8], dst_elem_size=4, in_dtype=fp32, out_dtype=fp32`,
		// 64-byte rows at 0x100000 − 256·r; SBUF partition 3+r offset 0x100: SoC 0x20_0000_0000 + (3+r)·0x40000 + 0x100
		[]DescRun{{hbm + 0x100000, -256, 8, 64}}, []DescRun{{0x20_0000_0000 + 3*0x40000 + 0x100, 0x40000, 8, 64}}},
	{"cast fp32 → bf16, strided", `dmamemcpy src_start_addr=hbm:0x0, src_step_elem=[4, 512], src_num_elem=[64, 100], src_elem_size=4,
  dst_start_addr=hbm:0x10000000, dst_step_elem=[2, 256], dst_num_elem=[64, 100], dst_elem_size=2, in_dtype=fp32, out_dtype=bf16`,
		[]DescRun{{hbm, 512, 100, 256}}, []DescRun{{hbm + 0x10000000, 256, 100, 128}}},
	{"elements apart, dst packed", `dmamemcpy src_start_addr=hbm:0x0, src_step_elem=[8, 0x1000], src_num_elem=[100, 3], src_elem_size=4,
  dst_start_addr=hbm:0x10000000, dst_step_elem=[4, 400], dst_num_elem=[100, 3], dst_elem_size=4, in_dtype=u8, out_dtype=u8`,
		// each dim-1 row: 100 four-byte elements 8 apart; the rows 0x1000 apart break the progression
		[]DescRun{{hbm, 8, 100, 4}, {hbm + 0x1000, 8, 100, 4}, {hbm + 0x2000, 8, 100, 4}}, []DescRun{{hbm + 0x10000000, 0, 1, 1200}}},
	{"a bound that passes", `dmamemcpy src_start_addr=hbm:0x0, src_step_elem=[4, 0x40000], src_num_elem=[64, 4], src_elem_size=4,
  dst_start_addr=sbuf:4:0x0, dst_step_elem=[4, 0x40000], dst_num_elem=[64, 4], dst_elem_size=4, in_dtype=fp32, out_dtype=fp32,
  dst_bound_reg.bc_enabled=1, dst_bound_reg.bc_reg=7`,
		// the last row's last byte: partition 7's 0xff, 0x1c00ff, within r7 (inclusive)
		[]DescRun{{hbm, 0x40000, 4, 256}}, []DescRun{{0x20_0000_0000 + 0x100000, 0x40000, 4, 256}}},
	{"a bound that fails (r7 = 0x1c00ff: the fifth row's last byte is 0x2000ff)", `dmamemcpy src_start_addr=hbm:0x0, src_step_elem=[4, 0x40000], src_num_elem=[64, 5], src_elem_size=4,
  dst_start_addr=sbuf:4:0x0, dst_step_elem=[4, 0x40000], dst_num_elem=[64, 5], dst_elem_size=4, in_dtype=fp32, out_dtype=fp32,
  dst_bound_reg.bc_enabled=1, dst_bound_reg.bc_reg=7`, nil, nil},
	{"a quiet bound (skipped lanes: not compact)", `dmamemcpy src_start_addr=hbm:0x0, src_step_elem=[4, 0x40000], src_num_elem=[64, 4], src_elem_size=4,
  dst_start_addr=sbuf:4:0x0, dst_step_elem=[4, 0x40000], dst_num_elem=[64, 4], dst_elem_size=4, in_dtype=fp32, out_dtype=fp32,
  dst_bound_reg.bc_enabled=1, dst_bound_reg.bc_reg=7, dst_bound_reg.bc_disable_oob_error_notif=1`, nil, nil},
}

// expandBoth expands p without and with Compact (then Materialize) and
// fails unless the two are the same queues, doorbells, log lines and error.
func expandBoth(t testing.TB, p *dge.Program, opt Options) (compact *Lowered) {
	t.Helper()
	want, werr := Expand(p, opt)
	opt.Compact = true
	got, gerr := Expand(p, opt)
	if fmt.Sprint(werr) != fmt.Sprint(gerr) {
		t.Fatalf("error %v, compact %v", werr, gerr)
	}
	if werr != nil {
		return nil
	}
	for i := range got.Queues {
		if q := &got.Queues[i]; q.Runs != nil {
			m, s := q.Count()
			compact = got
			qs := []*Queue{q}
			Materialize(qs, nil)
			if len(q.M2S) != m || len(q.S2M) != s || q.Runs != nil {
				t.Fatalf("queue %d counted %d and %d descriptors, written out %d and %d", i, m, s, len(q.M2S), len(q.S2M))
			}
		}
	}
	if len(want.Queues) != len(got.Queues) {
		t.Fatalf("%d queues, compact %d", len(want.Queues), len(got.Queues))
	}
	for i := range want.Queues {
		w, g := want.Queues[i], got.Queues[i]
		for leg, l := range [2][2][]Desc{{w.M2S, g.M2S}, {w.S2M, g.S2M}} {
			if len(l[0]) != len(l[1]) {
				t.Fatalf("queue %d leg %d: %d descriptors, compact %d", i, leg, len(l[0]), len(l[1]))
			}
			for k := range l[0] {
				if l[0][k] != l[1][k] {
					t.Fatalf("queue %d leg %d descriptor %d: %s, compact %s", i, leg, k, &l[0][k], &l[1][k])
				}
			}
		}
		w.M2S, w.S2M, g.M2S, g.S2M = nil, nil, nil, nil
		if d := cmp.Diff(w, g); d != "" {
			t.Fatalf("queue %d, compact and written out, differs from Expand's (-want +got):\n%s", i, d)
		}
	}
	if d := cmp.Diff(want.Log(), got.Log()); d != "" {
		t.Fatalf("log (-want +got):\n%s", d)
	}
	return compact
}

func TestCompactMaterialize(t *testing.T) {
	regs := map[uint8]uint32{7: 0x1c00ff}
	for _, c := range compactCases {
		t.Run(c.name, func(t *testing.T) {
			p := lower(t, isa.Cayman, c.word, dge.Options{})
			for _, ring := range []int{0, 16, 7} { // the default, and rings that wrap: phases per lap
				opt := Options{RingSize: ring, Regs: regs}
				lw, err := Expand(p, Options{RingSize: ring, Regs: regs, Compact: true})
				if c.m2s == nil {
					if err == nil && lw.Queues[0].Runs != nil {
						t.Fatalf("compact, where it may not be")
					}
					expandBoth(t, p, opt)
					continue
				}
				if err != nil || lw.Queues[0].Runs == nil {
					t.Fatalf("not compact: %v", err)
				}
				r := lw.Queues[0].Runs
				if d := cmp.Diff(c.m2s, r.M2S); d != "" {
					t.Fatalf("M2S runs (-want +got):\n%s", d)
				}
				if d := cmp.Diff(c.s2m, r.S2M); d != "" {
					t.Fatalf("S2M runs (-want +got):\n%s", d)
				}
				if expandBoth(t, p, opt) == nil {
					t.Fatalf("the second compact expansion was not compact")
				}
			}
		})
	}
}

// FuzzCompact: any DIRECT2D word (the two dims of dmamemcpy, any steps,
// sizes, addresses and dtypes) expands compact, written out, to Expand's
// queues byte for byte, or to Expand's error.
func FuzzCompact(f *testing.F) {
	f.Add(uint64(0), int64(128), int64(0x3fff80), uint16(327), uint16(4), uint16(64), uint64(0x10000000), int64(64), int64(0x1fffc0), uint16(327), uint16(4), uint16(64), uint8(0), uint8(16))
	f.Add(uint64(0x100000), int64(4), int64(-256), uint16(16), uint16(8), uint16(4), uint64(3<<18|0x100), int64(4), int64(0x40000), uint16(16), uint16(8), uint16(4), uint8(1), uint8(0))
	f.Add(uint64(0), int64(1), int64(0x40000), uint16(0x8000), uint16(3), uint16(1), uint64(0x10000000), int64(1), int64(0x8000), uint16(0x8000), uint16(3), uint16(1), uint8(2), uint8(5))
	f.Fuzz(func(t *testing.T, sa uint64, ss0, ss1 int64, sn0, sn1, se uint16, da uint64, ds0, ds1 int64, dn0, dn1, de uint16, mode, ring uint8) {
		if uint64(sn0)*uint64(sn1) > 1<<16 || uint64(dn0)*uint64(dn1) > 1<<16 { // a word of millions of descriptors is TestCompactMaterialize's, not a fuzz run's
			return
		}
		region := func(a uint64, sbuf bool) string {
			if sbuf {
				return fmt.Sprintf("sbuf:%d:%#x", a>>18%128, a&0x3ffff)
			}
			return fmt.Sprintf("hbm:%#x", a%(1<<34))
		}
		dt := [...]string{"u8", "fp32", "bf16"}
		in, out := dt[mode%3], dt[mode%3]
		if mode&4 != 0 {
			in, out = "fp32", "bf16"
		}
		src := fmt.Sprintf(`dmamemcpy src_start_addr=%s, src_step_elem=[%d, %d], src_num_elem=[%d, %d], src_elem_size=%d,
  dst_start_addr=%s, dst_step_elem=[%d, %d], dst_num_elem=[%d, %d], dst_elem_size=%d, in_dtype=%s, out_dtype=%s`,
			region(sa, mode&8 != 0), ss0%(1<<20), ss1%(1<<24), sn0, sn1, se, region(da, mode&16 != 0), ds0%(1<<20), ds1%(1<<24), dn0, dn1, de, in, out)
		if mode&32 != 0 {
			src += ", dst_bound_reg.bc_enabled=1, dst_bound_reg.bc_reg=7"
		}
		in2, ok := tryWord(isa.Cayman, src)
		if !ok {
			return
		}
		p, err := dge.Lower(&in2, isa.Cayman, dge.Options{})
		if err != nil {
			return
		}
		expandBoth(t, p, Options{RingSize: int(ring), Regs: map[uint8]uint32{7: uint32(da>>8) ^ 0x10000000}})
	})
}

// tryWord assembles and decodes one word, reporting false where either refuses it.
func tryWord(gen isa.Gen, src string) (isa.Inst, bool) {
	obj, err := asm.Assemble("t.s", []byte(src), asm.Options{Gen: gen})
	if err != nil {
		return isa.Inst{}, false
	}
	in, err := isa.Decode(gen, obj.Code)
	return in, err == nil
}
