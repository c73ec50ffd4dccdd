package compute_test

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"ndma/internal/compute"
	"ndma/internal/testutil"
	"ndma/isa"
	"ndma/mem"
)

// The DVE/ACT/POOL tensor words: each active partition runs the same
// patterns; values go through FP32 and round to the out dtype (spec §7–§10).

// fval reads the element of dtype dt at a as a float64.
func fval(t testing.TB, m *mem.Memory, dt string, a uint64) float64 {
	switch dt {
	case "FP32":
		return float64(getF32(t, m, a))
	case "FP16":
		return f16(getU16(t, m, a))
	}
	t.Fatalf("fval %s", dt)
	return 0
}

// fput writes v (representable in dt) as dtype dt at a.
func fput(t testing.TB, m *mem.Memory, dt string, a uint64, v float64) {
	switch dt {
	case "FP32":
		putF32(t, m, a, float32(v))
	case "FP16":
		putU16(t, m, a, toF16(v))
	default:
		t.Fatalf("fput %s", dt)
	}
}

// round is v (already a float32 result) rounded to dtype dt, as float64.
func round(dt string, v float64) float64 {
	v = float64(float32(v))
	if dt == "FP16" {
		return f16(toF16(v))
	}
	return v
}

// randVal is a random value of dtype dt.
func randVal(r *rand.Rand, dt string) float64 {
	if dt == "FP16" {
		return f16(randF16(r))
	}
	return float64(randF32(r, 100))
}

// same reports float equality, NaN equal to NaN and -0 to +0.
func same(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }

// TestTensorTensorArith: dst = op(src0, src1) elementwise through the dst
// pattern, src1 a per-partition broadcast (step 0) or a full tile, mixed
// FP32/FP16 operands, on random channels, start partitions and shapes.
func TestTensorTensorArith(t *testing.T) {
	ops := []struct {
		name string
		f    func(a, b float64) float64
	}{
		{"ADD", func(a, b float64) float64 { return a + b }},
		{"MULT", func(a, b float64) float64 { return a * b }},
		{"MAX", math.Max},
		{"SUBTRACT", func(a, b float64) float64 { return a - b }},
	}
	dts := []string{"FP32", "FP16"}
	for trial := range testutil.Trials(32) {
		r := rand.New(rand.NewPCG(uint64(trial), 41))
		op := ops[trial%len(ops)]
		g := []isa.Gen{isa.Cayman, isa.Sunda}[trial/4%2]
		d0, d1, dO := dts[r.IntN(2)], dts[r.IntN(2)], dts[r.IntN(2)]
		ch := 1 + r.IntN(128)
		p0 := r.IntN(128 - ch + 1)
		rows, cols := 1+r.IntN(4), 1+r.IntN(111)
		n := rows * cols
		src0 := ps(p0, 4*r.IntN(64), []int{1, cols}, []int{cols, rows})
		if d0 == "FP16" {
			src0.psum = false
		}
		src1 := sb(p0, 0x8000, []int{0, 0}, []int{cols, rows}) // the bias broadcast
		switch trial % 3 {
		case 1:
			src1 = sb(p0, 0x8000, []int{1, 0}, []int{cols, rows}) // one row, re-read per row
		case 2:
			src1 = sb(p0, 0x8000+2*n*4, []int{-1}, []int{n}) // a full tile, backwards
		}
		dst := sb(p0, 0x10000+r.IntN(16)*4, []int{1, cols + 3}, []int{cols, rows})
		name := fmt.Sprintf("%s_%s_%s%s%s_ch%d_p%d_%dx%d_k%d", g, op.name, d0, d1, dO, ch, p0, rows, cols, trial%3)
		t.Run(name, func(t *testing.T) {
			m := mem.New(g)
			e := compute.New(g)
			want := make([][]float64, ch)
			for k := range ch {
				a0, a1 := src0.byteAddrs(k, dtSize[d0]), src1.byteAddrs(k, dtSize[d1])
				x1 := map[uint64]float64{}
				for _, a := range a1 {
					if _, ok := x1[a]; !ok {
						x1[a] = randVal(r, d1)
						fput(t, m, d1, a, x1[a])
					}
				}
				want[k] = make([]float64, n)
				for i, a := range a0 {
					x := randVal(r, d0)
					fput(t, m, d0, a, x)
					want[k][i] = round(dO, op.f(x, x1[a1[i]]))
				}
			}
			exec(t, e, m, word(t, g, "tensor_tensor dtype_lo=%s, dtype_hi=%s, out_dtype=%s, op=%s, num_active_channels=%d, %s, %s, %s",
				d0, d1, dO, op.name, ch, src0.text("src0_mem_pattern", 3), src1.text("src1_mem_pattern", 3), dst.text("dst_mem_pattern", 3)))
			for k := range ch {
				for i, a := range dst.byteAddrs(k, dtSize[dO]) {
					if got := fval(t, m, dO, a); !same(got, want[k][i]) {
						t.Fatalf("partition %d element %d: %g, want %g", p0+k, i, got, want[k][i])
					}
				}
			}
		})
	}
}

// intDT is an integer dtype's element access for the tests.
type intDT struct {
	name   string
	size   int
	signed bool
}

var (
	int32DT  = intDT{"INT32", 4, true}
	uint16DT = intDT{"UINT16", 2, false}
	int16DT  = intDT{"INT16", 2, true}
	uint32DT = intDT{"UINT32", 4, false}
	int8DT   = intDT{"INT8", 1, true}
)

// bits is the element's raw bits, zero-extended.
func (d intDT) bits(t testing.TB, m *mem.Memory, a uint64) uint64 {
	b := get(t, m, a, d.size)
	var u uint64
	for i := d.size - 1; i >= 0; i-- {
		u = u<<8 | uint64(b[i])
	}
	return u
}

func (d intDT) put(t testing.TB, m *mem.Memory, a uint64, u uint64) {
	b := make([]byte, d.size)
	for i := range b {
		b[i] = byte(u >> (8 * i))
	}
	put(t, m, a, b)
}

func (d intDT) mask() uint64 { return 1<<(8*d.size) - 1 }

// value is the bits' integer value (sign-extended when signed).
func (d intDT) value(u uint64) int64 {
	if d.signed {
		sh := 64 - 8*d.size
		return int64(u<<sh) >> sh
	}
	return int64(u)
}

// TestTensorTensorInt: the integer datapath, exact where FP32 is not —
// ADD_INT of INT32 values beyond 2^24, and the bitvec word's AND, XOR and
// shifts on INT32 and UINT16 (a logical shift fills zeros within the
// element's width; an arithmetic right shift copies its sign bit).
func TestTensorTensorInt(t *testing.T) {
	w := func(d intDT, f func(a, b uint64) uint64) func(a, b uint64) uint64 {
		return func(a, b uint64) uint64 { return f(a, b) & d.mask() }
	}
	cases := []struct {
		opcode, op string
		dt         intDT
		f          func(a, b uint64) uint64 // on the elements' bits
		shift      bool                     // b is a shift count 0..width-1
	}{
		{"tensor_tensor", "ADD_INT", int32DT, func(a, b uint64) uint64 { return uint64(int32DT.value(a) + int32DT.value(b)) }, false},
		{"tensor_tensor", "SUBTRACT_INT", int32DT, func(a, b uint64) uint64 { return uint64(int32DT.value(a) - int32DT.value(b)) }, false},
		{"tensor_tensor", "DIVIDE_UINT", int32DT, func(a, b uint64) uint64 { return a / max(b, 1) }, false},
		{"tensor_tensor", "MOD_UINT", int32DT, func(a, b uint64) uint64 { return a % max(b, 1) }, false},
		{"tensor_tensor", "IS_GT_UINT", int32DT, func(a, b uint64) uint64 { return b2u(a > b) }, false},
		{"tensor_tensor", "DIVIDE_INT", int32DT, func(a, b uint64) uint64 { return uint64(int32DT.value(a) / int32DT.value(max(b, 1))) }, false},
		{"tensor_tensor", "MAX_INT", int32DT, func(a, b uint64) uint64 { return uint64(max(int32DT.value(a), int32DT.value(b))) }, false},
		{"tensor_tensor_bitvec_op", "BITWISE_AND", int32DT, func(a, b uint64) uint64 { return a & b }, false},
		{"tensor_tensor_bitvec_op", "BITWISE_XOR", int32DT, func(a, b uint64) uint64 { return a ^ b }, false},
		{"tensor_tensor_bitvec_op", "BITWISE_OR", uint16DT, func(a, b uint64) uint64 { return a | b }, false},
		{"tensor_tensor_bitvec_op", "BITWISE_XOR", uint16DT, func(a, b uint64) uint64 { return a ^ b }, false},
		{"tensor_tensor_bitvec_op", "LOGICAL_SHIFT_LEFT", int32DT, func(a, b uint64) uint64 { return a << b }, true},
		{"tensor_tensor_bitvec_op", "LOGICAL_SHIFT_RIGHT", int32DT, func(a, b uint64) uint64 { return a >> b }, true},
		{"tensor_tensor_bitvec_op", "LOGICAL_SHIFT_RIGHT", uint16DT, func(a, b uint64) uint64 { return a >> b }, true},
		{"tensor_tensor_bitvec_op", "LOGICAL_SHIFT_RIGHT", int16DT, func(a, b uint64) uint64 { return a >> b }, true},
		{"tensor_tensor_bitvec_op", "ARITH_SHIFT_RIGHT", int32DT, func(a, b uint64) uint64 { return uint64(int32DT.value(a) >> b) }, true},
		{"tensor_tensor_bitvec_op", "ARITH_SHIFT_LEFT", int32DT, func(a, b uint64) uint64 { return a << b }, true},
		{"tensor_tensor_bitvec_op", "LOGICAL_SHIFT_LEFT", uint16DT, func(a, b uint64) uint64 { return a << b }, true},
	}
	for ci, c := range cases {
		f := w(c.dt, c.f)
		t.Run(fmt.Sprintf("%s_%s", c.op, c.dt.name), func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(ci), 51))
			m := mem.New(isa.Cayman)
			e := compute.New(isa.Cayman)
			ch, p0, n := 1+r.IntN(64), r.IntN(64), 1+r.IntN(200)
			src0 := sb(p0, 0x100, []int{1}, []int{n})
			src1 := sb(p0, 0x4000, []int{1}, []int{n})
			dst := sb(p0, 0x8000, []int{1}, []int{n})
			want := make([][]uint64, ch)
			for k := range ch {
				want[k] = make([]uint64, n)
				a1 := src1.byteAddrs(k, c.dt.size)
				for i, a := range src0.byteAddrs(k, c.dt.size) {
					x, y := r.Uint64()&c.dt.mask(), r.Uint64()&c.dt.mask()
					switch {
					case c.shift:
						y = uint64(r.IntN(8 * c.dt.size))
					case c.op == "ADD_INT" || c.op == "SUBTRACT_INT": // no overflow: ±2^29
						x, y = uint64(r.Int64N(1<<30)-1<<29)&c.dt.mask(), uint64(r.Int64N(1<<30)-1<<29)&c.dt.mask()
					}
					if (y == 0 && strings.HasPrefix(c.op, "DIVIDE")) || strings.HasPrefix(c.op, "MOD") {
						y |= 1 << (r.IntN(8 * c.dt.size))
					}
					if i < 4 && c.dt.signed { // negative values with the sign bit set
						x |= 1 << (8*c.dt.size - 1)
					}
					c.dt.put(t, m, a, x)
					c.dt.put(t, m, a1[i], y)
					want[k][i] = f(x, y)
				}
			}
			exec(t, e, m, word(t, isa.Cayman, "%s dtype_lo=%s, dtype_hi=%s, out_dtype=%s, op=%s, num_active_channels=%d, %s, %s, %s",
				c.opcode, c.dt.name, c.dt.name, c.dt.name, c.op, ch, src0.text("src0_mem_pattern", 3), src1.text("src1_mem_pattern", 3), dst.text("dst_mem_pattern", 3)))
			bad := 0
			for k := range ch {
				a1 := src1.byteAddrs(k, c.dt.size)
				a0 := src0.byteAddrs(k, c.dt.size)
				for i, a := range dst.byteAddrs(k, c.dt.size) {
					if got := c.dt.bits(t, m, a); got != want[k][i] {
						if bad++; bad <= 3 {
							t.Errorf("partition %d element %d: %s(%#x, %#x) = %#x, want %#x", p0+k, i, c.op, c.dt.bits(t, m, a0[i]), c.dt.bits(t, m, a1[i]), got, want[k][i])
						}
					}
				}
			}
		})
	}
}

// TestBitvecFloatRefused: a bitvec word on FP32 operands is refused
// (ErrDType) and writes nothing; a non-bitwise op on it too (ErrOp).
func TestBitvecRefused(t *testing.T) {
	m := mem.New(isa.Cayman)
	e := compute.New(isa.Cayman)
	st, nm := row(8)
	src0, src1, dst := sb(0, 0, st, nm), sb(0, 0x100, st, nm), sb(0, 0x200, st, nm)
	for k := range 4 {
		for i := range 8 {
			putF32(t, m, src0.addr(k)+uint64(4*i), 3)
			putF32(t, m, src1.addr(k)+uint64(4*i), 5)
		}
	}
	for _, c := range []struct {
		dt, op string
		want   error
	}{
		{"FP32", "BITWISE_AND", compute.ErrDType},
		{"FP16", "BITWISE_XOR", compute.ErrDType},
		{"INT32", "ADD", compute.ErrOp},
	} {
		err := e.Exec(m, word(t, isa.Cayman, "tensor_tensor_bitvec_op dtype_lo=%s, dtype_hi=%s, out_dtype=%s, op=%s, num_active_channels=4, %s, %s, %s",
			c.dt, c.dt, c.dt, c.op, src0.text("src0_mem_pattern", 3), src1.text("src1_mem_pattern", 3), dst.text("dst_mem_pattern", 3)))
		if !errors.Is(err, c.want) {
			t.Errorf("%s on %s: %v, want %v", c.op, c.dt, err, c.want)
		}
		for k := range 4 {
			if b := get(t, m, dst.addr(k), 32); binary.LittleEndian.Uint64(b)|binary.LittleEndian.Uint64(b[24:]) != 0 {
				t.Errorf("%s on %s wrote partition %d: % x", c.op, c.dt, k, b)
			}
		}
	}
}

// TestTensorScalar: out = op1(op0(x, s0), s1), each op in FP32, with
// reverse_operands swapping op0's operands (FIRST), op1's (SECOND) or both;
// immediate scalars, and a pointer s0 read in each partition.
func TestTensorScalar(t *testing.T) {
	ops := map[string]func(a, b float32) float32{
		"ADD": func(a, b float32) float32 { return a + b }, "SUBTRACT": func(a, b float32) float32 { return a - b },
		"MULT": func(a, b float32) float32 { return a * b }, "MAX": func(a, b float32) float32 { return float32(math.Max(float64(a), float64(b))) },
		"MIN":    func(a, b float32) float32 { return float32(math.Min(float64(a), float64(b))) },
		"BYPASS": func(a, _ float32) float32 { return a },
	}
	for _, c := range []struct {
		op0, op1, rev string
		ptr           bool
		in, out       string
	}{
		{"MULT", "ADD", "NONE", false, "FP32", "FP32"},
		{"SUBTRACT", "BYPASS", "FIRST", false, "FP32", "FP32"}, // s0 − x
		{"SUBTRACT", "SUBTRACT", "NONE", false, "FP32", "FP32"},
		{"SUBTRACT", "SUBTRACT", "SECOND", false, "FP32", "FP16"},
		{"SUBTRACT", "SUBTRACT", "BOTH", false, "FP16", "FP32"},
		{"MAX", "MIN", "NONE", false, "FP32", "FP32"}, // a clamp
		{"MULT", "ADD", "NONE", true, "FP32", "FP32"},
		{"SUBTRACT", "MULT", "FIRST", true, "FP16", "FP16"},
	} {
		t.Run(fmt.Sprintf("%s_%s_%s_ptr%v_%s%s", c.op0, c.op1, c.rev, c.ptr, c.in, c.out), func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(len(c.op0)), uint64(len(c.op1)+len(c.rev))))
			m := mem.New(isa.Cayman)
			e := compute.New(isa.Cayman)
			ch, p0, n := 1+r.IntN(100), 1+r.IntN(20), 1+r.IntN(300)
			src := sb(p0, 0x200, []int{2}, []int{n})
			dst := sb(p0, 0x4000, []int{1}, []int{n})
			s0, s1 := randF32(r, 4), randF32(r, 4)
			imm0, src0 := fmt.Sprint(f32bits(s0)), "INSTRUCTION_IMMEDIATE"
			ptrOff := 0x3000
			if c.ptr {
				imm0, src0 = fmt.Sprintf("%#x", sbufAddr(0, ptrOff)), "POINTER_IMMEDIATE"
			}
			want := make([][]float64, ch)
			rev0, rev1 := c.rev == "FIRST" || c.rev == "BOTH", c.rev == "SECOND" || c.rev == "BOTH"
			apply := func(f func(a, b float32) float32, x, s float32, rev bool) float32 {
				if rev {
					return f(s, x)
				}
				return f(x, s)
			}
			for k := range ch {
				s := s0
				if c.ptr {
					s = randF32(r, 4)
					putF32(t, m, sbufAddr(p0+k, ptrOff), s)
				}
				want[k] = make([]float64, n)
				for i, a := range src.byteAddrs(k, dtSize[c.in]) {
					x := randVal(r, c.in)
					fput(t, m, c.in, a, x)
					y := apply(ops[c.op1], apply(ops[c.op0], float32(x), s, rev0), s1, rev1)
					want[k][i] = round(c.out, float64(y))
				}
			}
			exec(t, e, m, word(t, isa.Cayman, "tensor_scalar %s, in_dtype=%s, out_dtype=%s, num_active_channels=%d, imm0_src=%s, op0=%s, op1=%s, reverse_operands=%s, imm1_src=INSTRUCTION_IMMEDIATE, imm0=%s, imm1=%s, %s",
				src.text("src_mem_pattern", 3), c.in, c.out, ch, src0, c.op0, c.op1, c.rev, imm0, f32bits(s1), dst.text("dst_mem_pattern", 3)))
			for k := range ch {
				for i, a := range dst.byteAddrs(k, dtSize[c.out]) {
					if got := fval(t, m, c.out, a); !same(got, want[k][i]) {
						t.Fatalf("partition %d element %d: %g, want %g", p0+k, i, got, want[k][i])
					}
				}
			}
		})
	}
}

// TestTensorScalarReversedSubtract pins one reading by hand: SUBTRACT with
// reverse_operands FIRST is s − x.
func TestTensorScalarReversedSubtract(t *testing.T) {
	m := mem.New(isa.Sunda)
	e := compute.New(isa.Sunda)
	src, dst := sb(9, 0, []int{1}, []int{3}), sb(9, 0x40, []int{1}, []int{3})
	for i, v := range []float32{1, 2.5, -4} {
		putF32(t, m, src.addr(0)+uint64(4*i), v)
	}
	exec(t, e, m, word(t, isa.Sunda, "tensor_scalar %s, in_dtype=FP32, out_dtype=FP32, num_active_channels=1, op0=SUBTRACT, op1=MULT, reverse_operands=FIRST, imm0=%s, imm1=%s, %s",
		src.text("src_mem_pattern", 3), f32bits(10), f32bits(2), dst.text("dst_mem_pattern", 3)))
	for i, want := range []float32{18, 15, 28} { // (10 − x)·2
		if got := getF32(t, m, dst.addr(0)+uint64(4*i)); got != want {
			t.Errorf("element %d: %g, want %g", i, got, want)
		}
	}
}

// reduceText is a TENSOR_REDUCE/COPY/CAST word.
func reduceText(mn string, src, dst pat, in, out string, ch int, op, dim string) string {
	return fmt.Sprintf("%s %s, in_dtype=%s, out_dtype=%s, num_active_channels=%d, op=%s, op_dim=%s, %s",
		mn, src.text("src_mem_pattern", 4), in, out, ch, op, dim, dst.text("dst_mem_pattern", 4))
}

// TestTensorReduce: the trn1 2×2 max-pool (src num [2,2,111,1], steps
// [1,222,2,1] over two 222-element FP32 rows, XY reduced), and ADD over X
// (row sums) into FP16.
func TestTensorReduce(t *testing.T) {
	t.Run("maxpool", func(t *testing.T) {
		r := rand.New(rand.NewPCG(2, 2))
		m := mem.New(isa.Sunda)
		e := compute.New(isa.Sunda)
		src := ps(0, 0x378, []int{1, 222, 2, 1}, []int{2, 2, 111, 1})
		dst := sb(0, 0x1000, []int{1}, []int{111})
		want := make([][]float64, 128)
		for k := range 128 {
			tile := make([]float64, 444)
			for i := range tile {
				tile[i] = float64(randF32(r, 50))
				putF32(t, m, psumAddr(k, 0x378+4*i), float32(tile[i]))
			}
			want[k] = make([]float64, 111)
			for j := range 111 {
				want[k][j] = math.Max(math.Max(tile[2*j], tile[2*j+1]), math.Max(tile[222+2*j], tile[222+2*j+1]))
			}
		}
		exec(t, e, m, word(t, isa.Sunda, "%s", reduceText("tensor_reduce", src, dst, "FP32", "FP32", 128, "MAX", "XY")))
		for k := range 128 {
			for j, a := range dst.byteAddrs(k, 4) {
				if got := float64(getF32(t, m, a)); got != want[k][j] {
					t.Fatalf("partition %d window %d: %g, want %g", k, j, got, want[k][j])
				}
			}
		}
	})
	t.Run("add_x", func(t *testing.T) {
		r := rand.New(rand.NewPCG(3, 3))
		m := mem.New(isa.Cayman)
		e := compute.New(isa.Cayman)
		const X, Y, Z = 16, 5, 3
		ch, p0 := 20, 100
		src := sb(p0, 0x800, []int{1, X, X * Y}, []int{X, Y, Z})
		dst := sb(p0, 0x2000, []int{1, Y}, []int{Y, Z})
		for k := range ch {
			for _, a := range src.byteAddrs(k, 4) {
				putF32(t, m, a, randF32(r, 10))
			}
		}
		exec(t, e, m, word(t, isa.Cayman, "%s", reduceText("tensor_reduce", src, dst, "FP32", "FP16", ch, "ADD", "X")))
		for k := range ch {
			sa := src.byteAddrs(k, 4)
			for j, a := range dst.byteAddrs(k, 2) {
				var sum, abs float64
				for i := range X {
					v := float64(getF32(t, m, sa[j*X+i]))
					sum, abs = sum+v, abs+math.Abs(v)
				}
				got := f16(getU16(t, m, a))
				// FP32 summation, then one FP16 rounding: within half an FP16 ulp plus the FP32 error
				if d := math.Abs(got - sum); d > math.Abs(sum)/2048+1e-6*abs {
					t.Fatalf("partition %d group %d: %g, want %g", p0+k, j, got, sum)
				}
			}
		}
	})
}

// TestCopy: COPY moves the bytes of its dtype bit-exactly — an INT32 copy
// of packed FP16 pairs out of PSUM (matmul_small's eviction of two
// transposes), and FP16 NaN payloads through a strided destination.
func TestCopy(t *testing.T) {
	r := rand.New(rand.NewPCG(46, 46))
	m := mem.New(isa.Cayman)
	e := compute.New(isa.Cayman)
	src := ps(0, 0, []int{1}, []int{128})
	dst := sb(0, 0x2000, []int{1}, []int{128})
	want := make([][]byte, 128)
	for k := range 128 {
		want[k] = make([]byte, 512)
		for i := range 256 {
			h := uint16(r.Uint32())
			if i%7 == 0 {
				h = 0x7c01 | uint16(r.IntN(0x3ff)) // a NaN payload
			}
			binary.LittleEndian.PutUint16(want[k][2*i:], h)
		}
		put(t, m, src.addr(k), want[k])
	}
	exec(t, e, m, word(t, isa.Cayman, "%s", reduceText("copy", src, dst, "INT32", "INT32", 128, "BYPASS", "UNUSED")))
	for k := range 128 {
		if got := get(t, m, dst.addr(k), 512); string(got) != string(want[k]) {
			t.Fatalf("partition %d: % x…, want % x…", k, got[:16], want[k][:16])
		}
	}
	// FP16 with NaN payloads, read backwards, written with step 9
	src2 := sb(3, 0x2000+2*255, []int{-1}, []int{256})
	dst2 := sb(3, 0x8000, []int{9}, []int{256})
	exec(t, e, m, word(t, isa.Cayman, "%s", reduceText("copy", src2, dst2, "FP16", "FP16", 5, "BYPASS", "X")))
	for k := range 5 {
		da := dst2.byteAddrs(k, 2)
		for i, a := range src2.byteAddrs(k, 2) {
			if got, w := getU16(t, m, da[i]), getU16(t, m, a); got != w {
				t.Fatalf("partition %d element %d: %#04x, want %#04x", 3+k, i, got, w)
			}
		}
	}
}

// TestCast: CAST converts through FP32 — to FP16 rounding to nearest even
// (exact halfway values), to INT8 saturating; FP16 → FP32 exactly.
func TestCast(t *testing.T) {
	m := mem.New(isa.Cayman)
	e := compute.New(isa.Cayman)
	type pair struct {
		in   float32
		want uint64
	}
	for _, c := range []struct {
		out   intDT
		name  string
		pairs []pair
	}{
		{intDT{"FP16", 2, false}, "FP16", []pair{
			{1 + 1.0/2048, 0x3c00}, {1 + 3.0/2048, 0x3c02}, {-(1 + 1.0/2048), 0xbc00}, {2049, 0x6800}, {2051, 0x6802},
			{65504, 0x7bff}, {65519.99, 0x7bff}, {65520, 0x7c00}, {1e9, 0x7c00}, {-1e9, 0xfc00},
			{float32(math.Ldexp(1, -25)), 0}, {float32(math.Ldexp(3, -25)), 2}, {float32(math.Ldexp(1, -24)), 1},
			{float32(math.Inf(1)), 0x7c00}, {0.1, 0x2e66}}},
		{int8DT, "INT8", []pair{{300, 127}, {-300, 0x80}, {127, 127}, {-128, 0x80}, {128, 127}, {-129, 0x80}, {5, 5}, {-7, 0xf9}, {1e30, 127}, {-1e30, 0x80}, {0, 0}}},
		{uint16DT, "UINT16", []pair{{70000, 0xffff}, {65535, 0xffff}, {-5, 0}, {1234, 1234}}},
		{int32DT, "INT32", []pair{{3e9, 0x7fffffff}, {-3e9, 0x80000000}, {-65536, 0xffff0000}, {16777216, 16777216}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			n := len(c.pairs)
			for _, p := range c.pairs {
				if c.name == "FP16" && uint64(toF16(float64(p.in))) != p.want { // the table agrees with the test's codec
					t.Fatalf("table: fp16(%g) = %#x by the codec", p.in, toF16(float64(p.in)))
				}
			}
			src, dst := sb(7, 0x100, []int{1}, []int{n}), sb(7, 0x400, []int{1}, []int{n})
			for k := range 2 {
				for i, a := range src.byteAddrs(k, 4) {
					putF32(t, m, a, c.pairs[i].in)
				}
			}
			exec(t, e, m, word(t, isa.Cayman, "%s", reduceText("cast", src, dst, "FP32", c.name, 2, "BYPASS", "UNUSED")))
			for k := range 2 {
				for i, a := range dst.byteAddrs(k, c.out.size) {
					if got := c.out.bits(t, m, a); got != c.pairs[i].want {
						t.Errorf("cast %g to %s = %#x, want %#x", c.pairs[i].in, c.name, got, c.pairs[i].want)
					}
				}
			}
		})
	}
	t.Run("FP16toFP32", func(t *testing.T) {
		src, dst := sb(0, 0, []int{1}, []int{0x7c00}), sb(0, 0x10000, []int{1}, []int{0x7c00})
		b := make([]byte, 2*0x7c00)
		for h := range 0x7c00 {
			binary.LittleEndian.PutUint16(b[2*h:], uint16(h))
		}
		put(t, m, src.addr(0), b)
		exec(t, e, m, word(t, isa.Cayman, "%s", reduceText("cast", src, dst, "FP16", "FP32", 1, "BYPASS", "UNUSED")))
		out := get(t, m, dst.addr(0), 4*0x7c00)
		for h := range 0x7c00 {
			if got := float64(math.Float32frombits(binary.LittleEndian.Uint32(out[4*h:]))); got != f16(uint16(h)) {
				t.Fatalf("fp16 %#04x → %g, want %g", h, got, f16(uint16(h)))
			}
		}
	})
}

// TestMemset: the fill value into every element of the dst pattern of
// each active partition — zeros and 1.0 for FP32 (its bits) and FP16 (the
// FP32 value 1.0 rounded: 0x3c00), in SBUF and PSUM; what lies between the
// pattern's elements is left alone.
func TestMemset(t *testing.T) {
	for _, c := range []struct {
		dt   string
		fill uint32
		want uint32
		psum bool
	}{
		{"FP32", 0, 0, true},
		{"FP32", 0x3f800000, 0x3f800000, false},
		{"FP16", 0, 0, false},
		{"FP16", 0x3f800000, 0x3c00, true},
	} {
		t.Run(fmt.Sprintf("%s_%#x", c.dt, c.fill), func(t *testing.T) {
			m := mem.New(isa.Sunda)
			e := compute.New(isa.Sunda)
			sz := dtSize[c.dt]
			dst := sb(10, 0x100, []int{2, 50}, []int{20, 3})
			if c.psum {
				dst.psum = true
			}
			ch := 64
			for k := range ch + 2 {
				put(t, m, dst.addr(k-1), bytesOf(0x5a, 160*sz))
			}
			exec(t, e, m, word(t, isa.Sunda, "memset dst_element_count=%d, dtype=%s, num_active_channels=%d, fill_value=%#x, %s",
				dst.count(), c.dt, ch, c.fill, dst.text("dst_mem_pattern", 4)))
			for k := -1; k <= ch; k++ {
				in := map[uint64]bool{}
				if k >= 0 && k < ch {
					for _, a := range dst.byteAddrs(k, sz) {
						in[a] = true
					}
				}
				for o := 0; o < 160*sz; o += sz {
					a := dst.addr(k) + uint64(o)
					got := uint32(intDT{c.dt, sz, false}.bits(t, m, a))
					want := uint32(0x5a5a5a5a) & (1<<(8*sz) - 1)
					if in[a] {
						want = c.want
					}
					if got != want {
						t.Fatalf("partition %d byte %d: %#x, want %#x (in the pattern: %v)", 10+k, o, got, want, in[a])
					}
				}
			}
		})
	}
}

func bytesOf(b byte, n int) []byte {
	s := make([]byte, n)
	for i := range s {
		s[i] = b
	}
	return s
}

// TestTensorScalarInt: TENSOR_SCALAR on integer elements (the bitvec word,
// and the arith word's integer band) with 32-bit immediate scalars — a
// logical right shift of negative INT32 elements fills zeros, reversed it
// shifts the scalar by each element; the _UINT ops read the bits unsigned.
func TestTensorScalarInt(t *testing.T) {
	for ci, c := range []struct {
		dt            intDT
		op0, op1, rev string
		imm0, imm1    uint32
		shiftElems    bool // elements are shift counts (1..31)
		f             func(x uint64) uint64
		opcode        string // tensor_scalar_bitvec_op when empty
	}{
		{int32DT, "LOGICAL_SHIFT_RIGHT", "BITWISE_AND", "NONE", 4, 0x0fff00ff, false, func(x uint64) uint64 { return x >> 4 & 0x0fff00ff }, ""},
		{int32DT, "BITWISE_XOR", "LOGICAL_SHIFT_RIGHT", "NONE", 0x80000001, 7, false, func(x uint64) uint64 { return (x ^ 0x80000001) >> 7 }, ""},
		{int32DT, "LOGICAL_SHIFT_RIGHT", "BYPASS", "FIRST", 0xf0000000, 0, true, func(x uint64) uint64 { return 0xf0000000 >> x }, ""},
		{int32DT, "ARITH_SHIFT_RIGHT", "BYPASS", "NONE", 9, 0, false, func(x uint64) uint64 { return uint64(int32DT.value(x)>>9) & 0xffffffff }, ""},
		{uint16DT, "BITWISE_XOR", "LOGICAL_SHIFT_LEFT", "NONE", 0xffff, 3, false, func(x uint64) uint64 { return (x ^ 0xffff) << 3 & 0xffff }, ""},
		{uint16DT, "BITWISE_OR", "LOGICAL_SHIFT_RIGHT", "NONE", 0x8000, 15, false, func(x uint64) uint64 { return 1 }, ""},
		// the integer band on the arith word: unsigned ops read INT32 bits as unsigned
		{int32DT, "DIVIDE_UINT", "BYPASS", "NONE", 3, 0, false, func(x uint64) uint64 { return x / 3 }, "tensor_scalar"},
		{int32DT, "MOD_UINT", "ADD_INT", "FIRST", 0xfffffff0, 5, true, func(x uint64) uint64 { return 0xfffffff0%x + 5 }, "tensor_scalar"},
		{int32DT, "DIVIDE_INT", "MULT_INT", "NONE", 0xfffffffd, 2, false, func(x uint64) uint64 { return uint64(int32DT.value(x) / -3 * 2) }, "tensor_scalar"},
	} {
		if c.opcode == "" {
			c.opcode = "tensor_scalar_bitvec_op"
		}
		t.Run(fmt.Sprintf("%s_%s_%s_%s", c.dt.name, c.op0, c.op1, c.rev), func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(ci), 53))
			m := mem.New(isa.Cayman)
			e := compute.New(isa.Cayman)
			ch, p0, n := 1+r.IntN(60), r.IntN(60), 1+r.IntN(100)
			src, dst := sb(p0, 0x40, []int{1}, []int{n}), sb(p0, 0x1000, []int{1}, []int{n})
			want := make([][]uint64, ch)
			for k := range ch {
				want[k] = make([]uint64, n)
				for i, a := range src.byteAddrs(k, c.dt.size) {
					x := r.Uint64() & c.dt.mask()
					if c.shiftElems {
						x = uint64(1 + r.IntN(31))
					} else if i%2 == 0 {
						x |= 1 << (8*c.dt.size - 1)
					}
					c.dt.put(t, m, a, x)
					want[k][i] = c.f(x) & c.dt.mask()
				}
			}
			exec(t, e, m, word(t, isa.Cayman, "%s %s, in_dtype=%s, out_dtype=%s, num_active_channels=%d, op0=%s, op1=%s, reverse_operands=%s, imm0=%#x, imm1=%#x, %s",
				c.opcode, src.text("src_mem_pattern", 3), c.dt.name, c.dt.name, ch, c.op0, c.op1, c.rev, c.imm0, c.imm1, dst.text("dst_mem_pattern", 3)))
			for k := range ch {
				sa := src.byteAddrs(k, c.dt.size)
				for i, a := range dst.byteAddrs(k, c.dt.size) {
					if got := c.dt.bits(t, m, a); got != want[k][i] {
						t.Fatalf("partition %d element %d: f(%#x) = %#x, want %#x", p0+k, i, c.dt.bits(t, m, sa[i]), got, want[k][i])
					}
				}
			}
		})
	}
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// Check (neff check's dry run) refuses the op pairs Exec refuses: an op
// with no form in the word's datapath (CRC32 in either; a float op after an
// integer one) once passed Check and failed only when run (issue 30).
func TestCheckTensorScalarOps(t *testing.T) {
	src, dst := sb(0, 0, []int{1}, []int{4}), sb(0, 0x40, []int{1}, []int{4})
	for _, tc := range []struct {
		op0, op1 string
		bad      bool
	}{
		{"ADD", "MULT", false},
		{"ADD_INT", "MULT_INT", false},
		{"CRC32", "BYPASS", true},
		{"ADD", "CRC32", true},
		{"ADD_INT", "ADD", true},
		{"ADD", "ADD_INT", true},
	} {
		dt := "FP32"
		if strings.HasSuffix(tc.op0, "_INT") || strings.HasSuffix(tc.op1, "_INT") {
			dt = "INT32"
		}
		in := word(t, isa.Cayman, "tensor_scalar %s, in_dtype=%s, out_dtype=%s, num_active_channels=1, op0=%s, op1=%s, imm0=0x1, imm1=0x2, %s",
			src.text("src_mem_pattern", 3), dt, dt, tc.op0, tc.op1, dst.text("dst_mem_pattern", 3))
		err := compute.Check(isa.Cayman, in)
		if tc.bad != errors.Is(err, compute.ErrOp) {
			t.Errorf("%s, %s: Check = %v, want ErrOp: %v", tc.op0, tc.op1, err, tc.bad)
		}
		runErr := compute.New(isa.Cayman).Exec(mem.New(isa.Cayman), in)
		if errors.Is(runErr, compute.ErrOp) != errors.Is(err, compute.ErrOp) {
			t.Errorf("%s, %s: Check says %v, Exec %v", tc.op0, tc.op1, err, runErr)
		}
	}
}
