// hpgraph CUDA: supersteps of multiset programs (vertexprog.MultisetProgram
// with device code; vertexprog.MultisetBackend). The program's snippet
// comes before this file and defines
//
//   X_t, A_t, State                    as for every program
//   K_t                                the element: a 4- or 8-byte integer
//                                      or floating-point type
//   K_t  vp_element(int v, int u, X_t xu, float w, const State& s);
//   A_t  vp_summarize(int v, const K_t* values, const int* counts,
//                     int distinct, int size, const State& s);
//   bool vp_update(int v, A_t acc, X_t* x, const State& s, Step& st);
//
// and optionally (VP_SUMMARY_FOLD) a summary that the backend can fold
// over the distinct values in parallel:
//
//   S_t  vp_summary_leaf(int v, K_t value, int count, const State& s);
//   S_t  vp_summary_join(S_t a, S_t b);  // a's values precede b's
//   A_t  vp_summary_final(int v, S_t t, int distinct, int size, const State& s);
//
// A superstep, every row v (the CPU engine's multiset kernel,
// vertexprog/multiset.go): the elements of the arcs v gathers along (a
// frontier's only, when the pull is masked) are sorted (K_t's order; for
// floating point NaNs first and one value, -0 and +0 one value), counted
// into distinct values and multiplicities, and summarized into y[v];
// then APPLY runs vp_update on every vertex and writes the next frontier.
//
// Rows are binned by length (the host's bins, multiset.go), so that
// each is sorted where it fits:
//   ms_tiny<G>  (length <= 32): a group of G lanes, one element a lane,
//               a bitonic network of shuffles;
//   ms_warp<E>  (<= 32E <= MS_WARP_MAX: 1024 4-byte or 512 8-byte
//               keys): a warp, E elements a lane in registers, a bitonic
//               network of register exchanges and shuffles;
//   ms_block    (<= a.cap <= MS_CHUNK, one launch per power-of-two cap,
//               its shared memory sized by cap): a block; its warps sort
//               slices of MS_SLICE as ms_warp does, merged pairwise in
//               shared memory by merge path;
//   hub rows    (longer): ms_hub_chunk sorts and counts each chunk of
//               MS_CHUNK elements as ms_block does and writes its
//               distinct (key, count) pairs to global memory at the
//               chunk's slot of MS_CHUNK entries, and their number (the
//               run's valid length) to the slot's length; ms_hub_merge
//               merges a row's runs pairwise by rank, one level a launch,
//               reading, searching and writing valid entries only (a
//               merged run lies at its first slot, its length there);
//               ms_hub_final counts the row's merged run and summarizes.
//               Nothing reads past a run's valid length, so nothing pads
//               the lists: once a program's values repeat (CDLP's labels
//               converge), a hub's lists are short however long the row.
//
// A warp row, a block row and a hub chunk whose valid elements are all
// one key (a converged label: after a few supersteps almost every row of
// CDLP on a power-law graph) is not sorted: its one distinct value has
// count size, and it is summarized (or written to the hub list) as the
// sorted path would. Within ms_block_sort, a slice of one key is stored
// sorted without the network. (Rows of no element take the sorted path.)
//
// Elements are sorted as unsigned keys (ms_to_key: an order-preserving
// map of K_t). Where a row has fewer elements than its sort network (a
// masked neighbour, the network's padding), the rest are MS_PAD, the
// largest key: the first `size` sorted keys are the row's elements
// whatever real elements equal MS_PAD. Counts are ints: a row has at most
// 2^31-1 entries (vertexprog.Matrix.Degree is an int32); entry offsets in
// the matrix and the hub lists are 64-bit.

#define MS_BLOCK 256
#define MS_WARPS (MS_BLOCK / 32)
#define MS_FULL 0xffffffffu

#include "scan.cuh"
#include "read.cuh"

// Shared memory of one of ms_block's two key buffers (the host sets it
// by the device's shared memory: multiset.go).
#ifndef MS_CHUNK_BYTES
#define MS_CHUNK_BYTES 32768
#endif
// Entries a thread of ms_hub_final (MS_ITEMS) and of ms_block and
// ms_hub_chunk (MS_RBK_ITEMS) counts at a time.
#define MS_ITEMS 16
#define MS_RBK_ITEMS 8
#ifndef VP_SUMMARY_FOLD
#define VP_SUMMARY_FOLD 0
#endif

// The kind of K_t: 0 unsigned, 1 signed integer, 2 float, 3 double.
template <class T> struct ms_kind { enum { v = -1 }; };
template <> struct ms_kind<unsigned int> { enum { v = 0 }; };
template <> struct ms_kind<unsigned long> { enum { v = 0 }; };
template <> struct ms_kind<unsigned long long> { enum { v = 0 }; };
template <> struct ms_kind<int> { enum { v = 1 }; };
template <> struct ms_kind<long> { enum { v = 1 }; };
template <> struct ms_kind<long long> { enum { v = 1 }; };
template <> struct ms_kind<float> { enum { v = 2 }; };
template <> struct ms_kind<double> { enum { v = 3 }; };

static_assert(ms_kind<K_t>::v >= 0 && (sizeof(K_t) == 4 || sizeof(K_t) == 8),
              "hpgraph: K_t must be a 4- or 8-byte integer or floating-point type (int, unsigned, long long, unsigned long long, float, double)");

template <int S> struct ms_uint;
template <> struct ms_uint<4> { typedef unsigned type; };
template <> struct ms_uint<8> { typedef unsigned long long type; };
typedef ms_uint<sizeof(K_t)>::type ms_key;

#define MS_PAD ((ms_key) ~(ms_key)0)
// The longest warp row (ms_warp<MS_WARP_MAX/32>), and ms_block's slices,
// which a warp sorts in registers, MS_SLICE_E keys a lane.
#define MS_WARP_MAX (sizeof(ms_key) == 4 ? 1024 : 512)
#define MS_SLICE_E 16
#define MS_SLICE (32 * MS_SLICE_E)
// Merge outputs a thread takes at a time (merge path).
#define MS_MK 16
#define MS_CHUNK ((int)(MS_CHUNK_BYTES / sizeof(ms_key)))
static_assert(MS_CHUNK % MS_SLICE == 0 && (MS_CHUNK & (MS_CHUNK - 1)) == 0, "hpgraph: MS_CHUNK must be a power of two, a multiple of MS_SLICE");
// The entries of a hub list a block of ms_hub_merge takes at a time (a
// part of a chunk's slot; the host sizes its grid by it: multiset.go).
#define MS_HUB_PART 1024
static_assert(MS_CHUNK % MS_HUB_PART == 0, "hpgraph: MS_CHUNK must be a multiple of MS_HUB_PART");

// ms_to_key maps an element to a key whose unsigned order is Go's
// cmp.Compare order of the element: integers by value, floating point
// with every NaN first (key 0, one value) and -0 as +0 (one value).
__device__ __forceinline__ ms_key ms_to_key(K_t k) {
  if constexpr (ms_kind<K_t>::v == 0) {
    return (ms_key)k;
  } else if constexpr (ms_kind<K_t>::v == 1) {
    if constexpr (sizeof(K_t) == 8) return (ms_key)(unsigned long long)(long long)k ^ 0x8000000000000000ULL;
    else return (ms_key)(unsigned)(int)k ^ 0x80000000u;
  } else if constexpr (ms_kind<K_t>::v == 2) {
    if (k != k) return 0;
    unsigned b = __float_as_uint(k);
    if (b == 0x80000000u) b = 0;
    return (b & 0x80000000u) ? ~b : (b | 0x80000000u);
  } else {
    if (k != k) return 0;
    unsigned long long b = (unsigned long long)__double_as_longlong(k);
    if (b == 0x8000000000000000ULL) b = 0;
    return (b & 0x8000000000000000ULL) ? ~b : (b | 0x8000000000000000ULL);
  }
}

// ms_from_key is ms_to_key's inverse (NaN: the quiet NaN; zero: +0).
__device__ __forceinline__ K_t ms_from_key(ms_key x) {
  if constexpr (ms_kind<K_t>::v == 0) {
    return (K_t)x;
  } else if constexpr (ms_kind<K_t>::v == 1) {
    if constexpr (sizeof(K_t) == 8) return (K_t)(long long)(x ^ 0x8000000000000000ULL);
    else return (K_t)(int)(x ^ 0x80000000u);
  } else if constexpr (ms_kind<K_t>::v == 2) {
    if (x == 0) return __uint_as_float(0x7fc00000u);
    return __uint_as_float((x & 0x80000000u) ? (x & 0x7fffffffu) : ~x);
  } else {
    if (x == 0) return __longlong_as_double(0x7ff8000000000000LL);
    return __longlong_as_double((long long)((x & 0x8000000000000000ULL) ? (x & 0x7fffffffffffffffULL) : ~x));
  }
}

__device__ __forceinline__ ms_key ms_min(ms_key a, ms_key b) { return b < a ? b : a; }
__device__ __forceinline__ ms_key ms_max(ms_key a, ms_key b) { return b < a ? a : b; }

// A run's device state, the same for all its supersteps.
struct MS_Run {
  X_t* x;
  A_t* y;
  unsigned* mask[2];         // superstep parity p: mask[p] is the frontier, mask[p^1] the next one
  unsigned long long* rec;   // two records of recWords words: [0] vertices activated, then the aggregators (doubles)
  const int* rows;           // the bins' rows (multiset.go)
  const long long* hubFirst; // per hub row its first chunk, then the chunk count
  const int* chunkHub;       // per chunk its hub row's index
  unsigned char* hubKeys[2]; // hub lists: ms_key each, MS_CHUNK a chunk
  int* hubCnt[2];            // and their counts
  int* hubLen[2];            // per chunk: the valid entries of the run that starts at the chunk's slot
  int n, recWords, nHub, nChunks;
};

struct MS_Arg {
  int first, count;  // the launch's rows: rows[first .. first+count)
  int cur;           // superstep parity
  int useMask;       // gather from the frontier's vertices only
  int iteration;     // Step::iteration
  int level;         // ms_hub_merge: the merge level
  int cap;           // ms_block: the entries its shared buffers hold (a power of two >= every row's length)
  int pad_;
};

static_assert(sizeof(MS_Run) == 128, "hpgraph: MS_Run layout");
static_assert(sizeof(MS_Arg) == 32, "hpgraph: MS_Arg layout");

// ms_degree is the length of row v: its ELL slots (the first pad ends
// them; pads only trail) and its COO entries, which only a row with a full
// ELL part has.
__device__ __forceinline__ int ms_degree(const VP_Mat& m, int v) {
  const long long c0 = m.cooPtr[v], c1 = m.cooPtr[v + 1];
  if (m.k == 0) return (int)(c1 - c0);
  if (c1 > c0) return m.k + (int)(c1 - c0);
  int lo = 0, hi = m.k;
  while (lo < hi) {
    const int mid = (lo + hi) >> 1;
    if (m.ellCol[(long long)mid * m.pitch + v] < 0) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

// ms_elem makes the key of entry i of row v (ELL slot i, then COO entry
// i-k from cooBase), or returns false when the pull is masked and the
// neighbour is not in the frontier.
__device__ __forceinline__ bool ms_elem(const VP_Mat& m, const MS_Run& c, const State& s, const MS_Arg& a, int v,
                                        long long cooBase, int i, ms_key& key) {
  int u;
  float w = 1.0f;
  if (i < m.k) {
    const long long at = (long long)i * m.pitch + v;
    u = m.ellCol[at];
    if (m.ellVal) w = m.ellVal[at];
  } else {
    const long long at = cooBase + (i - m.k);
    u = __ldcs(m.cooCol + at);
    if (m.cooVal) w = __ldcs(m.cooVal + at);
  }
  if (a.useMask && !vp_bit(c.mask[a.cur], u)) return false;
  key = ms_to_key(vp_element(v, u, vp_ldg_x(c.x, u), w, s));
  return true;
}

// ms_one_key tracks, element by element, whether a lane's valid keys
// are one key: have (any yet), k0 (the first), same (all equal k0).
__device__ __forceinline__ void ms_one_key(ms_key key, bool& have, ms_key& k0, bool& same) {
  if (!have) k0 = key;
  else if (key != k0) same = false;
  have = true;
}

// ms_warp_one_key: whether the warp's lanes' valid keys (ms_one_key's
// state) are all one key, and which (*key); false where none is valid.
// Every lane gets the same answers.
__device__ __forceinline__ bool ms_warp_one_key(bool have, ms_key k0, bool same, ms_key* key) {
  const unsigned any = __ballot_sync(MS_FULL, have);
  if (any == 0) return false;
  *key = __shfl_sync(MS_FULL, k0, __ffs(any) - 1);
  return __all_sync(MS_FULL, !have || (same && k0 == *key));
}

__device__ __forceinline__ int ms_warp_sum(int x) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) x += __shfl_xor_sync(MS_FULL, x, o);
  return x;
}

// ms_lane_keys makes a lane's E keys of row v: key e is entry
// off + base + e*32 + lane where base + e*32 + lane < len and not masked
// (ms_elem), else MS_PAD. It returns how many are valid, tracking whether
// they are one key (ms_one_key: have, k0, same).
template <int E>
__device__ __forceinline__ int ms_lane_keys(const VP_Mat& m, const MS_Run& c, const State& s, const MS_Arg& a, int v, long long c0,
                                            int off, int base, int len, ms_key (&x)[E], bool& have, ms_key& k0, bool& same) {
  const int lane = threadIdx.x & 31;
  int valid = 0;
#pragma unroll
  for (int e = 0; e < E; e++) {
    x[e] = MS_PAD;
    const int i = base + e * 32 + lane;
    if (i < len && ms_elem(m, c, s, a, v, c0, off + i, x[e])) {
      valid++;
      ms_one_key(x[e], have, k0, same);
    }
  }
  return valid;
}

// ms_sort_lanes sorts x across each aligned group of G lanes (lane i of
// the group: index i), ascending: a bitonic network, one element a lane.
template <int G>
__device__ __forceinline__ ms_key ms_sort_lanes(ms_key x, int i) {
#pragma unroll
  for (int k = 2; k <= G; k <<= 1) {
#pragma unroll
    for (int j = k >> 1; j > 0; j >>= 1) {
      const ms_key p = __shfl_xor_sync(MS_FULL, x, j);
      const bool up = (i & k) == 0, low = (i & j) == 0;
      x = up == low ? ms_min(x, p) : ms_max(x, p);
    }
  }
  return x;
}

// The bitonic network over a warp's 32E keys, E a lane in registers:
// element p = lane*E + e is x[e] of lane `lane`. Stage (K, J) compares
// p with p^J, ascending where p&K is 0. Partners J >= E apart are in
// lane ^ J/E (a shuffle), nearer ones in the same lane. Templates keep
// every register index a constant.
template <int E, int K, int J>
__device__ __forceinline__ void ms_stage(ms_key (&x)[E], int lane) {
  if constexpr (J >= E) {
    const bool up = (lane & (K / E)) == 0, low = (lane & (J / E)) == 0;
#pragma unroll
    for (int e = 0; e < E; e++) {
      const ms_key p = __shfl_xor_sync(MS_FULL, x[e], J / E);
      x[e] = up == low ? ms_min(x[e], p) : ms_max(x[e], p);
    }
  } else {
#pragma unroll
    for (int e = 0; e < E; e++) {
      if ((e & J) == 0) {
        const bool up = ((lane * E + e) & K) == 0;
        const ms_key lo = ms_min(x[e], x[e | J]), hi = ms_max(x[e], x[e | J]);
        x[e] = up ? lo : hi;
        x[e | J] = up ? hi : lo;
      }
    }
  }
}

template <int E, int K, int J>
struct ms_merge_net {
  __device__ static __forceinline__ void run(ms_key (&x)[E], int lane) {
    ms_stage<E, K, J>(x, lane);
    ms_merge_net<E, K, J / 2>::run(x, lane);
  }
};
template <int E, int K>
struct ms_merge_net<E, K, 0> {
  __device__ static __forceinline__ void run(ms_key (&)[E], int) {}
};

template <int E, int K, bool Done = (K > 32 * E)>
struct ms_sort_net;
template <int E, int K>
struct ms_sort_net<E, K, true> {
  __device__ static __forceinline__ void run(ms_key (&)[E], int) {}
};
template <int E, int K>
struct ms_sort_net<E, K, false> {
  __device__ static __forceinline__ void run(ms_key (&x)[E], int lane) {
    ms_merge_net<E, K, K / 2>::run(x, lane);
    ms_sort_net<E, 2 * K>::run(x, lane);
  }
};

// ms_sort_warp sorts the warp's 32E keys ascending into lane-major order.
template <int E>
__device__ __forceinline__ void ms_sort_warp(ms_key (&x)[E], int lane) {
  ms_sort_net<E, 2>::run(x, lane);
}

// Summaries move between lanes as 32-bit words.
#if VP_SUMMARY_FOLD
#define MS_SWORDS ((sizeof(S_t) + 3) / 4)
__device__ __forceinline__ S_t ms_shfl_down(const S_t& v, int d) {
  unsigned w[MS_SWORDS];
  w[MS_SWORDS - 1] = 0;
  memcpy(w, &v, sizeof(S_t));
#pragma unroll
  for (int i = 0; i < (int)MS_SWORDS; i++) w[i] = __shfl_down_sync(MS_FULL, w[i], d);
  S_t r = v;
  memcpy(&r, w, sizeof(S_t));
  return r;
}

// ms_join folds b (when it has anything) into a, a's values first.
__device__ __forceinline__ void ms_join(S_t& a, bool& have, const S_t& b, bool bHave) {
  if (!bHave) return;
  a = have ? vp_summary_join(a, b) : b;
  have = true;
}

// ms_fold_warp: lane 0 gets the join of the lanes' summaries in lane
// order (lane l's values precede lane l+1's). Lane l holds the join of
// lanes [l, l+o) after each step: it joins lane l+o's [l+o, l+2o).
__device__ __forceinline__ void ms_fold_warp(S_t& t, bool& have) {
  const int lane = threadIdx.x & 31;
#pragma unroll
  for (int o = 1; o < 32; o <<= 1) {
    const S_t u = ms_shfl_down(t, o);
    const bool uh = __shfl_down_sync(MS_FULL, have ? 1 : 0, o) != 0;
    if (lane + o < 32) ms_join(t, have, u, uh);
  }
}

// ms_fold_block: thread 0 gets the join of the threads' summaries in
// thread order. Every thread of the block calls it.
__device__ __forceinline__ void ms_fold_block(S_t& t, bool& have) {
  __shared__ S_t ws[MS_WARPS];
  __shared__ int wh[MS_WARPS];
  ms_fold_warp(t, have);
  const int w = threadIdx.x >> 5;
  if ((threadIdx.x & 31) == 0) {
    ws[w] = t;
    wh[w] = have;
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    for (int i = 1; i < MS_WARPS; i++) ms_join(t, have, ws[i], wh[i] != 0);
  }
  __syncthreads();
}
#endif

// ms_tiny<G>: rows of at most G elements (G <= 32), 32/G a warp, lane i
// of a row's group holding element i. After the network the group's lane
// i holds the i-th smallest key; a lane whose key differs from the
// previous lane's (and is below size) starts a distinct value, whose
// count is the distance to the next one. The distinct values and counts
// go to the group's slots in shared memory; the group's first lane
// summarizes them.
template <int G>
__device__ __forceinline__ void ms_tiny(const VP_Mat& m, const MS_Run& c, const State& s, const MS_Arg& a) {
  __shared__ K_t vals[MS_BLOCK];
  __shared__ int cnts[MS_BLOCK];
  const int lane = threadIdx.x & 31, i = lane & (G - 1), g0 = lane & ~(G - 1);
  const unsigned gmask = G == 32 ? MS_FULL : ((1u << (G & 31)) - 1) << g0;
  const int slot = (threadIdx.x & ~31) + g0;
  const long long warps = ((long long)gridDim.x * MS_BLOCK) >> 5;
  for (long long w = ((long long)blockIdx.x * MS_BLOCK + threadIdx.x) >> 5; w * (32 / G) < a.count; w += warps) {
    const long long ri = w * (32 / G) + lane / G;
    const bool has = ri < a.count;
    const int v = has ? c.rows[a.first + ri] : 0;
    ms_key key = MS_PAD;
    bool valid = false;
    if (has) {
      const int d = ms_degree(m, v);  // (<= G: the bin's rule)
      if (i < d) valid = ms_elem(m, c, s, a, v, m.cooPtr[v], i, key);
    }
    const int size = __popc(__ballot_sync(MS_FULL, valid) & gmask);
    key = ms_sort_lanes<G>(key, i);
    const ms_key prev = __shfl_up_sync(MS_FULL, key, 1);
    const bool head = i < size && (i == 0 || key != prev);
    const unsigned heads = __ballot_sync(MS_FULL, head) & gmask;
    if (head) {
      const unsigned above = heads & ~((2u << lane) - 1u);  // (lane 31: 2u << 31 is 0, so none above)
      const int next = above ? __ffs(above) - 1 - g0 : size;
      const int at = __popc(heads & ((1u << lane) - 1u));
      vals[slot + at] = ms_from_key(key);
      cnts[slot + at] = next - i;
    }
    __syncwarp();
    if (has && i == 0) c.y[v] = vp_summarize(v, vals + slot, cnts + slot, __popc(heads), size, s);
    __syncwarp();
  }
}

// ms_warp<E>: rows of at most 32E elements, a warp each. The elements
// are loaded striped (element e*32+lane into x[e]: coalesced; the order
// before the sort does not matter), sorted lane-major, and counted in
// registers: a head is an element below size whose key differs from its
// predecessor's (the previous lane's last for e = 0); its count is the
// distance to the next head (in the lane, else the first head of a later
// lane: a suffix minimum across lanes, else size); its distinct index
// the heads before it (a prefix sum across lanes). A row whose valid
// elements are one key (ms_warp_one_key) skips all that: one distinct
// value, count size. With a summary fold
// each lane joins its heads, and the warp its lanes in order; else the
// heads go to shared memory for lane 0's vp_summarize.
template <int E>
__device__ __forceinline__ void ms_warp(const VP_Mat& m, const MS_Run& c, const State& s, const MS_Arg& a) {
#if !VP_SUMMARY_FOLD
  __shared__ K_t vals[MS_WARPS][32 * E];
  __shared__ int cnts[MS_WARPS][32 * E];
#endif
  const int lane = threadIdx.x & 31, wb = threadIdx.x >> 5;
  const long long warps = ((long long)gridDim.x * MS_BLOCK) >> 5;
  for (long long r = ((long long)blockIdx.x * MS_BLOCK + threadIdx.x) >> 5; r < a.count; r += warps) {
    const int v = c.rows[a.first + r];
    const long long c0 = m.cooPtr[v];
    const int d = ms_degree(m, v);  // (<= 32E: the bin's rule)
    ms_key x[E];
    bool any = false, same = true;
    ms_key k0 = 0;
    const int valid = ms_lane_keys(m, c, s, a, v, c0, 0, 0, d, x, any, k0, same);
    const int size = ms_warp_sum(valid);
    // One distinct value (a converged label): its count is size; no sort.
    ms_key one;
    if (ms_warp_one_key(any, k0, same, &one)) {
#if VP_SUMMARY_FOLD
      if (lane == 0) c.y[v] = vp_summary_final(v, vp_summary_leaf(v, ms_from_key(one), size, s), 1, size, s);
#else
      if (lane == 0) {
        vals[wb][0] = ms_from_key(one);
        cnts[wb][0] = size;
        c.y[v] = vp_summarize(v, vals[wb], cnts[wb], 1, size, s);
      }
      __syncwarp();
#endif
      continue;
    }
    ms_sort_warp<E>(x, lane);
    const ms_key before = __shfl_up_sync(MS_FULL, x[E - 1], 1);
    // (a head: an element below size whose key differs from the one before)
#define MS_HEAD(e) (lane * E + (e) < size && (lane * E + (e) == 0 || x[e] != ((e) == 0 ? before : x[(e) == 0 ? 0 : (e) - 1])))
    int nh = 0, first = 0x7fffffff;
#pragma unroll
    for (int e = 0; e < E; e++) {
      if (MS_HEAD(e)) {
        nh++;
        first = min(first, lane * E + e);
      }
    }
    // The first head of the lanes after this one.
    int sfx = first;
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
      const int t = __shfl_down_sync(MS_FULL, sfx, o);
      if (lane + o < 32) sfx = min(sfx, t);
    }
    int next = __shfl_down_sync(MS_FULL, sfx, 1);
    if (lane == 31 || next == 0x7fffffff) next = size;
    const int incl = hp_warp_scan(nh);
    const int distinct = __shfl_sync(MS_FULL, incl, 31);
    // The lane's runs in order: a head opens one, the next head (or the
    // first of a later lane, or size) closes it.
#if VP_SUMMARY_FOLD
    S_t t{};
    bool have = false;
#define MS_EMIT(k, n) ms_join(t, have, vp_summary_leaf(v, ms_from_key(k), (n), s), true)
#else
    int at = incl - nh;
#define MS_EMIT(k, n)              \
  do {                             \
    vals[wb][at] = ms_from_key(k); \
    cnts[wb][at] = (n);            \
    at++;                          \
  } while (0)
#endif
    int open = -1;
    ms_key openKey = 0;
#pragma unroll
    for (int e = 0; e < E; e++) {
      if (MS_HEAD(e)) {
        if (open >= 0) MS_EMIT(openKey, lane * E + e - open);
        open = lane * E + e;
        openKey = x[e];
      }
    }
    if (open >= 0) MS_EMIT(openKey, next - open);
#undef MS_EMIT
#undef MS_HEAD
#if VP_SUMMARY_FOLD
    ms_fold_warp(t, have);
    if (lane == 0) c.y[v] = distinct > 0 ? vp_summary_final(v, t, distinct, size, s) : vp_summarize(v, nullptr, nullptr, 0, 0, s);
#else
    __syncwarp();
    if (lane == 0) c.y[v] = vp_summarize(v, vals[wb], cnts[wb], distinct, size, s);
    __syncwarp();
#endif
  }
  (void)wb;
}

// ms_rbk counts the sorted keys[0, len) (with multiplicities cnts when
// Counted, else 1 each) by distinct key: dk[j] is the j-th distinct key
// and dp[j] the multiplicities summed before its first entry. It returns
// the number of distinct keys and sets *size to the sum of all
// multiplicities. The block takes MS_BLOCK*I entries at a time, each warp
// 32*I consecutive ones, striped (item q of lane l: entry q*32+l of the
// warp's, so loads are coalesced or conflict-free): a head is an entry
// whose key differs from the previous entry's; its distinct index is the
// heads before it (ballots within the warp, the warps' totals across the
// block), its prefix the multiplicities before it (without Counted, its
// index). dk and dp must not overlap keys and cnts. Every thread of the
// block calls it; every thread gets the same answers; it ends with a
// barrier, after which keys and cnts may be overwritten.
template <int I, bool Counted>
__device__ __forceinline__ int ms_rbk(const ms_key* keys, const int* cnts, int len, ms_key* dk, int* dp, int* size) {
  __shared__ int tot[2][MS_WARPS][2];
  const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
  const unsigned lt = (1u << lane) - 1u;
  int distinct = 0, sum = 0, turn = 0;
  for (int t0 = 0; t0 < len; t0 += MS_BLOCK * I, turn ^= 1) {
    const int wb = t0 + w * 32 * I;
    ms_key k[I];
    int c[I];
    unsigned hm[I];
    int wh = 0, wc = 0;
#pragma unroll
    for (int q = 0; q < I; q++) {
      const int p = wb + q * 32 + lane;
      k[q] = p < len ? keys[p] : MS_PAD;
      c[q] = p >= len ? 0 : Counted ? cnts[p] : 1;
      const bool h = p < len && (p == 0 || keys[p - 1] != k[q]);
      hm[q] = __ballot_sync(MS_FULL, h);
      wh += __popc(hm[q]);
      if (Counted) wc += c[q];
    }
    if (Counted) wc = ms_warp_sum(wc);
    if (lane == 0) {
      tot[turn][w][0] = wh;
      tot[turn][w][1] = wc;
    }
    __syncthreads();
    int rh = distinct, rc = sum, allH = 0, allC = 0;
#pragma unroll
    for (int i = 0; i < MS_WARPS; i++) {
      const int th = tot[turn][i][0], tc = tot[turn][i][1];
      if (i < w) {
        rh += th;
        rc += tc;
      }
      allH += th;
      allC += tc;
    }
#pragma unroll
    for (int q = 0; q < I; q++) {
      const int p = wb + q * 32 + lane;
      int ex = 0, qs = 0;
      if (Counted) {
        const int incl = hp_warp_scan(c[q]);
        ex = incl - c[q];
        qs = __shfl_sync(MS_FULL, incl, 31);
      }
      if ((hm[q] >> lane) & 1u) {
        const int at = rh + __popc(hm[q] & lt);
        dk[at] = k[q];
        dp[at] = Counted ? rc + ex : p;
      }
      rh += __popc(hm[q]);
      rc += qs;
    }
    distinct += allH;
    sum += allC;
    // (tot[turn] is read again two tiles on, after the next tile's barrier)
  }
  __syncthreads();
  *size = Counted ? sum : len;
  return distinct;
}

// ms_counts_to writes the multiplicities of ms_rbk's distinct keys, from
// its prefixes dp, to out (not dp). Every thread of the block calls it.
__device__ __forceinline__ void ms_counts_to(const int* dp, int distinct, int size, int* out) {
  for (int i = threadIdx.x; i < distinct; i += MS_BLOCK) out[i] = (i + 1 < distinct ? dp[i + 1] : size) - dp[i];
  __syncthreads();
}

// ms_values turns keys into K_t values in place (the same size).
__device__ __forceinline__ void ms_values(ms_key* dk, int distinct) {
  for (int i = threadIdx.x; i < distinct; i += MS_BLOCK) {
    const K_t val = ms_from_key(dk[i]);
    memcpy(dk + i, &val, sizeof(K_t));
  }
  __syncthreads();
}

// ms_summarize writes y[v] from the distinct values and counts (shared or
// global memory): with a summary fold, thread t joins a contiguous range
// of them and the block the threads in order; else thread 0 calls
// vp_summarize. Every thread of the block calls it.
__device__ __forceinline__ void ms_summarize(const MS_Run& c, const State& s, int v, const K_t* vals, const int* cnts, int distinct, int size) {
#if VP_SUMMARY_FOLD
  const int per = (distinct + MS_BLOCK - 1) / MS_BLOCK;
  const int i0 = min(distinct, (int)threadIdx.x * per), i1 = min(distinct, i0 + per);
  S_t t{};
  bool have = false;
  for (int i = i0; i < i1; i++) ms_join(t, have, vp_summary_leaf(v, vals[i], cnts[i], s), true);
  ms_fold_block(t, have);
  if (threadIdx.x == 0) c.y[v] = distinct > 0 ? vp_summary_final(v, t, distinct, size, s) : vp_summarize(v, vals, cnts, 0, 0, s);
#else
  if (threadIdx.x == 0) c.y[v] = vp_summarize(v, vals, cnts, distinct, size, s);
#endif
}

// ms_merge_part writes outputs [d, min(d+k, la+lb)) of the stable merge
// of the sorted a[0, la) and b[0, lb) (a's first on ties) to out (and
// their counts, with Counted): the merge path's split (i from a, d-i from
// b before output d: the first i with a[i] > b[d-1-i]) by one binary
// search, then a sequential merge. With lb 0 it copies a.
template <bool Counted, typename T>
__device__ __forceinline__ void ms_merge_part(const ms_key* a, const int* ac, T la, const ms_key* b, const int* bc, T lb, T d, int k,
                                              ms_key* out, int* oc) {
  T lo = d > lb ? d - lb : 0, hi = d < la ? d : la;
  while (lo < hi) {
    const T mid = (lo + hi) >> 1;
    if (a[mid] <= b[d - 1 - mid]) lo = mid + 1;
    else hi = mid;
  }
  T i = lo, j = d - lo;
  const T end = d + k < la + lb ? d + k : la + lb;
  for (T o = d; o < end; o++) {
    if (j >= lb || (i < la && a[i] <= b[j])) {
      out[o] = a[i];
      if (Counted) oc[o] = ac[i];
      i++;
    } else {
      out[o] = b[j];
      if (Counted) oc[o] = bc[j];
      j++;
    }
  }
}

// ms_block_sort sorts the keys of row v's entries [lo, lo+len) (len <=
// the buffers' capacity) in shared memory and returns the buffer that
// holds them (A or B) and, in *size, how many are elements (the rest, to
// the end of the last slice, are MS_PAD). Each warp sorts slices of
// MS_SLICE entries in registers (ms_sort_warp) and stores them
// lane-major; then runs of MS_SLICE, 2*MS_SLICE, ... are merged pairwise
// from one buffer to the other, each thread taking MS_MK outputs at a
// time (ms_merge_part; a pair's outputs start at a multiple of
// 2*MS_SLICE, so a thread's never straddle two pairs). A last run
// without a partner is copied. A slice whose elements are one key
// (ms_warp_one_key) or none is stored sorted without the network (the
// key, then MS_PAD). Where all the elements are one key it returns
// nullptr and the key in *one, and sorts nothing more: the caller counts
// *size of it. Every thread of the block calls it; every thread gets the
// same answers.
__device__ __forceinline__ ms_key* ms_block_sort(const VP_Mat& m, const MS_Run& c, const State& s, const MS_Arg& a, int v, int lo, int len,
                                                 ms_key* A, ms_key* B, int* size, ms_key* one) {
  __shared__ int count;
  __shared__ ms_key wkey[MS_WARPS];
  __shared__ int wstate[MS_WARPS];  // a warp's slices: 0 no element, 1 one key (wkey), 2 more
  if (threadIdx.x == 0) count = 0;
  __syncthreads();
  const int lane = threadIdx.x & 31;
  const int slices = (len + MS_SLICE - 1) / MS_SLICE;
  const long long c0 = m.cooPtr[v];
  int wst = 0;  // (the warp's state, the same in every lane)
  ms_key wk = 0;
  for (int sl = threadIdx.x >> 5; sl < slices; sl += MS_WARPS) {
    ms_key x[MS_SLICE_E];
    bool have = false, same = true;
    ms_key k0 = 0;
    const int valid = ms_warp_sum(ms_lane_keys(m, c, s, a, v, c0, lo, sl * MS_SLICE, len, x, have, k0, same));
    ms_key key;
    ms_key* out = A + sl * MS_SLICE + lane * MS_SLICE_E;
    if (ms_warp_one_key(have, k0, same, &key)) {
#pragma unroll
      for (int e = 0; e < MS_SLICE_E; e++) out[e] = lane * MS_SLICE_E + e < valid ? key : MS_PAD;
      if (wst == 0) wk = key;
      wst = (wst == 0 || (wst == 1 && wk == key)) ? 1 : 2;
    } else if (valid == 0) {
#pragma unroll
      for (int e = 0; e < MS_SLICE_E; e++) out[e] = MS_PAD;
    } else {
      ms_sort_warp<MS_SLICE_E>(x, lane);
#pragma unroll
      for (int e = 0; e < MS_SLICE_E; e++) out[e] = x[e];
      wst = 2;
    }
    if (lane == 0 && valid) atomicAdd(&count, valid);
  }
  if (lane == 0) {
    wstate[threadIdx.x >> 5] = wst;
    wkey[threadIdx.x >> 5] = wk;
  }
  __syncthreads();
  int bst = 0;
  ms_key bk = 0;
#pragma unroll
  for (int w = 0; w < MS_WARPS; w++) {
    if (wstate[w] == 0) continue;
    if (bst == 0) bk = wkey[w];
    bst = (bst == 0 || (bst == 1 && wkey[w] == bk)) && wstate[w] == 1 ? 1 : 2;
  }
  *size = count;
  if (bst == 1) {
    *one = bk;
    return nullptr;
  }
  const int L = slices * MS_SLICE;
  ms_key *src = A, *dst = B;
  for (int R = MS_SLICE; R < L; R <<= 1) {
    for (int o = threadIdx.x * MS_MK; o < L; o += MS_BLOCK * MS_MK) {
      const int ls = o / (2 * R) * (2 * R);
      const int la = min(R, L - ls), lb = max(0, min(R, L - ls - R));
      ms_merge_part<false, int>(src + ls, nullptr, la, src + ls + R, nullptr, lb, o - ls, MS_MK, dst + ls, nullptr);
    }
    __syncthreads();
    ms_key* t = src;
    src = dst;
    dst = t;
  }
  return src;
}

// Dynamic shared memory of ms_block and ms_hub_chunk: two key buffers of
// cap keys (ms_block: a.cap; ms_hub_chunk: MS_CHUNK), then cap ints.
extern __shared__ __align__(16) unsigned char ms_smem[];

// ms_count_sorted counts the size keys ms_block_sort sorted (into A or B)
// by distinct key (ms_rbk): the distinct keys go to *dk (the other
// buffer), their counts to *cnt (over the sorted keys), H as scratch. It
// returns how many are distinct. Every thread of the block calls it.
__device__ __forceinline__ int ms_count_sorted(ms_key* sorted, ms_key* A, ms_key* B, int* H, int size, ms_key** dk, int** cnt) {
  int sum;
  *dk = sorted == A ? B : A;
  const int distinct = ms_rbk<MS_RBK_ITEMS, false>(sorted, nullptr, size, *dk, H, &sum);
  *cnt = reinterpret_cast<int*>(sorted);
  ms_counts_to(H, distinct, size, *cnt);
  return distinct;
}

// ms_block: rows of at most a.cap elements (a power of two, at most
// MS_CHUNK), a block each: sorted (ms_block_sort), counted (ms_rbk, the
// counts into the sorted keys' buffer), summarized; a row of one key
// (ms_block_sort returns nullptr) is summarized as its one value. The host bins these
// rows by cap, so a class of short rows takes little shared memory and
// many blocks fit on a multiprocessor.
extern "C" __global__ void __launch_bounds__(MS_BLOCK, 3) ms_block(VP_Mat m, MS_Run c, State s, MS_Arg a) {
  ms_key* A = reinterpret_cast<ms_key*>(ms_smem);
  ms_key* B = A + a.cap;
  int* H = reinterpret_cast<int*>(B + a.cap);
  for (long long r = blockIdx.x; r < a.count; r += gridDim.x) {
    const int v = c.rows[a.first + r];
    const int d = ms_degree(m, v);  // (<= a.cap: the bin's rule)
    int size;
    ms_key one;
    ms_key* sorted = ms_block_sort(m, c, s, a, v, 0, d, A, B, &size, &one);
    if (sorted == nullptr) {
      // One distinct value: summarized as below, from B.
      if (threadIdx.x == 0) {
        const K_t val = ms_from_key(one);
        memcpy(B, &val, sizeof(K_t));
        H[0] = size;
      }
      __syncthreads();
      ms_summarize(c, s, v, reinterpret_cast<const K_t*>(B), H, 1, size);
      __syncthreads();
      continue;
    }
    ms_key* dk;
    int* cnt;
    const int distinct = ms_count_sorted(sorted, A, B, H, size, &dk, &cnt);
    ms_values(dk, distinct);
    ms_summarize(c, s, v, reinterpret_cast<const K_t*>(dk), cnt, distinct, size);
    __syncthreads();  // (the buffers are the next row's)
  }
}

// ms_hub_chunk: chunk b of the hub rows (rows a.first ..), a block each:
// sorted and counted as ms_block does (one key: that key, count size),
// its distinct keys and counts written to hub list 0 at the chunk's
// slot, their number (0 where the mask left the chunk no element) to the
// slot's length in hubLen[0].
// The rest of the slot is left as it is: nothing reads it.
extern "C" __global__ void __launch_bounds__(MS_BLOCK, 2) ms_hub_chunk(VP_Mat m, MS_Run c, State s, MS_Arg a) {
  ms_key* A = reinterpret_cast<ms_key*>(ms_smem);
  ms_key* B = A + MS_CHUNK;
  int* H = reinterpret_cast<int*>(B + MS_CHUNK);
  for (long long ch = blockIdx.x; ch < c.nChunks; ch += gridDim.x) {
    const int h = c.chunkHub[ch];
    const int v = c.rows[a.first + h];
    const long long lc = ch - c.hubFirst[h];
    const int d = ms_degree(m, v);
    const int lo = (int)(lc * MS_CHUNK), len = min(MS_CHUNK, d - lo);
    int size;
    ms_key one;
    ms_key* sorted = ms_block_sort(m, c, s, a, v, lo, len, A, B, &size, &one);
    ms_key* ok = reinterpret_cast<ms_key*>(c.hubKeys[0]) + ch * MS_CHUNK;
    int* oc = c.hubCnt[0] + ch * MS_CHUNK;
    if (sorted == nullptr) {  // (one distinct value)
      if (threadIdx.x == 0) {
        ok[0] = one;
        oc[0] = size;
        c.hubLen[0][ch] = 1;
      }
      __syncthreads();
      continue;
    }
    ms_key* dk;
    int* cnt;
    const int distinct = ms_count_sorted(sorted, A, B, H, size, &dk, &cnt);
    for (int i = threadIdx.x; i < distinct; i += MS_BLOCK) {
      ok[i] = dk[i];
      oc[i] = cnt[i];
    }
    if (threadIdx.x == 0) c.hubLen[0][ch] = distinct;
    __syncthreads();
  }
}

__device__ __forceinline__ int ms_lower_g(const ms_key* a, int n, ms_key x) {
  int lo = 0, hi = n;
  while (lo < hi) {
    const int mid = (int)(((unsigned)lo + (unsigned)hi) >> 1);
    if (a[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

__device__ __forceinline__ int ms_upper_g(const ms_key* a, int n, ms_key x) {
  int lo = 0, hi = n;
  while (lo < hi) {
    const int mid = (int)(((unsigned)lo + (unsigned)hi) >> 1);
    if (a[mid] <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

// ms_hub_levels is the merge levels that leave a row of k chunks one run
// (ceil(log2 k); 0 for one chunk).
__device__ __forceinline__ int ms_hub_levels(long long k) { return k <= 1 ? 0 : 64 - __clzll(k - 1); }

// ms_hub_merge: merge level a.level of the hub rows' runs, from list
// a.level&1 to the other. At level l a hub row's runs are 2^l chunks
// long (the last may be shorter): run r lies at slot r*2^l of the row,
// its hubLen[l&1] there saying how many of its entries are valid (sorted
// distinct keys of the chunks it merged: at most its slots' entries).
// Runs 2i and 2i+1 (lengths la, lb) merge by rank into run i of level
// l+1, at run 2i's slot, length la+lb: an entry of the left run goes to
// its index in the run plus the keys of the right run below it, one of a
// right run to its index plus the keys of the left run not above it (a
// stable merge, the same as ms_merge_part's: a permutation of [0,
// la+lb)). A block takes a part of MS_HUB_PART entries of a slot at a
// time, a thread an entry: the valid entries of its run that lie there
// (the run's entries [o, o + MS_CHUNK) are the slot's, o its offset in
// the run), so a part past its run's length costs a few loads; the part
// that starts a pair writes the merged length. A last run without a
// partner is copied (lb = 0). A row already one run (2^l >= its chunks)
// is left where it is: ms_hub_final reads it from list
// ms_hub_levels(chunks)&1. (Merge path, a thread walking MS_MK outputs
// of its own, measured 2.5 times slower here: its loads and stores do
// not coalesce.)
extern "C" __global__ void __launch_bounds__(MS_BLOCK) ms_hub_merge(VP_Mat m, MS_Run c, State s, MS_Arg a) {
  const int src = a.level & 1;
  const ms_key* sk = reinterpret_cast<const ms_key*>(c.hubKeys[src]);
  const int* sc = c.hubCnt[src];
  const int* sl = c.hubLen[src];
  ms_key* dk = reinterpret_cast<ms_key*>(c.hubKeys[src ^ 1]);
  int* dc = c.hubCnt[src ^ 1];
  int* dl = c.hubLen[src ^ 1];
  const long long span = 1LL << a.level;  // chunks a run spans
  const int parts = MS_CHUNK / MS_HUB_PART;
  for (long long u = blockIdx.x; u < (long long)c.nChunks * parts; u += gridDim.x) {
    const long long ch = u / parts;
    const int pt = (int)(u - ch * parts);
    const int h = c.chunkHub[ch];
    const long long f = c.hubFirst[h], k = c.hubFirst[h + 1] - f;
    if (k <= span) continue;  // (one run)
    const long long j = ch - f, run = j >> a.level, ls = (run & ~1LL) << a.level, rs = ls + span;
    const int la = sl[f + ls], lb = rs < k ? sl[f + rs] : 0;
    if (j == ls && pt == 0 && threadIdx.x == 0) dl[f + ls] = la + lb;
    const bool left = (run & 1) == 0;
    // The part's entries of its run: [o, end).
    const long long o = (j - (run << a.level)) * MS_CHUNK + (long long)pt * MS_HUB_PART;
    const int end = (int)min(o + MS_HUB_PART, (long long)(left ? la : lb));
    if (o >= end) continue;
    const ms_key* ak = sk + (f + ls) * MS_CHUNK;
    const ms_key* bk = sk + (f + (rs < k ? rs : ls)) * MS_CHUNK;  // (a right run's; none: lb is 0)
    const ms_key* rk = left ? ak : bk;
    const int* rc = sc + (f + (left ? ls : rs)) * MS_CHUNK;
    ms_key* ok = dk + (f + ls) * MS_CHUNK;
    int* oc = dc + (f + ls) * MS_CHUNK;
    for (int q = (int)o + threadIdx.x; q < end; q += MS_BLOCK) {
      const ms_key key = rk[q];
      const int to = left ? q + ms_lower_g(bk, lb, key) : q + ms_upper_g(ak, la, key);
      ok[to] = key;
      oc[to] = rc[q];
    }
  }
}

// ms_hub_final: hub row a.first+b, a block each, after its merge levels
// (its run in list ms_hub_levels(chunks)&1, at its first slot): the
// run's valid (key, count) entries counted by distinct key into the
// other list, the counts into its own, then summarized.
extern "C" __global__ void __launch_bounds__(MS_BLOCK) ms_hub_final(VP_Mat m, MS_Run c, State s, MS_Arg a) {
  for (long long h = blockIdx.x; h < c.nHub; h += gridDim.x) {
    const int v = c.rows[a.first + h];
    const long long f = c.hubFirst[h];
    const int cur = ms_hub_levels(c.hubFirst[h + 1] - f) & 1;
    const long long base = f * MS_CHUNK;
    const int len = c.hubLen[cur][f];
    const ms_key* keys = reinterpret_cast<const ms_key*>(c.hubKeys[cur]) + base;
    const int* cnts = c.hubCnt[cur] + base;
    ms_key* dk = reinterpret_cast<ms_key*>(c.hubKeys[cur ^ 1]) + base;
    int* dp = c.hubCnt[cur ^ 1] + base;
    int size;
    const int distinct = ms_rbk<MS_ITEMS, true>(keys, cnts, len, dk, dp, &size);
    int* cnt = c.hubCnt[cur] + base;  // (the merged counts, read: free now)
    ms_counts_to(dp, distinct, size, cnt);
    ms_values(dk, distinct);
    ms_summarize(c, s, v, reinterpret_cast<const K_t*>(dk), cnt, distinct, size);
    __syncthreads();
  }
}

extern "C" __global__ void __launch_bounds__(MS_BLOCK) ms_tiny1(VP_Mat m, MS_Run c, State s, MS_Arg a) { ms_tiny<1>(m, c, s, a); }
extern "C" __global__ void __launch_bounds__(MS_BLOCK) ms_tiny2(VP_Mat m, MS_Run c, State s, MS_Arg a) { ms_tiny<2>(m, c, s, a); }
extern "C" __global__ void __launch_bounds__(MS_BLOCK) ms_tiny4(VP_Mat m, MS_Run c, State s, MS_Arg a) { ms_tiny<4>(m, c, s, a); }
extern "C" __global__ void __launch_bounds__(MS_BLOCK) ms_tiny8(VP_Mat m, MS_Run c, State s, MS_Arg a) { ms_tiny<8>(m, c, s, a); }
extern "C" __global__ void __launch_bounds__(MS_BLOCK) ms_tiny16(VP_Mat m, MS_Run c, State s, MS_Arg a) { ms_tiny<16>(m, c, s, a); }
extern "C" __global__ void __launch_bounds__(MS_BLOCK) ms_tiny32(VP_Mat m, MS_Run c, State s, MS_Arg a) { ms_tiny<32>(m, c, s, a); }
extern "C" __global__ void __launch_bounds__(MS_BLOCK) ms_warp2(VP_Mat m, MS_Run c, State s, MS_Arg a) { ms_warp<2>(m, c, s, a); }
extern "C" __global__ void __launch_bounds__(MS_BLOCK) ms_warp4(VP_Mat m, MS_Run c, State s, MS_Arg a) { ms_warp<4>(m, c, s, a); }
extern "C" __global__ void __launch_bounds__(MS_BLOCK) ms_warp8(VP_Mat m, MS_Run c, State s, MS_Arg a) { ms_warp<8>(m, c, s, a); }
extern "C" __global__ void __launch_bounds__(MS_BLOCK) ms_warp16(VP_Mat m, MS_Run c, State s, MS_Arg a) { ms_warp<16>(m, c, s, a); }
// (launched for 4-byte keys only: MS_SLICE)
extern "C" __global__ void __launch_bounds__(MS_BLOCK, 2) ms_warp32(VP_Mat m, MS_Run c, State s, MS_Arg a) {
  if constexpr (sizeof(ms_key) == 4) ms_warp<32>(m, c, s, a);
}

// ms_begin resets record a.cur (vertices activated, the aggregators'
// identities) before superstep a's first kernel.
extern "C" __global__ void ms_begin(VP_Mat m, MS_Run c, State s, MS_Arg a) {
  if (blockIdx.x != 0 || threadIdx.x != 0) return;
  unsigned long long* r = c.rec + (long long)a.cur * c.recWords;
  r[0] = 0;
  for (int i = 0; i < c.recWords - 1; i++) r[1 + i] = (unsigned long long)__double_as_longlong(vp_agg_identity(vp_agg_kind(i)));
}

// ms_apply: APPLY after the summaries, a thread a vertex: vp_update with
// y[v]; the warp of 32 consecutive vertices writes their word of the next
// frontier (every word, so it needs no clearing) and counts its
// activations. The aggregators' contributions are folded per thread
// (up to 8 of them) and combined per warp, then into the record.
extern "C" __global__ void __launch_bounds__(MS_BLOCK) ms_apply(VP_Mat m, MS_Run c, State s, MS_Arg a) {
  unsigned long long* rec = c.rec + (long long)a.cur * c.recWords;
  const unsigned long long* prev = c.rec + (long long)(a.cur ^ 1) * c.recWords;
  unsigned* next = c.mask[a.cur ^ 1];
  Step st;
  st.iteration = a.iteration;
  st.prev = reinterpret_cast<const double*>(prev + 1);
  st.acc = reinterpret_cast<double*>(rec + 1);
  st.blk = nullptr;
  st.part = nullptr;
#define MS_REGS (VP_NAGG > 0 && VP_NAGG <= 8)
#if MS_REGS
  double part[VP_NAGG];
#pragma unroll
  for (int k = 0; k < VP_NAGG; k++) part[k] = vp_agg_identity(vp_agg_kind(k));
  st.part = part;
#endif
  const int lane = threadIdx.x & 31;
  unsigned long long acts = 0;
  for (long long b = (long long)blockIdx.x * MS_BLOCK; b < c.n; b += (long long)gridDim.x * MS_BLOCK) {
    const long long v = b + threadIdx.x;
    bool act = false;
    if (v < c.n) {
#if VP_XSIZE == 0
      X_t none = X_t();
      act = vp_update((int)v, c.y[v], &none, s, st);
#else
      act = vp_update((int)v, c.y[v], c.x + v, s, st);
#endif
    }
    const unsigned bal = __ballot_sync(MS_FULL, act);
    if (lane == 0 && v < c.n) {
      next[v >> 5] = bal;
      acts += __popc(bal);
    }
  }
#if MS_REGS
  vp_agg_flush_regs(part, st.acc);
#endif
  if (lane == 0 && acts) atomicAdd(rec, acts);
}

// ms_info reports what the host sizes the run's buffers by.
extern "C" __global__ void ms_info(unsigned long long* out, int unused) {
  if (blockIdx.x != 0 || threadIdx.x != 0) return;
  out[0] = sizeof(K_t);
  out[1] = MS_CHUNK;
  out[2] = VP_SUMMARY_FOLD;
  out[3] = sizeof(X_t);
  out[4] = sizeof(A_t);
  out[5] = MS_WARP_MAX;
}
