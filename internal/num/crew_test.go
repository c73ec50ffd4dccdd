package num

import (
	"math/rand/v2"
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
				helpers.run(func() {
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
		helpers.run(func() {
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
