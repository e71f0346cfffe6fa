package vertexprog_test

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"testing"

	"github.com/hpgraph/hpgraph/apps/pagerank"
	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/datasets/gen"
	"github.com/hpgraph/hpgraph/vertexprog"
	"github.com/hpgraph/hpgraph/vertexprog/vptest"
)

// fuseGraphs are vptest's graphs (directed-sinks and star are directed,
// with dangling vertices; disconnected has isolated ones) and two of
// many blocks of rows (a fused pull's APPLY goes by 2,048 rows), one
// with kron's isolated vertices.
func fuseGraphs(t *testing.T) []vptest.Graph {
	gs := vptest.Graphs(t, datasets.Options{})
	for _, s := range []struct {
		name string
		make func() (*datasets.EdgeList, error)
	}{
		{"kron14", func() (*datasets.EdgeList, error) { return gen.Kronecker(14, 8, gen.GAPSeed) }},
		{"urand13", func() (*datasets.EdgeList, error) { return gen.Uniform(13, 6, 5) }},
	} {
		el, err := s.make()
		if err != nil {
			t.Fatal(err)
		}
		g, err := datasets.Build(el, datasets.Options{})
		if err != nil {
			t.Fatal(err)
		}
		gs = append(gs, vptest.Graph{Name: s.name, G: g})
	}
	return gs
}

// withFuse runs f with fused pulls on or off.
func withFuse[T any](on bool, f func() T) T {
	was := vertexprog.SetFuseApply(on)
	defer vertexprog.SetFuseApply(was)
	return f()
}

// A run's answer and summary, to compare a fused run with one that is not.
type fuseAnswer struct {
	rank       []float64
	active     []int
	aggregates []float64
}

func runPR(g *vertexprog.Graph, variant string, opt vertexprog.Options) (fuseAnswer, error) {
	switch variant {
	case "paper":
		r, err := pagerank.Run(g, 0.85, 1e-9, 50, opt)
		if err != nil {
			return fuseAnswer{}, err
		}
		return fuseAnswer{r.Rank, r.Run.Active, r.Run.Aggregates}, nil
	case "ldbc64":
		r, err := pagerank.LDBCIn[float64](g, 0.85, 7, opt)
		if err != nil {
			return fuseAnswer{}, err
		}
		return fuseAnswer{r.Rank, r.Run.Active, r.Run.Aggregates}, nil
	}
	r, err := pagerank.LDBCIn[float32](g, 0.85, 7, opt)
	if err != nil {
		return fuseAnswer{}, err
	}
	return fuseAnswer{r.Rank, r.Run.Active, r.Run.Aggregates}, nil
}

// TestFusedPageRank: both PageRanks (LDBC's in float64 and float32) take
// the fused pull (Spec.FuseApply), and its answers are the unfused
// pull's: to the bit on one worker, and on several where no aggregate
// is summed (the paper's variant); LDBC's dangling sum is added up by
// whichever worker takes a block, fused or not, so on several workers
// its last bits move from run to run, and ranks are compared to 1e-12.
func TestFusedPageRank(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, tg := range fuseGraphs(t) {
		g := vertexprog.NewGraph(tg.G)
		for _, p := range []any{&pagerank.Program{Damping: 0.85}, &pagerank.LDBCProgram[float64]{Damping: 0.85, Iterations: 3},
			&pagerank.LDBCProgram[float32]{Damping: 0.85, Iterations: 3}} {
			var fused bool
			var err error
			switch p := p.(type) {
			case *pagerank.Program:
				fused, err = vertexprog.FusedSuperstep(g, vertexprog.Program[float64, float64](p))
			case *pagerank.LDBCProgram[float64]:
				fused, err = vertexprog.FusedSuperstep(g, vertexprog.Program[float64, float64](p))
			case *pagerank.LDBCProgram[float32]:
				fused, err = vertexprog.FusedSuperstep(g, vertexprog.Program[float32, float32](p))
			}
			if err != nil || !fused {
				t.Fatalf("%s: %T: fused %v, %v; want a fused pull", tg.Name, p, fused, err)
			}
		}
		// Values lent (Options.Values) hold the values after an odd
		// number of fused supersteps too (one worker: the same dangling
		// sum to the bit).
		runtime.GOMAXPROCS(1)
		lent := make([]float64, g.N())
		runX := func(opt vertexprog.Options) []float64 {
			r, err := pagerank.LDBC(g, 0.85, 3, opt)
			if err != nil {
				t.Fatal(err)
			}
			return r.Run.X
		}
		want := withFuse(false, func() []float64 { return runX(vertexprog.Options{Backend: "cpu"}) })
		got := withFuse(true, func() []float64 { return runX(vertexprog.Options{Backend: "cpu", Values: lent}) })
		if len(want) > 0 && (&got[0] != &lent[0] || !slices.Equal(got, want)) {
			t.Fatalf("%s: lent values: the lent array %v, the same values %v", tg.Name, &got[0] == &lent[0], slices.Equal(got, want))
		}
		for _, workers := range []int{1, 3} {
			runtime.GOMAXPROCS(workers)
			for _, variant := range []string{"paper", "ldbc64", "ldbc32"} {
				opt := vertexprog.Options{Backend: "cpu"}
				run := func() fuseAnswer {
					a, err := runPR(g, variant, opt)
					if err != nil {
						t.Fatal(err)
					}
					return a
				}
				want, got := withFuse(false, run), withFuse(true, run)
				name := fmt.Sprintf("%s/%s/workers=%d", tg.Name, variant, workers)
				if !slices.Equal(got.active, want.active) {
					t.Fatalf("%s: active %v, unfused %v", name, got.active, want.active)
				}
				exact := workers == 1 || variant == "paper"
				for v := range want.rank {
					a, b := got.rank[v], want.rank[v]
					if exact && math.Float64bits(a) != math.Float64bits(b) || !exact && math.Abs(a-b) > 1e-12*math.Abs(b) {
						t.Fatalf("%s: vertex %d: rank %v, unfused %v", name, v, a, b)
					}
				}
				if exact && !slices.Equal(got.aggregates, want.aggregates) {
					t.Fatalf("%s: aggregates %v, unfused %v", name, got.aggregates, want.aggregates)
				}
			}
		}
	}
}

// settle is a GatherAll program that declares FuseApply and has what the
// fused pull must keep as APPLY kept it: a RowFilter (a vertex settled,
// its value over a bound, takes no more input), an Update that reads
// *x, and, where sparse, Spec.Sparse (its pulls update only the rows
// that gathered, and it may push).
type settle struct {
	sparse  bool
	settled []bool
	bound   float64
}

func (p *settle) Spec() vertexprog.Spec {
	return vertexprog.Spec{Edges: vertexprog.InEdges, GatherAll: true, Sparse: p.sparse, FuseApply: true, MaxIterations: 40}
}
func (p *settle) Prepare(g *vertexprog.Graph) error {
	p.settled = make([]bool, g.N())
	return nil
}
func (p *settle) Init(v int32, _ *vertexprog.Step) (float64, bool) {
	return float64(v%7) / 7, true
}
func (*settle) Identity() float64 { return 0 }
func (*settle) Gather(acc float64, _, _ int32, xu float64, _ float32) float64 {
	return acc + xu + 1 // (≥ 1 where a row gathered: Sparse)
}
func (*settle) Reduce(a, b float64) float64 { return a + b }
func (p *settle) Wants(v int32) bool        { return !p.settled[v] }
func (p *settle) Update(v int32, acc float64, x *float64, _ *vertexprog.Step) bool {
	if acc == 0 && p.sparse {
		return false
	}
	nx := 0.5**x + 0.01*acc
	if nx > p.bound {
		p.settled[v] = true
	}
	changed := nx != *x
	*x = nx
	return changed
}

// TestFusedRowFilter: a fused program with a RowFilter, dense or Sparse,
// gets the unfused pulls' values, settled vertices and supersteps, to
// the bit, on one worker and several.
func TestFusedRowFilter(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, tg := range fuseGraphs(t) {
		g := vertexprog.NewGraph(tg.G)
		if fused, err := vertexprog.FusedSuperstep(g, vertexprog.Program[float64, float64](&settle{bound: 3})); err != nil || !fused {
			t.Fatalf("%s: fused %v, %v; want a fused pull", tg.Name, fused, err)
		}
		for _, workers := range []int{1, 4} {
			runtime.GOMAXPROCS(workers)
			for _, sparse := range []bool{false, true} {
				type answer struct {
					x       []float64
					settled []bool
					active  []int
				}
				run := func() answer {
					p := &settle{sparse: sparse, bound: 3}
					r, err := vertexprog.Run(g, vertexprog.Program[float64, float64](p), vertexprog.Options{Backend: "cpu"})
					if err != nil {
						t.Fatal(err)
					}
					return answer{r.X, p.settled, r.Active}
				}
				want := withFuse(false, run)
				got := withFuse(true, run)
				name := fmt.Sprintf("%s/sparse=%v/workers=%d", tg.Name, sparse, workers)
				if !slices.Equal(got.active, want.active) || !slices.Equal(got.settled, want.settled) {
					t.Fatalf("%s: active %v, settled %d; unfused %v, %d", name, got.active,
						count(got.settled), want.active, count(want.settled))
				}
				for v := range want.x {
					if math.Float64bits(got.x[v]) != math.Float64bits(want.x[v]) {
						t.Fatalf("%s: vertex %d: %v, unfused %v", name, v, got.x[v], want.x[v])
					}
				}
			}
		}
	}
}

func count(b []bool) int {
	n := 0
	for _, x := range b {
		if x {
			n++
		}
	}
	return n
}
