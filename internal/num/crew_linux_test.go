package num

import (
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// A fault in the last chunk of a long ADD — a mapped file that shrank —
// is raised again on the caller whichever runner took the chunk, and the
// crew still takes jobs after fifty of them.
func TestKernelParFaultAnyShare(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 || !hasF32Kernels {
		t.Skip("no helpers or no fp32 kernels")
	}
	const n = 4 * parMin
	f, err := os.Create(filepath.Join(t.TempDir(), "f"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Truncate(4 * n); err != nil {
		t.Fatal(err)
	}
	m, err := syscall.Mmap(int(f.Fd()), 0, 4*n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Munmap(m)
	if err := f.Truncate(4 * (n - parChunk)); err != nil {
		t.Fatal(err)
	}
	src := make([]byte, 4*n)
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	for r := range 50 {
		func() {
			defer func() {
				if _, ok := recover().(runtime.Error); !ok {
					t.Fatalf("run %d: no runtime error raised", r)
				}
			}()
			_ = ApplySlice(OpAdd, FP32, FP32, m, src)
		}()
	}
	var entered atomic.Int32
	deadline := time.Now().Add(10 * time.Second)
	helpers.run(1, func() {
		entered.Add(1)
		for entered.Load() < 2 && time.Now().Before(deadline) {
			runtime.Gosched()
		}
	})
	if entered.Load() < 2 {
		t.Fatal("no helper joined a job after the faults")
	}
}
