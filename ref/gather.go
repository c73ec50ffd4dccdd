package ref

import "encoding/binary"

// The gather-transpose's turn in place (issue 17): dst(i0 = j, i1 = k) =
// src row idx[j]'s element k (field-tables §11.5, two-byte elements), the
// gathered rows read where memory stores them and the turned columns
// written straight into the destination's storage — no copy of the rows
// into a band, no column buffer between the turn and the destination.

// gatherBand is the gathered rows turned together: their cache lines a
// column walk revisits stay in L1/L2 (128 rows × 512 B = 64 KiB).
const gatherBand = 128

// gatherInPlace moves the gather-transpose of n rows of l two-byte elements
// (row j at sa + idx[j]·s1) into dst rows k at da + k·d1 (2n bytes each),
// every row and column already checked, the legs disjoint. Rows read as
// Peek hands them, or through Read where their storage is not one piece.
func (w *word) gatherInPlace(sa, da uint64, idx []uint32, l int, s1, d1 int64) {
	mm := w.x.Mem
	n, row := len(idx), 2*l
	srcs := make([][]byte, n)
	var own []byte // rows Peek does not hand out (absent, lazy, in two pieces): read here
	for j, v := range idx {
		a := uint64(int64(sa) + int64(v)*s1)
		if srcs[j] = mm.Peek(a, row); srcs[j] == nil {
			if own == nil {
				own = make([]byte, n*row)
			}
			srcs[j] = own[j*row : (j+1)*row : (j+1)*row]
			mm.Read(a, srcs[j]) // checked: cannot fail
		}
	}
	span := 2 * n
	if d1 == int64(span) && mm.Fits(da, l*span) { // dense, in one region: one Fill over every dst byte
		mm.Fill(da, l*span, func(d []byte, off int) { // checked: cannot fail
			if off == 0 && len(d) == l*span {
				turnRows(d, span, srcs, l)
				return
			}
			for o := range d { // a destination stored in pieces: byte by byte (§11.5's formula)
				g := off + o
				k, b := g/span, g%span
				d[o] = srcs[b/2][2*k+b%2]
			}
		})
		return
	}
	// rows of the destination apart: a band of every dst row turned into a
	// buffer, then each dst row's part of it written
	bj := min(n, max(gatherBand, (4<<20)/max(row, 1)/4*4)) // the buffer at most ~4 MiB
	buf := make([]byte, l*2*bj)
	for jb := 0; jb < n; jb += bj {
		m := min(bj, n-jb)
		turnRows(buf, 2*bj, srcs[jb:jb+m], l)
		for k := range l {
			mm.Write(da+uint64(int64(k)*d1)+uint64(2*jb), buf[k*2*bj:k*2*bj+2*m]) // checked: cannot fail
		}
	}
}

// turnRows writes element k of row j of srcs (l two-byte elements each) at
// out[k·stride + 2j]: bands of gatherBand rows, four columns of four rows
// turned in registers.
func turnRows(out []byte, stride int, srcs [][]byte, l int) {
	n := len(srcs)
	for jb := 0; jb < n; jb += gatherBand {
		je := min(n, jb+gatherBand)
		k := 0
		for ; k+4 <= l; k += 4 {
			o0, o1, o2, o3 := k*stride, (k+1)*stride, (k+2)*stride, (k+3)*stride
			j := jb
			for ; j+4 <= je; j += 4 {
				r0 := binary.LittleEndian.Uint64(srcs[j][2*k:])
				r1 := binary.LittleEndian.Uint64(srcs[j+1][2*k:])
				r2 := binary.LittleEndian.Uint64(srcs[j+2][2*k:])
				r3 := binary.LittleEndian.Uint64(srcs[j+3][2*k:])
				// 16-bit lanes swap in 2 × 2 blocks, then 32-bit halves (SWAR), as columns4
				const lo16, hi16 = 0x0000ffff0000ffff, 0xffff0000ffff0000
				t0, t1 := r0&lo16|(r1&lo16)<<16, (r0>>16)&lo16|r1&hi16
				t2, t3 := r2&lo16|(r3&lo16)<<16, (r2>>16)&lo16|r3&hi16
				binary.LittleEndian.PutUint64(out[o0+2*j:], t0&0xffffffff|t2<<32)
				binary.LittleEndian.PutUint64(out[o1+2*j:], t1&0xffffffff|t3<<32)
				binary.LittleEndian.PutUint64(out[o2+2*j:], t0>>32|t2&^0xffffffff)
				binary.LittleEndian.PutUint64(out[o3+2*j:], t1>>32|t3&^0xffffffff)
			}
			for ; j < je; j++ {
				s := srcs[j][2*k : 2*k+8]
				for i := range 4 {
					o := (k+i)*stride + 2*j
					out[o], out[o+1] = s[2*i], s[2*i+1]
				}
			}
		}
		for ; k < l; k++ {
			o := k * stride
			for j := jb; j < je; j++ {
				out[o+2*j], out[o+2*j+1] = srcs[j][2*k], srcs[j][2*k+1]
			}
		}
	}
}
