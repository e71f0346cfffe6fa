package reference

import (
	"maps"
	"math"
	"slices"
	"testing"

	"github.com/hpgraph/hpgraph/apps/reference/refdata"
	"github.com/hpgraph/hpgraph/datasets"
)

// undirectedSimple is how the reference answers in computed_stats.tsv and
// LAGraph's counts see every graph.
var undirectedSimple = datasets.Options{Symmetrize: true, Weights: datasets.WeightsNone}

// loadGraph reads a shared test graph (path relative to the datasets
// directory) with datasets.Load and builds it with opt, skipping the test
// when the file is absent.
func loadGraph(t *testing.T, rel string, opt datasets.Options) *datasets.Graph {
	t.Helper()
	path, ok := refdata.File(rel)
	if !ok {
		t.Skipf("%s not present", rel)
	}
	g, err := datasets.Load(path, opt)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// needShared skips a test when shared/datasets is not beside the project.
func needShared(t *testing.T) {
	t.Helper()
	if _, ok := refdata.Dir(); !ok {
		t.Skip("shared/datasets not present")
	}
}

// componentStats returns the number of components and the size of the
// largest one.
func componentStats(labels []int32) (count, largest int64) {
	size := make(map[int32]int64)
	for _, l := range labels {
		size[l]++
	}
	for _, s := range size {
		largest = max(largest, s)
	}
	return int64(len(size)), largest
}

// vertexWithID returns the vertex whose input id is id.
func vertexWithID(t *testing.T, g *datasets.Graph, id int64) int32 {
	t.Helper()
	for v := range int32(g.N) {
		if g.OriginalID(v) == id {
			return v
		}
	}
	t.Fatalf("%s: no vertex has input id %d", g.Name, id)
	return -1
}

// closeTo compares with a relative tolerance; exact matches (zero, equal
// infinities) always pass.
func closeTo(got, want, rel float64) bool {
	return got == want || math.Abs(got-want) <= rel*math.Abs(want)
}

func TestComputedStats(t *testing.T) {
	needShared(t)
	stats, err := refdata.Stats()
	if err != nil {
		t.Fatal(err)
	}
	if len(stats) == 0 {
		t.Fatal("computed_stats.tsv has no rows")
	}
	for _, rel := range slices.Sorted(maps.Keys(stats)) {
		s := stats[rel]
		t.Run(rel, func(t *testing.T) {
			g := loadGraph(t, rel, undirectedSimple)
			// The first two describe the graph, not an algorithm: they
			// show that the loaded graph is the one the row is about.
			if g.Edges() != s.UndirectedEdges {
				t.Errorf("loaded %d undirected edges, stats say %d", g.Edges(), s.UndirectedEdges)
			}
			maxDeg := 0
			for v := range int32(g.N) {
				maxDeg = max(maxDeg, g.Degree(v))
			}
			if int64(maxDeg) != s.MaxDegreeUndirected {
				t.Errorf("max degree %d, stats say %d", maxDeg, s.MaxDegreeUndirected)
			}

			if total, _ := Triangles(g); total != s.Triangles {
				t.Errorf("triangles %d, want %d", total, s.Triangles)
			}
			// The stats count every id in [MinID, MaxID]; ids missing from
			// our vertex set are singletons there, and our vertices outside
			// the range are singletons here.
			count, largest := componentStats(Components(g))
			if want := s.ComponentsInRange - (s.MaxID - s.MinID + 1) + int64(g.N); count != want {
				t.Errorf("%d components over %d vertices, want %d (%d over ids %d..%d)",
					count, g.N, want, s.ComponentsInRange, s.MinID, s.MaxID)
			}
			if largest != s.LargestComponent {
				t.Errorf("largest component %d, want %d", largest, s.LargestComponent)
			}
			depth, err := BFS(g, vertexWithID(t, g, s.BFSSrc))
			if err != nil {
				t.Fatal(err)
			}
			var reached, deepest int64
			for _, d := range depth {
				if d >= 0 {
					reached++
					deepest = max(deepest, int64(d))
				}
			}
			if reached != s.BFSReached || deepest != s.BFSDepth {
				t.Errorf("bfs from id %d reached %d to depth %d, want %d to depth %d",
					s.BFSSrc, reached, deepest, s.BFSReached, s.BFSDepth)
			}
		})
	}
}

func TestLAGraphTriangles(t *testing.T) {
	needShared(t)
	want, err := refdata.LAGraphTriangles()
	if err != nil {
		t.Fatal(err)
	}
	for name, n := range want {
		t.Run(name, func(t *testing.T) {
			rel, ok := refdata.FindGraph(name)
			if !ok {
				t.Skipf("%s not shipped", name)
			}
			if total, _ := Triangles(loadGraph(t, rel, undirectedSimple)); total != n {
				t.Errorf("%d triangles, want %d", total, n)
			}
		})
	}
}

func TestLAGraphComponents(t *testing.T) {
	needShared(t)
	want, err := refdata.LAGraphComponents()
	if err != nil {
		t.Fatal(err)
	}
	for name, n := range want {
		t.Run(name, func(t *testing.T) {
			rel, ok := refdata.FindGraph(name)
			if !ok {
				t.Skipf("%s not shipped", name)
			}
			// Matrix Market ids are 1..n, so our n vertices are LAGraph's.
			if count, _ := componentStats(Components(loadGraph(t, rel, undirectedSimple))); count != n {
				t.Errorf("%d components, want %d", count, n)
			}
		})
	}
}

func TestLAGraphKarateBFS(t *testing.T) {
	needShared(t)
	ref, err := refdata.LAGraphKarateBFS()
	if err != nil {
		t.Fatal(err)
	}
	g := loadGraph(t, "tiny/karate.mtx", undirectedSimple)
	depth, err := BFS(g, ref.Source)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(depth, ref.Levels) {
		t.Fatalf("levels %v, want %v", depth, ref.Levels)
	}
	// Our parent rule accepts exactly LAGraph's valid parents: for every
	// vertex, the in-neighbours one level up are the listed set.
	view := NewDirected(g)
	for v := range int32(g.N) {
		var ours []int32
		if v == ref.Source {
			ours = []int32{v}
		} else {
			for it := view.To(int64(v)); it.Next(); {
				if u := int32(it.Node().ID()); depth[u] == depth[v]-1 {
					ours = append(ours, u)
				}
			}
		}
		if !slices.Equal(ours, ref.Parents[v]) {
			t.Errorf("vertex %d: valid parents %v, LAGraph lists %v", v, ours, ref.Parents[v])
		}
	}
	// ValidateBFS accepts every combination LAGraph allows (each choice
	// exercised) and rejects a parent outside the set.
	for k := range 3 {
		parent := make([]int32, g.N)
		for v, ps := range ref.Parents {
			parent[v] = ps[k%len(ps)]
		}
		if err := ValidateBFS(g, ref.Source, depth, parent); err != nil {
			t.Errorf("choice %d: %v", k, err)
		}
		parent[16] = 0 // karate vertex 16's parents are 5 and 6
		if err := ValidateBFS(g, ref.Source, depth, parent); err == nil {
			t.Errorf("choice %d: parent 0 for vertex 16 accepted", k)
		}
	}
}

func TestLAGraphPageRank(t *testing.T) {
	needShared(t)
	// LAGraph's reference is MATLAB's centrality('pagerank'): the LDBC
	// iteration (dangling rank spread over all vertices) from 1/n, stopped
	// at the first iteration whose largest change is at most its default
	// tolerance 1e-4. So it is not the converged vector (it differs from it
	// by up to ~1e-4 relative); with the same stopping rule we reproduce
	// all its printed digits. The graphs are read as LAGraph reads them:
	// directed as stored, diagonal (west0067 has two self loops) included.
	for _, name := range []string{"karate.mtx", "ldbc-directed-example.mtx", "west0067.mtx"} {
		t.Run(name, func(t *testing.T) {
			want, err := refdata.LAGraphPageRank(name)
			if err != nil {
				t.Fatal(err)
			}
			g := loadGraph(t, "tiny/"+name, datasets.Options{KeepSelfLoops: true})
			const maxIter = 100 // MATLAB's default
			got := PageRankLDBC(g, 0.85, 0)
			for k := 1; k <= maxIter; k++ {
				prev := got
				got = PageRankLDBC(g, 0.85, k)
				change := 0.0
				for v := range got {
					change = max(change, math.Abs(got[v]-prev[v]))
				}
				if change <= 1e-4 {
					break
				}
			}
			if len(got) != len(want) {
				t.Fatalf("%d ranks, want %d", len(got), len(want))
			}
			for v := range want {
				// The reference prints 10 decimals.
				if math.Abs(got[v]-want[v]) > 1e-9 {
					t.Errorf("vertex %d: rank %.10f, want %.10f", v, got[v], want[v])
				}
			}
		})
	}
}

// ldbcGraph builds an LDBC example graph with its weights.
func ldbcGraph(t *testing.T, name string) (*datasets.Graph, refdata.LDBCParams) {
	t.Helper()
	needShared(t)
	el, err := refdata.LDBCExample(name)
	if err != nil {
		t.Fatal(err)
	}
	g, err := datasets.Build(el, datasets.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := refdata.LDBCExampleParams(name)
	if err != nil {
		t.Fatal(err)
	}
	return g, p
}

// checkLDBC compares our value for every vertex with the expected output,
// keyed by input id, and checks the output covers exactly our vertices.
func checkLDBC[T any](t *testing.T, g *datasets.Graph, want map[int64]T, got func(v int32) T, equal func(got, want T) bool) {
	t.Helper()
	if len(want) != g.N {
		t.Errorf("expected output has %d vertices, graph %d", len(want), g.N)
	}
	for v := range int32(g.N) {
		id := g.OriginalID(v)
		w, ok := want[id]
		if !ok {
			t.Errorf("vertex id %d missing from expected output", id)
			continue
		}
		if x := got(v); !equal(x, w) {
			t.Errorf("vertex id %d: got %v, want %v", id, x, w)
		}
	}
}

func TestLDBCExamples(t *testing.T) {
	for _, name := range refdata.LDBCExamples {
		t.Run(name, func(t *testing.T) {
			g, p := ldbcGraph(t, name)

			want, err := refdata.LDBCOutputBFS(name)
			if err != nil {
				t.Fatal(err)
			}
			depth, err := BFS(g, vertexWithID(t, g, p.BFSSource))
			if err != nil {
				t.Fatal(err)
			}
			checkLDBC(t, g, want, func(v int32) int64 {
				if depth[v] < 0 {
					return refdata.LDBCUnreachable
				}
				return int64(depth[v])
			}, func(a, b int64) bool { return a == b })

			wantDist, err := refdata.LDBCOutputSSSP(name)
			if err != nil {
				t.Fatal(err)
			}
			dist, err := SSSP(g, vertexWithID(t, g, p.SSSPSource))
			if err != nil {
				t.Fatal(err)
			}
			// Our weights are float32, LDBC's float64: 1e-6 relative.
			close6 := func(a, b float64) bool { return closeTo(a, b, 1e-6) }
			checkLDBC(t, g, wantDist, func(v int32) float64 { return dist[v] }, close6)

			wantPR, err := refdata.LDBCOutputPR(name)
			if err != nil {
				t.Fatal(err)
			}
			pr := PageRankLDBC(g, p.Damping, p.PRIterations)
			checkLDBC(t, g, wantPR, func(v int32) float64 { return pr[v] }, close6)

			wantWCC, err := refdata.LDBCOutputWCC(name)
			if err != nil {
				t.Fatal(err)
			}
			labels := Components(g)
			checkLDBC(t, g, wantWCC, func(v int32) int64 { return g.OriginalID(labels[v]) },
				func(a, b int64) bool { return a == b })

			wantLCC, err := refdata.LDBCOutputLCC(name)
			if err != nil {
				t.Fatal(err)
			}
			lcc := LCC(g)
			checkLDBC(t, g, wantLCC, func(v int32) float64 { return lcc[v] }, close6)
		})
	}
}
