package ref

import (
	"encoding/binary"
	"fmt"

	"ndma/isa"
	"ndma/mem"
)

// The transpose's fast path: with contiguous rows on both sides, no bound
// registers and no overlap, the block is moved in bands of rows — the same
// meaning as the element walk (dst(i0 = r, i1 = c) = src(i0 = c, i1 = r)),
// without an address per element.

const xposeBand = 128 // rows per band: a band's column walk touches 128 cache lines, which stay in L1

// colBufs are turnBand's four column buffers for bands of up to n elements of size bytes.
func colBufs(n, size int) *[4][]byte {
	var cb [4][]byte
	for i := range cb {
		cb[i] = make([]byte, n*size)
	}
	return &cb
}

// turnBand writes the cols columns of a band of n rows (row bytes apart) out
// one by one, four 2-byte columns at a time where it can: into the column
// buffers cb, each then handed to write; or, where into is set, straight
// into into(c), the memory column c's band occupies (write not called).
func turnBand(cb *[4][]byte, band []byte, row, n, size, cols int, into func(c int) []byte, write func(c int, col []byte)) {
	c := 0
	if size == 2 {
		for ; c+4 <= cols; c += 4 {
			if into != nil {
				dst := [4][]byte{into(c), into(c + 1), into(c + 2), into(c + 3)}
				columns4(&dst, band, row, n, c)
				continue
			}
			columns4(cb, band, row, n, c)
			for i := range cb {
				write(c+i, cb[i][:2*n])
			}
		}
	}
	for ; c < cols; c++ {
		if into != nil {
			column(into(c), band, row, n, size, c)
			continue
		}
		column(cb[0], band, row, n, size, c)
		write(c, cb[0][:n*size])
	}
}

// columns4 is column for the four 2-byte columns c..c+3 at once: 4 × 4
// tiles, each read as four 8-byte rows and written as four 8-byte columns.
func columns4(cb *[4][]byte, band []byte, row, n, c int) {
	j := 0
	for ; j+4 <= n; j += 4 {
		o := j*row + 2*c
		r0 := binary.LittleEndian.Uint64(band[o:])
		r1 := binary.LittleEndian.Uint64(band[o+row:])
		r2 := binary.LittleEndian.Uint64(band[o+2*row:])
		r3 := binary.LittleEndian.Uint64(band[o+3*row:])
		// 16-bit lanes swap in 2 × 2 blocks, then 32-bit halves (SWAR)
		const lo16, hi16 = 0x0000ffff0000ffff, 0xffff0000ffff0000
		t0, t1 := r0&lo16|(r1&lo16)<<16, (r0>>16)&lo16|r1&hi16
		t2, t3 := r2&lo16|(r3&lo16)<<16, (r2>>16)&lo16|r3&hi16
		binary.LittleEndian.PutUint64(cb[0][2*j:], t0&0xffffffff|t2<<32)
		binary.LittleEndian.PutUint64(cb[1][2*j:], t1&0xffffffff|t3<<32)
		binary.LittleEndian.PutUint64(cb[2][2*j:], t0>>32|t2&^0xffffffff)
		binary.LittleEndian.PutUint64(cb[3][2*j:], t1>>32|t3&^0xffffffff)
	}
	for ; j < n; j++ {
		o := j*row + 2*c
		for i := range cb {
			cb[i][2*j], cb[i][2*j+1] = band[o+2*i], band[o+2*i+1]
		}
	}
}

// column gathers column c (elements of size bytes) of the n rows of band,
// row bytes apart, into col.
func column(col, band []byte, row, n, size, c int) {
	o := c * size
	if size == 2 {
		for r := 0; r < n; r++ {
			col[2*r], col[2*r+1] = band[o], band[o+1]
			o += row
		}
		return
	}
	for r := 0; r < n; r++ {
		copy(col[r*size:(r+1)*size], band[o:o+size])
		o += row
	}
}

// xposeRows reports done = true when it handled the word.
func (w *word) xposeRows(v isa.XposeView, size, rows, cols int, deltas []semDelta) (bool, error) {
	ss, ds := v.SrcStepElem(1), v.DstStepElem(1)
	if v.SrcStepElem(0) != int64(size) || v.DstStepElem(0) != int64(size) || ss <= 0 || ds <= 0 ||
		v.SrcBoundReg().BCEnabled() == 1 || v.DstBoundReg().BCEnabled() == 1 || rows == 0 || cols == 0 {
		return false, nil
	}
	sa, da, err := w.addrs(v.SrcStartAddr(), v.DstStartAddr())
	if err != nil {
		return true, err
	}
	srow, drow := cols*size, rows*size
	if int64(rows)*int64(srow)*2 > w.x.maxBytes() {
		return true, w.fault(-1, "max-bytes", fmt.Errorf("the word moves %d bytes, more than the %d allowed", 2*rows*srow, w.x.maxBytes()))
	}
	sEnd := sa + uint64(int64(rows-1)*ss) + uint64(srow)
	dEnd := da + uint64(int64(cols-1)*ds) + uint64(drow)
	if sa < dEnd && da < sEnd || int64(srow) > ss || int64(drow) > ds {
		return false, nil // overlapping, or rows that overlap each other: the general path stages everything
	}
	for r := 0; r < rows; r++ {
		if err := w.x.Mem.Check(sa+uint64(int64(r)*ss), srow); err != nil {
			return true, w.fault(r*cols, "src", err)
		}
	}
	for c := 0; c < cols; c++ {
		if err := w.x.Mem.Check(da+uint64(int64(c)*ds), drow); err != nil {
			return true, w.fault(c, "dst", err)
		}
	}
	w.x.Mem.ReserveDense(da, dEnd, int64(cols)*int64(drow)) // a dense destination reserved whole (SBUF: its partitions from one slab), not piece by piece
	// each destination column held where memory stores it: one Fill a
	// column (which counts its bytes written once), its pieces kept; the
	// bands turn straight into the columns where each is one piece, else
	// into the column buffers copied into the pieces
	pcs, first := make([]mem.Piece, 0, cols), make([]int, cols+1) // column c's pieces: pcs[first[c]:first[c+1]]
	for c := range cols {
		first[c] = len(pcs)
		var err error
		if pcs, err = w.x.Mem.FillPieces(pcs, da+uint64(int64(c)*ds), drow); err != nil {
			return true, w.fault(c, "dst", err)
		}
	}
	first[cols] = len(pcs)
	whole1 := len(pcs) == cols // each column one piece
	var into func(c int) []byte
	band, cb := make([]byte, xposeBand*srow), colBufs(xposeBand, size)
	for rb := 0; rb < rows; rb += xposeBand {
		n := min(xposeBand, rows-rb)
		b := []byte(nil)
		if int64(srow) == ss { // the band in place where memory stores it in one piece (HBM pages are 64 KiB)
			b = w.x.Mem.Peek(sa+uint64(rb*srow), n*srow)
		}
		if b == nil {
			b = band
			for r := 0; r < n; r++ {
				if err := w.x.Mem.Read(sa+uint64(int64(rb+r)*ss), band[r*srow:(r+1)*srow]); err != nil {
					return true, w.fault(rb+r, "src", err)
				}
			}
		}
		if whole1 {
			into = func(c int) []byte { return pcs[c].B[rb*size : (rb+n)*size] }
		}
		turnBand(cb, b, srow, n, size, cols, into, func(c int, col []byte) { mem.CopyToPieces(pcs[first[c]:first[c+1]], rb*size, col) })
	}
	w.x.Stats.Lanes += rows * cols
	w.x.Stats.BytesMoved += uint64(rows * srow)
	w.x.Tracef("%s: transposed %d × %d elements (%d bytes)", w.name, rows, cols, rows*srow)
	w.apply(deltas)
	return true, nil
}

// gatherRows is the gather-transpose's fast path: contiguous rows, every index
// within its bound b (and below 2^31), no dst bound register (dstBound false), no overlap —
// bands of gathered rows turned in place (gatherInPlace).
func (w *word) gatherRows(sa, da uint64, idx []uint32, l int, s0, s1, d1 int64, b bound, dstBound bool, deltas []semDelta) (bool, error) {
	n := len(idx)
	if s0 != 2 || dstBound || d1 < int64(2*n) || n == 0 || l == 0 {
		return false, nil
	}
	dEnd := da + uint64(int64(l-1)*d1) + uint64(2*n)
	row := 2 * l
	if int64(n)*int64(row)*2 > w.x.maxBytes() {
		return true, w.fault(-1, "max-bytes", fmt.Errorf("the word moves %d bytes, more than the %d allowed", 2*n*row, w.x.maxBytes()))
	}
	for j, v := range idx {
		if b.on && uint64(v) > b.limit || v >= 1<<31 {
			return false, nil // a bound to apply lane by lane: the general path
		}
		a := uint64(int64(sa) + int64(v)*s1)
		if a < dEnd && da < a+uint64(row) {
			return false, nil
		}
		if err := w.x.Mem.Check(a, row); err != nil {
			return true, w.fault(j, "src", err)
		}
	}
	for k := 0; k < l; k++ {
		if err := w.x.Mem.Check(da+uint64(int64(k)*d1), 2*n); err != nil {
			return true, w.fault(k, "dst", err)
		}
	}
	w.gatherInPlace(sa, da, idx, l, s1, d1) // gather.go
	w.x.Stats.Lanes += n * l
	w.x.Stats.BytesMoved += uint64(n * row)
	w.x.Tracef("%s: gathered %d rows of %d elements, transposed", w.name, n, l)
	w.apply(deltas)
	return true, nil
}
