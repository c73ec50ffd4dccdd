package num

import (
	"math/rand/v2"
	"ndma/internal/testutil"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Every chunk of every job runs once, whoever takes it, with several
// callers at once (one job on offer at a time: a caller whose job was
// replaced runs what is left itself), and the helpers' writes are visible
// when run returns.
func TestCrewEveryChunkOnce(t *testing.T) {
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(g), 7))
			for r := range 300 {
				n := 1 + rng.IntN(64)
				runs := make([]int32, n) // written by whoever runs the chunk, read after run
				var next atomic.Int64
				helpers.run(1<<10, func() {
					for {
						i := int(next.Add(1)) - 1
						if i >= n {
							return
						}
						if i%7 == 0 {
							time.Sleep(20 * time.Microsecond) // a chunk that takes a while: another runner takes the next
						}
						runs[i]++
					}
				})
				for i, k := range runs {
					if k != 1 {
						t.Errorf("caller %d job %d: chunk %d of %d ran %d times", g, r, i, n, k)
						return
					}
				}
			}
		})
	}
	wg.Wait()
}

// A helper joins a job both while it spins (a job right after another) and
// once it has parked (a job after a pause longer than spinFor): the job's
// work holds the caller until a second runner has entered it.
func TestCrewHelperJoins(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("one CPU: kernelPar runs no helpers")
	}
	joins := func() bool {
		var entered atomic.Int32
		deadline := time.Now().Add(10 * time.Second)
		helpers.run(1<<10, func() {
			entered.Add(1)
			for entered.Load() < 2 && time.Now().Before(deadline) {
				runtime.Gosched()
			}
		})
		return entered.Load() >= 2
	}
	for _, pause := range []time.Duration{0, 0, 20 * spinFor, 20 * spinFor} {
		time.Sleep(pause)
		if !joins() {
			t.Fatalf("after a pause of %v: no helper joined the job in 10 s", pause)
		}
	}
}

// newCrew is a crew of its own with procs − 1 helpers (GOMAXPROCS procs
// while it starts and while the test runs), so a test sees several helpers
// on a 2-CPU machine and leaves the process's crew alone.
func newCrew(t *testing.T, procs int) *crew {
	prev := runtime.GOMAXPROCS(procs)
	t.Cleanup(func() { runtime.GOMAXPROCS(prev) })
	c := new(crew)
	c.run(0, func() {})
	return c
}

// Once run returns, no runner is in the job's work nor enters it: a helper
// that comes late finds the job closed.
func TestCrewNothingAfterReturn(t *testing.T) {
	c := newCrew(t, 4)
	var bad atomic.Int32
	for r := range testutil.Trials(20000) {
		var done atomic.Bool
		var next atomic.Int32
		c.run(3, func() {
			for next.Add(1) <= 3 {
				for range 50 * (r % 4) {
					runtime.Gosched()
				}
			}
			if done.Load() {
				bad.Add(1)
			}
		})
		done.Store(true)
	}
	time.Sleep(10 * time.Millisecond)
	if n := bad.Load(); n > 0 {
		t.Fatalf("%d runners were in work after run returned", n)
	}
}

// A job offered about when the helper stops spinning and parks still gets
// it (await counts itself parked, then looks at the job again).
func TestCrewNoLostWakeup(t *testing.T) {
	c := newCrew(t, 2)
	for r := range testutil.Trials(3000) {
		time.Sleep(spinFor - 50*time.Microsecond + time.Duration(r%100)*time.Microsecond)
		var entered atomic.Int32
		deadline := time.Now().Add(time.Second)
		c.run(1, func() {
			entered.Add(1)
			for entered.Load() < 2 && time.Now().Before(deadline) {
				runtime.Gosched()
			}
		})
		if entered.Load() < 2 {
			t.Fatalf("job %d: the helper did not join within 1 s", r)
		}
	}
}

// The helpers keep no run's buffers: the destination of the last long ADD
// is collected once the caller drops it (they keep the job as their last).
func TestCrewKeepsNoBuffers(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("one CPU: kernelPar runs no helpers")
	}
	const n = 4 * parMin
	freed := make(chan struct{}, 1)
	func() {
		d, s := make([]byte, 4*n), make([]byte, 4*n)
		runtime.SetFinalizer(&d[0], func(*byte) { freed <- struct{}{} })
		for range 3 {
			if err := ApplySlice(OpAdd, FP32, FP32, d, s); err != nil {
				t.Fatal(err)
			}
		}
	}()
	for range 20 {
		runtime.GC()
		select {
		case <-freed:
			return
		case <-time.After(20 * time.Millisecond):
		}
	}
	t.Fatal("the last run's destination is still reachable")
}
