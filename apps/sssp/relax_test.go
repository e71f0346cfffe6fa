package sssp_test

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/hpgraph/hpgraph/apps/internal/apptest"
	"github.com/hpgraph/hpgraph/apps/reference"
	"github.com/hpgraph/hpgraph/apps/sssp"
	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/datasets/gen"
	"github.com/hpgraph/hpgraph/vertexprog"
)

// TestSSSPRelaxShared: pushes large enough to run on several goroutines
// (frontiers of 16K+ edges, the workers relaxing into the same
// distances by compare-and-swap and filing into their own buckets) give
// the reference's distances, a Kronecker graph's hubs and its low-degree
// rest, integer weights 1-64, by delta-stepping at the default width and
// at 2, by Bellman-Ford, pushing only and choosing the direction; and
// so do the accumulators' pushes (Options.PerEdge).
func TestSSSPRelaxShared(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	dg, g := weightedKronecker(t, 13, 16, 5, 3)
	for _, src := range apptest.Sources(dg) {
		want, err := reference.SSSP(dg, src)
		if err != nil {
			t.Fatal(err)
		}
		for _, delta := range []float64{sssp.DefaultDelta(g), 32, 0} {
			for _, opt := range []vertexprog.Options{{Direction: vertexprog.Push}, {Direction: vertexprog.Auto}, {Direction: vertexprog.Push, PerEdge: true}} {
				opt.Backend = "cpu"
				name := fmt.Sprintf("src %d, delta %v, %s (per edge: %v)", src, delta, opt.Direction, opt.PerEdge)
				r, err := sssp.RunDelta(g, src, delta, opt)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if err := sameDist(r.Dist, want); err != nil {
					t.Fatalf("%s: %v", name, err)
				}
			}
		}
	}
}

// TestSSSPDrainShared: on a weighted grid, whose buckets' frontiers are
// a few hundred rows (listed: the grid has 64 times their edges), the
// workers share each bucket's push and go on
// relaxing from the rows they filed into it themselves, their rounds
// racing on the same distances and touched bits (run under -race), and
// give the reference's distances: delta-stepping at the default width,
// at 2 and at 1/16 (buckets past each worker's ring), pushing only and
// choosing the direction, on four goroutines and on one.
func TestSSSPDrainShared(t *testing.T) {
	el, err := gen.Grid(300, 240)
	if err != nil {
		t.Fatal(err)
	}
	dg := apptest.Build(t, el, datasets.Options{Weights: datasets.WeightsRandom, WeightMin: 1, WeightMax: 64, Seed: 5})
	g := vertexprog.NewGraph(dg)
	for _, procs := range []int{4, 1} {
		prev := runtime.GOMAXPROCS(procs)
		for _, src := range []int32{0, 36120} {
			want, err := reference.SSSP(dg, src)
			if err != nil {
				t.Fatal(err)
			}
			for _, delta := range []float64{sssp.DefaultDelta(g), 32, 1} {
				for _, dir := range []vertexprog.Direction{vertexprog.Push, vertexprog.Auto} {
					name := fmt.Sprintf("%d goroutines, src %d, delta %v, %s", procs, src, delta, dir)
					r, err := sssp.RunDelta(g, src, delta, vertexprog.Options{Backend: "cpu", Direction: dir})
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					if err := sameDist(r.Dist, want); err != nil {
						t.Fatalf("%s: %v", name, err)
					}
				}
			}
		}
		runtime.GOMAXPROCS(prev)
	}
}

// TestSSSPBucketsFiledOnManyWorkers: buckets of 8K+ filed vertices, read
// from the workers' slots in chunks on four goroutines, the stale dropped
// (late buckets hold mostly vertices lowered since into earlier ones) and
// many of those left read back in vertex order from their bits, give the
// reference's distances: a Kronecker graph of 64K vertices, integer
// weights 1-64, at the default width and at one four times as wide.
func TestSSSPBucketsFiledOnManyWorkers(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	dg, g := weightedKronecker(t, 16, 8, 9, 4)
	src := apptest.Sources(dg)[0]
	want, err := reference.SSSP(dg, src)
	if err != nil {
		t.Fatal(err)
	}
	for _, delta := range []float64{sssp.DefaultDelta(g), 4 * sssp.DefaultDelta(g)} {
		for _, dir := range []vertexprog.Direction{vertexprog.Push, vertexprog.Auto} {
			r, err := sssp.RunDelta(g, src, delta, vertexprog.Options{Backend: "cpu", Direction: dir})
			if err != nil {
				t.Fatal(err)
			}
			if err := sameDist(r.Dist, want); err != nil {
				t.Fatalf("delta %v, %s: %v", delta, dir, err)
			}
		}
	}
}

// weightedKronecker is GAP's Kronecker graph of the scale, edge factor
// and seed, with random integer weights 1-64 (seeded by wseed).
func weightedKronecker(t *testing.T, scale, edgeFactor int, seed, wseed uint64) (*datasets.Graph, *vertexprog.Graph) {
	t.Helper()
	el, err := gen.Kronecker(scale, edgeFactor, seed)
	if err != nil {
		t.Fatal(err)
	}
	dg := apptest.Build(t, el, datasets.Options{Weights: datasets.WeightsRandom, WeightMin: 1, WeightMax: 64, Seed: wseed})
	return dg, vertexprog.NewGraph(dg)
}

// sameDist is nil where dist is want exactly (integer weights: float32
// sums are exact), else the first vertex whose distance differs.
func sameDist(dist []float32, want []float64) error {
	for v := range want {
		if float64(dist[v]) != want[v] {
			return fmt.Errorf("dist[%d] = %v, want %v", v, dist[v], want[v])
		}
	}
	return nil
}
