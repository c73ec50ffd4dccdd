package isa

import (
	"fmt"
	mathbits "math/bits"
)

// The Neuron address space of one NeuronCore as ADDR8/ADDR4 immediates carry
// it (field-tables §11.2, §4.3, §7): SBUF partitions at the bottom, PSUM above
// (v2–v4), device HBM from 4 GiB. ndma's sugar `sbuf:P:OFF`, `psum:P:OFF` and
// `hbm:OFF` names these numbers.

// Region is a window of the Neuron address space.
type Region uint8

// Regions.
const (
	Unmapped Region = iota
	SBUF
	PSUM
	HBM
)

func (r Region) String() string {
	switch r {
	case SBUF:
		return "sbuf"
	case PSUM:
		return "psum"
	case HBM:
		return "hbm"
	}
	return "unmapped"
}

// AddressMap is the per-generation geometry of the on-chip windows.
type AddressMap struct {
	SBUFSize, SBUFStride, SBUFActive uint64
	PSUMBase, PSUMSize, PSUMStride   uint64
	PSUMActive                       uint64
	HBMBase, HBMEnd                  uint64
	Partitions                       int
	sbufShift, psumShift             uint // log2 of the strides (both powers of two)
}

// Map returns the address map of generation g; GenAny uses the v2–v4
// geometry with CAYMAN's active SBUF size.
func Map(g Gen) AddressMap {
	m := AddressMap{SBUFSize: 0x2000000, SBUFStride: 256 << 10, PSUMBase: 0x2000000, PSUMSize: 0x400000,
		PSUMStride: 32 << 10, PSUMActive: 16 << 10, HBMBase: 0x1_0000_0000, HBMEnd: 0x20_0000_0000, Partitions: 128}
	switch g {
	case Sunda:
		m.SBUFActive = 192 << 10
	case Mariana, MarianaPlus:
		m.SBUFActive = 256 << 10
	case Maverick:
		m.SBUFSize, m.SBUFStride, m.SBUFActive = 0x8000000, 1<<20, 512<<10
		m.PSUMSize, m.PSUMStride, m.PSUMActive = 0, 0, 0
	default:
		m.SBUFActive = 224 << 10
	}
	m.sbufShift = uint(mathbits.TrailingZeros64(m.SBUFStride))
	m.psumShift = uint(mathbits.TrailingZeros64(m.PSUMStride))
	return m
}

// Split names the region of address a: partition and offset for SBUF/PSUM,
// the offset from the HBM base for HBM.
func (m AddressMap) Split(a uint64) (r Region, part int, off uint64) {
	switch { // strides are powers of two: shifts, not divisions (this is every access's path)
	case a < m.SBUFSize:
		return SBUF, int(a >> m.sbufShift), a & (m.SBUFStride - 1)
	case m.PSUMSize > 0 && a >= m.PSUMBase && a < m.PSUMBase+m.PSUMSize:
		return PSUM, int((a - m.PSUMBase) >> m.psumShift), (a - m.PSUMBase) & (m.PSUMStride - 1)
	case a >= m.HBMBase && a < m.HBMEnd:
		return HBM, 0, a - m.HBMBase
	}
	return Unmapped, 0, a
}

// Join is the inverse of Split; it refuses a partition or offset outside the window.
func (m AddressMap) Join(r Region, part int, off uint64) (uint64, error) {
	switch r {
	case SBUF:
		if part < 0 || part >= m.Partitions {
			return 0, fmt.Errorf("sbuf partition %d out of range (0..%d)", part, m.Partitions-1)
		}
		if off >= m.SBUFStride {
			return 0, fmt.Errorf("sbuf offset %#x beyond the partition stride %#x", off, m.SBUFStride)
		}
		return uint64(part)*m.SBUFStride + off, nil
	case PSUM:
		if m.PSUMSize == 0 {
			return 0, fmt.Errorf("this generation has no PSUM")
		}
		if part < 0 || part >= m.Partitions {
			return 0, fmt.Errorf("psum partition %d out of range (0..%d)", part, m.Partitions-1)
		}
		if off >= m.PSUMStride {
			return 0, fmt.Errorf("psum offset %#x beyond the partition stride %#x", off, m.PSUMStride)
		}
		return m.PSUMBase + uint64(part)*m.PSUMStride + off, nil
	case HBM:
		if off >= m.HBMEnd-m.HBMBase {
			return 0, fmt.Errorf("hbm offset %#x beyond the %d GiB window", off, (m.HBMEnd-m.HBMBase)>>30)
		}
		return m.HBMBase + off, nil
	}
	return 0, fmt.Errorf("unmapped region")
}

// SoC is the SoC address of Neuron address a for core 0 (field-tables §11.2):
// SBUF a → 0x20_0000_0000 + a, PSUM a → 0x28_0200_0000 + (a − 0x2000000),
// HBM a → a. Core c's on-chip windows are core 0's + c × 0x10_0000_0000.
func (m AddressMap) SoC(a uint64, core int) (uint64, error) {
	r, _, _ := m.Split(a)
	switch r {
	case SBUF:
		return 0x20_0000_0000 + a + uint64(core)*0x10_0000_0000, nil
	case PSUM:
		return 0x28_0200_0000 + (a - m.PSUMBase) + uint64(core)*0x10_0000_0000, nil
	case HBM:
		return a, nil
	}
	return 0, fmt.Errorf("address %#x is not in SBUF, PSUM or HBM", a)
}

// FromSoC is the inverse of SoC: the Neuron address and core of a SoC
// address in a core's SBUF or PSUM window, or in HBM (shared: core 0).
func (m AddressMap) FromSoC(s uint64) (a uint64, core int, err error) {
	if s >= m.HBMBase && s < m.HBMEnd {
		return s, 0, nil
	}
	if s >= 0x20_0000_0000 {
		c := (s - 0x20_0000_0000) / 0x10_0000_0000
		o := s - c*0x10_0000_0000 // the core-0 address
		switch {
		case o < 0x20_0000_0000+m.SBUFSize:
			return o - 0x20_0000_0000, int(c), nil
		case m.PSUMSize > 0 && o >= 0x28_0200_0000 && o < 0x28_0200_0000+m.PSUMSize:
			return m.PSUMBase + (o - 0x28_0200_0000), int(c), nil
		}
	}
	return 0, 0, fmt.Errorf("SoC address %#x is in no core's SBUF or PSUM window and not in HBM", s)
}

// The EVT_SEM block of core 0's SoC map: 256 events and 256 semaphores,
// 4 bytes per index in each window (field-tables §7, §11.2).
const (
	EvtSemBase      = 0x28_0270_0000      // events: bit 0 sets or clears
	EvtSemReadBase  = EvtSemBase + 0x1000 // semaphore READ (read-only)
	EvtSemSetBase   = EvtSemBase + 0x1400 // semaphore SET
	EvtSemIncBase   = EvtSemBase + 0x1800 // semaphore INC: atomic += value
	EvtSemDecBase   = EvtSemBase + 0x1C00 // semaphore DEC: atomic -= value
	EvtSemEnd       = EvtSemBase + 0x2000 // one past the DEC window
	EvtSemIndexSize = 4                   // bytes per event or semaphore in a window
)

// EvtSemInc is the SoC address of semaphore idx's INC window on core 0
// (field-tables §7, §11.2: EVT_SEM + 0x1800 + 4·idx).
func EvtSemInc(idx int) uint64 { return EvtSemIncBase + EvtSemIndexSize*uint64(idx) }

// BoundLimit is the inclusive limit a BOUND_CHECK_REG sets for a byte at
// Neuron address a, from lo = r[bc_reg] and hi = r[bc_reg+1] (0 for bc_reg
// 63): lo below 4 GiB (SBUF, PSUM); at and above, in the HBM window that no
// 32-bit limit reaches, the wide-offset pair hi:lo. 003 §1.5 names the pair
// ("bc_reg+1 holds the high 32 bits in wide-offset mode") but not when the
// mode applies; ndma applies it where the address needs it (INFERRED,
// RATIONALE.md "Choices where the sources are silent").
func BoundLimit(lo, hi uint32, a uint64) uint64 {
	if wideBound(a) {
		return uint64(hi)<<32 | uint64(lo)
	}
	return uint64(lo)
}

// wideBound reports whether a bound on a byte at a is the wide-offset pair.
func wideBound(a uint64) bool { return a >= 1<<32 }

// BoundRegName names the register(s) BoundLimit reads for a byte at a:
// "r10", or the pair high first, "r11:r10".
func BoundRegName(reg int, a uint64) string {
	if wideBound(a) {
		return fmt.Sprintf("r%d:r%d", reg+1, reg)
	}
	return fmt.Sprintf("r%d", reg)
}

// BoundHigh is r[reg+1], the wide-offset high word of bound register reg
// (0 past the last register).
func BoundHigh(regs *[64]uint32, reg int) uint32 {
	if reg+1 < len(regs) {
		return regs[reg+1]
	}
	return 0
}
