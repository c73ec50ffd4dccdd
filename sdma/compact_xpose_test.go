package sdma

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"

	"ndma/dge"
	"ndma/isa"
)

// xposeWord is a DMA_TRANSPOSE of rows × cols es-byte elements (src rows
// ss bytes apart, dst rows ds bytes apart) in tr × tc tiles.
func xposeWord(dt, src, dst string, rows, cols, tr, tc int, ss, ds int64, extra string) string {
	es := map[string]int{"bf16": 2, "fp16": 2, "fp32": 4}[dt]
	return fmt.Sprintf(`dma_transpose in_dtype=%[1]s, out_dtype=%[1]s, src_start_addr=%[2]s, src_step_elem=[%[3]d, %[4]d],
  src_num_elem=[%[5]d, %[6]d], tile_src_row_step=%[4]d, tile_src_rows=%[7]d, tile_src_cols=%[8]d, dst_start_addr=%[9]s,
  dst_step_elem=[%[3]d, %[10]d], dst_num_elem=[%[6]d, %[5]d]%[11]s`, dt, src, es, ss, cols, rows, tr, tc, dst, ds, extra)
}

// tileRunsOf is the descriptor runs of a transpose's tiles where no run of
// a leg continues another (field-tables §11.5: M2S reads tile (rb, cb)'s h
// rows of w elements, S2M writes its w columns of h elements; SoC
// addresses): a DescRun per tile on M2S, and on S2M one per row block,
// its tiles' columns one progression dst_step_elem_1 apart.
func tileRunsOf(sa, da uint64, rows, cols, tr, tc int, es, ss, ds int64) (m2s, s2m []DescRun) {
	for rb := 0; rb < rows; rb += tr {
		h := min(tr, rows-rb)
		for cb := 0; cb < cols; cb += tc {
			w := min(tc, cols-cb)
			m2s = append(m2s, DescRun{sa + uint64(int64(cb)*es+int64(rb)*ss), ss, h, w * int(es)})
		}
		s2m = append(s2m, DescRun{da + uint64(int64(rb)*es), ds, cols, h * int(es)})
	}
	return m2s, s2m
}

// TestCompactXpose: DMA_TRANSPOSE words held as runs — the runs derived by
// hand from the tiles — write out (Materialize) Expand's descriptors byte
// for byte, on rings that wrap too; words off tileProgs' case are not held
// as runs, and expand as before.
func TestCompactXpose(t *testing.T) {
	// rows back to back: tile (rb, 896)'s last row ends where tile (rb+16, 0)'s first begins, one run of 512 bytes
	// (appendRun): the M2S runs of tileRunsOf with each row block's last descriptor and the next's first merged
	m1024, s1024 := tileRunsOf(hbm, hbm+0x10000000, 1024, 1024, 16, 128, 2, 2048, 2048)
	for i := 7; i+1 < len(m1024); i += 9 { // tile 7 of a row block, then tile 8 is the next block's first
		last, next := &m1024[i], &m1024[i+1]
		last.N--
		joined := DescRun{last.At(last.N), 0, 1, 512}
		next.Addr, next.N = next.At(1), next.N-1
		m1024 = append(m1024[:i+1], append([]DescRun{joined}, m1024[i+1:]...)...)
	}
	m1k, s1k := tileRunsOf(hbm, hbm+0x10000000, 1024, 1024, 16, 128, 2, 2304, 2048)
	m4k, s4k := tileRunsOf(hbm, hbm+0x10000000, 96, 4096, 16, 128, 2, 8448, 192)
	var sbufS2M []DescRun // 16-row blocks: each column a partition's 32 bytes, partitions 0x40000 apart
	for rb := 0; rb < 64; rb += 16 {
		sbufS2M = append(sbufS2M, DescRun{0x20_0000_0000 + uint64(2*rb), 0x40000, 128, 32})
	}
	var wholeS2M []DescRun
	for rb := 0; rb < 512; rb += 16 {
		wholeS2M = append(wholeS2M, DescRun{hbm + 0x10000000 + uint64(2*rb), 1024, 128, 32})
	}
	// dst's last byte: partition 127's byte 127 (Neuron address 127·0x40000 + 127), inclusive
	regs := map[uint8]uint32{7: 127<<18 + 127, 8: 127<<18 + 126}
	for _, c := range []struct {
		name, word string
		m2s, s2m   []DescRun // nil: not held as runs
	}{
		// the source's rows back to back: a tile's last row continues into the next row block's first tile
		{"bf16 1024 × 1024 in 16 × 128 tiles, rows back to back", xposeWord("bf16", "hbm:0x0", "hbm:0x10000000", 1024, 1024, 16, 128, 2048, 2048, ""), m1024, s1024},
		{"bf16 1024 × 1024 in 16 × 128 tiles, rows 2304 apart", xposeWord("bf16", "hbm:0x0", "hbm:0x10000000", 1024, 1024, 16, 128, 2304, 2048, ""), m1k, s1k},
		{"bf16 96 × 4096 (a wide source, rows 8448 apart)", xposeWord("bf16", "hbm:0x0", "hbm:0x10000000", 96, 4096, 16, 128, 8448, 192, ""), m4k, s4k},
		// the source's 64 rows of 256 bytes back to back: one run; each 16-row block's 128 columns into the 128 partitions
		{"fp16 64 × 128 into SBUF", xposeWord("fp16", "hbm:0x0", "sbuf:0:0x0", 64, 128, 16, 128, 256, 0x40000, ""),
			[]DescRun{{hbm, 0, 1, 64 * 256}}, sbufS2M},
		// whole-row tiles: the source is 128 KiB back to back, 2 full descriptors
		{"bf16 512 × 128 in 16 × 128 tiles", xposeWord("bf16", "hbm:0x0", "hbm:0x10000000", 512, 128, 16, 128, 256, 1024, ""),
			[]DescRun{{hbm, 65536, 2, 65536}}, wholeS2M},
		{"a bound that passes", xposeWord("fp16", "hbm:0x0", "sbuf:0:0x0", 64, 128, 16, 128, 256, 0x40000, ", dst_bound_reg.bc_enabled=1, dst_bound_reg.bc_reg=7"),
			[]DescRun{{hbm, 0, 1, 64 * 256}}, sbufS2M},
		{"a bound that fails", xposeWord("fp16", "hbm:0x0", "sbuf:0:0x0", 64, 128, 16, 128, 256, 0x40000, ", dst_bound_reg.bc_enabled=1, dst_bound_reg.bc_reg=8"), nil, nil},
		{"a quiet bound", xposeWord("fp16", "hbm:0x0", "sbuf:0:0x0", 64, 128, 16, 128, 256, 0x40000, ", dst_bound_reg.bc_enabled=1, dst_bound_reg.bc_reg=7, dst_bound_reg.bc_disable_oob_error_notif=1"), nil, nil},
		{"element-wise dst (dim 0 step 4 of 2-byte elements)", `dma_transpose in_dtype=bf16, out_dtype=bf16, src_start_addr=hbm:0x0, src_step_elem=[2, 64],
  src_num_elem=[32, 32], tile_src_row_step=64, tile_src_rows=16, tile_src_cols=32, dst_start_addr=hbm:0x10000, dst_step_elem=[4, 128], dst_num_elem=[32, 32]`, nil, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := lower(t, isa.Cayman, c.word, dge.Options{})
			checkCompact(t, p, regs, c.m2s, c.s2m, func(r *Runs) {
				if r.Tmpl.Op() != OpDRE {
					t.Fatalf("template op %d, want DRE", r.Tmpl.Op())
				}
			})
		})
	}
}

// checkCompact expands p on rings of every size, compact: held as runs
// exactly when m2s is not nil, those runs (and more, by also), and the
// second compact expansion agreeing.
func checkCompact(t *testing.T, p *dge.Program, regs map[uint8]uint32, m2s, s2m []DescRun, also func(*Runs)) {
	t.Helper()
	for _, ring := range []int{0, 16, 7} {
		lw, err := Expand(p, Options{RingSize: ring, Regs: regs, Compact: true})
		compact := err == nil && lw.Queues[0].Runs != nil
		if compact != (m2s != nil) {
			t.Fatalf("held as runs %v, want %v (error %v)", compact, m2s != nil, err)
		}
		if compact {
			r := lw.Queues[0].Runs
			if d := cmp.Diff(m2s, r.M2S); d != "" {
				t.Fatalf("M2S runs (-want +got):\n%s", d)
			}
			if d := cmp.Diff(s2m, r.S2M); d != "" {
				t.Fatalf("S2M runs (-want +got):\n%s", d)
			}
			if also != nil {
				also(r)
			}
		}
		if got := expandBoth(t, p, Options{RingSize: ring, Regs: regs}); (got != nil) != compact {
			t.Fatalf("the second compact expansion held as runs %v, the first %v", got != nil, compact)
		}
	}
}

// FuzzCompactXpose: any DMA_TRANSPOSE word (shapes, tiles, steps of either
// sign, HBM or SBUF ends, a bound) expands compact, written out, to Expand's
// queues byte for byte, or to Expand's error.
func FuzzCompactXpose(f *testing.F) {
	f.Add(uint64(0), int64(2048), uint16(1024), uint16(1024), uint64(0x10000000), int64(2048), uint8(16), uint8(128), uint8(0), uint8(0))
	f.Add(uint64(0x100), int64(-256), uint16(128), uint16(40), uint64(0), int64(0x40000), uint8(16), uint8(128), uint8(0x9), uint8(5))
	f.Add(uint64(0), int64(66), uint16(33), uint16(17), uint64(0x10000), int64(70), uint8(5), uint8(3), uint8(0x22), uint8(3))
	f.Fuzz(func(t *testing.T, sa uint64, ss int64, cols, rows uint16, da uint64, ds int64, tr, tc, mode, ring uint8) {
		if uint64(rows)*uint64(cols) > 1<<18 {
			return
		}
		dt := [...]string{"bf16", "fp32"}[mode&1]
		region := func(a uint64, sbuf bool) string {
			if sbuf {
				return fmt.Sprintf("sbuf:%d:%#x", a>>18%128, a&0x3ffff)
			}
			return fmt.Sprintf("hbm:%#x", a%(1<<34))
		}
		extra := ""
		if mode&2 != 0 {
			extra = ", dst_bound_reg.bc_enabled=1, dst_bound_reg.bc_reg=7"
		}
		if mode&4 != 0 {
			extra += ", src_bound_reg.bc_enabled=1, src_bound_reg.bc_reg=7"
		}
		if mode&16 != 0 {
			extra += ", dst_bound_reg.bc_disable_oob_error_notif=1"
		}
		src := xposeWord(dt, region(sa, mode&32 != 0), region(da, mode&8 != 0), int(rows), int(cols), int(tr), int(tc), ss%(1<<24), ds%(1<<24), extra)
		in, ok := tryWord(isa.Cayman, src)
		if !ok {
			return
		}
		p, err := dge.Lower(&in, isa.Cayman, dge.Options{})
		if err != nil {
			return
		}
		expandBoth(t, p, Options{RingSize: int(ring), Regs: map[uint8]uint32{7: uint32(da>>4) ^ 0x10000000}})
	})
}

// TestCompactXposeRandom: random transposes of tileProgs' case — tiles
// that divide the block and tiles that do not, row steps of either sign,
// rows that continue each other — are held as runs and write out Expand's
// descriptors.
func TestCompactXposeRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 7))
	held := 0
	for i := range 200 {
		es := []int64{2, 4}[rng.IntN(2)]
		dt := map[int64]string{2: "bf16", 4: "fp32"}[es]
		rows, cols := 1+rng.IntN(70), 1+rng.IntN(70)
		ss, ds := int64(cols)*es, int64(rows)*es
		if rng.IntN(2) == 0 {
			ss += es * int64(rng.IntN(4))
		}
		if rng.IntN(3) == 0 {
			ds = -ds
		}
		word := xposeWord(dt, "hbm:0x100000", "hbm:0x800000", rows, cols, 1+rng.IntN(20), 1+rng.IntN(20), ss, ds, "")
		p := lower(t, isa.Cayman, word, dge.Options{})
		if expandBoth(t, p, Options{RingSize: []int{0, 5, 64}[i%3]}) != nil {
			held++
		}
	}
	if held != 200 {
		t.Fatalf("%d of 200 transposes held as runs", held)
	}
}

// gatherWord is a DMA_GATHER_TRANSPOSE of n indices, each row l 2-byte
// elements (src rows 2·l·pad bytes apart), dst(j, k) at dst + 2j + k·d1.
func gatherWord(n, l, pad int, dst string, d1 int, extra string) string {
	return fmt.Sprintf(`dma_gather_transpose idx_num_active_channels=128, src_start_addr=hbm:0x0, src_step_elem=[2, %[1]d],
  src_num_elem=[%[2]d, %[3]d], src_idx_start_addr=sbuf:0:0x0, dst_start_addr=%[4]s, dst_step_elem_1=%[5]d,
  dst_num_elem=[%[3]d, %[2]d], elem_size=%[6]d, dtype_lo=bf16, dtype_hi=bf16, gather_dim=Y%[7]s`, 2*l*pad, l, n, dst, d1, 2*l, extra)
}

// TestCompactGather: DMA_GATHER_TRANSPOSE words held as runs (field-tables
// §11.5: M2S reads row idx[j] at src + idx[j]·src_step_elem_1, S2M writes
// per 16-row block and column k 16 elements at dst + 2·jb + k·dst_step_elem_1)
// — the runs derived by hand — write out Expand's descriptors; lanes to
// check or skip are not held as runs.
func TestCompactGather(t *testing.T) {
	// 32 indices of 16-byte rows 32 bytes apart (no row continues another): the descriptors' buf_ptrs
	// grouped greedily into progressions, two lone descriptors making one of two (3, 3 and 17, 17 of
	// step 0; 9, 100 of step 91 rows; 1000, 999, 998 descending)
	idx := []uint32{3, 3, 40, 41, 42, 9, 100, 7, 7, 7, 0, 1, 2, 3, 4, 5, 6, 50, 60, 70, 80, 90, 91, 92, 93, 1000, 999, 998, 17, 17, 18, 19}
	index := func(_, j int) (uint32, error) { return idx[j], nil }
	src := func(v uint32) uint64 { return hbm + 32*uint64(v) }
	m2s := []DescRun{{src(3), 0, 2, 16}, {src(40), 32, 3, 16}, {src(9), 91 * 32, 2, 16}, {src(7), 0, 3, 16}, {src(0), 32, 7, 16},
		{src(50), 320, 5, 16}, {src(91), 32, 3, 16}, {src(1000), -32, 3, 16}, {src(17), 0, 2, 16}, {src(18), 32, 2, 16}}
	// each 16-row block: 8 columns of 32 bytes, 0x100 apart
	s2m := []DescRun{{hbm + 0x100000, 0x100, 8, 32}, {hbm + 0x100000 + 32, 0x100, 8, 32}}
	// dst_step_elem_1 = 32, a block column's 16 elements: a block's columns continue each other, one run
	// of 256 bytes, the next block's 32 bytes on (a progression of two)
	s2mPacked := []DescRun{{hbm + 0x100000, 32, 2, 256}}
	for _, c := range []struct {
		name, word string
		m2s, s2m   []DescRun
	}{
		{"strewn rows into HBM", gatherWord(32, 8, 2, "hbm:0x100000", 0x100, ""), m2s, s2m},
		{"strewn rows, a block's columns back to back", gatherWord(32, 8, 2, "hbm:0x100000", 32, ""), m2s, s2mPacked},
		{"an index bound that passes", gatherWord(32, 8, 2, "hbm:0x100000", 0x100, ", src_idx_bound_reg.bc_enabled=1, src_idx_bound_reg.bc_reg=7"), m2s, s2m},
		{"an index bound that fails", gatherWord(32, 8, 2, "hbm:0x100000", 0x100, ", src_idx_bound_reg.bc_enabled=1, src_idx_bound_reg.bc_reg=8"), nil, nil},
		{"a quiet index bound", gatherWord(32, 8, 2, "hbm:0x100000", 0x100, ", src_idx_bound_reg.bc_enabled=1, src_idx_bound_reg.bc_reg=8, src_idx_bound_reg.bc_disable_oob_error_notif=1"), nil, nil},
		{"a dst bound", gatherWord(32, 8, 2, "sbuf:1:0x0", 0x100, ", dst_bound_reg.bc_enabled=1, dst_bound_reg.bc_reg=7"), nil, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := lower(t, isa.Cayman, c.word, dge.Options{Index: index})
			regs := map[uint8]uint32{7: 1000, 8: 999}
			checkCompact(t, p, regs, c.m2s, c.s2m, nil)
		})
	}
}

// FuzzCompactGather: any DMA_GATHER_TRANSPOSE word (indices, row sizes and
// steps, dst steps, bounds, HBM or SBUF) expands compact, written out, to
// Expand's queues byte for byte, or to Expand's error.
func FuzzCompactGather(f *testing.F) {
	f.Add(uint64(1), uint8(32), uint8(8), uint8(2), int64(0x100), uint8(0), uint8(0))
	f.Add(uint64(2), uint8(40), uint8(64), uint8(1), int64(80), uint8(3), uint8(5))
	f.Add(uint64(3), uint8(17), uint8(3), uint8(3), int64(-64), uint8(4), uint8(3))
	f.Fuzz(func(t *testing.T, seed uint64, n, l, pad uint8, d1 int64, mode, ring uint8) {
		if n == 0 || l == 0 {
			return
		}
		rng := rand.New(rand.NewPCG(seed, 1))
		idx := make([]uint32, n)
		span := []int{4, 64, 1 << 12}[mode%3]
		for j := range idx {
			idx[j] = uint32(rng.IntN(span))
			if j > 0 && rng.IntN(3) == 0 {
				idx[j] = idx[j-1] + uint32(rng.IntN(3)) - 1
			}
		}
		dst := "hbm:0x1000000"
		if mode&8 != 0 {
			dst = "sbuf:2:0x100"
		}
		extra := ""
		if mode&16 != 0 {
			extra = ", src_idx_bound_reg.bc_enabled=1, src_idx_bound_reg.bc_reg=7"
			if mode&32 != 0 {
				extra += ", src_idx_bound_reg.bc_disable_oob_error_notif=1"
			}
		}
		if mode&64 != 0 {
			extra += ", dst_bound_reg.bc_enabled=1, dst_bound_reg.bc_reg=7"
		}
		in, ok := tryWord(isa.Cayman, gatherWord(int(n), int(l), 1+int(pad%4), dst, int(d1%(1<<20)), extra))
		if !ok {
			return
		}
		p, err := dge.Lower(&in, isa.Cayman, dge.Options{Index: func(_, j int) (uint32, error) { return idx[j], nil }})
		if err != nil {
			return
		}
		expandBoth(t, p, Options{RingSize: int(ring), Regs: map[uint8]uint32{7: uint32(span / 2)}})
	})
}
