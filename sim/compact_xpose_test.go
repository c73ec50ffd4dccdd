package sim

import (
	"fmt"
	"math/rand/v2"
	"ndma/internal/testutil"
	"reflect"
	"testing"

	"ndma/internal/control"
	"ndma/isa"
)

// xposeSrc is a DMA_TRANSPOSE of rows × cols elements of dt in tr × tc
// tiles, src rows ss bytes apart, dst rows ds apart.
func xposeSrc(dt, src, dst string, rows, cols, tr, tc int, ss, ds int64, extra string) string {
	es := map[string]int{"bf16": 2, "fp16": 2, "fp32": 4}[dt]
	return fmt.Sprintf(`dma_transpose semaphore=3, in_dtype=%[1]s, out_dtype=%[1]s, src_start_addr=%[2]s, src_step_elem=[%[3]d, %[4]d],
  src_num_elem=[%[5]d, %[6]d], tile_src_row_step=%[4]d, tile_src_rows=%[7]d, tile_src_cols=%[8]d, dst_start_addr=%[9]s,
  dst_step_elem=[%[3]d, %[10]d], dst_num_elem=[%[6]d, %[5]d]%[11]s`, dt, src, es, ss, cols, rows, tr, tc, dst, ds, extra)
}

// Transposes held as descriptor runs (prepareXpose, moveXpose) end as the
// per-descriptor path ends them — memory, semaphores, counts, write spans,
// errors — where they are taken (tiles in HBM rows or SBUF partitions, the
// source read in place in order or row by row, destinations in pieces),
// and are not taken where the tiles are not whole, the reads meet the
// writes, a bound is quiet or a leg leaves core 0's HBM and SBUF.
func TestXposeCompactAgainstExact(t *testing.T) {
	const noRows, rows = 1, 2 // taken: the source in order (one Peek), or tile row by tile row (q.rows)
	for _, tc := range []struct {
		name, src string
		gen       isa.Gen
		taken     int // 0: not taken
	}{
		{"bf16 256 × 256 HBM rows, source rows back to back", xposeSrc("bf16", "hbm:0x0", "hbm:0x100000", 256, 256, 16, 128, 512, 512, ""), isa.Cayman, rows},
		{"bf16 256 × 512, source rows padded, dst rows descending", xposeSrc("bf16", "hbm:0x0", "hbm:0x200000", 256, 512, 16, 128, 1088, -640, ""), isa.Cayman, rows},
		{"fp16 64 × 128 into SBUF partitions", xposeSrc("fp16", "hbm:0x0", "sbuf:0:0x40", 64, 128, 16, 128, 256, 0x40000, ""), isa.Cayman, noRows},
		{"fp16 64 × 128 into MARIANA's SBUF partitions", xposeSrc("fp16", "hbm:0x0", "sbuf:0:0x40", 64, 128, 16, 128, 256, int64(isa.Map(isa.Mariana).SBUFStride), ""), isa.Mariana, noRows},
		{"fp32 64 × 64 in 16 × 32 tiles (the loops' turn)", xposeSrc("fp32", "hbm:0x0", "hbm:0x10000", 64, 64, 16, 32, 256, 256, ""), isa.Cayman, rows},
		{"fp32 32 × 48 in 8 × 16 tiles, whole-row source", xposeSrc("fp32", "hbm:0x0", "hbm:0x10000", 32, 48, 8, 48, 192, 128, ""), isa.Cayman, noRows},
		{"dst rows across an HBM page's end (in pieces)", xposeSrc("bf16", "hbm:0x0", "hbm:0xfff00", 256, 256, 16, 128, 512, 4096, ""), isa.Cayman, rows},
		{"a bound that passes", xposeSrc("fp16", "hbm:0x0", "sbuf:0:0x0", 64, 128, 16, 128, 256, 0x40000, ", dst_bound_reg.bc_enabled=1, dst_bound_reg.bc_reg=7"), isa.Cayman, noRows},
		{"a bound that fails", xposeSrc("fp16", "hbm:0x0", "sbuf:0:0x0", 64, 128, 16, 128, 256, 0x40000, ", dst_bound_reg.bc_enabled=1, dst_bound_reg.bc_reg=8"), isa.Cayman, 0},
		{"a quiet bound", xposeSrc("fp16", "hbm:0x0", "sbuf:0:0x0", 64, 128, 16, 128, 256, 0x40000, ", dst_bound_reg.bc_enabled=1, dst_bound_reg.bc_reg=8, dst_bound_reg.bc_disable_oob_error_notif=1"), isa.Cayman, 0},
		{"edge tiles (40 rows in 16-row tiles)", xposeSrc("bf16", "hbm:0x0", "hbm:0x100000", 40, 256, 16, 128, 512, 80, ""), isa.Cayman, 0},
		{"the dst meeting the src", xposeSrc("bf16", "hbm:0x0", "hbm:0x10000", 256, 256, 16, 128, 512, 512, ""), isa.Cayman, 0},
		{"dst past SBUF's active bytes", xposeSrc("fp16", "hbm:0x0", "sbuf:0:0x37fc0", 64, 128, 16, 128, 256, 0x40000, ""), isa.Cayman, 0},
		{"src rows in SBUF partitions", xposeSrc("fp16", "sbuf:0:0x100", "hbm:0x100000", 128, 128, 16, 128, 0x40000, 256, ""), isa.Cayman, rows},
		{"src past SBUF's active bytes", xposeSrc("fp16", "sbuf:0:0x37f80", "hbm:0x100000", 128, 128, 16, 128, 0x40000, 256, ""), isa.Cayman, 0},
		{"src rows across SBUF partitions", xposeSrc("fp16", "sbuf:0:0x3ff80", "hbm:0x100000", 128, 128, 16, 128, 0x40000, 256, ""), isa.Mariana, 0},
		// rows a partition less 64 bytes apart: row r at partition r, offset 0x37fc0 − 64·r — only the first past the active bytes
		{"src rows 0x3ffc0 apart, the first past the active bytes", xposeSrc("fp16", "sbuf:0:0x37fc0", "hbm:0x100000", 16, 64, 8, 64, 0x3ffc0, 64, ""), isa.Cayman, 0},
		{"src rows in one SBUF partition, 0x300 apart", xposeSrc("fp16", "sbuf:5:0x100", "hbm:0x100000", 64, 128, 16, 128, 0x300, 256, ""), isa.Cayman, rows},
		{"src rows 0x3ffc0 apart", xposeSrc("fp16", "sbuf:0:0x37f80", "hbm:0x100000", 16, 64, 8, 64, 0x3ffc0, 64, ""), isa.Cayman, 0},
		{"dst in PSUM", xposeSrc("bf16", "hbm:0x0", "psum:0:0x0", 32, 32, 16, 32, 64, 64, ""), isa.Cayman, 0},
	} {
		in, ok := tryWord(tc.gen, tc.src)
		if !ok {
			t.Fatalf("%s: does not assemble", tc.name)
		}
		for _, ring := range []int{0, 5} {
			fast, exact := New(tc.gen), New(tc.gen)
			exact.exact = true
			for _, x := range []*Machine{fast, exact} {
				x.RingSize = ring
				x.Regs[7], x.Regs[8] = 127<<18+0x7f, 127<<18+0x7e // dst's last byte: partition 127's byte 127
				seed(t, rand.New(rand.NewPCG(3, 5)), tc.gen, simM{x})
			}
			what := fmt.Sprintf("%s (ring %d)", tc.name, ring)
			effs, errs := issueBoth(t, what, fast, exact, in)
			if errs[1] == nil && len(effs[1].Changes) == 0 {
				t.Fatalf("%s: no semaphore change", what)
			}
			taken := 0
			if fast.compacted > 0 {
				taken = noRows
				if fast.viewed > 0 {
					taken = rows
				}
				if fast.tiled == 0 || fast.turned == 0 {
					t.Fatalf("%s: taken as runs, not turned into its tiles", what)
				}
			}
			if taken != tc.taken {
				t.Fatalf("%s: taken %d, want %d (0 no, 1 source in order, 2 row by row); error %v", what, taken, tc.taken, errs[1])
			}
			if tc.name == "dst rows across an HBM page's end (in pieces)" && fast.pieced == 0 {
				t.Fatalf("%s: not written through turnInto's scratch", what)
			}
		}
	}
}

// Random transposes of the runs' case (every tile whole, steps of either
// sign, padded rows, 2- and 4-byte elements, HBM or SBUF destinations) on
// the engines end as on the exact path, and most are taken as runs.
func TestXposeCompactRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(29, 3))
	taken := 0
	n := testutil.Trials(60)
	for i := range n {
		dt, es := "bf16", int64(2)
		if r.IntN(3) == 0 {
			dt, es = "fp32", 4
		}
		tr, tc := 8*(1+r.IntN(3)), 8*(1+r.IntN(8))
		rows, cols := tr*(1+r.IntN(6)), tc*(1+r.IntN(4))
		ss := int64(cols)*es + es*int64(r.IntN(3))
		dst, ds := "hbm:0x400000", int64(rows)*es+es*int64(r.IntN(3))
		if r.IntN(4) == 0 {
			ds = -ds
			dst = "hbm:0x500000"
		}
		if r.IntN(3) == 0 && cols <= 128 {
			dst, ds = fmt.Sprintf("sbuf:%d:0x%x", r.IntN(128-cols+1), 64*r.IntN(8)), 0x40000
		}
		src := xposeSrc(dt, fmt.Sprintf("hbm:%#x", 64*r.IntN(64)), dst, rows, cols, tr, tc, ss, ds, "")
		in, ok := tryWord(isa.Cayman, src)
		if !ok {
			t.Fatalf("does not assemble: %s", src)
		}
		fast, exact := New(isa.Cayman), New(isa.Cayman)
		exact.exact = true
		for _, x := range []*Machine{fast, exact} {
			x.RingSize = []int{0, 7}[i%2]
			seed(t, rand.New(rand.NewPCG(uint64(i), 5)), isa.Cayman, simM{x})
		}
		errF, errE := fast.Exec(in), exact.Exec(in)
		sameRun(t, src, fast, exact, errF, errE)
		if errE != nil {
			t.Fatalf("%s: %v", src, errE)
		}
		if fast.compacted > 0 {
			taken++
		}
	}
	if taken < n/2 {
		t.Fatalf("%d of %d transposes taken as runs", taken, n)
	}
	t.Logf("%d of %d transposes taken as runs", taken, n)
}

// gatherSrc is a DMA_GATHER_TRANSPOSE of n indices (sbuf:0:0x0, 16
// channels: values below 64, seed's) of l-element bf16 rows 2·l bytes
// apart, dst(j, k) at dst + 2j + k·d1.
func gatherSrc(n, l int, dst string, d1 int, extra string) string {
	return fmt.Sprintf(`dma_gather_transpose semaphore=4, idx_num_active_channels=16, src_start_addr=hbm:0x0, src_step_elem=[2, %[1]d],
  src_num_elem=[%[2]d, %[3]d], src_idx_start_addr=sbuf:0:0x0, dst_start_addr=%[4]s, dst_step_elem_1=%[5]d,
  dst_num_elem=[%[3]d, %[2]d], elem_size=%[1]d, dtype_lo=bf16, dtype_hi=bf16, gather_dim=Y%[6]s`, 2*l, l, n, dst, d1, extra)
}

// Gather-transposes held as descriptor runs end as the per-descriptor path
// ends them where they are taken (rows strewn over a table, into HBM rows
// or SBUF partitions), and are not taken where lanes are checked or
// skipped (an index bound that fails or is quiet, a dst bound), the blocks
// are not whole or the writes meet the table.
func TestGatherCompactAgainstExact(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		taken     bool
	}{
		{"64 rows of 32 into HBM", gatherSrc(64, 32, "hbm:0x100000", 256, ""), true},
		{"64 rows of 64 into SBUF partitions", gatherSrc(64, 64, "sbuf:16:0x40", 0x40000, ""), true},
		{"rows of 8 (the loops' turn)", gatherSrc(48, 8, "hbm:0x100000", 96, ""), true},
		{"an index bound that passes", gatherSrc(64, 32, "hbm:0x100000", 256, ", src_idx_bound_reg.bc_enabled=1, src_idx_bound_reg.bc_reg=7"), true},
		{"an index bound that fails", gatherSrc(64, 32, "hbm:0x100000", 256, ", src_idx_bound_reg.bc_enabled=1, src_idx_bound_reg.bc_reg=8"), false},
		{"a quiet index bound", gatherSrc(64, 32, "hbm:0x100000", 256, ", src_idx_bound_reg.bc_enabled=1, src_idx_bound_reg.bc_reg=8, src_idx_bound_reg.bc_disable_oob_error_notif=1"), false},
		{"a dst bound", gatherSrc(64, 64, "sbuf:16:0x40", 0x40000, ", dst_bound_reg.bc_enabled=1, dst_bound_reg.bc_reg=9"), false},
		{"40 rows (a block not whole)", gatherSrc(40, 32, "hbm:0x100000", 256, ""), false},
		{"the dst meeting the table", gatherSrc(64, 32, "hbm:0x800", 256, ""), false},
	} {
		in, ok := tryWord(isa.Cayman, tc.src)
		if !ok {
			t.Fatalf("%s: does not assemble", tc.name)
		}
		for _, ring := range []int{0, 5} {
			fast, exact := New(isa.Cayman), New(isa.Cayman)
			exact.exact = true
			for _, x := range []*Machine{fast, exact} {
				x.RingSize = ring
				x.Regs[7], x.Regs[8], x.Regs[9] = 63, 20, (16+63)<<18+0x40+2*63 // every index; some past; the last dst byte past
				seed(t, rand.New(rand.NewPCG(7, 5)), isa.Cayman, simM{x})
			}
			what := fmt.Sprintf("%s (ring %d)", tc.name, ring)
			_, errs := issueBoth(t, what, fast, exact, in)
			if taken := fast.compacted > 0; taken != tc.taken {
				t.Fatalf("%s: taken as runs %v, want %v (error %v)", what, taken, tc.taken, errs[1])
			}
			if tc.taken && (fast.viewed == 0 || fast.tiled == 0) {
				t.Fatalf("%s: taken, its rows not read in place or not turned into tiles", what)
			}
		}
	}
}

// issueBoth issues in on the fast engines and the exact ones and holds them
// to one outcome: the same memory, fault and effects (their changes each
// machine's own, compared without it).
func issueBoth(t *testing.T, what string, fast, exact *Machine, in *isa.Inst) ([2]control.Effect, [2]error) {
	t.Helper()
	var effs [2]control.Effect
	var errs [2]error
	for j, x := range []*Machine{fast, exact} {
		if effs[j], errs[j] = x.Issue(in); errs[j] == nil {
			effs[j].Apply()
		}
	}
	sameRun(t, what, fast, exact, errs[0], errs[1])
	for j := range effs {
		for k := range effs[j].Changes {
			effs[j].Changes[k].Mem = nil // each machine's own
		}
	}
	if !reflect.DeepEqual(effs[0].Writes, effs[1].Writes) || !reflect.DeepEqual(effs[0].Reads, effs[1].Reads) || !reflect.DeepEqual(effs[0].Queues, effs[1].Queues) || !reflect.DeepEqual(effs[0].Changes, effs[1].Changes) {
		t.Fatalf("%s: effects %+v, exact %+v", what, effs[0], effs[1])
	}
	return effs, errs
}
