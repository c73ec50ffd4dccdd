package device_test

import (
	"fmt"

	"ndma/device"
	"ndma/isa"
)

// Two cores share one HBM: an array core 0 loads there reads back on core
// 1, while SBUF stays each core's own; Compare names the first difference
// of two devices and, on a device of several cores, its core.
func Example() {
	d := device.New(isa.Cayman, 2)
	hbm := uint64(0x1_0000_0000) // the HBM window's start (field-tables §11.2)
	if err := device.LoadArray(d.Core(0), hbm, []int{2, 3}, []byte{1, 2, 3, 4, 5, 6}); err != nil {
		fmt.Println(err)
	}
	back, _ := device.ReadArray(d.Core(1), hbm, []int{2, 3}, 1)
	fmt.Println("core 1 reads core 0's HBM array:", back)

	// on SBUF the first axis runs over partitions: rows at 0x40 and 0x40040
	if err := device.LoadArray(d.Core(0), 0x40, []int{2, 3}, []byte{1, 2, 3, 4, 5, 6}); err != nil {
		fmt.Println(err)
	}
	row1, _ := device.ReadArray(d.Core(0), 1<<18+0x40, []int{3}, 1)
	other, _ := device.ReadArray(d.Core(1), 0x40, []int{2, 3}, 1)
	fmt.Println("core 0's partition 1:", row1, "core 1's SBUF:", other)

	e := device.New(isa.Cayman, 2)
	device.LoadArray(e.Core(0), hbm, []int{2, 3}, []byte{1, 2, 3, 4, 5, 6})
	device.LoadArray(e.Core(0), 0x40, []int{2, 3}, []byte{1, 2, 3, 4, 5, 6})
	e.Core(1).Sems[4] = 1
	if diff, ok := device.Compare(d, e); ok {
		fmt.Println(diff)
	}
	if err := device.LoadArray(d.Core(1), 127<<18, []int{2, 3}, make([]byte, 6)); err != nil {
		fmt.Println("--load x.npy:", err)
	}
	// Output:
	// core 1 reads core 0's HBM array: [1 2 3 4 5 6]
	// core 0's partition 1: [4 5 6] core 1's SBUF: [0 0 0 0 0 0]
	// core 1: $S[4]: ref 0, sim 1
	// --load x.npy: shape [2 3]: 2 rows from sbuf partition 127 reach partition 128: there are 128
}
