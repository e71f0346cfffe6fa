// hpgraph CUDA kernels: one template for every program. The program's
// snippet (X_t, A_t, State, vp_identity, vp_gather, vp_reduce, vp_update and
// optionally vp_wants, vp_done) comes before this file; the semantics are
// those of the CPU kernels in package spmv and the engine in vertexprog.
//
// Every kernel takes (VP_Mat m, VP_Run c, State s, VP_Arg a) so the host
// launches them all the same way, and every per-superstep value lives on
// the device: superstep s = ctl[0] + a.j reads the record of superstep s-1
// (how many vertices it activated, the frontier queues' lengths, the
// aggregators) and writes its own. So the host can enqueue many supersteps
// without reading anything back, and the same launches can be captured
// once in a CUDA graph and replayed.
//
// A superstep is, pulling:   vp_pull_ell, vp_pull_coo, vp_apply_pull
//                 pushing:   vp_push, vp_apply_push
// or, pushing a small frontier, one turn of vp_loop's loop (which keeps
// its frontier in shared memory between its supersteps).
// The first kernel of a superstep marks its record as run; the last one
// clears the record of the next superstep. Each kernel returns at once when
// the superstep does not run (the previous one activated nothing, or, in a
// batch, activated too many to stay in the batch): such supersteps change
// nothing.

#define VP_BLOCK 256
#define VP_FULL 0xffffffffu
// A batched superstep runs only while the frontier holds fewer than
// n / VP_SMALL_FRONTIER vertices or, pushing, fewer than ctl[2] edges (the
// engine's own batching rule).
#define VP_SMALL_FRONTIER 64
// An idempotent program's pull ignores x_bitmask from n / VP_DENSE_FRONTIER
// active vertices on (the CPU engine's denseFrontier).
#define VP_DENSE_FRONTIER 4

// Words of a superstep record (unsigned long long each).
#define VP_R_ACTIVE 0   // vertices activated
#define VP_R_EDGES 1    // their push-matrix degrees
#define VP_R_RAN 2      // 1 when the superstep ran
#define VP_R_SMALL 3    // activated vertices queued for a thread each (front of queue)
#define VP_R_MEDIUM 4   // ... for a warp each (back of queue)
#define VP_R_CHUNKS 5   // push chunks of the heavy activated vertices
#define VP_R_TOUCHED 6  // rows a push wrote to (touchedList)
#define VP_R_AGG 7      // then one double per aggregator

// A run's device state (the same for all its supersteps).
struct VP_Run {
  X_t* x;
  unsigned long long xTex;  // texture object over x (VP_TEXTURE_X)
  unsigned* mask[2];        // superstep s: mask[s&1] is x_bitmask, mask[~s&1] active_bitmask
  unsigned long long maskTex[2];
  int* queue[2];     // frontier of superstep s: queue[s&1], thread vertices from the front, warp vertices from the back
  int2* chunks[2];   // heavy frontier vertices of superstep s: (vertex, chunk) in chunks[s&1]
  int* touchedList;   // rows a push changed from the identity (a row may appear twice)
  const int* pushDeg;  // push-matrix row lengths, null without a push matrix
  A_t* y;
  unsigned char* partial;  // heavy pull chunks' partials (A_t each)
  unsigned* heavyCount;    // per heavy pull row: chunks done in this superstep
  unsigned long long* rec; // ring of superstep records
  int* ctl;                // [0] base superstep of a.j, [1] iteration of superstep 0, [2] push edges of a batch,
                           // [3] vp_loop's rows listed in touchedList
  int n, ring, recWords, useMask;
  int pushSmall, pushChunk;
  int idempotent;  // Spec.Idempotent: pull unmasked while the frontier is dense
  float delta;     // Spec.Delta (vp_loop's delta-stepping, with VP_HAS_PRIORITY)
  unsigned* farBits;  // vertices in vp_loop's far lists (with VP_HAS_PRIORITY)
  A_t* yLoop;         // vp_loop's second accumulator array (every row the identity between launches)
  unsigned long long* probe;  // VP_PROBE: per tile of vp_pull_tiles its start, end (ns) and multiprocessor
};

struct VP_Arg {
  int j;        // superstep ctl[0] + j (vp_ctl: the value)
  int batched;  // 1: part of a batch (stops while the frontier is large)
  int op;       // vp_ctl: 0 sets ctl[0], 1 adds to ctl[0], 2 sets ctl[1], 3 sets ctl[2]; vp_loop: supersteps
  int lim;      // vp_loop: the most frontier edges it pushes
};

static_assert(sizeof(VP_Run) == 192, "hpgraph: VP_Run layout");
static_assert(sizeof(VP_Arg) == 16, "hpgraph: VP_Arg layout");

// The superstep a kernel works on.
struct VP_St {
  int s;
  int p;  // s & 1
  bool go;
  bool mask;  // the pull tests x_bitmask
  int iter0;  // the program's iteration of superstep 0 (ctl[1], read once)
  const unsigned long long* prev;  // record of s-1
  unsigned long long* rec;         // record of s
};

__device__ __forceinline__ unsigned long long* vp_record(const VP_Run& c, int s) {
  int r = s % c.ring;
  if (r < 0) r += c.ring;
  return c.rec + (long long)r * c.recWords;
}

// vp_st_at: superstep s of a push (push) or a pull, in a batch or not.
__device__ __forceinline__ VP_St vp_st_at(const VP_Run& c, int s, bool batched, bool push) {
  VP_St t;
  t.s = s;
  t.p = t.s & 1;
  t.prev = vp_record(c, t.s - 1);
  t.rec = vp_record(c, t.s);
  t.iter0 = c.ctl[1];
  unsigned long long act = t.prev[VP_R_ACTIVE];
  // (a run without a push matrix pulls every superstep: its batches go
  // on whatever the frontier, as the engine's rule for them). A push
  // batch goes on only while the frontier's edges stay under the limit
  // the host's chooser set: a frontier of few vertices can hold most of
  // the edges (kron27's hubs: 1.2% of the vertices, 2.4G edges), which
  // the chooser pulls.
  t.go = act > 0 && (!batched || !c.pushDeg ||
                     (push ? t.prev[VP_R_EDGES] < (unsigned long long)c.ctl[2] : act * VP_SMALL_FRONTIER < (unsigned long long)c.n));
  // An idempotent program gathers unchanged neighbours harmlessly: with a
  // dense frontier (a quarter of the vertices, as the CPU engine's rule)
  // skipping the bitmask test is cheaper.
  t.mask = c.useMask && !(c.idempotent && act * VP_DENSE_FRONTIER >= (unsigned long long)c.n);
  return t;
}

// vp_st: the superstep of a kernel.
__device__ __forceinline__ VP_St vp_st(const VP_Run& c, const VP_Arg& a, bool push) {
  return vp_st_at(c, c.ctl[0] + a.j, a.batched, push);
}

__device__ __forceinline__ double vp_agg_identity(int op) {
  if (op == 1) return __longlong_as_double(0x7ff0000000000000ULL);  // Min: +Inf
  if (op == 2) return __longlong_as_double(0xfff0000000000000ULL);  // Max: -Inf
  return 0.0;
}

// vp_next_record clears the record of superstep s+1 (in the last kernel of
// superstep s, which runs whether or not s does).
__device__ __forceinline__ void vp_next_record(const VP_Run& c, const VP_St& t) {
  if (blockIdx.x != 0 || threadIdx.x != 0) return;
  unsigned long long* r = vp_record(c, t.s + 1);
  for (int i = 0; i < VP_R_AGG; i++) r[i] = 0;
  for (int i = 0; i < c.recWords - VP_R_AGG; i++) r[VP_R_AGG + i] = __double_as_longlong(vp_agg_identity(vp_agg_kind(i)));
}

__device__ __forceinline__ bool vp_in_frontier(const VP_Run& c, const VP_St& t, int u) {
#if VP_TEXTURE
  unsigned w = tex1Dfetch<unsigned>((cudaTextureObject_t)c.maskTex[t.p], u >> 5);
#else
  unsigned w = __ldg(c.mask[t.p] + (u >> 5));
#endif
  return (w >> (u & 31)) & 1u;
}

// vp_load_x reads X of vertex u through the texture or read-only path,
// or (Coherent: vp_loop, whose own APPLY writes X) with plain loads, or
// (Ldg: vp_pull_tiles, whose 8-byte X took two texture fetches each) the
// read-only path.
template <bool Coherent = false, bool Ldg = false>
__device__ __forceinline__ X_t vp_load_x(const VP_Run& c, int u) {
#if VP_XSIZE == 0
  return X_t();
#else
  if (Coherent) return c.x[u];
  if (Ldg && sizeof(X_t) % 4 == 0) {
    X_t v;
    unsigned* w = reinterpret_cast<unsigned*>(&v);
    if (sizeof(X_t) == 8) {
      const uint2 b = __ldg(reinterpret_cast<const uint2*>(c.x + u));
      w[0] = b.x;
      w[1] = b.y;
    } else {
      const unsigned* p = reinterpret_cast<const unsigned*>(c.x + u);
#pragma unroll
      for (int i = 0; i < (int)(sizeof(X_t) / 4); i++) w[i] = __ldg(p + i);
    }
    return v;
  }
#if VP_TEXTURE_X
  X_t v;
  unsigned* w = reinterpret_cast<unsigned*>(&v);
#pragma unroll
  for (int i = 0; i < VP_XSIZE / 4; i++)
    w[i] = tex1Dfetch<unsigned>((cudaTextureObject_t)c.xTex, u * (VP_XSIZE / 4) + i);
  return v;
#elif VP_XSIZE % 4 == 0
  X_t v;
  unsigned* w = reinterpret_cast<unsigned*>(&v);
  const unsigned* p = reinterpret_cast<const unsigned*>(c.x + u);
#pragma unroll
  for (int i = 0; i < VP_XSIZE / 4; i++) w[i] = __ldg(p + i);
  return v;
#else
  return c.x[u];
#endif
#endif
}

__device__ __forceinline__ Step vp_step(const VP_Run& c, const VP_St& t, double* blk) {
  Step st;
  st.iteration = t.s + t.iter0;
  st.prev = reinterpret_cast<const double*>(t.prev + VP_R_AGG);
  st.acc = reinterpret_cast<double*>(t.rec + VP_R_AGG);
  st.blk = blk;
  st.part = nullptr;
  return st;
}

// Aggregators are combined per block in shared memory (up to
// VP_BLOCK_AGG of them; more go straight to memory): vp_agg_begin and
// vp_agg_flush bracket an APPLY kernel's Update calls. Every thread of the
// block calls both.
#define VP_BLOCK_AGG 8
__device__ __forceinline__ double* vp_agg_begin(const VP_Run& c, double* sh) {
  const int k = c.recWords - VP_R_AGG;
  if (k == 0 || k > VP_BLOCK_AGG) return nullptr;
  if (threadIdx.x < k) sh[threadIdx.x] = vp_agg_identity(vp_agg_kind(threadIdx.x));
  __syncthreads();
  return sh;
}
__device__ __forceinline__ void vp_agg_flush(const VP_Run& c, const VP_St& t, double* blk) {
  if (!blk) return;
  __syncthreads();
  const int i = threadIdx.x;
  if (i < c.recWords - VP_R_AGG && __double_as_longlong(blk[i]) != __double_as_longlong(vp_agg_identity(vp_agg_kind(i))))
    vp_agg_op(reinterpret_cast<double*>(t.rec + VP_R_AGG) + i, vp_agg_kind(i), blk[i]);
}

// vp_skip_row: rows rejected by vp_wants take no input, and (early exit)
// rows whose accumulator is already decided take no more.
__device__ __forceinline__ bool vp_skip_row(const VP_Run& c, const State& s, int r) {
#if VP_HAS_WANTS
  if (!vp_wants(r, s)) return true;
#endif
#if VP_HAS_DONE
  if (vp_done(c.y[r])) return true;
#endif
  return false;
}

// vp_combine_row folds a row's COO partial into its ELL result (the only
// writer of that row in this launch).
__device__ __forceinline__ void vp_combine_row(const VP_Run& c, const State& s, int r, A_t part) {
#if VP_HAS_WANTS
  if (!vp_wants(r, s)) return;
#endif
  A_t cur = c.y[r];
#if VP_HAS_DONE
  if (vp_done(cur)) return;
#endif
  c.y[r] = vp_reduce(cur, part);
}

// Accumulators of any size move between lanes and through memory as
// 32-bit words (or bytes).
#define VP_AWORDS ((sizeof(A_t) + 3) / 4)

__device__ __forceinline__ A_t vp_shfl_down(A_t v, int d, int width) {
  unsigned w[VP_AWORDS];
  w[VP_AWORDS - 1] = 0;
  memcpy(w, &v, sizeof(A_t));
#pragma unroll
  for (int i = 0; i < (int)VP_AWORDS; i++) w[i] = __shfl_down_sync(VP_FULL, w[i], d, width);
  A_t r = v;
  memcpy(&r, w, sizeof(A_t));
  return r;
}

// vp_load_volatile reads an A_t another block wrote (past L1).
__device__ __forceinline__ A_t vp_load_volatile(const unsigned char* p) {
  unsigned char b[sizeof(A_t)];
  const volatile unsigned char* q = p;
  for (int i = 0; i < (int)sizeof(A_t); i++) b[i] = q[i];
  A_t r = vp_identity();
  memcpy(&r, b, sizeof(A_t));
  return r;
}

// vp_stream loads a pull's column index or weight, which a superstep
// reads once: with VP_STREAM as evict-first in L1 and L2 (ld.global.cs),
// so the matrix streaming past does not push out X, which the gathers
// read at random and often.
template <typename T>
__device__ __forceinline__ T vp_stream(const T* p) {
#if VP_STREAM
  return __ldcs(p);
#else
  return *p;
#endif
}

// Pull loops take VP_UNROLL entries per thread at a time: all their
// column loads, then all their frontier tests and X loads, then the folds
// in order, so a thread waits for memory twice per batch instead of twice
// per entry. Early exit stops the folds at the first decided accumulator;
// the entries after it in the batch were only loaded.
#ifndef VP_UNROLL
#define VP_UNROLL 4
#endif

struct VP_Batch {
  int u[VP_UNROLL];  // -1: no entry
  float w[VP_UNROLL];
  bool in[VP_UNROLL];
  X_t x[VP_UNROLL];
};

// vp_coo_batch fills a batch with COO entries i, i+stride, ... below e
// (u = -1 past e).
__device__ __forceinline__ void vp_coo_batch(VP_Batch& b, const VP_Mat& m, long long i, long long e, int stride) {
#pragma unroll
  for (int q = 0; q < VP_UNROLL; q++) {
    const long long ii = i + (long long)q * stride;
    b.u[q] = ii < e ? vp_stream(m.cooCol + ii) : -1;
    b.w[q] = ii < e && m.cooVal ? vp_stream(m.cooVal + ii) : 1.0f;
  }
}

// vp_batch_gather loads the batch's frontier bits and X (u, w filled in)
// and folds it into acc; it returns true when acc became decided.
__device__ __forceinline__ bool vp_batch_gather(VP_Batch& b, A_t& acc, int r, const VP_Run& c, const VP_St& t, const State& s) {
#pragma unroll
  for (int q = 0; q < VP_UNROLL; q++) b.in[q] = b.u[q] >= 0 && (!t.mask || vp_in_frontier(c, t, b.u[q]));
#pragma unroll
  for (int q = 0; q < VP_UNROLL; q++)
    if (b.in[q]) b.x[q] = vp_load_x(c, b.u[q]);
  bool decided = false;
#pragma unroll
  for (int q = 0; q < VP_UNROLL; q++) {
    if (!decided && b.in[q]) {
      acc = vp_gather(acc, r, b.u[q], b.x[q], b.w[q], s);
#if VP_HAS_DONE
      if (vp_done(acc)) decided = true;
#endif
    }
  }
  return decided;
}

// vp_ctl: the host's way to set the superstep base without a copy.
extern "C" __global__ void vp_ctl(VP_Mat m, VP_Run c, State s, VP_Arg a) {
  if (blockIdx.x != 0 || threadIdx.x != 0) return;
  if (a.op == 0) c.ctl[0] = a.j;
  else if (a.op == 1) c.ctl[0] += a.j;
  else if (a.op == 2) c.ctl[1] = a.j;
  else c.ctl[2] = a.j;
}

// y (a.op 1: yLoop) := identity on every row (before a push after pull
// supersteps; yLoop once, before the first vp_loop).
extern "C" __global__ void __launch_bounds__(VP_BLOCK) vp_fill(VP_Mat m, VP_Run c, State s, VP_Arg a) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < m.n) (a.op == 1 ? c.yLoop : c.y)[r] = vp_identity();
}

// vp_count_flush adds a block's frontier size and push edges to record
// t.rec: acts, counted by each warp's lane 0, and edges, by every thread;
// cnt is the block's two shared counters, cleared at its start. Every
// thread of the block calls it (vp_init_state, vp_apply_pull).
__device__ __forceinline__ void vp_count_flush(const VP_St& t, unsigned long long* cnt, unsigned long long acts, unsigned long long edges) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) edges += __shfl_down_sync(VP_FULL, edges, o);
  __syncthreads();  // (cnt cleared)
  if ((threadIdx.x & 31) == 0) {
    if (acts) atomicAdd(&cnt[0], acts);
    if (edges) atomicAdd(&cnt[1], edges);
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    if (cnt[0]) atomicAdd(t.rec + VP_R_ACTIVE, cnt[0]);
    if (cnt[1]) atomicAdd(t.rec + VP_R_EDGES, cnt[1]);
  }
}

// vp_init_state runs the program's vp_init (DeviceCode.Init) on every
// vertex, before the first superstep: it writes X, the program's writable
// arrays (zeroed before), superstep 0's x_bitmask and the record of
// superstep -1 (the first frontier's size and push-matrix edges, the
// aggregators Init added to) — what the host sends when it ran Init. A
// warp takes 32 consecutive vertices and writes their bitmask word whole;
// Step's aggregate(i) reads the identities of superstep 0's cleared
// record, as Init's Step does.
extern "C" __global__ void __launch_bounds__(VP_BLOCK) vp_init_state(VP_Mat m, VP_Run c, State s, VP_Arg a) {
#ifdef VP_HAS_INIT
  VP_St t;
  t.rec = vp_record(c, -1);
  __shared__ double agg[VP_BLOCK_AGG];
  __shared__ unsigned long long cnt[2];
  double* blk = vp_agg_begin(c, agg);
  if (threadIdx.x < 2) cnt[threadIdx.x] = 0;
  Step st;
  st.iteration = 0;
  st.prev = reinterpret_cast<const double*>(vp_record(c, 0) + VP_R_AGG);
  st.acc = reinterpret_cast<double*>(t.rec + VP_R_AGG);
  st.blk = blk;
  st.part = nullptr;
  const int lane = threadIdx.x & 31;
  const long long end = ((long long)c.n + 31) / 32 * 32;
  unsigned long long acts = 0, edges = 0;
  for (long long b = (long long)blockIdx.x * VP_BLOCK; b < end; b += (long long)gridDim.x * VP_BLOCK) {
    const long long u = b + threadIdx.x;
    bool act = false;
    if (u < c.n) {
      const int v = (int)u;
      X_t x;
      memset(&x, 0, sizeof(X_t));
      act = vp_init(v, &x, s, st);
#if VP_XSIZE > 0
      c.x[v] = x;
#endif
      if (act && c.pushDeg) edges += c.pushDeg[v];
    }
    const unsigned bal = __ballot_sync(VP_FULL, act);
    if (lane == 0 && u < end) {
      c.mask[0][u >> 5] = bal;
      acts += __popc(bal);
    }
  }
  vp_count_flush(t, cnt, acts, edges);
  vp_agg_flush(c, t, blk);
#endif
}

// ELL pull, the first kernel of a pull superstep: one thread per row, slot
// k of consecutive rows at consecutive addresses. Writes every wanted row's
// y (the identity when it gathers nothing), so it also initializes y for
// the COO kernel.
extern "C" __global__ void __launch_bounds__(VP_BLOCK) vp_pull_ell(VP_Mat m, VP_Run c, State s, VP_Arg a) {
  VP_St t = vp_st(c, a, false);
  if (!t.go) return;
  if (blockIdx.x == 0 && threadIdx.x == 0) t.rec[VP_R_RAN] = 1;
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= m.n) return;
#if VP_HAS_WANTS
  if (!vp_wants(r, s)) return;
#endif
  A_t acc = vp_identity();
  for (int k0 = 0; k0 < m.k; k0 += VP_UNROLL) {
    VP_Batch b;
    bool pad = false;
#pragma unroll
    for (int q = 0; q < VP_UNROLL; q++) {
      long long i = (long long)(k0 + q) * m.pitch + r;
      b.u[q] = k0 + q < m.k ? vp_stream(m.ellCol + i) : -1;
      b.w[q] = b.u[q] >= 0 && m.ellVal ? vp_stream(m.ellVal + i) : 1.0f;
      pad |= b.u[q] < 0;  // padding only trails
    }
    if (vp_batch_gather(b, acc, r, c, t, s) || pad) break;
  }
  c.y[r] = acc;
}

// vp_coo_group: groups of G lanes (G divides 32) each reduce one row's COO
// entries, lane i of a group taking entries i, i+G, ... (coalesced), then
// combine the group's partials with vp_reduce and fold the result into y.
// Under early exit the group stops after the first round in which any lane
// is done: every entry before that round's end has been seen, so the
// result is what the sequential scan gives. All 32 lanes of the warp call it.
// (Test false: the caller has already tested the rows with vp_skip_row.)
template <int G, bool Test = true>
__device__ __forceinline__ void vp_coo_group(const VP_Mat& m, const VP_Run& c, const VP_St& t, const State& s,
                                             const int* rows, int count, int idx) {
  const int lane = threadIdx.x & 31;
  const int gl = lane & (G - 1);
  const bool valid = idx < count;
  int r = valid ? rows[idx] : 0;
  bool skip = !valid || (Test && vp_skip_row(c, s, r));
  long long i = 0, e = 0;
  if (!skip) {
    i = m.cooPtr[r] + gl;
    e = m.cooPtr[r + 1];
  }
  A_t acc = vp_identity();
  for (;;) {
    bool act = !skip && i < e;
    if (!__any_sync(VP_FULL, act)) break;
    bool decided = false;
    if (act) {
      VP_Batch b;
      vp_coo_batch(b, m, i, e, G);
      decided = vp_batch_gather(b, acc, r, c, t, s);
      i += (long long)VP_UNROLL * G;
    }
#if VP_HAS_DONE
    unsigned d = __ballot_sync(VP_FULL, decided);
    unsigned gm = G == 32 ? VP_FULL : (((1u << G) - 1u) << (lane & ~(G - 1)));
    if (d & gm) skip = true;
#endif
  }
#pragma unroll
  for (int o = G / 2; o > 0; o >>= 1) acc = vp_reduce(acc, vp_shfl_down(acc, o, G));
  if (valid && gl == 0) vp_combine_row(c, s, r, acc);
}

// vp_chunk_done stores the partial of chunk `chunk` of heavy row r (index
// h, chunks first .. first+cnt-1); the caller that completes the row's
// last chunk folds the chunks' partials in order and combines the sum
// into y (the threadfence-reduction pattern: no second launch, no atomics
// on y). One thread per chunk calls it.
__device__ __forceinline__ void vp_chunk_done(const VP_Run& c, const State& s, int chunk, int h, int r, int first, int cnt, A_t part) {
  memcpy(c.partial + (long long)chunk * sizeof(A_t), &part, sizeof(A_t));
  __threadfence();
  unsigned done = atomicAdd(c.heavyCount + h, 1u);
  if (done != (unsigned)cnt - 1) return;
  __threadfence();
  A_t tot = vp_identity();
  for (int k = 0; k < cnt; k++) tot = vp_reduce(tot, vp_load_volatile(c.partial + (long long)(first + k) * sizeof(A_t)));
  c.heavyCount[h] = 0;  // ready for the next superstep
  vp_combine_row(c, s, r, tot);
}

// vp_pull_chunk: one block reduces chunk `chunk` of a heavy row; the block
// that completes the row's last chunk folds the chunks' partials in order
// and combines the sum into y (the threadfence-reduction pattern: no
// second launch, no atomics on y).
__device__ __forceinline__ void vp_pull_chunk(const VP_Mat& m, const VP_Run& c, const VP_St& t, const State& s, int chunk) {
  __shared__ __align__(16) unsigned char sraw[(VP_BLOCK / 32) * sizeof(A_t)];
  A_t* sval = reinterpret_cast<A_t*>(sraw);
  const int h = m.chunkHeavy[chunk];
  const int r = m.heavyRow[h];
  const int first = m.heavyFirst[h], cnt = m.heavyFirst[h + 1] - first;
  const long long re = m.cooPtr[r + 1];
  const long long b = m.cooPtr[r] + (long long)(chunk - first) * m.chunk;
  const long long e = min(b + (long long)m.chunk, re);
  const bool skip = vp_skip_row(c, s, r);  // the same for the whole block
  A_t acc = vp_identity();
  if (!skip) {
    for (long long i = b + threadIdx.x;; i += (long long)VP_UNROLL * VP_BLOCK) {
      bool act = i < e;
      if (!__syncthreads_or(act)) break;
      bool decided = false;
      if (act) {
        VP_Batch bt;
        vp_coo_batch(bt, m, i, e, VP_BLOCK);
        decided = vp_batch_gather(bt, acc, r, c, t, s);
      }
#if VP_HAS_DONE
      if (__syncthreads_or(decided)) break;
#else
      (void)decided;
#endif
    }
  }
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) acc = vp_reduce(acc, vp_shfl_down(acc, o, 32));
  if ((threadIdx.x & 31) == 0) sval[threadIdx.x >> 5] = acc;
  __syncthreads();
  if (threadIdx.x != 0) return;
  A_t part = sval[0];
  for (int w = 1; w < VP_BLOCK / 32; w++) part = vp_reduce(part, sval[w]);
  vp_chunk_done(c, s, chunk, h, r, first, cnt, part);
}

// A program whose rows can drop out (vp_wants, vp_done: a traversal's
// visited rows, rows the ELL part decided) lists the warp and quad rows
// that take input first (VP_LISTED): a block tests VP_BLOCK rows of a bin
// with a lane each, lists in shared memory those that vp_skip_row keeps,
// then reduces them with G lanes each. Testing one row per warp (or per 4
// lanes) cost a dependent chain of loads per row and a block per 8 rows:
// most of a late BFS superstep (docs/perf.md, section 11).
#define VP_LISTED (VP_HAS_WANTS || VP_HAS_DONE)

template <int G>
__device__ __forceinline__ void vp_coo_listed(const VP_Mat& m, const VP_Run& c, const VP_St& t, const State& s,
                                              const int* rows, int count, int b) {
  __shared__ int list[VP_BLOCK];
  __shared__ int listed;
  if (threadIdx.x == 0) listed = 0;
  __syncthreads();
  const int idx = b * VP_BLOCK + threadIdx.x;
  int r = 0;
  bool keep = false;
  if (idx < count) {
    r = rows[idx];
    keep = !vp_skip_row(c, s, r);
  }
  const unsigned k = __ballot_sync(VP_FULL, keep);
  int at = 0;
  if ((threadIdx.x & 31) == 0 && k) at = atomicAdd(&listed, __popc(k));
  at = __shfl_sync(VP_FULL, at, 0);
  if (keep) list[at + __popc(k & ((1u << (threadIdx.x & 31)) - 1u))] = r;
  __syncthreads();
  const int n = listed;  // the same in every thread: the loop is uniform
  for (int i = 0; i < n; i += VP_BLOCK / G) vp_coo_group<G, false>(m, c, t, s, list, n, i + threadIdx.x / G);
}

#if VP_LISTED
// vp_pull_chunk_warp is vp_pull_chunk with a warp per chunk (VP_LISTED:
// 8 chunks a block), so the chunks of rows that vp_skip_row drops cost a
// warp's test, not a block each. A dropped row's chunks skip the
// completion count too: vp_skip_row gives every chunk of a row the same
// answer (vp_wants is fixed during the launch, and y of a heavy row
// changes only when its last chunk completes, after every chunk's test).
__device__ __forceinline__ void vp_pull_chunk_warp(const VP_Mat& m, const VP_Run& c, const VP_St& t, const State& s, int chunk) {
  if (chunk >= m.nChunks) return;
  const int h = m.chunkHeavy[chunk];
  const int r = m.heavyRow[h];
  if (vp_skip_row(c, s, r)) return;
  const int lane = threadIdx.x & 31;
  const int first = m.heavyFirst[h], cnt = m.heavyFirst[h + 1] - first;
  const long long re = m.cooPtr[r + 1];
  const long long b = m.cooPtr[r] + (long long)(chunk - first) * m.chunk;
  const long long e = min(b + (long long)m.chunk, re);
  A_t acc = vp_identity();
  for (long long i = b + lane;; i += (long long)VP_UNROLL * 32) {
    bool act = i < e;
    if (!__any_sync(VP_FULL, act)) break;
    bool decided = false;
    if (act) {
      VP_Batch bt;
      vp_coo_batch(bt, m, i, e, 32);
      decided = vp_batch_gather(bt, acc, r, c, t, s);
    }
#if VP_HAS_DONE
    if (__any_sync(VP_FULL, decided)) break;
#else
    (void)decided;
#endif
  }
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) acc = vp_reduce(acc, vp_shfl_down(acc, o, 32));
  if (lane == 0) vp_chunk_done(c, s, chunk, h, r, first, cnt, acc);
}
#endif

// COO pull over the row bins: blocks [0, nChunks) take one heavy chunk
// each (VP_LISTED: 8 chunks a block, a warp each), then blocks of 8 warp
// rows, 64 quad rows (VP_LISTED: 256 of either) and 256 thread rows.
extern "C" __global__ void __launch_bounds__(VP_BLOCK) vp_pull_coo(VP_Mat m, VP_Run c, State s, VP_Arg a) {
  VP_St t = vp_st(c, a, false);
  if (!t.go) return;
  int b = blockIdx.x;
#if VP_LISTED
  const int cb = (m.nChunks + VP_BLOCK / 32 - 1) / (VP_BLOCK / 32);
  if (b < cb) {
    vp_pull_chunk_warp(m, c, t, s, b * (VP_BLOCK / 32) + (threadIdx.x >> 5));
    return;
  }
  b -= cb;
  const int wb = (m.nWarp + VP_BLOCK - 1) / VP_BLOCK, qb = (m.nQuad + VP_BLOCK - 1) / VP_BLOCK;
  if (b < wb) {
    vp_coo_listed<32>(m, c, t, s, m.binRows, m.nWarp, b);
    return;
  }
  b -= wb;
  if (b < qb) {
    vp_coo_listed<4>(m, c, t, s, m.binRows + m.nWarp, m.nQuad, b);
    return;
  }
  b -= qb;
#else
  if (b < m.nChunks) {
    vp_pull_chunk(m, c, t, s, b);
    return;
  }
  b -= m.nChunks;
  if (b < m.wBlocks) {
    vp_coo_group<32>(m, c, t, s, m.binRows, m.nWarp, b * (VP_BLOCK / 32) + (threadIdx.x >> 5));
    return;
  }
  b -= m.wBlocks;
  if (b < m.qBlocks) {
    vp_coo_group<4>(m, c, t, s, m.binRows + m.nWarp, m.nQuad, b * (VP_BLOCK / 4) + (threadIdx.x >> 2));
    return;
  }
  b -= m.qBlocks;
#endif
  vp_coo_group<1>(m, c, t, s, m.binRows + m.nWarp + m.nQuad, m.nThread, b * VP_BLOCK + threadIdx.x);
}

// vp_emit counts the block's activated vertices and their push degrees
// into record cnt (unless null) and appends them to a frontier's queues by
// degree (unless q is null; the queue counts are in record qr): small ones
// to the front of q, medium ones to its back, heavy ones as chunks to hq.
// Warps combine in shared memory first, so a block makes one global
// atomic per counter: a 2M-vertex APPLY made 130k atomics on two
// addresses, which took longer than the pull. Every thread of the block
// must call it (it synchronizes the block).
// A heavy vertex's chunks are placed the same way, by a scan of the warp's
// chunk counts: one global atomic a heavy vertex, all on one counter, took
// 0.4 ms of kron25's first BFS superstep (its hub's neighbours).
__device__ __forceinline__ void vp_emit(const VP_Run& c, unsigned long long* cnt, unsigned long long* qr, int* q, int2* hq,
                                        int v, bool act, int deg) {
  __shared__ unsigned long long sh[5];  // activated, edges, small, medium, chunks
  __shared__ unsigned long long base[3];
  const int lane = threadIdx.x & 31;
  const unsigned lt = (1u << lane) - 1u;
  if (threadIdx.x < 5) sh[threadIdx.x] = 0;
  __syncthreads();
  const bool sm = q && act && deg <= c.pushSmall;
  const bool md = q && act && deg > c.pushSmall && deg <= c.pushChunk;
  const unsigned ba = __ballot_sync(VP_FULL, act), bs = __ballot_sync(VP_FULL, sm), bm = __ballot_sync(VP_FULL, md);
  const unsigned long long k = q && act && deg > c.pushChunk ? (unsigned long long)((deg + c.pushChunk - 1) / c.pushChunk) : 0ULL;
  unsigned long long kin = k;  // inclusive scan of the warp's chunk counts
#pragma unroll
  for (int o = 1; o < 32; o <<= 1) {
    const unsigned long long x = __shfl_up_sync(VP_FULL, kin, o);
    if (lane >= o) kin += x;
  }
  const unsigned long long kw = __shfl_sync(VP_FULL, kin, 31);
  unsigned long long e = act ? (unsigned long long)deg : 0ULL;
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) e += __shfl_down_sync(VP_FULL, e, o);
  unsigned long long os = 0, om = 0, oc = 0;
  if (lane == 0) {
    if (ba) atomicAdd(&sh[0], (unsigned long long)__popc(ba));
    if (e) atomicAdd(&sh[1], e);
    if (bs) os = atomicAdd(&sh[2], (unsigned long long)__popc(bs));
    if (bm) om = atomicAdd(&sh[3], (unsigned long long)__popc(bm));
    if (kw) oc = atomicAdd(&sh[4], kw);
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    if (cnt && sh[0]) atomicAdd(cnt + VP_R_ACTIVE, sh[0]);
    if (cnt && sh[1]) atomicAdd(cnt + VP_R_EDGES, sh[1]);
    base[0] = sh[2] ? atomicAdd(qr + VP_R_SMALL, sh[2]) : 0;
    base[1] = sh[3] ? atomicAdd(qr + VP_R_MEDIUM, sh[3]) : 0;
    base[2] = sh[4] ? atomicAdd(qr + VP_R_CHUNKS, sh[4]) : 0;
  }
  __syncthreads();
  if (!q) return;
  os = __shfl_sync(VP_FULL, os, 0) + base[0];
  om = __shfl_sync(VP_FULL, om, 0) + base[1];
  oc = __shfl_sync(VP_FULL, oc, 0) + base[2] + (kin - k);
  if (sm) q[os + __popc(bs & lt)] = v;
  if (md) q[c.n - 1 - (long long)(om + __popc(bm & lt))] = v;
  for (unsigned long long i = 0; i < k; i++) hq[oc + i] = make_int2(v, (int)i);
}

// vp_update_step: Update of row v with the superstep's Step st.
__device__ __forceinline__ bool vp_update_step(const VP_Run& c, const State& s, int v, A_t acc, Step& st) {
#if VP_XSIZE == 0
  X_t none = X_t();
  return vp_update(v, acc, &none, s, st);
#else
  return vp_update(v, acc, c.x + v, s, st);
#endif
}

__device__ __forceinline__ bool vp_update_at(const VP_Run& c, const VP_St& t, const State& s, int v, A_t acc, double* blk) {
  Step st = vp_step(c, t, blk);
  return vp_update_step(c, s, v, acc, st);
}

// APPLY after a pull, the last kernel of a pull superstep: Update on every
// row vp_wants accepts; x_bitmask is cleared word by word for its next use
// as active_bitmask. A block takes VP_BLOCK * VP_APPLY_ROWS rows at a time
// (a thread's rows VP_BLOCK apart, their accumulators loaded together), as
// many turns as the grid leaves it (applyPerSM), and adds its activations
// to the record once at the end (kron21 BFS 0.339 → 0.312 ms against a
// block per 256 rows; docs/perf.md, section 13). The previous superstep's
// aggregates are read once, and a thread folds what its rows add to them
// in registers, combined once at the end (section 18).
#define VP_APPLY_REGS (VP_NAGG > 0 && VP_NAGG <= VP_BLOCK_AGG)
extern "C" __global__ void __launch_bounds__(VP_BLOCK) vp_apply_pull(VP_Mat m, VP_Run c, State s, VP_Arg a) {
  VP_St t = vp_st(c, a, false);
  vp_next_record(c, t);
  if (!t.go) return;
  __shared__ double agg[VP_BLOCK_AGG];
  __shared__ unsigned long long cnt[2];
  double* blk = vp_agg_begin(c, agg);
  if (threadIdx.x < 2) cnt[threadIdx.x] = 0;
  Step st = vp_step(c, t, blk);
#if VP_APPLY_REGS
  double prev[VP_NAGG], part[VP_NAGG];
#pragma unroll
  for (int k = 0; k < VP_NAGG; k++) {
    prev[k] = st.prev[k];
    part[k] = vp_agg_identity(vp_agg_kind(k));
  }
  st.prev = prev;
  st.part = part;
#endif
  const int lane = threadIdx.x & 31;
  unsigned long long acts = 0, edges = 0;
  for (int b = blockIdx.x * (VP_BLOCK * VP_APPLY_ROWS); b < m.n; b += gridDim.x * (VP_BLOCK * VP_APPLY_ROWS)) {
    A_t acc[VP_APPLY_ROWS];
    bool want[VP_APPLY_ROWS];
#pragma unroll
    for (int q = 0; q < VP_APPLY_ROWS; q++) {
      const int v = b + q * VP_BLOCK + threadIdx.x;
      want[q] = v < m.n;
#if VP_HAS_WANTS
      if (want[q]) want[q] = vp_wants(v, s);
#endif
      if (want[q]) acc[q] = c.y[v];
    }
#pragma unroll
    for (int q = 0; q < VP_APPLY_ROWS; q++) {
      const int v = b + q * VP_BLOCK + threadIdx.x;
      bool act = false;
      if (want[q]) {
        act = vp_update_step(c, s, v, acc[q], st);
        // After vp_pull_tiles: the rows its tiles fold into start the next
        // pull as the identity.
        if (a.op == 1 && m.tileMulti[v >> m.tileRowBits]) c.y[v] = vp_identity();
        if (act && c.pushDeg) edges += c.pushDeg[v];
      }
      if (v < m.n && lane == 0) c.mask[t.p][v >> 5] = 0u;
      const unsigned bal = __ballot_sync(VP_FULL, act);
      if (bal && lane == 0) {
        atomicOr(c.mask[t.p ^ 1] + (v >> 5), bal);
        acts += __popc(bal);
      }
    }
  }
#if VP_APPLY_REGS
#pragma unroll
  for (int k = 0; k < VP_NAGG; k++) {
    double r = part[k];
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) r = vp_agg_fold(vp_agg_kind(k), r, __shfl_xor_sync(VP_FULL, r, o));
    if (lane == 0 && __double_as_longlong(r) != __double_as_longlong(vp_agg_identity(vp_agg_kind(k)))) vp_agg_op(blk + k, vp_agg_kind(k), r);
  }
#endif
  // No queues: a push after pulls compacts the bitmask (vp_compact).
  vp_count_flush(t, cnt, acts, edges);
  vp_agg_flush(c, t, blk);
}

// vp_records copies the records of supersteps ctl[0]+j, ... (count of
// them) to the host's pinned memory at dst (mapped into the device's
// address space), one block. Relative to the device's superstep base,
// so one CUDA graph replays a superstep and the copy of its record: one
// submission for the host, where launches cost ~5-10 us each
// (docs/perf.md, section 17).
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
    vp_emit(c, nullptr, const_cast<unsigned long long*>(t.prev), c.queue[t.p], c.chunks[t.p], v, in, deg);
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

// vp_pull_tiles, the pull of a program that gathers from every neighbour
// (the host's choice: Spec.GatherAll, no vp_wants or vp_done, a 4- or
// 8-byte A_t): a block takes one tile (tiles.go) and keeps the slots of
// its segment (an accumulator per row, then the virtual slots, then the
// dummy) in shared memory. Each warp folds its own stream into the slots
// it owns, a group of 32 entries (32 different slots) at a time, with
// plain loads and stores; then the virtual slots fold into their rows. A
// segment of one tile writes its rows' y; the tiles of a segment of
// several fold theirs into y atomically (y holds the identity on those
// rows: a.op 1 makes vp_apply_pull put it back).
//
// A warp's stream comes in chunks of VP_TILE_CHUNK groups (tileChunkFor
// in tiles.go), each loaded into registers while the one before it
// gathers and folds. Staging the chunks in shared memory with cp.async
// (sessions 10-12) cost each group two more shared-memory wavefronts
// than the loads it hid: kron21's pull 142 -> 118 us without it
// (docs/perf.md, section 17).
#define VP_TILE_BLOCK 512
extern "C" __global__ void __launch_bounds__(VP_TILE_BLOCK) vp_pull_tiles(VP_Mat m, VP_Run c, State s, VP_Arg a) {
#if VP_ASIZE == 8 || VP_ASIZE == 4
#if VP_PROBE
  unsigned long long t0 = 0;
  if (threadIdx.x == 0) asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
#endif
  VP_St t = vp_st(c, a, false);
  if (!t.go) return;
  if (blockIdx.x == 0 && threadIdx.x == 0) t.rec[VP_R_RAN] = 1;
  extern __shared__ __align__(16) unsigned char vp_tile_sh[];
  const int rb = m.tileRowBits, sb = rb + 1, vmax = m.tileVMax;
  const int R = 1 << rb;
  A_t* acc = reinterpret_cast<A_t*>(vp_tile_sh);
  int* vrowSh = reinterpret_cast<int*>(acc + R + vmax + 1);
  const int info = m.tileInfo[blockIdx.x];
  const bool multi = info < 0;
  const int seg = info & 0x7fffffff;
  const int r0 = seg << rb, rows = min(R, m.n - r0);
  const int v0 = m.tileVFirst[seg], nv = m.tileVFirst[seg + 1] - v0;
  for (int i = threadIdx.x; i < R + vmax + 1; i += VP_TILE_BLOCK) acc[i] = vp_identity();
  for (int i = threadIdx.x; i < nv; i += VP_TILE_BLOCK) vrowSh[i] = m.tileVRow[v0 + i];
  if (threadIdx.x == 0) vrowSh[vmax] = 0;  // the dummy's row (its folds are never read)
  __syncthreads();
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const int* wg = m.tileWarp + (long long)blockIdx.x * (VP_TILE_BLOCK / 32 + 1);
  const long long g0 = m.tileFirst[blockIdx.x] >> 5;
  const int ge = wg[warp + 1];
  const unsigned smask = (1u << sb) - 1u, dummy = (unsigned)(R + vmax);
  const bool wt = m.tileVal != nullptr;
  constexpr int C = VP_TILE_CHUNK;
  // A warp's stream of groups gs .. ge-1, a chunk of C groups at a time:
  // chunk k+1's entries, weights and base columns (lane q < C holding
  // group q's) load while chunk k gathers and folds. Past the stream's
  // end a chunk is filled with dummy entries (base column 0: they gather
  // X[0] and fold into the dummy slot, never read), so the gathers and
  // folds of every chunk run whole, without tests.
  const int gs = wg[warp], ng = ge - gs, nch = (ng + C - 1) / C;
  const unsigned* arcs = m.tileArcs + (g0 + gs) * 32 + lane;
  const float* vals = wt ? m.tileVal + (g0 + gs) * 32 + lane : nullptr;
  const int* bases = m.tileBase + g0 + gs;
  unsigned en[C];
  float wn[C];
  int bn;
  auto fetch = [&](int k) {
#pragma unroll
    for (int q = 0; q < C; q++) {
      const int g = k * C + q;
      en[q] = g < ng ? vp_stream(arcs + (long long)g * 32) : dummy;
      wn[q] = wt && g < ng ? vp_stream(vals + (long long)g * 32) : 1.0f;
    }
    bn = lane < C && k * C + lane < ng ? __ldg(bases + k * C + lane) : 0;
  };
  fetch(0);
  for (int k = 0; k < nch; k++) {
    unsigned e[C];
    int u[C];
    float w[C];
    X_t x[C];
    const int b = bn;
#pragma unroll
    for (int q = 0; q < C; q++) {
      e[q] = en[q];
      w[q] = wn[q];
    }
    fetch(k + 1);
#pragma unroll
    for (int q = 0; q < C; q++) u[q] = __shfl_sync(VP_FULL, b, q) + (int)(e[q] >> sb);
#pragma unroll
    for (int q = 0; q < C; q++) x[q] = vp_load_x<false, true>(c, u[q]);
#pragma unroll
    for (int q = 0; q < C; q++) {
      const unsigned sl = e[q] & smask;
      const int v = r0 + (sl < (unsigned)R ? (int)sl : vrowSh[sl - R]);
      acc[sl] = vp_gather(acc[sl], v, u[q], x[q], w[q], s);
      __syncwarp();  // the next group may fold into the slots of other lanes
    }
  }
  __syncthreads();
  for (int i = threadIdx.x; i < nv; i += VP_TILE_BLOCK) vp_atomic_reduce(acc + vrowSh[i], acc[R + i]);
  __syncthreads();
  for (int i = threadIdx.x; i < rows; i += VP_TILE_BLOCK) {
    const A_t v = acc[i];
    if (!multi) c.y[r0 + i] = v;
    else if (!vp_is_identity(v)) vp_atomic_reduce(c.y + r0 + i, v);
  }
#if VP_PROBE
  // Each tile's start and end (ns) and multiprocessor, to see how the
  // launch's tiles spread over the device (HPGRAPH_CUDA_PROBE=1).
  __syncthreads();
  if (threadIdx.x == 0) {
    unsigned long long t1;
    unsigned sm;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t1));
    asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
    c.probe[3 * blockIdx.x] = t0;
    c.probe[3 * blockIdx.x + 1] = t1;
    c.probe[3 * blockIdx.x + 2] = sm;
  }
#endif
#endif
}

// vp_push_one folds one pushed edge into row v. The thread that first
// changes the row from the identity lists it for APPLY (without waiting:
// APPLY takes each row once, vp_take_row).
// vp_loop's pushes (Guess) fold without asking vp_wants: its APPLY asks
// (a row's state may change while another block pushes to it).
template <bool Guess, typename Sink>
__device__ __forceinline__ void vp_push_one(const VP_Run& c, const Sink& tt, const State& s, int v, int u, const X_t& xu, float w) {
#if VP_HAS_WANTS
  if (!Guess && !vp_wants(v, s)) return;
#endif
  if (vp_fold<Guess>(tt.y + v, v, u, xu, w, s) == 2) tt.add(v);
}

// vp_edge reads edge e (in row order: ELL slots first) of row u, whose
// first ell edges are in ELL and the rest in COO from cb.
__device__ __forceinline__ void vp_edge(const VP_Mat& m, int u, int e, int ell, long long cb, int& v, float& w) {
  if (e < ell) {
    long long i = (long long)e * m.pitch + u;
    v = m.ellCol[i];
    w = m.ellVal ? m.ellVal[i] : 1.0f;
  } else {
    long long i = cb + (e - ell);
    v = m.cooCol[i];
    w = m.cooVal ? m.cooVal[i] : 1.0f;
  }
}

// vp_push_small pushes frontier vertex u of at most 8 edges with 8 lanes,
// lane l8 taking edge l8, so no thread waits on a chain of atomics edge
// after edge. A lane reads its ELL slot, the degree, the COO start and X
// at once, before it knows whether it has an edge: one round trip to
// memory where reading the degree first took two. Loop as vp_push_steps'.
template <bool Loop, typename Sink>
__device__ __forceinline__ void vp_push_small(const VP_Mat& m, const VP_Run& c, const State& s, int u, int l8, unsigned* front,
                                              const Sink& tt) {
  const long long ei = (long long)l8 * m.pitch + u;
  int v = l8 < m.k ? m.ellCol[ei] : -1;
  float w = l8 < m.k && m.ellVal ? m.ellVal[ei] : 1.0f;
  const long long cb = m.cooPtr[u];
  const int deg = c.pushDeg[u];
  X_t xu = vp_load_x<Loop>(c, u);
  if (l8 == 0 && front) front[u >> 5] = 0u;
  if (l8 >= deg) return;
  if (l8 >= m.k) vp_edge(m, u, l8, m.k, cb, v, w);
  vp_push_one<Loop>(c, tt, s, v, u, xu, w);
}

// vp_push_steps pushes superstep t over the queued frontier with work
// balanced by degree: heavy vertices' rows in chunks of pushChunk edges, a
// block each; medium ones a warp each; small ones 8 lanes each. The
// blocks are block bid of nb blocks of BS threads (a grid, or vp_loop's
// cluster), each work list in a stride loop over them, so any count is
// right. x_bitmask is cleared word by word for its next use as
// active_bitmask. The queues' lengths are words VP_R_SMALL.. of qr (the
// record of s-1, or a copy); touched rows go to tt. Loop (vp_loop): X is
// read with plain loads (vp_load_x) and folds guess (vp_fold).
template <int BS, bool Loop, typename Sink>
__device__ __forceinline__ void vp_push_steps(const VP_Mat& m, const VP_Run& c, const VP_St& t, const State& s,
                                              const unsigned long long* qr, int bid, int nb, const Sink& tt) {
  const long long nS = (long long)qr[VP_R_SMALL], nM = (long long)qr[VP_R_MEDIUM], nC = (long long)qr[VP_R_CHUNKS];
  const int* q = c.queue[t.p];
  const int2* hq = c.chunks[t.p];
  unsigned* front = c.mask[t.p];
  for (long long k = bid; k < nC; k += nb) {
    int2 it = hq[k];
    int u = it.x, deg = c.pushDeg[u];
    int ell = min(m.k, deg);
    long long cb = m.cooPtr[u];
    X_t xu = vp_load_x<Loop>(c, u);
    if (threadIdx.x == 0 && it.y == 0) front[u >> 5] = 0u;
    int e1 = min(it.y * c.pushChunk + c.pushChunk, deg);
    for (int e = it.y * c.pushChunk + threadIdx.x; e < e1; e += BS) {
      int v;
      float w;
      vp_edge(m, u, e, ell, cb, v, w);
      vp_push_one<Loop>(c, tt, s, v, u, xu, w);
    }
  }
  const long long gtid = (long long)bid * BS + threadIdx.x;
  const long long nthreads = (long long)nb * BS;
  const int lane = threadIdx.x & 31;
  for (long long k = gtid >> 5; k < nM; k += nthreads >> 5) {
    int u = q[c.n - 1 - k];
    int deg = c.pushDeg[u];
    int ell = min(m.k, deg);
    long long cb = m.cooPtr[u];
    X_t xu = vp_load_x<Loop>(c, u);
    if (lane == 0) front[u >> 5] = 0u;
    for (int e = lane; e < deg; e += 32) {
      int v;
      float w;
      vp_edge(m, u, e, ell, cb, v, w);
      vp_push_one<Loop>(c, tt, s, v, u, xu, w);
    }
  }
  const int l8 = threadIdx.x & 7;
  for (long long k = gtid >> 3; k < nS; k += nthreads >> 3) vp_push_small<Loop>(m, c, s, q[k], l8, front, tt);
}

// Push, the first kernel of a push superstep.
extern "C" __global__ void __launch_bounds__(VP_BLOCK) vp_push(VP_Mat m, VP_Run c, State s, VP_Arg a) {
  VP_St t = vp_st(c, a, true);
  if (!t.go) return;
  if (blockIdx.x == 0 && threadIdx.x == 0) t.rec[VP_R_RAN] = 1;
  vp_push_steps<VP_BLOCK, false>(m, c, t, s, t.prev, blockIdx.x, gridDim.x, VP_Touch{c.y, c.touchedList, t.rec + VP_R_TOUCHED});
}

// vp_take_row takes touched row v for APPLY: it swaps the row's
// accumulator for the identity, one atomic where a touched bitmap took an
// atomic and a read. Of a row listed twice (a gather brought it back to
// the identity and another changed it again) the second taker finds the
// identity and skips it, as it skips a row whose gathers came back to the
// identity: push supersteps are for Sparse programs, whose Update of the
// identity changes nothing. It returns whether the row has an
// accumulator, in acc.
__device__ __forceinline__ bool vp_take_row(A_t* y, int v, A_t& acc) {
#if VP_ASIZE == 4 || VP_ASIZE == 8
  vp_abits id, got;
  id.a = vp_identity();
  got.b = atomicExch(reinterpret_cast<vp_aword*>(y + v), id.b);
  acc = got.a;
  return got.b != id.b;
#else
  return false;  // never launched: the engine pushes only 4- and 8-byte accumulators
#endif
}

// APPLY after a push, the last kernel of a push superstep: Update on the
// rows the push touched (listed by vp_push_one; they go back to the
// identity), queueing the vertices it activates for the next push.
extern "C" __global__ void __launch_bounds__(VP_BLOCK) vp_apply_push(VP_Mat m, VP_Run c, State s, VP_Arg a) {
  VP_St t = vp_st(c, a, true);
  vp_next_record(c, t);
  if (!t.go) return;
  __shared__ double agg[VP_BLOCK_AGG];
  double* blk = vp_agg_begin(c, agg);
  const long long cnt = (long long)t.rec[VP_R_TOUCHED];
  // Whole blocks loop together (vp_emit synchronizes the block).
  for (long long base = (long long)blockIdx.x * VP_BLOCK; base < cnt; base += (long long)gridDim.x * VP_BLOCK) {
    long long i = base + threadIdx.x;
    bool act = false;
    int v = 0, deg = 0;
    A_t acc;
    if (i < cnt) {
      v = c.touchedList[i];
      const int d = c.pushDeg[v];  // (read with the swap, not after it)
      if (vp_take_row(c.y, v, acc) && (act = vp_update_at(c, t, s, v, acc, blk))) {
        atomicOr(c.mask[t.p ^ 1] + (v >> 5), 1u << (v & 31));
        deg = d;
      }
    }
    vp_emit(c, t.rec, t.rec, c.queue[t.p ^ 1], c.chunks[t.p ^ 1], v, act, deg);
  }
  vp_agg_flush(c, t, blk);
}

// vp_loop runs push supersteps ctl[0] + a.j, ... (up to a.op of them) in
// one launch of one thread block cluster (or one block): on a
// high-diameter graph a superstep is a few thousand edges, and two kernel
// launches cost more than its work. Every row has a home block
// (vp_home), which applies it in every superstep of the launch. A push
// lists the rows it changes from the identity in their home blocks'
// touched lists (distributed shared memory); a block's APPLY of superstep
// s queues the vertices it activates in its own frontier (those of up to
// VP_LOOP_SMALL edges for 8 lanes each, bigger ones as warp chunks of
// VP_LOOP_CHUNK edges), and the block pushes them, superstep s+1, right
// away, into the other of two accumulator arrays (y in the launch's even
// supersteps, yLoop in its odd ones). So a superstep waits on one cluster
// barrier and three trips to memory: APPLY's swap (with the row's X,
// degree and vp_wants), the push's matrix and X, its folds. Each block
// writes its counts into every block's shared memory before its push
// (the stores overlap it), so after the barrier every block knows the
// superstep's totals. vp_wants is asked
// in APPLY, not before a fold: a row's state changes only in its home
// block, but another block may push to it before it changes.
//
// Block 0 writes each superstep's record for the host. A block pushes its
// frontier only while it has at most lim edges (a.lim, at most
// VP_LOOP_CAP; its chunks then fit: at most E/VP_LOOP_CHUNK +
// E/(VP_LOOP_SMALL+1) < VP_LOOP_CCAP for E <= VP_LOOP_CAP edges). A
// block applies at most VP_LOOP_CAP rows, so its frontier fits too; a row
// that finds its home's touched list full goes to the run's touchedList.
// The loop stops after a superstep whose frontier would not run in a
// batch (the first superstep, unless a.batched, runs whatever its
// frontier), has more than lim edges, was not pushed by some block, or
// filled a touched list, and after the a.op-th: it takes back the pushes
// of the next superstep (their rows go back to the identity) and leaves
// its frontier in the run's queues, where the grid-wide kernels take it;
// the record then counts what it left there.
//
// Delta-stepping (VP_HAS_PRIORITY, Spec.Delta): a vertex activated with a
// priority (vp_priority) of `bound` or more waits in its block's far list
// instead of joining the frontier; bound starts at the lowest priority of
// the loop's second frontier plus delta. When the frontier empties, the
// loop advances: bound becomes the lowest priority in the far lists plus
// delta, and the far vertices below it are the next frontier. farBits
// marks the vertices in far lists, so each is listed once (and a vertex
// activated below bound drops its stale far entry). A full far list, and
// the grid-wide kernels, defer nothing: the programs that declare a Delta
// reach the same result in any order.
#define VP_LOOP_BLOCK 1024
#define VP_LOOP_MAX 16     // blocks of the cluster
#define VP_LOOP_CAP 16384  // touched rows (each list), and frontier vertices, a block holds
#define VP_LOOP_CCAP 2048  // warp chunks a block holds
#define VP_LOOP_FCAP 2048  // far vertices a block holds
#define VP_LOOP_SMALL 8
#define VP_LOOP_CHUNK 128
// The rows a touched list takes before the rest spill (tests set it low).
#ifndef VP_LOOP_LIST
#define VP_LOOP_LIST VP_LOOP_CAP
#endif
// Dynamic shared memory: two touched lists, frontier vertices (small ones
// from the front, big ones from the back), chunks, then (delta-stepping)
// the far list.
#define VP_LOOP_SHARED_BASE 212992
#define VP_LOOP_SHARED_FAR 16384
static_assert(VP_LOOP_SHARED_BASE == VP_LOOP_CAP * 4 * 3 + VP_LOOP_CCAP * 8, "hpgraph: vp_loop's shared memory");
static_assert(VP_LOOP_SHARED_FAR == VP_LOOP_FCAP * 8, "hpgraph: vp_loop's far list");

// vp_cluster_sync waits for every thread of the cluster, the block's
// earlier writes (global, shared, and other blocks' shared memory)
// visible to the cluster after it.
__device__ __forceinline__ void vp_cluster_sync(int nb) {
#if __CUDA_ARCH__ >= 900
  if (nb > 1) {
    asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
    return;
  }
#endif
  __syncthreads();
}

// vp_peer is the address of p's shared variable in block r of the cluster.
template <typename T>
__device__ __forceinline__ T* vp_peer(T* p, int r, int nb) {
#if __CUDA_ARCH__ >= 900
  if (nb > 1) {
    unsigned long long q;
    asm volatile("mapa.u64 %0, %1, %2;" : "=l"(q) : "l"(p), "r"(r));
    return reinterpret_cast<T*>(q);
  }
#endif
  return p;
}

// vp_home is row v's home block of nb (a multiplicative hash, so that any
// run of ids spreads over the blocks).
__device__ __forceinline__ int vp_home(int v, int nb) {
  return (int)(((unsigned long long)((unsigned)v * 2654435761u) * (unsigned)nb) >> 32);
}

// VP_Route is where vp_loop's pushes fold (y) and list the rows they
// change from the identity: the touched list of the row's home block
// (list and n are this block's addresses of the list and its count), or
// when that is full the run's touchedList (count ctl[3]), and the pushing
// thread raises the block's spill flag in every block (spilled: this
// block's address of its published counts' flag word): the loop stops
// after such a superstep.
struct VP_Route {
  A_t* y;
  int* list;
  unsigned* n;
  int nb;
  int* spill;
  int* nSpill;
  unsigned long long* spilled;
  __device__ __forceinline__ void add(int v) const {
    const int h = vp_home(v, nb);
    const unsigned i = atomicAdd(vp_peer(n, h, nb), 1u);
    if (i < VP_LOOP_LIST) {
      vp_peer(list, h, nb)[i] = v;
    } else {
      spill[atomicAdd(nSpill, 1)] = v;
      for (int r = 0; r < nb; r++) *vp_peer(spilled, r, nb) = 1;
    }
  }
};

// vp_fkey maps floats to unsigned keys in the same order (priorities'
// minima by integer atomics and reductions); vp_funkey maps back.
__device__ __forceinline__ unsigned vp_fkey(float f) {
  const unsigned b = __float_as_uint(f);
  return b & 0x80000000u ? ~b : b | 0x80000000u;
}
__device__ __forceinline__ float vp_funkey(unsigned k) { return __uint_as_float(k & 0x80000000u ? k & 0x7fffffffu : ~k); }

// A block's counts in vp_loop (32-bit words: the shared memory atomics
// on them are native).
struct VP_LoopOwn {
  // Push edges of the vertices activated, exact up to VP_LOOP_CAP (the
  // loop only compares them with lim): each vertex counts at most
  // VP_LOOP_CAP + 1, and a block queues at most VP_LOOP_CAP + VP_LOOP_FCAP
  // vertices a superstep, so the count stays below 2^29.
  unsigned edges;
  // Queued small vertices (low 16 bits) and big ones (high 16: a block
  // queues at most VP_LOOP_CAP + VP_LOOP_FCAP < 65536 a superstep).
  unsigned sb;
  unsigned nC;  // chunks (may pass VP_LOOP_CCAP)
  __device__ unsigned nS() const { return sb & 0xffffu; }
  __device__ unsigned nB() const { return sb >> 16; }
  unsigned nF;               // far list entries (may pass VP_LOOP_FCAP; kept across supersteps)
  unsigned pmin;             // lowest priority key (vp_fkey) of the vertices queued, or in the far list
};

// The loop's state shared by a block's threads.
struct VP_LoopShared {
  VP_LoopOwn own;
  unsigned tn[2];  // rows in the block's two touched lists (every block's pushes add to them)
  // Written by block r (distributed shared memory): its activated | edges
  // << 32, whether it left its frontier unpushed, whether a push found a
  // touched list full (set once: the loop then stops), far entries | pmin
  // << 32. Two copies, used in turn: a block may publish again while
  // another still reads the last counts.
  unsigned long long peer[2][VP_LOOP_MAX][4];
  // The cluster's totals (vp_loop_totals).
  unsigned long long edges;
  unsigned act, nF, pmin;
  bool over;
  int nS, nB;                         // the block's queued vertices (for vp_loop_flush)
  unsigned long long prev[VP_R_AGG];  // the first superstep's queue lengths (record s0-1)
  bool go;
};

// vp_loop_push pushes the block's own frontier (a superstep after the
// loop's first): a warp per chunk, 8 lanes per small vertex. X of its
// vertices was written by this block's APPLY.
__device__ __forceinline__ void vp_loop_push(const VP_Mat& m, const VP_Run& c, const State& s, const int* fq, const int2* cq, int nS,
                                             int nC, const VP_Route& tt) {
  const int lane = threadIdx.x & 31;
  for (int k = threadIdx.x >> 5; k < nC; k += VP_LOOP_BLOCK >> 5) {
    const int2 it = cq[k];
    const int u = it.x, e0 = it.y;
    const int deg = c.pushDeg[u], ell = min(m.k, deg);
    const long long cb = m.cooPtr[u];
    const X_t xu = vp_load_x<true>(c, u);
    const int e1 = min(e0 + VP_LOOP_CHUNK, deg);
    for (int e = e0 + lane; e < e1; e += 32) {
      int v;
      float w;
      vp_edge(m, u, e, ell, cb, v, w);
      vp_push_one<true>(c, tt, s, v, u, xu, w);
    }
  }
  const int l8 = threadIdx.x & 7;
  for (int k = threadIdx.x >> 3; k < nS; k += VP_LOOP_BLOCK >> 3) vp_push_small<true>(m, c, s, fq[k], l8, nullptr, tt);
}

// vp_loop_queue appends the vertices a warp activates (act, with their
// push degrees) to the block's frontier for superstep t+1 (the active
// bitmask is set only when the loop stops: vp_loop_flush). Warps combine
// their counts and queue slots first: per warp one shared atomic for both
// queues' slots and one for the edges (same-address atomics of a whole
// block took longer than the rest of the superstep), the degrees summed
// by one warp reduction. Whole warps call it.
__device__ __forceinline__ void vp_loop_queue(int* fq, int2* cq, VP_LoopOwn& own, int v, bool act, int deg) {
  const int lane = threadIdx.x & 31;
  const unsigned lt = (1u << lane) - 1u;
  const bool sm = act && deg <= VP_LOOP_SMALL, big = act && deg > VP_LOOP_SMALL;
  const unsigned bs = __ballot_sync(VP_FULL, sm), bb = __ballot_sync(VP_FULL, big);
  if (!(bs | bb)) return;
  // (each lane's degree capped: the sum only needs to be exact up to lim)
  const unsigned e = __reduce_add_sync(VP_FULL, act ? (unsigned)min(deg, VP_LOOP_CAP + 1) : 0u);
  unsigned o = 0;
  if (lane == 0) {
    atomicAdd(&own.edges, e);
    o = atomicAdd(&own.sb, (unsigned)(__popc(bs) | __popc(bb) << 16));
  }
  o = __shfl_sync(VP_FULL, o, 0);
  const unsigned os = o & 0xffffu, ob = o >> 16;
  if (sm) fq[os + __popc(bs & lt)] = v;
  if (!big) return;
  fq[VP_LOOP_CAP - 1 - (ob + __popc(bb & lt))] = v;
  // (k is capped so that nC cannot wrap around: a block queues at most
  // VP_LOOP_CAP vertices)
  const unsigned k = min((deg + VP_LOOP_CHUNK - 1) / VP_LOOP_CHUNK, VP_LOOP_CCAP + 1);
  const unsigned p = atomicAdd(&own.nC, k);
  if (p + k <= VP_LOOP_CCAP)
    for (unsigned q = 0; q < k; q++) cq[p + q] = make_int2(v, q * VP_LOOP_CHUNK);
}

// vp_loop_apply runs Update on the cnt rows of touched list tl (taking
// them from y) that vp_wants accepts, and queues the vertices it
// activates in the block's frontier, or (priority of bound or more) in its
// far list. With j0 (the loop's first superstep) it keeps the lowest
// priority queued.
__device__ __forceinline__ void vp_loop_apply(const VP_Run& c, const VP_St& t, const State& s, const int* tl, int cnt, A_t* y, int* fq,
                                              int2* cq, int2* far, VP_LoopShared& sh, float bound, bool j0, double* blk) {
  VP_LoopOwn& own = sh.own;
  // Whole warps loop together (ballots).
  for (int base = 0; base < cnt; base += VP_LOOP_BLOCK) {
    const int i = base + threadIdx.x;
    bool act = false;
    int v = 0, deg = 0;
    if (i < cnt) {
      v = tl[i];
      deg = c.pushDeg[v];
      X_t xv = vp_load_x<true>(c, v);  // (both read with the swap, not after it)
#if VP_HAS_PRIORITY
      // v's far bit changes only in its home block, and in this phase only
      // here (v is applied once), so it can be read with the swap, and
      // the bit set or cleared below without waiting for the word.
      const unsigned fbits = __ldcg(c.farBits + (v >> 5));
#endif
      bool want = true;
#if VP_HAS_WANTS
      want = vp_wants(v, s);  // (read with the swap too)
#endif
      A_t acc;
      if (vp_take_row(y, v, acc) && want) {
        Step st = vp_step(c, t, blk);
        act = vp_update(v, acc, &xv, s, st);
#if VP_XSIZE > 0
        c.x[v] = xv;
#endif
#if VP_HAS_PRIORITY
        if (act) {
          const float pr = vp_priority(v, xv, s);
          const unsigned bit = 1u << (v & 31);
          unsigned* fw = c.farBits + (v >> 5);
          if (!(pr < bound)) {
            if (fbits & bit) {
              act = false;  // listed far already
            } else {
              const unsigned f = atomicAdd(&own.nF, 1u);
              if (f < VP_LOOP_FCAP) {  // (no room: it goes on now)
                atomicOr(fw, bit);
                far[f] = make_int2(v, __float_as_int(pr));
                act = false;
              }
            }
          } else if (fbits & bit) {
            atomicAnd(fw, ~bit);  // (a far entry of v is stale now)
          }
          if (act && j0) atomicMin(&own.pmin, vp_fkey(pr));
        }
#endif
      }
    }
    vp_loop_queue(fq, cq, own, v, act, deg);
  }
}

#if VP_HAS_PRIORITY
// vp_loop_far_min rereads the block's far entries (a vertex's priority
// may have dropped since it was listed; an entry whose vertex left the far
// set becomes -1) and keeps their lowest priority in own.pmin.
__device__ __forceinline__ void vp_loop_far_min(const VP_Run& c, const State& s, int2* far, VP_LoopShared& sh) {
  const int nF = min(sh.own.nF, VP_LOOP_FCAP);
  unsigned key = 0xffffffffu;
  for (int i = threadIdx.x; i < nF; i += VP_LOOP_BLOCK) {
    const int v = far[i].x;
    const bool in = (c.farBits[v >> 5] >> (v & 31)) & 1u;
    const float pr = vp_priority(v, vp_load_x<true>(c, v), s);
    far[i] = make_int2(in ? v : -1, __float_as_int(pr));
    if (in) key = min(key, vp_fkey(pr));
  }
  key = __reduce_min_sync(VP_FULL, key);
  if ((threadIdx.x & 31) == 0 && key != 0xffffffffu) atomicMin(&sh.own.pmin, key);
}

// vp_loop_far_take queues the block's far vertices below bound as the
// frontier of superstep t+1 and keeps the rest (compacted in place: each
// pass reads before it writes, and writes no further than it read).
__device__ __forceinline__ void vp_loop_far_take(const VP_Run& c, int* fq, int2* cq, int2* far, VP_LoopShared& sh,
                                                 float bound) {
  const int nF = min(sh.own.nF, VP_LOOP_FCAP);
  __shared__ unsigned kept;
  if (threadIdx.x == 0) kept = 0;
  __syncthreads();
  for (int base = 0; base < nF; base += VP_LOOP_BLOCK) {
    const int i = base + threadIdx.x;
    int2 f = i < nF ? far[i] : make_int2(-1, 0);
    const bool take = f.x >= 0 && __int_as_float(f.y) < bound, keep = f.x >= 0 && !take;
    int deg = 0;
    if (take) {
      atomicAnd(c.farBits + (f.x >> 5), ~(1u << (f.x & 31)));
      deg = c.pushDeg[f.x];
    }
    __syncthreads();
    if (keep) far[vp_agg_inc(&kept)] = f;
    vp_loop_queue(fq, cq, sh.own, f.x, take, deg);
  }
  __syncthreads();
  if (threadIdx.x == 0) sh.own.nF = kept;
}
#endif

// vp_loop_flush queues a block's frontier (small vertices, big ones, and
// the far list's) in the run's queues and active bitmask for superstep
// t+1 and counts them in t's record, where the grid-wide kernels and the
// host read them.
__device__ __forceinline__ void vp_loop_flush(const VP_Run& c, const VP_St& t, const int* fq, const int2* far, int nS, int nB, int nF) {
  // Whole blocks loop together (vp_emit synchronizes the block).
  for (int base = 0; base < nS + nB + nF; base += VP_LOOP_BLOCK) {
    const int i = base + threadIdx.x;
    bool in = i < nS + nB + nF;
    int v = 0, deg = 0;
    if (in) {
      if (i < nS + nB) {
        v = i < nS ? fq[i] : fq[VP_LOOP_CAP - 1 - (i - nS)];
        atomicOr(c.mask[t.p ^ 1] + (v >> 5), 1u << (v & 31));
      } else {
        // A far vertex still in the far set joins the frontier.
        v = far[i - nS - nB].x;
        const unsigned bit = 1u << (v & 31);
        in = atomicAnd(c.farBits + (v >> 5), ~bit) & bit;
        if (in) atomicOr(c.mask[t.p ^ 1] + (v >> 5), bit);
      }
      if (in) deg = c.pushDeg[v];
    }
    vp_emit(c, t.rec, t.rec, c.queue[t.p ^ 1], c.chunks[t.p ^ 1], v, in, deg);
  }
}

// vp_loop_publish writes the block's counts (over: it leaves its
// frontier unpushed) into every block's shared memory, where
// vp_loop_totals reads them after the next cluster barrier. The block
// synchronizes before (own is complete).
__device__ __forceinline__ void vp_loop_publish(VP_LoopShared& sh, int bid, int nb, int ph, bool over) {
  if (threadIdx.x < nb) {
    const VP_LoopOwn& o = sh.own;
    unsigned long long* p = vp_peer(&sh.peer[ph & 1][bid][0], threadIdx.x, nb);
    // (edges capped too: the cluster's sum stays exact up to VP_LOOP_CAP
    // and fits 32 bits)
    p[0] = (o.nS() + o.nB()) | (unsigned long long)min(o.edges, VP_LOOP_CAP + 1) << 32;
    p[1] = over;
    p[3] = min(o.nF, VP_LOOP_FCAP) | (unsigned long long)o.pmin << 32;
  }
}

// vp_loop_totals: warp 0 sums the blocks' counts (lane r: block r's) and
// starts the block's next counts (the far list stays). The block
// synchronizes before it reads them.
__device__ __forceinline__ void vp_loop_totals(VP_LoopShared& sh, int nb, int ph) {
  if (threadIdx.x >= 32) return;
  const unsigned long long(*peer)[4] = sh.peer[ph & 1];
  const int r = threadIdx.x;
  const bool in = r < nb;
  const unsigned edges = __reduce_add_sync(VP_FULL, in ? (unsigned)(peer[r][0] >> 32) : 0u);
  const unsigned act = __reduce_add_sync(VP_FULL, in ? (unsigned)peer[r][0] : 0u);
  const unsigned nF = __reduce_add_sync(VP_FULL, in ? (unsigned)peer[r][3] : 0u);
  const unsigned pmin = __reduce_min_sync(VP_FULL, in ? (unsigned)(peer[r][3] >> 32) : 0xffffffffu);
  const bool over = __any_sync(VP_FULL, in && (peer[r][1] | peer[r][2]));
  if (r == 0) {
    sh.act = act;
    sh.edges = edges;
    sh.nF = nF;
    sh.pmin = pmin;
    sh.over = over;
    sh.nS = sh.own.nS();
    sh.nB = sh.own.nB();
    const unsigned keep = sh.own.nF;
    sh.own = VP_LoopOwn{};
    sh.own.nF = keep;
    sh.own.pmin = 0xffffffffu;
  }
}

extern "C" __global__ void __launch_bounds__(VP_LOOP_BLOCK, 1) vp_loop(VP_Mat m, VP_Run c, State s, VP_Arg a) {
  int bid = 0, nb = 1;
#if __CUDA_ARCH__ >= 900
  asm("mov.u32 %0, %%cluster_ctarank;" : "=r"(bid));
  asm("mov.u32 %0, %%cluster_nctarank;" : "=r"(nb));
#endif
  extern __shared__ int4 vp_loop_dyn[];
  int* tl0 = reinterpret_cast<int*>(vp_loop_dyn);  // touched lists: tl0, tl0 + VP_LOOP_CAP
  int* fq = tl0 + 2 * VP_LOOP_CAP;
  int2* cq = reinterpret_cast<int2*>(fq + VP_LOOP_CAP);
  int2* far = cq + VP_LOOP_CCAP;
  __shared__ double agg[VP_BLOCK_AGG];
  __shared__ VP_LoopShared sh;
  const int s0 = c.ctl[0] + a.j;
  const unsigned long long lim = min(a.lim, VP_LOOP_CAP), batchEdges = (unsigned long long)c.ctl[2];
  const float inf = __int_as_float(0x7f800000);
  float bound = inf;  // delta-stepping: activations of this priority or more wait
  int ph = 0;         // counts published so far
  VP_St t = vp_st_at(c, s0, a.batched, true);
  if (threadIdx.x == 0) {
    // (the first superstep pushes cluster-wide: with at most
    // VP_LOOP_LIST edges no touched list overflows)
    sh.go = t.go && t.prev[VP_R_EDGES] <= min(lim, (unsigned long long)VP_LOOP_LIST);
    for (int i = VP_R_SMALL; i <= VP_R_CHUNKS; i++) sh.prev[i] = t.prev[i];
    sh.own = VP_LoopOwn{};
    sh.own.pmin = 0xffffffffu;
    sh.tn[0] = sh.tn[1] = 0;
    if (bid == 0) c.ctl[3] = 0;
  }
  if (threadIdx.x < 2 * VP_LOOP_MAX) sh.peer[threadIdx.x / VP_LOOP_MAX][threadIdx.x % VP_LOOP_MAX][2] = 0;  // (spill flags)
  __syncthreads();
  if (!sh.go) return;
#if VP_PROBE
  // Cycles a superstep spends in each phase, block 0's view (the marks
  // synchronize the block first).
  long long probe[5] = {0, 0, 0, 0, 0}, probeAt = clock64();
#define VP_PROBE_MARK(i)           \
  do {                             \
    __syncthreads();               \
    const long long q = clock64(); \
    probe[i] += q - probeAt;       \
    probeAt = q;                   \
  } while (0)
#define VP_PROBE_PRINT(j)                                                                                                   \
  if (bid == 0 && threadIdx.x == 0)                                                                                         \
    printf("vp_loop probe: %d supersteps, cycles a superstep: apply %lld push %lld barrier %lld totals %lld far %lld; " \
           "stopped at %u active, %llu edges, over %d\n",                                                             \
           (j), probe[0] / (j), probe[1] / (j), probe[2] / (j), probe[3] / (j), probe[4] / (j), sh.act, sh.edges, (int)sh.over)
#else
#define VP_PROBE_MARK(i)
#define VP_PROBE_PRINT(j)
#endif
  // Every block's counts are zero before any push adds to them.
  vp_cluster_sync(nb);
  if (bid == 0 && threadIdx.x == 0) {
    t.rec[VP_R_RAN] = 1;
    vp_next_record(c, t);
  }
  // The first superstep pushes from the run's queues, cluster-wide.
  vp_push_steps<VP_LOOP_BLOCK, true>(m, c, t, s, sh.prev, bid, nb, VP_Route{c.y, tl0, &sh.tn[0], nb, c.touchedList, c.ctl + 3, &sh.peer[0][bid][2]});
  VP_PROBE_MARK(1);
  vp_cluster_sync(nb);
  VP_PROBE_MARK(2);
  for (int j = 0;; j++) {
    // Superstep s0+j folded into y and listed its rows in tl; its APPLY
    // pushes the next one into yNext and tlNext.
    const int p = j & 1;
    A_t* const y = p ? c.yLoop : c.y;
    A_t* const yNext = p ? c.y : c.yLoop;
    int* const tl = tl0 + p * VP_LOOP_CAP;
    int* const tlNext = tl0 + (p ^ 1) * VP_LOOP_CAP;
    if (j > 0) {
      // (the next record of the ring, without vp_record's division)
      t.s = s0 + j;
      t.p = t.s & 1;
      t.prev = t.rec;
      t.rec = t.rec + c.recWords == c.rec + (long long)c.ring * c.recWords ? c.rec : t.rec + c.recWords;
    }
    if (j > 0 && bid == 0 && threadIdx.x == 0) {
      t.rec[VP_R_RAN] = 1;
      vp_next_record(c, t);
    }
    const int cnt = (int)sh.tn[p];
    if (cnt > VP_LOOP_LIST) __trap();  // (a superstep whose pushes spilled is taken back, not applied)
    double* blk = vp_agg_begin(c, agg);
    vp_loop_apply(c, t, s, tl, cnt, y, fq, cq, far, sh, bound, j == 0, blk);
    vp_agg_flush(c, t, blk);
    // (the pushes that fill tl again come after the next barrier)
    __syncthreads();
    if (threadIdx.x == 0) sh.tn[p] = 0;
    VP_PROBE_MARK(0);
    for (bool advanced = false;;) {
      // Push superstep s0+j+1 from the block's frontier, if it may, after
      // publishing the counts (their stores then overlap the push).
      const bool fits = sh.own.edges <= lim;
      vp_loop_publish(sh, bid, nb, ph, sh.own.sb > 0 && !fits);
      if (fits && j + 1 < a.op)
        vp_loop_push(m, c, s, fq, cq, (int)sh.own.nS(), (int)sh.own.nC,
                     VP_Route{yNext, tlNext, &sh.tn[p ^ 1], nb, c.touchedList, c.ctl + 3, &sh.peer[ph & 1][bid][2]});
      VP_PROBE_MARK(1);
      vp_cluster_sync(nb);
      VP_PROBE_MARK(2);
      vp_loop_totals(sh, nb, ph++);
      __syncthreads();
      VP_PROBE_MARK(3);
#if VP_HAS_PRIORITY
      // The loop's second frontier sets the first bound.
      if (j == 0 && !advanced && sh.act > 0) bound = vp_funkey(sh.pmin) + c.delta;
      if (sh.act == 0 && sh.nF > 0 && !advanced) {
        // Advance: the far lists' lowest priority sets the bound; below it,
        // they are the next frontier, pushed as above.
        vp_loop_far_min(c, s, far, sh);
        __syncthreads();
        vp_loop_publish(sh, bid, nb, ph, false);
        vp_cluster_sync(nb);
        vp_loop_totals(sh, nb, ph++);
        __syncthreads();
        bound = sh.pmin == 0xffffffffu ? inf : vp_funkey(sh.pmin) + c.delta;
        vp_loop_far_take(c, fq, cq, far, sh, bound);
        __syncthreads();  // (far_take's last count)
        advanced = true;
        VP_PROBE_MARK(4);
        continue;
      }
#endif
      break;
    }
    const bool go = sh.act > 0 && (sh.act * VP_SMALL_FRONTIER < (unsigned long long)c.n || sh.edges < batchEdges) &&
                    sh.edges <= lim && !sh.over && j + 1 < a.op;
    if (go) {
      if (bid == 0 && threadIdx.x == 0) {
        t.rec[VP_R_ACTIVE] = sh.act;
        t.rec[VP_R_EDGES] = sh.edges;
      }
      continue;
    }
    // Take back the next superstep's pushes (the rows they listed here,
    // and a share of those in touchedList).
    const int undo = (int)min(sh.tn[p ^ 1], VP_LOOP_LIST), spilled = __ldcg(c.ctl + 3);
    for (int i = threadIdx.x; i < undo; i += VP_LOOP_BLOCK) yNext[tlNext[i]] = vp_identity();
    for (int i = bid * VP_LOOP_BLOCK + threadIdx.x; i < spilled; i += nb * VP_LOOP_BLOCK) yNext[c.touchedList[i]] = vp_identity();
    if (sh.act + sh.nF > 0) vp_loop_flush(c, t, fq, far, sh.nS, sh.nB, sh.own.nF < VP_LOOP_FCAP ? sh.own.nF : VP_LOOP_FCAP);
    VP_PROBE_PRINT(j + 1);
    return;
  }
}
