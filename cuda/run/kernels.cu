// The kernel template, part 1 of 8: what every kernel shares — the run's
// device state, the superstep a kernel works on, loads of X, the gathers
// and their batches. The parts, joined in this order (source.go, each
// without this header: the lines up to its first blank line):
//   kernels.cu           this part
//   kernels_init.cu      set-up kernels: the superstep base, fills, vp_init
//   kernels_pull.cu      the pull: ELL, COO (bins, heavy rows), APPLY
//   kernels_frontier.cu  records to the host, the push frontier, atomic folds
//   kernels_tiles.cu     the pull by column-sorted tiles (GatherAll programs)
//   kernels_push.cu      the grid-wide push and its APPLY
//   kernels_loop.cu      vp_loop: push supersteps in one cluster launch
//   kernels_parts.cu     the exchange between a partitioned run's parts

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

#include "scan.cuh"
#include "read.cuh"

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
  // What an activated vertex adds to the frontier's edges: its whole-graph
  // push degree (pushDeg, unless the run is one part of a partitioned
  // run, whose push matrix holds only the arcs into the part).
  const int* frontDeg;
  int lo, hi;  // the rows APPLY updates: [0, n), or a part's
  // [lo, rowsEnd): the rows a pull and its APPLY update. A Sparse program
  // without aggregators skips [rowsEnd, hi), rows without arcs in (last
  // when numbered by degree), whose x_bitmask words APPLY only clears.
  int rowsEnd, pad;
};

struct VP_Arg {
  int j;        // superstep ctl[0] + j (vp_ctl: the value)
  int batched;  // 1: part of a batch (stops while the frontier is large)
  int op;       // vp_ctl: 0 sets ctl[0], 1 adds to ctl[0], 2 sets ctl[1], 3 sets ctl[2]; vp_loop: supersteps
  int lim;      // vp_loop: the most frontier edges it pushes
};

static_assert(sizeof(VP_Run) == 216, "hpgraph: VP_Run layout");
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
  return (w >> (u & 31)) & 1u;
#else
  return vp_bit(c.mask[t.p], u);
#endif
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
  if (Ldg && sizeof(X_t) == 8) {
    X_t v;
    unsigned* w = reinterpret_cast<unsigned*>(&v);
    const uint2 b = __ldg(reinterpret_cast<const uint2*>(c.x + u));
    w[0] = b.x;
    w[1] = b.y;
    return v;
  }
  if (Ldg) return vp_ldg_x(c.x, u);
#if VP_TEXTURE_X
  X_t v;
  unsigned* w = reinterpret_cast<unsigned*>(&v);
#pragma unroll
  for (int i = 0; i < VP_XSIZE / 4; i++)
    w[i] = tex1Dfetch<unsigned>((cudaTextureObject_t)c.xTex, u * (VP_XSIZE / 4) + i);
  return v;
#else
  return vp_ldg_x(c.x, u);
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

