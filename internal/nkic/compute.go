package nkic

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/big"
	"strings"
	"sync"

	"ndma/dtype"
	"ndma/internal/compute"
	"ndma/isa"
)

// Compute calls (docs/nki.md "Compute"): those whose words ndma can form
// run as internal/compute's words (exact: the engines' own numerics;
// matmul and the PE transpose as LDWEIGHTS and MATMUL, matmul.go); the
// others — iota, a transpose without an identity tile — run as Go loops
// in float32, flagged not exact.

// aluOps are NKI's operator names and the ALU_OP each is (docs/compute.md §2).
var aluOps = map[string]isa.ALUOpCode{
	"add": isa.ALUOpAdd, "subtract": isa.ALUOpSubtract, "multiply": isa.ALUOpMult, "divide": isa.ALUOpDivide,
	"maximum": isa.ALUOpMax, "max": isa.ALUOpMax, "minimum": isa.ALUOpMin, "min": isa.ALUOpMin,
	"bypass": isa.ALUOpBypass, "equal": isa.ALUOpIsEQ, "not_equal": isa.ALUOpIsNE, "greater": isa.ALUOpIsGT,
	"greater_equal": isa.ALUOpIsGE, "less": isa.ALUOpIsLT, "less_equal": isa.ALUOpIsLE,
	"bitwise_and": isa.ALUOpBitwiseAnd, "bitwise_or": isa.ALUOpBitwiseOr, "bitwise_xor": isa.ALUOpBitwiseXor,
	"abs": isa.ALUOpAbsoluteValue, "power": isa.ALUOpPow, "mod": isa.ALUOpMod, "fmod": isa.ALUOpMod,
	"logical_and": isa.ALUOpLogicalAnd, "logical_or": isa.ALUOpLogicalOr, "logical_xor": isa.ALUOpLogicalXor,
	"left_shift": isa.ALUOpArithShiftLeft, "right_shift": isa.ALUOpArithShiftRight,
}

func aluOp(name string) (isa.ALUOpCode, error) {
	n := strings.TrimPrefix(strings.TrimPrefix(name, "nl."), "np.")
	if op, ok := aluOps[n]; ok {
		return op, nil
	}
	return 0, illegal("operator %q is not one ndma computes (add, subtract, multiply, divide, maximum, minimum, comparisons, bitwise ops)", name)
}

// actFunc is the activation_func byte of an NKI activation name (the
// functions internal/compute runs: one list, compute.ActFuncs).
func actFunc(name string) (uint8, error) {
	n := strings.TrimPrefix(strings.TrimPrefix(name, "nl."), "np.")
	switch n {
	case "copy", "":
		n = "identity"
	case "gelu_apprx_tanh":
	case "log":
		n = "ln"
	case "erf_dx", "gelu_dx", "silu_dx", "gelu_apprx_sigmoid_dx": // nl's names of the derivatives
		n = "derivative_" + strings.TrimSuffix(n, "_dx")
	}
	for _, f := range compute.ActFuncs() {
		if f.Name == n {
			return f.Code, nil
		}
	}
	return 0, illegal("activation %q is not one ndma computes (docs/compute.md §14 lists them)", name)
}

// cpat is a compute operand: its start, partitions and free pattern in
// elements (innermost first).
type cpat struct {
	addr  uint64
	ch    int64
	steps []int64
	nums  []int64
}

func (c cpat) elems() int64 {
	n := int64(1)
	for _, v := range c.nums {
		n *= v
	}
	return n
}

// operand is an on-chip leg as a compute pattern of at most dims free
// dimensions: the partition dimension steps one partition.
func (p *Program) operand(l *leg, dims int) (cpat, error) {
	if !l.t.chip {
		return cpat{}, illegal("%q is in %s: compute engines read and write SBUF/PSUM", l.t.Name, l.t.Buffer)
	}
	if l.ind >= 0 || l.dynamic {
		return cpat{}, illegal("%q: a compute operand has no vector or scalar offset", l.t.Name)
	}
	stride := p.partStride(l.t)
	c := cpat{addr: l.addr, ch: 1}
	for _, d := range l.dims {
		switch {
		case d.n == 1:
		case d.step == stride && c.ch == 1:
			c.ch = d.n
		case d.step%l.esize == 0 && (d.step < stride && d.step > -stride):
			c.steps, c.nums = append(c.steps, d.step/l.esize), append(c.nums, d.n)
		default:
			return cpat{}, illegal("%q: a compute operand steps one partition at a time (step %d bytes)", l.t.Name, d.step)
		}
	}
	// merge contiguous free dims
	var s, n []int64
	for i := range c.steps {
		if k := len(s) - 1; k >= 0 && c.steps[i] == s[k]*n[k] {
			n[k] *= c.nums[i]
			continue
		}
		s, n = append(s, c.steps[i]), append(n, c.nums[i])
	}
	if len(s) > dims {
		return cpat{}, illegal("%q: %d free dimensions: the word's pattern holds %d", l.t.Name, len(s), dims)
	}
	for len(s) < dims {
		s, n = append(s, 0), append(n, 1)
	}
	for i := range s {
		if s[i] < math.MinInt16 || s[i] > math.MaxInt16 || n[i] > 0xffff {
			return cpat{}, illegal("%q: step %d × %d elements: the pattern's fields are 16-bit", l.t.Name, s[i], n[i])
		}
	}
	c.steps, c.nums = s, n
	return c, nil
}

// setPattern writes a pattern's fields under prefix (e.g. "src_mem_pattern").
func setPattern(in *isa.Inst, prefix string, c cpat) error {
	names := patternFields(prefix, len(c.steps))
	errs := []error{in.Set(names[0], int64(c.addr))}
	for i := range c.steps {
		errs = append(errs, in.Set(names[1+2*i], c.steps[i]), in.Set(names[2+2*i], c.nums[i]))
	}
	return errors.Join(errs...)
}

// patternNames holds, per prefix, a pattern's field names: start_addr,
// then step_elem[i] and num_elem[i] per dimension (made once: formatting
// them per call cost ~5% of a session's compile time).
var patternNames sync.Map // prefix → []string

func patternFields(prefix string, dims int) []string {
	if v, ok := patternNames.Load(prefix); ok {
		if names := v.([]string); len(names) >= 1+2*dims {
			return names
		}
	}
	names := []string{prefix + ".start_addr"}
	for i := range max(dims, 5) {
		names = append(names, fmt.Sprintf("%s.step_elem[%d]", prefix, i), fmt.Sprintf("%s.num_elem[%d]", prefix, i))
	}
	patternNames.Store(prefix, names)
	return names
}

func f32bits(v float64) int64 { return int64(math.Float32bits(float32(v))) }

// compiler compiles one kind of compute call into lw.
type compiler func(p *Program, lw *Lowered, c *Call, dst *leg) (*Lowered, error)

// loopOps are the compute calls that are not one word of computeWord's: the
// PE's word sequences (matmul.go), reductions (reduce.go) and the Go loops
// (stats.go, selects.go, random.go, unary.go, gather.go), by op — with
// computeWord's ops and random_seed, every compute op checkCall accepts.
var loopOps = map[string]compiler{
	"matmul": (*Program).compileMatmul, "nc_matmul": (*Program).compileMatmul,
	"identity":  func(p *Program, lw *Lowered, _ *Call, dst *leg) (*Lowered, error) { return p.compileIdentity(lw, dst) },
	"transpose": (*Program).fallback, "nc_transpose": (*Program).fallback, "iota": (*Program).fallback,
	"tensor_reduce": (*Program).compileReduce,
	"bn_stats":      (*Program).compileStats, "bn_aggr": (*Program).compileStats,
	"tensor_tensor_scan": (*Program).compileStats, "scalar_tensor_tensor": (*Program).compileStats,
	"select": (*Program).compileSelect, "tensor_copy_predicated": (*Program).compileSelect,
	"affine_select": (*Program).compileSelect, "max8": (*Program).compileSelect, "nc_find_index8": (*Program).compileSelect,
	"rand": (*Program).compileRand, "dropout": (*Program).compileDropout,
	"rng": (*Program).compileRng, "rand2": (*Program).compileRand2,
	"elementwise":  (*Program).compileElementwise,
	"range_select": (*Program).compileRangeSelect, "select_reduce": (*Program).compileSelectReduce,
	"nc_match_replace8": (*Program).compileMatchReplace8, "gather_flattened": (*Program).compileGatherFlattened,
}

// wordOps are the compute calls computeWord forms one word for, and how
// many source operands each takes.
var wordOps = map[string]int{"memset": 0, "tensor_copy": 1, "copy": 1, "tensor_tensor": 2, "tensor_scalar": 1, "activation": 1}

// compileComputeCall compiles a compute call.
func (p *Program) compileComputeCall(c *Call) (*Lowered, error) {
	lw := &Lowered{Call: c, Exact: true}
	if c.Op == "random_seed" { // no dst: it reseeds the run's stream (random.go)
		return p.compileRandomSeed(lw, c)
	}
	if c.Dst == nil {
		return nil, progErr("%s needs a dst", c.Op)
	}
	dst, err := p.resolve(c.Dst, "dst")
	if err != nil {
		return nil, err
	}
	if f := loopOps[c.Op]; f != nil {
		return f(p, lw, c, dst)
	}
	ls, err := p.sources(c)
	if err != nil {
		return nil, err
	}
	for k, l := range ls {
		if l.elems != dst.elems {
			return nil, progErr("srcs[%d] has %d elements, dst %d", k, l.elems, dst.elems)
		}
	}
	word, engine, err := p.computeWord(c, dst, ls)
	if err != nil {
		return nil, err
	}
	lw.Run, lw.Words, lw.Engine, lw.Bytes = []isa.Inst{word}, []isa.Inst{word}, engine, dst.elems*dst.esize
	lw.ns = p.wordNS(engine, &word)
	return lw, nil
}

// sources are a call's source operands resolved: src, then srcs.
func (p *Program) sources(c *Call) ([]*leg, error) {
	var ls []*leg
	for k, a := range c.sourceAPs() {
		l, err := p.resolve(a, fmt.Sprintf("srcs[%d]", k))
		if err != nil {
			return nil, err
		}
		ls = append(ls, l)
	}
	return ls, nil
}

// computeWord forms the word of a compute call the engines run.
func (p *Program) computeWord(c *Call, dst *leg, srcs []*leg) (isa.Inst, string, error) {
	need := wordOps[c.Op]
	if len(srcs) != need {
		return isa.Inst{}, "", progErr("%s takes %d source operands, %d given", c.Op, need, len(srcs))
	}
	var errs []error
	var w isa.Inst
	set := func(path string, v int64) { errs = append(errs, w.Set(path, v)) }
	dims := 3
	switch c.Op {
	case "memset", "tensor_copy", "copy":
		dims = 4
	}
	d, err := p.operand(dst, dims)
	if err != nil {
		return w, "", err
	}
	var s []cpat
	for _, l := range srcs {
		sp, err := p.operand(l, dims)
		if err != nil {
			return w, "", err
		}
		if sp.ch != d.ch {
			return w, "", illegal("a source spans %d partitions, the dst %d: compute engines work partition for partition", sp.ch, d.ch)
		}
		s = append(s, sp)
	}
	engine := "vector (DVE)"
	switch c.Op {
	case "memset":
		if c.Value == nil {
			return w, "", progErr("memset needs a value")
		}
		w = isa.New(p.gen, compute.OpMemset)
		fill := int64(math.Float32bits(float32(*c.Value)))
		if !dst.dt.IsFloat() {
			fill = int64(uint32(int32(*c.Value)))
		}
		set("dst_element_count", d.elems())
		set("dtype", int64(dst.dt))
		set("fill_value", fill)
		engine = "gpsimd (POOL)"
	case "tensor_copy", "copy":
		op := compute.OpCopy
		if srcs[0].dt != dst.dt {
			op = compute.OpCast
		}
		w = isa.New(p.gen, op)
		set("in_dtype", int64(srcs[0].dt))
		set("out_dtype", int64(dst.dt))
		errs = append(errs, setPattern(&w, "src_mem_pattern", s[0]))
	case "tensor_tensor":
		op, err := aluOp(c.ALUOp)
		if err != nil {
			return w, "", err
		}
		w = isa.New(p.gen, compute.OpTensorTensor)
		set("in_dtype.dtype_lo", int64(srcs[0].dt))
		set("in_dtype.dtype_hi", int64(srcs[1].dt))
		set("out_dtype", int64(dst.dt))
		set("op", int64(op))
		errs = append(errs, setPattern(&w, "src0_mem_pattern", s[0]), setPattern(&w, "src1_mem_pattern", s[1]))
	case "tensor_scalar":
		op0, err := aluOp(c.ALUOp)
		if err != nil {
			return w, "", err
		}
		w = isa.New(p.gen, compute.OpTensorScalar)
		// each operand an immediate or a per-partition (P, 1) float32 tile (scalars.go)
		imm := func(k int, v *float64, tile *AP) error {
			field, src := "imm0", "imm0_src"
			if k == 1 {
				field, src = "imm1", "imm1_src"
			}
			if tile != nil {
				ptr, _, err := p.scalarPtr(tile, "operand"+field[3:]+" tile", srcs[0], s[0].ch, dtype.FP32)
				if err != nil {
					return err
				}
				set(src, int64(isa.ImmSrcPointerImmediate))
				set(field, ptr)
				return nil
			}
			if v == nil {
				return progErr("tensor_scalar needs operand%d (a number or a (P, 1) tile)", k)
			}
			set(field, f32bits(*v))
			return nil
		}
		op1 := isa.ALUOpBypass
		if c.ALUOp1 != "" {
			if op1, err = aluOp(c.ALUOp1); err != nil {
				return w, "", err
			}
			if err := imm(1, c.Operand1, c.Operand1Tile); err != nil {
				return w, "", err
			}
		}
		if err := imm(0, c.Operand0, c.Operand0Tile); err != nil {
			return w, "", err
		}
		rev := isa.TensScalarRevOpsNone
		switch {
		case c.Reverse0 && c.Reverse1:
			rev = isa.TensScalarRevOpsBoth
		case c.Reverse0:
			rev = isa.TensScalarRevOpsFirst
		case c.Reverse1:
			rev = isa.TensScalarRevOpsSecond
		}
		set("reverse_operands", int64(rev))
		set("in_dtype", int64(srcs[0].dt))
		set("out_dtype", int64(dst.dt))
		set("op0", int64(op0))
		set("op1", int64(op1))
		errs = append(errs, setPattern(&w, "src_mem_pattern", s[0]))
	case "activation":
		f, err := actFunc(c.Func)
		if err != nil {
			return w, "", err
		}
		scale, bias := 1.0, 0.0
		if c.Scale != nil {
			scale = *c.Scale
		}
		if c.Bias != nil {
			bias = *c.Bias
		}
		w = isa.New(p.gen, compute.OpActivate)
		set("in_dtype", int64(srcs[0].dt))
		set("bias_dtype", int64(dtype.FP32))
		set("out_dtype", int64(dst.dt))
		set("activation_func", int64(f))
		set("scale_value", f32bits(scale))
		if c.ScaleTile != nil { // a per-partition scale (scalars.go): a pointer read as FP32 (docs/compute.md §14)
			ptr, _, err := p.scalarPtr(c.ScaleTile, "scale tile", srcs[0], s[0].ch, dtype.FP32)
			if err != nil {
				return w, "", err
			}
			set("scale_src", int64(isa.ImmSrcPointerImmediate))
			set("scale_value", ptr)
		}
		if c.BiasTile != nil { // a per-partition bias (scalars.go), read in its own dtype
			ptr, bdt, err := p.scalarPtr(c.BiasTile, "bias tile", srcs[0], s[0].ch, dtype.FP32, dtype.FP16, dtype.BF16)
			if err != nil {
				return w, "", err
			}
			set("bias_dtype", int64(bdt))
			set("bias", ptr)
			set("bias_src_n", int64(isa.ImmSrcNPointerImmediate))
		} else {
			set("bias", f32bits(bias))
			set("bias_src_n", int64(isa.ImmSrcNInstructionImmediate))
		}
		errs = append(errs, setPattern(&w, "src_mem_pattern", s[0]))
		engine = "scalar (ACT)"
	}
	set("num_active_channels", d.ch)
	errs = append(errs, setPattern(&w, "dst_mem_pattern", d))
	if err := errors.Join(errs...); err != nil {
		return w, "", progErr("a %s field does not fit: %v", w.Def().Mnemonic(), err)
	}
	return w, engine, nil
}

// fallback compiles the calls ndma forms no word for: Go loops in float32,
// flagged not exact.
func (p *Program) fallback(lw *Lowered, c *Call, dst *leg) (*Lowered, error) {
	lw.Exact, lw.Bytes = false, dst.elems*dst.esize
	switch c.Op {
	case "transpose", "nc_transpose":
		src, err := p.resolve(c.source(), "src")
		if err != nil {
			return nil, err
		}
		if len(src.shape) != 2 || len(dst.shape) != 2 || dst.shape[0] != src.shape[1] || dst.shape[1] != src.shape[0] {
			return nil, illegal("transpose: dst %v must be src %v turned", dst.shape, src.shape)
		}
		if w, ok, err := p.peTranspose(lw, c, src, dst); ok || err != nil {
			return w, err
		}
		R, C := src.shape[0], src.shape[1]
		lw.Engine, lw.Note = "tensor (PE)", "computed by ndma (an exact move), not by the PE's transpose words"
		lw.ns = p.transposeNS(src)
		lw.eval = func(r *runner) error {
			a, err := r.readF32(src)
			if err != nil {
				return err
			}
			out := make([]float32, R*C)
			for i := range R {
				for j := range C {
					out[j*R+i] = a[i*C+j]
				}
			}
			return r.writeF32(dst, out)
		}
	case "iota":
		if len(c.Coefs) != len(dst.shape) {
			return nil, progErr("iota needs one coefficient per dst axis (%d), %d given", len(dst.shape), len(c.Coefs))
		}
		base := 0.0
		if c.Value != nil {
			base = *c.Value
		}
		lw.Engine, lw.Note = "gpsimd (POOL)", "computed by ndma, not by an IOTA word (ndma has no IOTA table)"
		lw.ns = p.perPartitionNS(lw.Engine, opIota, dst) // the Pool word's law, whatever its opcode
		coefs, shape := c.Coefs, dst.shape
		if !dst.dt.IsFloat() { // an integer tile gets the exact integers, each in its dtype's range
			if err := iotaRange(base, coefs, shape, dst.dt); err != nil {
				return nil, err
			}
			b := int64(base)
			lw.eval = func(r *runner) error {
				out := make([]uint64, dst.elems)
				affineEach(coefs, shape, func(e, v int64) { out[e] = uint64(b + v) }) // two's complement: writeUints keeps the low bytes
				return r.writeUints(dst, out)
			}
			break
		}
		lw.eval = func(r *runner) error {
			out := make([]float32, dst.elems)
			affineEach(coefs, shape, func(e, v int64) { out[e] = float32(base + float64(v)) }) // selects.go
			return r.writeF32(dst, out)
		}
	}
	return lw, nil
}

// addrs lists a static leg's element addresses in pattern order.
func (l *leg) addrs() []uint64 {
	out := make([]uint64, 0, l.elems)
	idx := make([]int64, len(l.dims))
	for range l.elems {
		a := int64(l.addr)
		for d, i := range idx {
			a += i * l.dims[d].step
		}
		out = append(out, uint64(a))
		for d := range idx {
			if idx[d]++; idx[d] < l.dims[d].n {
				break
			}
			idx[d] = 0
		}
	}
	return out
}

// readF32 reads a leg's elements as float32, in pattern order (the bytes
// through the runner's scratch: fresh memory is dear, docs/nki.md "Speed").
func (r *runner) readF32(l *leg) ([]float32, error) {
	raw := r.scratch(0, l.elems*l.esize)
	if err := r.readRawInto(l, raw); err != nil {
		return nil, err
	}
	f := raw
	if l.dt != dtype.FP32 {
		f = r.scratch(1, 4*l.elems)
		if err := dtype.Convert(f, dtype.FP32, raw, l.dt); err != nil {
			return nil, err
		}
	}
	out := make([]float32, l.elems)
	for k := range out {
		out[k] = math.Float32frombits(binary.LittleEndian.Uint32(f[4*k:]))
	}
	return out, nil
}

// readF32Pair reads two legs as float32 (a loop's two operands).
func (r *runner) readF32Pair(a, b *leg) ([]float32, []float32, error) {
	x, err := r.readF32(a)
	if err != nil {
		return nil, nil, err
	}
	y, err := r.readF32(b)
	return x, y, err
}

// writeF32 writes float32 values into a leg's elements, in pattern order,
// rounded to its dtype by the cast rules (the bytes through the runner's
// scratch).
func (r *runner) writeF32(l *leg, vals []float32) error {
	f := r.scratch(0, int64(4*len(vals)))
	for k, v := range vals {
		binary.LittleEndian.PutUint32(f[4*k:], math.Float32bits(v))
	}
	b := f
	if l.dt != dtype.FP32 {
		b = r.scratch(1, int64(len(vals))*l.esize)
		if err := dtype.Convert(b, l.dt, f, dtype.FP32); err != nil {
			return err
		}
	}
	return r.writeRaw(l, b)
}

// scratch is the runner's k-th scratch buffer (k < 2) of n bytes, its
// contents undefined: the Go loops' byte images, reused from call to call.
func (r *runner) scratch(k int, n int64) []byte {
	if int64(cap(r.tmp[k])) < n {
		r.tmp[k] = make([]byte, n)
	}
	return r.tmp[k][:n]
}

// iotaRange checks the least and greatest value iota writes into an
// integer tile of dtype dt — base + Σ coefs[d]·i_d over shape, each i_d at
// 0 or its last index —: refused unless base is an integer and both fit dt (a
// value past an int32 tile's range once wrapped silently). Computed in
// big integers: coefficients and counts are the program's, untrusted.
func iotaRange(base float64, coefs, shape []int64, dt dtype.DType) error {
	if base != math.Trunc(base) || math.Abs(base) >= 1<<63 {
		return progErr("iota into a %v tile: value %v is not an integer", dt, base)
	}
	l, h := big.NewInt(int64(base)), big.NewInt(int64(base))
	for d, c := range coefs {
		if shape[d] <= 0 {
			continue
		}
		end := new(big.Int).Mul(big.NewInt(c), big.NewInt(shape[d]-1))
		if end.Sign() < 0 {
			l.Add(l, end)
		} else {
			h.Add(h, end)
		}
	}
	bits := uint(8 * dt.Size())
	min, max := big.NewInt(0), new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), bits), big.NewInt(1))
	if dt.IsSigned() {
		min = new(big.Int).Neg(new(big.Int).Lsh(big.NewInt(1), bits-1))
		max = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), bits-1), big.NewInt(1))
	}
	if l.Cmp(min) < 0 || h.Cmp(max) > 0 {
		return progErr("iota into a %v tile: values %v to %v, the dtype holds %v to %v", dt, l, h, min, max)
	}
	return nil
}
