//go:build cgo

package run

import (
	"math"

	"github.com/hpgraph/hpgraph/vertexprog"
)

// User-style programs with device code, as a user outside the project
// would write them.

// widest is the widest-path problem (max-min over float32 weights): a
// sparse program that can push.
type widest struct{ src int32 }

func (widest) Spec() vertexprog.Spec { return vertexprog.Spec{Edges: vertexprog.InEdges, Sparse: true} }
func (p widest) Init(v int32, _ *vertexprog.Step) (float32, bool) {
	if v == p.src {
		return float32(math.Inf(1)), true
	}
	return 0, false
}
func (widest) Identity() float32                                     { return 0 }
func (widest) Gather(acc float32, _, _ int32, xu, w float32) float32 { return max(acc, min(xu, w)) }
func (widest) Reduce(a, b float32) float32                           { return max(a, b) }
func (widest) Update(_ int32, acc float32, x *float32, _ *vertexprog.Step) bool {
	if acc > *x {
		*x = acc
		return true
	}
	return false
}

func (widest) Device() vertexprog.DeviceCode {
	return vertexprog.DeviceCode{Source: `
typedef float X_t;
typedef float A_t;
struct State {};
__device__ A_t vp_identity() { return 0.0f; }
__device__ A_t vp_gather(A_t acc, int v, int u, X_t xu, float w, const State& s) {
  return vp_go_maxf(acc, vp_go_minf(xu, w));
}
__device__ A_t vp_reduce(A_t a, A_t b) { return vp_go_maxf(a, b); }
__device__ bool vp_update(int v, A_t acc, X_t* x, const State& s, Step& st) {
  if (acc > *x) { *x = acc; return true; }
  return false;
}
`}
}

// stats gathers a 12-byte accumulator (count, max and min of the active
// in-neighbours' values), so it runs pull-only through the general COO
// path; it filters rows, keeps a writable state array, and uses the three
// kinds of aggregator. Everything it computes is exact whatever the order
// of summation.
type stats struct{ Count, Max, Min int32 }

type statsProg struct{ seen []int32 }

func (*statsProg) Spec() vertexprog.Spec {
	return vertexprog.Spec{Edges: vertexprog.InEdges, MaxIterations: 6,
		Aggregators: []vertexprog.Aggregator{vertexprog.Sum, vertexprog.Min, vertexprog.Max}}
}

func (p *statsProg) Prepare(g *vertexprog.Graph) error {
	p.seen = make([]int32, g.N())
	return nil
}

func (p *statsProg) Init(v int32, s *vertexprog.Step) (int32, bool) {
	x := v * 7 % 13
	s.Add(0, 1)
	s.Add(1, float64(x))
	s.Add(2, float64(x))
	return x, v%3 != 0
}

func (*statsProg) Identity() stats { return stats{0, math.MinInt32, math.MaxInt32} }

func (*statsProg) Gather(acc stats, _, _ int32, xu int32, w float32) stats {
	acc.Count += int32(w)
	acc.Max = max(acc.Max, xu)
	acc.Min = min(acc.Min, xu)
	return acc
}

func (*statsProg) Reduce(a, b stats) stats {
	return stats{a.Count + b.Count, max(a.Max, b.Max), min(a.Min, b.Min)}
}

func (p *statsProg) Update(v int32, acc stats, x *int32, s *vertexprog.Step) bool {
	if acc.Count == 0 {
		return false
	}
	nx := (acc.Max-acc.Min+acc.Count+*x)%1000 + int32(s.Iteration)
	s.Add(0, float64(acc.Count))
	s.Add(1, float64(nx))
	s.Add(2, float64(nx)*0.5+s.Aggregate(1))
	changed := nx != *x
	*x = nx
	p.seen[v]++
	return changed
}

func (*statsProg) Wants(v int32) bool { return v%5 != 4 }

func (p *statsProg) Device() vertexprog.DeviceCode {
	return vertexprog.DeviceCode{
		Source: `
typedef int X_t;
struct A_t { int count, max, min; };
struct State { int* __restrict__ seen; };  // (a restrict member: State's layout check takes it)
__device__ A_t vp_identity() { A_t a; a.count = 0; a.max = -2147483647 - 1; a.min = 2147483647; return a; }
__device__ A_t vp_gather(A_t acc, int v, int u, X_t xu, float w, const State& s) {
  acc.count += (int)w;
  if (xu > acc.max) acc.max = xu;
  if (xu < acc.min) acc.min = xu;
  return acc;
}
__device__ A_t vp_reduce(A_t a, A_t b) {
  A_t r;
  r.count = a.count + b.count;
  r.max = a.max > b.max ? a.max : b.max;
  r.min = a.min < b.min ? a.min : b.min;
  return r;
}
__device__ bool vp_update(int v, A_t acc, X_t* x, const State& s, Step& st) {
  if (acc.count == 0) return false;
  int nx = (acc.max - acc.min + acc.count + *x) % 1000 + st.iteration;
  st.add(0, (double)acc.count);
  st.add(1, (double)nx);
  st.add(2, (double)nx * 0.5 + st.aggregate(1));
  bool changed = nx != *x;
  *x = nx;
  s.seen[v]++;
  return changed;
}
__device__ bool vp_wants(int v, const State& s) { return v % 5 != 4; }
`,
		Arrays: []vertexprog.DeviceArray{{Name: "seen", Data: p.seen}},
	}
}

// walks sums its in-neighbours' values times the edge weights, modulo
// 2^32, every superstep (Spec.GatherAll): weighted walk counts, exact in
// any order of summation. With add it declares VP_REDUCE_ADD (folds by
// atomicAdd), without it the backend folds by compare-and-swap.
type walks struct{ add bool }

func (walks) Spec() vertexprog.Spec {
	return vertexprog.Spec{Edges: vertexprog.InEdges, GatherAll: true, MaxIterations: 5}
}
func (walks) Init(v int32, _ *vertexprog.Step) (uint32, bool)            { return uint32(v) + 1, true }
func (walks) Identity() uint32                                           { return 0 }
func (walks) Gather(acc uint32, _, _ int32, xu uint32, w float32) uint32 { return acc + xu*uint32(w) }
func (walks) Reduce(a, b uint32) uint32                                  { return a + b }
func (walks) Update(v int32, acc uint32, x *uint32, _ *vertexprog.Step) bool {
	*x = acc*2654435761 + uint32(v)
	return true
}

func (p walks) Device() vertexprog.DeviceCode {
	src := `
typedef unsigned X_t;
typedef unsigned A_t;
struct State {};
__device__ A_t vp_identity() { return 0u; }
__device__ A_t vp_gather(A_t acc, int v, int u, X_t xu, float w, const State& s) { return acc + xu * (unsigned)w; }
__device__ A_t vp_reduce(A_t a, A_t b) { return a + b; }
__device__ bool vp_update(int v, A_t acc, X_t* x, const State& s, Step& st) {
  *x = acc * 2654435761u + (unsigned)v;
  return true;
}
`
	if p.add {
		src += "#define VP_REDUCE_ADD 1\n"
	}
	return vertexprog.DeviceCode{Source: src}
}

// scratchProg keeps a running in-degree sum in a Scratch array (tmp),
// which the device must start at zero in every run and never copy back,
// and a copy of tmp as it was before each Update in a written array
// (seen), which it copies back: after two supersteps X is twice the
// in-degree and seen the in-degree, on any backend. devInit: the
// initial state is made by vp_init (fillOnDevice) rather than sent.
type scratchProg struct {
	tmp, seen []int32
	devInit   bool
}

func (p *scratchProg) Spec() vertexprog.Spec {
	return vertexprog.Spec{Edges: vertexprog.InEdges, GatherAll: true, MaxIterations: 2}
}
func (p *scratchProg) Prepare(g *vertexprog.Graph) error {
	p.tmp, p.seen = make([]int32, g.N()), make([]int32, g.N())
	return nil
}
func (p *scratchProg) Init(int32, *vertexprog.Step) (int32, bool)             { return 0, true }
func (p *scratchProg) Identity() int32                                        { return 0 }
func (p *scratchProg) Gather(acc int32, _, _ int32, _ int32, _ float32) int32 { return acc + 1 }
func (p *scratchProg) Reduce(a, b int32) int32                                { return a + b }
func (p *scratchProg) Update(v int32, acc int32, x *int32, _ *vertexprog.Step) bool {
	p.seen[v] = p.tmp[v]
	p.tmp[v] += acc
	*x = p.tmp[v]
	return true
}

func (p *scratchProg) Device() vertexprog.DeviceCode {
	return vertexprog.DeviceCode{Source: `
typedef int X_t;
typedef int A_t;
struct State { int* tmp; int* seen; };
__device__ bool vp_init(int v, X_t* x, const State& s, Step& st) { return true; }
__device__ A_t vp_identity() { return 0; }
__device__ A_t vp_gather(A_t acc, int v, int u, X_t xu, float w, const State& s) { return acc + 1; }
__device__ A_t vp_reduce(A_t a, A_t b) { return a + b; }
__device__ bool vp_update(int v, A_t acc, X_t* x, const State& s, Step& st) {
  s.seen[v] = s.tmp[v];
  s.tmp[v] += acc;
  *x = s.tmp[v];
  return true;
}
`, Init: p.devInit, Arrays: []vertexprog.DeviceArray{{Name: "tmp", Data: p.tmp, Scratch: true}, {Name: "seen", Data: p.seen}}}
}
