// Triangle counting's device code (Program, apps/tc/tc.go; the
// contract: vertexprog.DeviceCode), hand-written: see apps/tc/device.go.
// TC_RANKED (Device defines it) is 1 for a total, over the ranked
// orientation (lists of the ranks above each vertex, indexed by rank),
// and 0 per vertex, over every neighbour's list in id space.

struct X_t {};
typedef long long A_t;
struct State {
  long long* count;
#if TC_RANKED
  const int* rank;
#endif
  const long long* off;
  const int* cnt;
  const int* adj;
};
#define TC_BLOCK 4  // one int4
__device__ bool vp_init(int v, X_t* x, const State& s, Step& st) { return true; }
__device__ A_t vp_identity() { return 0; }
#include "search.cuh"
__device__ A_t vp_gather(A_t acc, int v, int u, X_t xu, float w, const State& s) {
#if TC_RANKED
  // u counts where it ranks above v (rank 0 the highest (degree, id)):
  // the triangles whose lowest vertex is v. In rank space the lists hold
  // ranks, so how far a merge runs does not depend on the numbering (in
  // id space a degree order interleaved over parts made kron24's merges
  // 17% longer: docs/parts.md).
  const int rv = s.rank[v], ru = s.rank[u];
  if (ru >= rv) return acc;
  long long i = s.off[rv], ie = i + s.cnt[rv], j = s.off[ru], je = j + s.cnt[ru];
#else
  if (u == v) return acc;
  long long i = s.off[v], ie = i + s.cnt[v], j = s.off[u], je = j + s.cnt[u];
#endif
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
      j = hp_lower_bound(s.adj, j, je, a);
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
#if !TC_RANKED
  acc /= 2;  // (each triangle at v is seen from both its other vertices)
#endif
  s.count[v] = acc;
  return false;
}
