package sim

import (
	"errors"
	"testing"

	"ndma/internal/control"
	"ndma/isa"
)

// A word whose shape comes from a $S register is valid (field-tables §4.1)
// but runs on neither executor: both refuse it under one rule, the field,
// before anything moves (issue 30 item 5: ref said "not supported by the
// reference", the engines "known only at run time").
func TestShapeRegisterRefusedAlike(t *testing.T) {
	for _, tc := range []struct{ name, field, word string }{
		{"DMAMEMCPY dst", "dst_start_addr", `dmamemcpy semaphore=1, sem_increment=1, in_dtype=u8, out_dtype=u8,
  src_start_addr=hbm:0x0, src_step_elem=[1, 64], src_num_elem=[64, 1], src_elem_size=1,
  dst_start_addr=shape(hbm:0x1000), dst_step_elem=[1, 0], dst_num_elem=[0, 0], dst_elem_size=1`},
		{"DMAMEMCPY src, register address", "src_start_addr", `dmamemcpy semaphore=1, sem_increment=1, in_dtype=u8, out_dtype=u8,
  src_start_addr=shape(reg(r4, r5)), src_step_elem=[2, 0], src_num_elem=[0, 0], src_elem_size=1,
  dst_start_addr=hbm:0x1000, dst_step_elem=[1, 64], dst_num_elem=[64, 1], dst_elem_size=1`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newPair(t, isa.Cayman)
			p.put(hbm, []byte{1, 2, 3, 4})
			p.exec(tc.word) // memory and semaphores compared: nothing moved on either
			for _, err := range []error{p.errA, p.errB} {
				if !errors.Is(err, control.ErrShapeRegister) || !errors.Is(err, isa.ErrUnsupported) {
					t.Fatalf("ref %v, sim %v: want both ErrShapeRegister", p.errA, p.errB)
				}
			}
			if p.errA.Error() != p.errB.Error() {
				t.Errorf("ref says %q, sim %q", p.errA, p.errB)
			}
			if rule, _ := control.ShapeRegRule(word(t, isa.Cayman, tc.word)); rule != tc.field {
				t.Errorf("rule %q, want %q", rule, tc.field)
			}
		})
	}
}
