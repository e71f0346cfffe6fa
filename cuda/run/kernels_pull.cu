// The kernel template, part 3 of 8 (after kernels_init.cu): a pull
// superstep — ELL by rows, COO by bins of row lengths and heavy rows in
// chunks, then APPLY.

// ELL pull, the first kernel of a pull superstep: one thread per row, slot
// k of consecutive rows at consecutive addresses. Writes every wanted row's
// y (the identity when it gathers nothing), so it also initializes y for
// the COO kernel.
extern "C" __global__ void __launch_bounds__(VP_BLOCK) vp_pull_ell(VP_Mat m, VP_Run c, State s, VP_Arg a) {
  VP_St t = vp_st(c, a, false);
  if (!t.go) return;
  if (blockIdx.x == 0 && threadIdx.x == 0) t.rec[VP_R_RAN] = 1;
  // (the run's rows: a part's, [c.lo, c.hi), or all, but rowsEnd)
  int r = c.lo + blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= c.rowsEnd) return;
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
// most of a late BFS superstep
// (docs/perf/gpu-kernels.md#listed-coo-pulls-for-programs-whose-rows-drop-out).
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

// vp_emit counts the block's activated vertices and their frontier edges
// (edges: their whole-graph push degrees, which for one part of a
// partitioned run are not its own matrix's, deg) into record cnt (unless
// null) and appends them to a frontier's queues by deg (unless q is null;
// the queue counts are in record qr): small ones
// to the front of q, medium ones to its back, heavy ones as chunks to hq.
// Warps combine in shared memory first, so a block makes one global
// atomic per counter: a 2M-vertex APPLY made 130k atomics on two
// addresses, which took longer than the pull. Every thread of the block
// must call it (it synchronizes the block).
// A heavy vertex's chunks are placed the same way, by a scan of the warp's
// chunk counts: one global atomic a heavy vertex, all on one counter, took
// 0.4 ms of kron25's first BFS superstep (its hub's neighbours).
__device__ __forceinline__ void vp_emit(const VP_Run& c, unsigned long long* cnt, unsigned long long* qr, int* q, int2* hq,
                                        int v, bool act, int deg, int edges) {
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
  const unsigned long long kin = hp_warp_scan(k);  // inclusive scan of the warp's chunk counts
  const unsigned long long kw = __shfl_sync(VP_FULL, kin, 31);
  unsigned long long e = act ? (unsigned long long)edges : 0ULL;
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
// block per 256 rows;
// docs/perf/gpu-kernels.md#applys-counts-per-block). The previous superstep's
// aggregates are read once, and a thread folds what its rows add to them
// in registers, combined once at the end
// (docs/perf/gpu-kernels.md#applys-aggregators-at-compile-time).
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
  // (the run's rows, [c.lo, c.hi): a part's start at a word's first bit,
  // so each warp's rows are one word of the bitmasks; a part's other words
  // of x_bitmask are cleared by the host after the superstep)
  for (int b = c.lo + blockIdx.x * (VP_BLOCK * VP_APPLY_ROWS); b < c.rowsEnd; b += gridDim.x * (VP_BLOCK * VP_APPLY_ROWS)) {
    A_t acc[VP_APPLY_ROWS];
    bool want[VP_APPLY_ROWS];
#pragma unroll
    for (int q = 0; q < VP_APPLY_ROWS; q++) {
      const int v = b + q * VP_BLOCK + threadIdx.x;
      want[q] = v >= c.lo && v < c.rowsEnd;
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
        if (act && c.pushDeg) edges += c.frontDeg[v];
      }
      if (v < c.hi && lane == 0) c.mask[t.p][v >> 5] = 0u;
      const unsigned bal = __ballot_sync(VP_FULL, act);
      if (bal && lane == 0) {
        atomicOr(c.mask[t.p ^ 1] + (v >> 5), bal);
        acts += __popc(bal);
      }
    }
  }
  // The skipped rows' words (rows without arcs in, activated at most as a
  // source), cleared a word a thread; the loop above may have cleared the
  // first of them.
  if (c.rowsEnd < c.hi) {
    const int w1 = (c.hi + 31) >> 5;
    for (int w = (c.rowsEnd >> 5) + blockIdx.x * blockDim.x + threadIdx.x; w < w1; w += gridDim.x * blockDim.x) c.mask[t.p][w] = 0u;
  }
#if VP_APPLY_REGS
  vp_agg_flush_regs(part, blk);
#endif
  // No queues: a push after pulls compacts the bitmask (vp_compact).
  vp_count_flush(t, cnt, acts, edges);
  vp_agg_flush(c, t, blk);
}

