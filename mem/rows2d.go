package mem

import (
	"fmt"
	"math"
	"math/bits"
	"unsafe"

	"ndma/isa"
)

// CopyStrided copies count rows of n bytes, row i from src+i·srcStep to
// dst+i·dstStep (addresses modulo 2^64): CopyRows of those rows, without
// their addresses. Every row is checked before any byte moves (src before
// dst); on a fault nothing has changed and k names the first bad row. The
// stats and the touched units are what CopyRows records for the rows. The
// rows of one leg must not overlap the other's (the caller checks); dst
// rows overlapping one another (|dstStep| < n, a zero step among them) are
// copied in row order, each read before it is written.
//
// Each leg's span is checked once and resolved to host memory a piece at a
// time (an HBM extent, an SBUF partition); the rows that lie in a piece on
// both sides move in one tight loop: a 2-D copy is not an address, a batch
// and a lookup per row (issue 17).
func (m *Memory) CopyStrided(dst uint64, dstStep int64, src uint64, srcStep int64, n, count int) (int, error) {
	if n < 0 || count < 0 {
		return 0, fmt.Errorf("CopyStrided: %d rows of %d bytes", count, n)
	}
	if count == 0 {
		return 0, nil
	}
	rs, sl, k, err := m.checkStrided(src, srcStep, n, count)
	if err != nil {
		return k, err
	}
	rd, dl, k, err := m.checkStrided(dst, dstStep, n, count)
	if err != nil {
		return k, err
	}
	if n == 0 {
		return 0, nil // no byte moves, no unit is written
	}
	if m.hbm.owed.bytes > 0 && (m.stridedOwes(rs, sl, src, srcStep, n, count) || m.stridedOwes(rd, dl, dst, dstStep, n, count)) {
		m.hbm.settle()
	}
	switch {
	case count > 1 && (dstStep < int64(n) && dstStep > -int64(n) || dstStep == math.MinInt64 || srcStep == math.MinInt64):
		m.stridedByRows(dst, dstStep, src, srcStep, n, count) // dst rows overlap: in row order
	case rs != isa.Unmapped && rd != isa.Unmapped && srcStep == int64(n) && dstStep == int64(n) && uint64(count) <= (1<<40)/uint64(n):
		if err := m.Copy(dst, src, n*count); err != nil {
			return 0, err // cannot happen: both spans checked
		}
	default:
		if dstStep < 0 { // rows disjoint and the legs too: any order moves the same bytes
			dst, src = at(dst, dstStep, count-1), at(src, srcStep, count-1)
			dstStep, srcStep = -dstStep, -srcStep
			if dl.ok {
				dl.lo = dst
			}
		}
		m.stridedRun(dst, dstStep, src, srcStep, n, count, dl)
	}
	return 0, nil
}

// at is row i's address of a strided leg.
func at(a uint64, step int64, i int) uint64 { return uint64(int64(a) + int64(i)*step) }

// legSpan is a strided leg's extent [lo, hi) (ok false: it wraps around
// 2^64 or is larger than any region).
type legSpan struct {
	lo, hi uint64
	ok     bool
}

func stridedSpan(a uint64, step int64, n, count int) legSpan {
	mag := uint64(step)
	if step < 0 {
		mag = uint64(-step)
	}
	h, d := bits.Mul64(mag, uint64(count-1))
	if h != 0 || d > 1<<40 {
		return legSpan{}
	}
	lo := a
	if step < 0 {
		lo = a - d
		if lo > a {
			return legSpan{}
		}
	}
	hi := lo + d + uint64(n)
	if hi < lo || hi-lo > 1<<40 || (n > 0 && hi <= lo) {
		return legSpan{}
	}
	return legSpan{lo, hi, true}
}

// checkStrided checks a strided leg's rows: one check of its span when one
// region holds it (then named in one), else row by row to name the first
// bad one.
func (m *Memory) checkStrided(a uint64, step int64, n, count int) (one isa.Region, sp legSpan, k int, err error) {
	sp = stridedSpan(a, step, n, count)
	if sp.ok && m.fits(sp.lo, int(sp.hi-sp.lo)) {
		return m.region(sp.lo), sp, 0, nil
	}
	if m.partRows(a, step, n, count) {
		return isa.Unmapped, sp, 0, nil // what the rows' checks one by one return
	}
	for k := 0; k < count; { // a run of rows in one partition (or the HBM window) at a time
		r := at(a, step, k)
		if j := m.rowsIn(r, step, n, count-k); j > 1 {
			if s := stridedSpan(r, step, n, j); s.ok && m.fits(s.lo, int(s.hi-s.lo)) {
				k += j
				continue
			}
		}
		if err := m.Check(r, n); err != nil {
			return isa.Unmapped, sp, k, err
		}
		k++
	}
	return isa.Unmapped, sp, 0, nil
}

// partRows reports whether a leg walks one row per partition of SBUF or
// PSUM (its step the partition stride), every row inside its partition's
// active bytes: each row then passes Check, without checking each.
func (m *Memory) partRows(a uint64, step int64, n, count int) bool {
	r, part, off := m.Map.Split(a)
	stride, active := m.Map.SBUFStride, m.Map.SBUFActive
	switch r {
	case isa.SBUF:
	case isa.PSUM:
		stride, active = m.Map.PSUMStride, m.Map.PSUMActive
	default:
		return false
	}
	return n >= 0 && step == int64(stride) && off+uint64(n) <= active && count <= m.Map.Partitions-part
}

// rowsIn is how many rows from a on, step apart, end inside the active part
// of a's partition, or inside the HBM window (at most max; 0: not even a's).
func (m *Memory) rowsIn(a uint64, step int64, n, max int) int {
	r, _, off := m.Map.Split(a)
	var lo, hi uint64
	switch r {
	case isa.SBUF:
		lo, hi = a-off, a-off+m.Map.SBUFActive
	case isa.PSUM:
		lo, hi = a-off, a-off+m.Map.PSUMActive
	case isa.HBM:
		lo, hi = m.Map.HBMBase, m.Map.HBMEnd
	default:
		return 0
	}
	w := window{a: lo, n: hi - lo}
	return w.rows(a, n, step, max)
}

// stridedOwes reports whether a row of a checked strided leg may hold owed
// bytes (the span when one region holds it, else row by row).
func (m *Memory) stridedOwes(one isa.Region, sp legSpan, a uint64, step int64, n, count int) bool {
	if one != isa.Unmapped {
		r, part, off := m.Map.Split(sp.lo)
		return m.owesAt(r, part, off, int(sp.hi-sp.lo))
	}
	for k := range count {
		if r, part, off := m.Map.Split(at(a, step, k)); m.owesAt(r, part, off, n) {
			return true
		}
	}
	return false
}

// stridedByRows copies the rows one at a time, in order, each read before
// it is written: dst rows that overlap one another take the bytes of the
// last row to write them, even from a lazy range (a copy from one owes its
// generation to the destination, and a later row over the same bytes must
// not be overwritten when it is paid). The rows were checked: it cannot
// fail.
func (m *Memory) stridedByRows(dst uint64, dstStep int64, src uint64, srcStep int64, n, count int) {
	buf := make([]byte, n)
	for i := range count {
		m.Read(at(src, srcStep, i), buf)
		m.Write(at(dst, dstStep, i), buf)
	}
}

// window is host memory under [a, a+n) of one region: b (nil: absent
// storage, which reads as zero or as a lazy range generates it).
type window struct {
	a, n uint64
	b    []byte
	r    isa.Region
}

// rows is how many rows from x on, step apart, lie in w (at most max).
func (w *window) rows(x uint64, n int, step int64, max int) int {
	if x < w.a || x-w.a > w.n || w.n-(x-w.a) < uint64(n) {
		return 0
	}
	var k uint64
	switch room := w.n - (x - w.a) - uint64(n); {
	case step > 0:
		k = room/uint64(step) + 1
	case step < 0:
		k = (x-w.a)/uint64(-step) + 1
	default:
		return max
	}
	return int(min(k, uint64(max)))
}

// dstWindow is the storage from row address d on, created as a write would
// create it: to the leg's end when every HBM page up to it holds a row's
// byte (dense: the gaps between rows are shorter than a page), else the row
// alone — so the pages created and the units noted are those the rows reach.
func (m *Memory) dstWindow(d uint64, n int, end uint64, dense bool) window {
	r, part, off := m.Map.Split(d)
	l := uint64(n)
	if dense && end > d {
		l = end - d
	}
	switch r {
	case isa.SBUF:
		l = min(l, m.Map.SBUFActive-off)
	case isa.PSUM:
		l = min(l, m.Map.PSUMActive-off)
	case isa.HBM:
		l = min(l, m.Map.HBMEnd-d)
	}
	b, c := m.backing(r, part, off, int(l), update)
	return window{a: d, n: uint64(c), b: b[:c], r: r}
}

// srcWindow is the storage around row address s, as read: its SBUF or PSUM
// partition whole, or from the start of its HBM page on up to hi (the leg's
// end) as far as one extent continues; absent storage is a window of nil.
func (m *Memory) srcWindow(s uint64, hi uint64) window {
	r, part, off := m.Map.Split(s)
	var l uint64
	switch r {
	case isa.SBUF:
		off, l = 0, m.Map.SBUFActive
	case isa.PSUM:
		off, l = 0, m.Map.PSUMActive
	case isa.HBM:
		off -= (m.Map.HBMBase + off) % PageSize
		l = min(hi, m.Map.HBMEnd) - (m.Map.HBMBase + off)
	}
	a, _ := m.Map.Join(r, part, off)
	if r == isa.HBM {
		a = m.Map.HBMBase + off
	}
	b, c := m.backing(r, part, off, int(l), look)
	if b != nil {
		b = b[:c]
	}
	return window{a: a, n: uint64(c), b: b, r: r}
}

// stridedRun copies a checked strided leg pair whose dst rows ascend apart
// (dstStep ≥ n): the rows that lie in one piece of host memory on both
// sides move in one loop, a row across pieces by Copy. A leg that walks
// one row per partition of a shared region (partLeg) is one piece.
func (m *Memory) stridedRun(dst uint64, dstStep int64, src uint64, srcStep int64, n, count int, dl legSpan) {
	h := m.hbm
	dense := dl.ok && dstStep-int64(n) < PageSize
	send := ^uint64(0)
	if sp := stridedSpan(src, srcStep, n, count); sp.ok {
		send = sp.hi
	}
	var dp, sp []byte
	var dps, sps int64
	var dpr, spr isa.Region
	if m.track == nil { // a dst noted as touched goes through backing, which notes it
		dp, dps, dpr = m.partLeg(dst, dstStep, n, count)
	}
	sp, sps, spr = m.partLeg(src, srcStep, n, count)
	var sw, dw window
	for i := 0; i < count; {
		d, s := at(dst, dstStep, i), at(src, srcStep, i)
		c := count - i
		if dp == nil {
			if dw.rows(d, n, dstStep, 1) == 0 {
				dw = m.dstWindow(d, n, dl.hi, dense)
			}
			c = min(c, dw.rows(d, n, dstStep, c))
		}
		if sp == nil {
			if sw.rows(s, n, srcStep, 1) == 0 {
				sw = m.srcWindow(s, max(send, s+uint64(n)))
			}
			c = min(c, sw.rows(s, n, srcStep, c))
		}
		if c == 0 { // the row crosses pieces on a side
			m.Copy(d, s, n) // checked: cannot fail
			i++
			continue
		}
		db, ds, rd := dp, dps, dpr
		if dp != nil {
			db = dp[int64(i)*dps:]
		} else {
			db, ds, rd = dw.b[d-dw.a:], dstStep, dw.r
		}
		sb, so, ss, rs := sp, int64(i)*sps, sps, spr
		if sp == nil {
			sb, so, ss, rs = sw.b, int64(s-sw.a), srcStep, sw.r
		}
		switch {
		case sb != nil:
			copyRows(db, ds, sb, so, ss, n, c)
		case sw.r == isa.HBM && h.lazyIn(sw.a, sw.a+sw.n):
			for j := range c { // generation owed as Copy owes it
				m.Copy(at(d, dstStep, j), at(s, srcStep, j), n) // checked: cannot fail
			}
			i += c
			continue
		default: // absent, and no lazy range: zero
			for j := range c {
				clear(db[int64(j)*ds:][:n])
			}
		}
		m.Stats.Read[rs] += uint64(c * n)
		m.Stats.Written[rd] += uint64(c * n)
		i += c
	}
}

// partLeg is a checked strided leg's rows in host memory when the leg
// walks one row per partition (its step the region's partition stride) of
// an SBUF or PSUM the caller shares (ShareOnchip: one array, partition p
// at p·active): from the first row's byte to the last row's end, rows
// hs = active bytes apart, in region r. nil otherwise. One slice for the
// whole leg, not a window per partition (a 128-partition tile's copy
// resolved its windows 128 times).
func (m *Memory) partLeg(a uint64, step int64, n, count int) (b []byte, hs int64, r isa.Region) {
	r, part, off := m.Map.Split(a)
	k, stride, active := 0, m.Map.SBUFStride, m.Map.SBUFActive
	switch r {
	case isa.SBUF:
	case isa.PSUM:
		k, stride, active = 1, m.Map.PSUMStride, m.Map.PSUMActive
	default:
		return nil, 0, r
	}
	data := m.onchip[k]
	if data == nil || step != int64(stride) || count > m.Map.Partitions-part || off+uint64(n) > active {
		return nil, 0, r
	}
	lo := uint64(part)*active + off
	return data[lo : lo+uint64(count-1)*active+uint64(n)], int64(active), r
}

// ntMin is the least a copy moves before its stores bypass the cache: a
// destination that large is not worth reading in first, and is not all in
// the cache to be read back soon.
const ntMin = 1 << 20

// copyRows copies c rows of n bytes: row j from s[so+j·ss:] to d[j·ds:].
func copyRows(d []byte, ds int64, s []byte, so, ss int64, n, c int) {
	do := int64(0)
	if haveNT && c*n >= ntMin && n%16 == 0 && ds%16 == 0 && uintptr(unsafe.Pointer(&d[0]))%16 == 0 {
		last := int64(c-1) * ss
		// every row in the slices (rowsNT does not check), and calls of chunk rows:
		// between them the goroutine can be preempted
		_, _, _ = d[int64(c-1)*ds+int64(n)-1], s[so+min(0, last)], s[so+max(0, last)+int64(n)-1]
		const chunk = 4096
		for j := 0; j < c; j += chunk {
			k := min(chunk, c-j)
			rowsNT(unsafe.Pointer(&d[do]), unsafe.Pointer(&s[so]), ds, ss, n, k)
			do, so = do+int64(k)*ds, so+int64(k)*ss
		}
		return
	}
	switch n { // rows of a word or less: one move each, no call
	case 16:
		for range c {
			*(*[16]byte)(d[do:]) = *(*[16]byte)(s[so:])
			do, so = do+ds, so+ss
		}
	case 8:
		for range c {
			*(*[8]byte)(d[do:]) = *(*[8]byte)(s[so:])
			do, so = do+ds, so+ss
		}
	case 4:
		for range c {
			*(*[4]byte)(d[do:]) = *(*[4]byte)(s[so:])
			do, so = do+ds, so+ss
		}
	case 2:
		for range c {
			*(*[2]byte)(d[do:]) = *(*[2]byte)(s[so:])
			do, so = do+ds, so+ss
		}
	case 1:
		for range c {
			d[do] = s[so]
			do, so = do+ds, so+ss
		}
	default:
		for range c {
			copy(d[do:do+int64(n)], s[so:so+int64(n)])
			do, so = do+ds, so+ss
		}
	}
}
