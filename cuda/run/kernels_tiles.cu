// The kernel template, part 5 of 8 (after kernels_frontier.cu): the pull
// by column-sorted tiles, for programs that gather from every neighbour.

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
// (docs/perf/pagerank-tiles.md#each-warps-stream-through-registers).
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

