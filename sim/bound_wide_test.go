package sim

import (
	"bytes"
	"fmt"
	"testing"

	"ndma/isa"
)

// An enabled bound check on an HBM leg once could never pass: its limit was
// the 32-bit r[bc_reg], the HBM window starts at 4 GiB. In HBM the limit is
// the wide-offset pair r[bc_reg+1]:r[bc_reg] (003 §1.5; isa.BoundLimit).
// The copy writes 64 bytes at hbm:0x1000, Neuron address 0x1_0000_1000, so
// its last byte is 0x1_0000_103f.
func TestBoundWideOffsetHBM(t *testing.T) {
	const word = `dmamemcpy semaphore=3, sem_increment=1, in_dtype=u8, out_dtype=u8,
  src_start_addr=hbm:0x0, src_step_elem=[1, 64], src_num_elem=[64, 1], src_elem_size=1,
  dst_start_addr=hbm:0x1000, dst_step_elem=[1, 64], dst_num_elem=[64, 1], dst_elem_size=1,
  dst_bound_reg.bc_reg=10, dst_bound_reg.bc_enabled=1%s`
	src := make([]byte, 64)
	for i := range src {
		src[i] = byte(i + 1)
	}
	for _, tc := range []struct {
		name     string
		lo, hi   uint32
		quiet    bool
		fault    bool
		landed   int // bytes of src at the destination
		refFault string
	}{
		{"limit is the last byte", 0x103f, 1, false, false, 64, ""},
		{"one byte short faults", 0x103e, 1, false, true, 0, "last byte 0x10000103f > limit r11:r10 = 0x10000103e"},
		{"one byte short, quiet: the element skipped", 0x103e, 1, true, false, 63, ""},
		{"high word 0: a 32-bit limit, below HBM", 0xffffffff, 0, false, true, 0, "> limit r11:r10 = 0xffffffff"},
		{"far above", 0, 2, false, false, 64, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newPair(t, isa.Cayman)
			p.put(hbm, src)
			p.reg(10, tc.lo)
			p.reg(11, tc.hi)
			extra := ""
			if tc.quiet {
				extra = ", dst_bound_reg.bc_disable_oob_error_notif=1"
			}
			p.exec(fmt.Sprintf(word, extra))
			if tc.fault {
				p.faults(tc.refFault)
				return
			}
			p.ok()
			got := p.get(hbm+0x1000, 64)
			if !bytes.Equal(got[:tc.landed], src[:tc.landed]) || tc.landed < 64 && got[tc.landed] != 0 {
				t.Fatalf("destination % x, want the first %d source bytes", got, tc.landed)
			}
		})
	}
}
