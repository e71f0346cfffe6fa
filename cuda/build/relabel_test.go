//go:build cgo

package build

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"sort"
	"testing"

	"github.com/hpgraph/hpgraph/cuda/internal/gputest"
	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/hyb"
)

// TestRelabelByDegreeMatchesHost: a graph renumbered by degree on the
// device equals the host's renumbering (datasets.Graph.Relabel) field by
// field, weights bit for bit: directed graphs with hubs, self loops and
// parallel arcs of several weights, undirected ones, graphs that carry
// original ids already, and a graph in degree order (itself back). The
// new graph's copy is on the device (runs on it: the cuda package's
// TestRelabelledGraphRuns). Both with the transposes whole and, for the
// undirected graphs, in chunks.
func TestRelabelByDegreeMatchesHost(t *testing.T) {
	d := needGPU(t)
	needNVRTC(t)
	rng := rand.New(rand.NewPCG(24, 21))
	type tc struct {
		name string
		g    *datasets.Graph
	}
	var cases []tc
	for _, c := range []struct{ n, arcs, hub int }{{2, 3, 0}, {33, 100, 10}, {1000, 8191, 300}, {70000, 300000, 20000}} {
		for _, weights := range []int{0, 1, 2} {
			g := gputest.DirectedGraph(rng, c.n, c.arcs, c.hub, weights)
			cases = append(cases, tc{fmt.Sprintf("directed n=%d weights=%d", c.n, weights), g})
			und := g.Symmetrized(nil) // (in ∪ out: symmetric, weights equal both ways)
			und.Directed = false
			cases = append(cases, tc{fmt.Sprintf("undirected view n=%d weights=%d", c.n, weights), und})
			// undirected with parallel edges and loops, as Build keeps them
			el := &datasets.EdgeList{N: c.n}
			for i := range g.Col {
				if i%3 == 0 {
					u := int32(sort.Search(g.N, func(v int) bool { return g.RowPtr[v+1] > int64(i) }))
					el.Src, el.Dst = append(el.Src, u), append(el.Dst, g.Col[i])
					if g.W != nil {
						el.W = append(el.W, g.W[i])
					}
				}
			}
			cases = append(cases, tc{fmt.Sprintf("undirected n=%d weights=%d", c.n, weights), gputest.Build(t, el, datasets.Options{KeepSelfLoops: true, KeepDuplicates: true})})
		}
	}
	// Original ids already (a random renumbering first), and a graph in
	// degree order.
	g := gputest.DirectedGraph(rng, 5000, 40000, 2000, 2)
	cases = append(cases, tc{"carrying ids", g.Permute(perm32(rng, g.N))})
	cases = append(cases, tc{"in degree order", g.Relabel(datasets.RelabelDegree)})
	keep := transposeChunkArcs
	defer func() { transposeChunkArcs = keep }()
	for _, chunk := range []int64{keep, 97} { // (97: an undirected graph's transposes in chunks)
		for i, c := range cases {
			parts := 1 + 2*(i%2) // (every other case interleaved over 3 parts)
			transposeChunkArcs = chunk
			c.name = fmt.Sprintf("%s, chunks of %d arcs, %d parts", c.name, chunk, parts)
			want := c.g.RelabelParts(datasets.RelabelDegree, parts)
			got, err := RelabelByDegree(c.g, parts, func() (*Device, error) { return d, nil })
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			if (want == c.g) != (got == c.g) {
				t.Fatalf("%s: the host returned the graph itself: %v, the device: %v", c.name, want == c.g, got == c.g)
			}
			if !slices.Equal(got.RowPtr, want.RowPtr) || !slices.Equal(got.Col, want.Col) || !slices.Equal(got.IDs, want.IDs) ||
				got.N != want.N || got.Directed != want.Directed || got.RepeatFree != want.RepeatFree || got.Name != want.Name ||
				got.IDBase != want.IDBase || !reflect.DeepEqual(got.Stats, want.Stats) || (got.W == nil) != (want.W == nil) {
				t.Fatalf("%s: the device's renumbering differs from the host's", c.name)
			}
			for i := range want.W {
				if math.Float32bits(got.W[i]) != math.Float32bits(want.W[i]) {
					t.Fatalf("%s: weight %d is %v, the host's %v", c.name, i, got.W[i], want.W[i])
				}
			}
			if got == c.g {
				continue
			}
			if d.csrFor(hyb.CSR{RowPtr: got.RowPtr, Col: got.Col, Val: got.W}) == nil {
				t.Errorf("%s: the renumbered graph's copy is not on the device", c.name)
			}
			dropAllCSRs(d)
		}
	}
}

// perm32 is a random permutation of [0, n).
func perm32(rng *rand.Rand, n int) []int32 {
	p := make([]int32, n)
	for i, v := range rng.Perm(n) {
		p[i] = int32(v)
	}
	return p
}

// TestRelabelModelMatchesHost runs RelabelByDegree's steps on the host
// (no GPU needed): the ids sorted stably by maxDeg - degree, the columns
// renumbered, transposeModel (the device transpose's arithmetic), the
// entries renumbered, transposeModel again; the result is the host's
// renumbering's rows, columns and weights.
func TestRelabelModelMatchesHost(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 22))
	for _, c := range []struct{ n, arcs, hub int }{{2, 3, 0}, {33, 100, 10}, {1000, 8191, 300}, {20000, 90000, 3000}} {
		for _, weights := range []int{0, 1, 2} {
			g := gputest.DirectedGraph(rng, c.n, c.arcs, c.hub, weights)
			want := g.Relabel(datasets.RelabelDegree)
			newID := gputest.ByDecreasing(g.N, g.Degree)
			renumber := func(col []int32) []int32 {
				out := make([]int32, len(col))
				for i, c := range col {
					out[i] = newID[c]
				}
				return out
			}
			fromBits := func(b []uint32) []float32 {
				if b == nil {
					return nil
				}
				w := make([]float32, len(b))
				for i, x := range b {
					w[i] = math.Float32frombits(x)
				}
				return w
			}
			tRow, tCol, tW := transposeModel(&datasets.Graph{N: g.N, RowPtr: g.RowPtr, Col: renumber(g.Col), W: g.W, Directed: true})
			rowPtr, col, w := transposeModel(&datasets.Graph{N: g.N, RowPtr: tRow, Col: renumber(tCol), W: fromBits(tW), Directed: true})
			what := fmt.Sprintf("n=%d arcs=%d weights=%d", c.n, c.arcs, weights)
			if !slices.Equal(rowPtr, want.RowPtr) || !slices.Equal(col, want.Col) && len(col) > 0 {
				t.Fatalf("%s: the model's renumbering differs from the host's", what)
			}
			for i := range want.W {
				if math.Float32bits(want.W[i]) != w[i] {
					t.Fatalf("%s: weight %d differs", what, i)
				}
			}
		}
	}
}
