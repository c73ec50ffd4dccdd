package device_test

import (
	"bytes"
	"fmt"

	"ndma/device"
	"ndma/isa"
	"ndma/mem"
)

// AttachArray gives an array's bytes to the memory: its whole 64 KiB pages
// are read in place (in `ndma run`, a .npy file mapped copy-on-write) and
// the rest is copied. A write to memory moves the pages it meets to memory
// of their own first, so the attached bytes never change.
func ExampleAttachArray() {
	d := device.New(isa.Cayman, 1)
	hbm := uint64(0x1_0000_0000) // the HBM window's start, on a page boundary (field-tables §11.2)
	data := bytes.Repeat([]byte{7}, 2*mem.PageSize+10)
	if err := device.AttachArray(d.Core(0), hbm, []int{len(data)}, data); err != nil {
		fmt.Println(err)
	}
	d.Core(0).Write(hbm+5, []byte{9})
	b, _ := device.ReadArray(d.Core(0), hbm, []int{8}, 1)
	fmt.Println("memory:", b, "the attached bytes:", data[:8])
	// Output:
	// memory: [7 7 7 7 7 9 7 7] the attached bytes: [7 7 7 7 7 7 7 7]
}
