package mem

import (
	"fmt"
	"slices"

	"ndma/isa"
)

// Touched records which units of memory writes reached while a memory
// tracks them: SBUF and PSUM partitions, HBM pages. Holding two executors
// to one answer after every word then compares what the word could have
// changed, not all of memory (a run of 1,000 words compared everything
// 1,000 times).
type Touched struct {
	part  [2]map[int]bool // SBUF, PSUM partitions
	pages map[uint64]bool // HBM page numbers
}

// NewTouched is an empty record.
func NewTouched() *Touched {
	return &Touched{part: [2]map[int]bool{{}, {}}, pages: map[uint64]bool{}}
}

// Reset empties the record.
func (t *Touched) Reset() {
	clear(t.part[0])
	clear(t.part[1])
	clear(t.pages)
}

// Track makes m record into t every unit a write reaches (nil: stop).
func (m *Memory) Track(t *Touched) { m.track = t }

// note records a write of n bytes at a located (r, part, off).
func (t *Touched) note(m *Memory, r isa.Region, part int, off uint64, n int) {
	switch r {
	case isa.SBUF:
		t.part[0][part] = true
	case isa.PSUM:
		t.part[1][part] = true
	case isa.HBM:
		a := m.Map.HBMBase + off
		for p := a / PageSize; p <= (a+uint64(max(n, 1))-1)/PageSize; p++ {
			t.pages[p] = true
		}
	}
}

// FirstDifferenceIn is FirstDifference over the semaphores, the events and
// the units ta or tb recorded: the lowest differing semaphore, else the
// lowest differing byte of those partitions and pages, else the lowest
// differing event.
func FirstDifferenceIn(a, b *Memory, ta, tb *Touched) (Difference, bool) {
	for i := range a.Sems {
		if a.Sems[i] != b.Sems[i] {
			return Difference{Kind: SemaphoreDiff, Index: i, A: int64(a.Sems[i]), B: int64(b.Sems[i])}, true
		}
	}
	for k, r := range []isa.Region{isa.SBUF, isa.PSUM} {
		var parts []int
		for p := range ta.part[k] {
			parts = append(parts, p)
		}
		for p := range tb.part[k] {
			if !ta.part[k][p] {
				parts = append(parts, p)
			}
		}
		slices.Sort(parts)
		base, stride, active := uint64(0), a.Map.SBUFStride, a.Map.SBUFActive
		if r == isa.PSUM {
			base, stride, active = a.Map.PSUMBase, a.Map.PSUMStride, a.Map.PSUMActive
		}
		x, y := make([]byte, active), make([]byte, active)
		for _, p := range parts {
			addr := base + uint64(p)*stride
			a.Read(addr, x)
			b.Read(addr, y)
			if i, u, v, ok := firstByte(x, y); ok {
				return Difference{Kind: ByteDiff, Addr: addr + uint64(i), Region: r, Where: fmt.Sprintf("%s partition %d", r, p), A: int64(u), B: int64(v)}, true
			}
		}
	}
	var pages []uint64
	for p := range ta.pages {
		pages = append(pages, p)
	}
	for p := range tb.pages {
		if !ta.pages[p] {
			pages = append(pages, p)
		}
	}
	slices.Sort(pages)
	x, y := make([]byte, PageSize), make([]byte, PageSize)
	for _, p := range pages {
		addr := p * PageSize // a page number is its Neuron address over the page size
		if a.Check(addr, PageSize) != nil {
			continue
		}
		a.Read(addr, x)
		b.Read(addr, y)
		if i, u, v, ok := firstByte(x, y); ok {
			return Difference{Kind: ByteDiff, Addr: addr + uint64(i), Region: isa.HBM, Where: "hbm", A: int64(u), B: int64(v)}, true
		}
	}
	for i := range a.Events {
		if a.Events[i] != b.Events[i] {
			return Difference{Kind: EventDiff, Index: i, A: b2i(a.Events[i]), B: b2i(b.Events[i])}, true
		}
	}
	return Difference{}, false
}
