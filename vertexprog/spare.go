package vertexprog

import (
	"sync"

	"github.com/hpgraph/hpgraph/bitmask"
	"github.com/hpgraph/hpgraph/internal/par"
)

// A CPU run's bitmasks come from a finished run's where one is spare,
// not from new memory. A graph's arrays are most of the heap, so the
// runtime collects seldom (three times in 24 kron20 SSSP queries) and a
// run's new arrays were memory fresh from the system, faulted in page by
// page: a BFS's four bitmasks of 2M bits, 1 MB a query. Reused, kron21's
// BFS at GAP's 16 sources on the H200 host's 16 threads took 8.3 -> 7.5
// ms a query, urand21's 12.8 -> 11.2 (session 46). The pool holds the
// bitmasks of any run (a collection may drop them); one of another size
// is left to the collector. (The accumulators, pooled alike, saved SSSP
// nothing and made triangle counting 30% slower, kron20 on two cores and
// kron21 on the H200 host's sixteen: not pooled.)
var spareMasks sync.Pool

// newMask is a clear bitmask of n bits.
func newMask(n int) *bitmask.Bitmask {
	if b, ok := spareMasks.Get().(*bitmask.Bitmask); ok && b.Len() == n {
		par.Blocks(b.NumWords(), func(_, lo, hi int) { b.ClearRange(lo, hi) })
		return b
	}
	return bitmask.New(n)
}

// releaseMasks gives the run's bitmasks to the next run; the run is
// done with them.
func (c *cpuStepper[X, A]) releaseMasks() {
	for _, b := range []*bitmask.Bitmask{c.frontier, c.active, c.touched, c.want} {
		if b != nil {
			spareMasks.Put(b)
		}
	}
	c.frontier, c.active, c.touched, c.want = nil, nil, nil, nil
}
