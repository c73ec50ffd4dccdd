package ref_test

import (
	"encoding/binary"
	"fmt"

	"ndma/asm"
	"ndma/isa"
	"ndma/ref"
)

// Run a gather on emulated memory: four u32 rows picked from HBM by an
// index tensor in SBUF partitions 0..3 (index j sits in partition j).
func ExampleMachine_Exec() {
	x := ref.New(isa.Cayman)
	for r := uint32(0); r < 8; r++ { // table row r holds 100+r
		x.Mem.Write(0x1_0000_0000+4*uint64(r), binary.LittleEndian.AppendUint32(nil, 100+r))
	}
	for j, v := range []uint32{7, 0, 5, 5} {
		x.Mem.Write(uint64(j)*x.Mem.Map.SBUFStride, binary.LittleEndian.AppendUint32(nil, v))
	}
	obj, err := asm.Assemble("gather.s", []byte(`.gen cayman
dma_indirect idx_num_active_channels=4, indirect_mode=SRC, idx_bound_is_err=1,
  src_start_addr=hbm:0x0, src_step_elem=4, src_num_elem=8, src_elem_size=4, src_idx_start_addr=sbuf:0:0x0,
  dst_start_addr=hbm:0x100, dst_step_elem=4, dst_num_elem=4, dst_elem_size=4, in_dtype=u32, out_dtype=u32,
  semaphore=3, sem_increment=1`), asm.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	in, _ := isa.Decode(isa.Cayman, obj.Code)
	if err := x.Exec(&in); err != nil {
		fmt.Println(err)
		return
	}
	out := make([]byte, 16)
	x.Mem.Read(0x1_0000_0100, out)
	for i := 0; i < 16; i += 4 {
		fmt.Print(binary.LittleEndian.Uint32(out[i:]), " ")
	}
	fmt.Println("$S[3] =", x.Mem.Sems[3])
	// Output: 107 100 105 105 $S[3] = 1
}
