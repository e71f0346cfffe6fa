package vertexprog

import (
	"math/rand/v2"
	"sync/atomic"

	"github.com/hpgraph/hpgraph/internal/par"
	"github.com/hpgraph/hpgraph/internal/relaxed"
	"github.com/hpgraph/hpgraph/vertexprog/driver"
)

// The CPU engine's union-find path for programs that declare
// Spec.Components: Afforest (Sutton, Ben-Nun and Barak, 2018; GAP's cc),
// on all cores, over the rows of a symmetric matrix. It links two
// neighbours of every vertex, compresses, finds the largest component
// from a sample of the labels, links the other neighbours of every vertex
// outside it, and compresses again: the vertices of the largest
// component (most of a power-law graph's) skip most of their edges.
// Label propagation instead passes over every edge once a superstep,
// for as many supersteps as the largest component's diameter.

// afNeighbourRounds and afSamples are Afforest's two neighbours linked
// first and the labels sampled for the largest component (GAP's values).
const (
	afNeighbourRounds = 2
	afSamples         = 1024
	afChunk           = 16384 // (vertices a claim: GAP's dynamic schedule)
	// afRoundChunk is the rows a claim in the neighbour rounds on more
	// than two workers (session 45; see linkRows).
	afRoundChunk = 2048
	// afLineEntries is a cache line of column entries (int32): the
	// average row length from which the rounds read a claim's ends first.
	afLineEntries = 16
)

// hostComponents labels the components of the graph whose symmetric
// adjacency rows are rowPtr and col: comp[v] becomes the smallest vertex
// id of v's component (a link hooks the larger of two roots under the
// smaller). It returns its passes over the vertices that link edges.
func hostComponents(rowPtr []int64, col []int32, comp []int32) int {
	passes, _ := linkRows(rowPtr, col, comp, true)
	return passes
}

// linkRows is hostComponents that returns the label whose vertices
// skipped their edges (giant), or, with skip false, links every edge
// (giant -1). A part's rows hold only one end's row of an edge between
// parts, so a skipped edge there is linked from its other end only where
// that end is outside its own part's giant (components_parts.go).
func linkRows(rowPtr []int64, col []int32, comp []int32, skip bool) (passes int, giant int32) {
	n := len(comp)
	if n == 0 {
		return 0, -1
	}
	par.Blocks(n, func(_, lo, hi int) {
		for v := lo; v < hi; v++ {
			comp[v] = int32(v)
		}
	})
	// Afforest links each row's first neighbour, compresses, then its
	// second. On one or two workers both are linked in one pass, which
	// reads each row's line of col (a miss a row) once and saves a
	// compress: kron21 one thread 221 -> 185 ms. On more, the trees the
	// concurrent links grow without the compress between take longer
	// finds: 16 threads 20.2-21.3 -> 27.6-29.3 ms, 8 threads 34.3-35.3 ->
	// 39.8-41.0 (H200 host, session 30). The labels are the same either
	// way: links of the same edges make the same sets in any order, and a
	// compress leaves every vertex at its set's smallest vertex.
	//
	// The rounds on more workers take claims of afRoundChunk rows, not
	// afChunk's: a row there is one link, and 128 claims of 16384 rows
	// on 16 workers (kron21) left some waiting at a round's end; their
	// loop reads a row's r-th entry by index (a range over a subslice of
	// the row bounded by its end, as before, was slower). Measured
	// (session 45, the H200 host's 16 threads, a harness timing this
	// function beside copies of it in one process, medians of 15, three
	// rounds): kron21 13.0-14.0 -> 12.0-12.9 ms, urand21 13.1-13.6 ->
	// 11.2-11.7, grid1000 1.9-2.1 -> 1.9-2.0; `bench --algo cc` against
	// GAP's cc in the same call, kron21 1.36 -> 1.11x GAP, urand21 1.18
	// -> 0.92x. Tried there, not kept: GAP's link in the first round
	// (the larger root hooked under the other end as it is, no climb to
	// that end's root): kron21 and urand21 a further 3-5%, grid1000
	// 2.1-2.3 -> 2.6-3.1 ms (the compress after it climbs the chains it
	// leaves).
	//
	// (one worker: the links on this goroutine alone, by plain stores;
	// each link site tests serial itself: a join held in a func value,
	// called indirectly, made grid1000's one-core CC 10.2-10.6 ->
	// 11.9-14.2 ms, session 39)
	serial := par.Workers() == 1
	chunks := func(fn func(w, lo, hi int)) {
		if serial {
			fn(0, 0, n)
		} else {
			par.Chunks(n, afChunk, fn)
		}
	}
	fused := par.Workers() <= 2 // (both neighbours in one pass)
	if fused {
		chunks(func(_, lo, hi int) {
			for v := lo; v < hi; v++ {
				for e, end := rowPtr[v], min(rowPtr[v]+afNeighbourRounds, rowPtr[v+1]); e < end; e++ {
					if p1, p2 := atomic.LoadInt32(&comp[v]), atomic.LoadInt32(&comp[col[e]]); p1 != p2 {
						if serial {
							afJoinSerial(comp, p1, p2)
						} else {
							afJoin(comp, p1, p2)
						}
					}
				}
			}
		})
		afCompress(comp)
	} else {
		// (a row's r-th entry, where it has one; claims of afRoundChunk
		// rows.) Where rows average a cache line of entries or more, a
		// claim's ends are read first and joined after: a join's
		// compare-and-swap, a locked instruction, holds the loads behind
		// it until it is done, so joined row by row each row's misses, its
		// entry and its neighbour's label, waited for the last row's join,
		// one row's misses at a time; read first, a claim's misses
		// overlap and its joins find most labels they climb in cache. The
		// host's 16 threads, against joins row by row (session 50, three
		// alternations): kron21 12.1-12.7 against 13.2-14.3 ms, urand21
		// 13.0-14.0 against 13.7-15.3. Where rows are shorter, one line of
		// entries serves several rows and their neighbours lie near
		// (grid1000's four): fewer misses to overlap, and the pass over
		// the ends cost grid1000 2.34-2.41 ms against 2.15-2.20.
		readFirst := rowPtr[n]-rowPtr[0] >= afLineEntries*int64(n)
		pairs := make([][]int32, par.Workers())
		for r := range int64(afNeighbourRounds) {
			par.Chunks(n, afRoundChunk, func(w, lo, hi int) {
				if !readFirst {
					for v := lo; v < hi; v++ {
						if e := rowPtr[v] + r; e < rowPtr[v+1] {
							if p1, p2 := atomic.LoadInt32(&comp[v]), atomic.LoadInt32(&comp[col[e]]); p1 != p2 {
								afJoin(comp, p1, p2)
							}
						}
					}
					return
				}
				ps := pairs[w][:0]
				for v := lo; v < hi; v++ {
					if e := rowPtr[v] + r; e < rowPtr[v+1] {
						if p1, p2 := atomic.LoadInt32(&comp[v]), atomic.LoadInt32(&comp[col[e]]); p1 != p2 {
							ps = append(ps, p1, p2)
						}
					}
				}
				for i := 0; i+1 < len(ps); i += 2 {
					afJoin(comp, ps[i], ps[i+1])
				}
				pairs[w] = ps
			})
			afCompress(comp)
		}
	}
	giant = -1 // (no vertex's label)
	if skip {
		giant = afLargest(comp)
	}
	chunks(func(_, lo, hi int) {
		for v := lo; v < hi; v++ {
			if atomic.LoadInt32(&comp[v]) == giant {
				continue
			}
			for i := rowPtr[v] + afNeighbourRounds; i < rowPtr[v+1]; i++ {
				if p1, p2 := atomic.LoadInt32(&comp[v]), atomic.LoadInt32(&comp[col[i]]); p1 != p2 {
					if serial {
						afJoinSerial(comp, p1, p2)
					} else {
						afJoin(comp, p1, p2)
					}
				}
			}
		}
	})
	afCompress(comp)
	if fused {
		return 2, giant
	}
	return afNeighbourRounds + 1, giant
}

// afLink joins the trees of u and v (afJoin) where their parents
// differ. linkRows' loops make the same test inline (afLink is past Go's
// inlining budget): most links of the later passes find both ends in one
// tree, and a call an edge cost grid1000's CC 10% on one core, kron20's
// and urand20's 5-8% on two (session 32).
func afLink(comp []int32, u, v int32) {
	if p1, p2 := atomic.LoadInt32(&comp[u]), atomic.LoadInt32(&comp[v]); p1 != p2 {
		afJoin(comp, p1, p2)
	}
}

// afJoin joins the trees of the vertices whose parents are p1 and p2:
// the larger root hooks under the smaller end's root (a vertex's pointer
// only ever goes down in id, so that root is below the hooked one), by
// compare-and-swap, retried until both lie in one tree. Hooked under the
// root, not the end, the trees stay flat where links run ahead of one
// another on several cores (grid1000 on two cores 8.0 -> 6.6 ms, GAP's
// 6.3; urand20 14.0 -> 12.9, one core 27.6 -> 24.1; grid1000 on one
// core 9.5 -> 9.9; session 32). On its way up it halves the path: a vertex
// passed over is pointed at its grandparent, by a relaxed store (a vertex
// that is no root only ever moves to another of its ancestors, so a
// halving that lands before or after another's leaves a valid forest,
// and no root's hook is undone; as afCompress's store: a
// compare-and-swap's lock there cost 16 threads grid1000 3.20 -> 2.79 ms,
// urand21 20.7 -> 19.6, kron21 18.7 -> 19.4, session 43). Afforest's
// second round otherwise climbs the chains its own hooks made: urand21's
// second neighbours took 8.8M climbs for 32K hooks, 100 ms on one core;
// halved, 35 ms (session 32).
func afJoin(comp []int32, p1, p2 int32) {
	for p1 != p2 {
		high, low := max(p1, p2), min(p1, p2)
		pHigh := atomic.LoadInt32(&comp[high])
		if pHigh == low {
			return
		}
		if pHigh == high {
			for up := atomic.LoadInt32(&comp[low]); up != low; up = atomic.LoadInt32(&comp[low]) {
				low = up
			}
			if atomic.CompareAndSwapInt32(&comp[high], high, low) {
				return
			}
		}
		up := atomic.LoadInt32(&comp[pHigh])
		if up != pHigh {
			relaxed.StoreInt32(&comp[high], up)
		}
		p1, p2 = up, atomic.LoadInt32(&comp[low])
	}
}

// afJoinSerial is afJoin on one worker, alone on comp: plain loads and
// stores where afJoin's compare-and-swaps, each a locked instruction,
// took a third of grid1000's CC on one core.
func afJoinSerial(comp []int32, p1, p2 int32) {
	for p1 != p2 {
		high, low := max(p1, p2), min(p1, p2)
		pHigh := comp[high]
		if pHigh == low {
			return
		}
		if pHigh == high {
			for up := comp[low]; up != low; up = comp[low] {
				low = up
			}
			comp[high] = low
			return
		}
		up := comp[pHigh]
		comp[high] = up // (halving: a no-op where pHigh is a root)
		p1, p2 = up, comp[low]
	}
}

// afCompress points every vertex at its tree's root. A vertex climbs by
// loads alone and is written once, at the end: a write in the climb is a
// locked exchange (atomic.StoreInt32), a barrier an edge of the path, and
// a grid's first round leaves paths where chunks link ahead of their
// neighbours above (grid1000 on 2 cores: 2.25M steps, up to 15 a vertex,
// none on one; its first compress 2.6-3.4 ms against 0.4-0.5). That
// write is a relaxed store, as GAP's plain one: a vertex that is no root
// only ever moves to another of its ancestors, so a store that lands
// before or after another's link or halving leaves a valid forest, and
// the exchange's barrier a vertex cost the whole CC 10-15% on the GPU
// machine's 16 cores (kron21 17.0-18.9 -> 15.1-16.9 ms, urand21
// 19.3-20.1 -> 16.9-18.3, grid1000 2.64-2.74 -> 2.13-2.35; session 33).
func afCompress(comp []int32) {
	par.Chunks(len(comp), afChunk, func(_, lo, hi int) {
		for v := lo; v < hi; v++ {
			c := atomic.LoadInt32(&comp[v])
			r := c
			for {
				up := atomic.LoadInt32(&comp[r])
				if up == r {
					break
				}
				r = up
			}
			if r != c {
				relaxed.StoreInt32(&comp[v], r)
			}
		}
	})
}

// afLargest is the most frequent label of a fixed sample of the vertices
// (the smallest of those that tie): most likely the largest component's.
func afLargest(comp []int32) int32 {
	rng := rand.New(rand.NewPCG(27491, 95))
	count := map[int32]int{}
	best, bestN := int32(0), 0
	for range afSamples {
		l := comp[rng.IntN(len(comp))]
		count[l]++
		if c := count[l]; c > bestN || c == bestN && l < best {
			best, bestN = l, c
		}
	}
	return best
}

// linkForest links every vertex v of the forest comp with its label in
// another forest over the same vertices, then compresses: comp's trees
// become the components of the union of the two forests' graphs. Only
// the vertices of spans are read: outside them other is the identity
// (driver.Part.Arcs; nil spans: every vertex).
func linkForest(comp, other []int32, spans []driver.Span) {
	if spans == nil {
		spans = []driver.Span{{Lo: 0, Hi: int32(len(comp))}}
	}
	for _, s := range spans {
		par.Blocks(int(s.Hi-s.Lo), func(_, lo, hi int) {
			for v := s.Lo + int32(lo); v < s.Lo+int32(hi); v++ {
				if u := other[v]; u != v {
					afLink(comp, v, u)
				}
			}
		})
	}
	afCompress(comp)
}
