package device

import (
	"fmt"
	"math"

	"ndma/isa"
	"ndma/neff"
)

// Bounds of one walk, so that a size or step list cannot make ndma walk,
// allocate or overflow without end: at most maxRank dims, each step within
// ±2^36 bytes and an offset below 2^40 (sizes ≤ 2^20 past dim 0 — MaxRuns —
// keep every partial sum far inside int64).
const (
	maxRank = 8
	maxStep = 1 << 36
	maxOff  = 1 << 40
)

// run is a contiguous span of one side: a Neuron address and a byte count.
type run struct {
	addr uint64
	n    int64
}

// side is one walk of a descriptor.
type side struct {
	name         string // "from", "to", "from_arr[2].from"
	v            neff.Variable
	base         uint64 // the variable's placed address (the core's SBUF for the state-buffer)
	off          int64  // from_off / to_off
	sizes, steps []int64
	unit         int64 // element bytes: every run holds whole elements
	amap         isa.AddressMap
}

// walk appends the side's runs: sizes[0] contiguous bytes (steps[0] 0 or 1;
// any other step makes each byte its own run, for 1-byte units only),
// higher dims repeat counts with byte steps, all from the offset; every run
// inside the variable — for the state-buffer inside one partition of the
// NEFF's SB space, then mapped onto the generation's map (neff.md §4.7).
// Touching runs join.
func (s *side) walk(out []run) ([]run, error) {
	if len(s.sizes) == 0 {
		return nil, fmt.Errorf("%s_sizes is empty", s.name)
	}
	if len(s.sizes) > maxRank {
		return nil, fmt.Errorf("%s_sizes has %d dims, more than %d", s.name, len(s.sizes), maxRank)
	}
	if len(s.steps) < len(s.sizes) && len(s.sizes) > 1 {
		return nil, fmt.Errorf("%s_steps has %d entries for %d sizes", s.name, len(s.steps), len(s.sizes))
	}
	if s.off < 0 || s.off >= maxOff {
		return nil, fmt.Errorf("%s_off = %d: out of range (0..2^40)", s.name, s.off)
	}
	for d, st := range s.steps {
		if st < -maxStep || st > maxStep {
			return nil, fmt.Errorf("%s_steps[%d] = %d: out of range (±2^36)", s.name, d, st)
		}
	}
	count := int64(1)
	for d, n := range s.sizes {
		if n < 0 || n > math.MaxInt32 {
			return nil, fmt.Errorf("%s_sizes[%d] = %d: out of range (0..2^31-1)", s.name, d, n)
		}
		if d > 0 && n > 0 && count > 0 {
			if count *= n; count > MaxRuns {
				return nil, fmt.Errorf("%s walks more than %d runs", s.name, MaxRuns)
			}
		} else if n == 0 {
			count = 0
		}
	}
	runLen, inner, innerStep := s.sizes[0], int64(1), int64(1)
	if len(s.steps) > 0 && s.steps[0] != 0 && s.steps[0] != 1 {
		if s.unit != 1 {
			return nil, fmt.Errorf("%s_steps[0] = %d: dim 0 must be contiguous for a %d-byte type", s.name, s.steps[0], s.unit)
		}
		runLen, inner, innerStep = 1, s.sizes[0], s.steps[0]
		if count *= inner; count > MaxRuns {
			return nil, fmt.Errorf("%s walks more than %d runs", s.name, MaxRuns)
		}
	}
	if runLen%s.unit != 0 {
		return nil, fmt.Errorf("%s_sizes[0] = %d bytes is not a whole number of %d-byte elements", s.name, runLen, s.unit)
	}
	if runLen == 0 || count == 0 {
		return out, nil
	}
	sb := s.v.Type == "state-buffer"
	sbLimit := min(uint64(neff.SBPartitionStride), s.amap.SBUFActive) // the bytes of a partition both spaces hold
	idx := make([]int64, len(s.sizes))
	for {
		off := s.off
		for d := 1; d < len(s.sizes); d++ {
			off += idx[d] * s.steps[d]
		}
		for i := int64(0); i < inner; i++ {
			o := off + i*innerStep
			var a uint64
			if sb {
				p, po := o/neff.SBPartitionStride, o%neff.SBPartitionStride
				if o < 0 || p >= int64(s.amap.Partitions) || uint64(po+runLen) > sbLimit {
					return nil, fmt.Errorf("%s: bytes %d..%d of %q (NEFF SB partition %d, offset %d) are not inside one SBUF partition's %d bytes",
						s.name, o, o+runLen, s.v.Name, floorDiv(o, neff.SBPartitionStride), floorMod(o, neff.SBPartitionStride), sbLimit)
				}
				at, err := s.amap.Join(isa.SBUF, int(p), uint64(po))
				if err != nil {
					return nil, fmt.Errorf("%s: %q partition %d offset %d: %w", s.name, s.v.Name, p, po, err)
				}
				a = s.base + at
			} else {
				if o < 0 || o+runLen > s.v.Size {
					return nil, fmt.Errorf("%s: bytes %d..%d are outside %q (%d bytes)", s.name, o, o+runLen, s.v.Name, s.v.Size)
				}
				a = s.base + uint64(o)
			}
			if n := len(out); n > 0 && out[n-1].addr+uint64(out[n-1].n) == a && out[n-1].n < 1<<40 {
				out[n-1].n += runLen // touching runs are one run
			} else {
				out = append(out, run{a, runLen})
			}
		}
		d := 1
		for ; d < len(s.sizes); d++ {
			if idx[d]++; idx[d] < s.sizes[d] {
				break
			}
			idx[d] = 0
		}
		if d == len(s.sizes) {
			return out, nil
		}
	}
}

// tileBytes is the bytes the first k dims of a walk cover: sizes[0] bytes
// times the repeat counts of dims 1..k-1.
func tileBytes(sizes []int64, k int) int64 {
	b := int64(1)
	for d := 0; d < k && d < len(sizes); d++ {
		b *= sizes[d]
	}
	return b
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && a < 0 {
		q--
	}
	return q
}

func floorMod(a, b int64) int64 { return a - floorDiv(a, b)*b }
