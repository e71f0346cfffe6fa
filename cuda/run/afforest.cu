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
  int lo, hi;      // the rows a kernel passes over (the links: the run's own rows with
                   // arcs; af_init, af_compress, af_link_pairs: a span)
};

static_assert(sizeof(AF_Arg) == 40, "hpgraph: AF_Arg layout");

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

// af_init makes every vertex of [a.lo, a.hi) its own tree (the run
// passes each span of vertices with arcs: the others are never linked,
// and Finish labels them on the host).
extern "C" __global__ void __launch_bounds__(AF_BLOCK) af_init(VP_Mat m, AF_Arg a) {
  int v = a.lo + blockIdx.x * blockDim.x + threadIdx.x;
  if (v < a.hi) a.comp[v] = v;
}

// af_hook makes each row of [a.lo, a.hi) its own tree (af_init does the
// other vertices) and, where the row's first neighbour is smaller, at
// once a leaf under it: Afforest's first round without atomics, a plain
// store to the row's own word, which no other lane reads or writes here;
// af_link_up then links the rows whose first neighbour is larger. (The
// first round's links by compare-and-swap, nearly every row's to a hub's
// tree, took 1.60 of kron26's 2.74 ms on one H200; ncu, session 40.)
extern "C" __global__ void __launch_bounds__(AF_BLOCK) af_hook(VP_Mat m, AF_Arg a) {
  int v = a.lo + blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= a.hi) return;
  int u = af_nbr(m, v, 0);
  a.comp[v] = u >= 0 && u < v ? u : v;
}

// af_link_pair links v with u, once for the lanes of a warp whose trees
// are the same pair: a part's rows hold no hub's own row, so after the
// first round its hubs are still apart and nearly every vertex asks to
// join the same few of them, each CAS on one word (kron24's part of the
// short rows: 3.3 ms for a round, against 0.16 for the whole graph's,
// whose hubs joined in the first round through their rows). Trees only
// merge, so linking one lane's v and u joins every other lane's pair
// too. Every lane of the warp calls it (u < 0: none to link). The
// parents it tests may come from L1, stale: a parent read stale is still
// an ancestor, so two that read the same mean one tree, and two that
// differ go to af_link, which reads past L1 (a compressed forest's
// parents are the hubs' few roots, which L1 then holds).
__device__ __forceinline__ void af_link_pair(int* comp, int v, int u) {
  int p1 = u >= 0 ? comp[v] : 0, p2 = u >= 0 ? comp[u] : 0;
  unsigned long long key = p1 == p2 ? ~0ULL : (unsigned long long)min(p1, p2) << 32 | (unsigned)max(p1, p2);
  const unsigned same = __match_any_sync(__activemask(), key);
  if (key != ~0ULL && (threadIdx.x & 31) == __ffs(same) - 1) af_link(comp, v, u);
}

// af_link_up links the rows that af_hook left, those whose first
// neighbour is larger (or none).
extern "C" __global__ void __launch_bounds__(AF_BLOCK) af_link_up(VP_Mat m, AF_Arg a) {
  int v = a.lo + blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= a.hi) return;
  int u = af_nbr(m, v, 0);
  af_link_pair(a.comp, v, u > v ? u : -1);
}

// af_link_round links every vertex with its neighbour a.round.
extern "C" __global__ void __launch_bounds__(AF_BLOCK) af_link_round(VP_Mat m, AF_Arg a) {
  int v = a.lo + blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= a.hi) return;
  af_link_pair(a.comp, v, af_nbr(m, v, a.round));
}

// af_compress points every vertex of [a.lo, a.hi) (a span of vertices
// with arcs) at its root, writing only the vertices not yet pointing
// there (a root's stays as it is). Its loads may hit L1: no link runs
// beside it, so a stale parent is still an ancestor on the path and only
// a root reads as its own parent. (Past L1, every lane's walk ended in
// the same few hubs' words, one L2 slice each: 1.12 ms of kron26's
// compression after af_hook, whose chains are longer than the links'.)
extern "C" __global__ void __launch_bounds__(AF_BLOCK) af_compress(VP_Mat m, AF_Arg a) {
  int v = a.lo + blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= a.hi) return;
  const int c0 = a.comp[v];
  int c = c0;
  for (int p; c != (p = a.comp[c]);) c = p;
  if (c != c0) a.comp[v] = c;
}

// af_sample writes the labels of AF_BLOCK pseudo-random vertices of the
// rows [lo, hi) (a hash of the index and a.seed), for the host to find
// the giant component: a part's own rows, whose largest component is
// the one whose edges its link_rest can skip.
extern "C" __global__ void __launch_bounds__(AF_BLOCK) af_sample(VP_Mat m, AF_Arg a) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned h = (i + a.seed) * 2654435761u;
  h ^= h >> 15;
  h *= 2246822519u;
  h ^= h >> 13;
  a.sample[i] = a.comp[a.lo + h % (unsigned)(a.hi - a.lo)];
}

// af_link_rest links every vertex outside the giant component with its
// neighbours from index a.round on. A warp takes 32 vertices, its lanes
// test one each, then the whole warp links each vertex that is outside
// the giant, its lanes taking every 32nd neighbour. (A warp a vertex
// spent 1.7 of kron24's 2.6 ms on the test alone, the giant holding most
// vertices.) A vertex of the giant component needs none of its edges: an
// edge to a vertex outside it is linked from that side (the matrix is
// symmetric).
extern "C" __global__ void __launch_bounds__(AF_BLOCK) af_link_rest(VP_Mat m, AF_Arg a) {
  const long long v0 = a.lo + (((long long)blockIdx.x * blockDim.x + threadIdx.x) & ~31LL);
  const int lane = threadIdx.x & 31;
  if (v0 >= a.hi) return;
  const long long mine = v0 + lane;
  unsigned todo = __ballot_sync(0xffffffffu, mine < a.hi && a.comp[mine] != a.giant);
  while (todo) {
    const int v = (int)(v0 + __ffs(todo) - 1);
    todo &= todo - 1;
    for (int i = a.round + lane;; i += 32) {
      int u = af_nbr(m, v, i);
      if (!__any_sync(0xffffffffu, u >= 0)) break;
      if (u >= 0) af_link(a.comp, v, u);
    }
  }
}

// af_link_pairs links every vertex of [a.lo, a.hi) with its label in
// another forest over the same vertices (a.sample: another part's comp),
// so that comp's trees become the components of the union of both
// forests' edges (a run in parts: docs/parts.md), where the other forest
// is the identity outside [a.lo, a.hi).
extern "C" __global__ void __launch_bounds__(AF_BLOCK) af_link_pairs(VP_Mat m, AF_Arg a) {
  int v = a.lo + blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= a.hi) return;
  int u = a.sample[v];
  if (u != v) af_link(a.comp, v, u);
}

// The last merge of a run in parts sends a forest packed (afforest_parts.go):
// a bit a vertex of the spans for "its label is the part's giant", and a
// list of (vertex, label) for the others that are not their own label.
// buf holds [count, giant, capacity, words], then the spans' bits (words
// of them, each span's from a word of its own), then the list.
struct AF_Pack {
  int* comp;  // the forest packed (af_pack) or linked into (af_link_bits, af_link_list)
  int* buf;
  int lo, hi; // the span; af_link_list: 0 and the list's length
  int word0;  // the span's first word in the bits
  int pad;
};

static_assert(sizeof(AF_Pack) == 32, "hpgraph: AF_Pack layout");

#define AF_HEAD 4

// af_pack packs comp over the span [p.lo, p.hi) into p.buf (whose header
// the host wrote); list entries past the capacity are counted, not
// written (the host then merges the forests whole). A warp takes its
// list's places with one atomic (one a vertex took 0.25-0.5 ms of
// kron26's 460K on one counter).
extern "C" __global__ void __launch_bounds__(AF_BLOCK) af_pack(VP_Mat m, AF_Pack p) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int v = p.lo + i;
  const int lane = threadIdx.x & 31;
  const int c = v < p.hi ? p.comp[v] : v;
  const int giant = p.buf[1];
  const unsigned bal = __ballot_sync(0xffffffffu, v < p.hi && c == giant);
  if (lane == 0 && v < p.hi) p.buf[AF_HEAD + p.word0 + (i >> 5)] = (int)bal;
  const bool listed = v < p.hi && c != v && c != giant;
  const unsigned lst = __ballot_sync(0xffffffffu, listed);
  if (!lst) return;
  const int leader = __ffs(lst) - 1;
  int k0 = 0;
  if (lane == leader) k0 = atomicAdd(p.buf, __popc(lst));
  k0 = __shfl_sync(0xffffffffu, k0, leader);
  if (listed) {
    const int k = k0 + __popc(lst & ((1u << lane) - 1));
    if (k < p.buf[2]) {
      int* e = p.buf + AF_HEAD + p.buf[3] + 2 * (long long)k;
      e[0] = v;
      e[1] = c;
    }
  }
}

// af_link_bits links every vertex of the span whose bit the packed forest
// p.buf set with that forest's giant.
extern "C" __global__ void __launch_bounds__(AF_BLOCK) af_link_bits(VP_Mat m, AF_Pack p) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int v = p.lo + i;
  if (v >= p.hi) return;
  if ((unsigned)p.buf[AF_HEAD + p.word0 + (i >> 5)] >> (i & 31) & 1u) af_link(p.comp, v, p.buf[1]);
}

// af_link_list links the packed forest's listed pairs, p.hi of them.
extern "C" __global__ void __launch_bounds__(AF_BLOCK) af_link_list(VP_Mat m, AF_Pack p) {
  const long long k = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (k >= p.hi) return;
  const int* e = p.buf + AF_HEAD + p.buf[3] + 2 * k;
  af_link(p.comp, e[0], e[1]);
}
