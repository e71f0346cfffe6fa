// hpgraph CUDA: union-find components by Afforest (Sutton, Ben-Nun and
// Barak, IPDPS 2018; GAP's cc.cc), the backend's own path for
// vertexprog.Components. comp is a forest: comp[v] <= v always, and a
// root (comp[r] == r) is the smallest vertex of its tree, since a link
// only ever points a root at a smaller one. So once every edge is
// linked and every path compressed, comp[v] is the smallest vertex of v's
// component: the label min-label propagation from the ids computes.
//
// The graph is a symmetric HYB matrix (VP_Mat, mat.cu): neighbour i of v
// is ELL slot i (padding, -1, only trails), then COO entry i - k.

struct AF_Arg {
  int* comp;
  int* sample;     // af_sample's output
  int n;
  int round;       // af_link_round: the neighbour index; af_link_rest: the first one
  int giant;       // af_link_rest: the label whose vertices are skipped
  unsigned seed;   // af_sample
};

static_assert(sizeof(AF_Arg) == 32, "hpgraph: AF_Arg layout");

#define AF_BLOCK 256

// af_nbr returns neighbour i of v, or -1 when v has no more.
__device__ __forceinline__ int af_nbr(const VP_Mat& m, int v, int i) {
  if (i < m.k) return m.ellCol[(long long)i * m.pitch + v];
  long long e = m.cooPtr[v] + (i - m.k);
  return e < m.cooPtr[v + 1] ? m.cooCol[e] : -1;
}

// af_ld reads comp past L1, which keeps lines other multiprocessors
// change (a link retrying on a stale parent would spin).
__device__ __forceinline__ int af_ld(const int* comp, int v) { return __ldcg(comp + v); }

// af_link joins the trees of u and v: the larger root is pointed at the
// smaller one by a CAS, retried from the roots' new parents when another
// link won the race (GAP's Link).
__device__ __forceinline__ void af_link(int* comp, int u, int v) {
  int p1 = af_ld(comp, u), p2 = af_ld(comp, v);
  while (p1 != p2) {
    int high = max(p1, p2), low = min(p1, p2);
    int ph = af_ld(comp, high);
    if (ph == low) return;
    if (ph == high && atomicCAS(comp + high, high, low) == high) return;
    p1 = af_ld(comp, af_ld(comp, high));
    p2 = af_ld(comp, low);
  }
}

extern "C" __global__ void __launch_bounds__(AF_BLOCK) af_init(VP_Mat m, AF_Arg a) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v < a.n) a.comp[v] = v;
}

// af_link_round links every vertex with its neighbour a.round.
extern "C" __global__ void __launch_bounds__(AF_BLOCK) af_link_round(VP_Mat m, AF_Arg a) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= a.n) return;
  int u = af_nbr(m, v, a.round);
  if (u >= 0) af_link(a.comp, v, u);
}

// af_compress points every vertex at its root.
extern "C" __global__ void __launch_bounds__(AF_BLOCK) af_compress(VP_Mat m, AF_Arg a) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= a.n) return;
  int c = af_ld(a.comp, v);
  for (int p; c != (p = af_ld(a.comp, c));) c = p;
  a.comp[v] = c;
}

// af_sample writes the labels of AF_BLOCK pseudo-random vertices (a hash
// of the index and a.seed), for the host to find the giant component.
extern "C" __global__ void __launch_bounds__(AF_BLOCK) af_sample(VP_Mat m, AF_Arg a) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned h = (i + a.seed) * 2654435761u;
  h ^= h >> 15;
  h *= 2246822519u;
  h ^= h >> 13;
  a.sample[i] = a.comp[h % (unsigned)a.n];
}

// af_link_rest links every vertex outside the giant component with its
// neighbours from index a.round on: a warp a vertex, its lanes taking
// every 32nd neighbour. A vertex of the giant component needs none of
// its edges: an edge to a vertex outside it is linked from that side (the
// matrix is symmetric).
extern "C" __global__ void __launch_bounds__(AF_BLOCK) af_link_rest(VP_Mat m, AF_Arg a) {
  const long long w = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  const int lane = threadIdx.x & 31;
  if (w >= a.n) return;
  const int v = (int)w;
  if (a.comp[v] == a.giant) return;
  for (int i = a.round + lane;; i += 32) {
    int u = af_nbr(m, v, i);
    if (u < 0) return;
    af_link(a.comp, v, u);
  }
}

// af_link_pairs links every vertex with its label in another forest over
// the same vertices (a.sample: another part's comp), so that comp's trees
// become the components of the union of both forests' edges (a run in
// parts: docs/parts.md).
extern "C" __global__ void __launch_bounds__(AF_BLOCK) af_link_pairs(VP_Mat m, AF_Arg a) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= a.n) return;
  int u = a.sample[v];
  if (u != v) af_link(a.comp, v, u);
}
