package cc

import (
	"fmt"
	"io"
	"math"
	"sync/atomic"

	"github.com/hpgraph/hpgraph/apps"
	"github.com/hpgraph/hpgraph/apps/reference"
	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/internal/par"
	"github.com/hpgraph/hpgraph/vertexprog"
)

// App is cc for the front ends (apps/registry).
var App = &apps.App{
	Name:    "cc",
	Aliases: []string{"wcc"}, // LDBC Graphalytics' name
	About:   "weakly connected components, labelled by their smallest vertex (Afforest on the GPU; --direction push or pull runs label propagation)",
	Columns: []string{"component"},
	LDBC:    apps.LDBC{Output: true},
	Program: Program{},
	Traffic: apps.TraversalTraffic,
	Answer:  answer,
}

func answer(g *vertexprog.Graph, req apps.Request, opt vertexprog.Options) (*apps.Result, error) {
	d := g.Dataset()
	opt.Values = apps.Lent[int32](req.Scratch)
	r, err := Run(g, opt)
	if err != nil {
		return nil, err
	}
	req.Scratch.Keep(nil, r.Label)
	largest := largestComponent(r.Label, req.Scratch)
	// A component's label in the outputs is its smallest id in the file
	// (LDBC's WCC labels), found when an output first asks.
	var first []int64
	smallest := func() []int64 {
		if first == nil {
			first = smallestIDs(d, r.Label)
		}
		return first
	}
	lines := func(w io.Writer) error {
		first := smallest()
		return apps.WriteVertexLines(w, g, func(b []byte, v int32, id int64) []byte {
			return apps.AppendInts(b, id, first[r.Label[v]])
		})
	}
	return &apps.Result{
		Stats:     apps.StatsOf(r.Run),
		Summary:   fmt.Sprintf("%d components, largest %d vertices", r.Components, largest),
		Fields:    map[string]any{"components": r.Components, "largest": largest},
		Rows:      func(v int32, c []apps.Cell) { c[0] = apps.IntCell(smallest()[r.Label[v]]) },
		WriteText: lines,
		WriteLDBC: lines,
		Check: func() error {
			want := reference.Components(d)
			for v := range want {
				if want[v] != r.Label[v] {
					return fmt.Errorf("vertex %d labelled %d, reference %d", d.OriginalID(int32(v)), d.OriginalID(r.Label[v]), d.OriginalID(want[v]))
				}
			}
			return nil
		},
	}, nil
}

// smallestIDs gives every component label (a vertex of the component) the
// component's smallest id in the file, whatever order the vertices were
// numbered in (--relabel): LDBC's WCC labels.
func smallestIDs(d *datasets.Graph, label []int32) []int64 {
	first := make([]int64, d.N)
	for v := range first {
		first[v] = math.MaxInt64
	}
	for v, l := range label {
		first[l] = min(first[l], d.OriginalID(int32(v)))
	}
	return first
}

// largestComponent is the number of vertices of the largest component.
// Most of a graph's vertices are usually in one component: the most
// frequent label of a sample of the vertices is counted first, in one
// branch-free pass, and is the largest when it labels at least half of
// them (no other can have more); else every label is counted
// (apps.LabelCounts). On kron20 the count took ~7 ms of a ~50 ms run on
// one core, most of it the isolated vertices' labels each taking the
// place of the last in LabelCounts' table.
func largestComponent(label []int32, s *apps.Scratch) int32 {
	if len(label) == 0 {
		return 0
	}
	if c := countLabel(label, sampledLabel(label)); 2*c >= len(label) {
		return int32(c)
	}
	largest, _ := apps.LabelCounts(label, s)
	return largest
}

// sampledLabel is the most frequent label of 64 evenly spaced vertices
// (the smallest of those that tie).
func sampledLabel(label []int32) int32 {
	const samples = 64
	var seen [samples]int32
	for i := range seen {
		seen[i] = label[i*len(label)/samples]
	}
	best, bestN := seen[0], 0
	for _, l := range seen {
		n := 0
		for _, m := range seen {
			n += b2i(m == l)
		}
		if n > bestN || n == bestN && l < best {
			best, bestN = l, n
		}
	}
	return best
}

// countLabel is the number of vertices labelled l, on every core.
func countLabel(label []int32, l int32) int {
	var n atomic.Int64
	par.Blocks(len(label), func(_, lo, hi int) {
		c := 0
		for _, m := range label[lo:hi] {
			c += b2i(m == l)
		}
		n.Add(int64(c))
	})
	return int(n.Load())
}
