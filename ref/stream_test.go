package ref

import (
	"encoding/binary"
	"math"
	"reflect"
	"testing"

	"ndma/isa"
)

// A compute reads each dst element as the writes before it in the stream
// left it (RATIONALE.md): src elements landing on one dst accumulate, in
// stream order; worked out by hand.
func TestComputeRevisitsInStreamOrder(t *testing.T) {
	f := math.Float32bits
	for _, c := range []struct {
		name     string
		src, old []uint32
		word     string
		want     []uint32
	}{
		// 16 + 1 = 17; 17 + 1e8 rounds to 1e8 + 16 (fp32 spacing 8); + 1
		// rounds back; − 1e8 = 16 (all reads first: 16 − 1e8; exact: 18)
		{"fp32 onto one element", []uint32{f(1), f(1e8), f(1), f(-1e8)}, []uint32{f(16)},
			`compute_op=ADD, in_dtype=fp32, out_dtype=fp32, src_step_elem=[4, 8], src_num_elem=[2, 2], src_elem_size=4,
  dst_step_elem=[0, 0], dst_num_elem=[2, 2], dst_elem_size=4`, []uint32{f(16)}},
		// 8-byte dst elements 4 bytes apart: element 1's first scalar is
		// element 0's second as element 0 left it: 1000 + 2 + 10
		{"overlapping elements", []uint32{1, 2, 10, 20}, []uint32{1000, 1000, 1000},
			`compute_op=ADD, in_dtype=u32, out_dtype=u32, src_step_elem=[8, 0], src_num_elem=[2, 1], src_elem_size=8,
  dst_step_elem=[4, 0], dst_num_elem=[2, 1], dst_elem_size=8`, []uint32{1001, 1012, 1020}},
		// MAX over one element, then MIN: order-free, but every src counts
		{"max", []uint32{3, 9, 4}, []uint32{5},
			`compute_op=MAX, in_dtype=u32, out_dtype=u32, src_step_elem=[4, 0], src_num_elem=[3, 1], src_elem_size=4,
  dst_step_elem=[0, 0], dst_num_elem=[3, 1], dst_elem_size=4`, []uint32{9}},
		// int32 MULTIPLY: 3 · 2 · −1 · 5 = −30
		{"multiply", []uint32{2, 0xffffffff, 5}, []uint32{3},
			`compute_op=MULTIPLY, in_dtype=i32, out_dtype=i32, src_step_elem=[4, 0], src_num_elem=[3, 1], src_elem_size=4,
  dst_step_elem=[0, 0], dst_num_elem=[3, 1], dst_elem_size=4`, []uint32{0xffffffe2}},
	} {
		g := isa.Cayman
		if c.name == "overlapping elements" { // a step of half an element: a generation without a DGE (control.ShapeRules)
			g = isa.Sunda
		}
		x := New(g)
		put32(t, x, hbm, c.src...)
		put32(t, x, hbm+0x100, c.old...)
		in := asmWord(t, g, "dmamemcpy src_start_addr=hbm:0x0, dst_start_addr=hbm:0x100, "+c.word)
		if err := x.Exec(in); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := get32(t, x, hbm+0x100, len(c.want)); !reflect.DeepEqual(got, c.want) {
			t.Fatalf("%s: %#x, want %#x", c.name, got, c.want)
		}
	}
	// a cast onto one element: the last write wins
	x := New(isa.Cayman)
	put32(t, x, hbm, f(1), f(2), f(3))
	if err := x.Exec(asmWord(t, isa.Cayman, `dmamemcpy in_dtype=fp32, out_dtype=bf16, src_start_addr=hbm:0x0, src_step_elem=[4, 0],
  src_num_elem=[3, 1], src_elem_size=4, dst_start_addr=hbm:0x100, dst_step_elem=[0, 0], dst_num_elem=[3, 1], dst_elem_size=2`)); err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 2)
	x.Mem.Read(hbm+0x100, b)
	if got := binary.LittleEndian.Uint16(b); got != 0x4040 { // bf16 3.0
		t.Fatalf("cast onto one element: %#x, want 0x4040", got)
	}
}

// Zero-step legs: a src element repeated into a contiguous dst (3-byte
// elements into 2-byte ones, across the 64 KiB steps of the stream, staged
// or not), and n src elements onto one dst element (the last stays).
func TestZeroStepLegs(t *testing.T) {
	for _, dstAt := range []string{"hbm:0x10000", "hbm:0x1"} { // hbm:0x1 overlaps the src: staged
		x := New(isa.Cayman)
		if err := x.Mem.Write(hbm, []byte{7, 8, 9}); err != nil {
			t.Fatal(err)
		}
		in := asmWord(t, isa.Cayman, `dmamemcpy src_start_addr=hbm:0x0, src_step_elem=[0, 0], src_num_elem=[30000, 1], src_elem_size=3,
  dst_start_addr=`+dstAt+`, dst_step_elem=[2, 0], dst_num_elem=[45000, 1], dst_elem_size=2, in_dtype=u8, out_dtype=u8`)
		if err := x.Exec(in); err != nil {
			t.Fatal(err)
		}
		a := uint64(0x10000)
		if dstAt == "hbm:0x1" {
			a = 1
		}
		got := make([]byte, 90000)
		x.Mem.Read(hbm+a, got)
		for i, b := range got {
			if want := byte(7 + i%3); b != want {
				t.Fatalf("dst %s byte %d = %d, want %d", dstAt, i, b, want)
			}
		}
	}
	// 5 u16 elements onto one: plain, the last; cast to fp32 (u16 5 → 5.0), the last
	x := New(isa.Cayman)
	if err := x.Mem.Write(hbm, []byte{1, 0, 2, 0, 3, 0, 4, 0, 5, 0}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		out  string
		size int
		want uint32
	}{{"u16", 2, 5}, {"fp32", 4, math.Float32bits(5)}} {
		in := asmWord(t, isa.Cayman, `dmamemcpy src_start_addr=hbm:0x0, src_step_elem=[2, 0], src_num_elem=[5, 1], src_elem_size=2,
  dst_start_addr=hbm:0x100, dst_step_elem=[0, 0], dst_num_elem=[5, 1], dst_elem_size=`+string(rune('0'+c.size))+`, in_dtype=u16, out_dtype=`+c.out)
		if err := x.Exec(in); err != nil {
			t.Fatal(err)
		}
		if got := get32(t, x, hbm+0x100, 1)[0] & (1<<(8*c.size) - 1); got != c.want {
			t.Fatalf("5 elements onto one (%s): %#x, want %#x", c.out, got, c.want)
		}
	}
}
