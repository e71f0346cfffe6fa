package hyb_test

import (
	"testing"

	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/datasets/gen"
	"github.com/hpgraph/hpgraph/hyb"
	"github.com/hpgraph/hpgraph/internal/benchtier"
)

// BenchmarkFromGraph measures the HYB build (target: <= 50 ns per nonzero)
// on GAP's Kronecker graph at scale 20 (about 33M stored arcs; scale 18 in
// make bench's light tier: internal/benchtier).
func BenchmarkFromGraph(b *testing.B) {
	el, err := gen.Kronecker(benchtier.Scale(18, 20), gen.GAPDegree, gen.GAPSeed)
	if err != nil {
		b.Fatal(err)
	}
	g, err := datasets.Build(el, datasets.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := hyb.FromGraph(g, hyb.DefaultOptions()); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(g.NNZ()), "ns/nnz")
}
