// Package par runs loops over index ranges on all cores. It is the one
// place that decides how work is split across goroutines, so every package
// parallelizes the same way and GOMAXPROCS alone controls the core count.
package par

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// Workers is the number of goroutines a parallel loop uses.
func Workers() int { return runtime.GOMAXPROCS(0) }

// Blocks calls fn(w, lo, hi) for the contiguous blocks of [0, n) split as
// evenly as possible over Workers() goroutines (w is the block number, in
// [0, Workers())) and waits for all of them. Small ranges run inline.
func Blocks(n int, fn func(w, lo, hi int)) {
	p := Workers()
	if n < 4096 || p == 1 {
		fn(0, 0, n)
		return
	}
	run(p, func(w int) { fn(w, n*w/p, n*(w+1)/p) })
}

// Split returns p+1 boundaries that cut [0, n) into p parts of about equal
// weight, where prefix is a non-decreasing function with prefix(0) = 0 and
// prefix(n) = the total weight (a CSR row pointer, say). Used to balance rows
// by nonzeros rather than by count.
func Split(n, p int, prefix func(i int) int64) []int {
	b := make([]int, p+1)
	total := prefix(n)
	for k := 1; k < p; k++ {
		target := total * int64(k) / int64(p)
		lo, hi := b[k-1], n
		for lo < hi {
			mid := int(uint(lo+hi) >> 1)
			if prefix(mid) < target {
				lo = mid + 1
			} else {
				hi = mid
			}
		}
		b[k] = lo
	}
	b[p] = n
	return b
}

// Parts calls fn(w, bounds[w], bounds[w+1]) for every part concurrently.
func Parts(bounds []int, fn func(w, lo, hi int)) {
	p := len(bounds) - 1
	if p == 1 {
		fn(0, bounds[0], bounds[1])
		return
	}
	var wg sync.WaitGroup
	for w := 0; w < p; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			fn(w, bounds[w], bounds[w+1])
		}()
	}
	wg.Wait()
}

// Dynamic calls fn(lo, hi) for every part [bounds[i], bounds[i+1]) on
// Workers() goroutines that each claim the next unclaimed part, so a slow
// part (or a core taken by another process) delays only itself. Use many
// more parts than workers.
func Dynamic(bounds []int, fn func(lo, hi int)) {
	DynamicW(bounds, func(_, lo, hi int) { fn(lo, hi) })
}

// DynamicW is Dynamic that also tells fn which worker claimed the part
// (w in [0, Workers())), for per-worker scratch and counts.
func DynamicW(bounds []int, fn func(w, lo, hi int)) {
	parts := len(bounds) - 1
	p := min(Workers(), parts)
	if p <= 1 {
		for i := 0; i < parts; i++ {
			fn(0, bounds[i], bounds[i+1])
		}
		return
	}
	var next atomic.Int64
	run(p, func(w int) {
		for {
			i := int(next.Add(1)) - 1
			if i >= parts {
				return
			}
			fn(w, bounds[i], bounds[i+1])
		}
	})
}

// Each calls fn(w) for every w in [0, min(p, Workers())) concurrently
// and waits for them: w = 0 on the caller, each other w on the pool's
// helper w, the same goroutine from one call to the next (a caller that
// hands worker w the same part of its data each time keeps that part in
// one core's cache). p <= 1 runs fn(0) on the caller.
func Each(p int, fn func(w int)) {
	run(min(p, Workers()), fn)
}

// Chunks calls fn(w, lo, hi) for the chunks [lo, hi) of [0, n), chunk
// long (the last shorter), claimed one after another by up to Workers()
// goroutines; w is the claiming worker, in [0, Workers()). A range of one
// chunk runs on the caller, with no goroutine: a caller that sizes chunk
// by the work makes a small step cost a function call (a superstep of a
// high-diameter graph's traversal moves a few hundred vertices, less than
// the start of the goroutines that would share it).
func Chunks(n, chunk int, fn func(w, lo, hi int)) {
	chunk = max(chunk, 1)
	parts := (n + chunk - 1) / chunk
	p := min(Workers(), parts)
	if p <= 1 {
		if n > 0 {
			fn(0, 0, n)
		}
		return
	}
	var next atomic.Int64
	run(p, func(w int) {
		for {
			lo := int(next.Add(int64(chunk))) - chunk
			if lo >= n {
				return
			}
			fn(w, lo, min(lo+chunk, n))
		}
	})
}

// PrefixSum turns a[1:] into running sums (a[0] stays), as a CSR's row
// pointer from its degrees: blocks summed in parallel, their offsets
// added up, then every block's running sum in parallel.
func PrefixSum(a []int64) {
	n := len(a) - 1
	p := Workers()
	if p == 1 || n < 1<<16 {
		for i := 1; i <= n; i++ {
			a[i] += a[i-1]
		}
		return
	}
	sums := make([]int64, p+1)
	Blocks(n, func(w, lo, hi int) {
		var s int64
		for _, x := range a[1+lo : 1+hi] {
			s += x
		}
		sums[w+1] = s
	})
	sums[0] = a[0]
	for w := 1; w <= p; w++ {
		sums[w] += sums[w-1]
	}
	Blocks(n, func(w, lo, hi int) {
		s := sums[w]
		for i := 1 + lo; i < 1+hi; i++ {
			s += a[i]
			a[i] = s
		}
	})
}

// run calls fn(w) for w in [0, p) concurrently, w = 0 on the caller, and
// waits for all of them: on the pool's helpers where no other region
// holds it, else on fresh goroutines.
func run(p int, fn func(w int)) {
	if p <= 1 {
		fn(0)
		return
	}
	if !helpers.TryLock() {
		spawn(p, fn) // (a region inside a region, or a concurrent caller)
		return
	}
	defer helpers.Unlock()
	helpers.run(p, fn)
}

// spawn is run on fresh goroutines.
func spawn(p int, fn func(w int)) {
	var wg sync.WaitGroup
	for w := 1; w < p; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			fn(w)
		}()
	}
	fn(0)
	wg.Wait()
}

// The pool: goroutines that run regions' workers 1, 2, ... and between
// regions spin for spinFor, then exit. A region on goroutines started
// for it costs, when the other cores have been idle for a while, the
// wake of a sleeping thread (tens of µs on a VM): more than a small
// region's work, so a graph's small supersteps (a grid's BFS runs 1,500
// of ~20 µs) ran on one core. A spinning helper starts a region's work
// within a µs, as OpenMP's threads do between parallel regions. A
// helper that is not there is started for the region and joins it if it
// is still open when it runs; whatever slot no helper claimed by the
// time the caller's own share is done runs on the caller (a Chunks or
// Dynamic region then finds nothing left), so a region never waits for
// a goroutine to start.
var helpers pool

// spinFor is how long a helper spins after a region before it exits.
const spinFor = 100 * time.Microsecond

// A helper's slot: the region's number times 8 plus its state.
const (
	slotFree    = iota // the helper spins, no region for it
	slotOpen           // a region's worker waits for the helper
	slotRunning        // the helper runs it
	slotTaken          // the caller took it back and ran it
	slotGone           // no goroutine: the next region starts one
	slotState   = 7
)

type pool struct {
	sync.Mutex // held by the region running on the helpers
	hs         []*helper
	region     uint64
}

type helper struct {
	slot atomic.Uint64
	fn   func(w int) // the open region's (read after claiming the slot)
	w    int
	_    [64]byte // (helpers' slots on lines of their own)
}

func (pl *pool) run(p int, fn func(w int)) {
	for len(pl.hs) < p-1 {
		h := &helper{w: len(pl.hs) + 1}
		h.slot.Store(slotGone)
		pl.hs = append(pl.hs, h)
	}
	pl.region++
	open := pl.region<<3 | slotOpen
	hs := pl.hs[:p-1]
	for _, h := range hs {
		h.fn = fn
		for {
			s := h.slot.Load()
			if s&slotState == slotGone {
				h.slot.Store(open)
				go h.loop()
				break
			}
			if h.slot.CompareAndSwap(s, open) { // (free or taken: it spins)
				break
			}
		}
	}
	fn(0)
	for _, h := range hs {
		if h.slot.CompareAndSwap(open, pl.region<<3|slotTaken) {
			fn(h.w) // (no helper came for it)
		}
	}
	for _, h := range hs {
		var sp spinner
		for h.slot.Load()&slotState == slotRunning {
			sp.spin() // (the helper may wait for a core)
		}
		h.fn = nil
	}
}

// A spinner spins between loads of what it waits for, with a pause
// each time and, every yieldEvery, a yield to Go's scheduler (a
// goroutine waiting for a P gets one; a yield takes the scheduler's
// lock, on which 15 helpers on 16 cores yielding every few loads would
// queue) and to the OS's (a thread waiting for the core runs: with
// another process on one of two cores, helpers that only spun made
// grid1000's BFS 37-45 ms a query against main's 29 serial; yielding,
// 28-29).
type spinner struct {
	k     int
	start time.Time
	yield time.Time
}

const yieldEvery = 20 * time.Microsecond

// spin pauses once; it reports how long the spinner has spun, as of the
// last check of the clock (every 256 spins).
func (s *spinner) spin() time.Duration {
	pause()
	if s.k++; s.k%256 != 0 {
		return 0
	}
	now := time.Now()
	if s.start.IsZero() {
		s.start, s.yield = now, now
	}
	if now.Sub(s.yield) > yieldEvery {
		runtime.Gosched()
		osYield()
		s.yield = now
	}
	return now.Sub(s.start)
}

// loop is a helper's goroutine: it claims its slot where a region opened
// it, runs it, and spins for the next; it exits when none comes.
func (h *helper) loop() {
	var sp spinner
	for {
		s := h.slot.Load()
		if s&slotState == slotOpen && h.slot.CompareAndSwap(s, s^slotOpen|slotRunning) {
			h.fn(h.w)
			h.slot.Store(s &^ slotState) // (free: the caller may return)
			sp = spinner{}
			continue
		}
		if sp.spin() > spinFor && s&slotState != slotOpen && h.slot.CompareAndSwap(s, s&^slotState|slotGone) {
			return
		}
	}
}
