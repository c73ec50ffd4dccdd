package cci

import (
	"math"
	"strings"
	"testing"

	"ndma/isa"
	"ndma/mem"
)

// Every compare: families × conditions on operand pairs worked by hand —
// (1, 2) gives EQ NE LT LE GT GE = 0 1 1 1 0 0; (−1, 1) signed the same,
// unsigned (0xffffffff > 1) 0 1 0 0 1 1.
func TestEveryCompare(t *testing.T) {
	conds := []string{"eq", "ne", "lt", "le", "gt", "ge"}
	f := math.Float32bits
	for _, tc := range []struct {
		family string
		a, b   uint64
		want   string
	}{
		{"cmp", 1, 2, "011100"},
		{"cmp", 0xffffffff, 1, "010011"},
		{"cmps", 0xffffffff, 1, "011100"},
		{"cmp64", 1 << 40, 1 << 41, "011100"},
		{"cmp64", math.MaxUint64, 1, "010011"},
		{"cmp64s", math.MaxUint64, 1, "011100"},
		{"cmpf", uint64(f(1)), uint64(f(2)), "011100"},
		{"cmpf", uint64(f(-0.0)), uint64(f(0)), "100101"}, // −0 = +0
	} {
		for i, c := range conds {
			var regs [64]uint32
			regs[2], regs[3], regs[4], regs[5] = uint32(tc.a), uint32(tc.a>>32), uint32(tc.b), uint32(tc.b>>32)
			if !strings.Contains(tc.family, "64") {
				regs[3] = uint32(tc.b)
			}
			line := tc.family + "_" + c + " r6, r2, r4"
			if !strings.Contains(tc.family, "64") {
				line = tc.family + "_" + c + " r6, r2, r3"
			}
			if _, err := Run(word(t, line), &regs, mem.New(isa.Maverick), 0); err != nil {
				t.Fatalf("%s: %v", line, err)
			}
			if want := uint32(tc.want[i] - '0'); regs[6] != want {
				t.Errorf("%s(%#x, %#x) = %d, want %d", line, tc.a, tc.b, regs[6], want)
			}
		}
	}
}

// The 64-bit forms the ALU64 table leaves out, worked by hand.
func TestMore64(t *testing.T) {
	tests := []struct {
		op   string
		a, b uint64
		want uint64
	}{
		{"mod64", 1<<40 + 7, 0, 1<<40 + 7},
		{"max64", 1 << 63, 1, 1 << 63},
		{"min64", 1 << 63, 1, 1},
		{"mod64s", 1<<64 - 7, 2, 1<<64 - 1}, // −7 % 2 = −1
		{"min64s", 1<<64 - 1, 1, 1<<64 - 1},
		{"add64s", 1 << 63, 1<<64 - 1, 1 << 63}, // MinInt64 − 1 saturates
		{"abs_max64", 1<<64 - 9, 3, 9},
		{"abs_min64", 1<<64 - 9, 3, 3},
	}
	for _, tc := range tests {
		var regs [64]uint32
		regs[2], regs[3], regs[4], regs[5] = uint32(tc.a), uint32(tc.a>>32), uint32(tc.b), uint32(tc.b>>32)
		if _, err := Run(word(t, tc.op+" r6, r2, r4"), &regs, mem.New(isa.Maverick), 0); err != nil {
			t.Fatalf("%s: %v", tc.op, err)
		}
		if got := uint64(regs[6]) | uint64(regs[7])<<32; got != tc.want {
			t.Errorf("%s(%#x, %#x) = %#x, want %#x", tc.op, tc.a, tc.b, got, tc.want)
		}
	}
}

// Branch forms: conditional false, register-relative, absolute by a pair,
// and the links — each skipping one slot that would set r9.
func TestBranchForms(t *testing.T) {
	for _, tc := range []struct {
		lines []string
		r9    uint32 // 0: the slot was skipped
		link  uint32
	}{
		{[]string{"br_rel_imm_f r1, 2", "mov_imm_lo r9, 1"}, 0, 0}, // r1 = 0: taken
		{[]string{"br_rel_imm_f r2, 2", "mov_imm_lo r9, 1"}, 1, 0}, // r2 = 1: not taken
		{[]string{"br_rel_reg r0, 3", "mov_imm_lo r9, 1"}, 0, 0},   // r3 = 2: +2
		{[]string{"br_rel_reg_t r2, 3", "mov_imm_lo r9, 1"}, 0, 0}, // taken
		{[]string{"br_rel_reg_f r2, 3", "mov_imm_lo r9, 1"}, 1, 0}, // not taken
		{[]string{"br_reg64 r0, 4", "mov_imm_lo r9, 1"}, 0, 0},     // (r4, r5) = slot 2
		{[]string{"br_reg64_t r2, 4", "mov_imm_lo r9, 1"}, 0, 0},   // taken
		{[]string{"br_reg64_f r2, 4", "mov_imm_lo r9, 1"}, 1, 0},   // not taken
		{[]string{"bl_rel_reg r10, 3", "mov_imm_lo r9, 1"}, 0, 1},  // link = the next slot
		{[]string{"bl_reg64 r10, 4", "mov_imm_lo r9, 1"}, 0, 1},
		{[]string{"nop", "bl_rel_imm r10, 2", "mov_imm_lo r9, 1"}, 0, 2},
	} {
		var regs [64]uint32
		regs[2], regs[3], regs[4] = 1, 2, 2
		if _, err := Run(word(t, tc.lines...), &regs, mem.New(isa.Maverick), 0); err != nil {
			t.Fatalf("%v: %v", tc.lines, err)
		}
		if regs[9] != tc.r9 || regs[10] != tc.link {
			t.Errorf("%v: r9 %d r10 %d, want %d %d", tc.lines, regs[9], regs[10], tc.r9, tc.link)
		}
	}
}

// The memory forms the memory test leaves out: LDRB, STRH, STRB, LDRD, STRQ.
func TestMoreMemory(t *testing.T) {
	var regs [64]uint32
	m := mem.New(isa.Maverick)
	m.Write(0x200, []byte{0xfe, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07})
	regs[1], regs[2] = 0x200, 0xa1b2c3d4
	regs[20], regs[21], regs[22], regs[23] = 1, 2, 3, 4
	in := word(t,
		"ldrb r3, [r1]",     // 0xfe, zero-extended
		"ldrd r4, [r1]",     // r4 = 0x030201fe, r5 = 0x07060504
		"strh r2, [r1+16]",  // c3d4
		"strb r2, [r1+18]",  // d4
		"strq r20, [r1+32]", // 1, 2, 3, 4
	)
	if _, err := Run(in, &regs, m, 0); err != nil {
		t.Fatal(err)
	}
	if regs[3] != 0xfe || regs[4] != 0x030201fe || regs[5] != 0x07060504 {
		t.Fatalf("loads: r3 %#x r4 %#x r5 %#x", regs[3], regs[4], regs[5])
	}
	got := make([]byte, 3)
	m.Read(0x210, got)
	q := make([]byte, 16)
	m.Read(0x220, q)
	if string(got) != "\xd4\xc3\xd4" || q[0] != 1 || q[4] != 2 || q[8] != 3 || q[12] != 4 {
		t.Fatalf("stores: %x %x", got, q)
	}
}

// Every CCOP the isa names is exercised by some test of this package.
func TestEveryCCOPCovered(t *testing.T) {
	covered := map[string]bool{}
	add := func(names ...string) {
		for _, n := range names {
			covered[strings.ToUpper(n)] = true
		}
	}
	// the table tests
	for _, n := range []string{"add", "sub", "mul", "div", "mod", "max", "min", "adds", "subs", "muls", "divs", "mods", "maxs", "mins",
		"addf", "subf", "mulf", "divf", "truncf", "maxf", "minf", "abs_valuef", "abs_maxf", "abs_minf", "abs_value", "abs_max", "abs_min",
		"asl", "asr", "lsl", "lsr", "rol", "ror", "clz", "logical_and", "logical_or", "logical_xor", "logical_not",
		"bitwise_and", "bitwise_or", "bitwise_not", "bitwise_xor",
		"add64", "sub64", "mul64", "div64", "mod64", "max64", "min64", "add64s", "sub64s", "mul64s", "div64s", "mod64s", "max64s", "min64s",
		"abs_value64", "abs_max64", "abs_min64", "asr64", "lsl64", "lsr64", "rol64", "clz64"} {
		add(n)
	}
	for _, f := range []string{"cmp", "cmps", "cmp64", "cmp64s", "cmpf"} {
		for _, c := range []string{"eq", "ne", "lt", "le", "gt", "ge"} {
			add(f + "_" + c)
		}
	}
	// moves, branches, memory, semaphores (TestMovBranchSem, TestBranchForms,
	// TestMemory, TestMoreMemory, TestExampleLoop)
	add("nop", "mov", "mov_imm_lo", "mov_imm_hi", "mov_imm_lo_s", "br_rel_imm", "br_rel_imm_t", "br_rel_imm_f", "bl_rel_imm",
		"br_rel_reg", "br_rel_reg_t", "br_rel_reg_f", "bl_rel_reg", "br_reg64", "br_reg64_t", "br_reg64_f", "bl_reg64",
		"ldr", "ldrh", "ldrhs", "ldrb", "ldrbs", "str", "strh", "strb", "ldrd", "ldrq", "strd", "strq", "sem_read", "sem_write", "sem_add")
	for v := 0; v < 256; v++ {
		if ev, ok := isa.CCOp().Lookup(uint64(v)); ok && !covered[ev.Name] {
			t.Errorf("CCOP %s (%#02x) has no test", ev.Name, v)
		}
	}
}
