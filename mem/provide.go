package mem

import "ndma/isa"

// Provide makes data the storage of the absent HBM pages from addr on that
// it covers whole, and returns how many bytes that is (a multiple of
// PageSize). It provides nothing (0) where addr is not in HBM or not on a
// page boundary, and stops at the first page that is present or that a
// lazy range meets (the caller skips a present page and asks again after
// it). Unlike Attach's, the pages are the memory's ordinary storage: read
// and written in place, never copied away on a write. data must read as
// zero (so nothing the memory holds changes: no traffic is counted) and
// stay valid while the memory is used — data is meant to be a shared
// mapping of a --dump's output file, so that the run writes its result
// straight into the file's page cache (issue 17: a 64 MiB dump neither
// zeroes anonymous memory nor copies it with write(2)).
func (m *Memory) Provide(addr uint64, data []byte) int {
	r, _, off, err := m.locate(addr, len(data))
	if err != nil || r != isa.HBM || len(data) < PageSize {
		return 0
	}
	h := m.hbm
	a := m.Map.HBMBase + off
	if a%PageSize != 0 {
		return 0
	}
	first, k := a/PageSize, uint64(len(data)/PageSize)
	for i := range k {
		if h.page(first+i) != nil || len(h.lazy) > 0 && h.lazyIn((first+i)*PageSize, (first+i+1)*PageSize) {
			k = i
			break
		}
	}
	n := int(k * PageSize)
	for i := range k {
		p := first + i
		leaf := h.dir[p/hbmLeaf]
		if leaf == nil {
			leaf = new([hbmLeaf][]byte)
			h.dir[p/hbmLeaf] = leaf
		}
		leaf[p%hbmLeaf] = data[i*PageSize : (i+1)*PageSize : n] // cap runs to the provided end: one extent, as backing's runs want
	}
	h.pages += int(k)
	return n
}
