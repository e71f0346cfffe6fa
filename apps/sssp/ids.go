package sssp

import (
	"math"

	"github.com/hpgraph/hpgraph/apps"
	"github.com/hpgraph/hpgraph/vertexprog"
)

// The distances in the input's own ids: Run takes and returns vertex
// indices; From takes a source by original id and answers by original
// id, keeping the index-based result in Index.

// ByID is a single-source shortest paths' result in original ids.
type ByID struct {
	// Source is the source's original id.
	Source int64
	// Index is the result by vertex index (Dist[v]).
	Index *Result
	g     *vertexprog.Graph
}

// From computes shortest-path distances (SSSP) from the vertex whose
// original id is src. An unknown id, a nil graph and a negative weight are
// errors wrapping apps.ErrInvalidInput.
func From(g *vertexprog.Graph, src int64, opt vertexprog.Options) (*ByID, error) {
	if err := apps.CheckGraph(g); err != nil {
		return nil, err
	}
	v, err := apps.VertexOf(g, src, "sssp source")
	if err != nil {
		return nil, err
	}
	r, err := Run(g, v, opt)
	if err != nil {
		return nil, err
	}
	return &ByID{Source: src, Index: r, g: g}, nil
}

// Dist returns the length of a shortest path from the source to the
// vertex of original id id, +Inf when there is none.
func (r *ByID) Dist(id int64) (float64, error) {
	if r.Index.Dist == nil {
		return 0, apps.ErrSummaryOnly
	}
	v, err := apps.VertexOf(r.g, id, "sssp")
	if err != nil {
		return 0, err
	}
	return float64(r.Index.Dist[v]), nil
}

// Dists returns the distance of every reached vertex, keyed by original
// id; unreached vertices are absent.
func (r *ByID) Dists() (map[int64]float64, error) {
	if r.Index.Dist == nil {
		return nil, apps.ErrSummaryOnly
	}
	m := map[int64]float64{}
	for v, d := range r.Index.Dist {
		if !math.IsInf(float64(d), 1) {
			m[r.g.Dataset().OriginalID(int32(v))] = float64(d)
		}
	}
	return m, nil
}
