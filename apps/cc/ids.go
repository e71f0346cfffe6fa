package cc

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/hpgraph/hpgraph/apps"
	"github.com/hpgraph/hpgraph/vertexprog"
)

// The labelling in the input's own ids: Run labels by vertex indices, the
// engine's numbering after loading cleaned and perhaps renumbered the
// graph; RunByID labels by original ids, keeping the index-based result
// in Index.

// ByID is a connected-components labelling in original ids: every
// component is labelled by the smallest original id among its vertices,
// whatever order loading left the vertices in.
type ByID struct {
	// Components is the number of (weakly) connected components.
	Components int
	// Index is the result by vertex index: Index.Label[v] is the smallest
	// vertex index in v's component, which after renumbering need not be
	// the vertex of the smallest id.
	Index *Result
	g     *vertexprog.Graph
	// first[l] is the smallest original id in the component whose index
	// label is l (defined where Index.Label[l] == l).
	first []int64
}

// RunByID labels the weakly connected components of g
// (Run) by their smallest original ids.
func RunByID(g *vertexprog.Graph, opt vertexprog.Options) (*ByID, error) {
	if err := apps.CheckGraph(g); err != nil {
		return nil, err
	}
	r, err := Run(g, opt)
	if err != nil {
		return nil, err
	}
	if r.Label == nil {
		return nil, fmt.Errorf("%w: components by id: %w", apps.ErrInvalidInput, apps.ErrSummaryOnly)
	}
	return &ByID{Components: r.Components, Index: r, g: g, first: smallestIDs(g.Dataset(), r.Label)}, nil
}

// Label returns the smallest original id in the component of the vertex
// of original id id.
func (r *ByID) Label(id int64) (int64, error) {
	v, err := apps.VertexOf(r.g, id, "components")
	if err != nil {
		return 0, err
	}
	return r.first[r.Index.Label[v]], nil
}

// Labels returns every vertex's component label (the component's smallest
// original id), keyed by original id.
func (r *ByID) Labels() map[int64]int64 {
	m := make(map[int64]int64, len(r.Index.Label))
	for v, l := range r.Index.Label {
		m[r.g.Dataset().OriginalID(int32(v))] = r.first[l]
	}
	return m
}

// Groups returns the components as lists of original ids, each sorted,
// in increasing order of their smallest ids (so Groups()[i][0] is the
// i-th smallest label).
func (r *ByID) Groups() [][]int64 {
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
