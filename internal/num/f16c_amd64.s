//go:build !purego

#include "textflag.h"

// f32ToF16F16C(d, s *byte, n int) (done int): binary16 = RNE(fp32) over n
// scalars, 32 a block (four VCVTPS2PH, imm 0: round to nearest even, not
// MXCSR's mode), unaligned loads and stores. A block with a NaN is left
// unwritten and ends the call: the Go codec gives a NaN its payload rule.
// Returns the scalars done, a multiple of 32. Y14, Y15 left alone.
TEXT ·f32ToF16F16C(SB), NOSPLIT, $0-32
	MOVQ d+0(FP), DI
	MOVQ s+8(FP), SI
	MOVQ n+16(FP), CX
	XORQ AX, AX
	SHRQ $5, CX
	JZ   out

loop:
	VMOVUPS   (SI), Y0
	VMOVUPS   32(SI), Y1
	VMOVUPS   64(SI), Y2
	VMOVUPS   96(SI), Y3
	VCMPPS    $3, Y0, Y0, Y4
	VCMPPS    $3, Y1, Y1, Y5
	VORPS     Y5, Y4, Y4
	VCMPPS    $3, Y2, Y2, Y5
	VORPS     Y5, Y4, Y4
	VCMPPS    $3, Y3, Y3, Y5
	VORPS     Y5, Y4, Y4
	VPTEST    Y4, Y4
	JNZ       out
	VCVTPS2PH $0, Y0, X0
	VCVTPS2PH $0, Y1, X1
	VCVTPS2PH $0, Y2, X2
	VCVTPS2PH $0, Y3, X3
	VMOVDQU   X0, (DI)
	VMOVDQU   X1, 16(DI)
	VMOVDQU   X2, 32(DI)
	VMOVDQU   X3, 48(DI)
	ADDQ      $128, SI
	ADDQ      $64, DI
	ADDQ      $32, AX
	DECQ      CX
	JNZ       loop

out:
	VZEROUPPER
	MOVQ AX, done+24(FP)
	RET

// cpuidF16C(): CPUID leaf 1's ECX bit 29 (F16C).
TEXT ·cpuidF16C(SB), NOSPLIT, $0-1
	MOVL $1, AX
	XORL CX, CX
	CPUID
	SHRL $29, CX
	ANDL $1, CX
	MOVB CX, ret+0(FP)
	RET
