package apps

import (
	"unsafe"

	"github.com/hpgraph/hpgraph/vertexprog"
)

// Device code of the built-in apps: CUDA C versions of each program's
// Gather, Reduce, Update (and Wants, Done, and Init as vp_init),
// computing exactly what the Go methods compute (same types, same
// operation order; the backend compiles without FMA contraction). The
// contract is vertexprog.DeviceCode's.
//
// BFS, CC and the paper's PageRank are generated from their Go methods
// by devgen (zz_device_gen.go; docs/devgen.md). What remains
// hand-written here, and why:
//   - SSSP: delta-stepping needs vp_priority, which devgen does not
//     derive, and its atomic fold relies on Prepare's promise that
//     weights are non-negative (one signed atomicMin on the bits, where
//     devgen's general float fold also handles negative values and NaN).
//   - LDBC PageRank: it is generic in F (devgen translates non-generic
//     types only; its F picks float or double here).
//   - Triangle counting: its Gather intersects two adjacency lists of
//     the graph's orientation with loops bounded by the data, binary
//     searches and 16-byte vector loads; the subset has state slices
//     indexed only by a vertex and loops with constant bounds.
//
//go:generate go run github.com/hpgraph/hpgraph/devgen/cmd/devgen -type BFSProgram,CCProgram,PageRankProgram

const ssspDevice = `
typedef float X_t;
typedef float A_t;
struct State {
  const int* source;  // one element
};
__device__ bool vp_init(int v, X_t* d, const State& s, Step& st) {
  const bool src = v == s.source[0];
  *d = src ? 0.0f : __int_as_float(0x7f800000);
  return src;
}
__device__ A_t vp_identity() { return __int_as_float(0x7f800000); }
__device__ A_t vp_gather(A_t acc, int v, int u, X_t du, float w, const State& s) { return vp_go_minf(acc, du + w); }
__device__ A_t vp_reduce(A_t a, A_t b) { return vp_go_minf(a, b); }
__device__ bool vp_update(int v, A_t acc, X_t* d, const State& s, Step& st) {
  if (acc < *d) {
    *d = acc;
    return true;
  }
  return false;
}
__device__ float vp_priority(int v, X_t d, const State& s) { return d; }
// Distances are non-negative numbers (Prepare rejects other weights), so
// their bits order as ints do (-0 first, as vp_go_minf has it).
#define VP_FOLD_ATOMIC 1
__device__ int vp_fold_atomic(A_t* y, int v, int u, X_t du, float w, const State& s) {
  const int c = __float_as_int(du + w);
  const int old = atomicMin(reinterpret_cast<int*>(y), c);
  return old == 0x7f800000 ? 2 : c < old;
}
`

// Device implements vertexprog.DeviceProgram.
func (p *SSSPProgram) Device() vertexprog.DeviceCode {
	return vertexprog.DeviceCode{Source: ssspDevice, Init: true,
		Arrays: []vertexprog.DeviceArray{{Name: "source", Data: p.src, ReadOnly: true}}}
}

// pageRankLDBCDevice is PageRankLDBCProgram[F]'s device code, F's C type
// (float or double) given as VP_PR_F.
const pageRankLDBCDevice = `
typedef VP_PR_F X_t;
typedef VP_PR_F A_t;
struct State {
  double* rank;
  const int* outDeg;
  double damping;
  double n;
};
__device__ bool vp_init(int v, X_t* x, const State& s, Step& st) {
  const int deg = s.outDeg[v];
  const double r = 1 / s.n;
  s.rank[v] = r;
  if (deg == 0) st.add(0, r);
  *x = deg == 0 ? (X_t)0 : (X_t)(r / (double)deg);
  return true;
}
__device__ A_t vp_identity() { return 0; }
__device__ A_t vp_gather(A_t acc, int v, int u, X_t xu, float w, const State& s) { return acc + xu; }
__device__ A_t vp_reduce(A_t a, A_t b) { return a + b; }
#define VP_REDUCE_ADD 1
__device__ bool vp_update(int v, A_t acc, X_t* x, const State& s, Step& st) {
  const int deg = s.outDeg[v];  // (loaded before the stores, so with acc)
  double d = s.damping;
  double r = (1 - d) / s.n + d * (double)acc + d / s.n * st.aggregate(0);
  s.rank[v] = r;
  if (deg == 0) st.add(0, r);
  *x = deg == 0 ? (X_t)0 : (X_t)(r / (double)deg);
  return true;
}
`

// Device implements vertexprog.DeviceProgram.
func (p *PageRankLDBCProgram[F]) Device() vertexprog.DeviceCode {
	f := "double"
	if unsafe.Sizeof(F(0)) == 4 {
		f = "float"
	}
	return vertexprog.DeviceCode{
		Source: "#define VP_PR_F " + f + "\n" + pageRankLDBCDevice,
		Init:   true,
		Arrays: []vertexprog.DeviceArray{
			{Name: "rank", Data: p.Rank},
			{Name: "outDeg", Data: p.outDeg, ReadOnly: true, Constant: true},
		},
		Scalars: []vertexprog.DeviceScalar{{Name: "damping", Value: p.Damping}, {Name: "n", Value: p.n}},
	}
}

const triangleDevice = `
struct X_t {};
typedef long long A_t;
struct State {
  long long* count;
  const int* deg;
  const long long* off;
  const int* cnt;
  const int* adj;
  int perVertex;
};
#define TC_BLOCK 4  // one int4
__device__ bool vp_init(int v, X_t* x, const State& s, Step& st) { return true; }
__device__ bool tc_below(const State& s, int v, int u) {
  return s.deg[v] < s.deg[u] || (s.deg[v] == s.deg[u] && v < u);
}
__device__ A_t vp_identity() { return 0; }
// tc_lower_bound: the first index in [j, je) whose entry is >= x.
__device__ long long tc_lower_bound(const int* a, long long j, long long je, int x) {
  while (j < je) {
    long long mid = j + (je - j) / 2;
    if (a[mid] < x) j = mid + 1; else je = mid;
  }
  return j;
}
__device__ A_t vp_gather(A_t acc, int v, int u, X_t xu, float w, const State& s) {
  if (u == v || (!s.perVertex && !tc_below(s, v, u))) return acc;
  long long i = s.off[v], ie = i + s.cnt[v], j = s.off[u], je = j + s.cnt[u];
  long long n = 0;
  if (ie - i > je - j) {  // the shorter list first
    long long t = i; i = j; j = t;
    t = ie; ie = je; je = t;
  }
  if ((ie - i) * 16 < je - j) {
    // Skewed lengths: binary-search each entry of the short list in the
    // long one (the same count as the merge below, in fewer steps).
    for (; i < ie && j < je; i++) {
      int a = s.adj[i];
      j = tc_lower_bound(s.adj, j, je, a);
      if (j < je && s.adj[j] == a) {
        n++;
        j++;
      }
    }
    return acc + n;
  }
  // Merge TC_BLOCK entries of each list at a time (both start 16-byte
  // aligned, padded with INT_MAX): count the equal pairs of the two
  // blocks, then move on from the block with the lower last entry (both
  // when equal): its entries can match nothing further on. A quarter of
  // the dependent loads of an entry-by-entry merge (blocks of 8 measured
  // slower: 59.6 against 56.8 ms on kron21).
  while (i < ie && j < je) {
    const int4 a = __ldg(reinterpret_cast<const int4*>(s.adj + i)), b = __ldg(reinterpret_cast<const int4*>(s.adj + j));
    const int av[TC_BLOCK] = {a.x, a.y, a.z, a.w};
#pragma unroll
    for (int k = 0; k < TC_BLOCK; k++)
      n += i + k < ie && (av[k] == b.x || av[k] == b.y || av[k] == b.z || av[k] == b.w);
    if (a.w <= b.w) i += TC_BLOCK;
    if (b.w <= a.w) j += TC_BLOCK;
  }
  return acc + n;
}
__device__ A_t vp_reduce(A_t a, A_t b) { return a + b; }
__device__ bool vp_update(int v, A_t acc, X_t* x, const State& s, Step& st) {
  if (s.perVertex) acc /= 2;
  s.count[v] = acc;
  return false;
}
`

// Device implements vertexprog.DeviceProgram.
func (p *TriangleProgram) Device() vertexprog.DeviceCode {
	pv := int32(0)
	if p.PerVertex {
		pv = 1
	}
	return vertexprog.DeviceCode{
		Source: triangleDevice,
		Init:   true,
		Arrays: []vertexprog.DeviceArray{
			{Name: "count", Data: p.Count},
			{Name: "deg", Orientation: p.o, Part: vertexprog.OrientationDeg, ReadOnly: true},
			{Name: "off", Orientation: p.o, Part: vertexprog.OrientationOff, ReadOnly: true},
			{Name: "cnt", Orientation: p.o, Part: vertexprog.OrientationCnt, ReadOnly: true},
			{Name: "adj", Orientation: p.o, Part: vertexprog.OrientationAdj, ReadOnly: true},
		},
		Scalars:     []vertexprog.DeviceScalar{{Name: "perVertex", Value: pv}},
		HeavyGather: true,
	}
}
