package apps

import (
	"math"

	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/vertexprog"
)

// CDLP's device code (vertexprog.MultisetDeviceProgram). The summary
// folds (VP_SUMMARY_FOLD) as Summarize scans: the most frequent label,
// the first (smallest) of those that tie, so that hub rows are
// summarized in parallel.
//
// Labels are original ids. Where the ids of a graph's vertices lie
// within 2^32 of the smallest (generated graphs, relabelled or not, and
// most files), every label, some vertex's id, minus that smallest id is
// a 4-byte key that orders as the label does: the device sorts those
// (cdlpDeviceIndex), half the traffic of 8-byte labels. Otherwise it
// sorts the labels themselves (cdlpDeviceLabel).

const cdlpDeviceCommon = `
typedef long long X_t;
struct A_t {
  long long label;
  bool found;
};
struct State {
  long long base;
};
__device__ A_t vp_summarize(int v, const K_t* values, const int* counts, int distinct, int size, const State& s) {
  A_t r;
  r.label = 0;
  r.found = false;
  if (size == 0) return r;
  int best = 0;
  for (int i = 1; i < distinct; i++)
    if (counts[i] > counts[best]) best = i;
  r.label = cdlp_label(values[best], s);
  r.found = true;
  return r;
}
#define VP_SUMMARY_FOLD 1
struct S_t {
  K_t value;
  int count;
};
__device__ S_t vp_summary_leaf(int v, K_t value, int count, const State& s) {
  S_t t;
  t.value = value;
  t.count = count;
  return t;
}
__device__ S_t vp_summary_join(S_t a, S_t b) { return b.count > a.count ? b : a; }
__device__ A_t vp_summary_final(int v, S_t t, int distinct, int size, const State& s) {
  A_t r;
  r.label = cdlp_label(t.value, s);
  r.found = true;
  return r;
}
__device__ bool vp_update(int v, A_t c, X_t* label, const State& s, Step& st) {
  if (!c.found || c.label == *label) return false;
  *label = c.label;
  return true;
}
`

// cdlpDeviceIndex sorts label - base, base the smallest id.
const cdlpDeviceIndex = `
typedef unsigned K_t;
struct State;
__device__ __forceinline__ long long cdlp_label(K_t k, const State& s);
` + cdlpDeviceCommon + `
__device__ __forceinline__ long long cdlp_label(K_t k, const State& s) { return s.base + (long long)k; }
__device__ K_t vp_element(int v, int u, X_t xu, float w, const State& s) { return (K_t)(xu - s.base); }
`

// cdlpDeviceLabel sorts the labels.
const cdlpDeviceLabel = `
typedef long long K_t;
struct State;
__device__ __forceinline__ long long cdlp_label(K_t k, const State& s);
` + cdlpDeviceCommon + `
__device__ __forceinline__ long long cdlp_label(K_t k, const State& s) { return k; }
__device__ K_t vp_element(int v, int u, X_t xu, float w, const State& s) { return xu; }
`

// Device implements vertexprog.MultisetDeviceProgram (after Prepare).
func (p *CDLPProgram) Device() vertexprog.DeviceCode {
	r := p.g.Memo(cdlpIDRangeKey{}, func() any { return idRange(p.g.Dataset()) }).(cdlpIDRange)
	src := cdlpDeviceLabel
	if r.hi >= r.lo && uint64(r.hi-r.lo) <= math.MaxUint32 { // (the difference, exact as a uint64)
		src = cdlpDeviceIndex
	}
	return vertexprog.DeviceCode{Source: src, Scalars: []vertexprog.DeviceScalar{{Name: "base", Value: r.lo}}}
}

// cdlpIDRange is the smallest and the largest id of a graph's vertices
// (hi < lo: no vertices), memoized on the graph (cdlpIDRangeKey).
type cdlpIDRange struct{ lo, hi int64 }

type cdlpIDRangeKey struct{}

func idRange(d *datasets.Graph) cdlpIDRange {
	if d.IDs == nil {
		return cdlpIDRange{d.IDBase, d.IDBase + int64(d.N) - 1}
	}
	r := cdlpIDRange{math.MaxInt64, math.MinInt64}
	for _, id := range d.IDs {
		r.lo, r.hi = min(r.lo, id), max(r.hi, id)
	}
	return r
}
