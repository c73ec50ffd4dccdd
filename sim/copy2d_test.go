package sim

import (
	"testing"

	"ndma/isa"
	"ndma/ref"
)

// A DMA_MEMCPY2 whose legs move different byte counts: ref refuses it by
// its byte count; the engines must fault too, and promptly (a src moving
// 0 bytes once cut the dst stream into shares of 0 bytes forever).
func TestCopy2DUnbalancedLegs(t *testing.T) {
	for _, c := range []struct{ src, dst string }{
		{"src_num_elem=[0, 1], src_elem_size=4096", "dst_num_elem=[1, 1], dst_elem_size=4096"},
		{"src_num_elem=[1, 1], src_elem_size=4096", "dst_num_elem=[0, 1], dst_elem_size=4096"},
		{"src_num_elem=[1, 1], src_elem_size=4", "dst_num_elem=[1, 1], dst_elem_size=4096"},
		{"src_num_elem=[8, 1], src_elem_size=4096", "dst_num_elem=[1, 1], dst_elem_size=64"},
	} {
		src := `.gen maverick
dma_memcpy2 start_id=0, engine_count=2, addr_mode.src=IMM64, src_start_addr=hbm:0x8000, src_step_elem=[4096, 65536], ` + c.src + `,
    addr_mode.dst=IMM64, dst_start_addr=hbm:0x48000, dst_step_elem=[4096, 65536], ` + c.dst
		in := word(t, isa.Maverick, src)
		a, b := ref.New(isa.Maverick), New(isa.Maverick)
		ea, eb := a.Exec(in), b.Exec(in)
		if ea == nil || eb == nil {
			t.Errorf("%s: ref %v, sim %v: want both to refuse", c.src, ea, eb)
		}
		if testing.Verbose() {
			t.Logf("ref: %v\nsim: %v", ea, eb)
		}
	}
}
