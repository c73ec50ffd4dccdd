package sim

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"ndma/isa"
)

// indexFunc reads a tensor whole, a column per partition (issue 17); each
// value must be the u32 at the address field-tables §11.5 gives index j —
// "partition base+j mod C, offset base+4·(j div C)", read here on its own —
// for channel counts that do and do not divide the lanes, and the SBUF
// bytes read must be 4 per index, as reading them one by one counts them.
func TestIndexFuncReadsTheTensor(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 17))
	for _, c := range []int{1, 3, 16, 128} {
		for _, n := range []int{1, 5, 128, 300} {
			x := New(isa.Cayman)
			col := make([]byte, 0x400)
			for p := range 128 {
				for i := range col {
					col[i] = byte(r.Uint32())
				}
				if err := x.Mem.Write(uint64(p)*0x40000+0x1000, col); err != nil {
					t.Fatal(err)
				}
			}
			in := wordTB(t, isa.Cayman, fmt.Sprintf(`dma_indirect idx_num_active_channels=%d, indirect_mode=SRC, src_start_addr=hbm:0x0,
  src_step_elem=4, src_num_elem=16, src_elem_size=4, src_idx_start_addr=sbuf:0:0x1010,
  dst_start_addr=hbm:0x10000, dst_step_elem=4, dst_num_elem=%d, dst_elem_size=4, in_dtype=u32, out_dtype=u32`, c, n))
			f, err := x.indexFunc(in)
			if err != nil {
				t.Fatal(err)
			}
			before := x.Mem.Stats.Read[isa.SBUF]
			got := make([]uint32, n)
			for j := range n {
				if got[j], err = f(0, j); err != nil {
					t.Fatal(err)
				}
			}
			if read := x.Mem.Stats.Read[isa.SBUF] - before; read != uint64(4*n) {
				t.Errorf("C %d, %d indices: %d SBUF bytes read, want %d", c, n, read, 4*n)
			}
			b := make([]byte, 4)
			for j := range n {
				a := uint64(j%c)*0x40000 + 0x1010 + 4*uint64(j/c)
				if err := x.Mem.Read(a, b); err != nil {
					t.Fatal(err)
				}
				if want := binary.LittleEndian.Uint32(b); got[j] != want {
					t.Fatalf("C %d: index %d = %#x, want %#x (the u32 at %#x)", c, j, got[j], want, a)
				}
			}
		}
	}
}

// A tensor whose column runs past the partition's active bytes is read index
// by index, so the fault names the first index out, as ref's does
// (TestIndexTensorFaultLane: 2 channels from CAYMAN offset 0x37ff8 of 224 KiB
// = 0x38000 active put index 4 at partition 0 offset 0x38000).
func TestIndexFuncFaultNamesTheIndex(t *testing.T) {
	x := New(isa.Cayman)
	in := wordTB(t, isa.Cayman, `dma_indirect idx_num_active_channels=2, indirect_mode=SRC, idx_bound_is_err=1,
  src_start_addr=hbm:0x0, src_step_elem=4, src_num_elem=16, src_elem_size=4, src_idx_start_addr=sbuf:0:0x37ff8,
  dst_start_addr=hbm:0x10000, dst_step_elem=4, dst_num_elem=8, dst_elem_size=4, in_dtype=u32, out_dtype=u32`)
	err := x.Exec(in)
	if err == nil || !strings.Contains(err.Error(), "index 4: ") || !strings.Contains(err.Error(), "sbuf partition 0 offset 0x38000") {
		t.Fatalf("index tensor past the partition: %v, want index 4 at sbuf partition 0 offset 0x38000", err)
	}
}
