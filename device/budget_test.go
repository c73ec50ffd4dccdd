package device_test

import (
	"context"
	"errors"
	"testing"

	"ndma/asm"
	"ndma/device"
)

// budgetSrc: Pool copies 64 bytes HBM→HBM (planned: its size is in the
// word), then ACT, after it, scatters 4 INT32 through DMA_INDIRECT (16
// bytes known only as it runs). 80 bytes written in all.
const budgetSrc = `.gen cayman
.engine pool
dmamemcpy semaphore=4, sem_increment=1, in_dtype=u8, out_dtype=u8,
  src_start_addr=hbm:0x0, src_step_elem=[1, 64], src_num_elem=[64, 1], src_elem_size=1,
  dst_start_addr=hbm:0x1000, dst_step_elem=[1, 64], dst_num_elem=[64, 1], dst_elem_size=1
.engine act
dma_indirect wait_mode=WAIT_FOR_SEM_GE_IMM, wait_idx=4, semaphore_value=1,
    semaphore=3, sem_increment=1, idx_num_active_channels=128,
    indirect_mode=DST, non_unique_dst_idx=1,
    src_start_addr=sbuf:0:0x400, src_step_elem=4, src_num_elem=4, src_elem_size=4,
    dst_start_addr=hbm:0x2000, dst_step_elem=4, dst_num_elem=256, dst_elem_size=4,
    dst_idx_start_addr=sbuf:0:0x100, in_dtype=INT32, out_dtype=INT32
`

func TestRunBudget(t *testing.T) {
	obj, err := asm.Assemble("budget.s", []byte(budgetSrc), asm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p := device.FromObject(obj, nil)
	if got := p.PlannedBytes(nil); got != 64 { // the memcpy's 64 destination bytes; the scatter's show as it runs
		t.Fatalf("PlannedBytes = %d, want 64", got)
	}
	for _, tc := range []struct {
		budget  int64
		err     bool
		touched bool // the memcpy's bytes landed
	}{
		{63, true, false}, // refused before a byte moves
		{64, true, true},  // the memcpy runs; the scatter's 16 bytes pass the budget
		{79, true, true},
		{80, false, true},
		{-1, false, true},
	} {
		for _, exec := range []device.Exec{device.Ref, device.Sim} {
			res, err := device.Run(context.Background(), p, device.Options{Exec: exec, MaxRunBytes: tc.budget, Load: func(d *device.Device) error {
				src := make([]byte, 64)
				for i := range src {
					src[i] = byte(i + 1)
				}
				return d.Core(0).Write(0x1_0000_0000, src)
			}})
			if tc.err != errors.Is(err, device.ErrBudget) {
				t.Errorf("budget %d on %v: err %v, want ErrBudget: %v", tc.budget, exec, err, tc.err)
				continue
			}
			d := res.Ref
			if exec == device.Sim {
				d = res.Sim
			}
			b := make([]byte, 1)
			d.Core(0).Read(0x1_0000_1000+63, b)
			if got := b[0] == 64; got != tc.touched {
				t.Errorf("budget %d on %v: hbm:0x103f = %d, memcpy landed %v, want %v", tc.budget, exec, b[0], got, tc.touched)
			}
		}
	}
}
