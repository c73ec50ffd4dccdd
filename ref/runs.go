package ref

// runs is copyDirect's view of a leg: its bytes in walk order, taken from
// the front — a contiguous row's rest as one run of bytes, a strided row's
// elements as rows of the element size a step apart (a strided row is one
// call to mem.CopyStrided, not an access per element: issue 17).
type runs struct {
	e *elems
	r int // the current row
	p int // bytes of it taken (a strided row: elements × size, plus bytes into the next)
}

func (c *runs) done() bool { return c.r == len(c.e.rows) }

// contig reports whether the current row's bytes are one run in memory.
func (c *runs) contig() bool {
	r := &c.e.rows[c.r]
	return r.n == 1 || int(r.step) == c.e.size
}

// piece is the next bytes that lie together: the rest of a contiguous row,
// or of a strided row's current element.
func (c *runs) piece() (a uint64, nb int) {
	r := &c.e.rows[c.r]
	size := c.e.size
	if c.contig() {
		return r.addr + uint64(c.p), int(r.n)*size - c.p
	}
	i, off := c.p/size, c.p%size
	return r.at(i) + uint64(off), size - off
}

// strided is the rest of a strided row when the leg stands at one of its
// elements: k elements from a, step bytes apart (ok false: contiguous, or
// within an element).
func (c *runs) strided() (a uint64, step int64, k int, ok bool) {
	if c.contig() || c.p%c.e.size != 0 {
		return 0, 0, 0, false
	}
	r := &c.e.rows[c.r]
	i := c.p / c.e.size
	return r.at(i), int64(r.step), int(r.n) - i, true
}

// take passes over the next nb bytes (at most the current row's rest).
func (c *runs) take(nb int) {
	if c.p += nb; c.p == int(c.e.rows[c.r].n)*c.e.size {
		c.r, c.p = c.r+1, 0
	}
}

// rows2D is the next rows the two legs move as one 2-D copy: n bytes each,
// k of them, the src rows srcStep apart from src, the dst rows dstStep apart
// from dst — a strided row against the other leg's elements of its size
// (strided as well, or a contiguous run cut in rows). ok is false when
// neither leg stands at a strided row's element.
func rows2D(s, d *runs) (dst uint64, dstStep int64, src uint64, srcStep int64, n, k int, ok bool) {
	sa, ss, sk, sok := s.strided()
	da, ds, dk, dok := d.strided()
	switch {
	case sok && dok:
		if s.e.size != d.e.size {
			return 0, 0, 0, 0, 0, 0, false
		}
		return da, ds, sa, ss, s.e.size, min(sk, dk), true
	case sok && d.contig():
		n = s.e.size
		da, dnb := d.piece()
		return da, int64(n), sa, ss, n, min(sk, dnb/n), true
	case dok && s.contig():
		n = d.e.size
		sa, snb := s.piece()
		return da, ds, sa, int64(n), n, min(dk, snb/n), true
	}
	return 0, 0, 0, 0, 0, 0, false
}
