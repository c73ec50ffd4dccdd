#include "textflag.h"

// func rowsNT(d, s unsafe.Pointer, ds, ss int64, n, k int)
//
// k rows of n bytes (a multiple of 16, d and ds 16-byte aligned): row j
// from s+j·ss to d+j·ds, read with MOVOU and written with MOVNTO — stores
// that bypass the cache, so a destination larger than it is not first read
// in (a copy of 64 MiB moves 96 MiB, not 128). Loads go in groups ahead of
// their stores (four 64-byte rows, or a 64-byte block of a longer row), so
// that their misses overlap. SFENCE orders the stores before anything after
// the call. An ABI0 function: X8–X15 and R12–R13 are the caller's to lose.
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

	// 64-byte rows, four an iteration
	LEAQ (R9)(R9*2), R12 // 3·ss
	LEAQ (R8)(R8*2), R13 // 3·ds
	MOVQ CX, BX
	SHRQ $2, BX
	ANDQ $3, CX
	TESTQ BX, BX
	JZ rest64

four64:
	MOVOU 0(SI), X0
	MOVOU 16(SI), X1
	MOVOU 32(SI), X2
	MOVOU 48(SI), X3
	MOVOU 0(SI)(R9*1), X4
	MOVOU 16(SI)(R9*1), X5
	MOVOU 32(SI)(R9*1), X6
	MOVOU 48(SI)(R9*1), X7
	MOVOU 0(SI)(R9*2), X8
	MOVOU 16(SI)(R9*2), X9
	MOVOU 32(SI)(R9*2), X10
	MOVOU 48(SI)(R9*2), X11
	MOVOU 0(SI)(R12*1), X12
	MOVOU 16(SI)(R12*1), X13
	MOVOU 32(SI)(R12*1), X14
	MOVOU 48(SI)(R12*1), X15
	MOVNTO X0, 0(DI)
	MOVNTO X1, 16(DI)
	MOVNTO X2, 32(DI)
	MOVNTO X3, 48(DI)
	MOVNTO X4, 0(DI)(R8*1)
	MOVNTO X5, 16(DI)(R8*1)
	MOVNTO X6, 32(DI)(R8*1)
	MOVNTO X7, 48(DI)(R8*1)
	MOVNTO X8, 0(DI)(R8*2)
	MOVNTO X9, 16(DI)(R8*2)
	MOVNTO X10, 32(DI)(R8*2)
	MOVNTO X11, 48(DI)(R8*2)
	MOVNTO X12, 0(DI)(R13*1)
	MOVNTO X13, 16(DI)(R13*1)
	MOVNTO X14, 32(DI)(R13*1)
	MOVNTO X15, 48(DI)(R13*1)
	LEAQ (DI)(R8*4), DI
	LEAQ (SI)(R9*4), SI
	DECQ BX
	JNZ four64

rest64:
	TESTQ CX, CX
	JZ fence

row64:
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

general:	// a row at a time: 64-byte blocks, then 16-byte ones
	MOVQ R10, R11
	ANDQ $-64, R11 // the bytes in whole blocks

rowg:
	XORQ AX, AX
	CMPQ AX, R11
	JGE tail

block:
	MOVOU 0(SI)(AX*1), X0
	MOVOU 16(SI)(AX*1), X1
	MOVOU 32(SI)(AX*1), X2
	MOVOU 48(SI)(AX*1), X3
	MOVNTO X0, 0(DI)(AX*1)
	MOVNTO X1, 16(DI)(AX*1)
	MOVNTO X2, 32(DI)(AX*1)
	MOVNTO X3, 48(DI)(AX*1)
	ADDQ $64, AX
	CMPQ AX, R11
	JLT block

tail:
	CMPQ AX, R10
	JGE next

chunk:
	MOVOU 0(SI)(AX*1), X0
	MOVNTO X0, 0(DI)(AX*1)
	ADDQ $16, AX
	CMPQ AX, R10
	JLT chunk

next:
	ADDQ R8, DI
	ADDQ R9, SI
	DECQ CX
	JNZ rowg

fence:
	SFENCE

done:
	RET
