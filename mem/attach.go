package mem

import "ndma/isa"

// Attach makes data the storage of the HBM pages from addr on that it
// covers whole, and returns how many bytes that is (a multiple of
// PageSize; the caller writes the rest as usual). It attaches nothing (0)
// where addr is not in HBM or not on a page boundary, and stops at the
// first page that is present or that a lazy range meets. The memory then
// reads and writes data in place and owns it: the caller must neither use
// nor free it — data is meant to be a copy-on-write mapping of a file
// (internal/array File.Map), whose pages the memory reads from the page
// cache with no copy and writes privately (issue 17: a 64 MiB `--load`
// neither zeroes nor copies 64 MiB).
func (m *Memory) Attach(addr uint64, data []byte) int {
	first, k, part, off := m.absentPages(addr, data)
	if k == 0 {
		return 0
	}
	h, r, n := m.hbm, isa.HBM, int(k*PageSize)
	if m.owes(r, part, off, n) {
		h.settle() // a copy from a lazy range put off into these pages lands first, then data overwrites it
	}
	if m.track != nil {
		m.track.note(m, r, part, off, n)
	}
	h.store(first, k, data)
	for i := range k {
		h.setMapped(first + i)
	}
	h.nmapped += int(k)
	m.Stats.Written[r] += uint64(n)
	return n
}

// absentPages is the whole HBM pages data covers from addr on that are
// absent — from page first, k of them, up to the first present page or
// lazy range — and addr's partition and offset (Attach, Provide); k is 0
// where addr is not in HBM or not on a page boundary.
func (m *Memory) absentPages(addr uint64, data []byte) (first, k uint64, part int, off uint64) {
	r, part, off, err := m.locate(addr, len(data))
	if err != nil || r != isa.HBM || len(data) < PageSize {
		return 0, 0, 0, 0
	}
	h := m.hbm
	a := m.Map.HBMBase + off
	if a%PageSize != 0 {
		return 0, 0, 0, 0
	}
	first, k = a/PageSize, uint64(len(data)/PageSize)
	for i := range k {
		if h.page(first+i) != nil || len(h.lazy) > 0 && h.lazyIn((first+i)*PageSize, (first+i+1)*PageSize) {
			return first, i, part, off
		}
	}
	return first, k, part, off
}

// store makes data's first k pages the storage of pages first on, each
// one's cap running to the k pages' end: the pages continue each other, as
// backing's runs want.
func (h *HBM) store(first, k uint64, data []byte) {
	n := k * PageSize
	for i := range k {
		p := first + i
		leaf := h.dir[p/hbmLeaf]
		if leaf == nil {
			leaf = new([hbmLeaf][]byte)
			h.dir[p/hbmLeaf] = leaf
		}
		leaf[p%hbmLeaf] = data[i*PageSize : (i+1)*PageSize : n]
	}
	h.pages += int(k)
}

// isMapped: page k is stored in an attached mapping (false at once while
// nothing is attached: the common case, on every write's path).
func (h *HBM) isMapped(k uint64) bool {
	if h.nmapped == 0 {
		return false
	}
	bits := h.mapped[k/hbmLeaf]
	return bits != nil && bits[k%hbmLeaf/64]&(1<<(k%64)) != 0
}

// ownChunk is the least an attached page's first write moves (4 MiB: huge pages).
const ownChunk = 64

// own moves the attached pages from page k on — at least need of them (the
// access) and ownChunk, while they stay attached and continue each other —
// into one new extent holding their bytes, and returns page k's new storage.
// The bytes [lo, hi) from page k's start are not copied: the caller writes
// them (lo = hi: all are copied).
func (h *HBM) own(k, need, lo, hi uint64) []byte {
	first := h.page(k)
	e := k + 1
	for e < k+max(need, ownChunk) && h.isMapped(e) {
		q, at := h.page(e), (e-k)*PageSize
		if q == nil || at >= uint64(cap(first)) || &q[0] != &first[:cap(first)][at] { // another mapping's pages: not this extent
			break
		}
		e++
	}
	end := (e - k) * PageSize
	ext := allocExtent(int(end))
	lo, hi = min(lo, end), min(hi, end)
	copy(ext[:lo], first[:lo])
	copy(ext[hi:], first[hi:end])
	for p := k; p < e; p++ {
		h.dir[p/hbmLeaf][p%hbmLeaf] = ext[(p-k)*PageSize : (p-k+1)*PageSize] // cap runs to the extent's end
		h.mapped[p/hbmLeaf][p%hbmLeaf/64] &^= 1 << (p % 64)
	}
	h.nmapped -= int(e - k)
	return h.page(k)
}

// share is Copy of one whole page from HBM offset os to od where the source
// page is stored in an attached mapping: the destination page then is
// stored there too (both read it in place; the first write to either moves
// that one to memory of its own: own), so copying loaded data costs no
// copy (issue 17). It reports false, having done nothing, anywhere else:
// off a page boundary, a source page not attached, a lazy destination.
func (m *Memory) share(od, os uint64) bool {
	h := m.hbm
	s, d := m.Map.HBMBase+os, m.Map.HBMBase+od
	if s%PageSize != 0 || !h.isMapped(s/PageSize) || len(h.lazy) > 0 && h.lazyIn(d, d+PageSize) {
		return false
	}
	if m.track != nil {
		m.track.note(m, isa.HBM, 0, od, PageSize)
	}
	k := d / PageSize
	leaf := h.dir[k/hbmLeaf]
	if leaf == nil {
		leaf = new([hbmLeaf][]byte)
		h.dir[k/hbmLeaf] = leaf
	}
	if leaf[k%hbmLeaf] == nil {
		h.pages++
	}
	if !h.isMapped(k) {
		h.nmapped++
	}
	leaf[k%hbmLeaf] = h.page(s / PageSize) // the source's slice: its cap runs on through the mapping, as the next shared page does
	h.setMapped(k)
	return true
}

// setMapped flags page k as stored in an attached mapping.
func (h *HBM) setMapped(k uint64) {
	bits := h.mapped[k/hbmLeaf]
	if bits == nil {
		bits = new([hbmLeaf / 64]uint64)
		h.mapped[k/hbmLeaf] = bits
	}
	bits[k%hbmLeaf/64] |= 1 << (k % 64)
}
