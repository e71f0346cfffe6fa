// Package datasets owns everything between a graph on disk and the CSR in
// memory: Matrix Market and SNAP edge-list readers, the binary cache, the
// generators' output format, and the edge list → CSR build with its cleaning
// options (symmetrize, self loops, duplicates, weights).
//
// It knows nothing of HYB, the engine or any algorithm.
package datasets

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/hpgraph/hpgraph/internal/par"
)

// Vertex ids are int32 (graphs up to 2^31-1 vertices); edge offsets are
// int64 so the number of stored arcs is not limited by the id width.

// EdgeList is a graph as read from a file or made by a generator, before
// cleaning: one entry per line of the file (or per generated edge).
type EdgeList struct {
	// N is the number of vertices; every Src/Dst is in [0, N).
	N int
	// Src and Dst hold the entries; Src[i] -> Dst[i].
	Src, Dst []int32
	// W holds one weight per entry, or is nil when the input has none.
	W []float32
	// Directed is false when each entry stands for an undirected edge
	// (Matrix Market symmetric files, generators); Build then stores both
	// directions.
	Directed bool
	// IDs maps vertex v back to the id used in the input (edge lists with
	// sparse ids). When nil, the original id of v is v + IDBase.
	IDs []int64
	// IDBase is the original id of vertex 0 when IDs is nil (1 for Matrix
	// Market, the smallest id of an edge list whose ids are contiguous).
	IDBase int64
	// Name is the file the list came from, or the generator's description.
	Name string
}

// OriginalID returns the id that vertex v had in the input.
func (el *EdgeList) OriginalID(v int32) int64 {
	if el.IDs != nil {
		return el.IDs[v]
	}
	return int64(v) + el.IDBase
}

// WeightMode says where the graph's edge weights come from.
type WeightMode int

const (
	// WeightsKeep keeps the input's weights when it has them.
	WeightsKeep WeightMode = iota
	// WeightsNone drops weights (a pattern graph).
	WeightsNone
	// WeightsRandom assigns uniform integer weights in [WeightMin, WeightMax],
	// a function of the unordered pair {u, v} and Seed, so both directions of
	// an undirected edge get the same weight and the result does not depend
	// on the order of the input or the number of cores.
	WeightsRandom
)

// Options are the cleaning choices applied by Build. The zero value is the
// default of GAP and the Gunrock methodology: keep direction as declared by
// the input, drop self loops, merge duplicate edges, keep weights.
type Options struct {
	// Symmetrize treats a directed input as undirected.
	Symmetrize bool
	// KeepSelfLoops keeps (v, v) entries.
	KeepSelfLoops bool
	// KeepDuplicates keeps repeated (u, v) entries as parallel arcs.
	KeepDuplicates bool
	// Weights selects the weight source; WeightMin, WeightMax and Seed
	// configure WeightsRandom.
	Weights              WeightMode
	WeightMin, WeightMax int
	Seed                 uint64
	// Relabel renumbers the vertices after cleaning (random weights are
	// drawn before, so they do not depend on it). The zero value is
	// RelabelNone: a program gets the file's order unless it asks for
	// another, and the choice that pays is its own (renumbering a skewed
	// graph costs a pass and several times the graph's memory, and gains
	// over many runs: a server, a benchmark). The command line's default,
	// --relabel auto, makes that choice per command: bench and serve
	// renumber a skewed graph, run only where one answer gains (triangle
	// counting on the CPU); RelabelAuto is the skew test alone.
	Relabel Relabeling
	// Input says how Load reads the file where the file does not say
	// (LDBC graphs, a forced format); Build ignores it.
	Input Input
}

// BuildStats counts what Build did, for `hpgraph info` and the logs.
type BuildStats struct {
	// Entries is the number of entries in the input edge list.
	Entries int64
	// SelfLoops is the number of self-loop entries dropped (0 when kept).
	SelfLoops int64
	// Duplicates is the number of arcs merged away (counted per stored
	// direction, so an undirected edge listed twice counts 2).
	Duplicates int64
}

// Graph is a cleaned graph in CSR form: row u lists the heads v of the arcs
// u -> v (the out-edges), sorted by v. An undirected graph stores both
// directions, so its CSR is symmetric.
type Graph struct {
	Name     string
	N        int
	RowPtr   []int64   // len N+1
	Col      []int32   // len RowPtr[N]
	W        []float32 // len RowPtr[N], or nil for an unweighted graph
	Directed bool
	IDs      []int64 // see EdgeList.IDs
	IDBase   int64
	Stats    BuildStats
	// RepeatFree says that no row lists a column twice (no parallel
	// arcs): Build sets it when it merged duplicates, Validate when it
	// found none, Permute and Transpose keep it. False: unknown, or some
	// row repeats.
	RepeatFree bool
}

// NNZ is the number of stored arcs.
func (g *Graph) NNZ() int64 { return g.RowPtr[g.N] }

// Degree is the number of stored arcs leaving v.
func (g *Graph) Degree(v int32) int { return int(g.RowPtr[v+1] - g.RowPtr[v]) }

// Neighbors returns the sorted heads of the arcs leaving v (shares storage).
func (g *Graph) Neighbors(v int32) []int32 { return g.Col[g.RowPtr[v]:g.RowPtr[v+1]] }

// Weights returns the weights of the arcs leaving v, or nil when unweighted.
func (g *Graph) Weights(v int32) []float32 {
	if g.W == nil {
		return nil
	}
	return g.W[g.RowPtr[v]:g.RowPtr[v+1]]
}

// OriginalID returns the id that vertex v had in the input file.
func (g *Graph) OriginalID(v int32) int64 {
	if g.IDs != nil {
		return g.IDs[v]
	}
	return int64(v) + g.IDBase
}

// FileOrder returns the vertices in the order of their original ids:
// the vertex of each position of the file's numbering, which loading
// keeps unless it renumbers (Relabel; a renumbered graph keeps the
// file's ids, so this undoes any renumbering). nil means the identity
// (the ids increase with the vertex). Outputs listed in this order are
// the same whatever order the graph was loaded in.
func (g *Graph) FileOrder() []int32 {
	if g.IDs == nil || slices.IsSorted(g.IDs) {
		return nil
	}
	order := make([]int32, g.N)
	lo, hi := slices.Min(g.IDs), slices.Max(g.IDs)
	if hi-lo == int64(g.N)-1 { // ids are a permutation of lo..hi
		par.Blocks(g.N, func(_, a, b int) {
			for v := a; v < b; v++ {
				order[g.IDs[v]-lo] = int32(v)
			}
		})
		return order
	}
	for v := range order {
		order[v] = int32(v)
	}
	slices.SortFunc(order, func(a, b int32) int { return cmp.Compare(g.IDs[a], g.IDs[b]) })
	return order
}

// SelfLoops counts the stored (v, v) arcs.
func (g *Graph) SelfLoops() int64 {
	// (a binary search a sorted row, on every core: not a pass over every
	// arc, tens of milliseconds of a time to answer)
	counts := make([]int64, par.Workers())
	par.Blocks(g.N, func(w, lo, hi int) {
		var c int64
		for v := int32(lo); v < int32(hi); v++ {
			nb := g.Neighbors(v)
			i, ok := slices.BinarySearch(nb, v)
			for ok && i < len(nb) && nb[i] == v {
				c++
				i++
			}
		}
		counts[w] = c
	})
	var n int64
	for _, c := range counts {
		n += c
	}
	return n
}

// Edges is the edge count used for MTEPS: arcs for a directed graph; for
// an undirected graph each edge once (a self loop, stored once, counts once).
func (g *Graph) Edges() int64 {
	if g.Directed {
		return g.NNZ()
	}
	loops := g.SelfLoops()
	return (g.NNZ()-loops)/2 + loops
}

// ErrEmptyGraph is returned for a graph with no vertices.
var ErrEmptyGraph = errors.New("graph has no vertices")

// Validate checks the CSR invariants: offsets monotone, ids in range, rows
// sorted, weights finite. Readers guarantee these; Validate exists for data
// from outside (the binary cache, user code). Where they hold, it also sets
// RepeatFree, which the same pass over the rows finds.
func (g *Graph) Validate() error {
	if g.N < 0 || len(g.RowPtr) != g.N+1 {
		return fmt.Errorf("graph %q: RowPtr has %d entries, want N+1 = %d", g.Name, len(g.RowPtr), g.N+1)
	}
	if g.RowPtr[0] != 0 || g.RowPtr[g.N] != int64(len(g.Col)) {
		return fmt.Errorf("graph %q: RowPtr spans [%d, %d], want [0, %d]", g.Name, g.RowPtr[0], g.RowPtr[g.N], len(g.Col))
	}
	if g.W != nil && len(g.W) != len(g.Col) {
		return fmt.Errorf("graph %q: %d weights for %d arcs", g.Name, len(g.W), len(g.Col))
	}
	if g.IDs != nil && len(g.IDs) != g.N {
		return fmt.Errorf("graph %q: %d original ids for %d vertices", g.Name, len(g.IDs), g.N)
	}
	// Offsets, then rows, are checked in parallel blocks (rows in blocks of
	// about equal arcs); the first bad row of the lowest block is reported,
	// so the error is the one a serial pass would give.
	p := par.Workers()
	firstBad := make([]int, p)
	for w := range firstBad {
		firstBad[w] = -1
	}
	par.Blocks(g.N, func(w, lo, hi int) {
		for v := lo; v < hi; v++ {
			if g.RowPtr[v+1] < g.RowPtr[v] {
				firstBad[w] = v
				return
			}
		}
	})
	for _, v := range firstBad {
		if v >= 0 {
			return fmt.Errorf("graph %q: row %d has negative length", g.Name, v)
		}
	}
	errs := make([]error, p)
	repeats := make([]bool, p)
	par.Parts(par.Split(g.N, p, func(i int) int64 { return g.RowPtr[i] }), func(w, lo, hi int) {
		repeats[w], errs[w] = g.validateRows(lo, hi)
	})
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	g.RepeatFree = !slices.Contains(repeats, true)
	return nil
}

// validateRows checks rows [lo, hi): a fast test of each row, and the
// exact error of the first row that fails it; repeats says whether a row
// lists a column twice.
func (g *Graph) validateRows(lo, hi int) (repeats bool, err error) {
	n := int32(g.N)
	for v := lo; v < hi; v++ {
		s, e := g.RowPtr[v], g.RowPtr[v+1]
		if s == e {
			continue
		}
		ok, rep := sortedInRange(g.Col[s:e], n)
		repeats = repeats || rep
		if ok && g.W != nil {
			ok = allFinite(g.W[s:e])
		}
		if !ok {
			return repeats, g.rowError(v)
		}
	}
	return repeats, nil
}

// sortedInRange says whether cols (a row's, not empty) is sorted with
// every column in [0, n), and whether it lists a column twice (as far as
// it was read: a row that is not sorted may not say).
func sortedInRange(cols []int32, n int32) (ok, repeats bool) {
	// Sorted with its first column at least 0 and its last below n:
	// every column is in range.
	ok = cols[0] >= 0 && cols[len(cols)-1] < n
	prev := cols[0]
	for _, c := range cols[1:] {
		if c <= prev {
			if c < prev {
				return false, repeats
			}
			repeats = true
		}
		prev = c
	}
	return ok, repeats
}

// allFinite says whether no weight of ws is infinite or NaN.
func allFinite(ws []float32) bool {
	for _, w := range ws {
		if math.Float32bits(w)&0x7f800000 == 0x7f800000 {
			return false
		}
	}
	return true
}

// rowError describes the first invalid arc of row v.
func (g *Graph) rowError(v int) error {
	n := int32(g.N)
	s, e := g.RowPtr[v], g.RowPtr[v+1]
	for i := s; i < e; i++ {
		c := g.Col[i]
		if uint32(c) >= uint32(n) {
			return fmt.Errorf("graph %q: arc %d->%d out of range [0,%d)", g.Name, v, c, g.N)
		}
		if i > s && c < g.Col[i-1] {
			return fmt.Errorf("graph %q: row %d is not sorted", g.Name, v)
		}
		if g.W != nil && !finite(g.W[i]) {
			return fmt.Errorf("graph %q: arc %d->%d has weight %v", g.Name, v, c, g.W[i])
		}
	}
	return fmt.Errorf("graph %q: row %d is invalid", g.Name, v) // unreachable: the fast test failed
}
