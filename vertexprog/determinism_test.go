package vertexprog_test

import (
	"math"
	"runtime"
	"testing"

	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/vertexprog"
)

// leak spreads values over in-edges and sums them, scaled by vertex, into
// a Sum aggregator every vertex reads back: LDBC PageRank's shape (its
// dangling sum), with sums whose rounding depends on their order.
type leak struct{ n float64 }

func (leak) Spec() vertexprog.Spec {
	return vertexprog.Spec{Edges: vertexprog.InEdges, GatherAll: true, MaxIterations: 8,
		Aggregators: []vertexprog.Aggregator{vertexprog.Sum}}
}
func (leak) Init(v int32, s *vertexprog.Step) (float64, bool) {
	x := 1 / float64(v+3)
	s.Add(0, x)
	return x, true
}
func (leak) Identity() float64                                            { return 0 }
func (leak) Gather(acc float64, _, _ int32, x float64, _ float32) float64 { return acc + x }
func (leak) Reduce(a, b float64) float64                                  { return a + b }
func (l leak) Update(v int32, acc float64, x *float64, s *vertexprog.Step) bool {
	*x = 0.1*acc + s.Aggregate(0)/l.n
	s.Add(0, *x/float64(v+1))
	return true
}

// leakReference is leak's supersteps in plain Go: the values after iters.
func leakReference(g *datasets.Graph, iters int) []float64 {
	n := g.N
	x, agg := make([]float64, n), 0.0
	for v := range n {
		x[v] = 1 / float64(v+3)
		agg += x[v]
	}
	for range iters {
		nx, nagg := make([]float64, n), 0.0
		for v := range n {
			acc := 0.0
			for _, u := range g.Neighbors(int32(v)) { // (undirected: in = out)
				acc += x[u]
			}
			nx[v] = 0.1*acc + agg/float64(n)
			nagg += nx[v] / float64(v+1)
		}
		x, agg = nx, nagg
	}
	return x
}

// A program that sums an aggregator gets the same bits on the CPU in
// every run and on any number of workers (1 to 5, five runs each; whole
// and in 3 parts), and the values of the plain loop: the sum is added
// cell by cell in cell order, not by whichever worker ran a block.
func TestSumAggregatorDeterministic(t *testing.T) {
	d := kron(t, 15, 8) // (isolated vertices; 16 cells)
	g := vertexprog.NewGraph(d)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, parts := range []int{1, 3} {
		var first []float64
		var firstAgg float64
		for _, procs := range []int{1, 2, 3, 4, 5} {
			runtime.GOMAXPROCS(procs)
			for run := range 5 {
				res, err := vertexprog.Run(g, vertexprog.Program[float64, float64](leak{float64(d.N)}),
					vertexprog.Options{Backend: "cpu", Parts: parts})
				if err != nil {
					t.Fatal(err)
				}
				if first == nil {
					first, firstAgg = res.X, res.Aggregates[0]
					want := leakReference(d, res.Iterations)
					for v := range want {
						if math.Abs(first[v]-want[v]) > 1e-12*math.Abs(want[v]) {
							t.Fatalf("%d parts: x[%d] = %v, the plain loop's %v", parts, v, first[v], want[v])
						}
					}
					continue
				}
				if math.Float64bits(res.Aggregates[0]) != math.Float64bits(firstAgg) {
					t.Fatalf("%d parts, %d workers, run %d: aggregate %v, the first run's %v", parts, procs, run, res.Aggregates[0], firstAgg)
				}
				for v := range first {
					if math.Float64bits(res.X[v]) != math.Float64bits(first[v]) {
						t.Fatalf("%d parts, %d workers, run %d: x[%d] = %v, the first run's %v", parts, procs, run, v, res.X[v], first[v])
					}
				}
			}
		}
	}
}
