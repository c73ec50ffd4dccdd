package sim

import (
	"math/rand/v2"
	"reflect"
	"testing"

	"ndma/internal/control"
	"ndma/isa"
)

// Plain copies held as descriptor runs (prepareCompact, moveCompact) end
// as the per-descriptor path ends them — memory, semaphores, counts, write
// spans — where they are taken, and are not taken where a leg leaves core
// 0's HBM or the reads meet the writes.
func TestCompactAgainstExact(t *testing.T) {
	for _, tc := range []struct {
		src     string
		compact bool
	}{
		// the strided word of issue 17, smaller: 64-byte rows 128 apart into packed bytes
		{`dmamemcpy semaphore=3, sem_increment=2, src_start_addr=hbm:0x0, src_step_elem=[128, 0x3fff80], src_num_elem=[32767, 4], src_elem_size=64,
  dst_start_addr=hbm:0x1000000, dst_step_elem=[64, 0x1fffc0], dst_num_elem=[32767, 4], dst_elem_size=64, in_dtype=u8, out_dtype=u8`, true},
		// a scatter: packed bytes into rows 96 apart
		{`dmamemcpy src_start_addr=hbm:0x0, src_step_elem=[32, 3200], src_num_elem=[100, 7], src_elem_size=32,
  dst_start_addr=hbm:0x100000, dst_step_elem=[96, 9600], dst_num_elem=[100, 7], dst_elem_size=32, in_dtype=u8, out_dtype=u8`, true},
		// rows of 96 KiB (a full descriptor and one of 32 KiB each) into packed bytes, and rows descending
		{`dmamemcpy src_start_addr=hbm:0x0, src_step_elem=[4096, 0x40000], src_num_elem=[24, 3], src_elem_size=4096,
  dst_start_addr=hbm:0x1000000, dst_step_elem=[4096, 0x18000], dst_num_elem=[24, 3], dst_elem_size=4096, in_dtype=u8, out_dtype=u8`, true},
		{`dmamemcpy src_start_addr=hbm:0x100000, src_step_elem=[4, -256], src_num_elem=[16, 8], src_elem_size=4,
  dst_start_addr=hbm:0x200000, dst_step_elem=[4, -512], dst_num_elem=[16, 8], dst_elem_size=4, in_dtype=u8, out_dtype=u8`, true},
		// three elements of 100 bytes into two of 150 (pieces of both: byte runs)
		{`dmamemcpy src_start_addr=hbm:0x0, src_step_elem=[300, 0], src_num_elem=[3, 1], src_elem_size=100,
  dst_start_addr=hbm:0x10000, dst_step_elem=[450, 0], dst_num_elem=[2, 1], dst_elem_size=150, in_dtype=u8, out_dtype=u8`, true},
		// 400 elements of 48 bytes into 300 of 64: 600 byte runs, more than 64 and a 16th of the descriptors: not taken
		{`dmamemcpy src_start_addr=hbm:0x0, src_step_elem=[96, 0], src_num_elem=[400, 1], src_elem_size=48,
  dst_start_addr=hbm:0x10000, dst_step_elem=[192, 0], dst_num_elem=[300, 1], dst_elem_size=64, in_dtype=u8, out_dtype=u8`, false},
		// every dst row on the same 64 bytes: written in row order, the last stays
		{`dmamemcpy src_start_addr=hbm:0x0, src_step_elem=[64, 0], src_num_elem=[50, 1], src_elem_size=64,
  dst_start_addr=hbm:0x10000, dst_step_elem=[0, 0], dst_num_elem=[50, 1], dst_elem_size=64, in_dtype=u8, out_dtype=u8`, true},
		// SBUF, the dst meeting the src, a cast: not taken
		{`dmamemcpy src_start_addr=hbm:0x0, src_step_elem=[128, 4096], src_num_elem=[20, 3], src_elem_size=64,
  dst_start_addr=sbuf:2:0x0, dst_step_elem=[64, 0x40000], dst_num_elem=[20, 3], dst_elem_size=64, in_dtype=u8, out_dtype=u8`, false},
		{`dmamemcpy src_start_addr=hbm:0x0, src_step_elem=[128, 0], src_num_elem=[200, 1], src_elem_size=64,
  dst_start_addr=hbm:0x40, dst_step_elem=[128, 0], dst_num_elem=[200, 1], dst_elem_size=64, in_dtype=u8, out_dtype=u8`, false},
		{`dmamemcpy src_start_addr=hbm:0x0, src_step_elem=[4, 512], src_num_elem=[64, 100], src_elem_size=4,
  dst_start_addr=hbm:0x100000, dst_step_elem=[2, 256], dst_num_elem=[64, 100], dst_elem_size=2, in_dtype=fp32, out_dtype=bf16`, false},
	} {
		in, ok := tryWord(isa.Cayman, tc.src)
		if !ok {
			t.Fatalf("%s: does not assemble", tc.src)
		}
		for _, ring := range []int{0, 5} { // the default ring, and one that wraps
			fast, exact := New(isa.Cayman), New(isa.Cayman)
			exact.exact = true
			fast.RingSize, exact.RingSize = ring, ring
			for _, x := range []*Machine{fast, exact} {
				seed(t, rand.New(rand.NewPCG(3, 5)), isa.Cayman, simM{x})
			}
			var effs [2]control.Effect
			var errs [2]error
			for j, x := range []*Machine{fast, exact} {
				if effs[j], errs[j] = x.Issue(in); errs[j] == nil {
					effs[j].Apply()
				}
			}
			sameRun(t, tc.src, fast, exact, errs[0], errs[1])
			if errs[1] != nil {
				t.Fatalf("%s: %v", tc.src, errs[1])
			}
			for j := range effs {
				for k := range effs[j].Changes {
					effs[j].Changes[k].Mem = nil // each machine's own
				}
			}
			if !reflect.DeepEqual(effs[0].Writes, effs[1].Writes) || !reflect.DeepEqual(effs[0].Reads, effs[1].Reads) || !reflect.DeepEqual(effs[0].Queues, effs[1].Queues) || !reflect.DeepEqual(effs[0].Changes, effs[1].Changes) {
				t.Fatalf("%s: effects %+v, exact %+v", tc.src, effs[0], effs[1])
			}
			if got := fast.compacted > 0; got != tc.compact {
				t.Fatalf("%s: moved as runs %v, want %v", tc.src, got, tc.compact)
			}
		}
	}
}
