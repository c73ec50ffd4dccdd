package compute

import (
	"fmt"
	"math"

	"ndma/internal/num"
	"ndma/isa"
	"ndma/mem"
)

// ActFunc is an ACT function: what ACTIVATE's activation_func byte selects
// from the resident function set (docs/compute.md §5).
type ActFunc struct {
	Code uint8
	Name string
	Prov isa.Prov
	F    func(x float32) float32
}

func identity(x float32) float32 { return x }

// actFuncs are the activation_func bytes ndma computes; any other byte is
// refused ("not modeled"), never run as an identity.
var actFuncs = map[uint8]ActFunc{
	0x01: {0x01, "identity", isa.Inferred, identity}, // psum + bias evictions (docs/compute.md §5)
	0x80: {0x80, "copy", isa.Inferred, identity},     // plain moves and evictions
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
	bias := scalar{isa.ImmSrcPointerImmediate, uint32(v.Bias()), uint8(v.BiasDType())}
	switch v.BiasSrcN() { // IMM_SRC_N swaps the first two codes
	case isa.ImmSrcNInstructionImmediate:
		bias.src = isa.ImmSrcInstructionImmediate
	case isa.ImmSrcNRegPtrImmediate:
		bias.src = isa.ImmSrcRegPtrImmediate
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
		if err := e.loadF(m, &src, so, k, x); err != nil {
			return err
		}
		for i, y := range x {
			x[i] = fn.F(s*y + b)
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
	return e.move(m, &src, &dst, so, do, ch)
}

// move copies elements' bytes from src to dst, partition by partition.
func (e *Engine) move(m *mem.Memory, src, dst *Pattern, so, do []int32, ch int) error {
	size := src.Size
	buf := grow(e.moveBuf, len(so)*size)
	e.moveBuf = buf
	whole := contiguous(so, size) && contiguous(do, size)
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
	fill := v.FillValue()
	if dst.Size < 4 && num.IsFloat(dt) {
		fill = num.FromFloat32(dt, math.Float32frombits(uint32(fill)))
	}
	var el [8]byte
	putLE(el[:], fill, dst.Size)
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
