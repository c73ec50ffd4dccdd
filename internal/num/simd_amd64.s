//go:build !purego

#include "textflag.h"

// The fp32 in-flight compute kernels (issue 17): 32 scalars a block, four
// ymm registers, unaligned loads and stores (a run starts anywhere). A block
// whose results hold a NaN is left unwritten and ends the call: the caller
// redoes it with the Go rule, so NaN results never come from the CPU.

// func addF32AVX(d, s *byte, n int) (done int)
TEXT ·addF32AVX(SB), NOSPLIT, $0-32
	MOVQ d+0(FP), DI
	MOVQ s+8(FP), SI
	MOVQ n+16(FP), CX
	XORQ AX, AX
	SHRQ $5, CX
	JZ   addret

addloop:
	VMOVUPS (DI), Y0
	VMOVUPS 32(DI), Y1
	VMOVUPS 64(DI), Y2
	VMOVUPS 96(DI), Y3
	VADDPS  (SI), Y0, Y0
	VADDPS  32(SI), Y1, Y1
	VADDPS  64(SI), Y2, Y2
	VADDPS  96(SI), Y3, Y3
	VCMPPS  $3, Y1, Y0, Y4 // unordered: a NaN in Y0 or Y1
	VCMPPS  $3, Y3, Y2, Y5
	VORPS   Y5, Y4, Y4
	VPTEST  Y4, Y4
	JNZ     addret
	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 32(DI)
	VMOVUPS Y2, 64(DI)
	VMOVUPS Y3, 96(DI)
	ADDQ    $128, DI
	ADDQ    $128, SI
	ADDQ    $32, AX
	DECQ    CX
	JNZ     addloop

addret:
	VZEROUPPER
	MOVQ AX, done+24(FP)
	RET

// func mulF32AVX(d, s *byte, n int) (done int)
TEXT ·mulF32AVX(SB), NOSPLIT, $0-32
	MOVQ d+0(FP), DI
	MOVQ s+8(FP), SI
	MOVQ n+16(FP), CX
	XORQ AX, AX
	SHRQ $5, CX
	JZ   mulret

mulloop:
	VMOVUPS (DI), Y0
	VMOVUPS 32(DI), Y1
	VMOVUPS 64(DI), Y2
	VMOVUPS 96(DI), Y3
	VMULPS  (SI), Y0, Y0
	VMULPS  32(SI), Y1, Y1
	VMULPS  64(SI), Y2, Y2
	VMULPS  96(SI), Y3, Y3
	VCMPPS  $3, Y1, Y0, Y4
	VCMPPS  $3, Y3, Y2, Y5
	VORPS   Y5, Y4, Y4
	VPTEST  Y4, Y4
	JNZ     mulret
	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 32(DI)
	VMOVUPS Y2, 64(DI)
	VMOVUPS Y3, 96(DI)
	ADDQ    $128, DI
	ADDQ    $128, SI
	ADDQ    $32, AX
	DECQ    CX
	JNZ     mulloop

mulret:
	VZEROUPPER
	MOVQ AX, done+24(FP)
	RET
