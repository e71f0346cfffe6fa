package vertexprog_test

import (
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/datasets/gen"
	"github.com/hpgraph/hpgraph/vertexprog"
)

// shortest is single-source shortest paths with a Priority (its
// distance), run by delta-stepping when delta > 0, with or without a
// list form of Update and native pushes (plain: only the per-vertex
// methods).
type shortest struct {
	src   int32
	delta float64
}

func (s shortest) Spec() vertexprog.Spec {
	return vertexprog.Spec{Edges: vertexprog.InEdges, Sparse: true, Idempotent: true, Delta: s.delta}
}
func (s shortest) Init(v int32, _ *vertexprog.Step) (float32, bool) {
	if v == s.src {
		return 0, true
	}
	return float32(math.Inf(1)), false
}
func (shortest) Identity() float32                                            { return float32(math.Inf(1)) }
func (shortest) Gather(acc float32, _, _ int32, d float32, w float32) float32 { return min(acc, d+w) }
func (shortest) Reduce(a, b float32) float32                                  { return min(a, b) }
func (shortest) Update(_ int32, acc float32, d *float32, _ *vertexprog.Step) bool {
	if acc < *d {
		*d = acc
		return true
	}
	return false
}
func (shortest) Priority(_ int32, d float32) float32 { return d }

// TestDeltaSteppingOnTheCPU: the CPU's delta-stepping gives Bellman-Ford's
// distances, bit for bit, on a weighted grid (long paths: many buckets)
// and a Kronecker graph, with buckets narrow, wide and past the ring of
// buckets each worker files into, and runs more supersteps where its
// buckets are narrow (the work is deferred, not skipped); on four
// workers and on one (a bucket's vertices filed from the workers' slots
// with atomics, or plainly).
func TestDeltaSteppingOnTheCPU(t *testing.T) {
	for _, procs := range []int{4, 1} {
		prev := runtime.GOMAXPROCS(procs)
		deltaSteppingOnTheCPU(t)
		runtime.GOMAXPROCS(prev)
	}
}

func deltaSteppingOnTheCPU(t *testing.T) {
	grid, err := gen.Grid(40, 50)
	if err != nil {
		t.Fatal(err)
	}
	kron, err := gen.Kronecker(10, 8, gen.GAPSeed)
	if err != nil {
		t.Fatal(err)
	}
	for name, el := range map[string]*datasets.EdgeList{"grid": grid, "kron": kron} {
		rng := rand.New(rand.NewPCG(7, 8))
		el.W = make([]float32, len(el.Src))
		for i := range el.W {
			el.W[i] = float32(1 + rng.IntN(64))
		}
		d, err := datasets.Build(el, datasets.Options{})
		if err != nil {
			t.Fatal(err)
		}
		g := vertexprog.NewGraph(d)
		for _, dir := range []vertexprog.Direction{vertexprog.Auto, vertexprog.Push, vertexprog.Pull} {
			opt := vertexprog.Options{Backend: "cpu", Direction: dir}
			want, err := vertexprog.Run(g, vertexprog.Program[float32, float32](shortest{src: 3}), opt)
			if err != nil {
				t.Fatal(err)
			}
			// (widths on the CPU are a sixteenth of Delta: 1/16 puts
			// the far vertices of the grid past the ring)
			for _, delta := range []float64{1.0 / 16, 16, 160, 1e9} {
				got, err := vertexprog.Run(g, vertexprog.Program[float32, float32](shortest{src: 3, delta: delta}), opt)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(got.X, want.X) {
					t.Fatalf("%s %v, delta %v, %d workers: distances differ from Bellman-Ford's", name, dir, delta, runtime.GOMAXPROCS(0))
				}
				if delta == 16 && name == "grid" && got.Iterations <= want.Iterations {
					t.Errorf("%s %v, delta %v: %d supersteps, Bellman-Ford %d: nothing was deferred", name, dir, delta, got.Iterations, want.Iterations)
				}
			}
		}
	}
}

// TestCPUAlphaGivenIsKept: the CPU's own Alpha for programs whose pull
// reads every edge replaces only the default: an Alpha given keeps its
// meaning (a tiny one never pulls), with the same distances. The
// default pulls the hubs' bucket on many workers, and on one only where
// a frontier holds more edges than the graph.
func TestCPUAlphaGivenIsKept(t *testing.T) {
	kron, err := gen.Kronecker(11, 16, gen.GAPSeed)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 9))
	kron.W = make([]float32, len(kron.Src))
	for i := range kron.W {
		kron.W[i] = float32(1 + rng.IntN(64))
	}
	d, err := datasets.Build(kron, datasets.Options{})
	if err != nil {
		t.Fatal(err)
	}
	g := vertexprog.NewGraph(d)
	src := int32(0) // (the hub: a search that reaches most of the graph)
	for v := range int32(d.N) {
		if d.Degree(v) > d.Degree(src) {
			src = v
		}
	}
	old := runtime.GOMAXPROCS(1)
	one, err := vertexprog.Run[float32, float32](g, shortest{src: src}, vertexprog.Options{Backend: "cpu"})
	runtime.GOMAXPROCS(old)
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(one.Directions, vertexprog.Pull) {
		t.Errorf("default Alpha on one worker: directions %v, want no pull (no frontier holds the graph's edges)", one.Directions)
	}
	manyWorkers(t)
	def, err := vertexprog.Run[float32, float32](g, shortest{src: src}, vertexprog.Options{Backend: "cpu"})
	if err != nil {
		t.Fatal(err)
	}
	given, err := vertexprog.Run[float32, float32](g, shortest{src: src}, vertexprog.Options{Backend: "cpu", Alpha: 1e-9})
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(given.Directions, vertexprog.Pull) {
		t.Errorf("Alpha 1e-9 given: directions %v, want no pull", given.Directions)
	}
	if !slices.Contains(def.Directions, vertexprog.Pull) {
		t.Errorf("default Alpha: directions %v, want the CPU's rule to pull on a Kronecker graph", def.Directions)
	}
	if !slices.Equal(def.X, given.X) || !slices.Equal(one.X, given.X) {
		t.Error("distances differ between the default and a given Alpha")
	}
}
