package reference

import (
	"math"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/graph"

	"github.com/hpgraph/hpgraph/datasets"
)

// arc is an entry of a hand-written test graph.
type arc struct {
	u, v int32
	w    float32
}

// build makes a graph from hand-written entries. The graph is weighted (and
// zero weights are real zeros) when any entry has a non-zero weight.
func build(t *testing.T, n int, directed bool, arcs []arc, opt datasets.Options) *datasets.Graph {
	t.Helper()
	el := &datasets.EdgeList{N: n, Directed: directed, Name: t.Name()}
	weighted := slices.ContainsFunc(arcs, func(a arc) bool { return a.w != 0 })
	for _, a := range arcs {
		el.Src = append(el.Src, a.u)
		el.Dst = append(el.Dst, a.v)
		if weighted {
			el.W = append(el.W, a.w)
		}
	}
	g, err := datasets.Build(el, opt)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// ids drains a gonum iterator into a slice of ids.
func ids(it graph.Nodes) []int64 {
	var out []int64
	for it.Next() {
		out = append(out, it.Node().ID())
	}
	return out
}

func TestDirectedView(t *testing.T) {
	// 0 -> 1 (w 2), 0 -> 2 (w 5, and a duplicate of weight 3), 2 -> 0 (w 1),
	// 3 isolated.
	g := build(t, 4, true, []arc{{0, 1, 2}, {0, 2, 5}, {0, 2, 3}, {2, 0, 1}}, datasets.Options{KeepDuplicates: true})
	d := NewDirected(g)

	if got := ids(d.Nodes()); !slices.Equal(got, []int64{0, 1, 2, 3}) {
		t.Errorf("Nodes = %v", got)
	}
	if d.Node(4) != nil || d.Node(-1) != nil || d.Node(3) == nil {
		t.Error("Node range check wrong")
	}
	from := d.From(0)
	if from.Len() != 3 {
		t.Errorf("From(0).Len = %d, want 3", from.Len())
	}
	if got := ids(from); !slices.Equal(got, []int64{1, 2, 2}) {
		t.Errorf("From(0) = %v, want [1 2 2] (duplicate kept)", got)
	}
	if from.Len() != 0 || from.Node() != nil {
		t.Error("exhausted iterator still has items")
	}
	from.Reset()
	if got := ids(from); len(got) != 3 {
		t.Errorf("after Reset From(0) = %v", got)
	}
	if got := ids(d.To(0)); !slices.Equal(got, []int64{2}) {
		t.Errorf("To(0) = %v, want [2]", got)
	}
	if got := ids(d.To(2)); !slices.Equal(got, []int64{0, 0}) {
		t.Errorf("To(2) = %v, want [0 0]", got)
	}
	if d.From(3) != graph.Empty || d.To(3) != graph.Empty || d.From(9) != graph.Empty {
		t.Error("empty rows and unknown vertices must give graph.Empty")
	}
	if !d.HasEdgeFromTo(0, 1) || d.HasEdgeFromTo(1, 0) || !d.HasEdgeBetween(1, 0) || d.HasEdgeBetween(1, 3) {
		t.Error("edge tests wrong")
	}
	if d.Edge(1, 0) != nil || d.WeightedEdge(1, 0) != nil {
		t.Error("missing arc must be a nil interface")
	}
	e := d.WeightedEdge(0, 1)
	if e == nil || e.From().ID() != 0 || e.To().ID() != 1 || e.Weight() != 2 {
		t.Errorf("WeightedEdge(0,1) = %v", e)
	}
	if r := e.ReversedEdge(); r.From().ID() != 1 || r.To().ID() != 0 {
		t.Errorf("ReversedEdge = %v", r)
	}
	for _, c := range []struct {
		x, y int64
		w    float64
		ok   bool
	}{
		{0, 2, 3, true}, // the lighter duplicate
		{2, 0, 1, true},
		{1, 1, 0, true}, // a vertex to itself
		{1, 0, math.Inf(1), false},
		{0, 7, math.Inf(1), false},
	} {
		if w, ok := d.Weight(c.x, c.y); w != c.w || ok != c.ok {
			t.Errorf("Weight(%d,%d) = %v, %v; want %v, %v", c.x, c.y, w, ok, c.w, c.ok)
		}
	}

	// Unweighted arcs weigh 1.
	u := NewDirected(build(t, 2, true, []arc{{0, 1, 0}}, datasets.Options{}))
	if w, ok := u.Weight(0, 1); w != 1 || !ok {
		t.Errorf("unweighted Weight = %v, %v", w, ok)
	}
	// gonum can materialize our iterators.
	if got := graph.NodesOf(d.From(0)); len(got) != 3 {
		t.Errorf("NodesOf(From(0)) has %d nodes", len(got))
	}
}

func TestUndirectedView(t *testing.T) {
	// Directed, with a reciprocated pair, a duplicate and a self loop.
	g := build(t, 5, true, []arc{{0, 1, 0}, {1, 0, 0}, {0, 3, 0}, {0, 3, 0}, {2, 0, 0}, {4, 4, 0}},
		datasets.Options{KeepDuplicates: true, KeepSelfLoops: true})
	u := NewUndirected(g)
	from := u.From(0)
	if from.Len() != 3 {
		t.Errorf("From(0).Len = %d, want 3", from.Len())
	}
	if got := ids(from); !slices.Equal(got, []int64{1, 2, 3}) {
		t.Errorf("From(0) = %v, want [1 2 3]", got)
	}
	from.Reset()
	from.Next()
	if from.Len() != 2 {
		t.Errorf("Len after one Next = %d, want 2", from.Len())
	}
	if got := ids(u.From(2)); !slices.Equal(got, []int64{0}) {
		t.Errorf("From(2) = %v, want [0] (in-neighbour)", got)
	}
	if got := ids(u.From(4)); !slices.Equal(got, []int64{4}) {
		t.Errorf("From(4) = %v, want [4] (self loop)", got)
	}
	if !u.HasEdgeBetween(2, 0) || !u.HasEdgeBetween(0, 2) || u.HasEdgeBetween(1, 2) {
		t.Error("HasEdgeBetween wrong")
	}
	if e := u.EdgeBetween(3, 0); e == nil || e.From().ID() != 3 || e.To().ID() != 0 {
		t.Errorf("EdgeBetween(3,0) = %v", e)
	}
	if u.Edge(1, 2) != nil {
		t.Error("missing edge must be a nil interface")
	}
}

func binomial3(n int64) int64 { return n * (n - 1) * (n - 2) / 6 }

func TestTrianglesComplete(t *testing.T) {
	for n := int32(1); n <= 9; n++ {
		var undirected, messy []arc
		for u := range n {
			messy = append(messy, arc{u, u, 0}) // self loops are ignored
			for v := u + 1; v < n; v++ {
				undirected = append(undirected, arc{u, v, 0})
				// One or both directions, some twice: the simple view is K_n.
				messy = append(messy, arc{u, v, 0}, arc{u, v, 0})
				if (u+v)%2 == 0 {
					messy = append(messy, arc{v, u, 0})
				}
			}
		}
		graphs := map[string]*datasets.Graph{
			"undirected": build(t, int(n), false, undirected, datasets.Options{}),
			"messy":      build(t, int(n), true, messy, datasets.Options{KeepSelfLoops: true, KeepDuplicates: true}),
		}
		for name, g := range graphs {
			total, per := Triangles(g)
			if want := binomial3(int64(n)); total != want {
				t.Errorf("K_%d %s: %d triangles, want %d", n, name, total, want)
			}
			for v, c := range per {
				if want := binomial3(int64(n)) * 3 / int64(n); c != want {
					t.Errorf("K_%d %s: vertex %d in %d triangles, want %d", n, name, v, c, want)
				}
			}
		}
	}
}

func TestTrianglesSmall(t *testing.T) {
	// Two triangles sharing edge 1-2 (a "diamond") plus a pendant 3-4.
	g := build(t, 5, false, []arc{{0, 1, 0}, {0, 2, 0}, {1, 2, 0}, {1, 3, 0}, {2, 3, 0}, {3, 4, 0}}, datasets.Options{})
	total, per := Triangles(g)
	if total != 2 || !slices.Equal(per, []int64{1, 2, 2, 1, 0}) {
		t.Errorf("diamond: total %d per %v; want 2 [1 2 2 1 0]", total, per)
	}
}

func TestComponentsDisjointPaths(t *testing.T) {
	// Paths of lengths 1..6 whose vertices are interleaved by a stride, so a
	// component's smallest id is not its first vertex along the path.
	const n = 21 // 1+2+...+6
	perm := make([]int32, n)
	for i := range perm {
		perm[i] = int32(i*5) % n // 5 is coprime with 21
	}
	var arcs []arc
	want := make([]int32, n)
	next := 0
	for length := 1; length <= 6; length++ {
		vs := perm[next : next+length]
		next += length
		for i := 1; i < length; i++ {
			// Alternate directions: components are weak.
			if i%2 == 0 {
				arcs = append(arcs, arc{vs[i-1], vs[i], 0})
			} else {
				arcs = append(arcs, arc{vs[i], vs[i-1], 0})
			}
		}
		for _, v := range vs {
			want[v] = slices.Min(vs)
		}
	}
	for _, directed := range []bool{true, false} {
		got := Components(build(t, n, directed, arcs, datasets.Options{}))
		if !slices.Equal(got, want) {
			t.Errorf("directed=%v: labels %v, want %v", directed, got, want)
		}
	}
}

func TestBFSPathAndGrid(t *testing.T) {
	const n = 10
	var path []arc
	for v := int32(1); v < n; v++ {
		path = append(path, arc{v - 1, v, 0})
	}
	for _, src := range []int32{0, 4, 9} {
		depth, err := BFS(build(t, n, false, path, datasets.Options{}), src)
		if err != nil {
			t.Fatal(err)
		}
		for v, d := range depth {
			want := int32(v) - src
			if want < 0 {
				want = -want
			}
			if d != want {
				t.Errorf("undirected path from %d: depth[%d] = %d, want %d", src, v, d, want)
			}
		}
		// Directed 0 -> 1 -> ...: vertices before src are unreachable.
		depth, err = BFS(build(t, n, true, path, datasets.Options{}), src)
		if err != nil {
			t.Fatal(err)
		}
		for v, d := range depth {
			want := int32(v) - src
			if want < 0 {
				want = -1
			}
			if d != want {
				t.Errorf("directed path from %d: depth[%d] = %d, want %d", src, v, d, want)
			}
		}
	}

	const rows, cols = 7, 9
	var grid []arc
	id := func(r, c int) int32 { return int32(r*cols + c) }
	for r := range rows {
		for c := range cols {
			if c+1 < cols {
				grid = append(grid, arc{id(r, c), id(r, c+1), 0})
			}
			if r+1 < rows {
				grid = append(grid, arc{id(r, c), id(r+1, c), 0})
			}
		}
	}
	g := build(t, rows*cols, false, grid, datasets.Options{})
	const sr, sc = 2, 5
	depth, err := BFS(g, id(sr, sc))
	if err != nil {
		t.Fatal(err)
	}
	abs := func(x int) int { return max(x, -x) }
	for r := range rows {
		for c := range cols {
			if want := int32(abs(r-sr) + abs(c-sc)); depth[id(r, c)] != want {
				t.Errorf("grid: depth(%d,%d) = %d, want %d", r, c, depth[id(r, c)], want)
			}
		}
	}
	if _, err := BFS(g, int32(rows*cols)); err == nil || !strings.Contains(err.Error(), "out of range") {
		t.Errorf("BFS with source out of range: err = %v", err)
	}
}

func TestValidateBFS(t *testing.T) {
	// 0 -> 1, 0 -> 2, 1 -> 3, 2 -> 3, 3 -> 4; 5 unreachable; 4 -> 0 back arc.
	g := build(t, 6, true, []arc{{0, 1, 0}, {0, 2, 0}, {1, 3, 0}, {2, 3, 0}, {3, 4, 0}, {4, 0, 0}}, datasets.Options{})
	depth := []int32{0, 1, 1, 2, 3, -1}
	for _, p3 := range []int32{1, 2} { // both parents of 3 are valid
		if err := ValidateBFS(g, 0, depth, []int32{0, 0, 0, p3, 3, -1}); err != nil {
			t.Errorf("valid parents rejected: %v", err)
		}
	}
	if err := ValidateBFS(g, 0, depth, nil); err != nil {
		t.Errorf("depth-only check: %v", err)
	}
	for _, c := range []struct {
		name          string
		depth, parent []int32
		want          string
	}{
		{"depth", []int32{0, 1, 1, 3, 3, -1}, nil, "vertex 3 (input id 3) has depth 3, want 2"},
		{"short", []int32{0, 1}, nil, "2 depths for 6 vertices"},
		{"source", depth, []int32{-1, 0, 0, 1, 3, -1}, "vertex 0 (input id 0) (depth 0, parent -1) is the source"},
		{"unreachable", depth, []int32{0, 0, 0, 1, 3, 4}, "vertex 5 (input id 5) (depth -1, parent 4) is unreachable"},
		{"missing", depth, []int32{0, 0, 0, -1, 3, -1}, "vertex 3 (input id 3) (depth 2, parent -1) is reachable but"},
		{"not an arc", depth, []int32{0, 0, 0, 4, 3, -1}, "vertex 3 (input id 3) (depth 2, parent 4) has a parent that is not an in-neighbour"},
	} {
		err := ValidateBFS(g, 0, c.depth, c.parent)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want it to contain %q", c.name, err, c.want)
		}
	}
	// Parent at the wrong depth: 0 -> 1 -> 2 and 0 -> 2; parent[2] = 1 is
	// an in-neighbour but one level too deep.
	tri := build(t, 3, true, []arc{{0, 1, 0}, {1, 2, 0}, {0, 2, 0}}, datasets.Options{})
	err := ValidateBFS(tri, 0, []int32{0, 1, 1}, []int32{0, 0, 1})
	if err == nil || !strings.Contains(err.Error(), "has a parent at depth 1, want 0") {
		t.Errorf("parent at wrong depth: err = %v", err)
	}
}

func TestSSSP(t *testing.T) {
	// Hand-checked:    0 -4-> 1 -1-> 3 -2-> 4
	//                  0 -1-> 2 -2-> 1,  2 -7-> 3,  3 -0-> 5, 6 isolated.
	// dist: 0, 3 (0-2-1), 1, 4 (0-2-1-3), 6, 4, +Inf.
	g := build(t, 7, true, []arc{{0, 1, 4}, {1, 3, 1}, {3, 4, 2}, {0, 2, 1}, {2, 1, 2}, {2, 3, 7}, {3, 5, 0}}, datasets.Options{})
	dist, err := SSSP(g, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{0, 3, 1, 4, 6, 4, math.Inf(1)}
	if !slices.Equal(dist, want) {
		t.Errorf("dist = %v, want %v", dist, want)
	}

	// Unweighted: hop counts.
	u := build(t, 4, false, []arc{{0, 1, 0}, {1, 2, 0}, {0, 2, 0}}, datasets.Options{})
	dist, err = SSSP(u, 0)
	if err != nil {
		t.Fatal(err)
	}
	if want := []float64{0, 1, 1, math.Inf(1)}; !slices.Equal(dist, want) {
		t.Errorf("unweighted dist = %v, want %v", dist, want)
	}

	if _, err := SSSP(u, -1); err == nil || !strings.Contains(err.Error(), "out of range") {
		t.Errorf("source -1: err = %v", err)
	}
	// Build rejects non-finite weights, so poison a built graph directly, as
	// data from outside could.
	for _, bad := range []float32{-1, float32(math.NaN())} {
		h := build(t, 3, true, []arc{{0, 1, 1}, {2, 1, 1}}, datasets.Options{})
		h.W[1] = bad // the arc 2 -> 1, unreachable from 0: still rejected
		_, err := SSSP(h, 0)
		if err == nil || !strings.Contains(err.Error(), "arc from vertex 2 (input id 2) to vertex 1 (input id 1)") {
			t.Errorf("weight %v: err = %v", bad, err)
		}
	}
}

func TestPageRank(t *testing.T) {
	// On a directed cycle every vertex keeps rank 1: converged after one
	// iteration.
	cycle := build(t, 4, true, []arc{{0, 1, 0}, {1, 2, 0}, {2, 3, 0}, {3, 0, 0}}, datasets.Options{})
	pr, iters := PageRank(cycle, 0.85, 1e-9, 100)
	if iters != 1 || !slices.Equal(pr, []float64{1, 1, 1, 1}) {
		t.Errorf("cycle: pr %v after %d iterations", pr, iters)
	}

	// 0 -> 1: PR(0) = 0.15 from the first iteration on; PR(1) goes
	// 1 -> 0.15+0.85·1 = 1 -> 0.15+0.85·0.15 = 0.2775, then stays.
	// Iteration 1 changes PR(0), 2 changes PR(1), 3 changes nothing.
	pair := build(t, 2, true, []arc{{0, 1, 0}}, datasets.Options{})
	pr, iters = PageRank(pair, 0.85, 1e-12, 100)
	if iters != 3 || math.Abs(pr[0]-0.15) > 1e-15 || math.Abs(pr[1]-0.2775) > 1e-15 {
		t.Errorf("pair: pr %v after %d iterations, want [0.15 0.2775] after 3", pr, iters)
	}
	if pr, iters = PageRank(pair, 0.85, 1e-12, 1); iters != 1 || pr[1] != 1 {
		t.Errorf("pair, maxIter 1: pr %v after %d iterations", pr, iters)
	}
	if pr, iters = PageRank(pair, 0.85, 1e-12, 0); iters != 0 || !slices.Equal(pr, []float64{1, 1}) {
		t.Errorf("pair, maxIter 0: pr %v after %d iterations", pr, iters)
	}

	// LDBC on the same pair (vertex 1 dangling), d = 0.85, n = 2:
	// it 1: PR(0) = 0.075 + 0.425·0.5 = 0.2875, PR(1) = 0.075 + 0.85·0.5 + 0.2125 = 0.7125
	// it 2: PR(0) = 0.075 + 0.425·0.7125 = 0.3778125,
	//       PR(1) = 0.075 + 0.85·0.2875 + 0.425·0.7125 = 0.6221875
	got := PageRankLDBC(pair, 0.85, 2)
	if want := []float64{0.3778125, 0.6221875}; math.Abs(got[0]-want[0]) > 1e-15 || math.Abs(got[1]-want[1]) > 1e-15 {
		t.Errorf("ldbc pair: %v, want %v", got, want)
	}
	if got := PageRankLDBC(pair, 0.85, 0); !slices.Equal(got, []float64{0.5, 0.5}) {
		t.Errorf("ldbc, 0 iterations: %v", got)
	}
}
