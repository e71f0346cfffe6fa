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
//               the lists: once a program's values repeat (labels that
//               converge), a hub's lists are short however long the row.
//
// A warp row, a block row and a hub chunk whose valid elements are all
// one key (a converged label: after a few supersteps almost every row of
// label propagation on a power-law graph) is not sorted: its one distinct value has
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
  int lo, hi;                // the rows the run updates: all, or a part's (lo a multiple of 32)
  int pad_;
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

static_assert(sizeof(MS_Run) == 144, "hpgraph: MS_Run layout");
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
