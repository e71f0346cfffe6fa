// The kernel template, part 4 of 8 (after kernels_pull.cu): the records
// copied to the host, the push frontier (queues, compaction) and the
// atomic folds that pushes and tiles share.

// vp_records copies the records of supersteps ctl[0]+j, ... (count of
// them) to the host's pinned memory at dst (mapped into the device's
// address space), one block. Relative to the device's superstep base,
// so one CUDA graph replays a superstep and the copy of its record: one
// submission for the host, where launches cost ~5-10 us each
// (docs/perf/supersteps-and-graphs.md#where-the-hosts-time-goes).
struct VP_Copy {
  unsigned long long* dst;
  int j, count;
};
static_assert(sizeof(VP_Copy) == 16, "hpgraph: VP_Copy layout");
extern "C" __global__ void __launch_bounds__(VP_BLOCK) vp_records(VP_Run c, VP_Copy a) {
  const int w = c.recWords, first = ((__ldcg(c.ctl) + a.j) % c.ring + c.ring) % c.ring;
  for (int i = threadIdx.x; i < a.count * w; i += VP_BLOCK) {
    const long long at = (long long)((first + i / w) % c.ring) * w + i % w;
    a.dst[at] = __ldcg(c.rec + at);
  }
  __threadfence_system();
}

// vp_compact queues superstep s's frontier (x_bitmask) for vp_push, before
// a push that follows pull supersteps (whose APPLY builds no queues). The
// queue counts go to the record of s-1, where vp_push reads them. A block
// takes VP_BLOCK vertices at a time, as many turns as the grid leaves it,
// and skips a turn with no frontier vertex at one barrier: a block per
// VP_BLOCK vertices, each through vp_emit's three barriers, took 2.3 ms
// of kron27's first BFS superstep (524k blocks) for a frontier of one.
extern "C" __global__ void __launch_bounds__(VP_BLOCK) vp_compact(VP_Mat m, VP_Run c, State s, VP_Arg a) {
  VP_St t = vp_st(c, a, true);
  if (!t.go) return;
  for (long long b = (long long)blockIdx.x * VP_BLOCK; b < m.n; b += (long long)gridDim.x * VP_BLOCK) {
    const long long u = b + threadIdx.x;
    const int v = (int)u;
    const unsigned w = u < m.n ? c.mask[t.p][v >> 5] : 0u;
    const bool in = (w >> (v & 31)) & 1u;
    if (!__syncthreads_or(in)) continue;
    const int deg = in ? c.pushDeg[v] : 0;
    vp_emit(c, nullptr, const_cast<unsigned long long*>(t.prev), c.queue[t.p], c.chunks[t.p], v, in, deg, deg);
  }
}

// vp_agg_inc: a warp-aggregated atomicAdd(counter, 1) among the lanes that
// call it together (a global or a shared counter).
template <typename T>
__device__ __forceinline__ T vp_agg_inc(T* counter) {
  unsigned m = __activemask();
  int lane = threadIdx.x & 31;
  int leader = __ffs(m) - 1;
  T base = 0;
  if (lane == leader) base = atomicAdd(counter, (T)__popc(m));
  base = __shfl_sync(m, base, leader);
  return base + __popc(m & ((1u << lane) - 1u));
}

// VP_Touch is where a push of the grid-wide kernels folds (y) and lists
// the rows it changed from the identity: the run's touchedList and its
// record's count. (vp_loop's pushes go to a VP_Route.)
struct VP_Touch {
  A_t* y;
  int* list;
  unsigned long long* n;
  __device__ __forceinline__ void add(int v) const { list[vp_agg_inc(n)] = v; }
};

// A 4- or 8-byte accumulator as the word atomics work on (push
// supersteps, which the engine runs only for such accumulators).
#if VP_ASIZE == 4 || VP_ASIZE == 8
#if VP_ASIZE == 4
typedef unsigned vp_aword;
#else
typedef unsigned long long vp_aword;
#endif
union vp_abits {
  A_t a;
  vp_aword b;
};
#endif

// vp_fold sets y[v] = vp_gather(y[v], ...) atomically (a CAS loop on the
// accumulator's 4 or 8 bytes) and returns 0 when its bits did not change,
// 1 when they did, 2 when they changed from the identity's (the row's
// first change in this superstep, most likely). Unless Guess it reads
// before its first CAS: most pushes to a hub change nothing, and need no
// atomic then. With Guess (vp_loop's small frontiers, whose rows are
// mostly untouched) its first CAS is from the identity, one round trip to
// memory fewer for a row nobody pushed to yet. A program that defines
// VP_FOLD_ATOMIC folds there by its own atomic (vp_fold_atomic: one
// round trip, where a CAS that lost a race took two more).
template <bool Guess>
__device__ __forceinline__ int vp_fold(A_t* p, int v, int u, const X_t& xu, float w, const State& s) {
#ifdef VP_FOLD_ATOMIC
  if (Guess) return vp_fold_atomic(p, v, u, xu, w, s);
#endif
#if VP_ASIZE == 4 || VP_ASIZE == 8
  vp_aword* addr = reinterpret_cast<vp_aword*>(p);
  vp_abits id;
  id.a = vp_identity();
  bool known = !Guess;  // old is a value the row had
  vp_aword old = Guess ? id.b : *reinterpret_cast<volatile vp_aword*>(addr);
  for (;;) {
    vp_abits cur;
    cur.b = old;
    vp_abits nv;
    nv.a = vp_gather(cur.a, v, u, xu, w, s);
    if (nv.b == old) {
      if (known) return 0;
      old = *reinterpret_cast<volatile vp_aword*>(addr);
      known = true;
      continue;
    }
    vp_aword seen = atomicCAS(addr, old, nv.b);
    if (seen == old) return old == id.b ? 2 : 1;
    old = seen;
    known = true;
  }
#else
  return 0;  // never launched: the engine pushes only 4- and 8-byte accumulators
#endif
}

// A program may declare that vp_reduce(a, b) is a + b on an arithmetic
// A_t (#define VP_REDUCE_ADD 1): accumulators are then folded with
// atomicAdd instead of a compare-and-swap loop.
#ifndef VP_REDUCE_ADD
#define VP_REDUCE_ADD 0
#endif

// vp_atomic_reduce folds part into *p (shared or global memory) with
// vp_reduce, atomically.
__device__ __forceinline__ void vp_atomic_reduce(A_t* p, A_t part) {
#if VP_REDUCE_ADD
  atomicAdd(p, part);
#elif VP_ASIZE == 8 || VP_ASIZE == 4
  vp_aword* addr = reinterpret_cast<vp_aword*>(p);
  vp_aword old = *reinterpret_cast<volatile vp_aword*>(addr);
  for (;;) {
    vp_abits cur, nv;
    cur.b = old;
    nv.a = vp_reduce(cur.a, part);
    if (nv.b == old) return;
    const vp_aword seen = atomicCAS(addr, old, nv.b);
    if (seen == old) return;
    old = seen;
  }
#endif
}

#if VP_ASIZE == 8 || VP_ASIZE == 4
__device__ __forceinline__ bool vp_is_identity(A_t v) {
  vp_abits a, id;
  a.a = v;
  id.a = vp_identity();
  return a.b == id.b;
}
#endif

