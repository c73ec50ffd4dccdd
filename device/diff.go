package device

import (
	"fmt"

	"ndma/isa"
	"ndma/mem"
)

// Difference is the first place two devices disagree: mem's Difference
// (the semaphore, event or byte and both values) and the core it is on.
type Difference struct {
	mem.Difference
	Core   int       // the core whose memory differs; -1 for a byte of the shared HBM
	Cores  int       // the devices' cores: String names the core only when there are several
	Labels [2]string // the two devices' names in String; "ref" and "sim" when empty
}

// Format names the difference with the two devices called a and b, as the
// CLI always has ("address %#x (%s): ref %#02x, sim %#02x", "$S[%d]: ref
// %d, sim %d"), after "core N: " on a device of several cores.
func (d Difference) Format(a, b string) string {
	s := d.Difference.Format(a, b)
	if d.Cores > 1 && d.Core >= 0 {
		s = fmt.Sprintf("core %d: %s", d.Core, s)
	}
	return s
}

// String is Format with the Labels.
func (d Difference) String() string {
	a, b := d.Labels[0], d.Labels[1]
	if a == "" && b == "" {
		a, b = "ref", "sim"
	}
	return d.Format(a, b)
}

// Compare finds the first difference of two devices of one generation and
// core count (else it panics): core by core, each core's semaphores, then
// its lowest differing byte, then its events (mem.FirstDifference); the
// shared HBM once, with core 0's bytes, since its addresses are above every
// on-chip one (§11.2). On one core this is exactly mem.FirstDifference.
func Compare(a, b *Device) (Difference, bool) {
	if a.Gen != b.Gen || a.Cores() != b.Cores() {
		panic(fmt.Sprintf("device.Compare: a %d-core %s device and a %d-core %s device", a.Cores(), a.Gen, b.Cores(), b.Gen))
	}
	for i := range a.cores {
		// the comparison reads both devices; it is not their program's traffic
		sa, sb := a.cores[i].Stats, b.cores[i].Stats
		d, ok := mem.FirstDifference(a.cores[i], b.cores[i], i == 0)
		a.cores[i].Stats, b.cores[i].Stats = sa, sb
		if ok {
			core := i
			if d.Kind == mem.ByteDiff && d.Region == isa.HBM {
				core = -1
			}
			return Difference{Difference: d, Core: core, Cores: a.Cores()}, true
		}
	}
	return Difference{}, false
}
