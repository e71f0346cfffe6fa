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
// 16 sources, 16 threads, its slowest query 9.3-11.7 ms against 16.9-23.3,
// the median 9.7-10.3 against 10.4-11.0. The graph keeps at most
// spareRuns runs' (concurrent runs on one graph: serve's); more go to the
// collector, as do bitmasks of another size. (The accumulators, pooled in
// session 46, made triangle counting 30% slower: an orientation's arrays
// took the memory advised for huge pages that they had left, until those
// were made by huge.Make too. Kept here, kron21's at 16 threads took
// 3,686-3,858 ms against 3,520-3,903 without, session 49.)
type spares struct {
	mu    sync.Mutex
	masks []*bitmask.Bitmask
	lists []*stepLists
	rings []*ringSet
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

// newMask is a clear bitmask of n bits, a spare one where s holds one
// (s may be nil).
func (s *spares) newMask(n int) *bitmask.Bitmask {
	if s != nil {
		s.mu.Lock()
		var b *bitmask.Bitmask
		for i := len(s.masks) - 1; i >= 0; i-- {
			if s.masks[i].Len() == n {
				b = s.masks[i]
				s.masks = append(s.masks[:i], s.masks[i+1:]...)
				break
			}
		}
		s.mu.Unlock()
		if b != nil {
			par.Blocks(b.NumWords(), func(_, lo, hi int) { b.ClearRange(lo, hi) })
			return b
		}
	}
	return bitmask.New(n)
}

// putMasks gives bs (nil ones skipped) to the next runs.
func (s *spares) putMasks(bs ...*bitmask.Bitmask) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, b := range bs {
		if b != nil && len(s.masks) < 4*spareRuns {
			s.masks = append(s.masks, b)
		}
	}
}

// newLists is p workers' vertex lists, a finished run's where s holds
// some (s may be nil).
func (s *spares) newLists(p int) stepLists {
	if s != nil {
		s.mu.Lock()
		defer s.mu.Unlock()
		for i := len(s.lists) - 1; i >= 0; i-- {
			if b := s.lists[i]; len(b.lists) == p {
				s.lists = append(s.lists[:i], s.lists[i+1:]...)
				return *b
			}
		}
	}
	return stepLists{lists: make([][]int32, p), rows: make([][]int32, p), kept: make([][]int32, p)}
}

// putLists gives b, emptied, to the next runs.
func (s *spares) putLists(b stepLists) {
	if s == nil {
		return
	}
	for _, ls := range [][][]int32{b.lists, b.rows, b.kept} {
		for w := range ls {
			ls[w] = ls[w][:0]
		}
	}
	b.flat, b.queue = b.flat[:0], b.queue[:0]
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.lists) < spareRuns {
		s.lists = append(s.lists, &b)
	}
}

// newAccumulators is n accumulators of type A (spmv.NewAccumulators),
// not set to anything, a finished run's where s holds some (s may be
// nil).
func newAccumulators[A any](s *spares, n int) []A {
	if s != nil {
		s.mu.Lock()
		for i := len(s.accs) - 1; i >= 0; i-- {
			if y, ok := s.accs[i].([]A); ok && len(y) == n {
				s.accs = append(s.accs[:i], s.accs[i+1:]...)
				s.mu.Unlock()
				return y
			}
		}
		s.mu.Unlock()
	}
	return spmv.NewAccumulators[A](n)
}

// putAccumulators gives y to the next runs.
func (s *spares) putAccumulators(y any) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.accs) < spareRuns {
		s.accs = append(s.accs, y)
	}
}

// newRings is p workers' delta-stepping buckets, empty, a finished
// run's where s holds some (s may be nil).
func (s *spares) newRings(p int) ringSet {
	if s != nil {
		s.mu.Lock()
		defer s.mu.Unlock()
		for i := len(s.rings) - 1; i >= 0; i-- {
			if r := s.rings[i]; len(r.rings) == p {
				s.rings = append(s.rings[:i], s.rings[i+1:]...)
				return *r
			}
		}
	}
	return ringSet{rings: make([][][]int32, p), opened: make([][]int64, p), far: make([][]int32, p)}
}

// putRings gives r, emptied, to the next runs.
func (s *spares) putRings(r ringSet) {
	if s == nil {
		return
	}
	for w, ring := range r.rings {
		for i := range ring {
			ring[i] = ring[i][:0]
		}
		r.opened[w], r.far[w] = r.opened[w][:0], r.far[w][:0]
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.rings) < spareRuns {
		s.rings = append(s.rings, &r)
	}
}

// release gives the stepper's scratch to the graph's next runs; the
// stepper is done.
func (c *cpuStepper[X, A]) release() {
	c.spare.putMasks(c.frontier, c.active, c.touched, c.want)
	c.frontier, c.active, c.touched, c.want = nil, nil, nil, nil
	c.spare.putLists(c.stepLists)
	c.stepLists = stepLists{}
	if c.y != nil {
		c.spare.putAccumulators(c.y)
		c.y = nil
	}
	if d := c.delta; d != nil {
		c.spare.putRings(ringSet{d.rings, d.opened, d.far})
		d.rings, d.opened, d.far = nil, nil, nil
	}
}
