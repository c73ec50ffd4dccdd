package ref

// runs is copyDirect's view of a leg: its bytes in walk order, taken from
// the front — a contiguous row's rest as one run of bytes, a strided row's
// elements as rows of the element size a step apart, contiguous rows of one
// length a constant step apart as rows of that length (each such run is
// one call to mem.CopyStrided, not an access per element: issue 17).
type runs struct {
	e *elems
	r int // the current row
	p int // bytes of it taken (a strided row: elements × size, plus bytes into the next)
	// rows [uFrom, uEnd) are contiguous, uLen bytes each, uStep apart (the
	// last scan's answer, kept so that a long run is scanned once)
	uFrom, uEnd, uLen int
	uStep             int64
}

func (c *runs) done() bool { return c.r == len(c.e.rows) }

// contig reports whether row k's bytes are one run in memory.
func (c *runs) contig(k int) bool {
	r := &c.e.rows[k]
	return r.n == 1 || int(r.step) == c.e.size
}

// piece is the next bytes that lie together: the rest of a contiguous row,
// or of a strided row's current element.
func (c *runs) piece() (a uint64, nb int) {
	r := &c.e.rows[c.r]
	size := c.e.size
	if c.contig(c.r) {
		return r.addr + uint64(c.p), int(r.n)*size - c.p
	}
	i, off := c.p/size, c.p%size
	return r.at(i) + uint64(off), size - off
}

// take passes over the next nb bytes (at most the current row's rest).
func (c *runs) take(nb int) {
	if c.p += nb; c.p == int(c.e.rows[c.r].n)*c.e.size {
		c.r, c.p = c.r+1, 0
	}
}

// uniform is the run of contiguous rows of one length a constant step
// apart from the current row on (k rows; k < 2: none), the leg standing
// at the current row's start.
func (c *runs) uniform() (l int, step int64, k int) {
	if c.p != 0 || !c.contig(c.r) {
		return 0, 0, 0
	}
	if c.r < c.uFrom || c.r >= c.uEnd {
		rows, size := c.e.rows, c.e.size
		c.uFrom, c.uEnd, c.uLen = c.r, c.r+1, int(rows[c.r].n)*size
		if c.r+1 < len(rows) {
			c.uStep = int64(rows[c.r+1].addr - rows[c.r].addr)
			for c.uEnd < len(rows) && c.contig(c.uEnd) && int(rows[c.uEnd].n)*size == c.uLen &&
				int64(rows[c.uEnd].addr-rows[c.uEnd-1].addr) == c.uStep {
				c.uEnd++
			}
		}
	}
	return c.uLen, c.uStep, c.uEnd - c.r
}

// natural is the length of the rows the leg's next bytes come in a step
// apart (0: none): a strided row's element size, at an element's start, or
// the length of a run of uniform contiguous rows.
func (c *runs) natural() int {
	if !c.contig(c.r) {
		if c.p%c.e.size == 0 {
			return c.e.size
		}
		return 0
	}
	if l, _, k := c.uniform(); k >= 2 {
		return l
	}
	return 0
}

// rows is the leg's next bytes as k rows of n bytes, step apart from a —
// a strided row's elements of size n, uniform contiguous rows of length n,
// or a contiguous run cut in rows of n — and how the leg passes over them
// (ok false: none of these).
func (c *runs) rows(n int) (a uint64, step int64, k int, ok bool) {
	r := &c.e.rows[c.r]
	if !c.contig(c.r) {
		if c.e.size != n || c.p%n != 0 {
			return 0, 0, 0, false
		}
		i := c.p / n
		return r.at(i), int64(r.step), int(r.n) - i, true
	}
	if l, step, k := c.uniform(); k >= 2 && l == n {
		return r.addr, step, k, true
	}
	a, nb := c.piece()
	return a, int64(n), nb / n, nb >= n
}

// pass passes over k rows of n bytes that rows(n) offered.
func (c *runs) pass(n, k int) {
	if c.contig(c.r) && c.p == 0 && k > 1 && int(c.e.rows[c.r].n)*c.e.size == n { // uniform rows, whole
		c.r += k
		return
	}
	c.take(k * n)
}

// rows2D is the next rows the two legs move as one 2-D copy: k rows of n
// bytes, the src rows srcStep apart from src, the dst rows dstStep apart
// from dst; n is the length one leg's bytes naturally come in (a strided
// row's element, uniform rows), offered by both. ok is false when neither
// leg's next bytes come in rows the other can take.
func rows2D(s, d *runs) (dst uint64, dstStep int64, src uint64, srcStep int64, n, k int, ok bool) {
	for _, n := range [2]int{s.natural(), d.natural()} {
		if n == 0 {
			continue
		}
		sa, ss, sk, sok := s.rows(n)
		da, ds, dk, dok := d.rows(n)
		if sok && dok {
			return da, ds, sa, ss, n, min(sk, dk), true
		}
	}
	return 0, 0, 0, 0, 0, 0, false
}
