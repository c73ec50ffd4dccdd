// Package mem is the emulated memory of one NeuronCore (field-tables §7,
// §11.2): SBUF partitions with the generation's stride and active size, PSUM
// on v2–v4, the HBM window as sparse 64 KiB pages, and the EVT_SEM block's
// semaphores and events. Every access is checked; a bad one is a Fault that
// names the address, the region and why. The HBM is an HBM of its own, which
// the cores of one device share (NewCore); the rest is the core's alone.
package mem

import (
	"fmt"

	"ndma/isa"
)

// PageSize is the HBM page: touching 1 GiB scattered over the 124 GiB window
// costs about 1 GiB (plus a 96 KiB table leaf per 256 MiB touched).
const PageSize = 64 << 10

const (
	hbmLeaf = 1 << 12                                           // pages per table leaf (256 MiB)
	hbmDirs = (0x20_0000_0000/PageSize + hbmLeaf - 1) / hbmLeaf // leaves covering the address space up to 128 GiB
)

// Fault is a refused access.
type Fault struct {
	Addr   uint64
	Len    int
	Where  string // "sbuf partition 3 offset 0x38000", "hbm offset 0x10", "unmapped"
	Reason string
}

func (f *Fault) Error() string {
	return fmt.Sprintf("address %#x (+%d bytes, %s): %s", f.Addr, f.Len, f.Where, f.Reason)
}

// HBM is the device memory behind the HBM window (§11.2), stored sparsely:
// one device's cores share it, each through its own Memory.
type HBM struct {
	dir   [hbmDirs]*[hbmLeaf][]byte // two-level page table: page number → page (slices: slicing one never touches the page itself)
	pages int
}

// NewHBM returns an empty (all-zero) HBM.
func NewHBM() *HBM { return new(HBM) }

// Pages is the number of pages allocated (the sparse footprint).
func (h *HBM) Pages() int { return h.pages }

// page is page k's storage, nil when absent.
func (h *HBM) page(k uint64) []byte {
	if leaf := h.dir[k/hbmLeaf]; leaf != nil {
		return leaf[k%hbmLeaf]
	}
	return nil
}

// Memory is one core's address space.
type Memory struct {
	Gen    isa.Gen
	Map    isa.AddressMap
	sbuf   [][]byte // partition → its active bytes, allocated on first touch
	psum   [][]byte
	hbm    *HBM // perhaps shared with other cores
	Sems   [256]int32
	Events [256]bool
	Stats  Stats
	sink   byte // CopyRows' look-ahead touches land here, so they are not optimised away
}

// Stats counts the bytes moved per region.
type Stats struct {
	Read, Written [4]uint64 // by isa.Region
}

// New returns empty (all-zero) memory for a generation: a core with an HBM
// of its own.
func New(g isa.Gen) *Memory { return NewCore(g, nil) }

// NewCore returns an empty core of generation g whose HBM is h (nil: an HBM
// of its own). Cores given one h see each other's HBM bytes and nothing else
// of each other; they should be of one generation. h is not safe for
// concurrent use: the cores sharing it run in one goroutine.
func NewCore(g isa.Gen, h *HBM) *Memory {
	if h == nil {
		h = NewHBM()
	}
	m := isa.Map(g)
	return &Memory{Gen: g, Map: m, sbuf: make([][]byte, m.Partitions), psum: make([][]byte, m.Partitions), hbm: h}
}

// HBM is the HBM the core reads and writes.
func (m *Memory) HBM() *HBM { return m.hbm }

// Check reports whether [addr, addr+n) is readable and writable, without
// touching it. One region holds the whole range or the access faults.
func (m *Memory) Check(addr uint64, n int) error {
	_, _, _, err := m.locate(addr, n)
	return err
}

// locate checks [addr, addr+n) and names its region, partition and offset;
// every access starts here, so the region is resolved once per call.
func (m *Memory) locate(addr uint64, n int) (isa.Region, int, uint64, error) {
	r, part, off := m.Map.Split(addr)
	switch r {
	case isa.SBUF:
		if off+uint64(n) > m.Map.SBUFActive {
			return r, part, off, &Fault{addr, n, fmt.Sprintf("sbuf partition %d offset %#x", part, off), fmt.Sprintf("beyond the %d KiB active in a partition on %s", m.Map.SBUFActive>>10, m.Gen)}
		}
	case isa.PSUM:
		if off+uint64(n) > m.Map.PSUMActive {
			return r, part, off, &Fault{addr, n, fmt.Sprintf("psum partition %d offset %#x", part, off), fmt.Sprintf("beyond the %d KiB active in a partition", m.Map.PSUMActive>>10)}
		}
	case isa.HBM:
		if addr+uint64(n) > m.Map.HBMEnd {
			return r, part, off, &Fault{addr, n, fmt.Sprintf("hbm offset %#x", off), "runs past the HBM window"}
		}
	default:
		return r, part, off, &Fault{addr, n, "unmapped", "not in SBUF, PSUM or HBM"}
	}
	return r, part, off, nil
}

// backing is the storage under a located (r, part, off): at most n bytes,
// fewer where an HBM page ends that the next page does not continue in host
// memory. Absent storage is created when alloc is set
// and otherwise returned as nil (it reads as zero); c is the length covered.
func (m *Memory) backing(r isa.Region, part int, off uint64, n int, alloc bool) (s []byte, c int) {
	switch r {
	case isa.SBUF, isa.PSUM:
		active, store := m.Map.SBUFActive, m.sbuf
		if r == isa.PSUM {
			active, store = m.Map.PSUMActive, m.psum
		}
		if store[part] == nil {
			if !alloc {
				return nil, n
			}
			store[part] = make([]byte, active)
		}
		return store[part][off : off+uint64(n)], n
	}
	h := m.hbm
	addr := m.Map.HBMBase + off
	page, po := addr/PageSize, addr%PageSize
	c = int(min(uint64(n), PageSize-po))
	leaf := h.dir[page/hbmLeaf]
	if leaf == nil {
		if !alloc {
			return nil, c
		}
		leaf = new([hbmLeaf][]byte)
		h.dir[page/hbmLeaf] = leaf
	}
	p := leaf[page%hbmLeaf]
	if p == nil {
		if !alloc {
			return nil, c
		}
		// This page and the absent ones after it that the access covers
		// become one extent: later copies across them are one memmove.
		last, k := (addr+uint64(n)-1)/PageSize, page
		for k < last && (k+1)/hbmLeaf == page/hbmLeaf && leaf[(k+1)%hbmLeaf] == nil {
			k++
		}
		ext := make([]byte, (k-page+1)*PageSize)
		for i := uint64(0); i <= k-page; i++ {
			leaf[(page+i)%hbmLeaf] = ext[i*PageSize : (i+1)*PageSize] // cap runs to the extent's end
		}
		h.pages += int(k - page + 1)
		p = leaf[page%hbmLeaf]
	}
	if want := po + uint64(n); want > PageSize && cap(p) > PageSize {
		// the following pages, while they are the same extent's next ones
		full, end := p[:cap(p)], uint64(PageSize)
		for k := page + 1; end < want && end < uint64(len(full)); k++ {
			q := h.page(k)
			if q == nil || &q[0] != &full[end] {
				break
			}
			end += PageSize
		}
		c = int(min(want, end) - po)
		return full[po : po+uint64(c)], c
	}
	return p[po : po+uint64(c)], c
}

// Read copies [addr, addr+len(dst)) into dst; untouched memory reads as zero.
func (m *Memory) Read(addr uint64, dst []byte) error {
	r, part, off, err := m.locate(addr, len(dst))
	if err != nil {
		return err
	}
	m.Stats.Read[r] += uint64(len(dst))
	for len(dst) > 0 {
		s, c := m.backing(r, part, off, len(dst), false)
		if s == nil {
			clear(dst[:c])
		} else {
			copy(dst, s)
		}
		off, dst = off+uint64(c), dst[c:]
	}
	return nil
}

// Write copies src to [addr, addr+len(src)); a refused write changes nothing.
func (m *Memory) Write(addr uint64, src []byte) error {
	r, part, off, err := m.locate(addr, len(src))
	if err != nil {
		return err
	}
	m.Stats.Written[r] += uint64(len(src))
	for len(src) > 0 {
		d, c := m.backing(r, part, off, len(src), true)
		copy(d, src)
		off, src = off+uint64(c), src[c:]
	}
	return nil
}

// Fill writes [addr, addr+n) in place: fill is handed the memory's own
// backing, piece by piece in address order, with each piece's offset from
// addr — a generator writes straight into memory, without a staging copy.
// A refused range changes nothing.
func (m *Memory) Fill(addr uint64, n int, fill func(dst []byte, off int)) error {
	r, part, off, err := m.locate(addr, n)
	if err != nil {
		return err
	}
	m.Stats.Written[r] += uint64(n)
	for done := 0; done < n; {
		d, c := m.backing(r, part, off, n-done, true)
		fill(d, done)
		off, done = off+uint64(c), done+c
	}
	return nil
}

// Copy moves n bytes from src to dst address directly (no staging buffer);
// the ranges must not overlap (the caller checks). A refused copy changes
// nothing.
func (m *Memory) Copy(dst, src uint64, n int) error {
	rs, ps, os, err := m.locate(src, n)
	if err != nil {
		return err
	}
	rd, pd, od, err := m.locate(dst, n)
	if err != nil {
		return err
	}
	m.Stats.Read[rs] += uint64(n)
	m.Stats.Written[rd] += uint64(n)
	for n > 0 {
		s, c := m.backing(rs, ps, os, n, false)
		d, c := m.backing(rd, pd, od, c, true)
		if s == nil {
			clear(d)
		} else {
			copy(d, s)
		}
		os, od, n = os+uint64(c), od+uint64(c), n-c
	}
	return nil
}

// CopyRows copies n bytes from src[k] to dst[k] for every k, as one access:
// every row is checked before any byte moves, and on a fault nothing has
// changed and k names the first bad row (src checked before dst). Rows that
// continue each other on both sides move as one run. The rows must not
// overlap one another (the caller checks).
func (m *Memory) CopyRows(dst, src []uint64, n int) (int, error) {
	if len(dst) != len(src) {
		return 0, fmt.Errorf("CopyRows: %d src rows for %d dst rows", len(src), len(dst))
	}
	rs, k, err := m.checkRows(src, n)
	if err != nil {
		return k, err
	}
	rd, k, err := m.checkRows(dst, n)
	if err != nil {
		return k, err
	}
	if len(src) == 0 {
		return 0, nil
	}
	runs := 1
	for k := 1; k < len(src); k++ {
		if src[k] != src[k-1]+uint64(n) || dst[k] != dst[k-1]+uint64(n) {
			runs++
		}
	}
	if runs*4 <= len(src) || n > PageSize {
		// mostly contiguous: rows that continue each other move as one run
		for k := 0; k < len(src); {
			e := k + 1
			for e < len(src) && src[e] == src[e-1]+uint64(n) && dst[e] == dst[e-1]+uint64(n) {
				e++
			}
			if err := m.Copy(dst[k], src[k], (e-k)*n); err != nil {
				return k, err // cannot happen: checked above
			}
			k = e
		}
		return 0, nil
	}
	// A gather: rows on scattered pages. Resolve a block of sources ahead and
	// touch them back to back, so that their cache and TLB misses overlap
	// one another and the previous block's copies rather than stall them.
	const block = 16
	var ring [2][block][]byte
	var sink byte
	resolve := func(b int) {
		buf := &ring[(b/block)%2]
		for i := range buf {
			buf[i] = nil
			if k := b + i; k < len(src) {
				if s, c := m.rowSpan(src[k], n); c == n {
					buf[i] = s
				}
			}
		}
		for _, s := range buf {
			if s != nil {
				sink ^= s[0]
			}
		}
	}
	resolve(0)
	fast := 0
	var dlo uint64 // dlo.. is the stored span dspan of the last dst row (rows often follow each other)
	var dspan []byte
	for b := 0; b < len(src); b += block {
		if b+block < len(src) {
			resolve(b + block)
		}
		buf := &ring[(b/block)%2]
		for i := 0; i < block && b+i < len(src); i++ {
			k := b + i
			if buf[i] != nil {
				d := dst[k]
				if d < dlo || d-dlo+uint64(n) > uint64(len(dspan)) {
					dlo, dspan = d, nil
					if r, part, off := m.Map.Split(d); r == isa.HBM {
						dspan, _ = m.backing(r, part, off, int(PageSize-(m.Map.HBMBase+off)%PageSize), true) // to the page's end, not past it
					} else {
						dspan, _ = m.backing(r, part, off, n, true)
					}
				}
				if o := d - dlo; o+uint64(n) <= uint64(len(dspan)) {
					copy(dspan[o:o+uint64(n)], buf[i])
					if rs == isa.Unmapped || rd == isa.Unmapped {
						m.count(rs, src[k], rd, d, n)
					} else {
						fast++ // counted at the end: the regions are known
					}
					continue
				}
			}
			if err := m.Copy(dst[k], src[k], n); err != nil {
				return k, err // cannot happen: checked above
			}
		}
	}
	m.Stats.Read[rs] += uint64(fast * n)
	m.Stats.Written[rd] += uint64(fast * n)
	m.sink += sink
	return 0, nil
}

// checkRows checks n-byte rows at each address: one check of the whole span
// when it lies in one region (then named in one), else row by row to name
// the first bad one.
func (m *Memory) checkRows(rows []uint64, n int) (one isa.Region, k int, err error) {
	if len(rows) == 0 {
		return isa.Unmapped, 0, nil
	}
	lo, hi := rows[0], rows[0]
	for _, a := range rows {
		lo, hi = min(lo, a), max(hi, a)
	}
	if span := hi - lo + uint64(n); hi+uint64(n) > hi && span <= 1<<40 && m.Check(lo, int(span)) == nil {
		return m.region(lo), 0, nil
	}
	for k, a := range rows {
		if err := m.Check(a, n); err != nil {
			return isa.Unmapped, k, err
		}
	}
	return isa.Unmapped, 0, nil
}

// CheckRows checks n-byte rows at each address, as one access would; k is
// the first bad row.
func (m *Memory) CheckRows(rows []uint64, n int) (k int, err error) {
	_, k, err = m.checkRows(rows, n)
	return k, err
}

// count adds a row copied outside Copy to the stats; a region known for
// all rows (not Unmapped) saves splitting the address.
func (m *Memory) count(rs isa.Region, src uint64, rd isa.Region, dst uint64, n int) {
	if rs == isa.Unmapped {
		rs = m.region(src)
	}
	if rd == isa.Unmapped {
		rd = m.region(dst)
	}
	m.Stats.Read[rs] += uint64(n)
	m.Stats.Written[rd] += uint64(n)
}

func (m *Memory) region(a uint64) isa.Region {
	r, _, _ := m.Map.Split(a)
	return r
}

// rowSpan is the stored bytes of a checked row when one partition or page
// holds it (c == n); nil storage reads as zero.
func (m *Memory) rowSpan(a uint64, n int) ([]byte, int) {
	r, part, off := m.Map.Split(a)
	return m.backing(r, part, off, n, false)
}

// Pages is the number of HBM pages allocated (the sparse footprint), by
// every core sharing the HBM.
func (m *Memory) Pages() int { return m.hbm.pages }

// Snapshot is a comparable copy of every touched byte and the semaphores
// (for tests: "nothing changed after a fault"); the HBM's pages are the
// shared HBM's, whichever core touched them.
func (m *Memory) Snapshot() map[string][]byte {
	out := map[string][]byte{}
	for p, b := range m.sbuf {
		if b != nil {
			out[fmt.Sprintf("sbuf%d", p)] = append([]byte(nil), b...)
		}
	}
	for p, b := range m.psum {
		if b != nil {
			out[fmt.Sprintf("psum%d", p)] = append([]byte(nil), b...)
		}
	}
	for d, leaf := range m.hbm.dir {
		if leaf == nil {
			continue
		}
		for k, b := range leaf {
			if b != nil {
				out[fmt.Sprintf("hbm%d", d*hbmLeaf+k)] = append([]byte(nil), b...)
			}
		}
	}
	sems := make([]byte, 0, 4*256)
	for _, s := range m.Sems {
		sems = append(sems, byte(s), byte(s>>8), byte(s>>16), byte(s>>24))
	}
	out["sems"] = sems
	return out
}
