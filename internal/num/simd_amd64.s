//go:build !purego

#include "textflag.h"

// The fp32 in-flight compute kernels (issue 17): d = a op s, 32 scalars a
// block, four ymm registers, unaligned loads and stores (a run starts
// anywhere); a is d itself (in place) or a run apart from it (an attached
// page combined into its new storage in one pass, mem.Combine). A block
// with a NaN among its results (ADD, MULTIPLY) or its operands (MAX, MIN) is
// left unwritten and ends the call: the caller redoes it in Go, so a NaN
// result never comes from the CPU's rule. Each returns the scalars done, a
// multiple of 32: up to that block or to the last partial one. Y14 and Y15
// are left alone (X15 is ABIInternal's zero register).

// ARGS: DI = d, BX = a, SI = s, CX = whole blocks, AX = scalars done.
#define ARGS \
	MOVQ d+0(FP), DI \
	MOVQ a+8(FP), BX \
	MOVQ s+16(FP), SI \
	MOVQ n+24(FP), CX \
	XORQ AX, AX \
	SHRQ $5, CX

// LOAD: the block of a in Y0..Y3.
#define LOAD \
	VMOVUPS (BX), Y0 \
	VMOVUPS 32(BX), Y1 \
	VMOVUPS 64(BX), Y2 \
	VMOVUPS 96(BX), Y3

// ARITH: Y0..Y3 = a op s, with Y4 nonzero where a result is NaN
// (VCMPPS predicate 3: unordered).
#define ARITH(op) \
	op     (SI), Y0, Y0 \
	op     32(SI), Y1, Y1 \
	op     64(SI), Y2, Y2 \
	op     96(SI), Y3, Y3 \
	VCMPPS $3, Y1, Y0, Y4 \
	VCMPPS $3, Y3, Y2, Y5 \
	VORPS  Y5, Y4, Y4

// MINMAX: Y0..Y3 = op(a, s) where neither is NaN, with Y12 nonzero where
// one is. VMAXPS and VMINPS give their second operand on a tie (±0 among
// them): taken both ways and joined (VANDPS for MAX, VORPS for MIN), a tie
// of ±0 is +0 for MAX and −0 for MIN — Go's max and min — and any other tie
// its one value.
#define MINMAX(op, join) \
	VMOVUPS (SI), Y4 \
	VMOVUPS 32(SI), Y5 \
	VMOVUPS 64(SI), Y6 \
	VMOVUPS 96(SI), Y7 \
	VCMPPS  $3, Y4, Y0, Y12 \
	VCMPPS  $3, Y5, Y1, Y13 \
	VORPS   Y13, Y12, Y12 \
	VCMPPS  $3, Y6, Y2, Y13 \
	VORPS   Y13, Y12, Y12 \
	VCMPPS  $3, Y7, Y3, Y13 \
	VORPS   Y13, Y12, Y12 \
	op      Y4, Y0, Y8 \
	op      Y5, Y1, Y9 \
	op      Y6, Y2, Y10 \
	op      Y7, Y3, Y11 \
	op      Y0, Y4, Y0 \
	op      Y1, Y5, Y1 \
	op      Y2, Y6, Y2 \
	op      Y3, Y7, Y3 \
	join    Y8, Y0, Y0 \
	join    Y9, Y1, Y1 \
	join    Y10, Y2, Y2 \
	join    Y11, Y3, Y3

// STORE: Y0..Y3 to the block of d, and on to the next.
#define STORE \
	VMOVUPS Y0, (DI) \
	VMOVUPS Y1, 32(DI) \
	VMOVUPS Y2, 64(DI) \
	VMOVUPS Y3, 96(DI) \
	ADDQ    $128, DI \
	ADDQ    $128, BX \
	ADDQ    $128, SI \
	ADDQ    $32, AX

// func addF32AVX(d, a, s *byte, n int) (done int)
TEXT ·addF32AVX(SB), NOSPLIT, $0-40
	ARGS
	JZ addret

addloop:
	LOAD
	ARITH(VADDPS)
	VPTEST Y4, Y4
	JNZ    addret
	STORE
	DECQ   CX
	JNZ    addloop

addret:
	VZEROUPPER
	MOVQ AX, done+32(FP)
	RET

// func mulF32AVX(d, a, s *byte, n int) (done int)
TEXT ·mulF32AVX(SB), NOSPLIT, $0-40
	ARGS
	JZ mulret

mulloop:
	LOAD
	ARITH(VMULPS)
	VPTEST Y4, Y4
	JNZ    mulret
	STORE
	DECQ   CX
	JNZ    mulloop

mulret:
	VZEROUPPER
	MOVQ AX, done+32(FP)
	RET

// func maxF32AVX(d, a, s *byte, n int) (done int)
TEXT ·maxF32AVX(SB), NOSPLIT, $0-40
	ARGS
	JZ maxret

maxloop:
	LOAD
	MINMAX(VMAXPS, VANDPS)
	VPTEST Y12, Y12
	JNZ    maxret
	STORE
	DECQ   CX
	JNZ    maxloop

maxret:
	VZEROUPPER
	MOVQ AX, done+32(FP)
	RET

// func minF32AVX(d, a, s *byte, n int) (done int)
TEXT ·minF32AVX(SB), NOSPLIT, $0-40
	ARGS
	JZ minret

minloop:
	LOAD
	MINMAX(VMINPS, VORPS)
	VPTEST Y12, Y12
	JNZ    minret
	STORE
	DECQ   CX
	JNZ    minloop

minret:
	VZEROUPPER
	MOVQ AX, done+32(FP)
	RET
