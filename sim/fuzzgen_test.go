package sim

import (
	"fmt"
	"math/rand/v2"
	"ndma/internal/testutil"
	"testing"

	"ndma/isa"
	"ndma/ref"
)

// FuzzExecDiff's generators beyond the plain shapes of sim_test.go: every
// bound register of every word kind, enabled at random, quiet or erroring,
// with limits that cut through the legs; and compute ops (and plain copies)
// whose destinations repeat — the cases where ref and the engines once
// disagreed (issue 15: H1, H2, M8).

// What a FuzzExecDiff input adds to its word kind: (kind / 5) % 4.
const (
	genBounds   = 1 // bound registers
	genRevisits = 2 // repeated destinations under compute ops
)

const hbmBase = 0x1_0000_0000

// boundReg is a BOUND_CHECK_REG for field name: off (a third of the time),
// or enabled on a free register holding limit, its error notification on or
// off at random.
func boundReg(r *rand.Rand, regs *[64]uint32, name string, limit uint64) string {
	if r.IntN(3) == 0 {
		return ""
	}
	reg := 16 + r.IntN(48) // r16–r63: clear of genCopy2D's r8–r11
	regs[reg] = uint32(limit)
	if limit > 0xffffffff {
		low := r.Uint32()
		switch {
		case reg < 63 && reg%4 > 0: // the wide-offset pair r[reg+1]:r[reg] holds the limit (isa.BoundLimit)
			regs[reg+1] = uint32(limit >> 32)
		case reg < 63: // its high word 0: a 32-bit limit, below all of HBM
			regs[reg], regs[reg+1] = low, 0
		default:
			regs[reg] = low
		}
	}
	return fmt.Sprintf(",\n  %s.bc_enabled=1, %s.bc_reg=%d, %s.bc_disable_oob_error_notif=%d", name, name, reg, name, r.IntN(2))
}

// addrLimit is a limit that cuts through the leg of num elements of es bytes
// at start with steps (or just misses it on either side).
func addrLimit(r *rand.Rand, start uint64, es int, num [2]int, steps [2]int64) uint64 {
	lo, hi := isa.WalkExtent(int64(es), num[:], steps[:])
	return uint64(int64(start)+lo) - 1 + uint64(r.Int64N(hi-lo+2))
}

// genDirect2DX is a random DIRECT2D: legs in HBM, one SBUF partition or
// across partitions; with revisits, dst steps that land several src elements
// on one dst element (0 steps, equal steps, half-partition steps across the
// DGE's channels) under ADD/MULTIPLY/MAX/MIN, casts or plain copies.
func genDirect2DX(r *rand.Rand, g isa.Gen, regs *[64]uint32, extra int) string {
	dtypes := []string{"u8", "u16", "u32", "fp32", "bf16", "fp16", "int8", "int32"}
	size := map[string]int{"u8": 1, "int8": 1, "u16": 2, "bf16": 2, "fp16": 2, "u32": 4, "fp32": 4, "int32": 4}
	ops := []string{"NONE", "ADD", "MULTIPLY", "MAX", "MIN"}
	in, out := dtypes[r.IntN(len(dtypes))], dtypes[r.IntN(len(dtypes))]
	op := ops[r.IntN(5)]
	if extra&genRevisits != 0 && r.IntN(4) != 0 {
		op = ops[1+r.IntN(4)]
	}
	if r.IntN(3) == 0 {
		out = in // no cast
		if extra&genRevisits == 0 {
			op = "NONE"
		}
	}
	stride := int64(isa.Map(g).SBUFStride)
	k := 1 + r.IntN(4) // scalars per element
	num := [2]int{1 + r.IntN(12), 1 + r.IntN(12)}
	leg := func(dt string, dst bool) (uint64, [2]int64, int) {
		es := k * size[dt]
		steps := [2]int64{int64(es) * int64(1+r.IntN(2)), int64(es) * int64(num[0]) * int64(2+r.IntN(2))}
		var start uint64
		switch r.IntN(3) {
		case 0:
			start = hbmBase + 0x8000
			if dst {
				start += 0x40000
			}
		case 1: // one SBUF partition
			start = uint64(2*stride) + 0x200
			if dst {
				start = uint64(3*stride) + 0x200
			}
		default: // across partitions
			steps[1], start = stride, uint64(stride)+0x100
			if dst {
				start += 0x1000
			}
		}
		if r.IntN(4) == 0 {
			steps[1] = -steps[1]
			start += uint64(-steps[1]) * uint64(num[1])
		}
		if dst && extra&genRevisits != 0 {
			e := int64(es)
			switch r.IntN(6) {
			case 0:
				steps = [2]int64{0, 0}
			case 1:
				steps[1] = 0
			case 2:
				steps[0] = 0
			case 3:
				steps = [2]int64{e, e}
			case 4:
				steps = [2]int64{e, e * int64(max(1, num[0]/2))}
			default: // dim 0 across partitions, dim 1 by half a partition: repeats across channels
				steps, start = [2]int64{stride, stride / 2}, 0x200
			}
		}
		return start, steps, es
	}
	sa, ss, se := leg(in, false)
	da, ds, de := leg(out, true)
	w := fmt.Sprintf(`dmamemcpy semaphore=3, sem_increment=16, compute_op=%s, in_dtype=%s, out_dtype=%s,
  src_start_addr=%#x, src_step_elem=[%d, %d], src_num_elem=[%d, %d], src_elem_size=%d,
  dst_start_addr=%#x, dst_step_elem=[%d, %d], dst_num_elem=[%d, %d], dst_elem_size=%d`,
		op, in, out, sa, ss[0], ss[1], num[0], num[1], se, da, ds[0], ds[1], num[0], num[1], de)
	if extra&genBounds != 0 {
		w += boundReg(r, regs, "src_bound_reg", addrLimit(r, sa, se, num, ss))
		w += boundReg(r, regs, "dst_bound_reg", addrLimit(r, da, de, num, ds))
	}
	return w
}

// genTransposeX is a random DMA_TRANSPOSE of 2- or 4-byte elements between
// HBM and SBUF (the dst rows in one partition or one per partition), with
// its two bound registers.
func genTransposeX(r *rand.Rand, g isa.Gen, regs *[64]uint32, extra int) string {
	dt, es := "bf16", 2
	if r.IntN(3) == 0 {
		dt, es = "fp32", 4
	}
	stride := int64(isa.Map(g).SBUFStride)
	rows, cols := 16*(1+r.IntN(4)), 1+r.IntN(64)
	var divisors []int // tile_src_cols divides src_num_elem[0] (field-tables §11.5)
	for d := 1; d <= cols; d++ {
		if cols%d == 0 {
			divisors = append(divisors, d)
		}
	}
	tc := divisors[r.IntN(len(divisors))]
	ss := [2]int64{int64(es), int64(es*cols) * int64(1+r.IntN(2))}
	sa := uint64(hbmBase)
	if r.IntN(2) == 0 {
		sa = uint64(stride) + 0x40
	}
	drow := int64(32 * ((rows*es + 31) / 32))
	ds := [2]int64{int64(es), drow * int64(1+r.IntN(2))}
	da := uint64(2*stride) + 32*uint64(r.IntN(8))
	switch r.IntN(3) {
	case 0:
		da = hbmBase + 0x40000
	case 1:
		ds[1], da = stride, uint64(32*stride)
	}
	w := fmt.Sprintf(`dma_transpose semaphore=2, in_dtype=%s, out_dtype=%s, src_start_addr=%#x,
  src_step_elem=[%d, %d], src_num_elem=[%d, %d], tile_src_rows=16, tile_src_cols=%d, tile_src_row_step=%d,
  dst_start_addr=%#x, dst_step_elem=[%d, %d], dst_num_elem=[%d, %d]`,
		dt, dt, sa, ss[0], ss[1], cols, rows, tc, ss[1], da, ds[0], ds[1], rows, cols)
	if extra&genBounds != 0 {
		w += boundReg(r, regs, "src_bound_reg", addrLimit(r, sa, es, [2]int{cols, rows}, ss))
		w += boundReg(r, regs, "dst_bound_reg", addrLimit(r, da, es, [2]int{rows, cols}, ds))
	}
	return w
}

// genGatherX is a random DMA_GATHER_TRANSPOSE: small indices (sbuf:0:0x0)
// or ones mixed with indices of 2^31 and more (sbuf:0:0x1000, see seed),
// the dst in HBM or SBUF; with its index bound and its dst bound register.
func genGatherX(r *rand.Rand, g isa.Gen, regs *[64]uint32, extra int) string {
	stride := uint64(isa.Map(g).SBUFStride)
	nidx, l := 1+r.IntN(100), 1+r.IntN(64)
	idx := "sbuf:0:0x0"
	if r.IntN(4) == 0 {
		idx = "sbuf:0:0x1000"
	}
	d1 := int64(32 * (1 + 2*nidx/32))
	da := uint64(hbmBase + 0x40000)
	if r.IntN(2) == 0 {
		da = 4*stride + 32*uint64(r.IntN(8))
	}
	w := fmt.Sprintf(`dma_gather_transpose idx_num_active_channels=%d, src_start_addr=hbm:0x0, src_step_elem=[2, %d],
  src_num_elem=[%d, %d], src_idx_start_addr=%s, dst_start_addr=%#x, dst_step_elem_1=%d,
  dst_num_elem=[%d, %d], elem_size=%d, dtype_lo=bf16, dtype_hi=bf16, gather_dim=Y`,
		1+r.IntN(16), 2*l, l, nidx, idx, da, d1, nidx, l, 2*l)
	if extra&genBounds != 0 {
		w += boundReg(r, regs, "src_idx_bound_reg", uint64(r.IntN(80)))
		w += boundReg(r, regs, "dst_bound_reg", addrLimit(r, da, 2, [2]int{nidx, l}, [2]int64{2, d1}))
	}
	return w
}

// genIndirectX is a random DMA_INDIRECT: gathers, scatters and both, with
// in-flight compute over u32, i32 and fp32; with revisits, scatters onto
// repeated indices (non_unique_dst_idx) and gathers onto one dst element;
// with its two index bound registers.
func genIndirectX(r *rand.Rand, regs *[64]uint32, extra int) string {
	mode := []string{"SRC", "DST", "SRC_DST"}[r.IntN(3)]
	lanes, es := 1+r.IntN(200), 4*(1+r.IntN(8))
	dt := []string{"u32", "int32", "fp32"}[r.IntN(3)]
	op := []string{"NONE", "ADD", "MULTIPLY", "MAX", "MIN"}[r.IntN(5)]
	unique, dstep := r.IntN(2), es
	if extra&genRevisits != 0 {
		op, unique = []string{"ADD", "MULTIPLY", "MAX", "MIN"}[r.IntN(4)], 1
		if mode == "SRC" && r.IntN(2) == 0 {
			dstep = 0 // every lane onto one dst element
		}
	}
	w := fmt.Sprintf(`dma_indirect idx_num_active_channels=%d, indirect_mode=%s, non_unique_dst_idx=%d, idx_bound_is_err=%d,
  compute_op=%s, src_start_addr=hbm:0x0, src_step_elem=%d, src_num_elem=%d, src_elem_size=%d, src_idx_start_addr=sbuf:0:0x0,
  dst_start_addr=hbm:0x40000, dst_step_elem=%d, dst_num_elem=%d, dst_elem_size=%d, dst_idx_start_addr=sbuf:0:0x400,
  in_dtype=%s, out_dtype=%s, semaphore=4, sem_increment=1`,
		1+r.IntN(16), mode, unique, r.IntN(2), op, es, 32+lanes, es, dstep, 32+lanes, es, dt, dt)
	if extra&genBounds != 0 {
		w += boundReg(r, regs, "src_idx_bound_reg", uint64(r.IntN(80)))
		w += boundReg(r, regs, "dst_idx_bound_reg", uint64(r.IntN(80)))
	}
	return w
}

// The generators above, a few hundred words of each kind, on ref and on the
// engines: the same outcome, and enough of them run (and skip lanes) to
// mean something.
func TestBoundsAndRevisitsAgainstRef(t *testing.T) {
	trials := testutil.Trials(40)
	r := rand.New(rand.NewPCG(11, 12))
	for k := 0; k < 4; k++ {
		for extra := 1; extra < 4; extra++ {
			ran, skipped := 0, 0
			for n := 0; n < trials; n++ {
				var regs [64]uint32
				var src string
				switch k {
				case 0:
					src = genTransposeX(r, isa.Cayman, &regs, extra)
				case 1:
					src = genIndirectX(r, &regs, extra)
				case 2:
					src = genGatherX(r, isa.Cayman, &regs, extra)
				default:
					src = genDirect2DX(r, isa.Cayman, &regs, extra)
				}
				a, b := ref.New(isa.Cayman), New(isa.Cayman)
				if bothMachines(t, r, isa.Cayman, word(t, isa.Cayman, src), src, regs, a, b) {
					ran++
					skipped += a.Stats.Skipped
				}
			}
			t.Logf("kind %d, extra %d: %d of %d ran on both, %d lanes skipped", k, extra, ran, trials, skipped)
			if ran < max(1, 5*trials/40) { // the rest fault on both (erroring bounds) or are words one side refuses
				t.Errorf("kind %d, extra %d: only %d of %d ran on both", k, extra, ran, trials)
			}
		}
	}
}
