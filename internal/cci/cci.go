// Package cci interprets the COMPACT_CONTROL_INST word (0xb6, MAVERICK;
// field-tables §3.11): 15 four-byte CCINST slots of a small RISC-style
// bytecode over the stream's 64 registers, the core's memory and its
// semaphores. The op codes and member layouts are the ones package isa
// pins (RATIONALE.md); what each op does is ndma's reading of the op names
// (docs/cci.md, all INFERRED).
//
// A word runs from slot 0 until control leaves slot 14 (or branches to
// slot 15); it is atomic like every word: registers, semaphores and memory
// change only if it completes, and a fault names the slot.
package cci

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"slices"

	"ndma/isa"
	"ndma/mem"
)

// Slots is the number of CCINST slots in a word.
const Slots = 15

// DefaultMaxSteps bounds the slots one word may execute (loops included).
const DefaultMaxSteps = 1 << 16

// Errors.
var (
	ErrStepLimit  = errors.New("step limit reached")
	ErrUnknownOp  = errors.New("op byte no CCOP names")
	ErrRegister   = errors.New("register out of range (r0..r63)")
	ErrMisaligned = errors.New("misaligned access")
	ErrTarget     = errors.New("branch target outside the word")
)

// Fault is a word that stopped; it had no effect.
type Fault struct {
	Slot int
	Op   string
	Err  error
}

func (f *Fault) Error() string { return fmt.Sprintf("slot %d (%s): %v", f.Slot, f.Op, f.Err) }
func (f *Fault) Unwrap() error { return f.Err }

// Run executes one 0xb6 word on regs and m (its semaphores too) with at most
// maxSteps slots executed (0: DefaultMaxSteps); it reports the steps taken.
func Run(in *isa.Inst, regs *[64]uint32, m *mem.Memory, maxSteps int) (int, error) {
	return RunSteps(in, regs, m, maxSteps, nil)
}

// Outcome is a word's semaphores as it leaves them, and which of them a
// SEM_ADD wrapped past the signed 32-bit range.
type Outcome struct {
	Sems    [256]int32
	Wrapped [256]bool
}

// RunOutcome is Run that leaves the memory's semaphores as they are and
// reports what the word makes of them instead (the scheduler lands them).
func RunOutcome(in *isa.Inst, regs *[64]uint32, m *mem.Memory, maxSteps int, out *Outcome) error {
	_, err := runSteps(in, regs, m, maxSteps, nil, out)
	return err
}

// RunSteps is Run that calls step after every slot it executes, with the
// word's working registers (single-stepping: `ndma cci --step`).
func RunSteps(in *isa.Inst, regs *[64]uint32, m *mem.Memory, maxSteps int, step func(slot int, regs *[64]uint32)) (int, error) {
	return runSteps(in, regs, m, maxSteps, step, nil)
}

// runSteps runs the word; with out set, its semaphores and wraps go there,
// the memory's semaphores untouched.
func runSteps(in *isa.Inst, regs *[64]uint32, m *mem.Memory, maxSteps int, step func(slot int, regs *[64]uint32), out *Outcome) (int, error) {
	if in.Opcode() != isa.OpCompactControlInst {
		return 0, fmt.Errorf("%s is not COMPACT_CONTROL_INST", in.Def().Mnemonic())
	}
	if maxSteps <= 0 {
		maxSteps = DefaultMaxSteps
	}
	v, _ := in.CCI()
	var slots [Slots]isa.CCInst
	for k := range slots {
		slots[k] = v.Insts(k)
	}
	x := &exec{regs: *regs, sems: m.Sems, m: m, overlay: map[uint64]byte{}}
	steps := 0
	for pc := 0; pc < Slots; {
		if steps++; steps > maxSteps {
			return steps, &Fault{Slot: pc, Op: isa.CCOp().Format(uint64(slots[pc].Op())), Err: fmt.Errorf("%d slots executed: %w", maxSteps, ErrStepLimit)}
		}
		next, err := x.step(pc, slots[pc])
		if err != nil {
			return steps, &Fault{Slot: pc, Op: isa.CCOp().Format(uint64(slots[pc].Op())), Err: err}
		}
		if step != nil {
			step(pc, &x.regs)
		}
		pc = next
	}
	// commit: memory, then registers and semaphores
	if err := x.commit(); err != nil {
		return steps, err
	}
	*regs = x.regs
	if out != nil {
		out.Sems, out.Wrapped = x.sems, x.wrapped
	} else {
		m.Sems = x.sems
	}
	return steps, nil
}

// exec is a word's working state: copies, committed only at the end.
type exec struct {
	regs    [64]uint32
	sems    [256]int32
	wrapped [256]bool // semaphores a SEM_ADD wrapped past 32 bits
	m       *mem.Memory
	overlay map[uint64]byte // bytes stored so far
}

func (x *exec) r(i int64) (uint32, error) {
	if i < 0 || i >= 64 {
		return 0, fmt.Errorf("r%d: %w", i, ErrRegister)
	}
	return x.regs[i], nil
}

func (x *exec) set(i int64, v uint32) error {
	if i < 0 || i >= 64 {
		return fmt.Errorf("r%d: %w", i, ErrRegister)
	}
	x.regs[i] = v
	return nil
}

// pair is the 64-bit value of (r[i], r[i+1]), low word first (§11.6).
func (x *exec) pair(i int64) (uint64, error) {
	if i < 0 || i+1 >= 64 {
		return 0, fmt.Errorf("r%d/r%d: %w", i, i+1, ErrRegister)
	}
	return uint64(x.regs[i]) | uint64(x.regs[i+1])<<32, nil
}

func (x *exec) setPair(i int64, v uint64) error {
	if i < 0 || i+1 >= 64 {
		return fmt.Errorf("r%d/r%d: %w", i, i+1, ErrRegister)
	}
	x.regs[i], x.regs[i+1] = uint32(v), uint32(v>>32)
	return nil
}

// step executes slot pc and returns the next pc.
func (x *exec) step(pc int, c isa.CCInst) (int, error) {
	op := isa.CCOpCode(c.Op())
	typ, ok := isa.CCOpType(c.Op())
	if !ok {
		return 0, fmt.Errorf("%#02x: %w", c.Op(), ErrUnknownOp)
	}
	switch typ { // the member the op selects: c converts to it directly
	case isa.CCTypeNOP:
	case isa.CCTypeMOV:
		m := isa.CCMov(c)
		v, err := x.r(int64(m.Src()))
		if err != nil {
			return 0, err
		}
		return pc + 1, x.set(int64(m.Dst()), v)
	case isa.CCTypeMOVIMM:
		m := isa.CCMovImm(c)
		d, imm := int64(m.Dst()), uint32(m.Imm())
		old, err := x.r(d)
		if err != nil {
			return 0, err
		}
		switch op {
		case isa.CCOpMovImmLo: // the low half, the high half kept
			return pc + 1, x.set(d, old&0xffff0000|imm)
		case isa.CCOpMovImmHi: // the high half, the low half kept
			return pc + 1, x.set(d, old&0xffff|imm<<16)
		}
		return pc + 1, x.set(d, uint32(int32(int16(imm)))) // MOV_IMM_LO_S: sign-extended
	case isa.CCTypeALU:
		m := isa.CCALU(c)
		return pc + 1, x.alu(op, int64(m.Dst()), int64(m.Src0()), int64(m.Src1()))
	case isa.CCTypeBR:
		m := isa.CCBr(c)
		return x.branch(pc, op, m.Target(), -1, int64(m.CCSrc()))
	case isa.CCTypeBL:
		m := isa.CCBl(c)
		return x.branch(pc, op, m.Target(), int64(m.Dst()), -1)
	case isa.CCTypeMEM:
		m := isa.CCMem(c)
		return pc + 1, x.memOp(op, int64(m.SrcDst()), int64(m.AddrReg()), int64(m.AddrImm()))
	case isa.CCTypeSEMR:
		m := isa.CCSemR(c)
		return pc + 1, x.set(int64(m.Dst()), uint32(x.sems[m.SemID()]))
	case isa.CCTypeSEMU:
		m := isa.CCSemU(c)
		v, err := x.r(int64(m.Src0()))
		if err != nil {
			return 0, err
		}
		id, val := m.SemID(), int32(v+uint32(m.Imm()))
		if op == isa.CCOpSemWrite {
			x.sems[id] = val
		} else { // SEM_ADD: signed 32-bit, wrapping as the hardware's does (§11.6); noted for a warning
			if sum := int64(x.sems[id]) + int64(val); sum > math.MaxInt32 || sum < math.MinInt32 {
				x.wrapped[id] = true
			}
			x.sems[id] += val
		}
	}
	return pc + 1, nil
}

// branch: BR_<kind>, _T (taken when r[cc_src] ≠ 0), _F (when = 0) and
// BL_<kind> (r[dst] = the next slot, then jump). REL_IMM targets the slot
// at the branch's own + target; REL_REG the branch's own + r[target];
// REG64 the slot (r[target], r[target+1]) names. Slot 15 ends the word.
//
// t is the target field; link the BL's dst, ccSrc the BR's cc_src (the
// other is -1: each member has one of the two).
func (x *exec) branch(pc int, op isa.CCOpCode, t, link, ccSrc int64) (int, error) {
	kind, variant := uint8(op-isa.CCOpBrRelImm)/4, uint8(op-isa.CCOpBrRelImm)%4
	if variant == 3 { // BL: link
		if err := x.set(link, uint32(pc+1)); err != nil {
			return 0, err
		}
	} else if variant != 0 {
		cc, err := x.r(ccSrc)
		if err != nil {
			return 0, err
		}
		if (cc != 0) != (variant == 1) {
			return pc + 1, nil
		}
	}
	var to int64
	switch kind {
	case 0:
		to = int64(pc) + t
	case 1:
		v, err := x.r(t)
		if err != nil {
			return 0, err
		}
		to = int64(pc) + int64(int32(v))
	default:
		v, err := x.pair(t)
		if err != nil {
			return 0, err
		}
		to = int64(v)
		if v > Slots {
			to = -1
		}
	}
	if to < 0 || to > Slots {
		return 0, fmt.Errorf("slot %d: %w", to, ErrTarget)
	}
	return int(to), nil
}

// memOp is LDR/STR of 8/16/32 bits (H, B; S sign-extends), 64 (D: a
// register pair) and 128 (Q: four registers) at r[addr_reg] + addr_imm, a
// Neuron address of the core's memory, aligned to the access size.
func (x *exec) memOp(op isa.CCOpCode, rd, ra, imm int64) error {
	base, err := x.r(ra)
	if err != nil {
		return err
	}
	addr := uint64(base) + uint64(imm)
	size := memSize[op]
	if addr%uint64(size) != 0 {
		return fmt.Errorf("%d-byte access at %#x: %w", size, addr, ErrMisaligned)
	}
	if rd < 0 || rd+int64(size+3)/4 > 64 {
		return fmt.Errorf("r%d..: %w", rd, ErrRegister)
	}
	store := op >= isa.CCOpStr && op <= isa.CCOpStrb || op == isa.CCOpStrd || op == isa.CCOpStrq
	if store {
		b := make([]byte, size)
		for i := range b {
			b[i] = byte(x.regs[rd+int64(i/4)] >> (8 * (i % 4)))
		}
		return x.store(addr, b)
	}
	b, err := x.load(addr, size)
	if err != nil {
		return err
	}
	var v uint64
	for i := len(b) - 1; i >= 0; i-- {
		v = v<<8 | uint64(b[i])
	}
	switch op {
	case isa.CCOpLdrhs:
		v = uint64(uint32(int32(int16(v))))
	case isa.CCOpLdrbs:
		v = uint64(uint32(int32(int8(v))))
	case isa.CCOpLdrd:
		return x.setPair(rd, v)
	case isa.CCOpLdrq:
		for i := int64(0); i < 4; i++ {
			x.regs[rd+i] = uint32(b[4*i]) | uint32(b[4*i+1])<<8 | uint32(b[4*i+2])<<16 | uint32(b[4*i+3])<<24
		}
		return nil
	}
	return x.set(rd, uint32(v))
}

// memSize is the access size of each MEM op in bytes.
var memSize = map[isa.CCOpCode]int{
	isa.CCOpLdr: 4, isa.CCOpLdrh: 2, isa.CCOpLdrhs: 2, isa.CCOpLdrb: 1, isa.CCOpLdrbs: 1, isa.CCOpStr: 4, isa.CCOpStrh: 2,
	isa.CCOpStrb: 1, isa.CCOpLdrd: 8, isa.CCOpLdrq: 16, isa.CCOpStrd: 8, isa.CCOpStrq: 16,
}

func (x *exec) load(addr uint64, n int) ([]byte, error) {
	b := make([]byte, n)
	if err := x.m.Read(addr, b); err != nil {
		return nil, err
	}
	for i := range b {
		if v, ok := x.overlay[addr+uint64(i)]; ok {
			b[i] = v
		}
	}
	return b, nil
}

func (x *exec) store(addr uint64, b []byte) error {
	if err := x.m.Check(addr, len(b)); err != nil {
		return err
	}
	for i, v := range b {
		x.overlay[addr+uint64(i)] = v
	}
	return nil
}

// commit writes the stored bytes in address order, runs at a time.
func (x *exec) commit() error {
	addrs := make([]uint64, 0, len(x.overlay))
	for a := range x.overlay {
		addrs = append(addrs, a)
	}
	slices.Sort(addrs)
	for i := 0; i < len(addrs); {
		j := i + 1
		for j < len(addrs) && addrs[j] == addrs[j-1]+1 {
			j++
		}
		run := make([]byte, j-i)
		for k := range run {
			run[k] = x.overlay[addrs[i+k]]
		}
		if err := x.m.Write(addrs[i], run); err != nil {
			return err // cannot happen: every store was checked
		}
		i = j
	}
	return nil
}

// alu is every CCTypeALU op: dst = src0 op src1 (one operand for the
// unary ones), 64-bit forms on register pairs.
func (x *exec) alu(op isa.CCOpCode, d, s0, s1 int64) error {
	wide := op >= isa.CCOpAdd64 && op <= isa.CCOpMin64S || op >= isa.CCOpAbsValue64 && op <= isa.CCOpAbsMin64 ||
		op >= isa.CCOpAsr64 && op <= isa.CCOpRol64 || op == isa.CCOpClz64 || op >= isa.CCOpCmp64EQ && op <= isa.CCOpCmp64SGE
	var a, b uint64
	var err error
	if wide {
		if a, err = x.pair(s0); err == nil {
			b, err = x.pair(s1)
		}
	} else {
		var a32, b32 uint32
		if a32, err = x.r(s0); err == nil {
			b32, err = x.r(s1)
		}
		a, b = uint64(a32), uint64(b32)
	}
	if err != nil {
		return err
	}
	r, to64, err := compute(op, a, b)
	if err != nil {
		return err
	}
	if to64 {
		return x.setPair(d, r)
	}
	return x.set(d, uint32(r))
}

// compute is the value of an ALU op on its operands (32-bit operands in the
// low half); to64 says the result is a register pair.
func compute(op isa.CCOpCode, a, b uint64) (r uint64, to64 bool, err error) {
	a32, b32 := uint32(a), uint32(b)
	sa, sb := int32(a32), int32(b32)
	fa, fb := math.Float32frombits(a32), math.Float32frombits(b32)
	in := func(lo, hi isa.CCOpCode) bool { return op >= lo && op <= hi }
	k := func(first isa.CCOpCode) uint8 { return uint8(op - first) } // the op's place in its run
	switch {
	case in(isa.CCOpAdd, isa.CCOpMin):
		return uint64(arith(k(isa.CCOpAdd), a32, b32)), false, nil
	case in(isa.CCOpAdds, isa.CCOpMins):
		return uint64(uint32(sat32(k(isa.CCOpAdds), sa, sb))), false, nil
	case in(isa.CCOpAdd64, isa.CCOpMin64):
		return arith(k(isa.CCOpAdd64), a, b), true, nil
	case in(isa.CCOpAdd64S, isa.CCOpMin64S):
		return uint64(sat64(k(isa.CCOpAdd64S), int64(a), int64(b))), true, nil
	case in(isa.CCOpAddf, isa.CCOpAbsMinf):
		return uint64(uint32(floatOp(op, fa, fb))), false, nil
	case in(isa.CCOpAbsValue, isa.CCOpAbsMin):
		return uint64(uint32(absOp(k(isa.CCOpAbsValue), sa, sb))), false, nil
	case in(isa.CCOpAbsValue64, isa.CCOpAbsMin64):
		return uint64(absOp(k(isa.CCOpAbsValue64), int64(a), int64(b))), true, nil
	case in(isa.CCOpAsl, isa.CCOpRor):
		return uint64(shift32(k(isa.CCOpAsl), a32, uint(b32&31))), false, nil
	case in(isa.CCOpAsr64, isa.CCOpRol64): // ASR64, LSL64, LSR64, ROL64 (isa's names)
		return shift64(k(isa.CCOpAsr64)+1, a, uint(b&63)), true, nil
	case op == isa.CCOpClz:
		return uint64(bits.LeadingZeros32(a32)), false, nil
	case op == isa.CCOpClz64:
		return uint64(bits.LeadingZeros64(a)), false, nil
	case in(isa.CCOpLogicalAnd, isa.CCOpBitwiseXor):
		return uint64(logic(k(isa.CCOpLogicalAnd), a32, b32)), false, nil
	case in(isa.CCOpCmpEQ, isa.CCOpCmpfGE) && k(isa.CCOpCmpEQ)%8 < 6: // five families of six conditions, 8 codes apart
		return b2u(compare(k(isa.CCOpCmpEQ)/8, k(isa.CCOpCmpEQ)%8, a, b)), false, nil
	}
	return 0, false, fmt.Errorf("%#02x: %w", uint8(op), ErrUnknownOp)
}

func b2u(v bool) uint64 {
	if v {
		return 1
	}
	return 0
}

// arith: ADD, SUB, MUL wrap; DIV, MOD unsigned; MAX, MIN unsigned — 32 or
// 64 bits. A zero divisor gives all ones (DIV) and the dividend (MOD), as
// RISC-V does.
func arith[T uint32 | uint64](k uint8, a, b T) T {
	switch k {
	case 0:
		return a + b
	case 1:
		return a - b
	case 2:
		return a * b
	case 3:
		if b == 0 {
			return ^T(0)
		}
		return a / b
	case 4:
		if b == 0 {
			return a
		}
		return a % b
	case 5:
		return max(a, b)
	}
	return min(a, b)
}

// sat32: the signed forms, saturating where the exact result does not fit;
// DIV by zero gives −1, MOD by zero the dividend; MinInt32 / −1 saturates.
func sat32(k uint8, a, b int32) int32 {
	clamp := func(v int64) int32 { return int32(max(math.MinInt32, min(math.MaxInt32, v))) }
	switch k {
	case 0:
		return clamp(int64(a) + int64(b))
	case 1:
		return clamp(int64(a) - int64(b))
	case 2:
		return clamp(int64(a) * int64(b))
	case 3:
		if b == 0 {
			return -1
		}
		return clamp(int64(a) / int64(b))
	case 4:
		if b == 0 {
			return a
		}
		return int32(int64(a) % int64(b))
	case 5:
		return max(a, b)
	}
	return min(a, b)
}

func sat64(k uint8, a, b int64) int64 {
	switch k {
	case 0:
		r := a + b
		if (a >= 0) == (b >= 0) && (r >= 0) != (a >= 0) {
			return satSign(a >= 0)
		}
		return r
	case 1:
		r := a - b
		if (a >= 0) != (b >= 0) && (r >= 0) != (a >= 0) {
			return satSign(a >= 0)
		}
		return r
	case 2:
		hi, lo := bits.Mul64(uabs(a), uabs(b))
		neg := (a < 0) != (b < 0) && a != 0 && b != 0
		if hi != 0 || !neg && lo > math.MaxInt64 || neg && lo > 1<<63 {
			return satSign(!neg)
		}
		if neg {
			return -int64(lo)
		}
		return int64(lo)
	case 3:
		if b == 0 {
			return -1
		}
		if a == math.MinInt64 && b == -1 {
			return math.MaxInt64
		}
		return a / b
	case 4:
		if b == 0 {
			return a
		}
		if b == -1 {
			return 0
		}
		return a % b
	case 5:
		return max(a, b)
	}
	return min(a, b)
}

func satSign(positive bool) int64 {
	if positive {
		return math.MaxInt64
	}
	return math.MinInt64
}

func uabs(v int64) uint64 {
	if v < 0 {
		return uint64(-v) // MinInt64 wraps to 1<<63, its magnitude
	}
	return uint64(v)
}

// floatOp: ADDF, SUBF, MULF, DIVF (IEEE fp32), TRUNCF (to int32 toward
// zero, saturating, NaN → 0), MAXF, MINF (NaN if either is), ABS_VALUEF,
// ABS_MAXF, ABS_MINF: the result's 32 bits (fp32, or TRUNCF's int32).
func floatOp(op isa.CCOpCode, a, b float32) int64 {
	f := func(r float32) int64 { return int64(math.Float32bits(r)) }
	abs := func(x float32) float32 { return math.Float32frombits(math.Float32bits(x) &^ (1 << 31)) }
	nanOr := func(r float32) float32 {
		if a != a || b != b {
			return float32(math.NaN())
		}
		return r
	}
	switch op {
	case isa.CCOpAddf:
		return f(a + b)
	case isa.CCOpSubf:
		return f(a - b)
	case isa.CCOpMulf:
		return f(a * b)
	case isa.CCOpDivf:
		return f(a / b)
	case isa.CCOpTruncf:
		switch {
		case a != a:
			return 0
		case a >= math.MaxInt32:
			return math.MaxInt32
		case a <= math.MinInt32:
			return math.MinInt32
		}
		return int64(int32(a))
	case isa.CCOpMaxf:
		return f(nanOr(max(a, b)))
	case isa.CCOpMinf:
		return f(nanOr(min(a, b)))
	case isa.CCOpAbsValuef:
		return f(abs(a))
	case isa.CCOpAbsMaxf:
		return f(nanOr(max(abs(a), abs(b))))
	}
	return f(nanOr(min(abs(a), abs(b))))
}

// absOp: ABS_VALUE (|a|), ABS_MAX (max(|a|, |b|)), ABS_MIN — signed 32 or
// 64 bits, |MinInt| saturating to MaxInt.
func absOp[T int32 | int64](k uint8, a, b T) T {
	abs := func(v T) T {
		if v < 0 {
			if -v < 0 { // MinInt
				return -(v + 1)
			}
			return -v
		}
		return v
	}
	switch k {
	case 0:
		return abs(a)
	case 1:
		return max(abs(a), abs(b))
	}
	return min(abs(a), abs(b))
}

// shift32: ASL, ASR (arithmetic), LSL, LSR (logical), ROL, ROR by n mod 32.
func shift32(k uint8, a uint32, n uint) uint32 {
	switch k {
	case 0, 2:
		return a << n
	case 1:
		return uint32(int32(a) >> n)
	case 3:
		return a >> n
	case 4:
		return bits.RotateLeft32(a, int(n))
	}
	return bits.RotateLeft32(a, -int(n))
}

func shift64(k uint8, a uint64, n uint) uint64 {
	switch k {
	case 1:
		return uint64(int64(a) >> n)
	case 2:
		return a << n
	case 3:
		return a >> n
	}
	return bits.RotateLeft64(a, int(n))
}

// logic: LOGICAL_AND, _OR, _XOR, _NOT (on truth values: 0 or 1), then
// BITWISE_AND, _OR, _NOT, _XOR.
func logic(k uint8, a, b uint32) uint32 {
	ta, tb := a != 0, b != 0
	switch k {
	case 0:
		return uint32(b2u(ta && tb))
	case 1:
		return uint32(b2u(ta || tb))
	case 2:
		return uint32(b2u(ta != tb))
	case 3:
		return uint32(b2u(!ta))
	case 4:
		return a & b
	case 5:
		return a | b
	case 6:
		return ^a
	}
	return a ^ b
}

// compare: family CMP (unsigned 32), CMPS (signed 32), CMP64, CMP64S, CMPF
// (fp32: every comparison with a NaN is false but NE) × EQ, NE, LT, LE, GT, GE.
func compare(family, cond uint8, a, b uint64) bool {
	var c int // −1, 0, 1; 2 = unordered
	switch family {
	case 0:
		c = cmpOf(uint32(a), uint32(b))
	case 1:
		c = cmpOf(int32(a), int32(b))
	case 2:
		c = cmpOf(a, b)
	case 3:
		c = cmpOf(int64(a), int64(b))
	default:
		fa, fb := math.Float32frombits(uint32(a)), math.Float32frombits(uint32(b))
		if fa != fa || fb != fb {
			return cond == 1
		}
		c = cmpOf(fa, fb)
	}
	switch cond {
	case 0:
		return c == 0
	case 1:
		return c != 0
	case 2:
		return c < 0
	case 3:
		return c <= 0
	case 4:
		return c > 0
	}
	return c >= 0
}

func cmpOf[T int32 | int64 | uint32 | uint64 | float32](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
