// Package device is ndma's runtime library: a device of NeuronCores that
// share one HBM, each core with its own SBUF, PSUM, semaphores and events
// (field-tables §7, §11.2, §11.6); loading arrays into a core's memory and
// reading them back (LoadArray, ReadArray); comparing two devices
// (Compare). Every input becomes one resolved Program (FromObject for
// assembled words, FromNEFF for a NEFF: variables placed once, every word
// resolved once), which one loop runs with either executor or both (Run,
// with observers and a context; docs/program.md); a NEFF program loads on a
// device as an Image and is checked by the code that runs it (Check).
package device

import (
	"fmt"

	"ndma/isa"
	"ndma/mem"
)

// Device is the memory of one device: its cores and the HBM they share.
// It is not safe for concurrent use (the cores share one page table).
type Device struct {
	Gen   isa.Gen
	hbm   *mem.HBM
	cores []*mem.Memory
}

// New returns an empty (all-zero) device of gen with the given number of
// cores; fewer than one core is a programming error and panics.
func New(gen isa.Gen, cores int) *Device {
	if cores < 1 {
		panic(fmt.Sprintf("device.New: %d cores", cores))
	}
	d := &Device{Gen: gen, hbm: mem.NewHBM(), cores: make([]*mem.Memory, cores)}
	for i := range d.cores {
		d.cores[i] = mem.NewCore(gen, d.hbm)
	}
	return d
}

// Core is core i's memory (its HBM is the device's), nil when there is no
// core i.
func (d *Device) Core(i int) *mem.Memory {
	if i < 0 || i >= len(d.cores) {
		return nil
	}
	return d.cores[i]
}

// Cores is the number of cores.
func (d *Device) Cores() int { return len(d.cores) }

// HBM is the HBM every core reads and writes.
func (d *Device) HBM() *mem.HBM { return d.hbm }
