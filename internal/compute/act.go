package compute

import (
	"fmt"
	"math"

	"ndma/internal/num"
	"ndma/isa"
	"ndma/mem"
)

// ActFunc is an ACT function: what ACTIVATE's activation_func byte selects
// (docs/compute.md §5). F gets the pre-activation value scale·x + bias and
// the word's third operand (imm: PRELU's slope).
type ActFunc struct {
	Code uint8
	Name string // the compiler's ActivationFunctionType name, lower-cased
	Prov isa.Prov
	F    func(x, alpha float32) float32
}

// f64 lifts a float64 function to an ActFunc's F, computed in float64 and
// rounded once to float32.
func f64(f func(x float64) float64) func(x, _ float32) float32 {
	return func(x, _ float32) float32 { return float32(f(float64(x))) }
}

func sigmoid(x float64) float64  { return 1 / (1 + math.Exp(-x)) }
func softplus(x float64) float64 { return math.Log1p(math.Exp(x)) }

// actFuncs are the activation_func bytes ndma computes: the compiler's
// ActivationFunctionType enum mapped to bytes by its encoder, with the
// closed forms its simulator falls back to (OBSERVED, docs/compute.md §5;
// the hardware approximates them by tables). Any other byte is refused
// ("not modeled"), never run as an identity.
var actFuncs = func() map[uint8]ActFunc {
	m := map[uint8]ActFunc{}
	add := func(code uint8, name string, p isa.Prov, f func(x, a float32) float32) {
		m[code] = ActFunc{code, name, p, f}
	}
	o, inf := isa.Observed, isa.Inferred
	add(0x01, "identity", o, func(x, _ float32) float32 { return x })
	add(0x1e, "square", o, func(x, _ float32) float32 { return x * x })
	add(0x02, "relu", o, func(x, _ float32) float32 { return max(x, 0) })
	add(0x03, "lrelu", o, func(x, _ float32) float32 { return cond(x <= 0, 0.01*x, x) })
	add(0x04, "prelu", o, func(x, a float32) float32 { return cond(x <= 0, a*x, x) })
	add(0x05, "sigmoid", o, f64(sigmoid))
	add(0x06, "tanh", o, f64(math.Tanh))
	add(0x07, "exp", o, f64(math.Exp))
	add(0x09, "softplus", o, f64(softplus))
	add(0x08, "sqrt", o, f64(math.Sqrt))
	add(0x1d, "rsqrt", o, f64(func(x float64) float64 { return 1 / math.Sqrt(x) }))
	add(0x0a, "ln", o, f64(math.Log))
	add(0x15, "erf", o, f64(math.Erf))
	add(0x13, "sin", o, f64(math.Sin))
	add(0x1c, "arctan", o, f64(math.Atan))
	add(0x1f, "sign", o, func(x, _ float32) float32 { return b2f(x > 0) - b2f(x < 0) })
	add(0x17, "gelu", o, f64(func(x float64) float64 { return 0.5 * x * (1 + math.Erf(x/math.Sqrt2)) }))
	add(0x18, "mish", o, f64(func(x float64) float64 { return x * math.Tanh(softplus(x)) }))
	add(0x19, "gelu_apprx_tanh", o, f64(func(x float64) float64 {
		return 0.5 * x * (1 + math.Tanh(0.7978845608*(x+0.044715*x*x*x)))
	}))
	add(0x1a, "gelu_apprx_sigmoid", o, f64(func(x float64) float64 { return x * sigmoid(1.702*x) }))
	add(0x26, "derivative_gelu_apprx_sigmoid", o, f64(func(x float64) float64 {
		u := 1.702 * x
		eu := math.Exp(u)
		return (u + eu + 1) * eu / ((eu + 1) * (eu + 1))
	}))
	add(0x20, "derivative_gelu", o, f64(func(x float64) float64 {
		return 0.5*(1+math.Erf(x/math.Sqrt2)) + x*math.Exp(-x*x/2)/math.Sqrt(2*math.Pi)
	}))
	add(0x16, "derivative_erf", o, f64(func(x float64) float64 { return 2 / math.Sqrt(math.Pi) * math.Exp(-x*x) }))
	add(0x80, "copy", o, func(x, _ float32) float32 { return x })
	add(0x21, "abs", o, f64(math.Abs))
	add(0x81, "reciprocal", o, func(x, _ float32) float32 { return 1 / x })
	add(0x22, "abs_reciprocal_sqrt", o, f64(func(x float64) float64 { return 1 / math.Sqrt(math.Abs(x)) }))
	add(0x24, "silu", o, f64(func(x float64) float64 { return x * sigmoid(x) }))
	// the source's derivative_silu formula is not silu's derivative; ndma
	// computes σ(x)(1 + x(1 − σ(x))) = eˣ(eˣ + x + 1)/(eˣ + 1)²
	add(0x25, "derivative_silu", inf, f64(func(x float64) float64 { s := sigmoid(x); return s * (1 + x*(1-s)) }))
	// no source defines is_finite's output: 1 for a finite value, else 0
	add(0x23, "is_finite", inf, func(x, _ float32) float32 {
		return b2f(!math.IsInf(float64(x), 0) && !math.IsNaN(float64(x)))
	})
	add(0x82, "memset_zero", o, func(float32, float32) float32 { return 0 })
	return m
}()

func cond(c bool, a, b float32) float32 {
	if c {
		return a
	}
	return b
}

// ActFuncs lists the activation_func bytes ndma computes, by code.
func ActFuncs() []ActFunc {
	var out []ActFunc
	for c := range 256 {
		if f, ok := actFuncs[uint8(c)]; ok {
			out = append(out, f)
		}
	}
	return out
}

// tableLoad makes a function set resident (ACTIVATION_TABLE_LOAD, §5).
func (e *Engine) tableLoad(_ *mem.Memory, in *isa.Inst) error {
	v, ok := in.CtrlNo()
	if !ok {
		return e.raw()
	}
	e.table = uint8(v.ACTTblSel())
	return nil
}

// activate is out = F(scale·x + bias) per active partition (§5): the bias
// and scale per partition when they are pointers.
func (e *Engine) activate(m *mem.Memory, in *isa.Inst) error {
	v, ok := in.Activate()
	if !ok {
		return e.raw()
	}
	if v.AccumulatorCmd() != isa.AccumCmdIdle {
		return e.fault("accumulator_cmd", 0, fmt.Errorf("%s is not modeled (IDLE only): %w", v.AccumulatorCmd(), isa.ErrUnsupported))
	}
	fn, ok := actFuncs[uint8(v.ActivationFunc())]
	if !ok {
		return e.fault("activation_func", 0, fmt.Errorf("function %#02x (set %d) is not modeled: %w", v.ActivationFunc(), e.table, isa.ErrUnsupported))
	}
	ch, err := e.channels(v.NumActiveChannels())
	if err != nil {
		return err
	}
	src, err := e.pattern("src_mem_pattern", v.SrcMemPattern(), 3, uint8(v.InDType()), ch)
	if err != nil {
		return err
	}
	dst, err := e.pattern("dst_mem_pattern", v.DstMemPattern(), 3, uint8(v.OutDType()), ch)
	if err != nil {
		return err
	}
	if err := e.sameCount(&src, &dst); err != nil {
		return err
	}
	scale := scalar{v.ScaleSrc(), uint32(v.ScaleValue()), uint8(isa.DTypeFP32)}
	imm := scalar{v.ImmSrc(), uint32(v.Imm()), uint8(isa.DTypeFP32)}
	bias := scalar{isa.ImmSrcPointerImmediate, uint32(v.Bias()), uint8(v.BiasDType())}
	switch v.BiasSrcN() { // IMM_SRC_N swaps the first two codes
	case isa.ImmSrcNInstructionImmediate:
		bias.src = isa.ImmSrcInstructionImmediate
	case isa.ImmSrcNRegPtrImmediate:
		bias.src = isa.ImmSrcRegPtrImmediate
	}
	if fn.Code != 0x04 {
		imm.src = isa.ImmSrcInstructionImmediate // only PRELU reads imm
	}
	if e.dry {
		return nil
	}
	if err := e.checkScalars(m, src.Part, ch, []string{"scale_value", "bias", "imm"}, scale, bias, imm); err != nil {
		return err
	}
	n := int(dst.Count())
	so, do := src.offsets(e.offs[0]), dst.offsets(e.offs[1])
	e.offs[0], e.offs[1] = so, do
	x := grow(e.f32[0], n)
	e.f32[0] = x
	for k := range ch {
		s, err := e.value(m, "scale_value", scale, src.Part, k)
		if err != nil {
			return err
		}
		b, err := e.value(m, "bias", bias, src.Part, k)
		if err != nil {
			return err
		}
		var alpha float32 // only PRELU reads imm (the encoder enables it for 0x04 alone)
		if fn.Code == 0x04 {
			if alpha, err = e.value(m, "imm", imm, src.Part, k); err != nil {
				return err
			}
		}
		if err := e.loadF(m, &src, so, k, x); err != nil {
			return err
		}
		for i, y := range x {
			x[i] = fn.F(s*y+b, alpha)
		}
		if err := e.storeF(m, &dst, do, k, x); err != nil {
			return err
		}
	}
	return nil
}

// reduced is how many source dimensions (from dimension 0) op_dim reduces.
func reduced(d isa.TensorSubdimCode) (int, bool) {
	switch d {
	case isa.TensorSubdimUnused:
		return 0, true
	case isa.TensorSubdimX, isa.TensorSubdimXy, isa.TensorSubdimXyz, isa.TensorSubdimXyzw:
		return int(d) - 1, true
	}
	return 0, false
}

// tensorReduce folds the dimensions op_dim names with op and writes one
// value per group of the rest, in order, through the dst pattern (§9.2).
func (e *Engine) tensorReduce(m *mem.Memory, in *isa.Inst) error {
	v, ok := in.TensorReduce()
	if !ok {
		return e.raw()
	}
	src, dst, ch, err := e.s4d4(v)
	if err != nil {
		return err
	}
	r, ok := reduced(v.OpDim())
	if !ok {
		return e.fault("op_dim", 0, fmt.Errorf("%s: %w", v.OpDim(), ErrOp))
	}
	g := int64(1)
	for d := range r {
		g *= src.Num[d]
	}
	if src.Count()/g != dst.Count() {
		return e.fault("dst_mem_pattern", dst.Addr, fmt.Errorf("%d elements per partition, the %s reduction of %d gives %d: %w", dst.Count(), v.OpDim(), src.Count(), src.Count()/g, ErrMismatch))
	}
	op := v.Op()
	f, ok := floatOps[op]
	if !ok || integerBand(op) {
		return e.fault("op", 0, fmt.Errorf("%s is not a float reduction op: %w", op, ErrOp))
	}
	if e.sizing && src.DType == num.BFLOAT16 && dst.DType == num.BFLOAT16 && (op == isa.ALUOpAdd || op == isa.ALUOpMax) {
		e.size.Half = true
	}
	if e.dry {
		return nil
	}
	neg := v.Negated() != 0
	n, G := int(src.Count()), int(g)
	so, do := src.offsets(e.offs[0]), dst.offsets(e.offs[1])
	e.offs[0], e.offs[1] = so, do
	x := grow(e.f32[0], n)
	e.f32[0] = x
	out := grow(e.f32[1], n/G)
	e.f32[1] = out
	for k := range ch {
		if err := e.loadF(m, &src, so, k, x); err != nil {
			return err
		}
		for j := range out {
			grp := x[j*G : (j+1)*G]
			acc := grp[0]
			for _, y := range grp[1:] {
				acc = f(acc, y)
			}
			if neg {
				acc = -acc
			}
			out[j] = acc
		}
		if err := e.storeF(m, &dst, do, k, out); err != nil {
			return err
		}
	}
	return nil
}

// s4d4 resolves an S4D4_TR word's channels and patterns.
func (e *Engine) s4d4(v isa.TensorReduceView) (src, dst Pattern, ch int, err error) {
	if ch, err = e.channels(v.NumActiveChannels()); err != nil {
		return
	}
	if v.MaskEnable() != 0 {
		err = e.fault("mask_enable", 0, fmt.Errorf("masks are not modeled: %w", isa.ErrUnsupported))
		return
	}
	if src, err = e.pattern("src_mem_pattern", v.SrcMemPattern(), 4, uint8(v.InDType()), ch); err != nil {
		return
	}
	dst, err = e.pattern("dst_mem_pattern", v.DstMemPattern(), 4, uint8(v.OutDType()), ch)
	return
}

// copyCast is COPY (a bit-exact move of the word's dtype, which may
// reinterpret: §9.3) and CAST (through FP32 by the DMA cast rules; the same
// dtype is a move).
func (e *Engine) copyCast(m *mem.Memory, in *isa.Inst) error {
	v, ok := in.TensorReduce()
	if !ok {
		return e.raw()
	}
	src, dst, ch, err := e.s4d4(v)
	if err != nil {
		return err
	}
	if err := e.sameCount(&src, &dst); err != nil {
		return err
	}
	if v.Op() != isa.ALUOpBypass || v.Negated() != 0 {
		return e.fault("op", 0, fmt.Errorf("%s %s with op %s, negated %d (BYPASS, 0 expected): %w", e.name, src.Field, v.Op(), v.Negated(), ErrOp))
	}
	so, do := src.offsets(e.offs[0]), dst.offsets(e.offs[1])
	e.offs[0], e.offs[1] = so, do
	if src.DType != dst.DType {
		if in.Opcode() == OpCopy {
			return e.fault("out_dtype", 0, fmt.Errorf("COPY from %s to %s (a COPY moves one dtype; CAST converts): %w", isa.DTypeCode(src.DType), isa.DTypeCode(dst.DType), ErrDType))
		}
		if e.dry {
			return nil
		}
		n := int(src.Count())
		x := grow(e.f32[0], n)
		e.f32[0] = x
		for k := range ch {
			if err := e.loadF(m, &src, so, k, x); err != nil {
				return err
			}
			if err := e.storeF(m, &dst, do, k, x); err != nil {
				return err
			}
		}
		return nil
	}
	if e.dry {
		return nil
	}
	return e.move(m, &src, &dst, so, do, ch)
}

// move copies elements' bytes from src to dst, partition by partition.
func (e *Engine) move(m *mem.Memory, src, dst *Pattern, so, do []int32, ch int) error {
	size := src.Size
	buf := grow(e.moveBuf, len(so)*size)
	e.moveBuf = buf
	whole := src.dense && dst.dense
	for k := range ch {
		b, err := e.read(m, src, k)
		if err != nil {
			return e.fault(src.Field, src.spanAddr(k), err)
		}
		if whole {
			copy(buf, b)
		} else {
			for i, o := range so {
				copy(buf[i*size:(i+1)*size], b[o:int(o)+size])
			}
		}
		err = e.update(m, dst, k, func(d []byte) {
			if whole {
				copy(d, buf)
				return
			}
			for i, o := range do {
				copy(d[o:int(o)+size], buf[i*size:(i+1)*size])
			}
		})
		if err != nil {
			return e.fault(dst.Field, dst.spanAddr(k), err)
		}
	}
	return nil
}

// memset writes the fill value to every element of the dst pattern (§10):
// a 4-byte dtype takes its bits; a narrower float the FP32 value they hold,
// rounded; a narrower integer their low bytes (INFERRED: real words fill
// zeros only, for which every reading agrees).
func (e *Engine) memset(m *mem.Memory, in *isa.Inst) error {
	v, ok := in.Memset()
	if !ok {
		return e.raw()
	}
	ch, err := e.channels(v.NumActiveChannels())
	if err != nil {
		return err
	}
	dt := uint8(v.DType())
	dst, err := e.pattern("dst_mem_pattern", v.DstMemPattern(), 4, dt, ch)
	if err != nil {
		return err
	}
	if c := v.DstElementCount(); c != uint64(dst.Count()) {
		return e.fault("dst_element_count", 0, fmt.Errorf("%d, the dst pattern enumerates %d: %w", c, dst.Count(), ErrMismatch))
	}
	if e.sizing && v.FillValue() == 0 && dst.Size == 2 && num.IsFloat(dt) {
		e.size.Half = true
	}
	if e.dry {
		return nil
	}
	fill := v.FillValue()
	if dst.Size < 4 && num.IsFloat(dt) {
		fill = num.FromFloat32(dt, math.Float32frombits(uint32(fill)))
	}
	var el [8]byte
	num.PutLE(el[:], dst.Size, fill)
	do := dst.offsets(e.offs[0])
	e.offs[0] = do
	pat := el[:dst.Size]
	for k := range ch {
		err := e.update(m, &dst, k, func(b []byte) {
			for _, o := range do {
				copy(b[o:], pat)
			}
		})
		if err != nil {
			return e.fault("dst_mem_pattern", dst.spanAddr(k), err)
		}
	}
	return nil
}
