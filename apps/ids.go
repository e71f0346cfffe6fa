package apps

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/hpgraph/hpgraph/vertexprog"
)

// The built-in algorithms in the input's own ids.
//
// BFS, SSSP and ConnectedComponents take and return vertex indices: the
// engine's numbering after loading cleaned and perhaps renumbered the
// graph, fast to index but not the ids of the file or the gonum graph
// the graph came from. BFSFrom, SSSPFrom and ConnectedComponentsByID take
// a source by original id (vertexprog.Graph.Vertex) and answer by
// original id; each result keeps the index-based one in Index for those
// who want arrays. For a program of your own, or PageRank and triangle
// counts, vertexprog.ByID keys any per-vertex slice by original id.

// errSummaryOnly: a SummaryOnly BFS keeps no per-vertex depths to look up.
var errSummaryOnly = errors.New("the run was SummaryOnly: it kept no per-vertex results")

// checkGraph reports a nil graph as invalid input.
func checkGraph(g *vertexprog.Graph) error {
	if g == nil || g.Dataset() == nil {
		return fmt.Errorf("%w: %w", ErrInvalidInput, vertexprog.ErrNilGraph)
	}
	return nil
}

// vertexOf returns the vertex of an original id; what names the id in the
// error (an ErrInvalidInput wrapping vertexprog.ErrUnknownID).
func vertexOf(g *vertexprog.Graph, id int64, what string) (int32, error) {
	v, err := g.Vertex(id)
	if err != nil {
		return -1, fmt.Errorf("%w: %s: %w", ErrInvalidInput, what, err)
	}
	return v, nil
}

// BFSByID is a breadth-first search's result in original ids.
type BFSByID struct {
	// Source is the source's original id.
	Source int64
	// Index is the result by vertex index (Depth[v], Parent[v]).
	Index *BFSResult
	g     *vertexprog.Graph
}

// BFSFrom runs a breadth-first search from the vertex whose original id
// is src. An id that is no vertex's, or a nil graph, is an error wrapping
// ErrInvalidInput.
func BFSFrom(g *vertexprog.Graph, src int64, opt vertexprog.Options) (*BFSByID, error) {
	if err := checkGraph(g); err != nil {
		return nil, err
	}
	v, err := vertexOf(g, src, "bfs source")
	if err != nil {
		return nil, err
	}
	r, err := BFS(g, v, opt)
	if err != nil {
		return nil, err
	}
	return &BFSByID{Source: src, Index: r, g: g}, nil
}

// lookup returns the vertex of id for a per-vertex query.
func (r *BFSByID) lookup(id int64) (int32, error) {
	if r.Index.Depth == nil {
		return -1, errSummaryOnly
	}
	return vertexOf(r.g, id, "bfs")
}

// Depth returns the number of edges on a shortest path from the source to
// the vertex of original id id, -1 when the search did not reach it.
func (r *BFSByID) Depth(id int64) (int, error) {
	v, err := r.lookup(id)
	if err != nil {
		return 0, err
	}
	return int(r.Index.Depth[v]), nil
}

// Path returns the original ids of the vertices on a shortest path from
// the source to id, both included (the BFS tree's path: one of the
// shortest), or nil when the search did not reach id.
func (r *BFSByID) Path(id int64) ([]int64, error) {
	v, err := r.lookup(id)
	if err != nil {
		return nil, err
	}
	if r.Index.Depth[v] < 0 {
		return nil, nil
	}
	path := make([]int64, r.Index.Depth[v]+1)
	for i := len(path) - 1; i >= 0; i-- {
		path[i] = r.g.Dataset().OriginalID(v)
		v = r.Index.Parent[v]
	}
	return path, nil
}

// Depths returns the depth of every reached vertex (the source's is 0),
// keyed by original id; unreached vertices are absent.
func (r *BFSByID) Depths() (map[int64]int, error) {
	if r.Index.Depth == nil {
		return nil, errSummaryOnly
	}
	m := map[int64]int{}
	for v, d := range r.Index.Depth {
		if d >= 0 {
			m[r.g.Dataset().OriginalID(int32(v))] = int(d)
		}
	}
	return m, nil
}

// Parents returns the BFS tree: every reached vertex's parent on a
// shortest path (the source's is itself), in original ids; unreached
// vertices are absent.
func (r *BFSByID) Parents() (map[int64]int64, error) {
	if r.Index.Depth == nil {
		return nil, errSummaryOnly
	}
	m := map[int64]int64{}
	for v, p := range r.Index.Parent {
		if p >= 0 {
			m[r.g.Dataset().OriginalID(int32(v))] = r.g.Dataset().OriginalID(p)
		}
	}
	return m, nil
}

// SSSPByID is a single-source shortest paths' result in original ids.
type SSSPByID struct {
	// Source is the source's original id.
	Source int64
	// Index is the result by vertex index (Dist[v]).
	Index *SSSPResult
	g     *vertexprog.Graph
}

// SSSPFrom computes shortest-path distances (SSSP) from the vertex whose
// original id is src. An unknown id, a nil graph and a negative weight are
// errors wrapping ErrInvalidInput.
func SSSPFrom(g *vertexprog.Graph, src int64, opt vertexprog.Options) (*SSSPByID, error) {
	if err := checkGraph(g); err != nil {
		return nil, err
	}
	v, err := vertexOf(g, src, "sssp source")
	if err != nil {
		return nil, err
	}
	r, err := SSSP(g, v, opt)
	if err != nil {
		return nil, err
	}
	return &SSSPByID{Source: src, Index: r, g: g}, nil
}

// Dist returns the length of a shortest path from the source to the
// vertex of original id id, +Inf when there is none.
func (r *SSSPByID) Dist(id int64) (float64, error) {
	if r.Index.Dist == nil {
		return 0, errSummaryOnly
	}
	v, err := vertexOf(r.g, id, "sssp")
	if err != nil {
		return 0, err
	}
	return float64(r.Index.Dist[v]), nil
}

// Dists returns the distance of every reached vertex, keyed by original
// id; unreached vertices are absent.
func (r *SSSPByID) Dists() (map[int64]float64, error) {
	if r.Index.Dist == nil {
		return nil, errSummaryOnly
	}
	m := map[int64]float64{}
	for v, d := range r.Index.Dist {
		if !math.IsInf(float64(d), 1) {
			m[r.g.Dataset().OriginalID(int32(v))] = float64(d)
		}
	}
	return m, nil
}

// CCByID is a connected-components labelling in original ids: every
// component is labelled by the smallest original id among its vertices,
// whatever order loading left the vertices in.
type CCByID struct {
	// Components is the number of (weakly) connected components.
	Components int
	// Index is the result by vertex index: Index.Label[v] is the smallest
	// vertex index in v's component, which after renumbering need not be
	// the vertex of the smallest id.
	Index *CCResult
	g     *vertexprog.Graph
	// first[l] is the smallest original id in the component whose index
	// label is l (defined where Index.Label[l] == l).
	first []int64
}

// ConnectedComponentsByID labels the weakly connected components of g
// (ConnectedComponents) by their smallest original ids.
func ConnectedComponentsByID(g *vertexprog.Graph, opt vertexprog.Options) (*CCByID, error) {
	if err := checkGraph(g); err != nil {
		return nil, err
	}
	r, err := ConnectedComponents(g, opt)
	if err != nil {
		return nil, err
	}
	if r.Label == nil {
		return nil, fmt.Errorf("%w: components by id: %w", ErrInvalidInput, errSummaryOnly)
	}
	first := make([]int64, len(r.Label))
	for v, l := range r.Label {
		if int(l) == v {
			first[l] = g.Dataset().OriginalID(l)
		}
	}
	for v, l := range r.Label {
		first[l] = min(first[l], g.Dataset().OriginalID(int32(v)))
	}
	return &CCByID{Components: r.Components, Index: r, g: g, first: first}, nil
}

// Label returns the smallest original id in the component of the vertex
// of original id id.
func (r *CCByID) Label(id int64) (int64, error) {
	v, err := vertexOf(r.g, id, "components")
	if err != nil {
		return 0, err
	}
	return r.first[r.Index.Label[v]], nil
}

// Labels returns every vertex's component label (the component's smallest
// original id), keyed by original id.
func (r *CCByID) Labels() map[int64]int64 {
	m := make(map[int64]int64, len(r.Index.Label))
	for v, l := range r.Index.Label {
		m[r.g.Dataset().OriginalID(int32(v))] = r.first[l]
	}
	return m
}

// Groups returns the components as lists of original ids, each sorted,
// in increasing order of their smallest ids (so Groups()[i][0] is the
// i-th smallest label).
func (r *CCByID) Groups() [][]int64 {
	slot := make(map[int32]int, r.Components) // index label -> group
	var groups [][]int64
	for v, l := range r.Index.Label {
		i, ok := slot[l]
		if !ok {
			i = len(groups)
			slot[l] = i
			groups = append(groups, nil)
		}
		groups[i] = append(groups[i], r.g.Dataset().OriginalID(int32(v)))
	}
	for _, c := range groups {
		slices.Sort(c)
	}
	slices.SortFunc(groups, func(a, b []int64) int { return cmp.Compare(a[0], b[0]) })
	return groups
}
