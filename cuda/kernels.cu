// hpgraph CUDA kernels: one template for every program. The program's
// snippet (X_t, A_t, State, vp_identity, vp_gather, vp_reduce, vp_update and
// optionally vp_wants, vp_done) comes before this file; the semantics are
// those of the CPU kernels in package spmv and the engine in vertexprog.
//
// Every kernel takes (VP_Mat m, VP_Ctl c, State s) so the host launches
// them all the same way.

#define VP_BLOCK 256
#define VP_ITEMS 4
#define VP_TILE (VP_BLOCK * VP_ITEMS)
#define VP_FULL 0xffffffffu

// One HYB matrix (hyb.Matrix): ELL column-major with pitch, COO sorted by
// row, CooPtr the row offsets of the COO part.
struct VP_Mat {
  const int* ellCol;
  const float* ellVal;  // null for a pattern matrix (w = 1)
  const int* cooRow;
  const int* cooCol;
  const float* cooVal;  // null for a pattern matrix
  const long long* cooPtr;
  long long cooN;
  int n, k, pitch, pad_;
};

// A run's device state for one superstep.
struct VP_Ctl {
  X_t* x;
  unsigned long long xTex;  // texture object over x (VP_TEXTURE_X)
  const unsigned* frontier;  // x_bitmask
  unsigned long long frontierTex;
  unsigned* active;   // active_bitmask
  unsigned* touched;  // rows a push wrote to
  unsigned long long* counters;  // [0] vertices activated, [1] their push degrees
  const int* pushDeg;  // push-matrix row lengths, null without a push matrix
  A_t* y;
  A_t* carryFirst;  // per COO tile: its first row's partial, when that row began earlier
  A_t* carryLast;   // per COO tile: its last row's partial, when that row goes on
  double* aggAcc;
  const double* aggPrev;
  const int* aggOps;
  int iteration;
  int useMask;  // 0 when the program gathers from all neighbours (GatherAll)
};

static_assert(sizeof(VP_Mat) == 72, "hpgraph: VP_Mat layout");
static_assert(sizeof(VP_Ctl) == 120, "hpgraph: VP_Ctl layout");

__device__ __forceinline__ bool vp_in_frontier(const VP_Ctl& c, int u) {
#if VP_TEXTURE
  unsigned w = tex1Dfetch<unsigned>((cudaTextureObject_t)c.frontierTex, u >> 5);
#else
  unsigned w = __ldg(c.frontier + (u >> 5));
#endif
  return (w >> (u & 31)) & 1u;
}

__device__ __forceinline__ X_t vp_load_x(const VP_Ctl& c, int u) {
#if VP_XSIZE == 0
  return X_t();
#elif VP_TEXTURE_X
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
}

__device__ __forceinline__ Step vp_step(const VP_Ctl& c) {
  Step st;
  st.iteration = c.iteration;
  st.prev = c.aggPrev;
  st.acc = c.aggAcc;
  st.ops = c.aggOps;
  return st;
}

// vp_skip_row: rows rejected by vp_wants take no input, and (early exit)
// rows whose accumulator is already decided take no more.
__device__ __forceinline__ bool vp_skip_row(const VP_Ctl& c, const State& s, int r) {
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
__device__ __forceinline__ void vp_combine_row(const VP_Ctl& c, const State& s, int r, A_t part) {
#if VP_HAS_WANTS
  if (!vp_wants(r, s)) return;
#endif
  A_t cur = c.y[r];
#if VP_HAS_DONE
  if (vp_done(cur)) return;
#endif
  c.y[r] = vp_reduce(cur, part);
}

// y := identity on every row (before a push after pull supersteps).
extern "C" __global__ void __launch_bounds__(VP_BLOCK) vp_fill(VP_Mat m, VP_Ctl c, State s) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < m.n) c.y[r] = vp_identity();
}

// ELL pull: one thread per row, slot k of consecutive rows at consecutive
// addresses. Writes every wanted row's y (the identity when it gathers
// nothing), so it also initializes y for the COO kernel.
extern "C" __global__ void __launch_bounds__(VP_BLOCK) vp_pull_ell(VP_Mat m, VP_Ctl c, State s) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= m.n) return;
#if VP_HAS_WANTS
  if (!vp_wants(r, s)) return;
#endif
  A_t acc = vp_identity();
  for (int k = 0; k < m.k; k++) {
    long long i = (long long)k * m.pitch + r;
    int u = m.ellCol[i];
    if (u < 0) break;  // padding only trails
    if (c.useMask && !vp_in_frontier(c, u)) continue;
    float w = m.ellVal ? m.ellVal[i] : 1.0f;
    acc = vp_gather(acc, r, u, vp_load_x(c, u), w, s);
#if VP_HAS_DONE
    if (vp_done(acc)) break;
#endif
  }
  c.y[r] = acc;
}

// vp_emit hands over the value of one COO run (row r's entries inside
// one tile, or the part of them up to where the tile ends): a run that
// neither began in an earlier tile nor goes on into the next is the row's
// whole COO part and goes straight into y; the others become the tile's
// carries, which vp_pull_fixup combines.
__device__ __forceinline__ void vp_emit(const VP_Ctl& c, const State& s, long long tile, int r, A_t v,
                                        int firstRow, bool headOpen, int lastRow, bool tailOpen) {
  bool carryHead = headOpen && r == firstRow;
  bool carryTail = tailOpen && r == lastRow;
  if (carryHead) c.carryFirst[tile] = v;
  if (carryTail) c.carryLast[tile] = v;
  if (!carryHead && !carryTail) vp_combine_row(c, s, r, v);
}

// COO pull: a nonzero-balanced segmented reduction. Block b takes the
// VP_TILE entries [b*VP_TILE, (b+1)*VP_TILE); thread t takes VP_ITEMS
// consecutive ones and folds each run of equal rows, from the identity,
// with vp_gather. Runs that end inside the thread are complete (direct
// write, no atomics); the run each thread ends with is combined across
// threads by a segmented inclusive scan with vp_reduce in shared memory.
// Rows crossing a tile boundary leave their tile partials in carryFirst /
// carryLast for vp_pull_fixup.
extern "C" __global__ void __launch_bounds__(VP_BLOCK) vp_pull_coo(VP_Mat m, VP_Ctl c, State s) {
  __shared__ __align__(16) unsigned char sraw[VP_BLOCK * sizeof(A_t)];
  __shared__ unsigned char sflag[VP_BLOCK];
  A_t* sval = reinterpret_cast<A_t*>(sraw);

  const long long tile = blockIdx.x;
  const long long base = tile * VP_TILE;
  const long long tileEnd = min(base + (long long)VP_TILE, m.cooN);
  const int t = threadIdx.x;
  const long long lo = base + (long long)t * VP_ITEMS;
  const int cnt = (int)max(0LL, min((long long)VP_ITEMS, tileEnd - lo));

  const int firstRow = m.cooRow[base];
  const int lastRow = m.cooRow[tileEnd - 1];
  const bool headOpen = base > 0 && m.cooRow[base - 1] == firstRow;
  const bool tailOpen = tileEnd < m.cooN && m.cooRow[tileEnd] == lastRow;

  int rows[VP_ITEMS], cols[VP_ITEMS];
  float ws[VP_ITEMS];
  if (cnt == VP_ITEMS) {
    int4 r4 = *reinterpret_cast<const int4*>(m.cooRow + lo);
    int4 c4 = *reinterpret_cast<const int4*>(m.cooCol + lo);
    rows[0] = r4.x; rows[1] = r4.y; rows[2] = r4.z; rows[3] = r4.w;
    cols[0] = c4.x; cols[1] = c4.y; cols[2] = c4.z; cols[3] = c4.w;
    if (m.cooVal) {
      float4 w4 = *reinterpret_cast<const float4*>(m.cooVal + lo);
      ws[0] = w4.x; ws[1] = w4.y; ws[2] = w4.z; ws[3] = w4.w;
    } else {
      ws[0] = ws[1] = ws[2] = ws[3] = 1.0f;
    }
  } else {
#pragma unroll
    for (int i = 0; i < VP_ITEMS; i++) {
      rows[i] = i < cnt ? m.cooRow[lo + i] : -1;
      cols[i] = i < cnt ? m.cooCol[lo + i] : 0;
      ws[i] = (i < cnt && m.cooVal) ? m.cooVal[lo + i] : 1.0f;
    }
  }

  // Runs inside the thread.
  A_t acc = vp_identity(), head = vp_identity();
  int cur = -1, runs = 0;
  bool skip = true;
  // (No break or continue, so the loop unrolls and rows/cols/ws stay in
  // registers.)
#pragma unroll
  for (int i = 0; i < VP_ITEMS; i++) {
    if (i < cnt) {
      int r = rows[i];
      if (r != cur) {
        if (runs == 1) head = acc;  // the thread's first run: may have begun before it
        else if (runs > 1) vp_emit(c, s, tile, cur, acc, firstRow, headOpen, lastRow, tailOpen);
        runs++;
        cur = r;
        acc = vp_identity();
        skip = vp_skip_row(c, s, r);
      }
      int u = cols[i];
      if (!skip && (!c.useMask || vp_in_frontier(c, u))) {
        acc = vp_gather(acc, r, u, vp_load_x(c, u), ws[i], s);
#if VP_HAS_DONE
        if (vp_done(acc)) skip = true;
#endif
      }
    }
  }
  // acc is now the partial of the thread's last run (row cur).
  const int myFirst = rows[0];
  const bool contFromPrev = cnt > 0 && t > 0 && m.cooRow[lo - 1] == myFirst;

  // Segmented inclusive scan of the threads' last-run partials: a segment
  // starts at a thread whose last run began inside it.
  bool flag = cnt == 0 || runs > 1 || !contFromPrev;
  sval[t] = acc;
  sflag[t] = flag;
  __syncthreads();
  for (int d = 1; d < VP_BLOCK; d <<= 1) {
    A_t v = sval[t];
    unsigned char f = sflag[t];
    A_t pv = v;
    unsigned char pf = 1;
    if (t >= d) {
      pv = sval[t - d];
      pf = sflag[t - d];
    }
    __syncthreads();
    if (!f && t >= d) {
      v = vp_reduce(pv, v);
      f = pf;
    }
    sval[t] = v;
    sflag[t] = f;
    __syncthreads();
  }
  if (cnt == 0) return;
  A_t total = sval[t];

  // The thread's first run, when it ended inside the thread.
  if (runs > 1) {
    A_t v = head;
    if (contFromPrev) v = vp_reduce(sval[t - 1], head);
    vp_emit(c, s, tile, myFirst, v, firstRow, headOpen, lastRow, tailOpen);
  }
  // The thread's last run, when it ends where the thread does.
  bool closes = lo + cnt == tileEnd || m.cooRow[lo + cnt] != cur;
  if (closes) vp_emit(c, s, tile, cur, total, firstRow, headOpen, lastRow, tailOpen);
}

// Rows that cross COO tiles: the tile where such a row begins walks forward
// over the tiles it fills and folds their carries, in order, then combines
// the sum into y. Atomic-free: each row has one owner.
extern "C" __global__ void __launch_bounds__(VP_BLOCK) vp_pull_fixup(VP_Mat m, VP_Ctl c, State s) {
  long long tiles = (m.cooN + VP_TILE - 1) / VP_TILE;
  long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= tiles) return;
  long long base = t * VP_TILE, end = min(base + (long long)VP_TILE, m.cooN);
  int last = m.cooRow[end - 1];
  if (end >= m.cooN || m.cooRow[end] != last) return;  // the last row ends here
  bool single = m.cooRow[base] == last;
  bool headOpen = base > 0 && m.cooRow[base - 1] == last;
  if (single && headOpen) return;  // a tile further back owns the row
  A_t acc = c.carryLast[t];
  for (long long t2 = t + 1; t2 < tiles; t2++) {
    acc = vp_reduce(acc, c.carryFirst[t2]);
    long long b2 = t2 * VP_TILE, e2 = min(b2 + (long long)VP_TILE, m.cooN);
    bool through = m.cooRow[b2] == last && m.cooRow[e2 - 1] == last && e2 < m.cooN && m.cooRow[e2] == last;
    if (!through) break;
  }
  vp_combine_row(c, s, last, acc);
}

// vp_activate marks the warp's activated vertices in active_bitmask (one
// word per warp: blocks are whole warps and warps start at multiples of 32)
// and counts them and their push degrees. Every lane must call it.
__device__ __forceinline__ void vp_activate(const VP_Ctl& c, int v, bool act, int deg) {
  unsigned b = __ballot_sync(VP_FULL, act);
  if (b == 0) return;
  unsigned long long e = act ? (unsigned long long)deg : 0ULL;
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) e += __shfl_down_sync(VP_FULL, e, o);
  if ((threadIdx.x & 31) == 0) {
    atomicOr(c.active + (v >> 5), b);
    atomicAdd(c.counters, (unsigned long long)__popc(b));
    if (e) atomicAdd(c.counters + 1, e);
  }
}

__device__ __forceinline__ bool vp_update_at(const VP_Ctl& c, const State& s, int v, A_t acc) {
  Step st = vp_step(c);
#if VP_XSIZE == 0
  X_t none = X_t();
  return vp_update(v, acc, &none, s, st);
#else
  return vp_update(v, acc, c.x + v, s, st);
#endif
}

// APPLY after a pull: Update on every row vp_wants accepts.
extern "C" __global__ void __launch_bounds__(VP_BLOCK) vp_apply_pull(VP_Mat m, VP_Ctl c, State s) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  bool act = false;
  int deg = 0;
  if (v < m.n) {
    bool want = true;
#if VP_HAS_WANTS
    want = vp_wants(v, s);
#endif
    if (want) {
      act = vp_update_at(c, s, v, c.y[v]);
      if (act && c.pushDeg) deg = c.pushDeg[v];
    }
  }
  vp_activate(c, v, act, deg);
}

// APPLY after a push: Update on the touched rows only, which go back to
// the identity; touched is cleared word by word.
extern "C" __global__ void __launch_bounds__(VP_BLOCK) vp_apply_push(VP_Mat m, VP_Ctl c, State s) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  bool act = false;
  int deg = 0;
  unsigned tw = v < m.n ? c.touched[v >> 5] : 0u;
  if (v < m.n && ((tw >> (v & 31)) & 1u)) {
    act = vp_update_at(c, s, v, c.y[v]);
    c.y[v] = vp_identity();
    if (act && c.pushDeg) deg = c.pushDeg[v];
  }
  __syncwarp();
  if ((threadIdx.x & 31) == 0 && v < m.n && tw) c.touched[v >> 5] = 0u;
  vp_activate(c, v, act, deg);
}

// vp_fold sets y[v] = vp_gather(y[v], ...) atomically (a CAS loop on the
// accumulator's 4 or 8 bytes) and reports whether its bits changed.
__device__ __forceinline__ bool vp_fold(A_t* p, int v, int u, const X_t& xu, float w, const State& s) {
#if VP_ASIZE == 4
  typedef unsigned word_t;
#elif VP_ASIZE == 8
  typedef unsigned long long word_t;
#endif
#if VP_ASIZE == 4 || VP_ASIZE == 8
  union cv {
    A_t a;
    word_t b;
  };
  word_t* addr = reinterpret_cast<word_t*>(p);
  word_t old = *reinterpret_cast<volatile word_t*>(addr);
  for (;;) {
    cv cur;
    cur.b = old;
    cv nv;
    nv.a = vp_gather(cur.a, v, u, xu, w, s);
    if (nv.b == old) return false;
    word_t seen = atomicCAS(addr, old, nv.b);
    if (seen == old) return true;
    old = seen;
  }
#else
  return false;  // never launched: the engine pushes only 4- and 8-byte accumulators
#endif
}

__device__ __forceinline__ void vp_push_one(const VP_Ctl& c, const State& s, int v, int u, const X_t& xu, float w) {
#if VP_HAS_WANTS
  if (!vp_wants(v, s)) return;
#endif
  if (vp_fold(c.y + v, v, u, xu, w, s)) atomicOr(c.touched + (v >> 5), 1u << (v & 31));
}

// Push: every frontier vertex u scatters along its row of the push matrix,
// its ELL slots by its own thread (coalesced across the warp), its COO
// range by the whole warp together.
extern "C" __global__ void __launch_bounds__(VP_BLOCK) vp_push(VP_Mat m, VP_Ctl c, State s) {
  int u = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x & 31;
  bool in = u < m.n && vp_in_frontier(c, u);
  long long b = 0, e = 0;
  if (in) {
    X_t xu = vp_load_x(c, u);
    for (int k = 0; k < m.k; k++) {
      long long i = (long long)k * m.pitch + u;
      int v = m.ellCol[i];
      if (v < 0) break;
      vp_push_one(c, s, v, u, xu, m.ellVal ? m.ellVal[i] : 1.0f);
    }
    b = m.cooPtr[u];
    e = m.cooPtr[u + 1];
  }
  unsigned pending = __ballot_sync(VP_FULL, e > b);
  while (pending) {
    int src = __ffs(pending) - 1;
    pending &= pending - 1;
    long long sb = __shfl_sync(VP_FULL, b, src);
    long long se = __shfl_sync(VP_FULL, e, src);
    int su = __shfl_sync(VP_FULL, u, src);
    X_t xs = vp_load_x(c, su);
    for (long long i = sb + lane; i < se; i += 32) {
      vp_push_one(c, s, m.cooCol[i], su, xs, m.cooVal ? m.cooVal[i] : 1.0f);
    }
  }
}
