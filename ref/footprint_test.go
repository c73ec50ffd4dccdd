package ref

import (
	"errors"
	"runtime"
	"strings"
	"testing"

	"ndma/isa"
)

// allocated is the heap a call allocates.
func allocated(f func()) uint64 {
	var a, b runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&a)
	f()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}

// H7: the reference's work and memory follow the bytes a word touches, not
// its elements: a contiguous 16 MiB u8 copy (16M one-byte elements) and a
// zero-step one allocate no address per element, and a word past
// --max-bytes is refused before anything is built.
func TestFootprintFollowsBytes(t *testing.T) {
	const n = 16 << 20
	for _, c := range []struct{ name, word string }{
		{"contiguous", `dmamemcpy src_start_addr=hbm:0x0, src_step_elem=[1, 4096], src_num_elem=[4096, 4096], src_elem_size=1,
  dst_start_addr=hbm:0x2000000, dst_step_elem=[1, 4096], dst_num_elem=[4096, 4096], dst_elem_size=1, in_dtype=u8, out_dtype=u8`},
		{"zero-step src", `dmamemcpy src_start_addr=hbm:0x0, src_step_elem=[0, 0], src_num_elem=[4096, 4096], src_elem_size=1,
  dst_start_addr=hbm:0x2000000, dst_step_elem=[1, 4096], dst_num_elem=[4096, 4096], dst_elem_size=1, in_dtype=u8, out_dtype=u8`},
		{"cast", `dmamemcpy src_start_addr=hbm:0x0, src_step_elem=[2, 8192], src_num_elem=[4096, 1024], src_elem_size=2,
  dst_start_addr=hbm:0x2000000, dst_step_elem=[4, 16384], dst_num_elem=[4096, 1024], dst_elem_size=4, in_dtype=bf16, out_dtype=fp32`},
	} {
		x := New(isa.Cayman)
		if err := x.Mem.Write(hbm, make([]byte, n)); err != nil { // the pages exist before: only the word's own work counts
			t.Fatal(err)
		}
		if err := x.Mem.Write(hbm+0x2000000, make([]byte, n)); err != nil {
			t.Fatal(err)
		}
		in := asmWord(t, isa.Cayman, c.word)
		var err error
		if got := allocated(func() { err = x.Exec(in) }); err != nil || got > 2<<20 {
			t.Errorf("%s: %v, %d bytes allocated for a %d-byte copy (want at most 2 MiB)", c.name, err, got, n)
		}
	}
	// past --max-bytes (32 MiB allowed, 2 × 32 MiB asked): refused at once,
	// with nothing built
	x := New(isa.Cayman)
	x.MaxBytes = 32 << 20
	in := asmWord(t, isa.Cayman, `dmamemcpy src_start_addr=hbm:0x0, src_step_elem=[0, 0], src_num_elem=[8192, 4096], src_elem_size=1,
  dst_start_addr=hbm:0x0, dst_step_elem=[0, 0], dst_num_elem=[8192, 4096], dst_elem_size=1, in_dtype=u8, out_dtype=u8`)
	var err error
	got := allocated(func() { err = x.Exec(in) })
	var f *Fault
	if !errors.As(err, &f) || !strings.Contains(err.Error(), "allowed") || got > 64<<10 {
		t.Fatalf("past max-bytes: %v after %d bytes allocated", err, got)
	}
}
