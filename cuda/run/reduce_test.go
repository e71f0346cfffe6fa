//go:build cgo

package run

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/hpgraph/hpgraph/apps/sssp"
	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/vertexprog"
	"github.com/hpgraph/hpgraph/vertexprog/driver"
)

// everyReduction is each Reduce, of all values and of the finite ones.
var everyReduction = []vertexprog.Reduction{
	{Op: vertexprog.CountValues}, {Op: vertexprog.CountValues, Finite: true},
	{Op: vertexprog.SumValues}, {Op: vertexprog.SumValues, Finite: true},
	{Op: vertexprog.MinValues}, {Op: vertexprog.MinValues, Finite: true},
	{Op: vertexprog.MaxValues}, {Op: vertexprog.MaxValues, Finite: true},
}

// valued is a program of no supersteps whose values are its Init's,
// vals[v], reduced by every reduction: vp_reduce_values over X of C type
// ctype.
type valued[X any] struct {
	vals  []X
	ctype string
}

func (valued[X]) Spec() vertexprog.Spec {
	return vertexprog.Spec{Edges: vertexprog.InEdges, Reductions: everyReduction}
}
func (p valued[X]) Init(v int32, _ *vertexprog.Step) (X, bool)           { return p.vals[v], false }
func (valued[X]) Identity() int32                                        { return 0 }
func (valued[X]) Gather(acc int32, _, _ int32, _ X, _ float32) int32     { return acc }
func (valued[X]) Reduce(a, _ int32) int32                                { return a }
func (valued[X]) Update(_ int32, _ int32, _ *X, _ *vertexprog.Step) bool { return false }
func (p valued[X]) Device() vertexprog.DeviceCode {
	return vertexprog.DeviceCode{Source: `typedef ` + p.ctype + ` X_t;
typedef int A_t;
struct State {};
__device__ A_t vp_identity() { return 0; }
__device__ A_t vp_gather(A_t acc, int v, int u, X_t xu, float w, const State& s) { return acc; }
__device__ A_t vp_reduce(A_t a, A_t b) { return a; }
__device__ bool vp_update(int v, A_t acc, X_t* x, const State& s, Step& st) { return false; }
`}
}

// checkReductions runs p on g on the CPU and on the GPU, summary only
// (the values stay on the device) and not, resident (a parked run's
// reduction memory reused) and not, and compares the reductions: equal
// bits, or both NaN (sums are of integers and halves, exact in any
// order).
func checkReductions[X, A any](t *testing.T, name string, g *vertexprog.Graph, p vertexprog.Program[X, A]) {
	t.Helper()
	want, err := vertexprog.Run(g, p, vertexprog.Options{Backend: "cpu"})
	if err != nil {
		t.Fatalf("%s, cpu: %v", name, err)
	}
	for _, resident := range []bool{false, true} {
		for _, summary := range []bool{false, true, true} {
			got, err := vertexprog.Run(g, p, vertexprog.Options{Backend: "cuda", SummaryOnly: summary, Resident: resident})
			if err != nil {
				t.Fatalf("%s, cuda: %v", name, err)
			}
			if summary && got.X != nil {
				t.Errorf("%s, resident %v: a summary-only run copied its values back", name, resident)
			}
			for k, r := range p.Spec().Reductions {
				if !same(got.Reductions[k], want.Reductions[k], 0) || math.Signbit(got.Reductions[k]) != math.Signbit(want.Reductions[k]) && !math.IsNaN(want.Reductions[k]) {
					t.Errorf("%s, summary %v, resident %v, %+v: cuda %v, cpu %v", name, summary, resident, r, got.Reductions[k], want.Reductions[k])
				}
			}
		}
	}
}

// TestReductionsMatchCPU: vp_reduce_values gives the CPU engine's
// reductions for values of float32, float64 and int32, with infinities
// scattered, -0, negatives and (apart) a NaN, over graphs of one block to
// many (its grid-stride loop and last block), and SSSP's summary
// (reached count, farthest distance) from several sources, unweighted
// and weighted, left on the device.
func TestReductionsMatchCPU(t *testing.T) {
	needGPU(t)
	needNVRTC(t)
	r := rand.New(rand.NewPCG(9, 10))
	for _, n := range []int{2, 300, 70001, 1<<20 + 3} {
		el := &datasets.EdgeList{N: n, Directed: true, Src: []int32{0}, Dst: []int32{1}}
		d, err := datasets.Build(el, datasets.Options{})
		if err != nil {
			t.Fatal(err)
		}
		g := vertexprog.NewGraph(d)
		for _, odd := range []float64{-0.5, math.Copysign(0, -1), math.Inf(-1), math.NaN()} {
			f64 := make([]float64, n)
			for v := range f64 {
				switch k := r.IntN(10); {
				case k < 4:
					f64[v] = math.Inf(1)
				case k < 6:
					f64[v] = float64(r.IntN(1000)) / 2
				default:
					f64[v] = float64(r.IntN(1<<20)) - 1000
				}
			}
			f64[r.IntN(n)] = odd
			f32 := make([]float32, n)
			for v, x := range f64 {
				f32[v] = float32(x)
			}
			checkReductions(t, fmt.Sprintf("float64, %d vertices, one %v", n, odd), g, vertexprog.Program[float64, int32](valued[float64]{f64, "double"}))
			checkReductions(t, fmt.Sprintf("float32, %d vertices, one %v", n, odd), g, vertexprog.Program[float32, int32](valued[float32]{f32, "float"}))
		}
		i32 := make([]int32, n)
		for v := range i32 {
			i32[v] = int32(r.IntN(1<<21)) - 1<<20
		}
		checkReductions(t, fmt.Sprintf("int32, %d vertices", n), g, vertexprog.Program[int32, int32](valued[int32]{i32, "int"}))
	}
	for _, w := range []datasets.Options{{}, {Weights: datasets.WeightsRandom, WeightMin: 1, WeightMax: 64, Seed: 5}} {
		for _, tg := range testGraphs(t, w) {
			g := vertexprog.NewGraph(tg.g)
			for _, src := range []int32{0, int32(tg.g.N / 2), int32(tg.g.N - 1)} {
				checkReductions(t, fmt.Sprintf("sssp %s from %d (weighted %v)", tg.name, src, w.Weights != 0), g,
					vertexprog.Program[float32, float32](&sssp.Program{Source: src, Delta: sssp.DefaultDelta(g)}))
			}
		}
	}
}

// TestCompileReductions: vp_reduce_values compiles for values of every
// C type a Go value of the reductions' kinds has, with every reduction,
// and a program without reductions has none (nor its source a trace of
// kernels_reduce.cu).
func TestCompileReductions(t *testing.T) {
	needNVRTC(t)
	ops, finite := redOps(everyReduction)
	for _, c := range []struct {
		ctype string
		size  int
	}{{"int", 4}, {"unsigned int", 4}, {"long long", 8}, {"unsigned long long", 8}, {"float", 4}, {"double", 8}} {
		code := valued[float32]{ctype: c.ctype}.Device()
		ptx, err := compileCode(code, features{XSize: c.size, ASize: 4, Reds: ops, RedsFinite: finite})
		if err != nil {
			t.Fatalf("%s: %v", c.ctype, err)
		}
		if !strings.Contains(ptx, ".entry "+reduceKernel+"(") {
			t.Errorf("%s: no %s in the PTX", c.ctype, reduceKernel)
		}
	}
	l, err := layoutState(&driver.DeviceCode{})
	if err != nil {
		t.Fatal(err)
	}
	if src := buildSource(&driver.DeviceCode{}, l, features{XSize: 4, ASize: 4}); strings.Contains(src, reduceKernel) || strings.Contains(src, "VP_NRED") {
		t.Error("a program without reductions has vp_reduce_values in its source")
	}
}
