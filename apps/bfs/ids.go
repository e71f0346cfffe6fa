package bfs

import (
	"github.com/hpgraph/hpgraph/apps"
	"github.com/hpgraph/hpgraph/vertexprog"
)

// The search in the input's own ids: Run takes and returns vertex
// indices, the engine's numbering after loading cleaned and perhaps
// renumbered the graph; From takes a source by original id
// (vertexprog.Graph.Vertex) and answers by original id, keeping the
// index-based result in Index for those who want arrays.

// ByID is a breadth-first search's result in original ids.
type ByID struct {
	// Source is the source's original id.
	Source int64
	// Index is the result by vertex index (Depth[v], Parent[v]).
	Index *Result
	g     *vertexprog.Graph
}

// From runs a breadth-first search from the vertex whose original id
// is src. An id that is no vertex's, or a nil graph, is an error wrapping
// apps.ErrInvalidInput.
func From(g *vertexprog.Graph, src int64, opt vertexprog.Options) (*ByID, error) {
	if err := apps.CheckGraph(g); err != nil {
		return nil, err
	}
	v, err := apps.VertexOf(g, src, "bfs source")
	if err != nil {
		return nil, err
	}
	r, err := Run(g, v, opt)
	if err != nil {
		return nil, err
	}
	return &ByID{Source: src, Index: r, g: g}, nil
}

// lookup returns the vertex of id for a per-vertex query.
func (r *ByID) lookup(id int64) (int32, error) {
	if r.Index.Depth == nil {
		return -1, apps.ErrSummaryOnly
	}
	return apps.VertexOf(r.g, id, "bfs")
}

// Depth returns the number of edges on a shortest path from the source to
// the vertex of original id id, -1 when the search did not reach it.
func (r *ByID) Depth(id int64) (int, error) {
	v, err := r.lookup(id)
	if err != nil {
		return 0, err
	}
	return int(r.Index.Depth[v]), nil
}

// Path returns the original ids of the vertices on a shortest path from
// the source to id, both included (the BFS tree's path: one of the
// shortest), or nil when the search did not reach id.
func (r *ByID) Path(id int64) ([]int64, error) {
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
func (r *ByID) Depths() (map[int64]int, error) {
	if r.Index.Depth == nil {
		return nil, apps.ErrSummaryOnly
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
func (r *ByID) Parents() (map[int64]int64, error) {
	if r.Index.Depth == nil {
		return nil, apps.ErrSummaryOnly
	}
	m := map[int64]int64{}
	for v, p := range r.Index.Parent {
		if p >= 0 {
			m[r.g.Dataset().OriginalID(int32(v))] = r.g.Dataset().OriginalID(p)
		}
	}
	return m, nil
}
