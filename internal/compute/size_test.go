package compute_test

import (
	"fmt"
	"testing"

	"ndma/internal/compute"
	"ndma/isa"
)

// SizeOf gives the compute model what a word works on, each field by hand
// from the word's text: partitions (num_active_channels), the most
// elements per partition of any operand, the first operand's and the
// widest element bytes, the tensor operands read (src…), whether an
// operand is in PSUM, whether an operand's innermost elements are apart
// (step ≠ 1) and whether that step is over 16 bytes (the NKI architecture
// guide's half-bandwidth rule); Half: the NKI ISA reference's half-cost
// reductions and zero fills.
func TestSizeOf(t *testing.T) {
	tt := func(d0, d1, out string, s0, s1, dst pat) string {
		return fmt.Sprintf("tensor_tensor dtype_lo=%s, dtype_hi=%s, out_dtype=%s, op=ADD, num_active_channels=64, %s, %s, %s",
			d0, d1, out, s0.text("src0_mem_pattern", 3), s1.text("src1_mem_pattern", 3), dst.text("dst_mem_pattern", 3))
	}
	cp := func(in, out string, src, dst pat) string {
		return fmt.Sprintf("copy in_dtype=%s, out_dtype=%s, num_active_channels=32, %s, %s",
			in, out, src.text("src_mem_pattern", 4), dst.text("dst_mem_pattern", 4))
	}
	st, nm := row(100)
	r := sb(0, 0, st, nm)
	for _, tc := range []struct {
		name, text string
		want       compute.Size
	}{
		{"TT fp32 + bf16 → bf16", tt("FP32", "BF16", "BF16", r, sb(0, 0x1000, st, nm), sb(0, 0x2000, st, nm)),
			compute.Size{Parts: 64, Elems: 100, InBytes: 4, Inputs: 2, MaxBytes: 4}},
		{"TT bf16 all", tt("BF16", "BF16", "BF16", r, sb(0, 0x1000, st, nm), sb(0, 0x2000, st, nm)),
			compute.Size{Parts: 64, Elems: 100, InBytes: 2, Inputs: 2, MaxBytes: 2}},
		// 2 × 50 elements (the larger dimension outermost)
		{"COPY fp16, 2-D", cp("FP16", "FP16", sb(0, 0, []int{1, 50}, []int{50, 2}), sb(0, 0x1000, st, nm)),
			compute.Size{Parts: 32, Elems: 100, InBytes: 2, Inputs: 1, MaxBytes: 2}},
		// every 9th fp16: 18 bytes a step
		{"COPY fp16 step 9", cp("FP16", "FP16", sb(0, 0, []int{9}, []int{100}), sb(0, 0x1000, st, nm)),
			compute.Size{Parts: 32, Elems: 100, InBytes: 2, Inputs: 1, MaxBytes: 2, Gapped: true, Strided: true}},
		// every 8th bf16 and every 4th fp32: 16 bytes, still full bandwidth
		{"COPY bf16 step 8", cp("BF16", "BF16", sb(0, 0, []int{8}, []int{100}), sb(0, 0x1000, st, nm)),
			compute.Size{Parts: 32, Elems: 100, InBytes: 2, Inputs: 1, MaxBytes: 2, Gapped: true}},
		{"COPY fp32 step 4", cp("FP32", "FP32", sb(0, 0, []int{4}, []int{100}), sb(0, 0x1000, st, nm)),
			compute.Size{Parts: 32, Elems: 100, InBytes: 4, Inputs: 1, MaxBytes: 4, Gapped: true}},
		// the destination strided: 5 fp32 = 20 bytes
		{"COPY fp32 into step 5", cp("FP32", "FP32", r, sb(0, 0x1000, []int{5}, []int{100})),
			compute.Size{Parts: 32, Elems: 100, InBytes: 4, Inputs: 1, MaxBytes: 4, Gapped: true, Strided: true}},
		// out of PSUM into SBUF
		{"COPY fp32 PSUM → SBUF", cp("FP32", "FP32", ps(0, 0, st, nm), sb(0, 0x1000, st, nm)),
			compute.Size{Parts: 32, Elems: 100, InBytes: 4, Inputs: 1, MaxBytes: 4, PSUM: true}},
		// the half-cost cases: a BF16 → BF16 add or max reduction, a zero fill of a 16-bit float
		{"TENSOR_REDUCE bf16 ADD", reduceText("tensor_reduce", sb(0, 0, st, nm), sb(0, 0x1000, []int{1}, []int{1}), "BF16", "BF16", 16, "ADD", "X"),
			compute.Size{Parts: 16, Elems: 100, InBytes: 2, Inputs: 1, MaxBytes: 2, Half: true}},
		{"TENSOR_REDUCE bf16 MAX", reduceText("tensor_reduce", sb(0, 0, st, nm), sb(0, 0x1000, []int{1}, []int{1}), "BF16", "BF16", 16, "MAX", "X"),
			compute.Size{Parts: 16, Elems: 100, InBytes: 2, Inputs: 1, MaxBytes: 2, Half: true}},
		{"TENSOR_REDUCE bf16 → fp32 ADD", reduceText("tensor_reduce", sb(0, 0, st, nm), sb(0, 0x1000, []int{1}, []int{1}), "BF16", "FP32", 16, "ADD", "X"),
			compute.Size{Parts: 16, Elems: 100, InBytes: 2, Inputs: 1, MaxBytes: 4}},
		{"TENSOR_REDUCE bf16 MIN", reduceText("tensor_reduce", sb(0, 0, st, nm), sb(0, 0x1000, []int{1}, []int{1}), "BF16", "BF16", 16, "MIN", "X"),
			compute.Size{Parts: 16, Elems: 100, InBytes: 2, Inputs: 1, MaxBytes: 2}},
		{"MEMSET fp16 zero", "memset dst_element_count=100, dtype=FP16, num_active_channels=8, fill_value=0, " + sb(0, 0, st, nm).text("dst_mem_pattern", 4),
			compute.Size{Parts: 8, Elems: 100, InBytes: 2, MaxBytes: 2, Half: true}},
		{"MEMSET fp16 one", "memset dst_element_count=100, dtype=FP16, num_active_channels=8, fill_value=0x3f800000, " + sb(0, 0, st, nm).text("dst_mem_pattern", 4),
			compute.Size{Parts: 8, Elems: 100, InBytes: 2, MaxBytes: 2}},
		{"MEMSET fp32 zero", "memset dst_element_count=100, dtype=FP32, num_active_channels=8, fill_value=0, " + sb(0, 0, st, nm).text("dst_mem_pattern", 4),
			compute.Size{Parts: 8, Elems: 100, InBytes: 4, MaxBytes: 4}},
		// a one-element innermost dimension steps nowhere
		{"COPY fp32 [1 100] step 9", cp("FP32", "FP32", sb(0, 0, []int{9, 1}, []int{1, 100}), sb(0, 0x1000, st, nm)),
			compute.Size{Parts: 32, Elems: 100, InBytes: 4, Inputs: 1, MaxBytes: 4}},
	} {
		e := compute.NewSizer(isa.Cayman)
		got, ok := e.SizeOf(word(t, isa.Cayman, "%s", tc.text))
		if !ok || got != tc.want {
			t.Errorf("%s: %+v (%v), want %+v", tc.name, got, ok, tc.want)
		}
	}
}
