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
		x := New(isa.Cayman)
		put32(t, x, hbm, c.src...)
		put32(t, x, hbm+0x100, c.old...)
		in := asmWord(t, isa.Cayman, "dmamemcpy src_start_addr=hbm:0x0, dst_start_addr=hbm:0x100, "+c.word)
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
