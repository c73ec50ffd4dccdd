package ref

import (
	"errors"
	"fmt"
	"iter"

	"ndma/internal/num"
	"ndma/isa"
	"ndma/mem"
)

// The byte-stream move every DMA word reduces to (field-tables §11.3–§11.5):
// a list of src elements whose bytes, concatenated in walk order, fill a list
// of dst elements in walk order — with a cast or an in-flight compute per
// scalar, lanes that bounds checks skip, reads before writes, and no effect
// at all on a fault. A compute reads each dst element as the writes before
// it in the stream left it: a destination the stream visits twice
// accumulates (RATIONALE.md, Execution).
//
// A leg is held as rows, never as an address per element, so that memory
// follows the rows a word walks and work the bytes it moves.

// row is n elements step bytes apart, the first at addr: a dim-1 row of a
// 2-D leg, or one lane of an indexed word.
type row struct {
	addr uint64
	n    uint32 // a leg has at most 65535² elements
	step int32  // a word's steps are int32, a lane's its element size
}

// at is the address of element i of the row.
func (r row) at(i int) uint64 { return uint64(int64(r.addr) + int64(i)*int64(r.step)) }

// span is the row's lowest byte and one past its highest; ok is false when
// its addresses wrap around 2^64 (then no one range holds it).
func (r row) span(size int) (lo, hi uint64, ok bool) {
	lo, last := r.addr, r.at(int(r.n)-1)
	d := int64(r.n-1) * int64(r.step)
	if d < 0 {
		lo, last, d = last, lo, -d
	}
	hi = last + uint64(size)
	return lo, hi, last-lo == uint64(d) && hi > last
}

// elems is a leg: its elements of one size, in walk order, as rows.
type elems struct {
	rows []row
	size int
	n    int    // elements
	skip []bool // per element: lanes a quiet bounds check leaves out (nil: none)
}

func (e *elems) bytes() int64 { return int64(e.n) * int64(e.size) }

// add appends n elements from a, step bytes apart; contiguous elements that
// continue the row before join it.
func (e *elems) add(a uint64, n int, step int64) {
	if n == 1 {
		e.add1(a)
		return
	}
	if k := len(e.rows) - 1; k >= 0 && step == int64(e.size) && int64(e.rows[k].step) == step && e.rows[k].at(int(e.rows[k].n)) == a {
		e.rows[k].n += uint32(n)
		e.n += n
		return
	}
	if n > 0 {
		e.rows = append(e.rows, row{a, uint32(n), int32(step)})
		e.n += n
	}
}

// add1 appends one element (an indexed word's lane).
func (e *elems) add1(a uint64) {
	size := e.size
	if k := len(e.rows) - 1; k >= 0 && int(e.rows[k].step) == size && e.rows[k].addr+uint64(e.rows[k].n)*uint64(size) == a {
		e.rows[k].n++
	} else {
		e.rows = append(e.rows, row{a, 1, int32(size)})
	}
	e.n++
}

// walk2D is a 2-D leg, dim 0 innermost (§11.3): one row per dim-1 index.
func walk2D(start uint64, num [2]int, step [2]int64, size int) elems {
	e := elems{size: size}
	if num[0] > 1 && step[0] != int64(size) || num[0] == 1 {
		e.rows = make([]row, 0, max(num[1], 0)) // a row per dim-1 index (contiguous rows may merge): one allocation
	}
	for i1 := 0; i1 < num[1]; i1++ {
		e.add(uint64(int64(start)+int64(i1)*step[1]), num[0], step[0])
	}
	return e
}

// all yields every element's index and address, in walk order.
func (e *elems) all() iter.Seq2[int, uint64] {
	return func(yield func(int, uint64) bool) {
		k := 0
		for _, r := range e.rows {
			for i := 0; i < int(r.n); i++ {
				if !yield(k, r.at(i)) {
					return
				}
				k++
			}
		}
	}
}

func (e *elems) skipped(k int) bool { return e.skip != nil && e.skip[k] }

func (e *elems) setSkip(k int) {
	if e.skip == nil {
		e.skip = make([]bool, e.n)
	}
	e.skip[k] = true
}

// piece is a run of a leg's elements: n contiguous ones from a, or — rep —
// n at a itself (a zero step).
type piece struct {
	k   int    // the first element's index in the leg
	a   uint64 // its address
	n   int    // elements (0: the leg is done)
	rep bool
}

// cursor takes a leg piece by piece: a contiguous row whole, a zero-step row
// whole when rep is set, any other element (and every element under a skip
// mask) alone.
type cursor struct {
	e    *elems
	rep  bool
	r, i int // the next row, and element in it
	k    int // the next element's index in the leg
}

func (c *cursor) next() piece {
	if c.r == len(c.e.rows) {
		return piece{k: c.k}
	}
	r := &c.e.rows[c.r] // rows hold at least one element
	p := piece{k: c.k, a: r.at(c.i), n: 1}
	switch {
	case c.e.skip != nil:
	case int(r.step) == c.e.size:
		p.n = int(r.n) - c.i
	case r.step == 0 && c.rep:
		p.n, p.rep = int(r.n)-c.i, true
	}
	if c.i, c.k = c.i+p.n, c.k+p.n; c.i == int(r.n) {
		c.r, c.i = c.r+1, 0
	}
	return p
}

// elem is the next element's address (the leg must have one left).
func (c *cursor) elem() uint64 {
	r := &c.e.rows[c.r]
	a := r.at(c.i)
	if c.i++; c.i == int(r.n) {
		c.r, c.i = c.r+1, 0
	}
	return a
}

// checkBound applies a BOUND_CHECK_REG to a leg: an element whose last byte
// passes the limit faults, or — errors off — is skipped (§11.5).
func (w *word) checkBound(e *elems, b bound, what string) error {
	if !b.on {
		return nil
	}
	k := 0
	for _, r := range e.rows {
		if lo, hi, ok := r.span(e.size); ok && hi-1 <= b.at(lo) && b.at(lo) == b.at(hi-1) {
			k += int(r.n) // the whole row is within the limit
			continue
		}
		for i := 0; i < int(r.n); i, k = i+1, k+1 {
			if last := r.at(i) + uint64(e.size) - 1; last > b.at(last) {
				if !b.quiet {
					return w.fault(k, what, fmt.Errorf("last byte %#x > limit %s = %#x: %w", last, isa.BoundRegName(b.reg, last), b.at(last), ErrBounds))
				}
				e.setSkip(k)
			}
		}
	}
	return nil
}

// mapped checks every element that is not skipped is valid memory in m
// (before anything is written); the fault names the first bad element.
func (w *word) mapped(m *mem.Memory, e *elems, sh shape, what string) error {
	if sh.ok && sh.hi-sh.lo <= 1<<40 && m.Fits(sh.lo, int(sh.hi-sh.lo)) {
		return nil // one region holds the whole leg
	}
	k := 0
	for _, r := range e.rows {
		if lo, hi, ok := r.span(e.size); ok && hi-lo <= 1<<40 && m.Fits(lo, int(hi-lo)) {
			k += int(r.n) // one region holds the whole row
			continue
		}
		for i := 0; i < int(r.n); i, k = i+1, k+1 {
			if e.skipped(k) {
				continue
			}
			if err := m.Check(r.at(i), e.size); err != nil {
				return w.fault(k, what, err)
			}
		}
	}
	return nil
}

// move is one word's data movement.
type move struct {
	src, dst elems
	in, out  isa.DTypeCode        // equal: no cast
	compute  isa.DGEComputeOpCode // NONE: no compute
	to       *mem.Memory          // the memory dst is in (nil: this core's)
}

// run executes the move atomically: every check first, then the reads, then
// the writes; the staged semaphore changes apply last.
func (w *word) run(m *move, deltas []semDelta) error {
	if total := m.src.bytes() + m.dst.bytes(); total > w.x.maxBytes() {
		return w.fault(-1, "max-bytes", fmt.Errorf("the word moves %d bytes, more than the %d allowed", total, w.x.maxBytes()))
	}
	dst, dstName := w.x.Mem, "dst"
	if m.to != nil {
		dst, dstName = m.to, "dst (remote core)"
	}
	plain := m.compute == isa.DGEComputeOpNone && m.in == m.out
	isz, osz := 1, 1 // bytes per scalar: a plain copy moves bytes
	if !plain {
		var ok1, ok2 bool
		isz, ok1 = num.Size(uint8(m.in))
		osz, ok2 = num.Size(uint8(m.out))
		if !ok1 || !ok2 {
			return w.fault(-1, "dtype", fmt.Errorf("%s → %s: %w", isa.DType().Format(uint64(m.in)), isa.DType().Format(uint64(m.out)), ErrUnsupported))
		}
		if m.src.bytes()%int64(isz) != 0 || m.dst.bytes()%int64(osz) != 0 || m.src.bytes()/int64(isz) != m.dst.bytes()/int64(osz) {
			return w.fault(-1, "element count", fmt.Errorf("src %d bytes of %s, dst %d bytes of %s: a cast or compute moves element for element (docs/field-tables.md §11.4)",
				m.src.bytes(), isa.DType().Format(uint64(m.in)), m.dst.bytes(), isa.DType().Format(uint64(m.out))))
		}
		if m.dst.size%osz != 0 {
			return w.fault(-1, "element size", fmt.Errorf("dst elements of %d bytes are no whole number of %s scalars", m.dst.size, isa.DType().Format(uint64(m.out))))
		}
		if _, err := scalar(m, 0, 0); err != nil { // the op and types, before anything moves
			return w.fault(-1, "cast", err)
		}
	} else if m.src.bytes() != m.dst.bytes() {
		return w.fault(-1, "byte count", fmt.Errorf("src moves %d bytes, dst %d: both legs carry the same bytes (docs/field-tables.md §11.3)", m.src.bytes(), m.dst.bytes()))
	}
	fold(m, isz, osz) // before the checks: a skipped lane touches neither leg
	ss, ds := m.src.shape(), m.dst.shape()
	if err := w.mapped(w.x.Mem, &m.src, ss, "src"); err != nil {
		return err
	}
	if err := w.mapped(dst, &m.dst, ds, dstName); err != nil {
		return err
	}
	if ds.ok && m.dst.skip == nil {
		dst.ReserveDense(ds.lo, ds.hi, m.dst.bytes()) // one extent for a dense dst, not one per piece
	}
	var lanes int
	stage := m.to == nil && overlaps(ss, ds) // reads before writes
	if plain && !stage && m.to == nil && m.dst.skip == nil && !ss.rep && !ds.rep {
		lanes = w.copyDirect(m)
	} else {
		lanes = w.stream(m, dst, plain, stage, isz, osz)
	}
	w.x.Stats.Lanes += lanes
	w.x.Stats.BytesMoved += uint64(lanes * m.dst.size)
	w.x.Tracef("%s: read %d elements (%d bytes), wrote %d elements (%d bytes)", w.name, m.src.n, m.src.bytes(), lanes, lanes*m.dst.size)
	w.apply(deltas)
	return nil
}

// fold makes the skips whole lanes (§11.3: a skipped lane's destination is
// untouched; in a byte stream a lane is the dst element): a dst element that
// would take a byte of a skipped src element is skipped, and a src element
// no written dst element takes a byte of is not read. Through a cast, dst
// element k's out scalars come from the in scalars of the same numbers.
func fold(m *move, isz, osz int) {
	if m.src.skip == nil && m.dst.skip == nil {
		return
	}
	ss, ds := int64(m.src.size), int64(m.dst.size)
	feeds := func(k int64) (lo, hi int64) { // the src elements dst element k takes bytes from
		return k * ds / int64(osz) * int64(isz) / ss, ((k+1)*ds/int64(osz)*int64(isz) - 1) / ss
	}
	if m.src.skip != nil {
		for k := int64(0); k < int64(m.dst.n); k++ {
			lo, hi := feeds(k)
			for i := lo; i <= hi; i++ {
				if m.src.skip[i] {
					m.dst.setSkip(int(k))
					break
				}
			}
		}
	}
	if m.dst.skip == nil {
		return
	}
	read := make([]bool, m.src.n)
	for k := int64(0); k < int64(m.dst.n); k++ {
		if !m.dst.skip[k] {
			lo, hi := feeds(k)
			for i := lo; i <= hi; i++ {
				read[i] = true
			}
		}
	}
	for i, r := range read {
		if !r {
			m.src.setSkip(i)
		}
	}
}

// copyDirect is the plain, disjoint copy: a strided row, or contiguous rows
// of one length a step apart, against the other leg's bytes in rows of that
// size moved as one 2-D copy (mem.CopyStrided); other pieces paired off and
// moved without staging, equal-length pairs batched into one access — or,
// legs of equal elements that are mostly single (an indexed word's lanes),
// element pairs batched.
func (w *word) copyDirect(m *move) int {
	const batch = 4096
	mm := w.x.Mem
	sa, da := make([]uint64, 0, batch), make([]uint64, 0, batch)
	if m.src.size == m.dst.size && (4*len(m.src.rows) > m.src.n || 4*len(m.dst.rows) > m.dst.n) {
		s, d := cursor{e: &m.src}, cursor{e: &m.dst}
		for k := 0; k < m.src.n; k++ {
			if sa, da = append(sa, s.elem()), append(da, d.elem()); len(sa) == batch || k == m.src.n-1 {
				mm.CopyRows(da, sa, m.src.size) // cannot fail: checked
				sa, da = sa[:0], da[:0]
			}
		}
		return m.dst.n
	}
	n := 0 // the batch's piece length
	flush := func() {
		if len(sa) > 0 {
			mm.CopyRows(da, sa, n) // cannot fail: checked
			sa, da = sa[:0], da[:0]
		}
	}
	// Fewer rows than this go element by element in the batch: a call
	// checks and resolves both spans, a batched element is two addresses.
	const minRows = 16
	s, d := runs{e: &m.src}, runs{e: &m.dst}
	for !s.done() {
		if dst, dstStep, src, srcStep, rn, k, ok := rows2D(&s, &d); ok && k >= minRows {
			flush()
			mm.CopyStrided(dst, dstStep, src, srcStep, rn, k) // cannot fail: checked
			s.pass(rn, k)
			d.pass(rn, k)
			continue
		}
		sp, sn := s.piece()
		dp, dn := d.piece()
		c := min(sn, dn)
		if c != n || len(sa) == batch {
			flush()
			n = c
		}
		sa, da = append(sa, sp), append(da, dp)
		s.take(c)
		d.take(c)
	}
	flush()
	return m.dst.n
}

// stream moves the dst piece by piece, in stream order, taking the src
// stream from a copy staged before any write (stage: the legs overlap, and
// reads come before writes, §11.3), else straight from memory; a compute reads each
// piece of dst as the writes before it left it. It returns the dst elements
// written.
func (w *word) stream(m *move, dst *mem.Memory, plain, stage bool, isz, osz int) int {
	src := w.source(m, stage)
	in := func(nb int) int { return nb / osz * isz } // src stream bytes for nb dst bytes
	var buf []byte
	// put writes the next nb bytes of the dst stream at a (contiguous)
	put := func(a uint64, nb int) {
		const chunk = 1 << 16 // a whole number of scalars
		for off, n := 0, 0; off < nb; off += n {
			n = min(chunk, nb-off)
			var b []byte
			if !plain && nb-off > chunk && (nb-off)%osz == 0 && (a+uint64(off))%uint64(osz) == 0 {
				b = src.view(in(nb - off)) // the rest in one piece of memory: one pass over it, not a chunk at a time (a loaded destination then moves to memory of its own in the pass: mem.Combine)
			}
			if b != nil {
				n = nb - off
			} else {
				b = src.next(in(n))
			}
			if !plain && (a+uint64(off))%uint64(osz) == 0 { // scalars aligned: pieces end between them
				if m.compute != isa.DGEComputeOpNone {
					dst.Combine(a+uint64(off), n, func(d, old []byte, o int) { // with what the writes before left, read from old once (checked: cannot fail)
						num.ApplySliceFrom(uint8(m.compute), uint8(m.in), uint8(m.out), d, old, b[o/osz*isz:])
					})
				} else {
					dst.Fill(a+uint64(off), n, func(d []byte, o int) { // the op and types were checked: cannot fail
						num.ApplySlice(uint8(m.compute), uint8(m.in), uint8(m.out), d, b[o/osz*isz:])
					})
				}
				continue
			}
			if !plain {
				if cap(buf) < n {
					buf = make([]byte, n)
				}
				out := buf[:n]
				if m.compute != isa.DGEComputeOpNone {
					dst.Read(a+uint64(off), out) // as the writes before left it (checked: cannot fail)
				}
				num.ApplySlice(uint8(m.compute), uint8(m.in), uint8(m.out), out, b) // the op and types were checked: cannot fail
				b = out
			}
			dst.Write(a+uint64(off), b) // checked: cannot fail
		}
	}
	lanes := 0
	c := cursor{e: &m.dst, rep: true}
	for p := c.next(); p.n > 0; p = c.next() {
		es := m.dst.size
		switch {
		case m.dst.skipped(p.k): // a single element
			src.skip(in(es))
			w.x.Stats.Skipped++
			w.x.Tracef("%s: dst element %d at %#x skipped (out of bounds)", w.name, p.k, p.a)
			continue
		case p.rep && m.compute == isa.DGEComputeOpNone: // n elements onto one: the last write is what stays
			src.skip(in((p.n - 1) * es))
			put(p.a, es)
		case p.rep: // each combines with what the one before left
			for range p.n {
				put(p.a, es)
			}
		default:
			put(p.a, p.n*es)
		}
		lanes += p.n
	}
	return lanes
}

// source reads a move's src stream in order.
type source struct {
	staged []byte // the whole stream, read before any write (nil: read as it is taken)
	mem    *mem.Memory
	cur    cursor
	p      piece // the current piece, from byte at of it on
	at     int
	elem   []byte // a zero-step piece's element
	buf    []byte
	peek   bool // no write the word makes can reach the src: next may hand out memory's own bytes (mem.Peek)
}

// source returns the src stream of m, staged whole when stage is set;
// skipped src elements are not read (their bytes reach no dst).
func (w *word) source(m *move, stage bool) *source {
	s := &source{mem: w.x.Mem, cur: cursor{e: &m.src, rep: true}, peek: !stage && m.to == nil}
	if stage {
		s.staged = make([]byte, m.src.bytes())
		s.fill(s.staged, len(s.staged))
	}
	return s
}

// next returns the stream's next n bytes (valid until the next call).
func (s *source) next(n int) []byte {
	if s.staged != nil {
		b := s.staged[:n]
		s.staged = s.staged[n:]
		return b
	}
	if b := s.view(n); b != nil { // in one piece of memory: no copy (checked: the legs do not overlap, so no write changes it first)
		return b
	}
	if cap(s.buf) < n {
		s.buf = make([]byte, n)
	}
	s.fill(s.buf[:n], n)
	return s.buf[:n]
}

// view returns the stream's next n bytes when memory holds them in one piece
// that no write of the word reaches (mem.Peek), having taken them; nil,
// having taken nothing, otherwise — then the caller takes them by next.
func (s *source) view(n int) []byte {
	if s.staged != nil || !s.ready() {
		return nil
	}
	if p := s.p; s.at+n <= p.n*s.cur.e.size && !p.rep && !s.cur.e.skipped(p.k) {
		if b := s.mem.Peek(p.a+uint64(s.at), n); b != nil {
			s.at += n
			return b
		}
	}
	return nil
}

// ready readies the current piece for a view: false when the stream may not
// be read in place.
func (s *source) ready() bool {
	if !s.peek {
		return false
	}
	if s.at == s.p.n*s.cur.e.size {
		s.advance()
	}
	return true
}

// skip passes over the stream's next n bytes.
func (s *source) skip(n int) {
	if s.staged != nil {
		s.staged = s.staged[n:]
		return
	}
	s.fill(nil, n)
}

// advance moves on to the next piece of the src leg; a zero-step piece's
// element is read once here.
func (s *source) advance() {
	size := s.cur.e.size
	s.p, s.at = s.cur.next(), 0
	if s.p.rep {
		if cap(s.elem) < size {
			s.elem = make([]byte, size)
		}
		s.elem = s.elem[:size]
		s.mem.Read(s.p.a, s.elem) // checked: cannot fail
	}
}

// fill reads the next n bytes of the src leg into b (b nil: passes over
// them); a zero-step piece's element is read once and repeated.
func (s *source) fill(b []byte, n int) {
	size := s.cur.e.size
	for got := 0; got < n; {
		if s.at == s.p.n*size {
			s.advance()
		}
		c := min(n-got, s.p.n*size-s.at)
		switch {
		case b == nil:
		case s.cur.e.skipped(s.p.k):
			clear(b[got : got+c])
		case s.p.rep:
			repeat(b[got:got+c], s.elem, s.at%size)
		default:
			s.mem.Read(s.p.a+uint64(s.at), b[got:got+c]) // checked: cannot fail
		}
		s.at, got = s.at+c, got+c
	}
}

// repeat fills b with copies of p, starting phase bytes into it.
func repeat(b, p []byte, phase int) {
	n := copy(b, p[phase:])
	if n == len(b) {
		return
	}
	for x := copy(b[n:], p); n+x < len(b); x *= 2 { // b[n:n+x] is whole copies of p: double them
		copy(b[n+x:], b[n:n+x])
	}
}

// shape is what a move needs of a leg's rows, found in one pass: its extent
// [lo, hi) (ok false: a row wraps around 2^64) and whether a row repeats an
// element (a zero step).
type shape struct {
	lo, hi  uint64
	ok, rep bool
}

func (e *elems) shape() shape {
	sh := shape{ok: true}
	for i, r := range e.rows {
		lo, hi, ok := r.addr, r.addr+uint64(e.size), r.addr+uint64(e.size) > r.addr
		if r.n > 1 {
			lo, hi, ok = r.span(e.size)
		}
		sh.ok = sh.ok && ok
		sh.rep = sh.rep || r.step == 0 && r.n > 1
		if i == 0 {
			sh.lo, sh.hi = lo, hi
		}
		sh.lo, sh.hi = min(sh.lo, lo), max(sh.hi, hi)
	}
	return sh
}

// overlaps reports whether two legs' byte extents may intersect.
func overlaps(a, b shape) bool { return !a.ok || !b.ok || a.lo < b.hi && b.lo < a.hi }

// scalar is one cast or compute (internal/num.Apply, §11.4).
func scalar(m *move, src, old uint64) (uint64, error) {
	r, err := num.Apply(uint8(m.compute), uint8(m.in), uint8(m.out), src, old)
	if errors.Is(err, num.ErrOp) {
		return 0, fmt.Errorf("%v: %w", err, ErrUnsupported)
	}
	return r, err
}
