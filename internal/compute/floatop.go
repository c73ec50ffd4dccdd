package compute

import "ndma/isa"

// FloatOp is op's float32 form as the DVE computes it (the ALU table the
// words run by, docs/compute.md §2): for a caller that computes an
// operation ndma forms no word for with the same arithmetic.
func FloatOp(op isa.ALUOpCode) (func(a, b float32) float32, bool) {
	if integerBand(op) || bitvecOp(op) {
		return nil, false
	}
	f, ok := floatOps[op]
	return f, ok
}
