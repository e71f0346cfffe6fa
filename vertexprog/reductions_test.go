package vertexprog

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/hpgraph/hpgraph/datasets"
)

// everyReduction is each Reduce, of all values and of the finite ones.
var everyReduction = []Reduction{
	{Op: CountValues}, {Op: CountValues, Finite: true},
	{Op: SumValues}, {Op: SumValues, Finite: true},
	{Op: MinValues}, {Op: MinValues, Finite: true},
	{Op: MaxValues}, {Op: MaxValues, Finite: true},
}

// reduceByValue is r over xs one value at a time, on one core, with
// float64 arithmetic, math.Min and math.Max: what the reductions promise.
func reduceByValue[T number](r Reduction, xs []T) float64 {
	acc := r.Identity()
	for _, x := range xs {
		d := float64(x)
		if r.Finite && (math.IsInf(d, 0) || math.IsNaN(d)) {
			continue
		}
		switch r.Op {
		case CountValues:
			acc++
		case SumValues:
			acc += d
		case MinValues:
			acc = math.Min(acc, d)
		case MaxValues:
			acc = math.Max(acc, d)
		}
	}
	return acc
}

// sameFloat: equal bits, or both NaN.
func sameFloat(a, b float64) bool {
	return math.Float64bits(a) == math.Float64bits(b) || (math.IsNaN(a) && math.IsNaN(b))
}

// checkReduce compares reduceValues over xs with reduceByValue, every
// reduction at once and each alone.
func checkReduce[T number](t *testing.T, name string, xs []T) {
	t.Helper()
	got := reduceValues(everyReduction, xs)
	for k, r := range everyReduction {
		want := reduceByValue(r, xs)
		alone := reduceValues([]Reduction{r}, xs)[0]
		if !sameFloat(got[k], want) || !sameFloat(alone, want) {
			t.Errorf("%s, %d values, %+v: %v (alone %v), by value %v", name, len(xs), r, got[k], alone, want)
		}
	}
}

// TestReduceValues: the engine's pass (every core, in chunks, four
// accumulators) is the one-value-at-a-time fold, for every kind of value
// and reduction, at sizes around the blocks' and chunks' edges, with
// infinities scattered and with the values math.Min and math.Max treat
// apart (NaN, with and without -Inf, -0, negatives); sums are of integers and halves, exact in any
// order.
func TestReduceValues(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	odd := []float64{0, math.Copysign(0, -1), -3, math.Inf(-1), math.NaN()}
	for _, n := range []int{0, 1, 3, 4, 4095, 4096, 4097, 2*reduceChunk + 5, 100003} {
		for _, o := range odd {
			f64 := make([]float64, n)
			for i := range f64 {
				switch k := r.IntN(10); {
				case k < 4:
					f64[i] = math.Inf(1)
				case k < 6:
					f64[i] = float64(r.IntN(1000)) / 2
				default:
					f64[i] = float64(r.IntN(1 << 20))
				}
			}
			if n > 0 {
				f64[r.IntN(n)] = o
			}
			name := fmt.Sprintf("one %v", o)
			checkReduce(t, "float64, "+name, f64)
			f32 := make([]float32, n)
			for i, x := range f64 {
				f32[i] = float32(x)
			}
			checkReduce(t, "float32, "+name, f32)
			type dist float32 // (a named type of a float)
			d := make([]dist, n)
			for i, x := range f32 {
				d[i] = dist(x)
			}
			checkReduce(t, "dist, "+name, d)
		}
		i32, u32 := make([]int32, n), make([]uint32, n)
		i64, u64 := make([]int64, n), make([]uint64, n)
		for i := range n {
			i32[i], u32[i] = int32(r.Uint32()), r.Uint32()>>4
			i64[i], u64[i] = int64(r.Uint32())-1<<31, uint64(r.Uint32())
		}
		if n > 2 {
			i32[0], i32[1], u32[2] = math.MinInt32, math.MaxInt32, math.MaxUint32
		}
		checkReduce(t, "int32", i32)
		checkReduce(t, "uint32", u32)
		checkReduce(t, "int64", i64)
		checkReduce(t, "uint64", u64)
	}
}

// valued is a program with no supersteps that reduces its Init's values:
// vertex v's is vals[v].
type valued[X any] struct {
	vals []X
	reds []Reduction
}

func (p valued[X]) Spec() Spec                                       { return Spec{Edges: InEdges, Sparse: true, Reductions: p.reds} }
func (p valued[X]) Init(v int32, _ *Step) (X, bool)                  { return p.vals[v], false }
func (valued[X]) Identity() int32                                    { return 0 }
func (valued[X]) Gather(acc int32, _, _ int32, _ X, _ float32) int32 { return acc }
func (valued[X]) Reduce(a, b int32) int32                            { return a }
func (valued[X]) Update(_ int32, _ int32, _ *X, _ *Step) bool        { return false }

// TestRunReductions: Run's Result.Reductions are the reductions over its
// X, on the CPU; nil without Spec.Reductions; a Reduce that is none, or
// a value that is no number, fails the run.
func TestRunReductions(t *testing.T) {
	const n = 10000
	el := &datasets.EdgeList{N: n, Directed: true, Src: []int32{0}, Dst: []int32{1}}
	d, err := datasets.Build(el, datasets.Options{})
	if err != nil {
		t.Fatal(err)
	}
	g := NewGraph(d)
	vals := make([]float32, n)
	for v := range vals {
		vals[v] = float32(v % 97)
		if v%3 == 0 {
			vals[v] = float32(math.Inf(1))
		}
	}
	res, err := Run[float32, int32](g, valued[float32]{vals, everyReduction}, Options{Backend: "cpu"})
	if err != nil {
		t.Fatal(err)
	}
	for k, r := range everyReduction {
		if want := reduceByValue(r, vals); !sameFloat(res.Reductions[k], want) {
			t.Errorf("%+v: %v, want %v", r, res.Reductions[k], want)
		}
	}
	if res, err := Run[float32, int32](g, valued[float32]{vals, nil}, Options{Backend: "cpu"}); err != nil || res.Reductions != nil {
		t.Errorf("no reductions declared: %v, %v", res.Reductions, err)
	}
	if _, err := Run[float32, int32](g, valued[float32]{vals, []Reduction{{Op: MaxValues + 1}}}, Options{}); err == nil || !strings.Contains(err.Error(), "Op 4") {
		t.Errorf("Op 4: %v", err)
	}
	type pair struct{ a, b int32 }
	if _, err := Run[pair, int32](g, valued[pair]{make([]pair, n), everyReduction[:1]}, Options{}); err == nil || !strings.Contains(err.Error(), "no int32") {
		t.Errorf("reductions of a struct: %v", err)
	}
}

// BenchmarkReduceValues is the engine's pass for an SSSP's summary (the
// finite distances' count and greatest) over a kron21-sized answer, its
// unreached vertices (40%) scattered: apps/sssp's BenchmarkSummarize is
// the pass it replaced, on the same values.
func BenchmarkReduceValues(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	dist := make([]float32, 1<<21)
	for i := range dist {
		dist[i] = float32(r.IntN(8))
		if r.IntN(10) < 4 {
			dist[i] = float32(math.Inf(1))
		}
	}
	reds := []Reduction{{Op: CountValues, Finite: true}, {Op: MaxValues, Finite: true}}
	b.SetBytes(int64(len(dist)) * 4)
	for b.Loop() {
		reduceValues(reds, dist)
	}
}
