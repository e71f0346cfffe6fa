package reference

import (
	"sync"
	"testing"

	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/datasets/gen"
	"github.com/hpgraph/hpgraph/internal/benchtier"
)

// benchScale is the size the reference must handle in seconds: GAP's
// Kronecker graph at scale 18, degree 16 (262,144 vertices); 16 in make
// bench's light tier (internal/benchtier).
var benchScale = benchtier.Scale(16, 18)

var (
	benchOnce                 sync.Once
	benchPlain, benchWeighted *datasets.Graph
	benchErr                  error
)

// benchGraphs builds the benchmark graph once, unweighted and with GAP's
// random integer weights 1..64 for SSSP, outside every timed region.
func benchGraphs(b *testing.B) (plain, weighted *datasets.Graph) {
	b.Helper()
	benchOnce.Do(func() {
		var el *datasets.EdgeList
		if el, benchErr = gen.Kronecker(benchScale, gen.GAPDegree, gen.GAPSeed); benchErr != nil {
			return
		}
		if benchPlain, benchErr = datasets.Build(el, datasets.Options{}); benchErr != nil {
			return
		}
		benchWeighted, benchErr = datasets.Build(el, datasets.Options{
			Weights: datasets.WeightsRandom, WeightMin: 1, WeightMax: 64, Seed: gen.GAPSeed})
	})
	if benchErr != nil {
		b.Fatal(benchErr)
	}
	return benchPlain, benchWeighted
}

// hub is the vertex of largest degree: a source that reaches the giant
// component whatever the id shuffle did.
func hub(g *datasets.Graph) int32 {
	var best int32
	for v := range int32(g.N) {
		if g.Degree(v) > g.Degree(best) {
			best = v
		}
	}
	return best
}

// reportMTEPS reports millions of edges per second, the edges being
// g.Edges() (each undirected edge once, as Graph500 counts) per operation.
func reportMTEPS(b *testing.B, g *datasets.Graph) {
	b.ReportMetric(float64(g.Edges())*float64(b.N)/b.Elapsed().Seconds()/1e6, "MTEPS")
}

func BenchmarkBFS(b *testing.B) {
	g, _ := benchGraphs(b)
	src := hub(g)
	for b.Loop() {
		if _, err := BFS(g, src); err != nil {
			b.Fatal(err)
		}
	}
	reportMTEPS(b, g)
}

func BenchmarkSSSP(b *testing.B) {
	_, g := benchGraphs(b)
	src := hub(g)
	for b.Loop() {
		if _, err := SSSP(g, src); err != nil {
			b.Fatal(err)
		}
	}
	reportMTEPS(b, g)
}

func BenchmarkComponents(b *testing.B) {
	g, _ := benchGraphs(b)
	for b.Loop() {
		Components(g)
	}
	reportMTEPS(b, g)
}

// The PageRank benchmarks report MTEPS for the whole run (all iterations),
// and the iteration count, so the per-iteration rate is MTEPS·iterations.
func BenchmarkPageRank(b *testing.B) {
	g, _ := benchGraphs(b)
	var iters int
	for b.Loop() {
		_, iters = PageRank(g, 0.85, 1e-4, 100)
	}
	reportMTEPS(b, g)
	b.ReportMetric(float64(iters), "iterations")
}

func BenchmarkPageRankLDBC(b *testing.B) {
	g, _ := benchGraphs(b)
	const iters = 10 // LDBC's benchmark setting
	for b.Loop() {
		PageRankLDBC(g, 0.85, iters)
	}
	reportMTEPS(b, g)
	b.ReportMetric(iters, "iterations")
}

func BenchmarkLCC(b *testing.B) {
	g, _ := benchGraphs(b)
	for b.Loop() {
		LCC(g)
	}
	reportMTEPS(b, g)
}

func BenchmarkTriangles(b *testing.B) {
	g, _ := benchGraphs(b)
	for b.Loop() {
		Triangles(g)
	}
	reportMTEPS(b, g)
}
