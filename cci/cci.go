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

// RunSteps is Run that calls step after every slot it executes, with the
// word's working registers (single-stepping: `ndma cci --step`).
func RunSteps(in *isa.Inst, regs *[64]uint32, m *mem.Memory, maxSteps int, step func(slot int, regs *[64]uint32)) (int, error) {
	if in.Opcode() != isa.OpCompactControlInst {
		return 0, fmt.Errorf("%s is not COMPACT_CONTROL_INST", in.Def().Mnemonic())
	}
	if maxSteps <= 0 {
		maxSteps = DefaultMaxSteps
	}
	var slots [Slots]isa.CCInst
	for k := range slots {
		c, err := in.CCInst(k)
		if err != nil {
			return 0, err
		}
		slots[k] = c
	}
	x := &exec{regs: *regs, sems: m.Sems, m: m, overlay: map[uint64]byte{}}
	steps := 0
	for pc := 0; pc < Slots; {
		if steps++; steps > maxSteps {
			return steps, &Fault{Slot: pc, Op: isa.CCOp.Format(uint64(slots[pc].Op())), Err: fmt.Errorf("%d slots executed: %w", maxSteps, ErrStepLimit)}
		}
		next, err := x.step(pc, slots[pc])
		if err != nil {
			return steps, &Fault{Slot: pc, Op: isa.CCOp.Format(uint64(slots[pc].Op())), Err: err}
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
	*regs, m.Sems = x.regs, x.sems
	return steps, nil
}

// exec is a word's working state: copies, committed only at the end.
type exec struct {
	regs    [64]uint32
	sems    [256]int32
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

func field(c isa.CCInst, name string) int64 {
	v, err := c.Get(name)
	if err != nil {
		panic(err) // the member tables name these fields
	}
	return v
}

// step executes slot pc and returns the next pc.
func (x *exec) step(pc int, c isa.CCInst) (int, error) {
	op := c.Op()
	typ, ok := isa.CCOpType(op)
	if !ok {
		return 0, fmt.Errorf("%#02x: %w", op, ErrUnknownOp)
	}
	switch typ {
	case isa.CCTypeNOP:
	case isa.CCTypeMOV:
		v, err := x.r(field(c, "src"))
		if err != nil {
			return 0, err
		}
		return pc + 1, x.set(field(c, "dst"), v)
	case isa.CCTypeMOVIMM:
		d, imm := field(c, "dst"), uint32(field(c, "imm"))
		old, err := x.r(d)
		if err != nil {
			return 0, err
		}
		switch op {
		case 0x02: // MOV_IMM_LO: the low half, the high half kept
			return pc + 1, x.set(d, old&0xffff0000|imm)
		case 0x03: // MOV_IMM_HI: the high half, the low half kept
			return pc + 1, x.set(d, old&0xffff|imm<<16)
		}
		return pc + 1, x.set(d, uint32(int32(int16(imm)))) // MOV_IMM_LO_S: sign-extended
	case isa.CCTypeALU:
		return pc + 1, x.alu(op, field(c, "dst"), field(c, "src0"), field(c, "src1"))
	case isa.CCTypeBR, isa.CCTypeBL:
		return x.branch(pc, op, c)
	case isa.CCTypeMEM:
		return pc + 1, x.memOp(op, field(c, "srcdst"), field(c, "addr_reg"), field(c, "addr_imm"))
	case isa.CCTypeSEMR:
		id := field(c, "semid")
		return pc + 1, x.set(field(c, "dst"), uint32(x.sems[id]))
	case isa.CCTypeSEMU:
		v, err := x.r(field(c, "src0"))
		if err != nil {
			return 0, err
		}
		id, val := field(c, "semid"), int32(v+uint32(field(c, "imm")))
		if op == 0xb1 { // SEM_WRITE
			x.sems[id] = val
		} else { // SEM_ADD
			x.sems[id] += val
		}
	}
	return pc + 1, nil
}

// branch: BR_<kind>, _T (taken when r[cc_src] ≠ 0), _F (when = 0) and
// BL_<kind> (r[dst] = the next slot, then jump). REL_IMM targets the slot
// at the branch's own + target; REL_REG the branch's own + r[target];
// REG64 the slot (r[target], r[target+1]) names. Slot 15 ends the word.
func (x *exec) branch(pc int, op uint8, c isa.CCInst) (int, error) {
	kind, variant := (op-0x90)/4, (op-0x90)%4
	t := field(c, "target")
	if variant == 3 { // BL: link
		if err := x.set(field(c, "dst"), uint32(pc+1)); err != nil {
			return 0, err
		}
	} else if variant != 0 {
		cc, err := x.r(field(c, "cc_src"))
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
func (x *exec) memOp(op uint8, rd, ra, imm int64) error {
	base, err := x.r(ra)
	if err != nil {
		return err
	}
	addr := uint64(base) + uint64(imm)
	size := map[uint8]int{0xa0: 4, 0xa1: 2, 0xa2: 2, 0xa3: 1, 0xa4: 1, 0xa5: 4, 0xa6: 2, 0xa7: 1, 0xa8: 8, 0xa9: 16, 0xaa: 8, 0xab: 16}[op]
	if addr%uint64(size) != 0 {
		return fmt.Errorf("%d-byte access at %#x: %w", size, addr, ErrMisaligned)
	}
	if rd < 0 || rd+int64(size+3)/4 > 64 {
		return fmt.Errorf("r%d..: %w", rd, ErrRegister)
	}
	store := op >= 0xa5 && op <= 0xa7 || op == 0xaa || op == 0xab
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
	case 0xa2: // LDRHS
		v = uint64(uint32(int32(int16(v))))
	case 0xa4: // LDRBS
		v = uint64(uint32(int32(int8(v))))
	case 0xa8: // LDRD
		return x.setPair(rd, v)
	case 0xa9: // LDRQ
		for i := int64(0); i < 4; i++ {
			x.regs[rd+i] = uint32(b[4*i]) | uint32(b[4*i+1])<<8 | uint32(b[4*i+2])<<16 | uint32(b[4*i+3])<<24
		}
		return nil
	}
	return x.set(rd, uint32(v))
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
func (x *exec) alu(op uint8, d, s0, s1 int64) error {
	wide := op >= 0x20 && op <= 0x2e || op == 0x3d || op == 0x3e || op == 0x3f || op >= 0x46 && op <= 0x49 || op == 0x4b ||
		op >= 0x70 && op <= 0x7d
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
func compute(op uint8, a, b uint64) (r uint64, to64 bool, err error) {
	a32, b32 := uint32(a), uint32(b)
	sa, sb := int32(a32), int32(b32)
	fa, fb := math.Float32frombits(a32), math.Float32frombits(b32)
	switch {
	case op >= 0x10 && op <= 0x16:
		return uint64(arith(op-0x10, a32, b32)), false, nil
	case op >= 0x18 && op <= 0x1e:
		return uint64(uint32(sat32(op-0x18, sa, sb))), false, nil
	case op >= 0x20 && op <= 0x26:
		return arith(op-0x20, a, b), true, nil
	case op >= 0x28 && op <= 0x2e:
		return uint64(sat64(op-0x28, int64(a), int64(b))), true, nil
	case op >= 0x30 && op <= 0x39:
		return uint64(uint32(floatOp(op, fa, fb))), false, nil
	case op >= 0x3a && op <= 0x3c:
		return uint64(uint32(absOp(op-0x3a, sa, sb))), false, nil
	case op >= 0x3d && op <= 0x3f:
		return uint64(absOp(op-0x3d, int64(a), int64(b))), true, nil
	case op >= 0x40 && op <= 0x45:
		return uint64(shift32(op-0x40, a32, uint(b32&31))), false, nil
	case op >= 0x46 && op <= 0x49: // ASR64, LSL64, LSR64, ROL64 (isa's names)
		return shift64(op-0x46+1, a, uint(b&63)), true, nil
	case op == 0x4a:
		return uint64(bits.LeadingZeros32(a32)), false, nil
	case op == 0x4b:
		return uint64(bits.LeadingZeros64(a)), false, nil
	case op >= 0x50 && op <= 0x57:
		return uint64(logic(op-0x50, a32, b32)), false, nil
	case op >= 0x60 && op <= 0x85 && (op-0x60)%8 < 6:
		return b2u(compare((op-0x60)/8, (op-0x60)%8, a, b)), false, nil
	}
	return 0, false, fmt.Errorf("%#02x: %w", op, ErrUnknownOp)
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
func floatOp(op uint8, a, b float32) int64 {
	f := func(r float32) int64 { return int64(math.Float32bits(r)) }
	abs := func(x float32) float32 { return math.Float32frombits(math.Float32bits(x) &^ (1 << 31)) }
	nanOr := func(r float32) float32 {
		if a != a || b != b {
			return float32(math.NaN())
		}
		return r
	}
	switch op {
	case 0x30:
		return f(a + b)
	case 0x31:
		return f(a - b)
	case 0x32:
		return f(a * b)
	case 0x33:
		return f(a / b)
	case 0x34:
		switch {
		case a != a:
			return 0
		case a >= math.MaxInt32:
			return math.MaxInt32
		case a <= math.MinInt32:
			return math.MinInt32
		}
		return int64(int32(a))
	case 0x35:
		return f(nanOr(max(a, b)))
	case 0x36:
		return f(nanOr(min(a, b)))
	case 0x37:
		return f(abs(a))
	case 0x38:
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
