package device_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"

	"ndma/asm"
	"ndma/device"
	"ndma/dge"
	"ndma/isa"
	"ndma/neff"
)

// A real NEFF on a device: matmul_small.neff (read in place from
// ../shared/neff-samples, or $NDMA_NEFF_SAMPLES) runs on the two cores of a
// Trn2 logical core, which share one HBM. neff.md §5.3: the first Pool DMA
// copies x (a [128, 256] fp16 input) into SBUF, row p to partition p at
// offset 0x37c00, on each core.
func ExampleLoad() {
	dir := os.Getenv("NDMA_NEFF_SAMPLES")
	if dir == "" {
		dir = filepath.Join("..", "..", "shared", "neff-samples")
	}
	raw, err := os.ReadFile(filepath.Join(dir, "matmul_small.neff"))
	if err != nil {
		fmt.Println(err)
		return
	}
	f, err := neff.Parse(raw, neff.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	sgs, err := f.Subgraphs()
	if err != nil {
		fmt.Println(err)
		return
	}
	x := make([]byte, 128*256*2)
	for i := range x {
		x[i] = byte(i % 251)
	}
	im, err := device.Load(isa.Cayman, f, sgs, map[string]device.Input{"x": {Data: x, Descr: "<f2", Shape: []int{128, 256}}})
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := im.Run(device.NEFFOptions{Exec: device.Sim})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d subgraphs on %d cores\n", len(res.Subgraphs), im.Device.Cores())
	m := isa.Map(isa.Cayman)
	for core := 0; core < im.Device.Cores(); core++ {
		landed := 0
		for p := 0; p < 128; p++ {
			a, _ := m.Join(isa.SBUF, p, 0x37c00)
			row := make([]byte, 512)
			im.Device.Core(core).Read(a, row)
			if bytes.Equal(row, x[p*512:(p+1)*512]) {
				landed++
			}
		}
		fmt.Printf("core %d: x row p in SBUF partition p at +0x37c00 for %d of 128 partitions\n", core, landed)
	}
	out, _ := im.Var("output0")
	descr, shape := im.Typed("output0", out)
	fmt.Println("output0:", descr, shape)
	// Output:
	// 2 subgraphs on 2 cores
	// core 0: x row p in SBUF partition p at +0x37c00 for 128 of 128 partitions
	// core 1: x row p in SBUF partition p at +0x37c00 for 128 of 128 partitions
	// output0: <f2 [128 128]
}

// Two engine streams, each a PSEUDO_DMA_DIRECT2D whose addresses are NEFF
// variables (var(0) an SBUF tile, var(1) an HBM buffer, as `ndma run --var
// 0=sbuf:0:0x0 --var 1=hbm:0x0` places them): Pool copies 16 bytes into
// SBUF and raises $S[1]; ACT waits for it and copies them back to HBM +0x100.
// Resolved once, run under the scheduler on the engines and on the
// reference, the two held to one answer.
func ExampleRun() {
	src := `.gen cayman
.engine pool
pseudo_dma_direct2d semaphore=1, sem_increment=1,
    src_start_addr=var(1)+0x0, src_step_elem=[4, 0], src_num_elem=[4, 1], src_elem_size=4,
    dst_start_addr=var(0)+0x0, dst_step_elem=[4, 0], dst_num_elem=[4, 1], dst_elem_size=4, in_dtype=u32, out_dtype=u32
.engine act
pseudo_dma_direct2d wait_mode=WAIT_FOR_SEM_GE_IMM, wait_idx=1, semaphore_value=1, semaphore=2, sem_increment=1,
    src_start_addr=var(0)+0x0, src_step_elem=[4, 0], src_num_elem=[4, 1], src_elem_size=4,
    dst_start_addr=var(1)+0x100, dst_step_elem=[4, 0], dst_num_elem=[4, 1], dst_elem_size=4, in_dtype=u32, out_dtype=u32
`
	obj, err := asm.Assemble("two.s", []byte(src), asm.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	hbm := uint64(0x1_0000_0000)
	vars := &dge.Vars{Base: map[uint16]uint64{0: 0, 1: hbm}} // var 0 at SBUF partition 0 offset 0, var 1 at the HBM's start
	p := device.FromObject(obj, vars)
	res, err := device.Run(context.Background(), p, device.Options{Exec: device.Both, Load: func(d *device.Device) error {
		return d.Core(0).Write(hbm, []byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16})
	}})
	if err != nil {
		fmt.Println(err)
		return
	}
	back := make([]byte, 16)
	res.Sim.Core(0).Read(hbm+0x100, back)
	fmt.Println("hbm+0x100:", back)
	fmt.Printf("%d words, simulated %.3f µs, $S[1] = %d, $S[2] = %d\n", res.Sched.Words, float64(res.Sched.TimeNS)/1000, res.Sim.Core(0).Sems[1], res.Sim.Core(0).Sems[2])
	// Output:
	// hbm+0x100: [1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16]
	// 2 words, simulated 3.808 µs, $S[1] = 1, $S[2] = 1
}
