//go:build !purego

#include "textflag.h"

// STEP(off): one step of k — the 16 values of x at DI+off*64 in Y12, Y13
// and each of the 6 values of w at SI+off*24 broadcast into Y14 and
// multiplied into its row of the tile, Y0..Y11 (two registers a row).
#define STEP(off) \
	VMOVUPS      (off*64)(DI), Y12; \
	VMOVUPS      (off*64+32)(DI), Y13; \
	VBROADCASTSS (off*24)(SI), Y14; \
	VFMADD231PS  Y12, Y14, Y0; \
	VFMADD231PS  Y13, Y14, Y1; \
	VBROADCASTSS (off*24+4)(SI), Y14; \
	VFMADD231PS  Y12, Y14, Y2; \
	VFMADD231PS  Y13, Y14, Y3; \
	VBROADCASTSS (off*24+8)(SI), Y14; \
	VFMADD231PS  Y12, Y14, Y4; \
	VFMADD231PS  Y13, Y14, Y5; \
	VBROADCASTSS (off*24+12)(SI), Y14; \
	VFMADD231PS  Y12, Y14, Y6; \
	VFMADD231PS  Y13, Y14, Y7; \
	VBROADCASTSS (off*24+16)(SI), Y14; \
	VFMADD231PS  Y12, Y14, Y8; \
	VFMADD231PS  Y13, Y14, Y9; \
	VBROADCASTSS (off*24+20)(SI), Y14; \
	VFMADD231PS  Y12, Y14, Y10; \
	VFMADD231PS  Y13, Y14, Y11

// func kern6x16(k int, a, b, c *float32, ldc int, acc bool)
//
// The 6×16 tile at c (rows DX, DX+R8, …, R8 = ldc·4 bytes) starts from c
// when acc, from zero otherwise, takes k steps of STEP (four at a time,
// then one at a time) and is stored back. Y15 is left alone (X15 is
// ABIInternal's zero register).
TEXT ·kern6x16(SB), NOSPLIT, $0-41
	MOVQ    k+0(FP), CX
	MOVQ    a+8(FP), SI
	MOVQ    b+16(FP), DI
	MOVQ    c+24(FP), DX
	MOVQ    ldc+32(FP), R8
	SHLQ    $2, R8
	LEAQ    (R8)(R8*2), R9
	LEAQ    (DX)(R8*4), R10
	MOVBQZX acc+40(FP), AX
	TESTQ   AX, AX
	JZ      zero
	VMOVUPS (DX), Y0
	VMOVUPS 32(DX), Y1
	VMOVUPS (DX)(R8*1), Y2
	VMOVUPS 32(DX)(R8*1), Y3
	VMOVUPS (DX)(R8*2), Y4
	VMOVUPS 32(DX)(R8*2), Y5
	VMOVUPS (DX)(R9*1), Y6
	VMOVUPS 32(DX)(R9*1), Y7
	VMOVUPS (R10), Y8
	VMOVUPS 32(R10), Y9
	VMOVUPS (R10)(R8*1), Y10
	VMOVUPS 32(R10)(R8*1), Y11
	JMP     loops

zero:
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	VXORPS Y8, Y8, Y8
	VXORPS Y9, Y9, Y9
	VXORPS Y10, Y10, Y10
	VXORPS Y11, Y11, Y11

loops:
	MOVQ CX, BX
	SHRQ $2, BX
	JZ   tail

loop4:
	STEP(0)
	STEP(1)
	STEP(2)
	STEP(3)
	ADDQ $96, SI
	ADDQ $256, DI
	DECQ BX
	JNZ  loop4

tail:
	ANDQ $3, CX
	JZ   store

loop1:
	STEP(0)
	ADDQ $24, SI
	ADDQ $64, DI
	DECQ CX
	JNZ  loop1

store:
	VMOVUPS Y0, (DX)
	VMOVUPS Y1, 32(DX)
	VMOVUPS Y2, (DX)(R8*1)
	VMOVUPS Y3, 32(DX)(R8*1)
	VMOVUPS Y4, (DX)(R8*2)
	VMOVUPS Y5, 32(DX)(R8*2)
	VMOVUPS Y6, (DX)(R9*1)
	VMOVUPS Y7, 32(DX)(R9*1)
	VMOVUPS Y8, (R10)
	VMOVUPS Y9, 32(R10)
	VMOVUPS Y10, (R10)(R8*1)
	VMOVUPS Y11, 32(R10)(R8*1)
	VZEROUPPER
	RET

// func packX16(k int, dst, src *float32, ld int)
//
// Copies k rows of 16 floats, ld floats apart at src, to dst contiguously.
TEXT ·packX16(SB), NOSPLIT, $0-32
	MOVQ k+0(FP), CX
	MOVQ dst+8(FP), DI
	MOVQ src+16(FP), SI
	MOVQ ld+24(FP), R8
	SHLQ $2, R8
	TESTQ CX, CX
	JZ   xdone

xloop:
	VMOVUPS (SI), Y0
	VMOVUPS 32(SI), Y1
	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 32(DI)
	ADDQ    R8, SI
	ADDQ    $64, DI
	DECQ    CX
	JNZ     xloop

xdone:
	VZEROUPPER
	RET

// func packW6(k int, dst, src *float32, ld int)
//
// Copies k rows of 6 floats, ld floats apart at src, to dst contiguously.
TEXT ·packW6(SB), NOSPLIT, $0-32
	MOVQ k+0(FP), CX
	MOVQ dst+8(FP), DI
	MOVQ src+16(FP), SI
	MOVQ ld+24(FP), R8
	SHLQ $2, R8
	TESTQ CX, CX
	JZ   wdone

wloop:
	VMOVUPS (SI), X0
	MOVQ    16(SI), X1
	VMOVUPS X0, (DI)
	MOVQ    X1, 16(DI)
	ADDQ    R8, SI
	ADDQ    $24, DI
	DECQ    CX
	JNZ     wloop

wdone:
	RET

// STEP32(off): one step of k on ZMM registers — the 32 values of x at
// DI+off*128 in Z12, Z13 and each of the 6 values of w at SI+off*24
// broadcast into Z16..Z21 and multiplied into its row of the tile,
// Z0..Z11 (two registers a row). Distinct broadcast registers let the
// six broadcasts issue ahead of the FMAs that use them.
#define STEP32(off) \
	VMOVUPS      (off*128)(DI), Z12; \
	VMOVUPS      (off*128+64)(DI), Z13; \
	VBROADCASTSS (off*24)(SI), Z16; \
	VBROADCASTSS (off*24+4)(SI), Z17; \
	VBROADCASTSS (off*24+8)(SI), Z18; \
	VBROADCASTSS (off*24+12)(SI), Z19; \
	VBROADCASTSS (off*24+16)(SI), Z20; \
	VBROADCASTSS (off*24+20)(SI), Z21; \
	VFMADD231PS  Z12, Z16, Z0; \
	VFMADD231PS  Z13, Z16, Z1; \
	VFMADD231PS  Z12, Z17, Z2; \
	VFMADD231PS  Z13, Z17, Z3; \
	VFMADD231PS  Z12, Z18, Z4; \
	VFMADD231PS  Z13, Z18, Z5; \
	VFMADD231PS  Z12, Z19, Z6; \
	VFMADD231PS  Z13, Z19, Z7; \
	VFMADD231PS  Z12, Z20, Z8; \
	VFMADD231PS  Z13, Z20, Z9; \
	VFMADD231PS  Z12, Z21, Z10; \
	VFMADD231PS  Z13, Z21, Z11

// func kern6x32(k int, a, b, c *float32, ldc int, acc bool)
//
// kern6x16 on ZMM registers (AVX-512F): the 6×32 tile at c (rows DX,
// DX+R8, …, R8 = ldc·4 bytes) starts from c when acc, from zero otherwise,
// takes k steps of STEP32 (four at a time, then one at a time) and is
// stored back. Z15 (X15, ABIInternal's zero register) is left alone;
// VZEROUPPER clears the upper halves of Z0..Z14 for the SSE code after.
TEXT ·kern6x32(SB), NOSPLIT, $0-41
	MOVQ    k+0(FP), CX
	MOVQ    a+8(FP), SI
	MOVQ    b+16(FP), DI
	MOVQ    c+24(FP), DX
	MOVQ    ldc+32(FP), R8
	SHLQ    $2, R8
	LEAQ    (R8)(R8*2), R9
	LEAQ    (DX)(R8*4), R10
	MOVBQZX acc+40(FP), AX
	TESTQ   AX, AX
	JZ      zero32
	VMOVUPS (DX), Z0
	VMOVUPS 64(DX), Z1
	VMOVUPS (DX)(R8*1), Z2
	VMOVUPS 64(DX)(R8*1), Z3
	VMOVUPS (DX)(R8*2), Z4
	VMOVUPS 64(DX)(R8*2), Z5
	VMOVUPS (DX)(R9*1), Z6
	VMOVUPS 64(DX)(R9*1), Z7
	VMOVUPS (R10), Z8
	VMOVUPS 64(R10), Z9
	VMOVUPS (R10)(R8*1), Z10
	VMOVUPS 64(R10)(R8*1), Z11
	// The tile 6 rows down, the next one MatMul takes, towards L1 while
	// this one computes (out at a large stride misses in L2).
	LEAQ       (R10)(R8*2), R11
	PREFETCHT0 (R11)
	PREFETCHT0 64(R11)
	PREFETCHT0 (R11)(R8*1)
	PREFETCHT0 64(R11)(R8*1)
	PREFETCHT0 (R11)(R8*2)
	PREFETCHT0 64(R11)(R8*2)
	PREFETCHT0 (R11)(R9*1)
	PREFETCHT0 64(R11)(R9*1)
	LEAQ       (R11)(R8*4), R11
	PREFETCHT0 (R11)
	PREFETCHT0 64(R11)
	PREFETCHT0 (R11)(R8*1)
	PREFETCHT0 64(R11)(R8*1)
	JMP        loops32

zero32:
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3
	VPXORD Z4, Z4, Z4
	VPXORD Z5, Z5, Z5
	VPXORD Z6, Z6, Z6
	VPXORD Z7, Z7, Z7
	VPXORD Z8, Z8, Z8
	VPXORD Z9, Z9, Z9
	VPXORD Z10, Z10, Z10
	VPXORD Z11, Z11, Z11

loops32:
	MOVQ CX, BX
	SHRQ $2, BX
	JZ   tail32

loop432:
	STEP32(0)
	STEP32(1)
	STEP32(2)
	STEP32(3)
	ADDQ $96, SI
	ADDQ $512, DI
	DECQ BX
	JNZ  loop432

tail32:
	ANDQ $3, CX
	JZ   store32

loop132:
	STEP32(0)
	ADDQ $24, SI
	ADDQ $128, DI
	DECQ CX
	JNZ  loop132

store32:
	VMOVUPS Z0, (DX)
	VMOVUPS Z1, 64(DX)
	VMOVUPS Z2, (DX)(R8*1)
	VMOVUPS Z3, 64(DX)(R8*1)
	VMOVUPS Z4, (DX)(R8*2)
	VMOVUPS Z5, 64(DX)(R8*2)
	VMOVUPS Z6, (DX)(R9*1)
	VMOVUPS Z7, 64(DX)(R9*1)
	VMOVUPS Z8, (R10)
	VMOVUPS Z9, 64(R10)
	VMOVUPS Z10, (R10)(R8*1)
	VMOVUPS Z11, 64(R10)(R8*1)
	VZEROUPPER
	RET

// func packX32(k int, dst, src *float32, ld int)
//
// Copies k rows of 32 floats, ld floats apart at src, to dst contiguously.
TEXT ·packX32(SB), NOSPLIT, $0-32
	MOVQ  k+0(FP), CX
	MOVQ  dst+8(FP), DI
	MOVQ  src+16(FP), SI
	MOVQ  ld+24(FP), R8
	SHLQ  $2, R8
	TESTQ CX, CX
	JZ    x32done

x32loop:
	VMOVUPS    (SI), Z0
	VMOVUPS    64(SI), Z1
	PREFETCHT0 128(SI)
	PREFETCHT0 192(SI)
	VMOVUPS Z0, (DI)
	VMOVUPS Z1, 64(DI)
	ADDQ    R8, SI
	ADDQ    $128, DI
	DECQ    CX
	JNZ     x32loop

x32done:
	VZEROUPPER
	RET
