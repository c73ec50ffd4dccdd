#include "textflag.h"

// func rowsNT(d, s unsafe.Pointer, ds, ss int64, n, k int)
//
// k rows of n bytes (a multiple of 16, d and ds 16-byte aligned): row j
// from s+j·ss to d+j·ds, read with MOVOU and written with MOVNTO — stores
// that bypass the cache, so a destination larger than it is not first read
// in (a copy of 64 MiB moves 96 MiB, not 128). SFENCE orders them before
// anything after the call.
TEXT ·rowsNT(SB), NOSPLIT, $0-48
	MOVQ d+0(FP), DI
	MOVQ s+8(FP), SI
	MOVQ ds+16(FP), R8
	MOVQ ss+24(FP), R9
	MOVQ n+32(FP), R10
	MOVQ k+40(FP), CX
	TESTQ CX, CX
	JLE done
	CMPQ R10, $64
	JNE general

row64:	// the common row: one 64-byte block
	MOVOU 0(SI), X0
	MOVOU 16(SI), X1
	MOVOU 32(SI), X2
	MOVOU 48(SI), X3
	MOVNTO X0, 0(DI)
	MOVNTO X1, 16(DI)
	MOVNTO X2, 32(DI)
	MOVNTO X3, 48(DI)
	ADDQ R8, DI
	ADDQ R9, SI
	DECQ CX
	JNZ row64
	JMP fence

general:	// 16 bytes at a time
	XORQ AX, AX
chunk:
	MOVOU (SI)(AX*1), X0
	MOVNTO X0, (DI)(AX*1)
	ADDQ $16, AX
	CMPQ AX, R10
	JLT chunk
	ADDQ R8, DI
	ADDQ R9, SI
	DECQ CX
	JNZ general

fence:
	SFENCE
done:
	RET
