package sim

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"ndma/internal/testutil"
	"strings"
	"testing"

	"ndma"
	"ndma/asm"
	"ndma/isa"
	"ndma/mem"
	"ndma/ref"
)

// seed fills both machines' memory the same way: SBUF partitions 0–15 with
// small u32 values (usable as indices; some past a short leg), then from
// offset 0x1000 u32 indices of which every other one is 2^31 or more, and
// 64 KiB of HBM with random bytes. (Few partitions: each one touched is a
// whole partition of memory to compare.)
func seed(t testing.TB, r *rand.Rand, g isa.Gen, ms ...interface{ write(uint64, []byte) error }) {
	t.Helper()
	sb := make([]byte, 5<<10)
	hb := make([]byte, 64<<10)
	for i := 0; i < 4<<10; i += 4 {
		sb[i] = byte(r.IntN(64))
	}
	for i := 0; i < 256; i++ { // fixed, so the random streams stay as they were
		v := uint32(i)
		if i%2 == 1 {
			v = uint32(i)*0x9e3779b9 | 0x80000000
		}
		binary.LittleEndian.PutUint32(sb[4<<10+4*i:], v)
	}
	for i := range hb {
		hb[i] = byte(r.Uint32())
	}
	for _, m := range ms {
		for p := uint64(0); p < 16; p++ {
			if err := m.write(p*isa.Map(g).SBUFStride, sb); err != nil {
				t.Fatal(err)
			}
		}
		if err := m.write(0x1_0000_0000, hb); err != nil {
			t.Fatal(err)
		}
	}
}

type refM struct{ *ref.Machine }
type simM struct{ *Machine }

func (m refM) write(a uint64, b []byte) error { return m.Mem.Write(a, b) }
func (m simM) write(a uint64, b []byte) error { return m.Mem.Write(a, b) }

// both runs one word on ref and on the engines from the same memory and
// demands the same outcome: both fault, or the same bytes and semaphores.
func both(t *testing.T, r *rand.Rand, g isa.Gen, in *isa.Inst, what string) (ran bool) {
	return bothRegs(t, r, g, in, what, [64]uint32{})
}

func bothRegs(t *testing.T, r *rand.Rand, g isa.Gen, in *isa.Inst, what string, regs [64]uint32) (ran bool) {
	t.Helper()
	return bothMachines(t, r, g, in, what, regs, ref.New(g), New(g))
}

// bothMachines is bothRegs on the machines given (fresh ones of generation g).
func bothMachines(t *testing.T, r *rand.Rand, g isa.Gen, in *isa.Inst, what string, regs [64]uint32, a *ref.Machine, b *Machine) (ran bool) {
	t.Helper()
	a.Regs, b.Regs = regs, regs
	seed(t, r, g, refM{a}, simM{b})
	ea, eb := a.Exec(in), b.Exec(in)
	if ea != nil || eb != nil {
		if ea == nil || eb == nil {
			if errors.Is(eb, ErrUnsupported) || errors.Is(eb, ErrLowering) || errors.Is(ea, ref.ErrUnsupported) {
				return false
			}
			t.Fatalf("%s: ref %v, sim %v", what, ea, eb)
		}
		if d, differ := mem.FirstDifference(a.Mem, b.Mem, true); differ {
			t.Fatalf("%s: both faulted (ref %v, sim %v) but memory differs: %v", what, ea, eb, d)
		}
		return false
	}
	// compared in place: Snapshot's copies of every touched partition were most of a fuzz run's time
	if d, differ := mem.FirstDifference(a.Mem, b.Mem, true); differ {
		t.Fatalf("%s: %v", what, d)
	}
	return true
}

func word(t *testing.T, g isa.Gen, src string) *isa.Inst { return wordTB(t, g, src) }

func wordTB(t testing.TB, g isa.Gen, src string) *isa.Inst { return testutil.Word(t, g, src) }

// Every example program, word after word on one machine each (later words
// wait on the semaphores earlier ones raise): the engines leave what ref
// leaves after every word.
func TestExamplesAgainstRef(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	files, _ := fs.Glob(ndma.Examples, "examples/*.s")
	ran := 0
	for _, f := range files {
		text, _ := fs.ReadFile(ndma.Examples, f)
		obj, err := asm.Assemble(f, text, asm.Options{})
		if err != nil {
			t.Fatal(err)
		}
		a, b := ref.New(obj.Gen), New(obj.Gen)
		seed(t, r, obj.Gen, refM{a}, simM{b})
		for i := range a.Mem.Sems { // the producers the examples wait for have run
			a.Mem.Sems[i], b.Mem.Sems[i] = 2, 2
		}
		d := isa.NewDecoder(obj.Gen, obj.Code)
		for d.Next() {
			in := *d.Inst()
			what := fmt.Sprintf("%s @%#x %s", f, d.Offset(), in.Def().Mnemonic())
			ea, eb := a.Exec(&in), b.Exec(&in)
			if in.Opcode() == isa.OpDMAImmediate && errors.Is(ea, ref.ErrUnsupported) {
				// its meaning is its descriptors: the engines run it on ref's memory too
				ea = (&Machine{Mem: a.Mem, Regs: a.Regs}).Exec(&in)
			}
			if (ea == nil) != (eb == nil) && !errors.Is(eb, ErrUnsupported) && !errors.Is(ea, ref.ErrUnsupported) {
				t.Fatalf("%s: ref %v, sim %v", what, ea, eb)
			}
			if ea == nil && eb == nil {
				ran++
			}
			if d, differ := mem.FirstDifference(a.Mem, b.Mem, true); differ {
				t.Fatalf("%s: memory or semaphores differ (ref %v, sim %v): %v", what, ea, eb, d)
			}
		}
	}
	if ran < 6 {
		t.Fatalf("only %d example words ran on both", ran)
	}
	t.Logf("%d example words ran on both", ran)
}

// genDirect2D is a random DIRECT2D word: negative steps, partition walks,
// casts and in-flight compute over several dtypes.
func genDirect2D(r *rand.Rand) string {
	dtypes := []string{"u8", "u16", "u32", "fp32", "bf16", "fp16", "int8", "int32"}
	size := map[string]int{"u8": 1, "int8": 1, "u16": 2, "bf16": 2, "fp16": 2, "u32": 4, "fp32": 4, "int32": 4}
	in, out := dtypes[r.IntN(len(dtypes))], dtypes[r.IntN(len(dtypes))]
	op := []string{"NONE", "ADD", "MULTIPLY", "MAX", "MIN"}[r.IntN(5)]
	if r.IntN(2) == 0 {
		out, op = in, "NONE" // plain copies too
	}
	k := 1 + r.IntN(4) // scalars per element
	num := [2]int{1 + r.IntN(12), 1 + r.IntN(12)}
	leg := func(dt string, base string) (string, [2]int64, int) {
		es := k * size[dt]
		steps := [2]int64{int64(es) * int64(1+r.IntN(2)), int64(es) * int64(num[0]) * int64(2+r.IntN(2))}
		if r.IntN(4) == 0 {
			steps[1] = -steps[1]
			base = strings.Replace(base, "0x0", "0x8000", 1)
		}
		if r.IntN(3) == 0 {
			steps[1] = 0x40000
			base = "sbuf:1:0x100"
		}
		return base, steps, es
	}
	sa, ss, se := leg(in, "hbm:0x0")
	da, ds, de := leg(out, "hbm:0x40000")
	return fmt.Sprintf(`dmamemcpy semaphore=3, sem_increment=16, compute_op=%s, in_dtype=%s, out_dtype=%s,
  src_start_addr=%s, src_step_elem=[%d, %d], src_num_elem=[%d, %d], src_elem_size=%d,
  dst_start_addr=%s, dst_step_elem=[%d, %d], dst_num_elem=[%d, %d], dst_elem_size=%d`,
		op, in, out, sa, ss[0], ss[1], num[0], num[1], se, da, ds[0], ds[1], num[0], num[1], de)
}

// Random DIRECT2D words on ref and on the engines.
func TestRandomDirect2DAgainstRef(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	ran := 0
	trials := testutil.Trials(300)
	for n := 0; n < trials; n++ {
		src := genDirect2D(r)
		if both(t, r, isa.Cayman, word(t, isa.Cayman, src), src) {
			ran++
		}
	}
	if ran < trials/2 {
		t.Fatalf("only %d of %d random words ran on both", ran, trials)
	}
	t.Logf("%d of %d ran on both", ran, trials)
}

// genIndexed is a random transpose (kind 0), gather/scatter (1) or
// gather-transpose (2).
func genIndexed(r *rand.Rand, kind int) string {
	switch kind {
	case 0:
		rows, cols := 16*(1+r.IntN(4)), 1+r.IntN(64)
		return fmt.Sprintf(`dma_transpose semaphore=2, in_dtype=bf16, out_dtype=bf16, src_start_addr=hbm:0x0,
  src_step_elem=[2, %d], src_num_elem=[%d, %d], tile_src_rows=16, tile_src_cols=%d, tile_src_row_step=%d,
  dst_start_addr=hbm:0x40000, dst_step_elem=[2, %d], dst_num_elem=[%d, %d]`,
			2*cols, cols, rows, cols, 2*cols, 32*(1+2*rows/32), rows, cols)
	case 1:
		mode := []string{"SRC", "DST", "SRC_DST"}[r.IntN(3)]
		lanes, es := 1+r.IntN(200), 4*(1+r.IntN(8))
		return fmt.Sprintf(`dma_indirect idx_num_active_channels=%d, indirect_mode=%s, non_unique_dst_idx=%d, idx_bound_is_err=%d,
  compute_op=%s, src_start_addr=hbm:0x0, src_step_elem=%d, src_num_elem=%d, src_elem_size=%d, src_idx_start_addr=sbuf:0:0x0,
  dst_start_addr=hbm:0x40000, dst_step_elem=%d, dst_num_elem=%d, dst_elem_size=%d, dst_idx_start_addr=sbuf:0:0x400,
  in_dtype=u32, out_dtype=u32, semaphore=4, sem_increment=1`,
			1+r.IntN(16), mode, r.IntN(2), r.IntN(2), []string{"NONE", "ADD"}[r.IntN(2)], es, 32+lanes, es, es, 32+lanes, es)
	}
	nidx, l := 1+r.IntN(100), 1+r.IntN(64)
	return fmt.Sprintf(`dma_gather_transpose idx_num_active_channels=%d, src_start_addr=hbm:0x0, src_step_elem=[2, %d],
  src_num_elem=[%d, %d], src_idx_start_addr=sbuf:0:0x0, dst_start_addr=hbm:0x40000, dst_step_elem_1=%d,
  dst_num_elem=[%d, %d], elem_size=%d, dtype_lo=bf16, dtype_hi=bf16, gather_dim=Y`,
		1+r.IntN(16), 2*l, l, nidx, 32*(1+2*nidx/32), nidx, l, 2*l)
}

// Random transposes, gathers, scatters and gather-transposes.
func TestRandomIndexedAgainstRef(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	ran := 0
	trials := testutil.Trials(200)
	for n := 0; n < trials; n++ {
		src := genIndexed(r, n%3)
		if both(t, r, isa.Cayman, word(t, isa.Cayman, src), src) {
			ran++
		}
	}
	if ran < trials/2 {
		t.Fatalf("only %d of %d random words ran on both", ran, trials)
	}
	t.Logf("%d of %d ran on both", ran, trials)
}

// FuzzExecDiff: a random legal word of any kind, generation and shape,
// from the fuzzer's seeds, on ref and on the engines — the same outcome.
// kind % 5 is the word kind (transpose, indirect, gather-transpose,
// DIRECT2D, COPY2D); (kind / 5) % 4 adds bound registers (genBounds) and
// repeated destinations under compute ops (genRevisits) (fuzzgen_test.go).
func FuzzExecDiff(f *testing.F) {
	for i := uint64(0); i < 20; i++ {
		f.Add(i, i*7+1, uint8(i))
	}
	gens := []isa.Gen{isa.Sunda, isa.Cayman, isa.Mariana, isa.MarianaPlus, isa.Maverick}
	f.Fuzz(func(t *testing.T, s1, s2 uint64, kind uint8) {
		r := rand.New(rand.NewPCG(s1, s2))
		g := gens[r.IntN(len(gens))]
		var src string
		var regs [64]uint32
		extra := int(kind/5) % 4
		switch k := kind % 5; {
		case k == 4:
			src, g = genCopy2D(r, &regs), isa.Maverick
		case extra == 0 && k == 3:
			src = genDirect2D(r)
		case extra == 0:
			src = genIndexed(r, int(k))
		case k == 3:
			src = genDirect2DX(r, g, &regs, extra)
		case k == 0:
			src = genTransposeX(r, g, &regs, extra)
		case k == 1:
			src = genIndirectX(r, &regs, extra)
		default:
			src = genGatherX(r, g, &regs, extra)
		}
		obj, err := asm.Assemble("t.s", []byte(src), asm.Options{Gen: g})
		if err != nil {
			return // not legal on this generation
		}
		in, err := isa.Decode(g, obj.Code)
		if err != nil {
			t.Fatal(err)
		}
		bothRegs(t, r, g, &in, src, regs)
	})
}

// genCopy2D is a random MAVERICK DMA_MEMCPY2: immediate or register address
// modes (base pair r8/r9, offsets in r10, r11), signed strides, completion
// updates; it sets the registers on both machines' register files.
func genCopy2D(r *rand.Rand, regs *[64]uint32) string {
	es := []int{4, 64, 512, 4096}[r.IntN(4)]
	num := [2]int{1 + r.IntN(8), 1 + r.IntN(8)}
	regs[8], regs[9] = 0x1000, 1 // r8|r9<<32 = 0x1_0000_1000 (HBM)
	regs[10], regs[11] = uint32(r.IntN(64))*16, uint32(int32(-r.IntN(16))*16)
	leg := func(dst bool) (mode, addr string, steps [2]int) {
		steps = [2]int{es * (1 + r.IntN(2)), es * num[0] * (2 + r.IntN(2))}
		base := 0x0
		if dst {
			base = 0x40000
		}
		switch r.IntN(4) {
		case 0:
			return "IMM64", fmt.Sprintf("hbm:%#x", base+0x8000), steps
		case 1:
			if !dst {
				return "REG_PAIR", "regs(r8, r0, r0, 0)", steps
			}
			return "REG_IMM_OFFSET32", fmt.Sprintf("regs(r8, r0, r0, %#x)", base), steps
		case 2:
			return "REG_REG_OFFSET32_I", "regs(r8, r11, r0, 0)", steps // a negative register offset
		}
		if dst {
			steps[1] = 0x100000 // partitions on MAVERICK
			return "IMM64", "sbuf:1:0x40", steps
		}
		return "REG_IMM_OFFSET32", "regs(r8, r0, r0, 0x2000)", steps
	}
	sm, sa, ss := leg(false)
	dm, da, ds := leg(true)
	upd := []string{"NONE", "LOCAL_SEM_INC", "LOCAL_SEM_INC_COUNTER"}
	return fmt.Sprintf(`.gen maverick
dma_memcpy2 start_id=%d, sema_update_mode.rd_done=%s, rd_done_sema_update_idx=%d, sema_update_mode.wr_done=%s, wr_done_sema_update_idx=%d,
    addr_mode.src=%s, src_start_addr=%s, src_step_elem=[%d, %d], src_num_elem=[%d, %d], src_elem_size=%d,
    addr_mode.dst=%s, dst_start_addr=%s, dst_step_elem=[%d, %d], dst_num_elem=[%d, %d], dst_elem_size=%d`,
		r.IntN(8), upd[r.IntN(3)], r.IntN(256), upd[r.IntN(3)], r.IntN(256),
		sm, sa, ss[0], ss[1], num[0], num[1], es, dm, da, ds[0], ds[1], num[0], num[1], es)
}

// Random DMA_MEMCPY2 words on ref and on the engines.
func TestRandomCopy2DAgainstRef(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	ran := 0
	trials := testutil.Trials(150)
	for n := 0; n < trials; n++ {
		var regs [64]uint32
		src := genCopy2D(r, &regs)
		in := word(t, isa.Maverick, src)
		a, b := ref.New(isa.Maverick), New(isa.Maverick)
		a.Regs, b.Regs = regs, regs
		seed(t, r, isa.Maverick, refM{a}, simM{b})
		ea, eb := a.Exec(in), b.Exec(in)
		if (ea == nil) != (eb == nil) {
			t.Fatalf("%s\nref %v, sim %v", src, ea, eb)
		}
		if d, differ := mem.FirstDifference(a.Mem, b.Mem, true); differ {
			t.Fatalf("%s\nmemory or semaphores differ (ref %v, sim %v): %v", src, ea, eb, d)
		}
		if ea == nil {
			ran++
		}
	}
	if ran < trials/2 {
		t.Fatalf("only %d of %d ran on both", ran, trials)
	}
	t.Logf("%d of %d ran on both", ran, trials)
}

// Quiet bound registers (bc_disable_oob_error_notif): ref skips the lanes
// past r[bc_reg]; the lowering leaves them out of both streams. (SBUF legs:
// a 32-bit register bounds addresses below 4 GiB.)
func TestQuietBoundsAgainstRef(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	ran, skipped := 0, 0
	trials := testutil.Trials(150)
	for n := 0; n < trials; n++ {
		es := []int{1, 4, 16, 64}[r.IntN(4)]
		num := [2]int{1 + r.IntN(16), 1 + r.IntN(8)}
		ss := [2]int{es * (1 + r.IntN(2)), es * num[0] * 2}
		ds := [2]int{es, es * num[0] * (1 + r.IntN(2))}
		src := fmt.Sprintf(`dmamemcpy semaphore=3, sem_increment=1, in_dtype=u8, out_dtype=u8, compute_op=%s,
  src_start_addr=sbuf:0:0x0, src_step_elem=[%d, %d], src_num_elem=[%d, %d], src_elem_size=%d,
  dst_start_addr=sbuf:0:0x10000, dst_step_elem=[%d, %d], dst_num_elem=[%d, %d], dst_elem_size=%d,
  src_bound_reg.bc_enabled=%d, src_bound_reg.bc_reg=9, src_bound_reg.bc_disable_oob_error_notif=1,
  dst_bound_reg.bc_enabled=%d, dst_bound_reg.bc_reg=10, dst_bound_reg.bc_disable_oob_error_notif=1`,
			[]string{"NONE", "ADD"}[r.IntN(2)], ss[0], ss[1], num[0], num[1], es, ds[0], ds[1], num[0], num[1], es, r.IntN(2), 1)
		in := word(t, isa.Cayman, src)
		a, b := ref.New(isa.Cayman), New(isa.Cayman)
		span := uint32(ss[1] * num[1])
		a.Regs[9] = uint32(r.IntN(int(span) + 1)) // limits inside the legs (SBUF partition 0)
		a.Regs[10] = 0x10000 + uint32(r.IntN(ds[1]*num[1]+1))
		b.Regs = a.Regs
		seed(t, r, isa.Cayman, refM{a}, simM{b})
		ea, eb := a.Exec(in), b.Exec(in)
		if (ea == nil) != (eb == nil) {
			t.Fatalf("%s\nr9 %#x r10 %#x: ref %v, sim %v", src, a.Regs[9], a.Regs[10], ea, eb)
		}
		if d, differ := mem.FirstDifference(a.Mem, b.Mem, true); differ {
			t.Fatalf("%s\nr9 %#x r10 %#x: memory differs (ref %v): %v", src, a.Regs[9], a.Regs[10], ea, d)
		}
		if ea == nil {
			ran++
			skipped += a.Stats.Skipped
		}
	}
	if ran < trials*2/3 || skipped == 0 {
		t.Fatalf("%d of %d ran on both, %d lanes skipped", ran, trials, skipped)
	}
	t.Logf("%d of %d ran on both, %d lanes skipped", ran, trials, skipped)
}
