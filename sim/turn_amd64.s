#include "textflag.h"

// func turn8(cols, rows *unsafe.Pointer, w, n, k int)
//
// The tile turn of 2-byte elements (turnPtrs): the element at rows[r] + 2c
// goes to cols[c] + 2r, for c < w (a multiple of 8k) and r < n (a multiple
// of 8). Eight rows of 8k columns at a time: each 8 × 8 block is eight
// 16-byte loads turned in registers — 16-, 32- then 64-bit unpacks (SSE2,
// every amd64 has it) — and eight 16-byte stores, one per column; a
// column's bytes are written in order, block after block. An ABI0
// function: X8–X15 and R12–R13 are the caller's to lose.
TEXT ·turn8(SB), NOSPLIT, $0-40
	MOVQ cols+0(FP), DI
	MOVQ rows+8(FP), SI
	MOVQ w+16(FP), R8
	MOVQ n+24(FP), R9
	MOVQ k+32(FP), R12
	SHLQ $1, R8  // 2w: a row's bytes
	SHLQ $1, R9  // 2n: a column's bytes
	SHLQ $4, R12 // 16k: a block's bytes of a row
	XORQ BX, BX  // 2c: the column block's offset in a row

cblock:
	CMPQ BX, R8
	JGE  done
	XORQ AX, AX // 2r: the row group's offset in a column
	MOVQ SI, R10 // &rows[r]

rgroup:
	CMPQ AX, R9
	JGE  cnext
	XORQ R13, R13 // the 8 columns' offset in the block

sub:
	LEAQ  (BX)(R13*1), CX // 2c of the 8 columns
	MOVQ  0(R10), DX
	MOVOU (DX)(CX*1), X0
	MOVQ  8(R10), DX
	MOVOU (DX)(CX*1), X1
	MOVQ  16(R10), DX
	MOVOU (DX)(CX*1), X2
	MOVQ  24(R10), DX
	MOVOU (DX)(CX*1), X3
	MOVQ  32(R10), DX
	MOVOU (DX)(CX*1), X4
	MOVQ  40(R10), DX
	MOVOU (DX)(CX*1), X5
	MOVQ  48(R10), DX
	MOVOU (DX)(CX*1), X6
	MOVQ  56(R10), DX
	MOVOU (DX)(CX*1), X7

	// rows a..h: pairs of rows interleaved by 16-bit lanes
	MOVO      X0, X8
	PUNPCKLWL X1, X0 // a0 b0 a1 b1 a2 b2 a3 b3
	PUNPCKHWL X1, X8 // a4 b4 … a7 b7
	MOVO      X2, X9
	PUNPCKLWL X3, X2 // c0 d0 … c3 d3
	PUNPCKHWL X3, X9 // c4 d4 … c7 d7
	MOVO      X4, X10
	PUNPCKLWL X5, X4 // e0 f0 … e3 f3
	PUNPCKHWL X5, X10 // e4 f4 … e7 f7
	MOVO      X6, X11
	PUNPCKLWL X7, X6 // g0 h0 … g3 h3
	PUNPCKHWL X7, X11 // g4 h4 … g7 h7

	// then by 32-bit lanes: four rows' elements together
	MOVO      X0, X1
	PUNPCKLLQ X2, X0 // a0 b0 c0 d0 a1 b1 c1 d1
	PUNPCKHLQ X2, X1 // a2 … d2 a3 … d3
	MOVO      X8, X3
	PUNPCKLLQ X9, X8 // a4 … d4 a5 … d5
	PUNPCKHLQ X9, X3 // a6 … d6 a7 … d7
	MOVO      X4, X5
	PUNPCKLLQ X6, X4 // e0 … h0 e1 … h1
	PUNPCKHLQ X6, X5 // e2 … h2 e3 … h3
	MOVO      X10, X7
	PUNPCKLLQ X11, X10 // e4 … h4 e5 … h5
	PUNPCKHLQ X11, X7 // e6 … h6 e7 … h7

	// then by 64-bit halves: column j is a_j … h_j
	MOVO       X0, X2
	PUNPCKLQDQ X4, X0 // column 0
	PUNPCKHQDQ X4, X2 // column 1
	MOVO       X1, X6
	PUNPCKLQDQ X5, X1 // column 2
	PUNPCKHQDQ X5, X6 // column 3
	MOVO       X8, X9
	PUNPCKLQDQ X10, X8 // column 4
	PUNPCKHQDQ X10, X9 // column 5
	MOVO       X3, X11
	PUNPCKLQDQ X7, X3 // column 6
	PUNPCKHQDQ X7, X11 // column 7

	LEAQ  (DI)(CX*4), R11 // &cols[c]: 8 bytes a pointer, 2c·4
	MOVQ  0(R11), DX
	MOVOU X0, (DX)(AX*1)
	MOVQ  8(R11), DX
	MOVOU X2, (DX)(AX*1)
	MOVQ  16(R11), DX
	MOVOU X1, (DX)(AX*1)
	MOVQ  24(R11), DX
	MOVOU X6, (DX)(AX*1)
	MOVQ  32(R11), DX
	MOVOU X8, (DX)(AX*1)
	MOVQ  40(R11), DX
	MOVOU X9, (DX)(AX*1)
	MOVQ  48(R11), DX
	MOVOU X3, (DX)(AX*1)
	MOVQ  56(R11), DX
	MOVOU X11, (DX)(AX*1)

	ADDQ $16, R13
	CMPQ R13, R12
	JLT  sub
	ADDQ $16, AX  // the next 8 rows: 16 bytes on in each column
	ADDQ $64, R10 // and 8 row pointers on
	JMP  rgroup

cnext:
	ADDQ R12, BX
	JMP  cblock

done:
	RET
