package mem

import (
	"fmt"

	"ndma/isa"
)

// ShareOnchip makes data the storage of every partition of region r (SBUF
// or PSUM): partition p is data[p·active : (p+1)·active], active the
// region's active bytes per partition (field-tables §11.2). The memory then
// reads and writes data in place — the caller's array is the region — until
// another ShareOnchip; data's previous contents are the region's contents
// (nothing is zeroed or copied). The caller keeps data alive and does not
// resize it while the memory uses it. ndma.nki shares its NumPy SBUF and
// PSUM this way, so the DMA words and NumPy's compute see one memory.
func (m *Memory) ShareOnchip(r isa.Region, data []byte) error {
	k, active, store := 0, m.Map.SBUFActive, m.sbuf
	switch r {
	case isa.SBUF:
	case isa.PSUM:
		k, active, store = 1, m.Map.PSUMActive, m.psum
	default:
		return fmt.Errorf("ShareOnchip: region %v: want SBUF or PSUM", r)
	}
	if active == 0 {
		return fmt.Errorf("ShareOnchip: %v has no %v", m.Gen, r)
	}
	want := uint64(m.Map.Partitions) * active
	if uint64(len(data)) != want {
		return fmt.Errorf("ShareOnchip: %d bytes for %v: want %d partitions × %d bytes = %d", len(data), r, m.Map.Partitions, active, want)
	}
	for p := range store {
		lo := uint64(p) * active
		store[p] = data[lo : lo+active : lo+active]
	}
	m.shared[k] = true
	m.onchip[k] = data[:want:want]
	m.parts[k] = m.Map.Partitions
	return nil
}
