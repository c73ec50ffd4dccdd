package mem

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
	first, k, _, _ := m.absentPages(addr, data)
	m.hbm.store(first, k, data)
	return int(k * PageSize)
}
