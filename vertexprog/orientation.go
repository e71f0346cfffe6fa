package vertexprog

import (
	"slices"

	"github.com/hpgraph/hpgraph/internal/huge"
	"github.com/hpgraph/hpgraph/vertexprog/driver"
)

type orientationKey struct{ all, ranked bool }

// Orientation returns g's orientation (all: every neighbour), its arrays
// not yet built (Build).
func (g *Graph) Orientation(all bool) *Orientation {
	return g.Memo(orientationKey{all: all}, func() any { return newOrientation(g, all, false) }).(*Orientation)
}

// RankedOrientation returns g's ranked orientation (see Orientation), its
// arrays not yet built (Build).
func (g *Graph) RankedOrientation() *Orientation {
	return g.Memo(orientationKey{ranked: true}, func() any { return newOrientation(g, false, true) }).(*Orientation)
}

// newOrientation is an orientation of g whose Build makes its arrays on
// the host.
func newOrientation(g *Graph, all, ranked bool) *Orientation {
	if err := g.wholeRows("an orientation"); err != nil {
		panic(err.Error()) // (programs that orient refuse first: rowsReadable)
	}
	return driver.NewOrientation(g, all, ranked, func(o *Orientation) {
		if ranked {
			buildRanked(g, o)
		} else {
			buildOrientation(g, o)
		}
	})
}

// buildOrientation makes o's arrays, g's orientation, on the host.
func buildOrientation(g *Graph, o *Orientation) {
	n := g.N()
	cnt := huge.Make[int32](n)
	o.Deg = degrees(g)
	// (Cnt needs every vertex's degree: a second pass.)
	g.ForVertices(func(lo, hi int32) {
		for v := lo; v < hi; v++ {
			for _, u := range g.Neighbors(v) {
				if u != v && (o.All || o.Below(v, u)) {
					cnt[v]++
				}
			}
		}
	})
	off := huge.Make[int64](n + 1)
	for v := range n {
		off[v+1] = off[v] + int64(cnt[v]+OrientationBlock-1)/OrientationBlock*OrientationBlock
	}
	adj := huge.Make[int32](int(off[n]))
	g.ForVertices(func(lo, hi int32) {
		for v := lo; v < hi; v++ {
			i := off[v]
			for _, u := range g.Neighbors(v) {
				if u != v && (o.All || o.Below(v, u)) {
					adj[i] = u
					i++
				}
			}
			for ; i < off[v+1]; i++ {
				adj[i] = OrientationPad
			}
		}
	})
	o.Cnt, o.Off, o.Adj = cnt, off, adj
}

// HostPreparer is implemented by programs with host data that only the
// CPU engine reads: Run calls PrepareHost after Prepare, before the first
// superstep, when the run goes to the CPU, and not when a device backend
// runs it, so a program whose device builds that data itself (an
// Orientation named in its DeviceArrays) never builds it on the host.
type HostPreparer interface {
	PrepareHost(g *Graph) error
}

// degrees is each vertex's degree without self loops, on all cores.
func degrees(g *Graph) []int32 {
	deg := huge.Make[int32](g.N())
	g.ForVertices(func(lo, hi int32) {
		for v := lo; v < hi; v++ {
			// (rows are sorted: a self loop's entries, duplicates kept
			// or not, are found by a search, not a pass over the row)
			nb := g.Neighbors(v)
			i, _ := slices.BinarySearch(nb, v)
			j := i
			for j < len(nb) && nb[j] == v {
				j++
			}
			deg[v] = int32(len(nb) - (j - i))
		}
	})
	return deg
}

// CountCommon is the number of elements two sorted lists share (each
// common element counted once per matching pair, so duplicates pair off),
// by a merge: O(len(a) + len(b)). On two lists of an Orientation it
// counts the common neighbours of their vertices (see the package
// documentation, "Operators").
//
// The merge is GAP's: for each element of a, a tight loop skips b's
// smaller ones. Against a three-way step a pair of elements, one
// thread over kron20's ranked lists (triangle counting's 423.6 M
// triangles): 22.0-23.5 s -> 17.5-18.2 s (session 42). It is not
// inlined: inlined into triangle counting's loop over a list, whose
// slices and counters left the compiler too few registers, the merge's
// inner loop kept its index on the stack, a store and three loads an
// element (session 49; two cores, bench tc: urand20 2.60-3.22 s ->
// 2.12-2.36, GAP 2.67-3.05; kron20 11.48 -> 9.60, GAP 10.97).
//
//go:noinline
func CountCommon(a, b []int32) int {
	n, j := 0, 0
	if len(b) == 0 {
		return 0
	}
	for _, w := range a {
		for b[j] < w {
			if j++; j == len(b) {
				return n
			}
		}
		if b[j] == w {
			n++
			if j++; j == len(b) {
				return n
			}
		}
	}
	return n
}
