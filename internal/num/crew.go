package num

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// crew is kernelPar's helpers: a goroutine a CPU but one, each of which,
// its part of a job done, spins for the next job a moment (spinFor) before
// it parks. A job handed to a goroutine that has to be woken waits for the
// wake-up — 70–90 µs on the 2-CPU VM of docs/performance.md, half of a 1 M
// scalar ADD in cache, so a second CPU gained nothing there — where a job
// that follows another (a NEFF's words, a benchmark's loop) finds its
// helpers awake. One crew per process, as the CPUs are the process's
// (RATIONALE "One crew of helpers").
type crew struct {
	once   sync.Once
	job    atomic.Pointer[job] // the job on offer; nil: none
	parked atomic.Int32        // helpers blocked on wake
	wake   chan struct{}
}

// job is one run's work as the helpers see it: work takes chunks until
// none is left; joined and left count the helpers that took the job and
// that are done with it; closed, once set, admits none.
type job struct {
	work   func()
	joined atomic.Int32
	left   atomic.Int32
	closed atomic.Bool
}

// spinFor is how long a helper looks for the next job before it parks.
const spinFor = 200 * time.Microsecond

// helpers is the process's crew.
var helpers crew

// run runs work on the calling goroutine and on every helper that is free
// (the first call starts GOMAXPROCS − 1 of them); work must return once
// nothing is left to do, whoever runs it. run returns when the caller's
// work has returned and every helper that took the job is done: the
// helpers' writes are then visible to the caller.
func (c *crew) run(work func()) {
	c.once.Do(func() {
		n := max(runtime.GOMAXPROCS(0)-1, 1)
		c.wake = make(chan struct{}, n)
		for range n {
			go c.help()
		}
	})
	j := &job{work: work}
	c.job.Store(j)
	for k := c.parked.Load(); k > 0; k-- { // a parked helper is woken; it joins if work is left by then
		select {
		case c.wake <- struct{}{}:
		default:
		}
	}
	work()
	// Closed before joined is read: a helper that joins later sees it and
	// does nothing (both are sequentially consistent atomics).
	j.closed.Store(true)
	c.job.CompareAndSwap(j, nil)
	for i := 0; j.left.Load() != j.joined.Load(); i++ {
		if i%64 == 63 {
			runtime.Gosched() // a joined helper that was descheduled gets its CPU back
		}
	}
}

// help is a helper's life: a job taken, its chunks run, the next awaited.
func (c *crew) help() {
	var last *job
	for {
		j := c.await(last)
		last = j
		j.joined.Add(1)
		if !j.closed.Load() {
			j.work()
		}
		j.left.Add(1)
	}
}

// await returns the job on offer other than last: spinning for spinFor
// (yielding the CPU to any other goroutine as it goes), then parked until
// run wakes it.
func (c *crew) await(last *job) *job {
	for {
		deadline := time.Now().Add(spinFor)
		for i := 0; ; i++ {
			if j := c.job.Load(); j != nil && j != last {
				return j
			}
			if i%64 == 63 {
				if time.Now().After(deadline) {
					break
				}
				runtime.Gosched()
			}
		}
		// Parked counted before the job is looked at again: run either
		// sees the count and wakes it, or its job is seen here.
		c.parked.Add(1)
		if j := c.job.Load(); j != nil && j != last {
			c.parked.Add(-1)
			return j
		}
		<-c.wake
		c.parked.Add(-1)
	}
}
