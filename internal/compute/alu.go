package compute

import (
	"math"

	"ndma/isa"
)

// The ALU (docs/compute.md §2, ALU_OP): each op on float32 operands (the
// arith words) and on int64 operands (the integer band 0xC4.. and the
// bitvec words). Comparisons give 1 or 0; the logical ops read non-zero as
// true; bitwise and shift ops on floats act on the values truncated to
// integers (INFERRED: the sources give no float reading of them).

func b2f(b bool) float32 {
	if b {
		return 1
	}
	return 0
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

func abs64(a int64) int64 {
	if a < 0 {
		return -a
	}
	return a
}

// floatOps are the float32 forms of the ALU ops.
var floatOps = map[isa.ALUOpCode]func(a, b float32) float32{
	isa.ALUOpBypass:       func(a, _ float32) float32 { return a },
	isa.ALUOpBitwiseNot:   func(a, _ float32) float32 { return float32(^int64(a)) },
	isa.ALUOpAdd:          func(a, b float32) float32 { return a + b },
	isa.ALUOpSubtract:     func(a, b float32) float32 { return a - b },
	isa.ALUOpMult:         func(a, b float32) float32 { return a * b },
	isa.ALUOpDivide:       func(a, b float32) float32 { return a / b },
	isa.ALUOpMax:          fmax,
	isa.ALUOpMin:          fmin,
	isa.ALUOpBitwiseAnd:   func(a, b float32) float32 { return float32(int64(a) & int64(b)) },
	isa.ALUOpBitwiseOr:    func(a, b float32) float32 { return float32(int64(a) | int64(b)) },
	isa.ALUOpBitwiseXor:   func(a, b float32) float32 { return float32(int64(a) ^ int64(b)) },
	isa.ALUOpLogicalAnd:   func(a, b float32) float32 { return b2f(a != 0 && b != 0) },
	isa.ALUOpLogicalOr:    func(a, b float32) float32 { return b2f(a != 0 || b != 0) },
	isa.ALUOpLogicalXor:   func(a, b float32) float32 { return b2f((a != 0) != (b != 0)) },
	isa.ALUOpIsEQ:         func(a, b float32) float32 { return b2f(a == b) },
	isa.ALUOpIsGT:         func(a, b float32) float32 { return b2f(a > b) },
	isa.ALUOpIsGE:         func(a, b float32) float32 { return b2f(a >= b) },
	isa.ALUOpIsLE:         func(a, b float32) float32 { return b2f(a <= b) },
	isa.ALUOpIsLT:         func(a, b float32) float32 { return b2f(a < b) },
	isa.ALUOpIsNE:         func(a, b float32) float32 { return b2f(a != b) },
	isa.ALUOpAbsoluteDiff: func(a, b float32) float32 { return float32(math.Abs(float64(a - b))) },
	isa.ALUOpAbsoluteValue: func(a, _ float32) float32 {
		return math.Float32frombits(math.Float32bits(a) &^ (1 << 31))
	},
	isa.ALUOpPow:   func(a, b float32) float32 { return float32(math.Pow(float64(a), float64(b))) },
	isa.ALUOpMod:   func(a, b float32) float32 { return float32(math.Mod(float64(a), float64(b))) },
	isa.ALUOpRsqrt: func(a, _ float32) float32 { return float32(1 / math.Sqrt(float64(a))) },
	isa.ALUOpArithShiftLeft: func(a, b float32) float32 {
		return float32(int64(a) << (uint64(int64(b)) & 63))
	},
	isa.ALUOpArithShiftRight: func(a, b float32) float32 {
		return float32(int64(a) >> (uint64(int64(b)) & 63))
	},
	isa.ALUOpLogicalShiftLeft: func(a, b float32) float32 {
		return float32(uint32(int64(a)) << (uint64(int64(b)) & 31))
	},
	isa.ALUOpLogicalShiftRight: func(a, b float32) float32 {
		return float32(uint32(int64(a)) >> (uint64(int64(b)) & 31))
	},
}

// fmax and fmin propagate NaN, as IEEE maximum/minimum do.
func fmax(a, b float32) float32 {
	if a != a || a > b {
		return a
	}
	return b
}

func fmin(a, b float32) float32 {
	if a != a || a < b {
		return a
	}
	return b
}

// intOps are the int64 forms: the integer band and the bitvec ops. A
// division by zero is an error (ErrDivZero), not a value.
var intOps = map[isa.ALUOpCode]func(a, b int64) (int64, error){
	isa.ALUOpBypass:            func(a, _ int64) (int64, error) { return a, nil },
	isa.ALUOpBitwiseNot:        func(a, _ int64) (int64, error) { return ^a, nil },
	isa.ALUOpArithShiftLeft:    func(a, b int64) (int64, error) { return a << (uint64(b) & 63), nil },
	isa.ALUOpArithShiftRight:   func(a, b int64) (int64, error) { return a >> (uint64(b) & 63), nil },
	isa.ALUOpLogicalShiftLeft:  func(a, b int64) (int64, error) { return int64(uint64(a) << (uint64(b) & 63)), nil },
	isa.ALUOpLogicalShiftRight: func(a, b int64) (int64, error) { return int64(uint64(a) >> (uint64(b) & 63)), nil },
	isa.ALUOpBitwiseAnd:        func(a, b int64) (int64, error) { return a & b, nil },
	isa.ALUOpBitwiseOr:         func(a, b int64) (int64, error) { return a | b, nil },
	isa.ALUOpBitwiseXor:        func(a, b int64) (int64, error) { return a ^ b, nil },
	isa.ALUOpAddInt:            func(a, b int64) (int64, error) { return a + b, nil },
	isa.ALUOpMultInt:           func(a, b int64) (int64, error) { return a * b, nil },
	isa.ALUOpSubtractInt:       func(a, b int64) (int64, error) { return a - b, nil },
	isa.ALUOpDivideInt:         divInt,
	isa.ALUOpModInt:            modInt,
	isa.ALUOpIsEqualInt:        func(a, b int64) (int64, error) { return b2i(a == b), nil },
	isa.ALUOpIsNEInt:           func(a, b int64) (int64, error) { return b2i(a != b), nil },
	isa.ALUOpAbsMaxInt:         func(a, b int64) (int64, error) { return max(abs64(a), abs64(b)), nil },
	isa.ALUOpAbsMinInt:         func(a, b int64) (int64, error) { return min(abs64(a), abs64(b)), nil },
	isa.ALUOpAbsDiffInt:        func(a, b int64) (int64, error) { return abs64(a - b), nil },
	isa.ALUOpAbsValueInt:       func(a, _ int64) (int64, error) { return abs64(a), nil },
	isa.ALUOpMaxInt:            func(a, b int64) (int64, error) { return max(a, b), nil },
	isa.ALUOpMinInt:            func(a, b int64) (int64, error) { return min(a, b), nil },
	isa.ALUOpIsGTInt:           func(a, b int64) (int64, error) { return b2i(a > b), nil },
	isa.ALUOpIsGEInt:           func(a, b int64) (int64, error) { return b2i(a >= b), nil },
	isa.ALUOpIsLEInt:           func(a, b int64) (int64, error) { return b2i(a <= b), nil },
	isa.ALUOpIsLTInt:           func(a, b int64) (int64, error) { return b2i(a < b), nil },
	isa.ALUOpMaxUint:           func(a, b int64) (int64, error) { return int64(max(uint64(a), uint64(b))), nil },
	isa.ALUOpMinUint:           func(a, b int64) (int64, error) { return int64(min(uint64(a), uint64(b))), nil },
	isa.ALUOpIsGTUint:          func(a, b int64) (int64, error) { return b2i(uint64(a) > uint64(b)), nil },
	isa.ALUOpIsGEUint:          func(a, b int64) (int64, error) { return b2i(uint64(a) >= uint64(b)), nil },
	isa.ALUOpIsLEUint:          func(a, b int64) (int64, error) { return b2i(uint64(a) <= uint64(b)), nil },
	isa.ALUOpIsLTUint:          func(a, b int64) (int64, error) { return b2i(uint64(a) < uint64(b)), nil },
	isa.ALUOpMultUint:          func(a, b int64) (int64, error) { return int64(uint64(a) * uint64(b)), nil },
	isa.ALUOpDivideUint:        divUint,
	isa.ALUOpModUint:           modUint,
	isa.ALUOpAmaxInt:           func(a, b int64) (int64, error) { return max(abs64(a), abs64(b)), nil },
	isa.ALUOpAminInt:           func(a, b int64) (int64, error) { return min(abs64(a), abs64(b)), nil },
	isa.ALUOpAmaxUint:          func(a, b int64) (int64, error) { return int64(max(uint64(a), uint64(b))), nil },
	isa.ALUOpAminUint:          func(a, b int64) (int64, error) { return int64(min(uint64(a), uint64(b))), nil },
}

func divInt(a, b int64) (int64, error) {
	if b == 0 {
		return 0, ErrDivZero
	}
	return a / b, nil
}

func modInt(a, b int64) (int64, error) {
	if b == 0 {
		return 0, ErrDivZero
	}
	return a % b, nil
}

func divUint(a, b int64) (int64, error) {
	if b == 0 {
		return 0, ErrDivZero
	}
	return int64(uint64(a) / uint64(b)), nil
}

func modUint(a, b int64) (int64, error) {
	if b == 0 {
		return 0, ErrDivZero
	}
	return int64(uint64(a) % uint64(b)), nil
}

// integerBand reports whether op is one of the CAYMAN+ integer ops (top
// two bits set).
func integerBand(op isa.ALUOpCode) bool { return op >= 0xc0 }

// bitvecOps are the ops a bitvec word (0x51, 0x53) accepts
// (docs/compute.md §7).
func bitvecOp(op isa.ALUOpCode) bool {
	switch op {
	case isa.ALUOpBypass, isa.ALUOpBitwiseNot, isa.ALUOpArithShiftLeft, isa.ALUOpArithShiftRight,
		isa.ALUOpLogicalShiftLeft, isa.ALUOpLogicalShiftRight, isa.ALUOpBitwiseAnd, isa.ALUOpBitwiseOr, isa.ALUOpBitwiseXor:
		return true
	}
	return false
}
