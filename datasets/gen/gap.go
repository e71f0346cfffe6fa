package gen

import (
	"fmt"
	"math"
	"sync"
	"sync/atomic"

	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/internal/par"
	"gonum.org/v1/gonum/mathext/prng"
)

// This file reproduces GAP's generator (the current gapbs src/generator.h,
// integer R-MAT thresholds, 32-bit NodeID): std::mt19937, reseeded every
// BlockEntries entries with seed+block, so any block can be generated on its
// own and the list does not depend on the thread count.

// BlockEntries is GAP's block_size: the entries generated from one
// seeding. Block b (entries [b·BlockEntries, (b+1)·BlockEntries)) draws
// from std::mt19937 seeded MTSeed(seed)+b (mod 2^32), from its first
// number: a Kronecker entry takes scale numbers, a uniform one two.
const BlockEntries = 1 << 18

// drawBatch is how many random numbers the generators take at a time.
const drawBatch = 2048

// Graph500 R-MAT quadrant thresholds on a raw 32-bit draw r, one draw a
// level, most significant bit first: r ≤ RMATA is the top-left quadrant,
// RMATA < r < RMATAB top-right, RMATAB ≤ r ≤ RMATABC bottom-left, else
// bottom-right (GAP's strict and non-strict comparisons). GAP computes
// them as uint32(p * 4294967295.0) in double precision, truncating:
// 0.57·(2^32-1) = 2448131358.15 and 0.19·(2^32-1) = 816043786.05, far
// enough from an integer that rounding cannot change them
// (TestRMATThresholds recomputes them).
const (
	RMATA   = 2448131358
	rmatB   = 816043786
	rmatC   = 816043786
	RMATAB  = RMATA + rmatB
	RMATABC = RMATA + rmatB + rmatC
)

// MTSeed reduces a 64-bit seed to the 32 bits std::mt19937 is seeded with.
// Seeds below 2^32 map to themselves, which is what lets GAPSeed reproduce
// GAP; the high half is folded in so that it is not silently ignored.
func MTSeed(seed uint64) uint32 { return uint32(seed) ^ uint32(seed>>32) }

// GAPGraph is one of GAP's generated graphs, Kronecker (-g) or uniform
// (-u): what another implementation of the generators (the GPU's,
// cuda/gen) needs to make the one these functions make.
type GAPGraph struct {
	Uniform       bool
	Scale, Degree int
	Seed          uint64
}

// Entries is the graph's number of entries, degree·2^scale, or why its
// parameters are invalid (ErrInvalid).
func (g GAPGraph) Entries() (int, error) {
	if g.Uniform {
		return checkScaleDegree("Uniform", g.Scale, g.Degree)
	}
	return checkScaleDegree("Kronecker", g.Scale, g.Degree)
}

// Name is the name the generators give the graph.
func (g GAPGraph) Name() string {
	kind := "kronecker"
	if g.Uniform {
		kind = "uniform"
	}
	return fmt.Sprintf("%s scale=%d degree=%d seed=%d", kind, g.Scale, g.Degree, g.Seed)
}

// Kronecker returns GAP's Kronecker graph (-g scale -k degree): 2^scale
// vertices and degree·2^scale R-MAT entries with the Graph500 parameters
// A=0.57, B=0.19, C=0.19, whose vertex ids are then shuffled. With seed
// GAPSeed the list is the one GAP generates, entry for entry, when GAP is
// built with GCC's libstdc++ (the shuffle is std::shuffle, whose algorithm
// the C++ standard leaves to the library; the edge counts do not depend on
// it). Built with default options, scale 10 degree 16 has 10496 edges and
// scale 21 has 31,768,591, as GAP prints.
//
// N is always 2^scale. GAP instead sizes the graph as the largest id that
// occurs plus one, so where the shuffle maps isolated vertices to the top
// ids GAP reports fewer vertices (2,097,150 rather than 2,097,152 at
// scale 21); the edges are the same.
//
// Only 32 bits of seed are used, as with std::mt19937: the two halves are
// XORed, so seeds below 2^32 are used as they are.
func Kronecker(scale, degree int, seed uint64) (*datasets.EdgeList, error) {
	es, err := KroneckerStream(scale, degree, seed)
	if err != nil {
		return nil, err
	}
	return materialize(es), nil
}

// KroneckerStream is Kronecker as a stream (datasets.BuildStream): its
// blocks are made again each time they are read, so the list is never
// held (kron27's would be 17 GB).
func KroneckerStream(scale, degree int, seed uint64) (*datasets.EdgeStream, error) {
	m, err := checkScaleDegree("Kronecker", scale, degree)
	if err != nil {
		return nil, err
	}
	n := 1 << scale
	s := MTSeed(seed)
	// R-MAT concentrates edges on low ids; GAP relabels the vertices with
	// a random permutation so that id order carries no degree information.
	perm := make([]int32, n)
	for i := range perm {
		perm[i] = int32(i)
	}
	var rng mt19937
	rng.seed(s)
	shuffleLibstdcxx(perm, &rng)
	fill := func(rng *mt19937, src, dst []int32) {
		var buf [drawBatch]uint32
		per := drawBatch / scale // edges per batch of draws
		for e := 0; e < len(src); e += per {
			k := min(per, len(src)-e)
			draws := buf[:k*scale]
			rng.read(draws)
			for i := range k {
				// One draw per level picks the quadrant of the adjacency
				// matrix, most significant bit first: r ≤ A top-left,
				// A < r < A+B top-right, A+B ≤ r ≤ A+B+C bottom-left, else
				// bottom-right (GAP's strict and non-strict comparisons).
				// The bits are computed without branches, which the CPU
				// could only mispredict, as the draws are random.
				var u, v uint64
				for _, r32 := range draws[i*scale : (i+1)*scale] {
					r := uint64(r32)
					gtA := (RMATA - r) >> 63 // r > A
					geAB := (RMATAB - 1 - r) >> 63
					gtABC := (RMATABC - r) >> 63
					u = u<<1 | geAB
					v = v<<1 | gtA ^ geAB ^ gtABC
				}
				src[e+i], dst[e+i] = perm[u], perm[v]
			}
		}
	}
	return &datasets.EdgeStream{N: n, M: m, Name: GAPGraph{false, scale, degree, seed}.Name(),
		Blocks: func(fn func(lo int, src, dst []int32)) { inBlocks(m, s, fill, fn) }}, nil
}

// Uniform returns GAP's uniform random graph (-u scale -k degree): 2^scale
// vertices and degree·2^scale entries whose endpoints are independent and
// uniform. With seed GAPSeed it is GAP's list entry for entry; built with
// default options, scale 10 degree 16 has 16125 edges and scale 21 has
// 33,554,153, as GAP prints. Seeds are reduced to 32 bits as for Kronecker.
func Uniform(scale, degree int, seed uint64) (*datasets.EdgeList, error) {
	es, err := UniformStream(scale, degree, seed)
	if err != nil {
		return nil, err
	}
	return materialize(es), nil
}

// UniformStream is Uniform as a stream (see KroneckerStream).
func UniformStream(scale, degree int, seed uint64) (*datasets.EdgeStream, error) {
	m, err := checkScaleDegree("Uniform", scale, degree)
	if err != nil {
		return nil, err
	}
	n := 1 << scale
	// GAP's UniDist maps a draw to [0, n) by rejection and modulo; for a
	// power-of-two n no draw is ever rejected and the modulo keeps the low
	// scale bits, so a mask is the same function.
	mask := uint32(n - 1)
	fill := func(rng *mt19937, src, dst []int32) {
		var buf [drawBatch]uint32
		const per = drawBatch / 2
		for e := 0; e < len(src); e += per {
			k := min(per, len(src)-e)
			draws := buf[:2*k]
			rng.read(draws)
			for i := range k {
				// GAP writes Edge(udist(), udist()); C++ leaves the order
				// of the two calls open and GCC makes the right one
				// first, so the first draw is the destination. (The
				// undirected graph is the same either way; the list is
				// GAP's only in this order.)
				dst[e+i] = int32(draws[2*i] & mask)
				src[e+i] = int32(draws[2*i+1] & mask)
			}
		}
	}
	s := MTSeed(seed)
	return &datasets.EdgeStream{N: n, M: m, Name: GAPGraph{true, scale, degree, seed}.Name(),
		Blocks: func(fn func(lo int, src, dst []int32)) { inBlocks(m, s, fill, fn) }}, nil
}

// materialize makes a stream's list.
func materialize(es *datasets.EdgeStream) *datasets.EdgeList {
	src, dst := make([]int32, es.M), make([]int32, es.M)
	es.Blocks(func(lo int, s, d []int32) {
		copy(src[lo:], s)
		copy(dst[lo:], d)
	})
	return &datasets.EdgeList{N: es.N, Src: src, Dst: dst, Directed: es.Directed, Name: es.Name}
}

// inBlocks makes the m entries in BlockEntries-sized blocks, block b with a
// generator seeded seed+b, on all cores, and hands each to use as it is
// made. Blocks are taken dynamically; since each block reseeds, the
// assignment does not affect the entries. (par.Blocks is not used: it
// splits by worker, not by GAP's blocks.)
func inBlocks(m int, seed uint32, fill func(rng *mt19937, src, dst []int32), use func(lo int, src, dst []int32)) {
	blocks := (m + BlockEntries - 1) / BlockEntries
	workers := min(par.Workers(), blocks)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := new(mt19937)
			src, dst := make([]int32, BlockEntries), make([]int32, BlockEntries)
			for {
				b := int(next.Add(1) - 1)
				if b >= blocks {
					return
				}
				// uint32 arithmetic: std::mt19937 takes the seed mod 2^32.
				rng.seed(seed + uint32(b))
				lo := b * BlockEntries
				k := min(BlockEntries, m-lo)
				fill(rng, src[:k], dst[:k])
				use(lo, src[:k], dst[:k])
			}
		}()
	}
	wg.Wait()
}

// shuffleLibstdcxx permutes p as GCC's libstdc++ (GCC 11 and later)
// implements std::shuffle with a 32-bit generator (shuffleTargets).
func shuffleLibstdcxx(p []int32, rng *mt19937) {
	shuffleTargets(len(p), rng, func(lo int, j []int32) {
		for k, t := range j {
			p[lo+k], p[t] = p[t], p[lo+k]
		}
	})
}

// ShuffleTargets returns the swaps of GAP's shuffle of n vertex ids, seeded
// as Kronecker is: element i is swapped with element j[i] ≤ i, for i from
// 1 to n-1 in turn (j[0] is 0), starting from the identity; Kronecker's id
// u is then the element at place u. They let another implementation (the
// GPU's) apply the swaps its own way: drawing them is one sequential
// stream of random numbers.
func ShuffleTargets(n int, seed uint64) []int32 {
	j := make([]int32, max(n, 1))
	var rng mt19937
	rng.seed(MTSeed(seed))
	shuffleTargets(n, &rng, func(lo int, t []int32) { copy(j[lo:], t) })
	return j[:n]
}

// shuffleTargets hands emit, in order and in batches, the swaps libstdc++
// makes for std::shuffle of n elements (rng is read ahead: it ends past
// the numbers the shuffle used): element lo+k with element j[k] ≤
// lo+k, for the elements 1 to n-1. The standard fixes only that the result
// is uniform, so this is the one way to get GAP's vertex labels:
// Fisher-Yates from the front, and while n² fits in the generator's range,
// two swap positions from a single draw over their product range.
func shuffleTargets(n int, rng *mt19937, emit func(lo int, j []int32)) {
	var buf [4096]int32
	k, lo := 0, 1
	flush := func() {
		emit(lo, buf[:k])
		lo += k
		k = 0
	}
	if n > 0 && math.MaxUint32/uint64(n) >= uint64(n) {
		i := 1
		if n%2 == 0 {
			// An odd number of positions remains to pair up: the first
			// is drawn alone.
			buf[k] = int32(boundedLibstdcxx(rng, 2))
			k++
			i++
		}
		for i < n {
			if k+2 > len(buf) {
				flush()
			}
			b0 := uint32(i) + 1 // positions [0, i] for element i
			b1 := b0 + 1        // positions [0, i+1] for element i+1
			x := boundedLibstdcxx(rng, b0*b1)
			buf[k], buf[k+1] = int32(x/b1), int32(x%b1)
			k += 2
			i += 2
		}
	} else {
		// boundedLibstdcxx's draws, a batch at a time (a call per number
		// took twice as long)
		var draws [mtN]uint32
		next := len(draws)
		for i := 1; i < n; i++ {
			if k == len(buf) {
				flush()
			}
			r := uint32(i) + 1
			var p uint64
			for {
				if next == len(draws) {
					rng.read(draws[:])
					next = 0
				}
				p = uint64(draws[next]) * uint64(r)
				next++
				if low := uint32(p); low >= r || low >= -r%r {
					break
				}
			}
			buf[k] = int32(p >> 32)
			k++
		}
	}
	if k > 0 {
		flush()
	}
}

// boundedLibstdcxx returns a uniform value in [0, r), r ≥ 1, the way
// libstdc++'s uniform_int_distribution does for a 32-bit generator (GCC 11
// and later): Lemire's multiply-and-shift, rejecting the biased low parts.
func boundedLibstdcxx(rng *mt19937, r uint32) uint32 {
	p := uint64(rng.uint32()) * uint64(r)
	if low := uint32(p); low < r {
		threshold := -r % r
		for low < threshold {
			p = uint64(rng.uint32()) * uint64(r)
			low = uint32(p)
		}
	}
	return uint32(p >> 32)
}

// SourceDraws draws vertices in [0, n) as GAP's SourcePicker does
// (gapbs src/benchmark.h): its UniDist<NodeID> (src/generator.h) over
// std::mt19937_64 seeded with kRandSeed (GAPSeed), with NodeID 32 bits:
// each draw is the low 32 bits of the generator's next output, drawn
// again at or above a cutoff, then taken modulo n. (Earlier versions of
// GAP picked with std::mt19937 and std::uniform_int_distribution.)
type SourceDraws struct {
	rng         *prng.MT19937_64
	mod, cutoff uint32
}

// NewSourceDraws starts the draws over [0, n), n ≥ 1.
func NewSourceDraws(seed uint64, n uint32) *SourceDraws {
	// (UniDist's arithmetic: the generator's max, 2^64-1, modulo n, and
	// the cutoff computed in 64 bits and kept in 32, as its fields are)
	const top = math.MaxUint64
	r := uint32(uint64(top) % uint64(n))
	cutoff := uint32(0)
	if r != n-1 {
		cutoff = uint32(uint64(top) - uint64(r))
	}
	rng := prng.NewMT19937_64()
	rng.Seed(seed)
	return &SourceDraws{rng: rng, mod: n, cutoff: cutoff}
}

// Next is the next draw.
func (s *SourceDraws) Next() uint32 {
	x := uint32(s.rng.Uint64())
	for s.cutoff != 0 && x >= s.cutoff {
		x = uint32(s.rng.Uint64())
	}
	return x % s.mod
}
