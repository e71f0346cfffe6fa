package vertexprog

import (
	"math"
	"slices"
	"sync"
)

// Orientation is a graph's adjacency (Neighbors) without self loops,
// oriented from lower to higher rank, rank being (degree, id) with the
// degree counted without self loops: a DAG whose out-lists are short
// even at the hubs, the usual form for listing triangles once each. With
// All, a vertex's list keeps every neighbour (only self loops dropped).
// Parallel arcs, where the graph was loaded with them, stay.
//
// Vertex v's list is Adj[Off[v] : Off[v]+Cnt[v]], sorted; every list
// starts at a multiple of OrientationBlock entries and is padded to one
// with OrientationPad, so device code can compare lists a block at a time
// with aligned loads.
//
// A ranked orientation (Graph.RankedOrientation) holds the same lists
// in rank space, for programs that tell the hubs apart by their rank and
// want the hubs' lists side by side: vertex v has rank Rank[v] (0 the
// highest (degree, id), n-1 the lowest), the list at rank r is the list of
// the vertex of rank r, and it holds its neighbours' ranks, sorted. Deg
// stays indexed by vertex; Cnt, Off and Adj are indexed by rank. On a
// directed graph Both has bit s set where the edge of Adj[s] has arcs both
// ways (one zero word on an undirected graph).
//
// An Orientation is one per graph, All and Ranked (Graph.Orientation,
// Graph.RankedOrientation); its
// arrays are made on first use, on the host by Build, or by a device
// backend on the device itself from the run's gather matrix when a
// DeviceArray names them (DeviceArray.Orientation), so a GPU run never
// builds them on the host.
type Orientation struct {
	All, Ranked bool
	// Deg[v] is v's degree without self loops (the rank's first key);
	// Cnt[v] the length of v's list; Off its start (N+1 entries, Off[N]
	// the length of Adj).
	Deg, Cnt []int32
	Off      []int64
	Adj      []int32
	// Rank and Both: a ranked orientation's ranks and reciprocal arcs.
	Rank []int32
	Both []uint32

	g    *Graph
	once sync.Once
}

// OrientationBlock and OrientationPad: lists start at multiples of
// OrientationBlock entries, padded with OrientationPad (above every
// vertex id).
const (
	OrientationBlock = 4
	OrientationPad   = math.MaxInt32
)

// OrientationPart names one of an Orientation's arrays.
type OrientationPart int

const (
	OrientationDeg OrientationPart = iota + 1
	OrientationCnt
	OrientationOff
	OrientationAdj
	OrientationRank
	OrientationBoth
)

type orientationKey struct{ all, ranked bool }

// Orientation returns g's orientation (all: every neighbour), its arrays
// not yet built (Build).
func (g *Graph) Orientation(all bool) *Orientation {
	return g.Memo(orientationKey{all: all}, func() any { return &Orientation{All: all, g: g} }).(*Orientation)
}

// RankedOrientation returns g's ranked orientation (see Orientation), its
// arrays not yet built (Build).
func (g *Graph) RankedOrientation() *Orientation {
	return g.Memo(orientationKey{ranked: true}, func() any { return &Orientation{Ranked: true, g: g} }).(*Orientation)
}

// Of reports whether o is g's orientation.
func (o *Orientation) Of(g *Graph) bool { return o.g == g }

// Below reports whether v ranks below u.
func (o *Orientation) Below(v, u int32) bool {
	return o.Deg[v] < o.Deg[u] || (o.Deg[v] == o.Deg[u] && v < u)
}

// List is v's list (after Build).
func (o *Orientation) List(v int32) []int32 { return o.Adj[o.Off[v] : o.Off[v]+int64(o.Cnt[v])] }

// Build makes the arrays on the host, on all cores, once.
func (o *Orientation) Build() {
	o.once.Do(o.build)
}

func (o *Orientation) build() {
	if o.Ranked {
		o.buildRanked()
		return
	}
	g := o.g
	n := g.N()
	cnt := make([]int32, n)
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
	off := make([]int64, n+1)
	for v := range n {
		off[v+1] = off[v] + int64(cnt[v]+OrientationBlock-1)/OrientationBlock*OrientationBlock
	}
	adj := make([]int32, off[n])
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
	deg := make([]int32, g.N())
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
