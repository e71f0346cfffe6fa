package vertexprog

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/hyb"
)

// directedTestGraph is a random directed graph of n vertices and about
// arcs arcs, with self loops, parallel arcs (of equal and of different
// weights), empty rows, and hubs among both tails and heads.
func directedTestGraph(t *testing.T, rng *rand.Rand, n, arcs int, weighted bool) *datasets.Graph {
	t.Helper()
	el := &datasets.EdgeList{N: n, Directed: true}
	for range arcs {
		u, v := int32(rng.IntN(n)), int32(rng.IntN(n))
		switch rng.IntN(10) {
		case 0:
			u = int32(rng.IntN(min(n, 3))) // hub tails
		case 1:
			v = int32(rng.IntN(min(n, 3))) // hub heads
		case 2:
			v = u // a self loop
		}
		el.Src, el.Dst = append(el.Src, u), append(el.Dst, v)
		if weighted {
			el.W = append(el.W, float32(1+rng.IntN(8)))
		}
		if rng.IntN(20) == 0 { // a parallel arc
			el.Src, el.Dst = append(el.Src, u), append(el.Dst, v)
			if weighted {
				el.W = append(el.W, float32(1+rng.IntN(8)))
			}
		}
	}
	d, err := datasets.Build(el, datasets.Options{KeepSelfLoops: true, KeepDuplicates: true})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

var testSplits = []struct {
	name string
	opt  hyb.Options
}{
	{"coo", hyb.Options{RelativeSpeed: 3, Breakeven: 1 << 30}},
	{"mixed", hyb.Options{RelativeSpeed: 3, Breakeven: 0}},
	{"ell", hyb.Options{RelativeSpeed: 1e-9, Breakeven: 0}},
	{"k2", hyb.Options{RelativeSpeed: 1e-9, Breakeven: 0, MaxK: 2}},
	{"default", hyb.DefaultOptions()},
}

// TestInRowPtr: the in-degrees counted over the columns are the host
// transpose's row pointer.
func TestInRowPtr(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 5))
	for _, n := range []int{1, 7, 5000, 70000} {
		d := directedTestGraph(t, rng, n, 3*n, false)
		for _, hot := range []int{0, 1, 100, 1 << 15} {
			inHot = hot
			if got, want := inRowPtr(d), d.Transpose().RowPtr; !slices.Equal(got, want) {
				t.Errorf("n=%d, %d heads counted per block: counted in-degrees differ from the transpose's rows", n, hot)
			}
		}
		inHot = 1 << 15
	}
}

// TestDeviceInMatrixDescribed: for a run that may go to a device, a
// directed graph's in-matrix is described as the out-CSR's transpose
// without the host building the transpose, with the host-described
// matrix's shape, degrees and bounds; materialized on the host (the CPU
// engine), it builds the transpose then and equals the host-described
// matrix array by array, in every split, weighted and not.
func TestDeviceInMatrixDescribed(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 6))
	for _, n := range []int{1, 33, 3000, 40000} {
		for _, weighted := range []bool{false, true} {
			d := directedTestGraph(t, rng, n, 4*n, weighted)
			for _, s := range testSplits {
				what := fmt.Sprintf("n=%d weighted=%v %s", n, weighted, s.name)
				g, host := NewGraph(d), NewGraph(d)
				m, err := g.matrixFor(rowsIn, s.opt, true, nil)
				if err != nil {
					t.Fatal(err)
				}
				want, err := host.matrixFor(rowsIn, s.opt, false, nil)
				if err != nil {
					t.Fatal(err)
				}
				if g.InAdjacencyBuilt() || !host.InAdjacencyBuilt() {
					t.Fatalf("%s: described for a device, the transpose was built (%v), or for the host it was not (%v)", what, g.InAdjacencyBuilt(), host.InAdjacencyBuilt())
				}
				if m.TransposeOf == nil || want.TransposeOf != nil || !sameArray(m.TransposeOf.Col, d.Col) {
					t.Fatalf("%s: the device's matrix is not the out-CSR's transpose, or the host's is", what)
				}
				if m.K != want.K || !slices.Equal(m.CooPtr, want.CooPtr) || !slices.Equal(m.Degree, want.Degree) ||
					!slices.Equal(m.Bounds, want.Bounds) || m.NNZ() != want.NNZ() || m.Weighted() != want.Weighted() {
					t.Fatalf("%s: shape, degrees, bounds or weights differ from the host-described matrix's", what)
				}
				if again, _ := g.matrixFor(rowsIn, s.opt, false, nil); again != m {
					t.Fatalf("%s: a second request did not get the kept matrix", what)
				}
				want.Materialize()
				m.Materialize()
				if !g.InAdjacencyBuilt() {
					t.Fatalf("%s: materialized on the host without the host transpose", what)
				}
				if !slices.Equal(m.EllCol, want.EllCol) || !slices.Equal(m.EllVal, want.EllVal) ||
					!slices.Equal(m.CooCol, want.CooCol) || !slices.Equal(m.CooVal, want.CooVal) {
					t.Fatalf("%s: materialized arrays differ from the host-described matrix's", what)
				}
			}
		}
	}
}

func sameArray(a, b []int32) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// TestDeviceInMatrixOnlyWhenUnbuilt: an undirected graph's in-matrix is
// its out-matrix, and a directed graph whose transpose the host holds
// already (InNeighbors asked) describes its in-matrix from it.
func TestDeviceInMatrixOnlyWhenUnbuilt(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 7))
	d := directedTestGraph(t, rng, 100, 400, false)
	g := NewGraph(d)
	g.InNeighbors(0)
	if m, err := g.matrixFor(rowsIn, hyb.DefaultOptions(), true, nil); err != nil || m.TransposeOf != nil {
		t.Fatalf("with the transpose built: %v, transposed %v", err, m.TransposeOf != nil)
	}
	el := d.EdgeList()
	el.Directed = false
	u, err := datasets.Build(el, datasets.Options{KeepSelfLoops: true})
	if err != nil {
		t.Fatal(err)
	}
	g = NewGraph(u)
	in, err := g.matrixFor(rowsIn, hyb.DefaultOptions(), true, nil)
	if err != nil {
		t.Fatal(err)
	}
	out, _ := g.matrixFor(rowsOut, hyb.DefaultOptions(), true, nil)
	if in != out || in.TransposeOf != nil {
		t.Fatal("an undirected graph's in-matrix is not its out-matrix")
	}
}

// minPath is SSSP by Bellman-Ford along in-arcs (pull: v gathers from
// its in-neighbours; push: along out-arcs).
type minPath struct{ src int32 }

func (minPath) Spec() Spec { return Spec{Edges: InEdges, Sparse: true, Idempotent: true} }
func (p minPath) Init(v int32, _ *Step) (float32, bool) {
	if v == p.src {
		return 0, true
	}
	return float32(math.Inf(1)), false
}
func (minPath) Identity() float32 { return float32(math.Inf(1)) }
func (minPath) Gather(acc float32, _, _ int32, x float32, w float32) float32 {
	return min(acc, x+w)
}
func (minPath) Reduce(a, b float32) float32 { return min(a, b) }
func (minPath) Update(_ int32, acc float32, x *float32, _ *Step) bool {
	if acc < *x {
		*x = acc
		return true
	}
	return false
}

// TestHostRunOfDeviceInMatrix: a CPU run given the in-matrix a device run
// described (the same HYB options, kept by the graph) materializes it
// and answers as a run on a fresh graph, in every direction; the CPU's
// own default matrices never are transposed ones.
func TestHostRunOfDeviceInMatrix(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 8))
	d := directedTestGraph(t, rng, 20000, 80000, true)
	for _, s := range testSplits {
		for _, dir := range []Direction{Auto, Push, Pull} {
			g := NewGraph(d)
			if _, err := g.matrixFor(rowsIn, s.opt, true, nil); err != nil {
				t.Fatal(err)
			}
			opt := Options{Backend: "cpu", HYB: s.opt, Direction: dir}
			got, err := Run(g, Program[float32, float32](minPath{src: 3}), opt)
			if err != nil {
				t.Fatal(err)
			}
			want, err := Run(NewGraph(d), Program[float32, float32](minPath{src: 3}), opt)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got.X, want.X) || got.Iterations != want.Iterations {
				t.Fatalf("%s %v: the run on the device-described matrix differs", s.name, dir)
			}
		}
	}
	g := NewGraph(d)
	if _, err := Run(g, Program[float32, float32](minPath{src: 3}), Options{Backend: "cpu"}); err != nil {
		t.Fatal(err)
	}
	for k, m := range g.hybs {
		if m.TransposeOf != nil {
			t.Errorf("the CPU run's matrix %+v is a transposed one", k)
		}
	}
}

// offered records what prefetch offers.
type offered struct{ cols [][]int32 }

func (o *offered) Prefetch(_ []int64, col []int32, _ []float32) { o.cols = append(o.cols, col) }

// TestPrefetchOffersOutCSRForInMatrix: while a directed graph's
// transpose is not built, an InEdges run's prefetch offers the out-CSR
// (once, for the in-matrix the device transposes and the out-matrix
// alike), and the transpose once built.
func TestPrefetchOffersOutCSRForInMatrix(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 9))
	d := directedTestGraph(t, rng, 100, 400, false)
	g := NewGraph(d)
	var o offered
	prefetch(g, minPath{}.Spec(), &o)
	if len(o.cols) != 1 || !sameArray(o.cols[0], d.Col) {
		t.Fatalf("offered %d CSRs; want the out-CSR once", len(o.cols))
	}
	if g.InAdjacencyBuilt() {
		t.Fatal("prefetch built the transpose")
	}
	in := g.inAdj()
	o = offered{}
	prefetch(g, minPath{}.Spec(), &o)
	if len(o.cols) != 2 || !sameArray(o.cols[0], in.Col) || !sameArray(o.cols[1], d.Col) {
		t.Fatalf("with the transpose built: offered %d CSRs; want it and the out-CSR", len(o.cols))
	}
}

// TestDeviceSymMatrixDescribed: for a run that may go to a device whose
// backend built a directed graph's undirected view (Symmetrizer: here
// its rows come from the host's datasets.Symmetrized, as a copy), the
// AllEdges matrix is described from those rows without the host building
// the view or the transpose, with the host-described matrix's shape,
// degrees and bounds; materialized on the host, it builds the view then
// and equals the host-described matrix array by array, in every split,
// weighted and not. Without rows (no such backend), the host builds it.
func TestDeviceSymMatrixDescribed(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 8))
	for _, n := range []int{1, 33, 3000, 40000} {
		for _, weighted := range []bool{false, true} {
			d := directedTestGraph(t, rng, n, 4*n, weighted)
			rows := d.Symmetrized(nil).RowPtr
			for _, s := range testSplits {
				what := fmt.Sprintf("n=%d weighted=%v %s", n, weighted, s.name)
				g, host := NewGraph(d), NewGraph(d)
				asked := 0
				m, err := g.matrixFor(rowsAll, s.opt, true, func() []int64 { asked++; return slices.Clone(rows) })
				if err != nil {
					t.Fatal(err)
				}
				want, err := host.matrixFor(rowsAll, s.opt, false, nil)
				if err != nil {
					t.Fatal(err)
				}
				if asked != 1 || g.builtAdjacency(rowsAll) != nil || g.InAdjacencyBuilt() || host.builtAdjacency(rowsAll) == nil {
					t.Fatalf("%s: rows asked %d times; the host built the view (%v) or the transpose (%v) for the device, or not for itself",
						what, asked, g.builtAdjacency(rowsAll) != nil, g.InAdjacencyBuilt())
				}
				if m.SymmetrizeOf == nil || want.SymmetrizeOf != nil || !sameArray(m.SymmetrizeOf.Col, d.Col) {
					t.Fatalf("%s: the device's matrix is not the out-CSR's view, or the host's is", what)
				}
				if m.K != want.K || !slices.Equal(m.CooPtr, want.CooPtr) || !slices.Equal(m.Degree, want.Degree) ||
					!slices.Equal(m.Bounds, want.Bounds) || m.NNZ() != want.NNZ() || m.Weighted() != want.Weighted() {
					t.Fatalf("%s: shape, degrees, bounds or weights differ from the host-described matrix's", what)
				}
				if again, _ := g.matrixFor(rowsAll, s.opt, true, func() []int64 { t.Fatal("rows asked again"); return nil }); again != m {
					t.Fatalf("%s: a second request did not get the kept matrix", what)
				}
				want.Materialize()
				m.Materialize()
				if g.builtAdjacency(rowsAll) == nil {
					t.Fatalf("%s: materialized on the host without the host's view", what)
				}
				if !slices.Equal(m.EllCol, want.EllCol) || !slices.Equal(m.EllVal, want.EllVal) ||
					!slices.Equal(m.CooCol, want.CooCol) || !slices.Equal(m.CooVal, want.CooVal) {
					t.Fatalf("%s: materialized arrays differ from the host-described matrix's", what)
				}
				// (no rows from the backend: the host's view)
				h := NewGraph(d)
				if m, err := h.matrixFor(rowsAll, s.opt, true, func() []int64 { return nil }); err != nil || m.SymmetrizeOf != nil || h.builtAdjacency(rowsAll) == nil {
					t.Fatalf("%s: without the device's rows: %v, symmetrized %v", what, err, m != nil && m.SymmetrizeOf != nil)
				}
			}
		}
	}
	// needsSymmetrized: a directed graph gathering along AllEdges whose
	// view and matrix are not built; not InEdges, not an undirected graph.
	d := directedTestGraph(t, rng, 50, 200, false)
	g := NewGraph(d)
	opt := hyb.DefaultOptions()
	if !g.needsSymmetrized(Spec{Edges: AllEdges}, opt) || g.needsSymmetrized(Spec{Edges: InEdges}, opt) || g.needsSymmetrized(Spec{Edges: InOutEdges}, opt) {
		t.Fatal("needsSymmetrized: wrong for a fresh directed graph")
	}
	if _, err := g.matrixFor(rowsAll, opt, false, nil); err != nil {
		t.Fatal(err)
	}
	if g.needsSymmetrized(Spec{Edges: AllEdges}, opt) {
		t.Fatal("needsSymmetrized after the host built the view")
	}
	el := d.EdgeList()
	el.Directed = false
	u, err := datasets.Build(el, datasets.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if NewGraph(u).needsSymmetrized(Spec{Edges: AllEdges}, opt) {
		t.Fatal("needsSymmetrized on an undirected graph")
	}
}

// TestOutDegrees: Graph.OutDegrees is each row's length as the dataset
// counts it, made once, and the out-rows' matrices (a directed graph's
// push matrix, an undirected graph's every one) share it as their
// Degree; the in-rows' matrix has the in-degrees.
func TestOutDegrees(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 5))
	for _, n := range []int{1, 70, 5000} {
		d := directedTestGraph(t, rng, n, 9*n, false)
		g := NewGraph(d)
		deg := g.OutDegrees()
		for v := range int32(n) {
			if int(deg[v]) != d.Degree(v) {
				t.Fatalf("n=%d: OutDegrees()[%d] = %d, want %d", n, v, deg[v], d.Degree(v))
			}
		}
		if again := g.OutDegrees(); &again[0] != &deg[0] {
			t.Errorf("n=%d: OutDegrees made twice", n)
		}
		out, err := g.PushMatrix(InEdges, hyb.DefaultOptions()) // (pushes along the out-rows)
		if err != nil {
			t.Fatal(err)
		}
		if &out.Degree[0] != &deg[0] {
			t.Errorf("n=%d: the out-rows' matrix has a Degree of its own", n)
		}
		in, err := g.PullMatrix(InEdges, hyb.DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		for v := range int32(n) {
			if int(in.Degree[v]) != g.InDegree(v) {
				t.Fatalf("n=%d: the in-rows' Degree[%d] = %d, want %d", n, v, in.Degree[v], g.InDegree(v))
			}
		}
	}
}

// TestRelabelOnHost: Relabel without a device that renumbers ("cpu", or
// no such backend registered) is the host's renumbering, and g itself
// for an order that keeps it.
func TestRelabelOnHost(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 6))
	d := directedTestGraph(t, rng, 3000, 40000, true)
	for _, parts := range []int{1, 2} {
		want := d.RelabelParts(datasets.RelabelDegree, parts)
		for _, b := range []string{"cpu", "auto", "no-such-backend"} {
			got := Relabel(d, datasets.RelabelDegree, b, parts)
			if !slices.Equal(got.RowPtr, want.RowPtr) || !slices.Equal(got.Col, want.Col) || !slices.Equal(got.W, want.W) || !slices.Equal(got.IDs, want.IDs) {
				t.Errorf("%s, %d parts: Relabel differs from the host's renumbering", b, parts)
			}
			if Relabel(d, datasets.RelabelNone, b, parts) != d {
				t.Errorf("%s: RelabelNone did not return the graph itself", b)
			}
		}
	}
}
