// Triangle counting's device code (Program, apps/tc/tc.go; the
// contract: vertexprog.DeviceCode), hand-written: see apps/tc/device.go.

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
#include "search.cuh"
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
  if (s.perVertex) acc /= 2;
  s.count[v] = acc;
  return false;
}
