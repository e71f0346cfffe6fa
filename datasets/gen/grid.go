package gen

import (
	"fmt"
	"math/bits"

	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/internal/par"
)

// Grid returns the rows×cols 4-neighbour lattice: vertex r·cols+c is joined
// to its right and lower neighbours, giving rows·(cols-1)+(rows-1)·cols
// edges, no loops or repeats, and diameter rows+cols-2 (1000×1000: 10^6
// vertices, 1,998,000 edges, diameter 1998).
func Grid(rows, cols int) (*datasets.EdgeList, error) {
	n, err := checkLattice("Grid", rows, cols)
	if err != nil {
		return nil, err
	}
	m := latticeEdges(rows, cols)
	src, dst := make([]int32, m), make([]int32, m)
	// Row r owns entries [r·(2cols-1), ...): its cols-1 horizontal edges,
	// then (except the last row) its cols vertical ones, so rows fill
	// independently.
	par.Blocks(rows, func(_, lo, hi int) {
		for r := lo; r < hi; r++ {
			e := r * (2*cols - 1)
			base := int32(r * cols)
			for c := int32(0); c < int32(cols)-1; c++ {
				src[e], dst[e] = base+c, base+c+1
				e++
			}
			if r == rows-1 {
				continue
			}
			for c := int32(0); c < int32(cols); c++ {
				src[e], dst[e] = base+c, base+c+int32(cols)
				e++
			}
		}
	})
	return &datasets.EdgeList{N: n, Src: src, Dst: dst, Name: fmt.Sprintf("grid %dx%d", rows, cols)}, nil
}

// latticeEdges is the edge count of the rows×cols grid. It is below 2^32
// for any lattice checkLattice accepts, so edges can be numbered in uint32.
func latticeEdges(rows, cols int) int { return rows*(cols-1) + (rows-1)*cols }

// latticeEdge returns the endpoints of grid edge e: edges [0, rows·(cols-1))
// are horizontal, numbered row by row, and the rest vertical.
func latticeEdge(e, rows, cols int) (int32, int32) {
	h := rows * (cols - 1)
	if e < h {
		r, c := e/(cols-1), e%(cols-1)
		u := int32(r*cols + c)
		return u, u + 1
	}
	u := int32(e - h)
	return u, u + int32(cols)
}

// Road returns a road-like graph on the rows×cols lattice: sparse, of
// degree at most 4, connected, and of high diameter, like the DIMACS road
// networks GAP uses (average degree about 2.4, diameter in the thousands).
//
// The grid's edges are visited in a seeded random order; an edge that joins
// two parts not yet connected is kept (Kruskal's algorithm on random
// weights, so the kept edges include a random spanning tree and the graph
// is connected), and any other edge is kept with probability extra. The
// result has rows·cols-1 tree edges plus about extra times the remaining
// rows·cols-rows-cols+1, an average degree near 2+2·extra: extra=0 gives a
// random spanning tree (a maze, of very high diameter), extra=1 the full
// grid, and extra≈0.2 the degree of a real road network. At 1000×1000,
// extra=0.2 gives average degree 2.40, 16% dead ends (degree 1) and
// diameter about 2040; extra=0 gives diameter about 9850.
//
// With shuffle, vertex ids are a seeded random permutation of the lattice
// positions, so that id order carries no locality (as in a graph whose ids
// were assigned arbitrarily); without it vertex r·cols+c is at (r, c), as in
// Grid, and neighbours have nearby ids, as in road networks distributed in
// geographic order.
//
// The random stream is this package's own (splitmix64), so the graph is the
// same on every platform and Go release. Road runs on one core: time and
// memory are linear (about 16 bytes per vertex beyond the output).
func Road(rows, cols int, seed uint64, extra float64, shuffle bool) (*datasets.EdgeList, error) {
	n, err := checkLattice("Road", rows, cols)
	if err != nil {
		return nil, err
	}
	if !(extra >= 0 && extra <= 1) {
		return nil, invalid("Road: extra %v is outside [0, 1]", extra)
	}
	rng := splitMix{seed}
	m := latticeEdges(rows, cols)
	order := make([]uint32, m)
	for i := range order {
		order[i] = uint32(i)
	}
	for i := m - 1; i > 0; i-- {
		j := rng.below(uint64(i) + 1)
		order[i], order[j] = order[j], order[i]
	}

	parent := make([]int32, n)
	for i := range parent {
		parent[i] = int32(i)
	}
	find := func(x int32) int32 {
		for parent[x] != x {
			parent[x] = parent[parent[x]] // path halving
			x = parent[x]
		}
		return x
	}
	keep := make([]uint64, (m+63)/64)
	kept := 0
	for _, e := range order {
		u, v := latticeEdge(int(e), rows, cols)
		ru, rv := find(u), find(v)
		if ru != rv {
			parent[ru] = rv
		} else if rng.float64() >= extra {
			continue
		}
		keep[e/64] |= 1 << (e % 64)
		kept++
	}
	parent, order = nil, nil // free before the output is allocated

	var perm []int32
	if shuffle {
		perm = make([]int32, n)
		for i := range perm {
			perm[i] = int32(i)
		}
		for i := n - 1; i > 0; i-- {
			j := rng.below(uint64(i) + 1)
			perm[i], perm[j] = perm[j], perm[i]
		}
	}
	src, dst := make([]int32, 0, kept), make([]int32, 0, kept)
	for w, word := range keep {
		for word != 0 {
			e := w*64 + bits.TrailingZeros64(word)
			word &= word - 1
			u, v := latticeEdge(e, rows, cols)
			if perm != nil {
				u, v = perm[u], perm[v]
			}
			src, dst = append(src, u), append(dst, v)
		}
	}
	name := fmt.Sprintf("road %dx%d extra=%g seed=%d", rows, cols, extra, seed)
	if shuffle {
		name += " shuffled"
	}
	return &datasets.EdgeList{N: n, Src: src, Dst: dst, Name: name}, nil
}

// splitMix is the splitmix64 generator: tiny, fast, and fully specified
// here, so Road's output cannot change with the Go release.
type splitMix struct{ s uint64 }

func (r *splitMix) next() uint64 {
	r.s += 0x9e3779b97f4a7c15
	z := r.s
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// below returns a uniform value in [0, n), n ≥ 1 (Lemire's method).
func (r *splitMix) below(n uint64) uint64 {
	hi, lo := bits.Mul64(r.next(), n)
	if lo < n {
		threshold := -n % n
		for lo < threshold {
			hi, lo = bits.Mul64(r.next(), n)
		}
	}
	return hi
}

// float64 returns a uniform value in [0, 1) with 53 random bits.
func (r *splitMix) float64() float64 { return float64(r.next()>>11) / (1 << 53) }
