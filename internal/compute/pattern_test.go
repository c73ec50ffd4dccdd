package compute_test

import (
	"bytes"
	"errors"
	"fmt"
	"testing"

	"ndma/internal/compute"
	"ndma/isa"
	"ndma/mem"
)

// The access-pattern rules (spec §3.1, §3.2): partitions from the start
// address and the word's count, elements start + Σ_d i_d·step_d with
// dimension 0 fastest, every element inside the active bytes of its
// partition — and the refusals of everything else.

// TestPatternOrder: dimension 0 is innermost, steps count elements (not
// bytes), negative and zero steps are honoured, through a COPY whose
// destination is a plain row: element i of the row is the i-th element
// the 4D source pattern enumerates.
func TestPatternOrder(t *testing.T) {
	for _, c := range []struct {
		dt         string
		step, num  []int
		off, parts int
	}{
		{"FP32", []int{1, 10, 100, 1000}, []int{3, 4, 2, 2}, 0, 3},
		{"FP16", []int{-1, 7, 0, -100}, []int{5, 3, 2, 3}, 0x400, 128},
		{"INT8", []int{3, -17, 1, 64}, []int{4, 5, 2, 3}, 0x100, 1},
		{"INT32", []int{0, 0, 2, 0}, []int{2, 2, 9, 2}, 0x10, 17},
	} {
		t.Run(fmt.Sprintf("%s_%v_%v", c.dt, c.step, c.num), func(t *testing.T) {
			m := mem.New(isa.Cayman)
			e := compute.New(isa.Cayman)
			sz := dtSize[c.dt]
			src := sb(100-c.parts/2, 0x2000+c.off, c.step, c.num)
			if src.part+c.parts > 128 {
				src.part = 128 - c.parts
			}
			n := src.count()
			dst := sb(src.part, 0x20000, []int{1}, []int{n})
			for k := range c.parts { // each byte of the source region its own value
				b := make([]byte, 0x3000)
				for i := range b {
					b[i] = byte(i*7 + k*13 + i>>8)
				}
				put(t, m, src.addr(k)-0x1000, b)
			}
			exec(t, e, m, word(t, isa.Cayman, "%s", reduceText("copy", src, dst, c.dt, c.dt, c.parts, "BYPASS", "UNUSED")))
			for k := range c.parts {
				got := get(t, m, dst.addr(k), n*sz)
				for i, o := range src.elems() {
					want := get(t, m, uint64(int64(src.addr(k))+int64(o*sz)), sz)
					if !bytes.Equal(got[i*sz:(i+1)*sz], want) {
						t.Fatalf("partition %d element %d (offset %d elements): % x, want % x", src.part+k, i, o, got[i*sz:(i+1)*sz], want)
					}
				}
			}
		})
	}
}

// badCase is a word that must be refused: the sentinel its error wraps, the
// fault's field, and a destination it must leave alone.
type badCase struct {
	name  string
	gen   isa.Gen
	setup func(t *testing.T, e *compute.Engine, m *mem.Memory)
	text  string
	want  error
	field string
	dst   uint64 // 0: not checked
}

func TestBadInput(t *testing.T) {
	C, S := isa.Cayman, isa.Sunda
	st8, nm8 := row(8)
	r8 := func(psum bool, part, off int) pat { return pat{psum, part, off, st8, nm8} }
	tt := func(op, d string, ch int, s0, s1, dst pat) string {
		return fmt.Sprintf("tensor_tensor dtype_lo=%s, dtype_hi=%s, out_dtype=%s, op=%s, num_active_channels=%d, %s, %s, %s",
			d, d, d, op, ch, s0.text("src0_mem_pattern", 3), s1.text("src1_mem_pattern", 3), dst.text("dst_mem_pattern", 3))
	}
	ldw := func(g isa.Gen, k, mm int, src pat) string {
		return fmt.Sprintf("ldweights %s, in_dtype=FP16, num_active_rows=%d, num_active_cols=%d", src.text("src_mem_pattern", 3), k, mm)
	}
	mm := func(k, mc int, src, dst pat) string {
		return fmt.Sprintf("matmul %s, in_dtype=FP16, num_active_rows=%d, num_active_cols=%d, psum_accumulate_flags=SINGLE, %s",
			src.text("src_mem_pattern", 3), k, mc, dst.text("dst_mem_pattern", 3))
	}
	loaded := func(t *testing.T, e *compute.Engine, m *mem.Memory) {
		exec(t, e, m, word(t, e.Gen, "%s", ldw(e.Gen, 4, 8, r8(false, 0, 0))))
	}
	cases := []badCase{
		// partitions and addresses
		{name: "channels past the last partition", gen: C, text: tt("ADD", "FP32", 50, r8(false, 100, 0), r8(false, 100, 0x100), r8(false, 100, 0x200)),
			want: isa.ErrBounds, field: "src0_mem_pattern", dst: sbufAddr(100, 0x200)},
		{name: "no channels", gen: C, text: tt("ADD", "FP32", 0, r8(false, 0, 0), r8(false, 0, 0x100), r8(false, 0, 0x200)),
			want: isa.ErrBounds, field: "num_active_channels"},
		{name: "CAYMAN SBUF past 224 KiB", gen: C, text: tt("ADD", "FP32", 1, r8(false, 0, 0x37ff0), r8(false, 0, 0x100), r8(false, 0, 0x200)),
			want: isa.ErrBounds, field: "src0_mem_pattern", dst: sbufAddr(0, 0x200)},
		{name: "SUNDA SBUF past 192 KiB", gen: S, text: tt("ADD", "FP32", 1, r8(false, 0, 0), r8(false, 0, 0x100), r8(false, 0, 0x2fff0)),
			want: isa.ErrBounds, field: "dst_mem_pattern"},
		{name: "PSUM past 16 KiB", gen: C, text: tt("ADD", "FP32", 1, r8(false, 0, 0), r8(true, 0, 0x3ff8), r8(false, 0, 0x200)),
			want: isa.ErrBounds, field: "src1_mem_pattern", dst: sbufAddr(0, 0x200)},
		{name: "a negative step before the partition", gen: C, text: tt("ADD", "FP32", 1, sb(3, 8, []int{-1}, []int{8}), r8(false, 3, 0x100), r8(false, 3, 0x200)),
			want: isa.ErrBounds, field: "src0_mem_pattern", dst: sbufAddr(3, 0x200)},
		{name: "more than MaxElems elements", gen: C, text: tt("ADD", "FP32", 1, sb(0, 0, []int{0, 0, 0}, []int{4096, 4096, 2}), sb(0, 0, []int{0, 0, 0}, []int{4096, 4096, 2}), sb(0, 0, []int{0, 0, 0}, []int{4096, 4096, 2})),
			want: isa.ErrBounds, field: "src0_mem_pattern"},
		{name: "an empty dimension", gen: C, text: tt("ADD", "FP32", 1, sb(0, 0, []int{1, 1}, []int{8, 0}), r8(false, 0, 0x100), r8(false, 0, 0x200)),
			want: compute.ErrEmpty, field: "src0_mem_pattern"},
		{name: "MATMUL into SBUF", gen: C, setup: loaded, text: mm(4, 8, r8(false, 0, 0x100), r8(false, 0, 0x200)),
			want: isa.ErrBounds, field: "dst_mem_pattern", dst: sbufAddr(0, 0x200)},
		{name: "MATMUL moving from PSUM", gen: S, setup: loaded, text: mm(4, 8, r8(true, 0, 0x100), r8(true, 0, 0x200)),
			want: isa.ErrBounds, field: "src_mem_pattern", dst: psumAddr(0, 0x200)},
		{name: "MATMUL output partitions past 128", gen: C, setup: loaded, text: mm(4, 8, r8(false, 0, 0x100), r8(true, 125, 0x200)),
			want: isa.ErrBounds, field: "dst_mem_pattern", dst: psumAddr(125, 0x200)},
		{name: "MATMUL with 128 × 2^17 moving elements in flight", gen: C, setup: func(t *testing.T, e *compute.Engine, m *mem.Memory) {
			exec(t, e, m, word(t, C, "%s", ldw(C, 128, 128, sb(0, 0, []int{1}, []int{128}))))
		}, text: fmt.Sprintf("matmul %s, in_dtype=FP16, num_active_rows=128, num_active_cols=128, psum_accumulate_flags=SINGLE, %s",
			sb(0, 0, []int{0, 0}, []int{4096, 32}).text("src_mem_pattern", 3), ps(0, 0x200, []int{0, 0}, []int{4096, 32}).text("dst_mem_pattern", 3)),
			want: isa.ErrBounds, field: "src_mem_pattern", dst: psumAddr(0, 0x200)},
		{name: "LDWEIGHTS with no rows", gen: C, text: ldw(C, 0, 8, r8(false, 0, 0)), want: isa.ErrBounds, field: "num_active_rows"},
		{name: "LDWEIGHTS with 129 columns", gen: S, text: ldw(S, 1, 129, sb(0, 0, []int{1}, []int{129})), want: isa.ErrBounds, field: "num_active_cols"},
		{name: "a pointer bias past the partitions", gen: S,
			text: activateText(r8(false, 0, 0), r8(false, 0, 0x100), "FP32", "FP32", 128, 0x01, 1, "POINTER_IMMEDIATE", sbufAddr(1, 0x40)),
			want: isa.ErrBounds, field: "bias"},
		// element counts
		{name: "TENSOR_TENSOR counts", gen: C, text: tt("ADD", "FP32", 4, r8(false, 0, 0), sb(0, 0x100, []int{1}, []int{7}), r8(false, 0, 0x200)),
			want: compute.ErrMismatch, field: "src1_mem_pattern", dst: sbufAddr(0, 0x200)},
		{name: "LDWEIGHTS count ≠ num_active_cols", gen: C, text: ldw(C, 4, 9, r8(false, 0, 0)), want: compute.ErrMismatch, field: "src_mem_pattern"},
		{name: "MATMUL counts", gen: S, setup: loaded, text: mm(4, 8, r8(false, 0, 0x100), ps(0, 0x200, []int{1}, []int{9})),
			want: compute.ErrMismatch, field: "dst_mem_pattern", dst: psumAddr(0, 0x200)},
		{name: "TENSOR_REDUCE counts", gen: C, text: reduceText("tensor_reduce", sb(0, 0, []int{1, 4}, []int{4, 3}), r8(false, 0, 0x200), "FP32", "FP32", 2, "ADD", "X"),
			want: compute.ErrMismatch, field: "dst_mem_pattern", dst: sbufAddr(0, 0x200)},
		{name: "MEMSET dst_element_count", gen: C, text: "memset dst_element_count=9, dtype=FP32, num_active_channels=1, " + r8(false, 0, 0x200).text("dst_mem_pattern", 4),
			want: compute.ErrMismatch, field: "dst_element_count", dst: sbufAddr(0, 0x200)},
		{name: "ACTIVATE counts", gen: S, text: activateText(r8(false, 0, 0), sb(0, 0x200, []int{1}, []int{4}), "FP32", "FP32", 1, 0x80, 1, "INSTRUCTION_IMMEDIATE", 0),
			want: compute.ErrMismatch, field: "src_mem_pattern", dst: sbufAddr(0, 0x200)},
		// state, functions, dtypes, ops
		{name: "MATMUL before LDWEIGHTS", gen: C, text: mm(4, 8, r8(false, 0, 0x100), r8(true, 0, 0x200)), want: compute.ErrNoWeight, field: "weights", dst: psumAddr(0, 0x200)},
		{name: "unknown ACT function", gen: S, text: activateText(r8(false, 0, 0), r8(false, 0, 0x200), "FP32", "FP32", 1, 0x7f, 1, "INSTRUCTION_IMMEDIATE", 0),
			want: isa.ErrUnsupported, field: "activation_func", dst: sbufAddr(0, 0x200)},
		{name: "COPY of differing dtypes", gen: C, text: reduceText("copy", r8(false, 0, 0), r8(false, 0, 0x200), "FP32", "FP16", 1, "BYPASS", "UNUSED"),
			want: compute.ErrDType, field: "out_dtype", dst: sbufAddr(0, 0x200)},
		{name: "bitvec on FP32", gen: C, text: "tensor_tensor_bitvec_op dtype_lo=FP32, dtype_hi=FP32, out_dtype=FP32, op=BITWISE_AND, num_active_channels=1, " +
			r8(false, 0, 0).text("src0_mem_pattern", 3) + ", " + r8(false, 0, 0x100).text("src1_mem_pattern", 3) + ", " + r8(false, 0, 0x200).text("dst_mem_pattern", 3),
			want: compute.ErrDType, field: "dtype", dst: sbufAddr(0, 0x200)},
		{name: "DIVIDE_INT by zero", gen: C, setup: func(t *testing.T, _ *compute.Engine, m *mem.Memory) {
			for i := range 8 {
				putU32(t, m, sbufAddr(0, 4*i), uint32(i+1))
			}
		}, text: tt("DIVIDE_INT", "INT32", 1, r8(false, 0, 0), r8(false, 0, 0x100), r8(false, 0, 0x200)),
			want: compute.ErrDivZero, field: "op", dst: sbufAddr(0, 0x200)},
		{name: "MOD_UINT by a zero scalar", gen: C,
			text: fmt.Sprintf("tensor_scalar %s, in_dtype=INT32, out_dtype=INT32, num_active_channels=1, op0=MOD_UINT, op1=BYPASS, imm0=0, %s",
				r8(false, 0, 0).text("src_mem_pattern", 3), r8(false, 0, 0x200).text("dst_mem_pattern", 3)),
			want: compute.ErrDivZero, field: "op0", dst: sbufAddr(0, 0x200)},
		{name: "TENSOR_REDUCE with an integer-band op", gen: C, text: reduceText("tensor_reduce", sb(0, 0, []int{1, 4}, []int{4, 2}), sb(0, 0x200, []int{1}, []int{2}), "FP32", "FP32", 1, "ADD_INT", "X"),
			want: compute.ErrOp, field: "op", dst: sbufAddr(0, 0x200)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := mem.New(c.gen)
			e := compute.New(c.gen)
			if c.setup != nil {
				c.setup(t, e, m)
			}
			in := word(t, c.gen, "%s", c.text)
			var before []byte
			if c.dst != 0 {
				put(t, m, c.dst, bytes.Repeat([]byte{0xa5}, 32))
				before = get(t, m, c.dst, 32)
			}
			var err error
			func() {
				defer func() {
					if p := recover(); p != nil {
						t.Fatalf("panic: %v", p)
					}
				}()
				err = e.Exec(m, in)
			}()
			if !errors.Is(err, c.want) {
				t.Fatalf("err = %v, want %v", err, c.want)
			}
			var f *compute.Fault
			if !errors.As(err, &f) {
				t.Fatalf("%v is not a *compute.Fault", err)
			}
			if f.Mnemonic != in.Def().Mnemonic() || f.Mnemonic == "" || f.Field != c.field {
				t.Fatalf("fault %s %q, want %s %q (%v)", f.Mnemonic, f.Field, in.Def().Mnemonic(), c.field, err)
			}
			if c.dst != 0 {
				if got := get(t, m, c.dst, 32); !bytes.Equal(got, before) {
					t.Fatalf("the refused word wrote its destination: % x", got)
				}
			}
		})
	}
}

// TestNotComputeWord: a word that is not a compute word is refused with
// isa.ErrUnsupported; the NOP-like words run and change nothing.
func TestNotComputeWord(t *testing.T) {
	m := mem.New(isa.Cayman)
	e := compute.New(isa.Cayman)
	err := e.Exec(m, word(t, isa.Cayman, "nop"))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"event_semaphore wait_mode=WAIT_FOR_SEM_GE_IMM, wait_idx=5, semaphore_value=1", "activation_table_load", "set_ordering_mode"} {
		if err := e.Exec(m, word(t, isa.Cayman, "%s", s)); err != nil {
			t.Errorf("%s: %v", s, err)
		}
	}
	in := isa.New(isa.Cayman, 0xb8)
	if err := e.Exec(m, &in); !errors.Is(err, isa.ErrUnsupported) {
		t.Fatalf("opcode 0xb8: %v, want isa.ErrUnsupported", err)
	}
}
