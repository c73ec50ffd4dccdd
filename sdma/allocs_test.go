package sdma

import (
	"fmt"
	"testing"

	"ndma/dge"
	"ndma/isa"
)

// Issue 17: lowering allocates per word, never per descriptor or micro-op.
// Two HBM → HBM copies of rows 512 bytes apart (each row its own run, so
// one M2S and one S2M descriptor a row, field-tables §11.7's maximal runs)
// differ only in their row count, 64 and 4096; the count of allocations of
// the whole lowering (dge.Lower + Expand) must not differ between them,
// though the second has 64 × the descriptors.
func TestLowerAllocsPerWord(t *testing.T) {
	allocs := func(rows int) (float64, int) {
		in := word(t, isa.Cayman, fmt.Sprintf(`dmamemcpy semaphore=1, sem_increment=1, src_start_addr=hbm:0x0, src_step_elem=[1, 512],
  src_num_elem=[256, %d], src_elem_size=1, dst_start_addr=hbm:0x1000000, dst_step_elem=[1, 512], dst_num_elem=[256, %d],
  dst_elem_size=1, in_dtype=u8, out_dtype=u8`, rows, rows))
		var n int
		a := testing.AllocsPerRun(20, func() {
			_, lw, err := Lower(&in, isa.Cayman, dge.Options{}, Options{RingSize: 1 << 16})
			if err != nil {
				t.Fatal(err)
			}
			n = 0
			for _, q := range lw.Queues {
				n += len(q.M2S) + len(q.S2M)
			}
		})
		return a, n
	}
	small, ns := allocs(64)
	large, nl := allocs(4096)
	if ns != 2*64+1 || nl != 2*4096+1 { // a descriptor a row on each leg, and the completion
		t.Fatalf("descriptors %d and %d, want %d and %d", ns, nl, 2*64+1, 2*4096+1)
	}
	if large != small {
		t.Errorf("allocations: %v for %d descriptors, %v for %d: lowering allocates per descriptor", small, ns, large, nl)
	}
}
