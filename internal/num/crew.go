package num

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// crew is kernelPar's helpers: goroutines (a CPU each, at most maxHelpers)
// each of which, its part of a job done, spins for the next job a moment
// (spinFor) before it parks. A job handed to a goroutine that has to be
// woken waits for the wake-up — 70–90 µs on the 2-CPU VM of
// docs/performance.md, half of a 1 M scalar ADD in cache, so a second CPU
// gained nothing there — where a job that follows another (a NEFF's words,
// a benchmark's loop) finds its helpers awake. One crew per process, as
// the CPUs are the process's (RATIONALE "Helpers that stay awake").
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

const (
	spinFor    = 200 * time.Microsecond // how long a helper looks for the next job before it parks
	maxHelpers = 7                      // a few cores draw a cache's or the memory's bandwidth; more only spin
)

// helpers is the process's crew.
var helpers crew

// run runs work on the calling goroutine and on the helpers that are free,
// at most want of them (the first call starts min(GOMAXPROCS − 1,
// maxHelpers)); work must return once nothing is left to do, whoever runs
// it. run returns — work panicking on the caller too — once the caller's
// work has returned and every helper that took the job is done: the
// helpers' writes are then visible to the caller, and none runs work after.
func (c *crew) run(want int, work func()) {
	c.once.Do(func() {
		n := min(max(runtime.GOMAXPROCS(0)-1, 1), maxHelpers)
		c.wake = make(chan struct{}, n)
		for k := range n {
			go c.help(k)
		}
	})
	j := &job{work: work}
	c.job.Store(j)
	for k := min(int(c.parked.Load()), want); k > 0; k-- { // a parked helper is woken; it joins if work is left by then
		select {
		case c.wake <- struct{}{}:
		default:
		}
	}
	defer c.finish(j)
	work()
}

// finish closes j and waits for the helpers that took it.
func (c *crew) finish(j *job) {
	// Closed before joined is read: a helper that joins later sees it and
	// does nothing (both are sequentially consistent atomics).
	j.closed.Store(true)
	c.job.CompareAndSwap(j, nil)
	// left read before joined: left ≤ joined at every instant, so equal
	// counts mean every helper that joined by then has left (joined read
	// first, a late no-op joiner could make them equal while another
	// helper still writes).
	for i := 0; j.left.Load() != j.joined.Load(); i++ {
		if i >= 1<<14 {
			time.Sleep(10 * time.Microsecond) // a helper descheduled (or sharing this CPU): no CPU spent waiting for it
		}
	}
	j.work = nil // the helpers keep j as their last job: not the run's buffers with it
}

// help is helper k's life: a job taken, its chunks run, the next awaited.
func (c *crew) help(k int) {
	var last *job
	for {
		j := c.await(k, last)
		last = j
		j.joined.Add(1)
		if !j.closed.Load() {
			j.work()
		}
		j.left.Add(1)
	}
}

// await returns the job on offer other than last: spinning for spinFor
// (not at all for a helper past GOMAXPROCS − 1, lowered since the crew
// started), then parked until run wakes it. The spin does not yield: a
// goroutine that yields goes to the global run queue, from where the
// scheduler may hand it and the caller to one P and let the other idle —
// the helper then shares the caller's CPU (read from the scheduler's
// design, not isolated by a measurement). Past spinFor it parks; the
// scheduler would preempt it after 10 ms anyway.
func (c *crew) await(k int, last *job) *job {
	for {
		if k < runtime.GOMAXPROCS(0)-1 {
			deadline := time.Now().Add(spinFor)
			for i := 0; ; i++ {
				if j := c.job.Load(); j != nil && j != last {
					return j
				}
				if i%64 == 63 && time.Now().After(deadline) {
					break
				}
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
