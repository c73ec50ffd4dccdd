package ref

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"ndma/internal/testutil"
	"reflect"
	"strings"
	"testing"

	"ndma/isa"
)

func asmWord(t testing.TB, g isa.Gen, src string) *isa.Inst { return testutil.Word(t, g, src) }

func put32(t *testing.T, x *Machine, addr uint64, vs ...uint32) {
	t.Helper()
	b := make([]byte, 4*len(vs))
	for i, v := range vs {
		binary.LittleEndian.PutUint32(b[4*i:], v)
	}
	if err := x.Mem.Write(addr, b); err != nil {
		t.Fatal(err)
	}
}

func get32(t *testing.T, x *Machine, addr uint64, n int) []uint32 {
	t.Helper()
	b := make([]byte, 4*n)
	if err := x.Mem.Read(addr, b); err != nil {
		t.Fatal(err)
	}
	out := make([]uint32, n)
	for i := range out {
		out[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	return out
}

const hbm = 0x1_0000_0000

// A strided copy: three 8-byte rows 16 bytes apart in HBM land packed in SBUF partition 2.
func TestCopyStrided(t *testing.T) {
	x := New(isa.Cayman)
	put32(t, x, hbm, 1, 2, 0xdead, 0xdead, 3, 4, 0xdead, 0xdead, 5, 6)
	in := asmWord(t, isa.Cayman, `dmamemcpy semaphore=7, sem_increment=2, src_start_addr=hbm:0x0, src_step_elem=[4, 16], src_num_elem=[2, 3],
  src_elem_size=4, dst_start_addr=sbuf:2:0x100, dst_step_elem=[4, 8], dst_num_elem=[2, 3], dst_elem_size=4, in_dtype=u32, out_dtype=u32`)
	if err := x.Exec(in); err != nil {
		t.Fatal(err)
	}
	if got := get32(t, x, 2*0x40000+0x100, 6); !reflect.DeepEqual(got, []uint32{1, 2, 3, 4, 5, 6}) {
		t.Fatalf("dst %v", got)
	}
	if x.Mem.Sems[7] != 2 {
		t.Fatalf("$S[7] = %d, want 2", x.Mem.Sems[7])
	}
}

// Overlapping src and dst behave as memmove over the whole word (§11.3).
func TestCopyOverlapping(t *testing.T) {
	x := New(isa.Cayman)
	put32(t, x, 0x1000, 1, 2, 3, 4)
	in := asmWord(t, isa.Cayman, `dmamemcpy src_start_addr=0x1000, src_step_elem=[4, 0], src_num_elem=[4, 1], src_elem_size=4,
  dst_start_addr=0x1004, dst_step_elem=[4, 0], dst_num_elem=[4, 1], dst_elem_size=4, in_dtype=u32, out_dtype=u32`)
	if err := x.Exec(in); err != nil {
		t.Fatal(err)
	}
	if got := get32(t, x, 0x1000, 5); !reflect.DeepEqual(got, []uint32{1, 1, 2, 3, 4}) {
		t.Fatalf("memmove: %v", got)
	}
}

// FP32 → BF16 rounds to nearest even (§11.4): 1.0 → 0x3f80; 1 + 2^-8 (a tie
// between 0x3f80 and 0x3f81) → 0x3f80 (even); 1 + 3·2^-8 → 0x3f82; NaN stays NaN.
func TestCast(t *testing.T) {
	x := New(isa.Cayman)
	put32(t, x, 0, math.Float32bits(1), math.Float32bits(1+1.0/256), math.Float32bits(1+3.0/256), math.Float32bits(float32(math.NaN())))
	in := asmWord(t, isa.Cayman, `dmamemcpy src_start_addr=0x0, src_step_elem=[4, 0], src_num_elem=[4, 1], src_elem_size=4,
  dst_start_addr=0x100, dst_step_elem=[2, 0], dst_num_elem=[4, 1], dst_elem_size=2, in_dtype=fp32, out_dtype=bf16`)
	if err := x.Exec(in); err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 8)
	x.Mem.Read(0x100, b)
	got := []uint16{binary.LittleEndian.Uint16(b), binary.LittleEndian.Uint16(b[2:]), binary.LittleEndian.Uint16(b[4:]), binary.LittleEndian.Uint16(b[6:])}
	if got[0] != 0x3f80 || got[1] != 0x3f80 || got[2] != 0x3f82 || got[3]&0x7f80 != 0x7f80 || got[3]&0x7f == 0 {
		t.Fatalf("bf16 %#04x", got)
	}
}

// In-flight ADD: dst = dst + src, integers wrapping to the out width.
func TestComputeAdd(t *testing.T) {
	x := New(isa.Cayman)
	put32(t, x, 0, 10, 20, 30, 0x7fffffff)
	put32(t, x, 0x100, 1, 2, 3, 1)
	in := asmWord(t, isa.Cayman, `dmamemcpy compute_op=ADD, src_start_addr=0x0, src_step_elem=[4, 0], src_num_elem=[4, 1], src_elem_size=4,
  dst_start_addr=0x100, dst_step_elem=[4, 0], dst_num_elem=[4, 1], dst_elem_size=4, in_dtype=i32, out_dtype=i32`)
	if err := x.Exec(in); err != nil {
		t.Fatal(err)
	}
	if got := get32(t, x, 0x100, 4); !reflect.DeepEqual(got, []uint32{11, 22, 33, 0x80000000}) {
		t.Fatalf("add: %#x", got)
	}
}

// A 2 × 3 transpose, element by element: dst(i0 = r, i1 = c) = src(i0 = c, i1 = r).
func TestTranspose(t *testing.T) {
	x := New(isa.Cayman)
	// src rows r = 0..1 of 3 columns: 11 12 13 / 21 22 23 (fp32 bit patterns as integers)
	put32(t, x, 0, 11, 12, 13, 21, 22, 23)
	in := asmWord(t, isa.Cayman, `dma_transpose semaphore=1, in_dtype=fp32, out_dtype=fp32, src_start_addr=0x0, src_step_elem=[4, 12],
  src_num_elem=[3, 2], tile_src_rows=16, tile_src_cols=3, tile_src_row_step=12, dst_start_addr=0x200,
  dst_step_elem=[4, 8], dst_num_elem=[2, 3]`)
	if err := x.Exec(in); err != nil {
		t.Fatal(err)
	}
	// dst rows c = 0..2 of 2: 11 21 / 12 22 / 13 23
	if got := get32(t, x, 0x200, 6); !reflect.DeepEqual(got, []uint32{11, 21, 12, 22, 13, 23}) {
		t.Fatalf("transpose %v", got)
	}
	if x.Mem.Sems[1] != 1 {
		t.Fatal("transpose completion")
	}
}

// The scatter-add histogram of field-tables §9.4: indices [5, 5, 200, 5],
// data [1, 1, 1, 1] → bin 5 = 3, bin 200 = 1. Index j sits at partition j
// mod 128 (§11.5).
func TestScatterAddHistogram(t *testing.T) {
	x := New(isa.Cayman)
	for j, v := range []uint32{5, 5, 200, 5} {
		put32(t, x, uint64(j)*0x40000+0x100, v)
	}
	put32(t, x, hbm, 1, 1, 1, 1)
	in := asmWord(t, isa.Cayman, `dma_indirect idx_num_active_channels=128, indirect_mode=DST, non_unique_dst_idx=1, idx_bound_is_err=1,
  compute_op=ADD, src_start_addr=hbm:0x0, src_step_elem=4, src_num_elem=4, src_elem_size=4,
  dst_start_addr=hbm:0x1000, dst_step_elem=4, dst_num_elem=256, dst_elem_size=4, dst_idx_start_addr=sbuf:0:0x100,
  in_dtype=i32, out_dtype=i32, semaphore=3, sem_increment=1`)
	if err := x.Exec(in); err != nil {
		t.Fatal(err)
	}
	bins := get32(t, x, hbm+0x1000, 256)
	if bins[5] != 3 || bins[200] != 1 || bins[0] != 0 {
		t.Fatalf("bins 5 = %d, 200 = %d", bins[5], bins[200])
	}
	// without non_unique_dst_idx the repeated index is a runtime error, and nothing changes
	x2 := New(isa.Cayman)
	for j, v := range []uint32{5, 5, 200, 5} {
		put32(t, x2, uint64(j)*0x40000+0x100, v)
	}
	put32(t, x2, hbm, 1, 1, 1, 1)
	before := x2.Mem.Snapshot()
	in2 := asmWord(t, isa.Cayman, `dma_indirect idx_num_active_channels=128, indirect_mode=DST, idx_bound_is_err=1,
  compute_op=ADD, src_start_addr=hbm:0x0, src_step_elem=4, src_num_elem=4, src_elem_size=4,
  dst_start_addr=hbm:0x1000, dst_step_elem=4, dst_num_elem=256, dst_elem_size=4, dst_idx_start_addr=sbuf:0:0x100,
  in_dtype=i32, out_dtype=i32, semaphore=3, sem_increment=1`)
	var f *Fault
	if err := x2.Exec(in2); !errors.As(err, &f) || f.Lane != 1 {
		t.Fatalf("duplicate index: %v", err)
	}
	if !reflect.DeepEqual(before, x2.Mem.Snapshot()) {
		t.Fatal("a faulting word changed memory")
	}
}

// A gather reads its indices column-major over 128 partitions (§11.5):
// index 128 is the second u32 of partition 0. Out-of-range indices fault, or
// with idx_bound_is_err = 0 skip their lane.
func TestGatherIndexOrder(t *testing.T) {
	for _, errorsOn := range []int{1, 0} {
		x := New(isa.Cayman)
		for j := 0; j < 130; j++ {
			v := uint32(129 - j) // reversed
			if j == 7 {
				v = 1000 // out of range
			}
			put32(t, x, uint64(j%128)*0x40000+4*uint64(j/128), v)
		}
		for r := 0; r < 130; r++ {
			put32(t, x, hbm+4*uint64(r), uint32(100+r))
		}
		in := asmWord(t, isa.Cayman, `dma_indirect idx_num_active_channels=128, indirect_mode=SRC, idx_bound_is_err=`+string(rune('0'+errorsOn))+`,
  src_start_addr=hbm:0x0, src_step_elem=4, src_num_elem=130, src_elem_size=4, src_idx_start_addr=sbuf:0:0x0,
  dst_start_addr=hbm:0x10000, dst_step_elem=4, dst_num_elem=130, dst_elem_size=4, in_dtype=u32, out_dtype=u32`)
		err := x.Exec(in)
		if errorsOn == 1 {
			var f *Fault
			if !errors.As(err, &f) || f.Lane != 7 || !errors.Is(err, ErrBounds) {
				t.Fatalf("out-of-range index: %v", err)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		got := get32(t, x, hbm+0x10000, 130)
		for j := range got {
			want := uint32(100 + 129 - j)
			if j == 7 {
				want = 0 // skipped: untouched
			}
			if got[j] != want {
				t.Fatalf("dst[%d] = %d, want %d", j, got[j], want)
			}
		}
	}
}

// Bound registers: an element past r[bc_reg] faults; with
// bc_disable_oob_error_notif the element is skipped and the rest moves.
func TestBoundErrorVsSkip(t *testing.T) {
	for _, quiet := range []bool{false, true} {
		x := New(isa.Cayman)
		x.Regs[9] = 0x10b // dst elements at 0x100, 0x104, 0x108, 0x10c: the last ends at 0x10f > 0x10b
		put32(t, x, 0, 1, 2, 3, 4)
		src := `dmamemcpy semaphore=2, sem_increment=1, src_start_addr=0x0, src_step_elem=[4, 0], src_num_elem=[4, 1], src_elem_size=4,
  dst_start_addr=0x100, dst_step_elem=[4, 0], dst_num_elem=[4, 1], dst_elem_size=4, in_dtype=u32, out_dtype=u32,
  dst_bound_reg.bc_enabled=1, dst_bound_reg.bc_reg=9`
		if quiet {
			src += ", dst_bound_reg.bc_disable_oob_error_notif=1"
		}
		before := x.Mem.Snapshot()
		err := x.Exec(asmWord(t, isa.Cayman, src))
		if !quiet {
			var f *Fault
			if !errors.As(err, &f) || f.Lane != 3 || !errors.Is(err, ErrBounds) {
				t.Fatalf("bound: %v", err)
			}
			if !reflect.DeepEqual(before, x.Mem.Snapshot()) {
				t.Fatal("a faulting word changed memory or a semaphore")
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if got := get32(t, x, 0x100, 4); !reflect.DeepEqual(got, []uint32{1, 2, 3, 0}) || x.Mem.Sems[2] != 1 {
			t.Fatalf("skip: %v, $S[2] %d", got, x.Mem.Sems[2])
		}
	}
}

// Faults are atomic: an unmapped dst element leaves memory and semaphores as they were.
func TestFaultAtomic(t *testing.T) {
	x := New(isa.Cayman)
	put32(t, x, 0, 1, 2, 3, 4)
	before := x.Mem.Snapshot()
	in := asmWord(t, isa.Cayman, `dmamemcpy semaphore=2, sem_increment=1, src_start_addr=0x0, src_step_elem=[4, 0], src_num_elem=[4, 1],
  src_elem_size=4, dst_start_addr=0x3fff8, dst_step_elem=[4, 0], dst_num_elem=[4, 1], dst_elem_size=4, in_dtype=u32, out_dtype=u32`)
	// dst crosses the end of partition 0's 224 KiB on CAYMAN? 0x3fff8 + 16 > 0x38000: beyond the active bytes
	err := x.Exec(in)
	var mf interface{ Error() string }
	if err == nil || !errors.As(err, &mf) {
		t.Fatalf("unmapped dst: %v", err)
	}
	if !reflect.DeepEqual(before, x.Mem.Snapshot()) {
		t.Fatal("a faulting word changed memory")
	}
}

// EVENTS: a wait that cannot hold in one stream is refused; the update applies.
func TestEvents(t *testing.T) {
	x := New(isa.Cayman)
	in := asmWord(t, isa.Cayman, `dmamemcpy wait_mode=WAIT_FOR_SEM_GT_IMM, wait_idx=4, semaphore_value=0, update_mode=SEM_INC_COMPLETE, update_idx=9,
  src_start_addr=0x0, src_step_elem=[4, 0], src_num_elem=[1, 1], src_elem_size=4, dst_start_addr=0x10,
  dst_step_elem=[4, 0], dst_num_elem=[1, 1], dst_elem_size=4, in_dtype=u32, out_dtype=u32`)
	if err := x.Exec(in); !errors.Is(err, ErrBlocked) {
		t.Fatalf("wait: %v", err)
	}
	x.Mem.Sems[4] = 1
	if err := x.Exec(in); err != nil || x.Mem.Sems[9] != 1 {
		t.Fatalf("after $S[4] = 1: %v, $S[9] = %d", err, x.Mem.Sems[9])
	}
}

// COPY2D on MAVERICK: a register-pair source, an immediate destination, the
// rd_done and wr_done local increments.
func TestCopy2D(t *testing.T) {
	x := New(isa.Maverick)
	put32(t, x, hbm+0x40, 7, 8)
	x.Regs[4], x.Regs[5] = 0x40, 1 // r4 | r5 << 32 = hbm + 0x40
	in := asmWord(t, isa.Maverick, `dma_memcpy2 addr_mode.src=REG_PAIR, src_start_addr=regs(r4, r0, r0, 0x0), src_step_elem=[4, 0], src_num_elem=[2, 1],
  src_elem_size=4, dst_start_addr=sbuf:1:0x0, dst_step_elem=[4, 0], dst_num_elem=[2, 1], dst_elem_size=4,
  sema_update_mode.rd_done=LOCAL_SEM_INC, rd_done_sema_update_idx=3, sema_update_mode.wr_done=LOCAL_SEM_INC, wr_done_sema_update_idx=4`)
	if err := x.Exec(in); err != nil {
		t.Fatal(err)
	}
	if got := get32(t, x, 0x100000, 2); !reflect.DeepEqual(got, []uint32{7, 8}) || x.Mem.Sems[3] != 1 || x.Mem.Sems[4] != 1 {
		t.Fatalf("copy2d %v, sems %d %d", got, x.Mem.Sems[3], x.Mem.Sems[4])
	}
}

// An index tensor that runs past a partition's active bytes faults at the
// first lane, in index order, whose 4 bytes are out: with 2 channels from
// CAYMAN offset 0x37ff8 (224 KiB = 0x38000 active), lanes 0–3 sit at
// 0x37ff8/0x37ffc of partitions 0 and 1 and lane 4 at partition 0 offset 0x38000.
func TestIndexTensorFaultLane(t *testing.T) {
	x := New(isa.Cayman)
	in := asmWord(t, isa.Cayman, `dma_indirect idx_num_active_channels=2, indirect_mode=SRC, idx_bound_is_err=1,
  src_start_addr=hbm:0x0, src_step_elem=4, src_num_elem=16, src_elem_size=4, src_idx_start_addr=sbuf:0:0x37ff8,
  dst_start_addr=hbm:0x10000, dst_step_elem=4, dst_num_elem=8, dst_elem_size=4, in_dtype=u32, out_dtype=u32`)
	err := x.Exec(in)
	var f *Fault
	if !errors.As(err, &f) || f.Lane != 4 || !strings.Contains(err.Error(), "sbuf partition 0 offset 0x38000") {
		t.Fatalf("index tensor past the partition: %v, want lane 4 at sbuf partition 0 offset 0x38000", err)
	}
}

// Two-byte transposes and gather-transposes of random shapes (bands that are
// not whole, column counts not a multiple of 4, odd row counts) against the
// element formulas of §11.5 computed directly on the input bytes.
func TestTransposeShapes(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	for trial := 0; trial < 30; trial++ {
		rows, cols := 1+r.IntN(300), 1+r.IntN(70)
		x := New(isa.Cayman)
		src := make([]byte, 2*rows*cols)
		for i := range src {
			src[i] = byte(r.Uint32())
		}
		if err := x.Mem.Write(hbm, src); err != nil {
			t.Fatal(err)
		}
		in := asmWord(t, isa.Cayman, fmt.Sprintf(`dma_transpose in_dtype=bf16, out_dtype=bf16, src_start_addr=hbm:0x0,
  src_step_elem=[2, %d], src_num_elem=[%d, %d], tile_src_rows=16, tile_src_cols=%d, tile_src_row_step=%d,
  dst_start_addr=hbm:0x100000, dst_step_elem=[2, %d], dst_num_elem=[%d, %d]`, 2*cols, cols, rows, cols, 2*cols, 2*rows, rows, cols))
		if err := x.Exec(in); err != nil {
			t.Fatal(err)
		}
		got := make([]byte, 2*rows*cols)
		if err := x.Mem.Read(hbm+0x100000, got); err != nil {
			t.Fatal(err)
		}
		for c := 0; c < cols; c++ {
			for rr := 0; rr < rows; rr++ { // dst(i0 = rr, i1 = c) = src(i0 = c, i1 = rr)
				d, s := 2*(c*rows+rr), 2*(rr*cols+c)
				if got[d] != src[s] || got[d+1] != src[s+1] {
					t.Fatalf("trial %d (%d × %d): dst(%d, %d) = %x, want src(%d, %d) = %x", trial, rows, cols, rr, c, got[d:d+2], c, rr, src[s:s+2])
				}
			}
		}

		// gather-transpose: n indices into the same rows, L = cols elements each
		n := 1 + r.IntN(300)
		idx := make([]uint32, n)
		for j := range idx {
			idx[j] = uint32(r.IntN(rows))
			put32(t, x, uint64(j%128)*0x40000+4*uint64(j/128), idx[j])
		}
		in = asmWord(t, isa.Cayman, fmt.Sprintf(`dma_gather_transpose idx_num_active_channels=128, src_start_addr=hbm:0x0,
  src_step_elem=[2, %d], src_num_elem=[%d, %d], elem_size=%d, src_idx_start_addr=sbuf:0:0x0, dst_start_addr=hbm:0x200000,
  dst_step_elem_1=%d, dst_num_elem=[%d, %d], dtype_lo=bf16, dtype_hi=bf16, gather_dim=Y`, 2*cols, cols, n, 2*cols, 2*n, n, cols))
		if err := x.Exec(in); err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		got = make([]byte, 2*n*cols)
		if err := x.Mem.Read(hbm+0x200000, got); err != nil {
			t.Fatal(err)
		}
		for k := 0; k < cols; k++ {
			for j := 0; j < n; j++ { // dst(i0 = j, i1 = k) = element k of row idx[j]
				d, s := 2*(k*n+j), 2*(int(idx[j])*cols+k)
				if got[d] != src[s] || got[d+1] != src[s+1] {
					t.Fatalf("trial %d gather (%d of %d rows, L %d): dst(%d, %d) = %x, want %x", trial, n, rows, cols, j, k, got[d:d+2], src[s:s+2])
				}
			}
		}
	}
}

// The transpose's band path where its rows are not one piece: source rows
// with gaps between them (read row by row) or past a 64 KiB page (a band at
// a time), destination columns with gaps and across HBM's 64 KiB pages
// (copied into their pieces), rows in a lazy range, destination pages
// attached — against §11.5's formula on the input bytes, the bytes between
// the columns kept, and the bytes counted read and written once each.
func TestTransposeBandsInPieces(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for trial := 0; trial < 60; trial++ {
		rows, cols := 1+r.IntN(400), 1+r.IntN(40)
		if trial%4 == 0 {
			rows = 1000 + r.IntN(2000) // sources past a page
		}
		srow := 2*cols + 2*r.IntN(3)*r.IntN(8) // source row step: some with gaps
		drow := 2*rows + 2*r.IntN(2)*r.IntN(8)
		dst := uint64(0x400000 - 2*r.IntN(4000)) // columns across the page at 4 MiB
		x := New(isa.Cayman)
		src := make([]byte, srow*rows)
		for i := range src {
			src[i] = byte(r.Uint32())
		}
		if r.IntN(3) == 0 { // a lazy source: generated where read
			if err := x.Mem.Lazy(hbm, len(src), "t", func(b []byte, off int) { copy(b, src[off:]) }); err != nil {
				t.Fatal(err)
			}
		} else if err := x.Mem.Write(hbm, src); err != nil {
			t.Fatal(err)
		}
		old := make([]byte, drow*cols) // the destination's bytes before: zeros, or attached pages' own
		if r.IntN(3) == 0 {
			const page = 64 << 10
			lo, hi := dst&^(page-1), (dst+uint64(len(old))+page-1)&^(page-1)
			data := make([]byte, hi-lo)
			for i := range data {
				data[i] = byte(r.Uint32())
			}
			if n := x.Mem.Attach(hbm+lo, data); n != len(data) {
				t.Fatalf("attached %d of %d bytes", n, len(data))
			}
			copy(old, data[dst-lo:])
		}
		before := x.Mem.Stats
		in := asmWord(t, isa.Cayman, fmt.Sprintf(`dma_transpose in_dtype=bf16, out_dtype=bf16, src_start_addr=hbm:0x0,
  src_step_elem=[2, %d], src_num_elem=[%d, %d], tile_src_rows=16, tile_src_cols=%d, tile_src_row_step=%d,
  dst_start_addr=hbm:%#x, dst_step_elem=[2, %d], dst_num_elem=[%d, %d]`, srow, cols, rows, cols, srow, dst, drow, rows, cols))
		if err := x.Exec(in); err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		var read, written uint64
		for k := range before.Read {
			read += x.Mem.Stats.Read[k] - before.Read[k]
			written += x.Mem.Stats.Written[k] - before.Written[k]
		}
		if want := uint64(2 * rows * cols); read != want || written != want {
			t.Errorf("trial %d (%d × %d, steps %d, %d): %d bytes read, %d written, want %d each", trial, rows, cols, srow, drow, read, written, want)
		}
		got := make([]byte, drow*cols)
		if err := x.Mem.Read(hbm+dst, got); err != nil {
			t.Fatal(err)
		}
		for c := 0; c < cols; c++ {
			for rr := 0; rr < rows; rr++ { // dst(i0 = rr, i1 = c) = src(i0 = c, i1 = rr)
				d, s := c*drow+2*rr, rr*srow+2*c
				if got[d] != src[s] || got[d+1] != src[s+1] {
					t.Fatalf("trial %d (%d × %d, steps %d, %d): dst(%d, %d) = %x, want %x", trial, rows, cols, srow, drow, rr, c, got[d:d+2], src[s:s+2])
				}
			}
			for i := c*drow + 2*rows; i < (c+1)*drow; i++ { // between the columns: as it was
				if got[i] != old[i] {
					t.Fatalf("trial %d: byte %d after column %d is %#x, was %#x", trial, i-c*drow-2*rows, c, got[i], old[i])
				}
			}
		}
	}
}

// A gather's row index of 2^31 or more is named as what it is — a signed
// 32-bit row index out of range — not "≥ 2147483648 elements" (issue 15, L5).
func TestGatherIndexMessage(t *testing.T) {
	x := New(isa.Cayman)
	put32(t, x, 0, 0xffffffff)
	in := asmWord(t, isa.Cayman, `dma_gather_transpose idx_num_active_channels=128, src_start_addr=hbm:0x0,
  src_step_elem=[2, 32], src_num_elem=[16, 1], elem_size=32, src_idx_start_addr=sbuf:0:0x0, dst_start_addr=hbm:0x200000,
  dst_step_elem_1=2, dst_num_elem=[1, 16], dtype_lo=bf16, dtype_hi=bf16, gather_dim=Y`)
	err := x.Exec(in)
	if err == nil || !strings.Contains(err.Error(), "index 4294967295 is 2^31 or more: a row index is a signed 32-bit value") {
		t.Fatalf("err %v", err)
	}
}
