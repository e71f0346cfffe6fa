package vertexprog

import (
	"sync"

	"github.com/hpgraph/hpgraph/bitmask"
	"github.com/hpgraph/hpgraph/internal/par"
	"github.com/hpgraph/hpgraph/spmv"
)

// A CPU run's scratch of a size in n (its bitmasks and accumulators)
// comes from a finished run's where one is spare, not from new memory.
// A graph's arrays are most of the heap, so the runtime collects seldom
// (three times in 24 kron20 SSSP queries) and a run's new arrays were
// memory fresh from the system, faulted in page by page: a BFS's four
// bitmasks of 2M bits were 1 MB of it a query, an SSSP's accumulators 8
// MB. Reused, kron21's BFS at GAP's 16 sources on the H200 host's 16
// threads took 8.3 -> 7.5 ms a query, urand21's 12.8 -> 11.2 (session
// 46; SSSP's the same). Each pool holds the arrays of any run
// (*bitmask.Bitmask, *[]A; a collection may drop them); one of another
// size or type is left to the collector.
var spareMasks, spareAccs sync.Pool

// newMask is a clear bitmask of n bits.
func newMask(n int) *bitmask.Bitmask {
	if b, ok := spareMasks.Get().(*bitmask.Bitmask); ok && b.Len() == n {
		par.Blocks(b.NumWords(), func(_, lo, hi int) { b.ClearRange(lo, hi) })
		return b
	}
	return bitmask.New(n)
}

// spareAccumulators is spmv.NewAccumulators(n), its values left as a
// finished run's where it is one.
func spareAccumulators[A any](n int) []A {
	if y, ok := spareAccs.Get().(*[]A); ok && len(*y) == n {
		return *y
	}
	return spmv.NewAccumulators[A](n)
}

// releaseScratch gives the run's bitmasks and accumulators to the next
// run; the run is done with them.
func (c *cpuStepper[X, A]) releaseScratch() {
	for _, b := range []*bitmask.Bitmask{c.frontier, c.active, c.touched, c.want} {
		if b != nil {
			spareMasks.Put(b)
		}
	}
	c.frontier, c.active, c.touched, c.want = nil, nil, nil, nil
	if y := c.y; y != nil {
		spareAccs.Put(&y)
		c.y = nil
	}
}
