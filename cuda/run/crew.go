//go:build cgo

package run

import (
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// A crew runs the fan-outs of a partitioned run whose parts are on
// different devices (a superstep on every part, each exchange) on
// goroutines kept between them, each spinning on the next call for a
// while before it sleeps; the caller runs part 0 itself. On two H200s a
// fan-out of goroutines started anew (eachOf) took 40-114 µs a
// superstep beyond its slowest part (kron26 BFS, HPGRAPH_CUDA_TRACE,
// session 41): the wait for a parked thread to take the new goroutine.
// Parts that share a device take turns at its lock, where spinning only
// took cores from the part that held it (2 parts on one H200: BFS 4.53
// → 5.24 ms, session 40), so they keep eachOf.
type crew struct {
	n      int // the parts; workers run parts 1 to n-1
	f      func(i int) error
	errs   []error
	gen    atomic.Uint64 // calls so far: a worker runs a call when it sees gen change
	left   atomic.Int64  // the call's workers still running
	asleep []atomic.Bool
	wake   []chan struct{} // a worker's, buffered: a token is a hint to look at gen
	done   chan struct{}   // the caller's, likewise, to look at left
	wait   atomic.Bool     // the caller sleeps on done
	busy   atomic.Bool     // a call is running (a nested call goes to eachOf)
	stop   atomic.Bool
}

// crewSpin is how long a worker, or the caller, spins before it sleeps.
const crewSpin = time.Millisecond

// newCrew is a crew for n parts, or nil where it would not pay: one
// part, parts that share a device (distinct false: device.go), or no
// core for each part.
func newCrew(n int, distinct bool) *crew {
	if n < 2 || !distinct || runtime.GOMAXPROCS(0) < n {
		return nil
	}
	return startCrew(n)
}

// startCrew starts the workers of a crew of n parts.
func startCrew(n int) *crew {
	c := &crew{n: n, errs: make([]error, n), asleep: make([]atomic.Bool, n), wake: make([]chan struct{}, n), done: make(chan struct{}, 1)}
	for i := 1; i < n; i++ {
		c.wake[i] = make(chan struct{}, 1)
		go c.work(i)
	}
	return c
}

// work is worker i. It is not locked to a thread: a locked goroutine
// that blocks (exchangeDense's parts wait for each other) resumes only
// on its own thread, woken by the kernel. (With the workers locked and
// that wait a WaitGroup, kron26 PageRank's exchange on two H200s rose
// from 0.10 to 0.18 ms a superstep; unlocked, the wait a yielding spin,
// 0.07-0.09.)
func (c *crew) work(i int) {
	seen := uint64(0)
	for {
		g, ok := c.next(i, seen)
		if !ok {
			return
		}
		seen = g
		c.errs[i] = c.f(i)
		if c.left.Add(-1) == 0 && c.wait.Load() {
			select {
			case c.done <- struct{}{}:
			default:
			}
		}
	}
}

// next waits for the call after call seen: it spins for crewSpin, then
// sleeps until run wakes it. ok is false once the crew is closed.
func (c *crew) next(i int, seen uint64) (g uint64, ok bool) {
	t0 := time.Now()
	for spins := 1; ; spins++ {
		if c.stop.Load() {
			return 0, false
		}
		if g := c.gen.Load(); g != seen {
			return g, true
		}
		if spins%64 != 0 || time.Since(t0) < crewSpin {
			continue
		}
		// (asleep before gen is read again, and run bumps gen before it
		// reads asleep: one of the two sees the other)
		c.asleep[i].Store(true)
		if c.gen.Load() == seen && !c.stop.Load() {
			<-c.wake[i]
		}
		c.asleep[i].Store(false)
		t0 = time.Now()
	}
}

// run calls f(i) for every part i at once, part 0 on the calling
// goroutine, and returns their errors joined. ran is false, with
// nothing run, for a call made while another runs (from inside f) or
// after close.
func (c *crew) run(f func(i int) error) (ran bool, err error) {
	if !c.busy.CompareAndSwap(false, true) {
		return false, nil
	}
	defer c.busy.Store(false)
	if c.stop.Load() {
		return false, nil // (closed: no worker would answer)
	}
	c.f = f
	clear(c.errs)
	c.left.Store(int64(c.n - 1))
	c.gen.Add(1)
	for i := 1; i < c.n; i++ {
		if c.asleep[i].Load() {
			select {
			case c.wake[i] <- struct{}{}:
			default:
			}
		}
	}
	c.errs[0] = f(0)
	t0 := time.Now()
	for spins := 1; c.left.Load() > 0; spins++ {
		if spins%64 != 0 || time.Since(t0) < crewSpin {
			continue
		}
		c.wait.Store(true)
		for c.left.Load() > 0 {
			<-c.done // (a token left from an earlier call only sends it round again)
		}
		c.wait.Store(false)
	}
	return true, errors.Join(c.errs...)
}

// close stops the workers (after the last run returned).
func (c *crew) close() {
	if c == nil {
		return
	}
	c.stop.Store(true)
	for i := 1; i < c.n; i++ {
		select {
		case c.wake[i] <- struct{}{}:
		default:
		}
	}
}

// fanOut runs f(i) for every part i: on c where there is one and no call
// of it runs, else on a goroutine each (eachOf).
func fanOut[R any](c *crew, runs []R, f func(i int, r R) error) error {
	if c != nil {
		if ran, err := c.run(func(i int) error { return f(i, runs[i]) }); ran {
			return err
		}
	}
	return eachOf(runs, f)
}

// eachOf runs f on every run at once: the first on the calling
// goroutine (a process's one part over NCCL waits for no goroutine's
// start), each other on a goroutine of its own.
func eachOf[R any](runs []R, f func(i int, r R) error) error {
	if len(runs) == 0 {
		return nil
	}
	errs := make([]error, len(runs))
	var wg sync.WaitGroup
	for i := 1; i < len(runs); i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = f(i, runs[i])
		}()
	}
	errs[0] = f(0, runs[0])
	wg.Wait()
	return errors.Join(errs...)
}
