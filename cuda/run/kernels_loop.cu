// The kernel template, part 7 of 8 (after kernels_push.cu): vp_loop,
// push supersteps in one launch of a thread block cluster.

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
    vp_emit(c, t.rec, t.rec, c.queue[t.p ^ 1], c.chunks[t.p ^ 1], v, in, deg, deg);
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
