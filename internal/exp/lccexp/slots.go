package main

import (
	"github.com/hpgraph/hpgraph/vertexprog"
)

// slotLCC is a candidate LCC for undirected graphs without the atomics
// on the third vertex's credit: superstep 0 lists the triangles as LCC
// does, v the lowest vertex a and u the middle b, and adds each
// triangle's credit for c, and b's credit, to a counter per slot of a's
// list (the slot of c, the slot of b), which lies where a's list does;
// superstep 1 has each vertex x gather, from each neighbour a below it,
// the counter of x's slot in a's list. X carries a's own credit from
// superstep 0 (-1 before it). Device only: an experiment.
type slotLCC struct {
	LCC  []float64
	slot []uint32
	o    *vertexprog.Orientation
}

func (p *slotLCC) Spec() vertexprog.Spec {
	return vertexprog.Spec{Edges: vertexprog.AllEdges, GatherAll: true, MaxIterations: 2}
}

func (p *slotLCC) Prepare(g *vertexprog.Graph) error {
	p.o = g.RankedOrientation()
	p.LCC = make([]float64, g.N())
	// (the lists' length is known on the device alone: at most half the
	// arcs and a block of padding each)
	p.slot = make([]uint32, g.Dataset().NNZ()/2+int64(4*g.N())+4)
	return nil
}

func (p *slotLCC) Init(int32, *vertexprog.Step) (int64, bool) { return -1, true }
func (p *slotLCC) Identity() int64                            { return 0 }
func (p *slotLCC) Gather(acc int64, v, u int32, xu int64, _ float32) int64 {
	panic("slotLCC runs on the device only")
}
func (p *slotLCC) Reduce(a, b int64) int64 { return a + b }
func (p *slotLCC) Update(v int32, acc int64, x *int64, st *vertexprog.Step) bool {
	panic("slotLCC runs on the device only")
}

func (p *slotLCC) Device() vertexprog.DeviceCode {
	o := p.o
	return vertexprog.DeviceCode{
		Source: slotDevice,
		Arrays: []vertexprog.DeviceArray{
			{Name: "lcc", Data: p.LCC},
			{Name: "slot", Data: p.slot},
			{Name: "rank", Orientation: o, Part: vertexprog.OrientationRank, ReadOnly: true},
			{Name: "deg", Orientation: o, Part: vertexprog.OrientationDeg, ReadOnly: true},
			{Name: "off", Orientation: o, Part: vertexprog.OrientationOff, ReadOnly: true},
			{Name: "cnt", Orientation: o, Part: vertexprog.OrientationCnt, ReadOnly: true},
			{Name: "adj", Orientation: o, Part: vertexprog.OrientationAdj, ReadOnly: true},
		},
		HeavyGather: true,
	}
}

const slotDevice = `
typedef long long X_t;
typedef long long A_t;
struct State {
  double* lcc;
  unsigned int* slot;
  const int* rank;
  const int* deg;
  const long long* off;
  const int* cnt;
  const int* adj;
};
__device__ A_t vp_identity() { return 0; }
__device__ long long sl_lower_bound(const int* a, long long j, long long je, int x) {
  while (j < je) {
    long long mid = j + (je - j) / 2;
    if (a[mid] < x) j = mid + 1; else je = mid;
  }
  return j;
}
__device__ A_t vp_gather(A_t acc, int v, int u, X_t xu, float w, const State& s) {
  const int a = s.rank[v], b = s.rank[u];
  if (xu >= 0) {
    // Superstep 1: v takes, from each neighbour below it, its slot's count.
    if (b <= a) return acc;
    const long long ib = s.off[b];
    return acc + s.slot[sl_lower_bound(s.adj, ib, ib + s.cnt[b], a)];
  }
  if (b >= a) return acc;
  const long long ia = s.off[a], iae = ia + s.cnt[a], ib = s.off[b], ibe = ib + s.cnt[b];
  const long long sb = sl_lower_bound(s.adj, ia, iae, b);  // b's slot in a's list
  long long own = 0;
  const bool aShort = iae - ia <= ibe - ib;
  long long i = aShort ? ia : ib, ie = aShort ? iae : ibe, j = aShort ? ib : ia, je = aShort ? ibe : iae;
  if ((ie - i) * 16 < je - j) {
    for (; i < ie && j < je; i++) {
      const int c = s.adj[i];
      j = sl_lower_bound(s.adj, j, je, c);
      if (j < je && s.adj[j] == c) {
        own++;
        atomicAdd(s.slot + (aShort ? i : j), 1u);
        j++;
      }
    }
  } else {
    while (i < ie && j < je) {
      const int4 x = __ldg(reinterpret_cast<const int4*>(s.adj + i)), y = __ldg(reinterpret_cast<const int4*>(s.adj + j));
      const int xv[4] = {x.x, x.y, x.z, x.w};
#pragma unroll
      for (int k = 0; k < 4; k++) {
        const int c = xv[k];
        const int h = c == y.x ? 0 : c == y.y ? 1 : c == y.z ? 2 : c == y.w ? 3 : -1;
        if (h >= 0 && i + k < ie) {
          own++;
          atomicAdd(s.slot + (aShort ? i + k : j + h), 1u);
        }
      }
      if (x.w <= y.w) i += 4;
      if (y.w <= x.w) j += 4;
    }
  }
  if (own) atomicAdd(s.slot + sb, (unsigned int)own);
  return acc + own;
}
__device__ A_t vp_reduce(A_t a, A_t b) { return a + b; }
__device__ bool vp_update(int v, A_t acc, X_t* x, const State& s, Step& st) {
  if (*x < 0) {
    *x = acc;
    return true;
  }
  const long long t = 2 * (*x + acc);
  const long long d = s.deg[v];
  s.lcc[v] = d >= 2 ? (double)t / (double)(d * (d - 1)) : 0.0;
  return false;
}
`
