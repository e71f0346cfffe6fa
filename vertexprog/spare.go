package vertexprog

import (
	"sync"

	"github.com/hpgraph/hpgraph/bitmask"
	"github.com/hpgraph/hpgraph/internal/par"
	"github.com/hpgraph/hpgraph/spmv"
)

// spares holds a graph's finished CPU runs' bitmasks, vertex lists,
// delta-stepping buckets and accumulators for its next runs, so that a
// run takes none of them from new memory.
//
// A graph's arrays are most of the heap, so the runtime collects seldom
// (three times in 24 kron20 SSSP queries) and a run's new arrays were
// memory fresh from the system, faulted in page by page: a BFS's four
// bitmasks of 2M bits, 1 MB a query. Pooled (sync.Pool), kron21's BFS at
// GAP's 16 sources on the H200 host's 16 threads took 8.3 -> 7.5 ms a
// query, urand21's 12.8 -> 11.2 (session 46). But a collection empties a
// sync.Pool, and the lists then grew again from nothing, on memory the
// runtime had given back to the system: on the host, 7 of 40 urand21 BFS
// runs from one source took ~2,700 page faults in their largest
// superstep, which then took 10.1-12.7 ms against 4.3-6.2 (session 49).
// Held by the graph, they live as long as it does, and the next run's
// lists have the capacity the last ones grew to: urand21's BFS at GAP's
// 16 sources, 16 threads, its slowest query 9.3-14.4 ms against
// 17.4-23.3, the median of five rounds 9.93 against 10.37. The graph
// keeps at most spareRuns runs' (concurrent runs on one graph: serve's);
// more go to the collector, as do bitmasks of another size. (The
// accumulators, pooled in session 46, made triangle counting 30% slower:
// an orientation's arrays took the memory advised for huge pages that
// they had left, until those were made by huge.Make too. Kept here,
// kron21's at 16 threads took 3,686-3,858 ms against 3,520-3,903
// without, session 49.)
type spares struct {
	mu    sync.Mutex
	masks []*bitmask.Bitmask
	lists []stepLists
	rings []ringSet
	accs  []any // []A of runs' accumulators
}

// ringSet is delta-stepping's buckets (deltaBuckets' rings, opened and
// far), one a worker. A run files every vertex it lowers into them: on
// urand20's SSSP, sixteen workers' slots grown from nothing took 38 MB
// of new memory a query.
type ringSet struct {
	rings  [][][]int32
	opened [][]int64
	far    [][]int32
}

// spareRuns is the most runs' scratch a graph keeps (a run's four
// bitmasks, lists, buckets and accumulators).
const spareRuns = 4

// take removes from s's list the last entry that fits and returns it
// (ok false: none fits).
func take[T any](s *spares, list *[]T, fits func(T) bool) (t T, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	l := *list
	for i := len(l) - 1; i >= 0; i-- {
		if fits(l[i]) {
			t = l[i]
			*list = append(l[:i], l[i+1:]...)
			return t, true
		}
	}
	return t, false
}

// keep adds t to s's list where it holds fewer than most.
func keep[T any](s *spares, list *[]T, t T, most int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(*list) < most {
		*list = append(*list, t)
	}
}

// newMask is a clear bitmask of n bits, a spare one where s holds one
// (s may be nil).
func (s *spares) newMask(n int) *bitmask.Bitmask {
	if s != nil {
		if b, ok := take(s, &s.masks, func(b *bitmask.Bitmask) bool { return b.Len() == n }); ok {
			par.Blocks(b.NumWords(), func(_, lo, hi int) { b.ClearRange(lo, hi) })
			return b
		}
	}
	return bitmask.New(n)
}

// newLists is p workers' vertex lists, a finished run's where s holds
// some (s may be nil).
func (s *spares) newLists(p int) stepLists {
	if s != nil {
		if b, ok := take(s, &s.lists, func(b stepLists) bool { return len(b.lists) == p }); ok {
			return b
		}
	}
	return stepLists{lists: make([][]int32, p), rows: make([][]int32, p), kept: make([][]int32, p)}
}

// newAccumulators is n accumulators of type A (spmv.NewAccumulators),
// not set to anything, a finished run's where s holds some (s may be
// nil).
func newAccumulators[A any](s *spares, n int) []A {
	if s != nil {
		if y, ok := take(s, &s.accs, func(y any) bool { a, ok := y.([]A); return ok && len(a) == n }); ok {
			return y.([]A)
		}
	}
	return spmv.NewAccumulators[A](n)
}

// newRings is p workers' delta-stepping buckets, empty, a finished
// run's where s holds some (s may be nil).
func (s *spares) newRings(p int) ringSet {
	if s != nil {
		if r, ok := take(s, &s.rings, func(r ringSet) bool { return len(r.rings) == p }); ok {
			return r
		}
	}
	return ringSet{rings: make([][][]int32, p), opened: make([][]int64, p), far: make([][]int32, p)}
}

// release gives the stepper's scratch, emptied, to the graph's next
// runs; the stepper is done.
func (c *cpuStepper[X, A]) release() {
	s := c.spare
	if s == nil {
		return
	}
	for _, b := range []*bitmask.Bitmask{c.frontier, c.active, c.touched, c.want} {
		if b != nil {
			keep(s, &s.masks, b, 4*spareRuns)
		}
	}
	c.frontier, c.active, c.touched, c.want = nil, nil, nil, nil
	b := c.stepLists
	for _, ls := range [][][]int32{b.lists, b.rows, b.kept} {
		for w := range ls {
			ls[w] = ls[w][:0]
		}
	}
	b.flat, b.queue = b.flat[:0], b.queue[:0]
	keep(s, &s.lists, b, spareRuns)
	c.stepLists = stepLists{}
	if c.y != nil {
		keep(s, &s.accs, any(c.y), spareRuns)
		c.y = nil
	}
	if d := c.delta; d != nil {
		d.empty()
		keep(s, &s.rings, ringSet{d.rings, d.opened, d.far}, spareRuns)
		d.rings, d.opened, d.far = nil, nil, nil
	}
}
