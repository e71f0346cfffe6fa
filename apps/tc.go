package apps

import "github.com/hpgraph/hpgraph/vertexprog"

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
	// o holds the oriented lists (all neighbours with PerVertex): the
	// graph's, shared by every count on it, built on the host only for
	// the CPU engine (PrepareHost); a GPU builds its own.
	o *vertexprog.Orientation
}

func (p *TriangleProgram) Spec() vertexprog.Spec {
	return vertexprog.Spec{Edges: vertexprog.AllEdges, GatherAll: true, MaxIterations: 1}
}

func (p *TriangleProgram) Prepare(g *vertexprog.Graph) error {
	p.Count = make([]int64, g.N())
	p.o = g.Orientation(p.PerVertex)
	return nil
}

// PrepareHost builds the oriented lists on the host for the CPU engine
// (vertexprog.HostPreparer).
func (p *TriangleProgram) PrepareHost(*vertexprog.Graph) error {
	p.o.Build()
	return nil
}

func (p *TriangleProgram) Init(int32, *vertexprog.Step) (struct{}, bool) { return struct{}{}, true }

func (p *TriangleProgram) Identity() int64 { return 0 }

func (p *TriangleProgram) Gather(acc int64, v, u int32, _ struct{}, _ float32) int64 {
	if u == v || (!p.PerVertex && !p.o.Below(v, u)) {
		return acc
	}
	return acc + intersect(p.o.List(v), p.o.List(u))
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
	if err := checkGraph(g); err != nil {
		return nil, err
	}
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
