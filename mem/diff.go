package mem

import (
	"bytes"
	"fmt"

	"ndma/isa"
)

// DiffKind is what a Difference is about.
type DiffKind uint8

const (
	ByteDiff      DiffKind = iota // a byte of SBUF, PSUM or HBM
	SemaphoreDiff                 // one of the 256 semaphores
	EventDiff                     // one of the 256 events
)

// Difference is the first place where two memories disagree.
type Difference struct {
	Kind   DiffKind
	Addr   uint64     // ByteDiff: the address
	Index  int        // SemaphoreDiff, EventDiff: which one
	Region isa.Region // ByteDiff: SBUF, PSUM or HBM
	Where  string     // ByteDiff: "sbuf partition 3", "psum partition 0" or "hbm"
	A, B   int64      // the two values: a byte, a semaphore, an event as 0 or 1
}

// Format names the difference with the two memories called a and b:
// "address 0x40 (sbuf partition 0): ref 0x01, sim 0x02", "$S[3]: ref 1, sim 0",
// "event 4: ref true, sim false".
func (d Difference) Format(a, b string) string {
	switch d.Kind {
	case SemaphoreDiff:
		return fmt.Sprintf("$S[%d]: %s %d, %s %d", d.Index, a, d.A, b, d.B)
	case EventDiff:
		return fmt.Sprintf("event %d: %s %v, %s %v", d.Index, a, d.A != 0, b, d.B != 0)
	}
	return fmt.Sprintf("address %#x (%s): %s %#02x, %s %#02x", d.Addr, d.Where, a, d.A, b, d.B)
}

// String is Format("ref", "sim"): the toolkit compares the reference with
// the simulator.
func (d Difference) String() string { return d.Format("ref", "sim") }

// FirstDifference compares two memories of one generation (untouched bytes
// are zero): the lowest differing semaphore, else the lowest differing
// byte address, else the lowest differing event. Semaphores come first and
// events last so that the answer is the CLI's former Snapshot comparison
// wherever that found one (it never compared events). With hbm false, or
// when a and b share one HBM, the HBM is not compared (the second core of a
// device whose HBM was compared with its first). The cost is that of the
// partitions and pages present in either memory; a page no write stored
// reads as its lazy ranges generate it (Lazy), generated to be compared
// unless both memories have it from generators of one id.
func FirstDifference(a, b *Memory, hbm bool) (Difference, bool) {
	a.hbm.settle()
	b.hbm.settle()
	for i := range a.Sems {
		if a.Sems[i] != b.Sems[i] {
			return Difference{Kind: SemaphoreDiff, Index: i, A: int64(a.Sems[i]), B: int64(b.Sems[i])}, true
		}
	}
	// SBUF, PSUM and HBM in address order (§11.2): the first byte found is the lowest.
	for _, r := range []isa.Region{isa.SBUF, isa.PSUM} {
		pa, pb, base, stride := a.sbuf, b.sbuf, uint64(0), a.Map.SBUFStride
		if r == isa.PSUM {
			pa, pb, base, stride = a.psum, b.psum, a.Map.PSUMBase, a.Map.PSUMStride
		}
		for p := range min(len(pa), len(pb)) {
			if i, x, y, ok := firstByte(pa[p], pb[p]); ok {
				return Difference{Kind: ByteDiff, Addr: base + uint64(p)*stride + uint64(i), Region: r,
					Where: fmt.Sprintf("%s partition %d", r, p), A: int64(x), B: int64(y)}, true
			}
		}
	}
	if hbm && a.hbm != b.hbm {
		var ga, gb []byte // a page of a lazy range, generated
		for d := range a.hbm.dir {
			la, lb := a.hbm.dir[d], b.hbm.dir[d]
			lo, hi := uint64(d)*hbmLeaf*PageSize, uint64(d+1)*hbmLeaf*PageSize
			lazy := a.hbm.lazyIn(lo, hi) || b.hbm.lazyIn(lo, hi)
			if la == nil && lb == nil && !lazy {
				continue
			}
			for k := range hbmLeaf {
				var pa, pb []byte
				if la != nil {
					pa = la[k]
				}
				if lb != nil {
					pb = lb[k]
				}
				if lazy && (pa == nil || pb == nil) {
					p := lo + uint64(k)*PageSize
					if pa == nil && pb == nil && sameLazy(a.hbm, b.hbm, p, p+PageSize) {
						continue
					}
					if pa == nil && a.hbm.lazyIn(p, p+PageSize) {
						if ga == nil {
							ga = make([]byte, PageSize)
						}
						a.hbm.absent(p, ga)
						pa = ga
					}
					if pb == nil && b.hbm.lazyIn(p, p+PageSize) {
						if gb == nil {
							gb = make([]byte, PageSize)
						}
						b.hbm.absent(p, gb)
						pb = gb
					}
				}
				if i, x, y, ok := firstByte(pa, pb); ok {
					return Difference{Kind: ByteDiff, Addr: uint64(d*hbmLeaf+k)*PageSize + uint64(i), Region: isa.HBM,
						Where: "hbm", A: int64(x), B: int64(y)}, true
				}
			}
		}
	}
	for i := range a.Events {
		if a.Events[i] != b.Events[i] {
			return Difference{Kind: EventDiff, Index: i, A: b2i(a.Events[i]), B: b2i(b.Events[i])}, true
		}
	}
	return Difference{}, false
}

func b2i(v bool) int64 {
	if v {
		return 1
	}
	return 0
}

// zeros stands in for absent storage, which reads as zero.
var zeros [4096]byte

// firstByte is the first index where x and y differ, with both bytes; a
// nil or shorter slice continues with zeros. Equal chunks are skipped with
// bytes.Equal (memcmp), so equal partitions cost a memcmp, not a loop.
func firstByte(x, y []byte) (int, byte, byte, bool) {
	if x == nil && y == nil || bytes.Equal(x, y) {
		return 0, 0, 0, false
	}
	n := max(len(x), len(y))
	for o := 0; o < n; o += len(zeros) {
		c := min(len(zeros), n-o)
		cx, cy := chunk(x, o, c), chunk(y, o, c)
		if bytes.Equal(cx, cy) {
			continue
		}
		for i := range c {
			if cx[i] != cy[i] {
				return o + i, cx[i], cy[i], true
			}
		}
	}
	return 0, 0, 0, false
}

// chunk is s[o:o+c], zeros where s is shorter (memories of two generations).
func chunk(s []byte, o, c int) []byte {
	if o+c <= len(s) {
		return s[o : o+c]
	}
	if o >= len(s) {
		return zeros[:c]
	}
	return append(append(make([]byte, 0, c), s[o:]...), zeros[:o+c-len(s)]...)
}
