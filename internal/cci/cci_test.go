package cci

import (
	"errors"
	"io/fs"
	"math"
	"ndma/internal/testutil"
	"strings"
	"testing"

	"ndma"
	"ndma/asm"
	"ndma/isa"
	"ndma/mem"
)

func word(t testing.TB, lines ...string) *isa.Inst {
	return testutil.Word(t, isa.Maverick, "compact_control_inst\n    "+strings.Join(lines, "\n    ")+"\n")
}

// examples/cci_loop.s: 16 passes adding 4 → r1 = 64, added to $S[7]; slots
// 0–4 once, 5–8 sixteen times, 9 and the 5 padding nops once: 75 steps.
func TestExampleLoop(t *testing.T) {
	text, _ := fs.ReadFile(ndma.Examples, "examples/cci_loop.s")
	obj, err := asm.Assemble("cci_loop.s", text, asm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	in, _ := isa.Decode(isa.Maverick, obj.Code)
	var regs [64]uint32
	m := mem.New(isa.Maverick)
	steps, err := Run(&in, &regs, m, 0)
	if err != nil {
		t.Fatal(err)
	}
	if regs[1] != 64 || regs[2] != 0 || m.Sems[7] != 64 || steps != 75 {
		t.Fatalf("r1 %d r2 %d $S[7] %d steps %d; want 64, 0, 64, 75", regs[1], regs[2], m.Sems[7], steps)
	}
}

// 32-bit ALU ops on r1, r2 into r3, expected values worked by hand.
func TestALU32(t *testing.T) {
	f := math.Float32bits
	nan := uint32(0x7fc00000)
	tests := []struct {
		op   string
		a, b uint32
		want uint32
	}{
		{"add", 0xffffffff, 1, 0},
		{"sub", 0, 1, 0xffffffff},
		{"mul", 0x10000, 0x10000, 0},
		{"div", 7, 2, 3},
		{"div", 7, 0, 0xffffffff},
		{"mod", 7, 2, 1},
		{"mod", 7, 0, 7},
		{"max", 0xffffffff, 1, 0xffffffff},
		{"min", 0xffffffff, 1, 1},
		{"adds", 0x7fffffff, 1, 0x7fffffff},
		{"subs", 0x80000000, 1, 0x80000000},
		{"muls", 0x10000, 0x10000, 0x7fffffff},
		{"muls", 0xffff0000, 0x10000, 0x80000000}, // −2^16 · 2^16 = −2^32 → MinInt32
		{"divs", 0x80000000, 0xffffffff, 0x7fffffff},
		{"divs", 0xfffffff9, 2, 0xfffffffd}, // −7 / 2 = −3
		{"divs", 5, 0, 0xffffffff},
		{"mods", 0xfffffff9, 2, 0xffffffff}, // −7 % 2 = −1
		{"maxs", 0xffffffff, 1, 1},
		{"mins", 0xffffffff, 1, 0xffffffff},
		{"addf", f(1.5), f(2.25), f(3.75)},
		{"subf", f(1), f(3), f(-2)},
		{"mulf", f(-1.5), f(4), f(-6)},
		{"divf", f(1), 0, 0x7f800000},
		{"truncf", f(-2.7), 0, 0xfffffffe},
		{"truncf", f(3e9), 0, 0x7fffffff},
		{"truncf", nan, 0, 0},
		{"maxf", f(1), f(2), f(2)},
		{"minf", f(-1), f(2), f(-1)},
		{"abs_valuef", f(-2.5), 0, f(2.5)},
		{"abs_maxf", f(-3), f(2), f(3)},
		{"abs_minf", f(-3), f(2), f(2)},
		{"abs_value", 0x80000000, 0, 0x7fffffff},
		{"abs_value", 0xfffffffb, 0, 5},
		{"abs_max", 0xfffffffb, 3, 5},
		{"abs_min", 0xfffffffb, 3, 3},
		{"asl", 1, 31, 0x80000000},
		{"asr", 0x80000000, 4, 0xf8000000},
		{"lsl", 3, 33, 6}, // shift counts are taken mod 32
		{"lsr", 0x80000000, 4, 0x08000000},
		{"rol", 0x80000001, 1, 3},
		{"ror", 3, 1, 0x80000001},
		{"clz", 1, 0, 31},
		{"clz", 0, 0, 32},
		{"logical_and", 2, 3, 1},
		{"logical_and", 2, 0, 0},
		{"logical_or", 0, 5, 1},
		{"logical_xor", 4, 5, 0},
		{"logical_not", 0, 0, 1},
		{"bitwise_and", 0xf0, 0x3c, 0x30},
		{"bitwise_or", 0xf0, 0x0f, 0xff},
		{"bitwise_not", 0, 0, 0xffffffff},
		{"bitwise_xor", 0xf0, 0xff, 0x0f},
		{"cmp_lt", 0xffffffff, 1, 0},
		{"cmps_lt", 0xffffffff, 1, 1},
		{"cmp_ge", 5, 5, 1},
		{"cmps_gt", 1, 0xffffffff, 1},
		{"cmpf_le", f(-1), f(0), 1},
		{"cmpf_eq", nan, nan, 0},
		{"cmpf_ne", nan, nan, 1},
	}
	for _, tc := range tests {
		in := word(t, tc.op+" r3, r1, r2")
		var regs [64]uint32
		regs[1], regs[2] = tc.a, tc.b
		if _, err := Run(in, &regs, mem.New(isa.Maverick), 0); err != nil {
			t.Errorf("%s(%#x, %#x): %v", tc.op, tc.a, tc.b, err)
			continue
		}
		if regs[3] != tc.want {
			t.Errorf("%s(%#x, %#x) = %#x, want %#x", tc.op, tc.a, tc.b, regs[3], tc.want)
		}
	}
	// a NaN operand gives NaN for MAXF/MINF
	for _, op := range []string{"maxf", "minf", "abs_maxf"} {
		var regs [64]uint32
		regs[1], regs[2] = nan, f(1)
		Run(word(t, op+" r3, r1, r2"), &regs, mem.New(isa.Maverick), 0)
		if v := math.Float32frombits(regs[3]); v == v {
			t.Errorf("%s(NaN, 1) = %v, want NaN", op, v)
		}
	}
}

// 64-bit ops on the pairs (r2, r3) and (r4, r5) into (r6, r7).
func TestALU64(t *testing.T) {
	tests := []struct {
		op   string
		a, b uint64
		want uint64
	}{
		{"add64", math.MaxUint64, 1, 0},
		{"sub64", 0, 1, math.MaxUint64},
		{"mul64", 1 << 32, 1 << 32, 0},
		{"div64", 1 << 40, 1 << 8, 1 << 32},
		{"div64", 9, 0, math.MaxUint64},
		{"mod64", 1<<40 + 5, 1 << 8, 5},
		{"add64s", math.MaxInt64, 1, math.MaxInt64},
		{"sub64s", 1 << 63, 1, 1 << 63},
		{"mul64s", 1 << 32, 1 << 32, math.MaxInt64},
		{"mul64s", 1<<64 - 3, 1<<64 - 5, 15},        // −3 · −5
		{"mul64s", 1<<64 - 1<<32, 1 << 32, 1 << 63}, // −2^32 · 2^32 = −2^64 → MinInt64
		{"div64s", 1 << 63, math.MaxUint64, math.MaxInt64},
		{"max64s", math.MaxUint64, 1, 1},
		{"abs_value64", 1 << 63, 0, math.MaxInt64},
		{"lsl64", 1, 40, 1 << 40},
		{"asr64", 1 << 63, 63, math.MaxUint64},
		{"lsr64", 1 << 63, 63, 1},
		{"rol64", 1<<63 | 1, 1, 3},
		{"cmp64_gt", 1 << 40, 1 << 39, 1},
		{"cmp64s_gt", 1 << 63, 1, 0},
	}
	for _, tc := range tests {
		in := word(t, tc.op+" r6, r2, r4")
		var regs [64]uint32
		regs[2], regs[3], regs[4], regs[5] = uint32(tc.a), uint32(tc.a>>32), uint32(tc.b), uint32(tc.b>>32)
		if _, err := Run(in, &regs, mem.New(isa.Maverick), 0); err != nil {
			t.Errorf("%s: %v", tc.op, err)
			continue
		}
		got := uint64(regs[6]) | uint64(regs[7])<<32
		if strings.HasPrefix(tc.op, "cmp") {
			got = uint64(regs[6])
		}
		if got != tc.want {
			t.Errorf("%s(%#x, %#x) = %#x, want %#x", tc.op, tc.a, tc.b, got, tc.want)
		}
	}
	var regs [64]uint32
	regs[2] = 1
	Run(word(t, "clz64 r6, r2, r0"), &regs, mem.New(isa.Maverick), 0)
	if regs[6] != 63 {
		t.Errorf("clz64(1) = %d, want 63", regs[6])
	}
}

func TestMovBranchSem(t *testing.T) {
	var regs [64]uint32
	regs[9] = 0xdeadbeef
	m := mem.New(isa.Maverick)
	m.Sems[3] = -5
	in := word(t,
		"mov r1, r9",
		"mov_imm_lo r2, 0x1234",   // r2 = 0x00001234
		"mov_imm_hi r2, 0xabcd",   // r2 = 0xabcd1234
		"mov_imm_lo_s r3, 0xfffe", // r3 = −2
		"bl_rel_imm r10, skip",    // r10 = 5, jump over the next slot
		"mov_imm_lo r4, 99",
		"skip:",
		"sem_read r5, 3",
		"sem_add 3, r6, 7", // r6 = 0: $S[3] = −5 + 7
		"sem_write 4, r2, 1",
	)
	if _, err := Run(in, &regs, m, 0); err != nil {
		t.Fatal(err)
	}
	if regs[1] != 0xdeadbeef || regs[2] != 0xabcd1234 || regs[3] != 0xfffffffe || regs[10] != 5 || regs[4] != 0 ||
		int32(regs[5]) != -5 || m.Sems[3] != 2 || uint32(m.Sems[4]) != 0xabcd1235 {
		t.Fatalf("regs %x, $S[3] %d, $S[4] %#x", regs[:11], m.Sems[3], uint32(m.Sems[4]))
	}
}

// Loads and stores against the core's memory; a fault leaves everything as it was.
func TestMemory(t *testing.T) {
	var regs [64]uint32
	m := mem.New(isa.Maverick)
	m.Write(0x100, []byte{0x80, 0xff, 0x34, 0x12, 1, 2, 3, 4, 5, 6, 7, 8})
	regs[1] = 0x100
	regs[2] = 0xcafef00d
	in := word(t,
		"ldr r3, [r1]",    // 0x1234ff80
		"ldrbs r4, [r1]",  // 0x80 → −128
		"ldrh r5, [r1+2]", // 0x1234
		"ldrhs r6, [r1]",  // 0xff80 → −128
		"str r2, [r1+16]", // then read back through the store
		"ldr r7, [r1+16]",
		"ldrq r8, [r1]",    // r8..r11
		"strd r2, [r1+24]", // r2, r3
	)
	if _, err := Run(in, &regs, m, 0); err != nil {
		t.Fatal(err)
	}
	if regs[3] != 0x1234ff80 || regs[4] != 0xffffff80 || regs[5] != 0x1234 || regs[6] != 0xffffff80 || regs[7] != 0xcafef00d ||
		regs[8] != 0x1234ff80 || regs[9] != 0x04030201 || regs[10] != 0x08070605 {
		t.Fatalf("regs %x", regs[:12])
	}
	got := make([]byte, 16)
	m.Read(0x110, got)
	if want := []byte{0x0d, 0xf0, 0xfe, 0xca, 0, 0, 0, 0, 0x0d, 0xf0, 0xfe, 0xca, 0x80, 0xff, 0x34, 0x12}; string(got) != string(want) {
		t.Fatalf("stored %x, want %x", got, want)
	}

	// faults: misaligned, unmapped, unknown op, bad register, branch out, step limit
	for _, tc := range []struct {
		lines []string
		slot  int
		err   error
	}{
		{[]string{"str r2, [r1+16]", "ldr r3, [r1+2]"}, 1, ErrMisaligned},
		{[]string{"str r2, [r1+16]", "mov_imm_hi r1, 0x4000", "ldr r3, [r1]"}, 2, nil},
		{[]string{"nop", ".inst 0x000000ff"}, 1, ErrUnknownOp},
		{[]string{"add r70, r1, r2"}, 0, ErrRegister},
		{[]string{"br_rel_imm r0, 20"}, 0, ErrTarget},
		{[]string{"loop:", "br_rel_imm r0, loop"}, 0, ErrStepLimit},
	} {
		var regs [64]uint32
		regs[1], regs[2] = 0x100, 7
		m := mem.New(isa.Maverick)
		m.Sems[1] = 3
		before := m.Snapshot()
		_, err := Run(word(t, tc.lines...), &regs, m, 1000)
		var f *Fault
		if !errors.As(err, &f) || f.Slot != tc.slot || tc.err != nil && !errors.Is(err, tc.err) {
			t.Errorf("%v: %v, want a fault at slot %d (%v)", tc.lines, err, tc.slot, tc.err)
		}
		if regs[1] != 0x100 || regs[2] != 7 || len(m.Snapshot()) != len(before) || m.Sems[1] != 3 {
			t.Errorf("%v: a faulting word changed state", tc.lines)
		}
	}
}

// FuzzCCI: any 60 bytes of slots run to a result or a fault, never a panic,
// never past the step limit.
func FuzzCCI(f *testing.F) {
	text, _ := fs.ReadFile(ndma.Examples, "examples/cci_loop.s")
	obj, _ := asm.Assemble("cci_loop.s", text, asm.Options{})
	f.Add(obj.Code[4:64])
	f.Add(make([]byte, 60))
	f.Fuzz(func(t *testing.T, slots []byte) {
		if len(slots) != 60 {
			return
		}
		w := append([]byte{0xb6, 0x10, 0, 0}, slots...)
		in, err := isa.Decode(isa.Maverick, w)
		if err != nil {
			return
		}
		var regs [64]uint32
		for i := range regs {
			regs[i] = uint32(i * 0x1000)
		}
		m := mem.New(isa.Maverick)
		steps, err := Run(&in, &regs, m, 500)
		if steps > 501 || err == nil && steps > 500 {
			t.Fatalf("%d steps past the limit of 500 (err %v)", steps, err)
		}
	})
}
