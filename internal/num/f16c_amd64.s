//go:build !purego

#include "textflag.h"

// ARGS: DI = d, SI = s, CX = whole blocks of 32, AX = scalars done (0);
// to out when there is no whole block.
#define ARGS(out) \
	MOVQ d+0(FP), DI; \
	MOVQ s+8(FP), SI; \
	MOVQ n+16(FP), CX; \
	XORQ AX, AX; \
	SHRQ $5, CX; \
	JZ   out

// LOAD32 loads the 32 fp32 scalars at SI into Y0–Y3 and jumps to out when
// one of them is a NaN (VCMPPS $3: unordered), Y4 and Y5 its scratch.
#define LOAD32(out) \
	VMOVUPS (SI), Y0; \
	VMOVUPS 32(SI), Y1; \
	VMOVUPS 64(SI), Y2; \
	VMOVUPS 96(SI), Y3; \
	VCMPPS  $3, Y0, Y0, Y4; \
	VCMPPS  $3, Y1, Y1, Y5; \
	VORPS   Y5, Y4, Y4; \
	VCMPPS  $3, Y2, Y2, Y5; \
	VORPS   Y5, Y4, Y4; \
	VCMPPS  $3, Y3, Y3, Y5; \
	VORPS   Y5, Y4, Y4; \
	VPTEST  Y4, Y4; \
	JNZ     out

// BF16RNE rounds the fp32 lanes of y to bfloat16 in their low halves, t
// its scratch: (x + 0x7FFF + (x>>16 & 1)) >> 16, with Y14 = 0x7FFF and
// Y15 = 1 in every lane.
#define BF16RNE(y, t) \
	VPSRLD $16, y, t; \
	VPAND  Y15, t, t; \
	VPADDD Y14, y, y; \
	VPADDD t, y, y; \
	VPSRLD $16, y, y

// f32ToF16F16C(d, s *byte, n int) (done int): binary16 = RNE(fp32) over n
// scalars, 32 a block (four VCVTPS2PH, imm 0: round to nearest even, not
// MXCSR's mode), unaligned loads and stores. A block with a NaN is left
// unwritten and ends the call: the Go codec gives a NaN its payload rule.
// Returns the scalars done, a multiple of 32. Y14, Y15 left alone.
TEXT ·f32ToF16F16C(SB), NOSPLIT, $0-32
	ARGS(out)

loop:
	LOAD32(out)
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

// f32ToBF16AVX2(d, s *byte, n int) (done int): bfloat16 = RNE(fp32) over n
// scalars, 32 a block: (x + 0x7FFF + (x>>16 & 1)) >> 16 in 32-bit lanes
// (no carry out: the largest non-NaN, -Inf 0xFF800000, stays below 2^32),
// then VPACKUSDW (exact: every lane is ≤ 0xFFFF) and VPERMQ to undo the
// per-lane interleave. A block with a NaN is left unwritten and ends the
// call, as f32ToF16F16C's does. Returns the scalars done, a multiple of 32.
TEXT ·f32ToBF16AVX2(SB), NOSPLIT, $0-32
	ARGS(bfout)
	MOVL $0x7FFF, DX
	VMOVD DX, X14
	VPBROADCASTD X14, Y14
	MOVL $1, DX
	VMOVD DX, X15
	VPBROADCASTD X15, Y15

bfloop:
	LOAD32(bfout)
	BF16RNE(Y0, Y4)
	BF16RNE(Y1, Y5)
	BF16RNE(Y2, Y6)
	BF16RNE(Y3, Y7)
	VPACKUSDW Y1, Y0, Y0
	VPERMQ    $0xD8, Y0, Y0
	VPACKUSDW Y3, Y2, Y2
	VPERMQ    $0xD8, Y2, Y2
	VMOVDQU   Y0, (DI)
	VMOVDQU   Y2, 32(DI)
	ADDQ      $128, SI
	ADDQ      $64, DI
	ADDQ      $32, AX
	DECQ      CX
	JNZ       bfloop

bfout:
	VZEROUPPER
	MOVQ AX, done+24(FP)
	RET

// f16ToF32F16C(d *float32, s *byte, n int) (done int): fp32 = binary16 over
// n scalars, 16 a block (two VCVTPH2PS: exact, a signalling NaN quieted),
// unaligned loads and stores. Returns the scalars done, a multiple of 16.
TEXT ·f16ToF32F16C(SB), NOSPLIT, $0-32
	MOVQ d+0(FP), DI
	MOVQ s+8(FP), SI
	MOVQ n+16(FP), CX
	XORQ AX, AX
	SHRQ $4, CX
	JZ   wdone

wloop:
	VCVTPH2PS (SI), Y0
	VCVTPH2PS 16(SI), Y1
	VMOVUPS   Y0, (DI)
	VMOVUPS   Y1, 32(DI)
	ADDQ      $32, SI
	ADDQ      $64, DI
	ADDQ      $16, AX
	DECQ      CX
	JNZ       wloop
	VZEROUPPER

wdone:
	MOVQ AX, done+24(FP)
	RET
