package compute

import (
	"encoding/binary"
	"fmt"
	"math"

	"ndma/internal/num"
	"ndma/isa"
	"ndma/mem"
)

// The ACT/DVE/POOL words: each active partition runs the same free-dimension
// patterns (docs/compute.md §2); the operands are read whole before the
// destination is written, so a word may read and write one tile.

// channels checks num_active_channels (1..partitions).
func (e *Engine) channels(n uint64) (int, error) {
	if n < 1 || n > uint64(e.Map.Partitions) {
		return 0, e.fault("num_active_channels", 0, fmt.Errorf("%d, a core has 1..%d partitions: %w", n, e.Map.Partitions, isa.ErrBounds))
	}
	return int(n), nil
}

// sameCount checks that q enumerates as many elements as dst.
func (e *Engine) sameCount(q, dst *Pattern) error {
	if a, b := q.Count(), dst.Count(); a != b {
		return e.fault(q.Field, q.Addr, fmt.Errorf("%d elements per partition, %s has %d: %w", a, dst.Field, b, ErrMismatch))
	}
	return nil
}

// loadF reads partition k of p through offs into out as float32.
func (e *Engine) loadF(m *mem.Memory, p *Pattern, offs []int32, k int, out []float32) error {
	b, err := e.read(m, p, k)
	if err != nil {
		return e.fault(p.Field, p.spanAddr(k), err)
	}
	decodeF32(p, b, offs, out)
	return nil
}

// loadI reads partition k of p through offs into out as int64.
func (e *Engine) loadI(m *mem.Memory, p *Pattern, offs []int32, k int, out []int64) error {
	b, err := e.read(m, p, k)
	if err != nil {
		return e.fault(p.Field, p.spanAddr(k), err)
	}
	decodeInt(p.DType, b, offs, out)
	return nil
}

// storeF writes vals to partition k of p through offs.
func (e *Engine) storeF(m *mem.Memory, p *Pattern, offs []int32, k int, vals []float32) error {
	if err := e.update(m, p, k, func(b []byte) { encodeF32(p, b, offs, vals) }); err != nil {
		return e.fault(p.Field, p.spanAddr(k), err)
	}
	return nil
}

// storeI writes vals to partition k of p through offs.
func (e *Engine) storeI(m *mem.Memory, p *Pattern, offs []int32, k int, vals []int64) error {
	if err := e.update(m, p, k, func(b []byte) { encodeInt(p.DType, b, offs, vals) }); err != nil {
		return e.fault(p.Field, p.spanAddr(k), err)
	}
	return nil
}

// tensorTensor is dst = op(src0, src1), element by element (§7).
func (e *Engine) tensorTensor(m *mem.Memory, in *isa.Inst) error {
	v, ok := in.TensorTensor()
	if !ok {
		return e.raw()
	}
	ch, err := e.channels(v.NumActiveChannels())
	if err != nil {
		return err
	}
	var ps [3]Pattern
	dts := [3]uint8{uint8(v.InDType().DTypeLo()), uint8(v.InDType().DTypeHi()), uint8(v.OutDType())}
	for i, pv := range [3]isa.Tensor3DView{v.Src0MemPattern(), v.Src1MemPattern(), v.DstMemPattern()} {
		if ps[i], err = e.pattern([3]string{"src0_mem_pattern", "src1_mem_pattern", "dst_mem_pattern"}[i], pv, 3, dts[i], ch); err != nil {
			return err
		}
	}
	for i := range 2 {
		if err := e.sameCount(&ps[i], &ps[2]); err != nil {
			return err
		}
	}
	op := v.Op()
	integer := in.Opcode() == OpTensorTensorBitvec || integerBand(op)
	if in.Opcode() == OpTensorTensorBitvec {
		if err := e.bitvecCheck(op, dts[:]...); err != nil {
			return err
		}
	}
	fi, iok := intOps[op]
	ff, fok := floatOps[op]
	if integer && !iok {
		return e.fault("op", 0, fmt.Errorf("%s has no integer form: %w", op, ErrOp))
	}
	if !integer && !fok {
		return e.fault("op", 0, fmt.Errorf("%s is not an arithmetic op: %w", op, ErrOp))
	}
	if e.dry {
		return nil
	}
	n := int(ps[2].Count())
	for i := range ps {
		e.offs[i] = ps[i].offsets(e.offs[i])
	}
	if integer {
		a, b := grow(e.i64[0], n), grow(e.i64[1], n)
		e.i64[0], e.i64[1] = a, b
		for pass := range 2 { // a division by zero is found before anything is written
			for k := range ch {
				if err := e.loadI(m, &ps[0], e.offs[0], k, a); err != nil {
					return err
				}
				if err := e.loadI(m, &ps[1], e.offs[1], k, b); err != nil {
					return err
				}
				if z0, z1 := unsignedOperands(op); z0 || z1 {
					zext(a, ps[0].Size, z0)
					zext(b, ps[1].Size, z1)
				}
				for i := range a {
					if a[i], err = fi(a[i], b[i]); err != nil {
						return e.fault("op", 0, err)
					}
				}
				if pass == 1 {
					if err := e.storeI(m, &ps[2], e.offs[2], k, a); err != nil {
						return err
					}
				}
			}
		}
		return nil
	}
	a, b := grow(e.f32[0], n), grow(e.f32[1], n)
	e.f32[0], e.f32[1] = a, b
	for k := range ch {
		if err := e.loadF(m, &ps[0], e.offs[0], k, a); err != nil {
			return err
		}
		if err := e.loadF(m, &ps[1], e.offs[1], k, b); err != nil {
			return err
		}
		applyF(op, ff, a, b)
		if err := e.storeF(m, &ps[2], e.offs[2], k, a); err != nil {
			return err
		}
	}
	return nil
}

// applyF is a[i] = f(a[i], b[i]), the common ops without a call each.
func applyF(op isa.ALUOpCode, f func(a, b float32) float32, a, b []float32) {
	b = b[:len(a)]
	switch op {
	case isa.ALUOpAdd:
		for i := range a {
			a[i] += b[i]
		}
	case isa.ALUOpMult:
		for i := range a {
			a[i] *= b[i]
		}
	default:
		for i := range a {
			a[i] = f(a[i], b[i])
		}
	}
}

// bitvecCheck refuses a bitvec word whose op is not bitwise or whose
// dtypes are not integers (§7.2).
func (e *Engine) bitvecCheck(op isa.ALUOpCode, dts ...uint8) error {
	if !bitvecOp(op) {
		return e.fault("op", 0, fmt.Errorf("%s is not a bitvec op: %w", op, ErrOp))
	}
	for _, d := range dts {
		if num.IsFloat(d) {
			return e.fault("dtype", 0, fmt.Errorf("bitvec words take integer dtypes, not %s: %w", isa.DTypeCode(d), ErrDType))
		}
	}
	return nil
}

// scalar is a TENSOR_SCALAR or ACTIVATE operand per partition: an
// immediate, a register, or a PartitionOffset pointer read in each
// partition (docs/compute.md §5, §8).
type scalar struct {
	src  isa.ImmSrcCode
	bits uint32
	dt   uint8 // a pointer's element type
}

// value is the scalar's float value in partition k (from the first
// partition p0).
func (e *Engine) value(m *mem.Memory, field string, s scalar, p0, k int) (float32, error) {
	switch s.src {
	case isa.ImmSrcInstructionImmediate:
		return math.Float32frombits(s.bits), nil
	case isa.ImmSrcRegPtrImmediate:
		return math.Float32frombits(e.reg(uint64(s.bits))), nil
	}
	u, err := e.pointer(m, field, s, p0, k)
	return num.ToFloat32(s.dt, u), err
}

// intValue is the scalar's integer value in partition k.
func (e *Engine) intValue(m *mem.Memory, field string, s scalar, p0, k int) (int64, error) {
	switch s.src {
	case isa.ImmSrcInstructionImmediate:
		return int64(int32(s.bits)), nil
	case isa.ImmSrcRegPtrImmediate:
		return int64(int32(e.reg(uint64(s.bits)))), nil
	}
	u, err := e.pointer(m, field, s, p0, k)
	return num.ToInt64(s.dt, u), err
}

// checkScalars refuses, before anything is written, a pointer scalar that
// would leave the partitions on the last of ch partitions (each partition
// reads the next one's copy, so the last is the farthest).
func (e *Engine) checkScalars(m *mem.Memory, p0, ch int, fields []string, ss ...scalar) error {
	for i, s := range ss {
		if s.src == isa.ImmSrcPointerImmediate {
			if _, err := e.pointer(m, fields[i], s, p0, ch-1); err != nil {
				return err
			}
		}
	}
	return nil
}

// pointer reads the element a pointer scalar names in partition p0+k.
func (e *Engine) pointer(m *mem.Memory, field string, s scalar, p0, k int) (uint64, error) {
	size, ok := num.Size(s.dt)
	if !ok {
		return 0, e.fault(field, 0, fmt.Errorf("dtype %s: %w", isa.DTypeCode(s.dt), ErrDType))
	}
	a := uint64(s.bits) & isa.Addr4ImmMask
	r, part, _ := e.Map.Split(a)
	if r != isa.SBUF && r != isa.PSUM {
		return 0, e.fault(field, a, fmt.Errorf("a pointer scalar names SBUF or PSUM: %w", isa.ErrBounds))
	}
	stride := e.Map.SBUFStride
	if r == isa.PSUM {
		stride = e.Map.PSUMStride
	}
	addr := a + uint64(p0+k)*stride
	if part+p0+k >= e.Map.Partitions {
		return 0, e.fault(field, addr, fmt.Errorf("partition %d: %w", part+p0+k, isa.ErrBounds))
	}
	var b [8]byte
	if err := m.Read(addr, b[:size]); err != nil {
		return 0, e.fault(field, addr, err)
	}
	return binary.LittleEndian.Uint64(b[:]), nil
}

// tensorScalar is out = op1(op0(x, s0), s1), the operands of op0, op1 or
// both swapped by reverse_operands (§8).
func (e *Engine) tensorScalar(m *mem.Memory, in *isa.Inst) error {
	v, ok := in.TensorScalar()
	if !ok {
		return e.raw()
	}
	if v.AccumulatorCmd() != isa.AccumCmdIdle {
		return e.fault("accumulator_cmd", 0, fmt.Errorf("%s is not modeled (IDLE only): %w", v.AccumulatorCmd(), isa.ErrUnsupported))
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
	op0, op1 := v.Op0(), v.Op1()
	if op0 == isa.ALUOpBypass && op1 != isa.ALUOpBypass {
		return e.fault("op1", 0, fmt.Errorf("op1 %s after op0 BYPASS (op1 must be BYPASS too): %w", op1, ErrOp))
	}
	rev := v.ReverseOperands()
	rev0, rev1 := rev == isa.TensScalarRevOpsFirst || rev == isa.TensScalarRevOpsBoth, rev == isa.TensScalarRevOpsSecond || rev == isa.TensScalarRevOpsBoth
	s0 := scalar{v.Imm0Src(), uint32(v.Imm0()), uint8(isa.DTypeFP32)}
	s1 := scalar{v.Imm1Src(), uint32(v.Imm1()), uint8(isa.DTypeFP32)}
	bitvec := in.Opcode() == OpTensorScalarBitvec || in.Opcode() == OpTensorScalarPtrBV
	if bitvec {
		if err := e.bitvecCheck(op0, src.DType, dst.DType); err != nil {
			return err
		}
		if err := e.bitvecCheck(op1); err != nil {
			return err
		}
		s0.dt, s1.dt = uint8(isa.DTypeUint32), uint8(isa.DTypeUint32)
	}
	integer := bitvec || integerBand(op0) || integerBand(op1)
	f0, ok0 := intOps[op0]
	f1, ok1 := intOps[op1]
	g0, fok0 := floatOps[op0]
	g1, fok1 := floatOps[op1]
	if integer && (!ok0 || !ok1) { // checked before the dry return: neff check refuses what run refuses
		return e.fault("op0", 0, fmt.Errorf("%s, %s: no integer form: %w", op0, op1, ErrOp))
	}
	if !integer && (!fok0 || !fok1) {
		return e.fault("op0", 0, fmt.Errorf("%s, %s: not arithmetic ops: %w", op0, op1, ErrOp))
	}
	if e.dry {
		return nil
	}
	if err := e.checkScalars(m, src.Part, ch, []string{"imm0", "imm1"}, s0, s1); err != nil {
		return err
	}
	n := int(dst.Count())
	so, do := src.offsets(e.offs[0]), dst.offsets(e.offs[1])
	e.offs[0], e.offs[1] = so, do
	if integer {
		x := grow(e.i64[0], n)
		e.i64[0] = x
		for pass := range 2 { // a division by zero is found before anything is written
			for k := range ch {
				a, err := e.intValue(m, "imm0", s0, src.Part, k)
				if err != nil {
					return err
				}
				b, err := e.intValue(m, "imm1", s1, src.Part, k)
				if err != nil {
					return err
				}
				if err := e.loadI(m, &src, so, k, x); err != nil {
					return err
				}
				// the element (and what op0 made of it) is src.Size bytes, a scalar 4
				xz0, az := operandsZ(op0, rev0)
				xz1, bz := operandsZ(op1, rev1)
				zext(x, src.Size, xz0)
				a, b = zext1(a, 4, az), zext1(b, 4, bz)
				for i := range x {
					if x[i], err = pairI(f0, x[i], a, rev0); err == nil {
						x[i], err = pairI(f1, zext1(x[i], src.Size, xz1), b, rev1)
					}
					if err != nil {
						return e.fault("op0", 0, err)
					}
				}
				if pass == 0 {
					continue
				}
				if err := e.storeI(m, &dst, do, k, x); err != nil {
					return err
				}
			}
		}
		return nil
	}
	x := grow(e.f32[0], n)
	e.f32[0] = x
	for k := range ch {
		a, err := e.value(m, "imm0", s0, src.Part, k)
		if err != nil {
			return err
		}
		b, err := e.value(m, "imm1", s1, src.Part, k)
		if err != nil {
			return err
		}
		if err := e.loadF(m, &src, so, k, x); err != nil {
			return err
		}
		for i, y := range x {
			x[i] = pairF(g1, pairF(g0, y, a, rev0), b, rev1)
		}
		if err := e.storeF(m, &dst, do, k, x); err != nil {
			return err
		}
	}
	return nil
}

// unsignedOperands reports which operands of integer op read an element's
// bits as unsigned: the value LOGICAL_SHIFT_RIGHT shifts, both operands of
// the _UINT ops. The integer datapath holds elements sign-extended in int64;
// these ops see a narrow element zero-extended from its dtype's width (an
// INT32 -1 is 0xffffffff to them: >> 4 gives 0x0fffffff, not -1).
func unsignedOperands(op isa.ALUOpCode) (first, second bool) {
	switch op {
	case isa.ALUOpLogicalShiftRight:
		return true, false
	case isa.ALUOpMaxUint, isa.ALUOpMinUint, isa.ALUOpIsGTUint, isa.ALUOpIsGEUint, isa.ALUOpIsLEUint, isa.ALUOpIsLTUint,
		isa.ALUOpMultUint, isa.ALUOpDivideUint, isa.ALUOpModUint, isa.ALUOpAmaxUint, isa.ALUOpAminUint:
		return true, true
	}
	return false, false
}

// operandsZ is unsignedOperands for TENSOR_SCALAR's (element, scalar) pair,
// swapped by rev.
func operandsZ(op isa.ALUOpCode, rev bool) (elem, scalar bool) {
	first, second := unsignedOperands(op)
	if rev {
		return second, first
	}
	return first, second
}

// zext zero-extends vals from size bytes when on.
func zext(vals []int64, size int, on bool) {
	if !on || size >= 8 {
		return
	}
	for i, v := range vals {
		vals[i] = int64(uint64(v) & (1<<(8*size) - 1))
	}
}

func zext1(v int64, size int, on bool) int64 {
	if !on || size >= 8 {
		return v
	}
	return int64(uint64(v) & (1<<(8*size) - 1))
}

func pairF(f func(a, b float32) float32, x, s float32, rev bool) float32 {
	if rev {
		return f(s, x)
	}
	return f(x, s)
}

func pairI(f func(a, b int64) (int64, error), x, s int64, rev bool) (int64, error) {
	if rev {
		return f(s, x)
	}
	return f(x, s)
}
