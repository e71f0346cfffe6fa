package gen

import (
	"fmt"
	"math"
	"sync"
	"sync/atomic"

	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/internal/par"
)

// This file reproduces GAP's generator (the current gapbs src/generator.h,
// integer R-MAT thresholds, 32-bit NodeID): std::mt19937, reseeded every
// gapBlock entries with seed+block, so any block can be generated on its
// own and the list does not depend on the thread count.

// gapBlock is GAP's block_size: entries generated from one seeding.
const gapBlock = 1 << 18

// drawBatch is how many random numbers the generators take at a time.
const drawBatch = 2048

// Graph500 R-MAT quadrant thresholds on a raw 32-bit draw. GAP computes
// them as uint32(p * 4294967295.0) in double precision, truncating:
// 0.57·(2^32-1) = 2448131358.15 and 0.19·(2^32-1) = 816043786.05, far
// enough from an integer that rounding cannot change them
// (TestRMATThresholds recomputes them).
const (
	rmatA   = 2448131358
	rmatB   = 816043786
	rmatC   = 816043786
	rmatAB  = rmatA + rmatB
	rmatABC = rmatA + rmatB + rmatC
)

// mtSeed reduces a 64-bit seed to the 32 bits std::mt19937 is seeded with.
// Seeds below 2^32 map to themselves, which is what lets GAPSeed reproduce
// GAP; the high half is folded in so that it is not silently ignored.
func mtSeed(seed uint64) uint32 { return uint32(seed) ^ uint32(seed>>32) }

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
	s := mtSeed(seed)
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
					gtA := (rmatA - r) >> 63 // r > A
					geAB := (rmatAB - 1 - r) >> 63
					gtABC := (rmatABC - r) >> 63
					u = u<<1 | geAB
					v = v<<1 | gtA ^ geAB ^ gtABC
				}
				src[e+i], dst[e+i] = perm[u], perm[v]
			}
		}
	}
	return &datasets.EdgeStream{N: n, M: m, Name: fmt.Sprintf("kronecker scale=%d degree=%d seed=%d", scale, degree, seed),
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
	s := mtSeed(seed)
	return &datasets.EdgeStream{N: n, M: m, Name: fmt.Sprintf("uniform scale=%d degree=%d seed=%d", scale, degree, seed),
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

// inBlocks makes the m entries in gapBlock-sized blocks, block b with a
// generator seeded seed+b, on all cores, and hands each to use as it is
// made. Blocks are taken dynamically; since each block reseeds, the
// assignment does not affect the entries. (par.Blocks is not used: it
// splits by worker, not by GAP's blocks.)
func inBlocks(m int, seed uint32, fill func(rng *mt19937, src, dst []int32), use func(lo int, src, dst []int32)) {
	blocks := (m + gapBlock - 1) / gapBlock
	workers := min(par.Workers(), blocks)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := new(mt19937)
			src, dst := make([]int32, gapBlock), make([]int32, gapBlock)
			for {
				b := int(next.Add(1) - 1)
				if b >= blocks {
					return
				}
				// uint32 arithmetic: std::mt19937 takes the seed mod 2^32.
				rng.seed(seed + uint32(b))
				lo := b * gapBlock
				k := min(gapBlock, m-lo)
				fill(rng, src[:k], dst[:k])
				use(lo, src[:k], dst[:k])
			}
		}()
	}
	wg.Wait()
}

// shuffleLibstdcxx permutes p as GCC's libstdc++ (GCC 11 and later)
// implements std::shuffle with a 32-bit generator. The standard fixes only
// that the result is uniform, so this is the one way to get GAP's vertex
// labels: Fisher-Yates from the front, and while n² fits in the generator's
// range, two swap positions from a single draw over their product range.
func shuffleLibstdcxx(p []int32, rng *mt19937) {
	n := uint64(len(p))
	if n == 0 {
		return
	}
	swap := func(i int, j uint32) { p[i], p[j] = p[j], p[i] }
	if math.MaxUint32/n >= n {
		i := 1
		if n%2 == 0 {
			// An odd number of positions remains to pair up: the first
			// is drawn alone.
			swap(i, boundedLibstdcxx(rng, 2))
			i++
		}
		for i < len(p) {
			b0 := uint32(i) + 1 // positions [0, i] for element i
			b1 := b0 + 1        // positions [0, i+1] for element i+1
			x := boundedLibstdcxx(rng, b0*b1)
			swap(i, x/b1)
			swap(i+1, x%b1)
			i += 2
		}
		return
	}
	for i := 1; i < len(p); i++ {
		swap(i, boundedLibstdcxx(rng, uint32(i)+1))
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

// Uniform32 draws uniform values in [0, n) exactly as GAP's
// std::uniform_int_distribution<NodeID>(0, n-1) does over
// std::mt19937(seed) with libstdc++: GAP's SourcePicker, seeded with
// GAPSeed, picks its BFS and SSSP sources this way.
type Uniform32 struct {
	rng mt19937
	n   uint32
}

// NewUniform32 starts the draws over [0, n), n ≥ 1.
func NewUniform32(seed uint32, n uint32) *Uniform32 {
	u := &Uniform32{n: n}
	u.rng.seed(seed)
	return u
}

// Next is the next draw.
func (u *Uniform32) Next() uint32 { return boundedLibstdcxx(&u.rng, u.n) }
