// Package lcc is LDBC Graphalytics' local clustering coefficient
// (Program: triangles listed once, each crediting its three vertices),
// its hand-written device code (lcc.cu) and its App for the front ends.
package lcc

import (
	"fmt"
	"math/bits"
	"slices"
	"sync/atomic"

	"github.com/hpgraph/hpgraph/apps"
	"github.com/hpgraph/hpgraph/vertexprog"
)

// Program computes LDBC Graphalytics' local clustering coefficient in
// one superstep. A vertex's neighbourhood N(v) is its in- and
// out-neighbours, each once, v excluded, and d = |N(v)|. The coefficient
// is the number of arcs u → w with u ≠ w both in N(v) over d(d-1) — on a
// directed graph the arcs as LDBC counts them (u → w and w → u are two,
// parallel arcs one), on an undirected graph, whose CSR holds every edge
// in both directions, each edge among N(v) twice: LDBC's arcs/(d(d-1))
// and edges/(d(d-1)/2) alike — and 0 when d < 2.
//
// That count is a sum over the triangles at v: each triangle {v, x, y} of
// the simple undirected graph (loops, direction and parallel arcs
// ignored) brings the arcs between x and y, m(x, y) ∈ {1, 2} on a
// directed graph (2 where both directions exist), 2 on an undirected one.
// The program lists every triangle once, as triangle counting does: edges
// oriented from lower to higher (degree, id) rank, vertex a gathers over
// each neighbour b ranked above it the intersection of the two sorted
// oriented lists, whose elements c close the triangles {a, b, c} in which
// a is the lowest vertex and b the middle one. It credits each of the
// three vertices with the arcs between the other two: a's share in its
// accumulator, b's (summed over the intersection) and each c's by atomic
// adds into the credit arrays, which Update reads after every gather of
// the superstep. Undirected graphs count triangles and double them in
// Update.
//
// The oriented lists live in rank space: vertex v has rank ρ(v) (0 the
// highest), v's list holds the ranks of its higher neighbours, sorted,
// and the lists are laid out in rank order, so the hubs' lists, which
// most intersections read, sit together (as on a graph renumbered by
// degree), and the highest ranks (min(n/8, lccHubs) of them) are told
// apart as hubs by their rank alone: their credits, which most triangles
// add to, are spread over lccReplicas copies (on a device one hot counter
// would serialize the atomics of millions of triangles), and Update sums
// the copies.
//
// It runs on the CPU engine and, through its device code (device.go),
// on a GPU backend.
type Program struct {
	// LCC[v] is v's coefficient, after the run.
	LCC []float64
	// credit[ρ] is what the gathers credited the vertex of rank ρ with,
	// as the middle or highest vertex of its triangles, for the ranks
	// from hubs on; hub[k*(hubs+lccHubPad)+ρ] is copy k of it for the
	// ranks below (the CPU adds to the copy the gathering vertex's rank
	// picks, the device to the one its thread picks).
	credit, hub []int64
	// o is the graph's ranked orientation (vertexprog.Orientation: ranks,
	// degrees, the oriented lists in rank space and the reciprocal-arc
	// bits), shared by every run on the graph, built on the host only for
	// the CPU engine (PrepareHost); a device backend builds its own.
	o *vertexprog.Orientation
	// hubs: the ranks below it are hubs (min(n/8, lccHubs)).
	hubs     int32
	directed bool
	// agg says whether the device code sums the third-vertex credits of
	// a warp's lanes that credit one hub together before adding them
	// (lcc_add_third, built in where agg is set): on an undirected graph
	// numbered by degree, whose rows come in rank order, it took kron21's
	// kernel from 33.5 to 28.6 ms on an H200 (33.8 to 28.6 on an H100);
	// in the generator's order it took 62 to 75 ms, and on a directed
	// graph numbered by out-degree 47.7 to 50.9 (H100), so it is off
	// there (docs/perf/device-preprocess.md#lccs-orientation-on-the-device).
	agg bool
}

// lccReplicas is the copies of a hub's credit (the device code's
// LCC_REPLICAS), lccHubs the most ranks that are hubs. Copy k of the hubs'
// credits starts k·(hubs+lccHubPad) entries in (LCC_HUB_PAD): the pad
// keeps the copies of a hub from lying a power of two apart, which could
// map them all to one L2 slice. (The device's LCC_BLOCK is
// vertexprog.OrientationBlock, the lists' padding OrientationPad.)
const (
	lccReplicas = 32
	lccHubs     = 4096
	lccHubPad   = 16
)

func (p *Program) Spec() vertexprog.Spec {
	return vertexprog.Spec{Edges: vertexprog.AllEdges, GatherAll: true, MaxIterations: 1}
}

func (p *Program) Prepare(g *vertexprog.Graph) error {
	if dup := lccDuplicate(g); dup >= 0 {
		// An undirected graph loaded with its duplicate edges lists them
		// in Neighbors, and the engine gathers along each copy: the
		// count would grow with the copies.
		return fmt.Errorf("%w: lcc is defined on simple graphs, and vertex %d has duplicate edges (load without Options.KeepDuplicates)", apps.ErrInvalidInput, g.Dataset().OriginalID(dup))
	}
	n := g.N()
	p.o = g.RankedOrientation()
	p.hubs = int32(min(n/8, lccHubs))
	p.directed = g.Directed()
	p.agg = !p.directed && lccDegreeOrdered(g)
	p.LCC = make([]float64, n)
	p.credit = make([]int64, n)
	p.hub = make([]int64, (int(p.hubs)+lccHubPad)*lccReplicas)
	return nil
}

// PrepareHost builds the ranked orientation on the host for the CPU
// engine (vertexprog.HostPreparer).
func (p *Program) PrepareHost(*vertexprog.Graph) error {
	p.o.Build()
	return nil
}

type lccDuplicateKey struct{}

type lccOrderKey struct{}

// lccDegreeOrdered says whether g's vertices are numbered by
// non-increasing degree (--relabel degree makes that order), memoized on
// g: one parallel pass over the row offsets, each part stopping once any
// has found a rise.
func lccDegreeOrdered(g *vertexprog.Graph) bool {
	return g.Memo(lccOrderKey{}, func() any {
		row := g.Dataset().RowPtr
		n := int32(g.N())
		var rise atomic.Bool
		g.ForVertices(func(lo, hi int32) {
			for v := lo; v < hi && v+1 < n && !rise.Load(); v++ {
				if row[v+2]-row[v+1] > row[v+1]-row[v] {
					rise.Store(true)
				}
			}
		})
		return !rise.Load()
	}).(bool)
}

// lccDuplicate is the first vertex whose Neighbors repeat an entry (an
// undirected graph loaded with its duplicate edges), or -1, memoized on g
// (lccFindDuplicate).
func lccDuplicate(g *vertexprog.Graph) int32 {
	return g.Memo(lccDuplicateKey{}, func() any { return lccFindDuplicate(g) }).(int32)
}

// lccFindDuplicate is lccDuplicate: one parallel pass over the rows, which
// are sorted, each stopping at its first repeat or once another has found
// one at a lower vertex. Nothing is read where there can be none: a graph
// known to be RepeatFree (built with its duplicates merged, or loaded from
// a file whose validation found none), or a directed graph, whose
// Neighbors are its symmetrized view, with parallel arcs merged.
func lccFindDuplicate(g *vertexprog.Graph) int32 {
	if g.Directed() || g.Dataset().RepeatFree {
		return -1
	}
	var dup atomic.Int32
	dup.Store(-1)
	g.ForVertices(func(lo, hi int32) {
		for v := lo; v < hi; v++ {
			if d := dup.Load(); d >= 0 && d < v {
				return
			}
			nb := g.Neighbors(v)
			for i := 1; i < len(nb); i++ {
				if nb[i] == nb[i-1] {
					for d := dup.Load(); d < 0 || v < d; d = dup.Load() {
						if dup.CompareAndSwap(d, v) {
							break
						}
					}
					return
				}
			}
		}
	})
	return dup.Load()
}

// mult is the arcs between the two ends of the edge in slot s of the
// lists: m on a directed graph, 1 on an undirected one (Update doubles).
func (p *Program) mult(s int64) int64 {
	if !p.directed {
		return 1
	}
	return 1 + int64(p.o.Both[s>>5]>>(s&31)&1)
}

func (p *Program) Init(int32, *vertexprog.Step) (struct{}, bool) { return struct{}{}, true }

func (p *Program) Identity() int64 { return 0 }

// Gather lists the triangles in which v is the lowest vertex and u the
// middle one (nothing unless u ranks above v): see Program.
func (p *Program) Gather(acc int64, v, u int32, _ struct{}, _ float32) int64 {
	a, b := p.o.Rank[v], p.o.Rank[u]
	if b >= a {
		return acc
	}
	return acc + p.triangles(a, b)
}

// GatherRow implements vertexprog.RowGatherer: Gather over the row.
func (p *Program) GatherRow(acc int64, v int32, nbrs []int32, _ []float32, _ []struct{}) int64 {
	rank := p.o.Rank
	a := rank[v]
	for _, u := range nbrs {
		if b := rank[u]; b < a {
			acc += p.triangles(a, b)
		}
	}
	return acc
}

// triangles lists the triangles {a, b, c} (ranks, a > b > c) closed by
// the oriented lists of a and b: it credits b and each c, and returns a's
// credit.
func (p *Program) triangles(a, b int32) int64 {
	o := p.o
	ia, ib := o.Off[a], o.Off[b]
	la, lb := o.Adj[ia:ia+int64(o.Cnt[a])], o.Adj[ib:ib+int64(o.Cnt[b])]
	// m(a, b), what each c gets: b's slot in a's list.
	mab := int64(1)
	if p.directed {
		k, _ := slices.BinarySearch(la, b)
		mab = p.mult(ia + int64(k))
	}
	var own, mid int64
	// A long list and a short one (a hub's and a leaf's): the short one's
	// entries are searched for in the long one where that takes fewer
	// steps than a merge (the device: where one list is 16 times the
	// other). Either way the same triangles.
	small, large := la, lb
	if len(lb) < len(la) {
		small, large = lb, la
	}
	if len(small)*bits.Len(uint(len(large))) < len(la)+len(lb) {
		aSmall := len(la) <= len(lb)
		j := 0
		for i, c := range small {
			k, found := slices.BinarySearch(large[j:], c)
			j += k
			if !found {
				continue
			}
			sa, sb := ia+int64(i), ib+int64(j)
			if !aSmall {
				sa, sb = ia+int64(j), ib+int64(i)
			}
			own += p.mult(sb)
			mid += p.mult(sa)
			p.add(c, mab, a)
			j++
		}
	} else {
		for i, j := 0, 0; i < len(la) && j < len(lb); {
			switch c := la[i]; {
			case c < lb[j]:
				i++
			case c > lb[j]:
				j++
			default:
				own += p.mult(ib + int64(j))
				mid += p.mult(ia + int64(i))
				p.add(c, mab, a)
				i++
				j++
			}
		}
	}
	if mid > 0 {
		p.add(b, mid, a)
	}
	return own
}

// add credits the vertex of rank r with m arcs, for the gathering
// vertex of rank a: a hub in the copy a picks (so that two workers adding
// to one hub mostly hit different cache lines).
func (p *Program) add(r int32, m int64, a int32) {
	if r < p.hubs {
		atomic.AddInt64(&p.hub[(a&(lccReplicas-1))*(p.hubs+lccHubPad)+r], m)
	} else {
		atomic.AddInt64(&p.credit[r], m)
	}
}

func (p *Program) Reduce(a, b int64) int64 { return a + b }

func (p *Program) Update(v int32, acc int64, _ *struct{}, _ *vertexprog.Step) bool {
	r := p.o.Rank[v]
	t := acc + p.credit[r]
	if r < p.hubs {
		for k := range int32(lccReplicas) {
			t += p.hub[k*(p.hubs+lccHubPad)+r]
		}
	}
	if !p.directed {
		t *= 2
	}
	p.LCC[v] = 0
	if d := int64(p.o.Deg[v]); d >= 2 {
		p.LCC[v] = float64(t) / float64(d*(d-1))
	}
	return false
}

// Result is a local clustering coefficient run's output.
type Result struct {
	// LCC[v] is v's local clustering coefficient, in [0, 1].
	LCC []float64
	Run *vertexprog.Result[struct{}]
}

// Run computes every vertex's local clustering coefficient as LDBC
// Graphalytics defines it (see Program).
func Run(g *vertexprog.Graph, opt vertexprog.Options) (*Result, error) {
	if err := apps.CheckGraph(g); err != nil {
		return nil, err
	}
	p := &Program{}
	r, err := vertexprog.Run(g, vertexprog.Program[struct{}, int64](p), opt)
	if err != nil {
		return nil, err
	}
	return &Result{LCC: p.LCC, Run: r}, nil
}
