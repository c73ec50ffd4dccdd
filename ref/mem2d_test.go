package ref

import (
	"bytes"
	"errors"
	"reflect"
	"testing"

	"ndma/isa"
)

// MEM_2D from field-tables §3.12: "num_elem[2]@14 (u8 each, product ≤32),
// start_addr@16 (ADDR8), step_elem[2]@24 (int32 element strides), data@32
// (32 B: 32 register ids or packed immediates; immediate caps 32/16/8/4 for
// 1/2/4/8-byte types). Whole span must lie in one aligned 16 MiB region."
// The expected bytes and registers are worked out by hand below.

func get(t *testing.T, x *Machine, addr uint64, n int) []byte {
	t.Helper()
	b := make([]byte, n)
	if err := x.Mem.Read(addr, b); err != nil {
		t.Fatal(err)
	}
	return b
}

func TestMem2DStoreLoad(t *testing.T) {
	x := New(isa.Cayman)
	// examples/scalar_movers.s, word 1: four UINT32 immediates at sbuf:0:0x100
	if err := x.Exec(asmWord(t, isa.Cayman, `tensor_store dtype=UINT32, src_datasrc=IMMEDIATE, num_elem=[4, 1],
    start_addr=sbuf:0:0x100, step_elem=[1, 0], data=[0x44, 0x33, 0x22, 0x11, 0x88, 0x77, 0x66, 0x55, 1, 0, 0, 0, 2, 0, 0, 0]`)); err != nil {
		t.Fatal(err)
	}
	want := []byte{0x44, 0x33, 0x22, 0x11, 0x88, 0x77, 0x66, 0x55, 1, 0, 0, 0, 2, 0, 0, 0}
	if got := get(t, x, 0x100, 16); !bytes.Equal(got, want) {
		t.Fatalf("stored % x, want % x", got, want)
	}
	// 2 × 2, step_elem [1, 2]: (i0, i1) at 0x100 + 4·(i0 + 2·i1) = 0x100, 0x104, 0x108, 0x10c → slots 0..3
	if err := x.Exec(asmWord(t, isa.Cayman, `tensor_load dtype=UINT32, num_elem=[2, 2], start_addr=sbuf:0:0x100,
    step_elem=[1, 2], data=[10, 11, 12, 13]`)); err != nil {
		t.Fatal(err)
	}
	if got := x.Regs[10:14]; !reflect.DeepEqual(got, []uint32{0x11223344, 0x55667788, 1, 2}) {
		t.Fatalf("r10..r13 = %#x", got)
	}
	// UINT16 from r10, r11 at step 2 elements: 0x3344 at +0x200, 0x7788 at +0x204, +0x202 untouched
	put32(t, x, 0x200, 0xdeadbeef, 0xdeadbeef)
	if err := x.Exec(asmWord(t, isa.Cayman, `tensor_store dtype=UINT16, num_elem=[2, 1], start_addr=sbuf:0:0x200,
    step_elem=[2, 0], data=[10, 11]`)); err != nil {
		t.Fatal(err)
	}
	if got, want := get(t, x, 0x200, 8), []byte{0x44, 0x33, 0xad, 0xde, 0x88, 0x77, 0xad, 0xde}; !bytes.Equal(got, want) {
		t.Fatalf("stored % x, want % x", got, want)
	}
	// INT8 load of a byte ≥ 0x80 is zero-extended (RATIONALE.md); a negative step walks down
	if err := x.Exec(asmWord(t, isa.Cayman, `tensor_load dtype=INT8, num_elem=[2, 1], start_addr=sbuf:0:0x205,
    step_elem=[-1, 0], data=[20, 21]`)); err != nil {
		t.Fatal(err)
	}
	if x.Regs[20] != 0x77 || x.Regs[21] != 0x88 {
		t.Fatalf("r20, r21 = %#x, %#x; want 0x77, 0x88", x.Regs[20], x.Regs[21])
	}
	// an 8-byte element is a register pair: INT64 from r30 (low), r31 (high)
	x.Regs[30], x.Regs[31] = 0x89abcdef, 0x01234567
	if err := x.Exec(asmWord(t, isa.Cayman, `tensor_store dtype=INT64, num_elem=[1, 1], start_addr=hbm:0x8, data=[30]`)); err != nil {
		t.Fatal(err)
	}
	if got, want := get(t, x, 0x1_0000_0008, 8), []byte{0xef, 0xcd, 0xab, 0x89, 0x67, 0x45, 0x23, 0x01}; !bytes.Equal(got, want) {
		t.Fatalf("stored % x, want % x", got, want)
	}
	if err := x.Exec(asmWord(t, isa.Cayman, `tensor_load dtype=INT64, num_elem=[1, 1], start_addr=hbm:0x8, data=[40]`)); err != nil {
		t.Fatal(err)
	}
	if x.Regs[40] != 0x89abcdef || x.Regs[41] != 0x01234567 {
		t.Fatalf("r40, r41 = %#x, %#x", x.Regs[40], x.Regs[41])
	}
}

// "Whole span must lie in one aligned 16 MiB region": 4 UINT32 from HBM
// offset 0xfffff8 end at 0x1000007 (the HBM window starts 16 MiB-aligned,
// at 0x1_0000_0000); the word faults and changes nothing, registers included.
func TestMem2DRegionFault(t *testing.T) {
	x := New(isa.Cayman)
	x.Regs[1] = 7
	put32(t, x, 0x1_00ff_fff8, 1, 2, 3, 4)
	before := x.Mem.Snapshot()
	err := x.Exec(asmWord(t, isa.Cayman, `tensor_load dtype=UINT32, num_elem=[4, 1], start_addr=hbm:0xfffff8,
    step_elem=[1, 0], data=[1, 2, 3, 4]`))
	var f *Fault
	if !errors.As(err, &f) || f.Rule != "has_valid_mem2d_region" || x.Regs[1] != 7 {
		t.Fatalf("err %v, r1 %d; want a has_valid_mem2d_region fault and r1 kept", err, x.Regs[1])
	}
	if !reflect.DeepEqual(before, x.Mem.Snapshot()) {
		t.Fatal("memory changed after a fault")
	}
	// from a register pair too: r4/r5 = the same address
	x.Regs[4], x.Regs[5] = 0x00ff_fff8, 0x1
	err = x.Exec(asmWord(t, isa.Cayman, `tensor_store dtype=UINT32, num_elem=[4, 1], start_addr=reg(r4, r5), step_elem=[1, 0], data=[1, 2, 3, 4]`))
	if !errors.As(err, &f) || f.Rule != "has_valid_mem2d_region" {
		t.Fatalf("register address: %v", err)
	}
	// two of them end at 0xffffff: inside the region
	if err := x.Exec(asmWord(t, isa.Cayman, `tensor_load dtype=UINT32, num_elem=[2, 1], start_addr=hbm:0xfffff8, step_elem=[1, 0], data=[1, 2]`)); err != nil {
		t.Fatal(err)
	}
	if x.Regs[1] != 1 || x.Regs[2] != 2 {
		t.Fatalf("r1, r2 = %d, %d", x.Regs[1], x.Regs[2])
	}
}

// A pseudo word never runs unresolved; EVENTS wait as for every word.
func TestMem2DPseudoAndEvents(t *testing.T) {
	x := New(isa.Cayman)
	err := x.Exec(asmWord(t, isa.Cayman, `pseudo_tensor_load dtype=UINT8, num_elem=[1, 1], var_id=1, data=[3]`))
	if !errors.Is(err, ErrUnsupported) {
		t.Fatalf("pseudo: %v", err)
	}
	in := asmWord(t, isa.Cayman, `tensor_load wait_mode=WAIT_FOR_SEM_GE_IMM, wait_idx=3, semaphore_value=1,
    update_mode=SEM_INC_COMPLETE, update_idx=4, dtype=UINT8, num_elem=[1, 1], start_addr=sbuf:0:0x0, data=[3]`)
	if err := x.Exec(in); !errors.Is(err, ErrBlocked) {
		t.Fatalf("semaphore 3 = 0: %v, want blocked", err)
	}
	x.Mem.Sems[3] = 1
	if err := x.Exec(in); err != nil || x.Mem.Sems[4] != 1 {
		t.Fatalf("%v, semaphore 4 = %d", err, x.Mem.Sems[4])
	}
}
