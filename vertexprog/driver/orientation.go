package driver

import (
	"math"
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
// A ranked orientation (vertexprog.Graph.RankedOrientation) holds the
// same lists in rank space, for programs that tell the hubs apart by their rank and
// want the hubs' lists side by side: vertex v has rank Rank[v] (0 the
// highest (degree, id), n-1 the lowest), the list at rank r is the list of
// the vertex of rank r, and it holds its neighbours' ranks, sorted. Deg
// stays indexed by vertex; Cnt, Off and Adj are indexed by rank. On a
// directed graph Both has bit s set where the edge of Adj[s] has arcs both
// ways (one zero word on an undirected graph).
//
// An Orientation is one per graph, All and Ranked
// (vertexprog.Graph.Orientation, Graph.RankedOrientation); its arrays are
// made on first use, on the host by Build, or by a device
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

	g     Graph
	once  sync.Once
	build func(*Orientation)
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

// NewOrientation is g's orientation of that kind (all: every neighbour;
// ranked: in rank space), its arrays not yet built: build makes them on
// the host, once, when Build is first called. Package vertexprog makes
// each graph's (vertexprog.Graph.Orientation, RankedOrientation).
func NewOrientation(g Graph, all, ranked bool, build func(*Orientation)) *Orientation {
	return &Orientation{All: all, Ranked: ranked, g: g, build: build}
}

// Of reports whether o is g's orientation.
func (o *Orientation) Of(g Graph) bool { return o.g == g }

// Below reports whether v ranks below u.
func (o *Orientation) Below(v, u int32) bool {
	return o.Deg[v] < o.Deg[u] || (o.Deg[v] == o.Deg[u] && v < u)
}

// List is v's list (after Build).
func (o *Orientation) List(v int32) []int32 { return o.Adj[o.Off[v] : o.Off[v]+int64(o.Cnt[v])] }

// Build makes the arrays on the host, on all cores, once.
func (o *Orientation) Build() {
	o.once.Do(func() { o.build(o) })
}
