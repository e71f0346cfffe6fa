//go:build cgo

package run

import (
	"math"

	"github.com/hpgraph/hpgraph/vertexprog"
)

// The user multiset programs of multiset_test.go.

// msStats is a user multiset program with 8-byte signed elements (large
// and negative) and no summary fold: its vertex's value becomes a mix of
// the lower median and the mode (the largest of the most frequent) of
// its neighbours' values along every arc at it.
type msStats struct{}

type msStatsX struct {
	Val            int64
	Distinct, Size int32
	Median, Mode   int64
}

type msStatsA struct {
	Distinct, Size int32
	Median, Mode   int64
}

func (msStats) Spec() vertexprog.Spec {
	return vertexprog.Spec{Edges: vertexprog.InOutEdges, GatherAll: true, MaxIterations: 4}
}

func (msStats) Init(v int32, _ *vertexprog.Step) (msStatsX, bool) {
	return msStatsX{Val: int64(v*7919%201) - 100 + int64(v%3-1)<<40, Median: -1, Mode: -1}, true
}

func (msStats) Element(_, _ int32, xu msStatsX, _ float32) int64 { return xu.Val }

func (msStats) Summarize(_ int32, b vertexprog.Bag[int64]) msStatsA {
	a := msStatsA{Distinct: int32(len(b.Values)), Size: int32(b.Size), Median: -1, Mode: -1}
	rank := (b.Size - 1) / 2
	for i, c := range b.Counts {
		if rank < c {
			a.Median = b.Values[i]
			break
		}
		rank -= c
	}
	best := -1
	for i, c := range b.Counts {
		if best < 0 || c >= b.Counts[best] {
			best = i
		}
	}
	if best >= 0 {
		a.Mode = b.Values[best]
	}
	return a
}

func (msStats) Update(_ int32, a msStatsA, x *msStatsX, _ *vertexprog.Step) bool {
	x.Distinct, x.Size, x.Median, x.Mode = a.Distinct, a.Size, a.Median, a.Mode
	nv := (a.Median*3+a.Mode)%1000003 - 500000
	changed := nv != x.Val
	x.Val = nv
	return changed
}

func (msStats) Device() vertexprog.DeviceCode {
	return vertexprog.DeviceCode{Source: `
struct X_t { long long val; int distinct, size; long long median, mode; };
struct A_t { int distinct, size; long long median, mode; };
typedef long long K_t;
struct State {};
__device__ K_t vp_element(int v, int u, X_t xu, float w, const State& s) { return xu.val; }
__device__ A_t vp_summarize(int v, const K_t* values, const int* counts, int distinct, int size, const State& s) {
  A_t a;
  a.distinct = distinct;
  a.size = size;
  a.median = -1;
  a.mode = -1;
  int rank = (size - 1) / 2;
  for (int i = 0; i < distinct; i++) {
    if (rank < counts[i]) { a.median = values[i]; break; }
    rank -= counts[i];
  }
  int best = -1;
  for (int i = 0; i < distinct; i++)
    if (best < 0 || counts[i] >= counts[best]) best = i;
  if (best >= 0) a.mode = values[best];
  return a;
}
__device__ bool vp_update(int v, A_t a, X_t* x, const State& s, Step& st) {
  x->distinct = a.distinct;
  x->size = a.size;
  x->median = a.median;
  x->mode = a.mode;
  long long nv = (a.median * 3 + a.mode) % 1000003 - 500000;
  bool changed = nv != x->val;
  x->val = nv;
  return changed;
}
`}
}

// msFloat gathers float64 elements (a neighbour's value times the arc's
// weight) among which are NaNs, both zeros, infinities and denormals,
// and records how its multiset orders and counts them, in a form that
// does not depend on which NaN or which zero stands for its class.
type msFloat struct{}

type msFloatA struct {
	Distinct, Size, NaNs, Zeros, MaxCount, Rank int32
	Low                                         uint64
}

type msFloatX struct {
	V float64
	A msFloatA
}

func (msFloat) Spec() vertexprog.Spec {
	return vertexprog.Spec{Edges: vertexprog.InEdges, GatherAll: true, MaxIterations: 1}
}

func msSpecial(v int32) float64 {
	switch v % 9 {
	case 0:
		return math.NaN()
	case 1:
		return math.Copysign(0, -1)
	case 2:
		return 0
	case 3:
		return math.Inf(1)
	case 4:
		return math.Inf(-1)
	case 5:
		return float64(v) * 0.5
	case 6:
		return -float64(v % 13)
	case 7:
		return 1e300
	}
	return math.SmallestNonzeroFloat64 * float64(v%3)
}

func (msFloat) Init(v int32, _ *vertexprog.Step) (msFloatX, bool) {
	return msFloatX{V: msSpecial(v)}, true
}

func (msFloat) Element(_, _ int32, xu msFloatX, w float32) float64 { return xu.V * float64(w) }

// canon is a value's bits, 1 for a NaN and 0 for either zero.
func canon(x float64) uint64 {
	switch {
	case x != x:
		return 1
	case x == 0:
		return 0
	}
	return math.Float64bits(x)
}

func (msFloat) Summarize(_ int32, b vertexprog.Bag[float64]) msFloatA {
	a := msFloatA{Distinct: int32(len(b.Values)), Size: int32(b.Size), Rank: -1}
	for i, x := range b.Values {
		c := int32(b.Counts[i])
		if x != x {
			a.NaNs = c
		}
		if x == 0 {
			a.Zeros = c
		}
		if c > a.MaxCount {
			a.MaxCount, a.Rank = c, int32(i)
		}
	}
	if len(b.Values) > 0 {
		a.Low = canon(b.Values[0])
	}
	return a
}

func (msFloat) Update(_ int32, a msFloatA, x *msFloatX, _ *vertexprog.Step) bool {
	x.A = a
	return false
}

func (msFloat) Device() vertexprog.DeviceCode {
	return vertexprog.DeviceCode{Source: `
struct A_t { int distinct, size, nans, zeros, maxCount, rank; unsigned long long low; };
struct X_t { double v; A_t a; };
typedef double K_t;
struct State {};
__device__ K_t vp_element(int v, int u, X_t xu, float w, const State& s) { return xu.v * (double)w; }
__device__ unsigned long long canon(double x) {
  if (x != x) return 1;
  if (x == 0) return 0;
  return (unsigned long long)__double_as_longlong(x);
}
__device__ A_t vp_summarize(int v, const K_t* values, const int* counts, int distinct, int size, const State& s) {
  A_t a;
  a.distinct = distinct;
  a.size = size;
  a.nans = 0;
  a.zeros = 0;
  a.maxCount = 0;
  a.rank = -1;
  a.low = 0;
  for (int i = 0; i < distinct; i++) {
    double x = values[i];
    if (x != x) a.nans = counts[i];
    if (x == 0) a.zeros = counts[i];
    if (counts[i] > a.maxCount) { a.maxCount = counts[i]; a.rank = i; }
  }
  if (distinct > 0) a.low = canon(values[0]);
  return a;
}
__device__ bool vp_update(int v, A_t a, X_t* x, const State& s, Step& st) {
  x->a = a;
  return false;
}
`}
}

// msMasked gathers from the frontier only (not GatherAll; idempotent, so
// unmasked while the frontier is dense), sums and maximizes aggregators
// that its Update reads, writes a state array, and summarizes by a fold
// too: the smallest element, its count and the distinct count.
type msMasked struct{ seen []int32 }

type msMaskedA struct {
	Lo            uint32
	Cnt, Distinct int32
}

func (*msMasked) Spec() vertexprog.Spec {
	return vertexprog.Spec{Edges: vertexprog.AllEdges, Idempotent: true, MaxIterations: 6,
		Aggregators: []vertexprog.Aggregator{vertexprog.Sum, vertexprog.Max}}
}

func (p *msMasked) Prepare(g *vertexprog.Graph) error {
	p.seen = make([]int32, g.N())
	return nil
}

func (*msMasked) Init(v int32, s *vertexprog.Step) (uint32, bool) {
	s.Add(0, 1)
	return uint32(v) * 2654435761 % 17, v%3 != 0
}

func (*msMasked) Element(_, u int32, xu uint32, _ float32) uint32 { return xu*2 + uint32(u&1) }

func (*msMasked) Summarize(_ int32, b vertexprog.Bag[uint32]) msMaskedA {
	if b.Size == 0 {
		return msMaskedA{}
	}
	return msMaskedA{Lo: b.Values[0], Cnt: int32(b.Counts[0]), Distinct: int32(len(b.Values))}
}

func (p *msMasked) Update(v int32, a msMaskedA, x *uint32, s *vertexprog.Step) bool {
	if a.Distinct == 0 {
		return false
	}
	nx := (*x + a.Lo*3 + uint32(a.Distinct) + uint32(int64(s.Aggregate(0))%5)) % 17
	s.Add(0, float64(a.Cnt))
	s.Add(1, float64(nx))
	p.seen[v]++
	changed := nx != *x
	*x = nx
	return changed
}

func (p *msMasked) Device() vertexprog.DeviceCode {
	return vertexprog.DeviceCode{Source: `
typedef unsigned X_t;
typedef unsigned K_t;
struct A_t { unsigned lo; int cnt, distinct; };
struct State { int* seen; };
__device__ K_t vp_element(int v, int u, X_t xu, float w, const State& s) { return xu * 2u + (unsigned)(u & 1); }
__device__ A_t vp_summarize(int v, const K_t* values, const int* counts, int distinct, int size, const State& s) {
  A_t a;
  a.lo = 0;
  a.cnt = 0;
  a.distinct = 0;
  if (size == 0) return a;
  a.lo = values[0];
  a.cnt = counts[0];
  a.distinct = distinct;
  return a;
}
#define VP_SUMMARY_FOLD 1
struct S_t { unsigned lo; int cnt, distinct; };
__device__ S_t vp_summary_leaf(int v, K_t value, int count, const State& s) { S_t t; t.lo = value; t.cnt = count; t.distinct = 1; return t; }
__device__ S_t vp_summary_join(S_t a, S_t b) { a.distinct += b.distinct; return a; }
__device__ A_t vp_summary_final(int v, S_t t, int distinct, int size, const State& s) {
  A_t a;
  a.lo = t.lo;
  a.cnt = t.cnt;
  a.distinct = t.distinct == distinct ? distinct : -1;  // (a check that the fold saw every distinct value)
  return a;
}
__device__ bool vp_update(int v, A_t a, X_t* x, const State& s, Step& st) {
  if (a.distinct == 0) return false;
  unsigned nx = (*x + a.lo * 3u + (unsigned)a.distinct + (unsigned)((long long)st.aggregate(0) % 5)) % 17u;
  st.add(0, (double)a.cnt);
  st.add(1, (double)nx);
  s.seen[v]++;
  bool changed = nx != *x;
  *x = nx;
  return changed;
}
`, Arrays: []vertexprog.DeviceArray{{Name: "seen", Data: p.seen}}}
}
