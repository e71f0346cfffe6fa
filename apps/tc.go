package apps

import (
	"math"
	"slices"

	"github.com/hpgraph/hpgraph/vertexprog"
)

// TriangleProgram counts triangles of the undirected simple graph (loops,
// direction and parallel arcs ignored) in one superstep. Edges are oriented
// from lower to higher (degree, id) rank, which makes the oriented graph a
// DAG with short out-lists; vertex v gathers, over each neighbour u ranked
// above it, the size of the intersection of the two sorted out-lists — the
// triangles whose lowest vertex is v. With PerVertex, every neighbour
// counts and the halved sums are each vertex's triangle participations.
type TriangleProgram struct {
	PerVertex bool
	// Count[v] is the number of triangles whose lowest-ranked vertex is v,
	// or, with PerVertex, the number of triangles v belongs to.
	Count []int64
	deg   []int32 // simple undirected degree, the rank's first key
	// The oriented lists (all neighbours with PerVertex): v's is
	// adj[off[v]:off[v]+cnt[v]], each list starting at a multiple of
	// tcBlock entries and padded with tcPad, so the device merges them
	// tcBlock at a time with aligned loads.
	off []int64
	cnt []int32
	adj []int32
}

// tcPad fills the oriented lists up to a multiple of tcBlock entries: no
// vertex id, and above every one.
const (
	tcPad   = math.MaxInt32
	tcBlock = 4 // the device code's TC_BLOCK
)

func (p *TriangleProgram) Spec() vertexprog.Spec {
	return vertexprog.Spec{Edges: vertexprog.AllEdges, GatherAll: true, MaxIterations: 1}
}

func (p *TriangleProgram) below(v, u int32) bool {
	return p.deg[v] < p.deg[u] || (p.deg[v] == p.deg[u] && v < u)
}

// tcOrientation is the key of the oriented lists in vertexprog.Graph.Memo
// (PerVertex's lists are another key): they depend on the graph alone, and
// every later count on the graph shares them.
type tcOrientation struct{ perVertex bool }

func (p *TriangleProgram) Prepare(g *vertexprog.Graph) error {
	p.Count = make([]int64, g.N())
	o := g.Memo(tcOrientation{p.PerVertex}, func() any {
		o := &TriangleProgram{PerVertex: p.PerVertex}
		o.orient(g)
		return o
	}).(*TriangleProgram)
	p.deg, p.cnt, p.off, p.adj = o.deg, o.cnt, o.off, o.adj
	return nil
}

// orient builds the oriented lists of g.
func (p *TriangleProgram) orient(g *vertexprog.Graph) {
	n := g.N()
	p.deg = make([]int32, n)
	p.cnt = make([]int32, n)
	g.ForVertices(func(lo, hi int32) {
		for v := lo; v < hi; v++ {
			// (rows are sorted: a self loop's entries, duplicates
			// kept or not, are found by a search, not a pass over the row)
			nb := g.Neighbors(v)
			i, _ := slices.BinarySearch(nb, v)
			j := i
			for j < len(nb) && nb[j] == v {
				j++
			}
			p.deg[v] = int32(len(nb) - (j - i))
		}
	})
	// (cnt needs every vertex's degree: a second pass.)
	g.ForVertices(func(lo, hi int32) {
		for v := lo; v < hi; v++ {
			for _, u := range g.Neighbors(v) {
				if u != v && (p.PerVertex || p.below(v, u)) {
					p.cnt[v]++
				}
			}
		}
	})
	p.off = make([]int64, n+1)
	for v := range n {
		p.off[v+1] = p.off[v] + int64(p.cnt[v]+tcBlock-1)/tcBlock*tcBlock
	}
	p.adj = make([]int32, p.off[n])
	g.ForVertices(func(lo, hi int32) {
		for v := lo; v < hi; v++ {
			i := p.off[v]
			for _, u := range g.Neighbors(v) {
				if u != v && (p.PerVertex || p.below(v, u)) {
					p.adj[i] = u
					i++
				}
			}
			for ; i < p.off[v+1]; i++ {
				p.adj[i] = tcPad
			}
		}
	})
}

func (p *TriangleProgram) list(v int32) []int32 { return p.adj[p.off[v] : p.off[v]+int64(p.cnt[v])] }

func (p *TriangleProgram) Init(int32, *vertexprog.Step) (struct{}, bool) { return struct{}{}, true }

func (p *TriangleProgram) Identity() int64 { return 0 }

func (p *TriangleProgram) Gather(acc int64, v, u int32, _ struct{}, _ float32) int64 {
	if u == v || (!p.PerVertex && !p.below(v, u)) {
		return acc
	}
	return acc + intersect(p.list(v), p.list(u))
}

// intersect counts the common elements of two sorted lists.
func intersect(a, b []int32) int64 {
	var n int64
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			n++
			i++
			j++
		}
	}
	return n
}

func (p *TriangleProgram) Reduce(a, b int64) int64 { return a + b }

func (p *TriangleProgram) Update(v int32, acc int64, _ *struct{}, _ *vertexprog.Step) bool {
	if p.PerVertex {
		// Each triangle at v is seen from both of its other vertices.
		acc /= 2
	}
	p.Count[v] = acc
	return false
}

// TriangleResult is a triangle count's output.
type TriangleResult struct {
	Total int64
	// PerVertex[v] is the number of triangles v belongs to (nil unless
	// asked for).
	PerVertex []int64
	Run       *vertexprog.Result[struct{}]
}

// Triangles counts the triangles of g (and per vertex when perVertex).
func Triangles(g *vertexprog.Graph, perVertex bool, opt vertexprog.Options) (*TriangleResult, error) {
	p := &TriangleProgram{PerVertex: perVertex}
	r, err := vertexprog.Run(g, vertexprog.Program[struct{}, int64](p), opt)
	if err != nil {
		return nil, err
	}
	res := &TriangleResult{Run: r}
	for _, c := range p.Count {
		res.Total += c
	}
	if perVertex {
		res.Total /= 3
		res.PerVertex = p.Count
	}
	return res, nil
}
