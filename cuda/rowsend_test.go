//go:build cgo

package cuda

import (
	"fmt"
	"slices"
	"testing"

	"github.com/hpgraph/hpgraph/apps/bfs"
	"github.com/hpgraph/hpgraph/apps/sssp"
	"github.com/hpgraph/hpgraph/cuda/internal/gputest"
	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/datasets/gen"
	"github.com/hpgraph/hpgraph/vertexprog"
)

// TestTrailingRowsWithoutArcs runs the Sparse apps (BFS, SSSP) on graphs
// numbered by degree whose last rows have no arcs in (isolated vertices;
// in the directed graph also vertices with arcs out only), which the
// device's pulls and APPLY skip (run.progRun.pullEnd), from sources among
// those rows and not, pulling only and by the chooser, whole and in parts,
// each twice in a row (the second run adopts the first's parked buffers),
// and compares them with the CPU engine.
func TestTrailingRowsWithoutArcs(t *testing.T) {
	needGPU(t)
	for _, directed := range []bool{false, true} {
		el, err := gen.Kronecker(11, 8, 9)
		if err != nil {
			t.Fatal(err)
		}
		n := el.N
		el.Directed = directed
		el.N += 64 // (32 with arcs out only when directed, then 32 isolated)
		for i := range 32 {
			if directed {
				el.Src = append(el.Src, int32(n+i))
				el.Dst = append(el.Dst, int32((i*37)%n))
			}
		}
		g0 := gputest.Build(t, el, datasets.Options{Weights: datasets.WeightsRandom, WeightMin: 1, WeightMax: 64, Seed: 4})
		// numbered by decreasing in-degree (datasets.DegreeOrder's by
		// out-degree, the same when undirected)
		h0 := vertexprog.NewGraph(g0)
		g := vertexprog.NewGraph(g0.Permute(gputest.ByDecreasing(g0.N, h0.InDegree)))
		empty := 0
		for v := int32(g.N() - 1); v >= 0 && g.InDegree(v) == 0; v-- {
			empty++
		}
		if empty < 32 {
			t.Fatalf("directed %v: %d trailing rows without arcs in, want 32 at least", directed, empty)
		}
		srcs := []int32{0, int32(g.N() - 1), int32(g.N() - empty), int32(g.N() - empty/2)}
		for _, parts := range []int{0, 2, 3} {
			for _, dir := range []vertexprog.Direction{vertexprog.Auto, vertexprog.Pull} {
				for _, src := range srcs {
					what := fmt.Sprintf("directed %v, parts %d, %v, source %d (out-degree %d)", directed, parts, dir, src, g.OutDegree(src))
					cpu := vertexprog.Options{Backend: "cpu", Direction: dir}
					gpu := vertexprog.Options{Backend: "cuda", Direction: dir, Parts: parts}
					b1, err := bfs.Run(g, src, cpu)
					if err != nil {
						t.Fatal(err)
					}
					s1, err := sssp.Run(g, src, cpu)
					if err != nil {
						t.Fatal(err)
					}
					for range 2 {
						b2, err := bfs.Run(g, src, gpu)
						if err != nil {
							t.Fatalf("%s: bfs: %v", what, err)
						}
						if !slices.Equal(b1.Depth, b2.Depth) || !slices.Equal(b1.Parent, b2.Parent) {
							t.Fatalf("%s: bfs differs from the CPU's", what)
						}
						s2, err := sssp.Run(g, src, gpu)
						if err != nil {
							t.Fatalf("%s: sssp: %v", what, err)
						}
						if !slices.Equal(s1.Dist, s2.Dist) {
							t.Fatalf("%s: sssp differs from the CPU's", what)
						}
					}
				}
			}
		}
	}
}
