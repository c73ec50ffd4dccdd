package sdma

import (
	"errors"
	"regexp"
	"strconv"
	"testing"

	"ndma/dge"
	"ndma/isa"
)

// The Pool $S dump's bounds:(e last<=limit, …) prints what the bound check
// compares (boundsCheck: a run's last byte against r[bc_reg], both Neuron
// addresses), so a word that passes prints a true comparison and one that
// fails a false one. Before, the last byte printed as its SoC address:
// 512 bytes at sbuf:0:0x0 under r9 = 0xfff passed and printed 0x20000001ff<=0xfff.
func TestBoundDumpSameSpaceAsCheck(t *testing.T) {
	bounds := regexp.MustCompile(`bounds:\((\d) 0x([0-9a-f]+)<=0x([0-9a-f]+), (\d) 0x([0-9a-f]+)<=0x([0-9a-f]+)\)`)
	for _, c := range []struct {
		limit uint32
		pass  bool
	}{{0xfff, true}, {0x1ff, true}, {0x1fe, false}} {
		in := word(t, isa.Cayman, `dmamemcpy semaphore=10, sem_increment=1, src_start_addr=hbm:0x0,
  src_step_elem=[4, 512], src_num_elem=[128, 1], src_elem_size=4, dst_start_addr=sbuf:0:0x0,
  dst_step_elem=[4, 512], dst_num_elem=[128, 1], dst_elem_size=4, in_dtype=FP32, out_dtype=FP32,
  dst_bound_reg.bc_enabled=1, dst_bound_reg.bc_reg=9`)
		regs := map[uint8]uint32{9: c.limit}
		p, _, err := Lower(&in, isa.Cayman, dge.Options{Regs: regs}, Options{Regs: regs})
		if c.pass != (err == nil) {
			t.Fatalf("limit %#x: check err %v, want pass %v", c.limit, err, c.pass)
		}
		if err != nil && !errors.Is(err, ErrBounds) {
			t.Fatalf("limit %#x: %v, want a bounds error", c.limit, err)
		}
		if p == nil {
			if p, err = dge.Lower(&in, isa.Cayman, dge.Options{Regs: regs}); err != nil {
				t.Fatal(err)
			}
		}
		m := bounds.FindStringSubmatch(string(p.AppendDump(nil)))
		if m == nil {
			t.Fatalf("no bounds in the dump:\n%s", p.AppendDump(nil))
		}
		last, _ := strconv.ParseUint(m[5], 16, 64)
		limit, _ := strconv.ParseUint(m[6], 16, 64)
		if m[4] != "1" || last != 0x1ff || limit != uint64(c.limit) {
			t.Errorf("limit %#x: dst bound printed %q, want 1 0x1ff<=%#x", c.limit, m[0], c.limit)
		}
		if (last <= limit) != c.pass {
			t.Errorf("limit %#x: the dump prints %#x<=%#x, but the check says pass=%v", c.limit, last, limit, c.pass)
		}
	}
}
