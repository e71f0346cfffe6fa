package registry_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/hpgraph/hpgraph/apps"
	"github.com/hpgraph/hpgraph/apps/bfs"
	"github.com/hpgraph/hpgraph/apps/cc"
	"github.com/hpgraph/hpgraph/apps/internal/apptest"
	"github.com/hpgraph/hpgraph/apps/pagerank"
	"github.com/hpgraph/hpgraph/apps/reference"
	"github.com/hpgraph/hpgraph/apps/sssp"
	"github.com/hpgraph/hpgraph/apps/tc"
	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/vertexprog"
)

// sparseIDs returns n distinct ids in random order, negative ones and
// ones near the ends of int64 among them, so that neither the order of
// the vertices nor a subtraction gives them.
func sparseIDs(n int, seed uint64) []int64 {
	rng := rand.New(rand.NewPCG(seed, 3))
	seen := map[int64]bool{}
	ids := make([]int64, 0, n)
	for _, id := range []int64{math.MinInt64, math.MaxInt64, -1, 0} {
		if len(ids) < n {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	for len(ids) < n {
		id := rng.Int64N(1<<40) - 1<<39
		if !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	rng.Shuffle(len(ids), func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
	return ids
}

// withIDs rebuilds g with ids[v] the original id of its vertex v, cleaned
// as opt says (renumbered, when opt.Relabel asks).
func withIDs(t *testing.T, g *datasets.Graph, ids []int64, opt datasets.Options) *vertexprog.Graph {
	t.Helper()
	el := g.EdgeList()
	el.IDs = ids
	d, err := datasets.Build(el, opt)
	if err != nil {
		t.Fatal(err)
	}
	return vertexprog.NewGraph(d)
}

// idCase is a test graph under an id scheme: ids[v] is the original id
// of the input's vertex v.
type idCase struct {
	g   *vertexprog.Graph
	ids []int64
}

// idCases are the id schemes of the tests: the generator's 0..N-1,
// Matrix Market's 1-based ids, ids from a negative base, and sparse
// random ids; each in the input's order and renumbered by degree.
func idCases(t *testing.T, g *datasets.Graph) map[string]idCase {
	t.Helper()
	out := map[string]idCase{}
	for _, r := range []datasets.Relabeling{datasets.RelabelNone, datasets.RelabelDegree} {
		opt := datasets.Options{KeepSelfLoops: true, KeepDuplicates: true, Relabel: r}
		for _, base := range []int64{0, 1, -7} {
			el := g.EdgeList()
			el.IDBase = base
			d, err := datasets.Build(el, opt)
			if err != nil {
				t.Fatal(err)
			}
			ids := make([]int64, g.N)
			for v := range ids {
				ids[v] = int64(v) + base
			}
			out[fmt.Sprintf("base%d/%s", base, r)] = idCase{vertexprog.NewGraph(d), ids}
		}
		ids := sparseIDs(g.N, 11)
		out["sparse/"+r.String()] = idCase{withIDs(t, g, ids, opt), ids}
	}
	return out
}

func TestVertexAndIDRoundTrip(t *testing.T) {
	for _, tg := range apptest.Shapes(t, datasets.Options{}) {
		for name, c := range idCases(t, tg.G) {
			g := c.g
			t.Run(tg.Name+"/"+name, func(t *testing.T) {
				seen := map[int64]bool{}
				for v := int32(0); v < int32(g.N()); v++ {
					id := mustID(t, g, v)
					if seen[id] {
						t.Fatalf("id %d given twice", id)
					}
					seen[id] = true
					got, err := g.Vertex(id)
					if err != nil || got != v {
						t.Fatalf("Vertex(ID(%d) = %d) = %d, %v", v, id, got, err)
					}
				}
				for _, id := range []int64{math.MinInt64, math.MinInt64 + 1, math.MaxInt64, math.MaxInt64 - 1, -8, -1, 0, 1, int64(g.N()), int64(g.N()) + 1, int64(g.N()) - 7} {
					v, err := g.Vertex(id)
					if seen[id] {
						if err != nil || mustID(t, g, v) != id {
							t.Fatalf("Vertex(%d) = %d, %v", id, v, err)
						}
						continue
					}
					if !errors.Is(err, vertexprog.ErrUnknownID) {
						t.Fatalf("Vertex(%d) of a graph without it = %d, %v; want ErrUnknownID", id, v, err)
					}
				}
			})
		}
	}
}

// The relabelled graph keeps each vertex's id: the ids of vertex v's
// neighbours are the same whatever the order.
func TestRelabelKeepsIDs(t *testing.T) {
	for _, tg := range apptest.Shapes(t, datasets.Options{}) {
		ids := sparseIDs(tg.G.N, 5)
		plain := withIDs(t, tg.G, ids, datasets.Options{})
		renum := withIDs(t, tg.G, ids, datasets.Options{Relabel: datasets.RelabelDegree})
		for v := int32(0); v < int32(plain.N()); v++ {
			w, err := renum.Vertex(mustID(t, plain, v))
			if err != nil {
				t.Fatal(err)
			}
			a, b := []int64{}, []int64{}
			for _, u := range plain.OutNeighbors(v) {
				a = append(a, mustID(t, plain, u))
			}
			for _, u := range renum.OutNeighbors(w) {
				b = append(b, mustID(t, renum, u))
			}
			slices.Sort(a)
			slices.Sort(b)
			if !slices.Equal(a, b) {
				t.Fatalf("%s: id %d: out-neighbours %v, renumbered %v", tg.Name, mustID(t, plain, v), a, b)
			}
		}
	}
}

func TestByID(t *testing.T) {
	d := apptest.Shapes(t, datasets.Options{})[4].G // disconnected, with isolated vertices
	g := withIDs(t, d, sparseIDs(d.N, 2), datasets.Options{Relabel: datasets.RelabelDegree})
	vals := make([]int32, g.N())
	for v := range vals {
		vals[v] = int32(v)
	}
	m, err := vertexprog.ByID(g, vals)
	if err != nil {
		t.Fatal(err)
	}
	if len(m) != g.N() {
		t.Fatalf("%d entries for %d vertices", len(m), g.N())
	}
	for id, v := range m {
		if w, err := g.Vertex(id); err != nil || w != v {
			t.Fatalf("ByID[%d] = %d, Vertex = %d, %v", id, v, w, err)
		}
	}
	if _, err := vertexprog.ByID(g, vals[1:]); err == nil {
		t.Error("ByID with a short slice: no error")
	}
	if _, err := vertexprog.ByID[int32](g, nil); err == nil {
		t.Error("ByID with nil values: no error")
	}
	if _, err := vertexprog.ByID(nil, vals); !errors.Is(err, vertexprog.ErrNilGraph) {
		t.Errorf("ByID on a nil graph: %v", err)
	}
}

// The id-based entry points against the gonum reference, run on the
// graph in the input's order: each source by id, each answer by id.
func TestIDEntryPointsMatchReference(t *testing.T) {
	for _, tg := range apptest.Shapes(t, apptest.Weighted) {
		ref := tg.G
		refLabels := reference.Components(ref)
		for name, ic := range idCases(t, ref) {
			g, ids := ic.g, ic.ids
			t.Run(tg.Name+"/"+name, func(t *testing.T) {
				for _, src := range apptest.Sources(ref) {
					wantDepth, err := reference.BFS(ref, src)
					if err != nil {
						t.Fatal(err)
					}
					b, err := bfs.From(g, ids[src], vertexprog.Options{})
					if err != nil {
						t.Fatal(err)
					}
					depths, err := b.Depths()
					if err != nil {
						t.Fatal(err)
					}
					parents, err := b.Parents()
					if err != nil {
						t.Fatal(err)
					}
					for v, want := range wantDepth {
						got, err := b.Depth(ids[v])
						if err != nil || got != int(want) {
							t.Fatalf("bfs from %d: depth of %d = %d, %v; want %d", ids[src], ids[v], got, err, want)
						}
						d, ok := depths[ids[v]]
						if ok != (want >= 0) || (ok && d != int(want)) {
							t.Fatalf("bfs from %d: Depths[%d] = %d, %v; want %d", ids[src], ids[v], d, ok, want)
						}
						if _, ok := parents[ids[v]]; ok != (want >= 0) {
							t.Fatalf("bfs from %d: Parents has %d: %v; depth %d", ids[src], ids[v], ok, want)
						}
						path, err := b.Path(ids[v])
						if err != nil {
							t.Fatal(err)
						}
						if want < 0 {
							if path != nil {
								t.Fatalf("bfs from %d: path to unreached %d: %v", ids[src], ids[v], path)
							}
							continue
						}
						checkPath(t, g, path, ids[src], ids[v], int(want))
					}

					wantDist, err := reference.SSSP(ref, src)
					if err != nil {
						t.Fatal(err)
					}
					s, err := sssp.From(g, ids[src], vertexprog.Options{})
					if err != nil {
						t.Fatal(err)
					}
					dists, err := s.Dists()
					if err != nil {
						t.Fatal(err)
					}
					for v, want := range wantDist {
						got, err := s.Dist(ids[v])
						if err != nil || !apptest.CloseRel(got, want, 1e-6) && got != want {
							t.Fatalf("sssp from %d: dist of %d = %v, %v; want %v", ids[src], ids[v], got, err, want)
						}
						if d, ok := dists[ids[v]]; ok == math.IsInf(want, 1) || (ok && !apptest.CloseRel(d, want, 1e-6)) {
							t.Fatalf("sssp from %d: Dists[%d] = %v, %v; want %v", ids[src], ids[v], d, ok, want)
						}
					}
				}

				// Components: labelled by the smallest id, from the
				// reference's labels (the smallest index) by hand.
				first := map[int32]int64{}
				for v, l := range refLabels {
					if f, ok := first[l]; !ok || ids[v] < f {
						first[l] = ids[v]
					}
				}
				c, err := cc.RunByID(g, vertexprog.Options{})
				if err != nil {
					t.Fatal(err)
				}
				if c.Components != len(first) {
					t.Fatalf("%d components, reference %d", c.Components, len(first))
				}
				labels := c.Labels()
				for v, l := range refLabels {
					got, err := c.Label(ids[v])
					if err != nil || got != first[l] || labels[ids[v]] != first[l] {
						t.Fatalf("label of %d = %d (map %d), %v; want %d", ids[v], got, labels[ids[v]], err, first[l])
					}
				}
				groups := c.Groups()
				if len(groups) != c.Components {
					t.Fatalf("%d groups for %d components", len(groups), c.Components)
				}
				total := 0
				for i, grp := range groups {
					total += len(grp)
					if !slices.IsSorted(grp) || (i > 0 && groups[i-1][0] >= grp[0]) {
						t.Fatalf("groups out of order at %d", i)
					}
					for _, id := range grp {
						if labels[id] != grp[0] {
							t.Fatalf("id %d in group %d, labelled %d", id, grp[0], labels[id])
						}
					}
				}
				if total != g.N() {
					t.Fatalf("groups hold %d ids of %d", total, g.N())
				}
			})
		}
	}
}

// checkPath checks that path runs from src to dst along arcs of g in
// depth steps.
func checkPath(t *testing.T, g *vertexprog.Graph, path []int64, src, dst int64, depth int) {
	t.Helper()
	if len(path) != depth+1 || path[0] != src || path[len(path)-1] != dst {
		t.Fatalf("path from %d to %d at depth %d: %v", src, dst, depth, path)
	}
	for i := 1; i < len(path); i++ {
		u, err1 := g.Vertex(path[i-1])
		v, err2 := g.Vertex(path[i])
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if _, ok := slices.BinarySearch(g.OutNeighbors(u), v); !ok {
			t.Fatalf("path %v: no arc %d -> %d", path, path[i-1], path[i])
		}
	}
}

func TestIDMisuse(t *testing.T) {
	el := &datasets.EdgeList{N: 4, Directed: true, Src: []int32{0, 1, 2}, Dst: []int32{1, 2, 3},
		W: []float32{1, -2, 3}, IDs: []int64{40, 10, 30, 20}}
	d, err := datasets.Build(el, datasets.Options{})
	if err != nil {
		t.Fatal(err)
	}
	g := vertexprog.NewGraph(d)

	is := func(name string, err error, targets ...error) {
		t.Helper()
		if err == nil {
			t.Errorf("%s: no error", name)
			return
		}
		for _, target := range targets {
			if !errors.Is(err, target) {
				t.Errorf("%s: %v is not %v", name, err, target)
			}
		}
	}
	for name, bad := range map[string]*vertexprog.Graph{"nil": nil, "zero": {}, "NewGraph(nil)": vertexprog.NewGraph(nil)} {
		_, err := bfs.From(bad, 40, vertexprog.Options{})
		is(name+" bfs", err, apps.ErrInvalidInput, vertexprog.ErrNilGraph)
		_, err = sssp.From(bad, 40, vertexprog.Options{})
		is(name+" sssp", err, apps.ErrInvalidInput, vertexprog.ErrNilGraph)
		_, err = cc.RunByID(bad, vertexprog.Options{})
		is(name+" cc", err, apps.ErrInvalidInput, vertexprog.ErrNilGraph)
		_, err = bad.Vertex(40)
		is(name+" Vertex", err, vertexprog.ErrNilGraph)
	}
	for _, id := range []int64{0, 1, 3, 41, -40, math.MinInt64, math.MaxInt64} {
		_, err := bfs.From(g, id, vertexprog.Options{})
		is(fmt.Sprint("bfs from ", id), err, apps.ErrInvalidInput, vertexprog.ErrUnknownID)
		_, err = sssp.From(g, id, vertexprog.Options{})
		is(fmt.Sprint("sssp from ", id), err, apps.ErrInvalidInput, vertexprog.ErrUnknownID)
	}
	// The edge 10 -> 30 weighs -2.
	_, err = sssp.From(g, 40, vertexprog.Options{})
	is("sssp with a negative weight", err, apps.ErrInvalidInput)

	b, err := bfs.From(g, 40, vertexprog.Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = b.Depth(41)
	is("Depth of an unknown id", err, apps.ErrInvalidInput, vertexprog.ErrUnknownID)
	_, err = b.Path(41)
	is("Path to an unknown id", err, apps.ErrInvalidInput, vertexprog.ErrUnknownID)
	if p, err := b.Path(20); err != nil || !slices.Equal(p, []int64{40, 10, 30, 20}) {
		t.Errorf("Path(20) = %v, %v", p, err)
	}
	c, err := cc.RunByID(g, vertexprog.Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Label(41)
	is("Label of an unknown id", err, apps.ErrInvalidInput, vertexprog.ErrUnknownID)
	if l, err := c.Label(40); err != nil || l != 10 {
		t.Errorf("Label(40) = %d, %v; want 10", l, err)
	}

	// A SummaryOnly run keeps no depths where a device backend runs it
	// (the CPU ignores SummaryOnly): its lookups are errors, not panics.
	s, err := bfs.From(g, 40, vertexprog.Options{SummaryOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if s.Index.Depth != nil {
		if d, err := s.Depth(20); err != nil || d != 3 {
			t.Errorf("Depth(20) = %d, %v; want 3", d, err)
		}
		return
	}
	if _, err := s.Depth(20); err == nil {
		t.Error("Depth of a SummaryOnly run: no error")
	}
	if _, err := s.Depths(); err == nil {
		t.Error("Depths of a SummaryOnly run: no error")
	}
	if _, err := s.Parents(); err == nil {
		t.Error("Parents of a SummaryOnly run: no error")
	}
	if _, err := s.Path(20); err == nil {
		t.Error("Path of a SummaryOnly run: no error")
	}
}

// TestIndexAPIsRefuseNilGraph: the index-based entry points return an
// error for a nil graph, as the id-based ones do, and never panic.
func TestIndexAPIsRefuseNilGraph(t *testing.T) {
	if _, err := bfs.Run(nil, 0, vertexprog.Options{}); !errors.Is(err, vertexprog.ErrNilGraph) {
		t.Errorf("BFS(nil): %v, want ErrNilGraph", err)
	}
	if _, err := sssp.Run(nil, 0, vertexprog.Options{}); !errors.Is(err, vertexprog.ErrNilGraph) {
		t.Errorf("SSSP(nil): %v, want ErrNilGraph", err)
	}
	if _, err := pagerank.LDBC(nil, 0.85, 3, vertexprog.Options{}); !errors.Is(err, vertexprog.ErrNilGraph) {
		t.Errorf("PageRankLDBC(nil): %v, want ErrNilGraph", err)
	}
	if _, err := tc.Run(nil, false, vertexprog.Options{}); !errors.Is(err, vertexprog.ErrNilGraph) {
		t.Errorf("Triangles(nil): %v, want ErrNilGraph", err)
	}
	if _, err := cc.Run(nil, vertexprog.Options{}); !errors.Is(err, vertexprog.ErrNilGraph) {
		t.Errorf("ConnectedComponents(nil): %v, want ErrNilGraph", err)
	}
}

// mustID is g.ID(v) of a v in range.
func mustID(t testing.TB, g *vertexprog.Graph, v int32) int64 {
	t.Helper()
	id, err := g.ID(v)
	if err != nil {
		t.Fatalf("ID(%d): %v", v, err)
	}
	return id
}
