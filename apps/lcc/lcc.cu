// LCC's device code (Program, apps/lcc/lcc.go; the contract:
// vertexprog.DeviceCode), hand-written: see apps/lcc/device.go. Device
// defines LCC_DIRECTED and LCC_AGG before it.

struct X_t {};
typedef long long A_t;
struct State {
  double* lcc;
  long long* credit;
  long long* hub;
  const int* rank;
  const int* deg;
  const long long* off;
  const int* cnt;
  const int* adj;
  const unsigned int* both;
  int hubs;
};
#define LCC_BLOCK 4  // one int4
#define LCC_REPLICAS 32
#define LCC_HUB_PAD 16  // copy k of the hubs' credits starts k * (hubs + LCC_HUB_PAD) in
__device__ bool vp_init(int v, X_t* x, const State& s, Step& st) { return true; }
__device__ A_t vp_identity() { return 0; }
// lcc_add credits the vertex of rank r with m arcs. A hub's credit goes
// to one of its LCC_REPLICAS copies, picked by the thread: the lanes of a
// warp pick different copies, and warps and blocks spread over them, so
// the millions of triangles closed at one hub do not serialize on one
// word (nor those of the top hubs on a few cache lines).
__device__ __forceinline__ void lcc_add(const State& s, int r, long long m) {
  long long* p;
  if (r < s.hubs) {
    const int k = (threadIdx.x + (threadIdx.x >> 5) * 7 + blockIdx.x * 13) & (LCC_REPLICAS - 1);
    p = s.hub + (long long)k * (s.hubs + LCC_HUB_PAD) + r;
  } else {
    p = s.credit + r;
  }
  atomicAdd(reinterpret_cast<unsigned long long*>(p), (unsigned long long)m);
}
// lcc_add_third credits c, the third vertex of a triangle, with m arcs.
// The lanes of a warp intersect one list a with their own b's, so lanes
// that close triangles in the same step often share c, a hub: where
// LCC_AGG is 1 (Program.agg says where it pays), those that credit one
// hub with the same m together add their sum once. (A build without it:
// the code and registers cost 10% where it is off.)
__device__ __forceinline__ void lcc_add_third(const State& s, int c, long long m) {
#if LCC_AGG
  if (c < s.hubs) {
    const unsigned g = __match_any_sync(__activemask(), ((unsigned long long)(unsigned)c << 32) | (unsigned long long)m);
    if ((int)(threadIdx.x & 31) != __ffs(g) - 1) return;
    m *= __popc(g);
  }
#endif
  lcc_add(s, c, m);
}
// lcc_mult: the arcs between the two ends of the edge in slot i of adj
// (m on a directed graph; 1 on an undirected one, which Update doubles).
__device__ __forceinline__ long long lcc_mult(const State& s, long long i) {
#if LCC_DIRECTED
  return 1 + ((__ldg(s.both + (i >> 5)) >> (i & 31)) & 1u);
#else
  return 1;
#endif
}
#include "search.cuh"
// vp_gather lists the triangles {a, b, c} (ranks, a > b > c) that the
// lists of a = rank(v) and b = rank(u) close, where u ranks above v: it
// credits b and each c, and returns acc plus a's credit.
__device__ A_t vp_gather(A_t acc, int v, int u, X_t xu, float w, const State& s) {
  const int a = s.rank[v], b = s.rank[u];
  if (b >= a) return acc;  // (b == a: a loop)
  const long long ia = s.off[a], iae = ia + s.cnt[a], ib = s.off[b], ibe = ib + s.cnt[b];
  // m(a, b), what each third vertex c gets: b's slot in a's list.
  const long long mab = LCC_DIRECTED ? lcc_mult(s, hp_lower_bound(s.adj, ia, iae, b)) : 1;
  long long own = 0, mid = 0;  // a's credit, b's (the same on an undirected graph)
  // The shorter list is i's (aShort: a's), the longer j's.
  const bool aShort = iae - ia <= ibe - ib;
  long long i = aShort ? ia : ib, ie = aShort ? iae : ibe, j = aShort ? ib : ia, je = aShort ? ibe : iae;
  if ((ie - i) * 16 < je - j) {
    // Skewed lengths: each entry of the short list is searched for in
    // the long one (the same triangles as the merge below, in fewer steps).
    for (; i < ie && j < je; i++) {
      const int c = s.adj[i];
      j = hp_lower_bound(s.adj, j, je, c);
      if (j < je && s.adj[j] == c) {
#if LCC_DIRECTED
        own += lcc_mult(s, aShort ? j : i);
        mid += lcc_mult(s, aShort ? i : j);
#else
        own++;
#endif
        lcc_add_third(s, c, mab);
        j++;
      }
    }
  } else {
    // Merge LCC_BLOCK entries of each list at a time (both start 16-byte
    // aligned, padded with INT_MAX), as triangle counting does: each
    // entry of one list's block that equals one of the other's closes a
    // triangle; then move on from the block with the lower last entry
    // (both when equal): its entries can match nothing further on.
    while (i < ie && j < je) {
      const int4 x = __ldg(reinterpret_cast<const int4*>(s.adj + i)), y = __ldg(reinterpret_cast<const int4*>(s.adj + j));
      const int xv[LCC_BLOCK] = {x.x, x.y, x.z, x.w};
#pragma unroll
      for (int k = 0; k < LCC_BLOCK; k++) {
        const int c = xv[k];
#if LCC_DIRECTED
        const int h = c == y.x ? 0 : c == y.y ? 1 : c == y.z ? 2 : c == y.w ? 3 : -1;
        if (h >= 0 && i + k < ie) {
          own += lcc_mult(s, aShort ? j + h : i + k);
          mid += lcc_mult(s, aShort ? i + k : j + h);
          lcc_add_third(s, c, mab);
        }
#else
        if ((c == y.x || c == y.y || c == y.z || c == y.w) && i + k < ie) {
          own++;
          lcc_add_third(s, c, 1);
        }
#endif
      }
      if (x.w <= y.w) i += LCC_BLOCK;
      if (y.w <= x.w) j += LCC_BLOCK;
    }
  }
  if (!LCC_DIRECTED) mid = own;
  if (mid) lcc_add(s, b, mid);
  return acc + own;
}
__device__ A_t vp_reduce(A_t a, A_t b) { return a + b; }
__device__ bool vp_update(int v, A_t acc, X_t* x, const State& s, Step& st) {
  const int r = s.rank[v];
  long long t = acc + s.credit[r];
  if (r < s.hubs)
    for (int k = 0; k < LCC_REPLICAS; k++) t += s.hub[(long long)k * (s.hubs + LCC_HUB_PAD) + r];
  if (!LCC_DIRECTED) t *= 2;
  const long long d = s.deg[v];
  s.lcc[v] = d >= 2 ? (double)t / (double)(d * (d - 1)) : 0.0;
  return false;
}
