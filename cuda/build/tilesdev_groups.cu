// hpgraph CUDA: the device's tile builder, part 2 of 2 (tilesdev.cu's
// header lists the steps; tilesdev.go joins the parts): tl_group, a warp
// a stream grouping its entries as tiles.go's groups and groupsNear do,
// then tl_fill and tl_expand, the entries into their groups' lanes.

// A stream is grouped by one warp: tiles.go's groups and groupsNear,
// step by step, the group held a lane a place (lane l: its entry and
// slot), so a test against the group (is the slot there, how many of a
// residue, which lane is free) is a ballot, not a loop. Candidates are
// loaded 32 at a time, one a lane, and taken in order by shuffles. The
// warp's control flow is uniform: occ, n and b are the same in every
// lane.
struct TL_Group {
  const unsigned short* st;  // the stream: tile-local entries in column order
  int len;
  const int* col;            // the tile's columns (from its first entry)
  const int* slot;           // the tile's packed slots
  unsigned mask;             // a slot's bits
  int span;                  // a group's columns lie below its base + span
  unsigned* code;            // the tile's codes
  int* base;                 // the stream's groups' bases
  unsigned occ;              // the group's lanes taken
  unsigned c1, c2;           // the residues it holds once or more, twice (groupsNear)
  int n, b;                  // its entries, its base column
  int myQ;                   // this lane's entry (where occ has it)
  unsigned mySl;             // and its slot
  int lane;
};

__device__ __forceinline__ bool tl_far(const TL_Group& g, int col) {
  return g.n > 0 && (int)((unsigned)col - (unsigned)g.b) >= g.span;
}

__device__ __forceinline__ bool tl_mine(const TL_Group& g) { return (g.occ >> g.lane) & 1u; }

// tl_holds: is slot sl in the group?
__device__ __forceinline__ bool tl_holds(const TL_Group& g, unsigned sl) {
  return __any_sync(TL_FULL, tl_mine(g) && g.mySl == sl);
}

__device__ __forceinline__ void tl_put(TL_Group& g, int q, unsigned sl, int col, int l) {
  if (g.n == 0) g.b = col;
  if (g.lane == l) g.myQ = q, g.mySl = sl;
  g.occ |= 1u << l;
  g.n++;
}

__device__ __forceinline__ int tl_free(const TL_Group& g) { return __ffs(~g.occ) - 1; }

__device__ __forceinline__ void tl_reset(TL_Group& g) {
  g.occ = 0;
  g.c1 = g.c2 = 0;
  g.n = 0;
  g.b = 0;
}

// tl_cand reads entry q's slot and column, and packs the entry with its
// slot (16 bits each: one shuffle for both).
__device__ __forceinline__ void tl_cand(const TL_Group& g, int q, unsigned& qs, int& col) {
  qs = (unsigned)q << 16 | ((unsigned)g.slot[q] & g.mask);
  col = g.col[q];
}

// tl_shfl gives every lane candidate x of those the lanes loaded.
__device__ __forceinline__ void tl_shfl(unsigned qsj, int colj, int x, int& q, unsigned& sl, int& col) {
  const unsigned qs = __shfl_sync(TL_FULL, qsj, x);
  col = __shfl_sync(TL_FULL, colj, x);
  q = (int)(qs >> 16);
  sl = qs & 0xffffu;
}

// tl_emit records the group's entries (group G, lane) and its base.
__device__ __forceinline__ void tl_emit(const TL_Group& g, int G) {
  if (tl_mine(g)) g.code[g.myQ] = (unsigned)G << 5 | (unsigned)g.lane;
  if (g.lane == 0) g.base[G] = g.b;
}

// tl_take_near is groupsNear's take: not a 33rd entry, at most two of a
// residue, not a slot already there, within span; lane slot mod 32
// where that is free.
__device__ __forceinline__ bool tl_take_near(TL_Group& g, int q, unsigned sl, int col) {
  if (g.n == 32) return false;
  const unsigned r = sl & 31, bit = 1u << r;
  if ((g.c2 & bit) || tl_far(g, col)) return false;
  if ((g.c1 & bit) && tl_holds(g, sl)) return false;
  tl_put(g, q, sl, col, (g.occ & bit) ? tl_free(g) : (int)r);
  if (g.c1 & bit) g.c2 |= bit; else g.c1 |= bit;
  return true;
}

// tl_offer offers the group the candidates the m lanes loaded (tl_cand)
// in order, each taken (tl_take_near) or kept in pend at place *k: all
// of them (All), or while the group has room and pend places. It returns
// how many it offered.
template <bool All>
__device__ __forceinline__ int tl_offer(TL_Group& g, unsigned qsj, int colj, int m, int* pend, int* k) {
  int x = 0;
  for (; x < m && (All || g.n < 32 && *k < TL_PEND); x++) {
    int q, col;
    unsigned sl;
    tl_shfl(qsj, colj, x, q, sl, col);
    if (!tl_take_near(g, q, sl, col)) {
      if (g.lane == 0) pend[*k] = q;
      (*k)++;
    }
  }
  return x;
}

// tl_near is tileWorker.groupsNear (pend: TL_PEND places); it returns the
// stream's groups.
__device__ int tl_near(TL_Group& g, int* pend) {
  const int lane = g.lane;
  int next = 0, np = 0, G = 0;
  while (next < g.len || np > 0) {
    if (np < TL_WINDOW && next < g.len) {
      const int m = min(TL_WINDOW - np, g.len - next);
      for (int j = lane; j < m; j += 32) pend[np + j] = g.st[next + j];
      np += m;
      next += m;
    }
    __syncwarp();
    tl_reset(g);
    int k = 0;
    for (int b0 = 0; b0 < np; b0 += 32) {
      const int m = min(32, np - b0);
      int colj = 0;
      unsigned qsj = 0;
      if (lane < m) tl_cand(g, pend[b0 + lane], qsj, colj);
      __syncwarp();  // (the batch is read before kept entries move down)
      tl_offer<true>(g, qsj, colj, m, pend, &k);
      __syncwarp();
    }
    np = k;
    while (g.n < 32 && next < g.len && np < TL_PEND) {
      const int m = min(32, g.len - next);
      int colj = 0;
      unsigned qsj = 0;
      if (lane < m) tl_cand(g, g.st[next + lane], qsj, colj);
      next += tl_offer<false>(g, qsj, colj, m, pend, &np);
    }
    __syncwarp();
    tl_emit(g, G++);
  }
  return G;
}

// TL_Wait is tiles.go's waitList: the waiting entries in order (Q; -1
// once taken), and per slot residue a chain through them in order (NX).
// Lane l keeps residue l's cursor (cur: the first place not known to be
// taken, -1 past the end) and last place (tail); an entry's places are
// written by its residue's lane, or between __syncwarp()s.
struct TL_Wait {
  int* Q;
  short* NX;
  int len, first, live;  // (uniform)
  int cur, tail;         // (this lane's residue's)
};

__device__ void tl_wait_compact(TL_Wait& w, const TL_Group& g) {
  const int lane = g.lane;
  const unsigned below = (1u << lane) - 1;
  __syncwarp();
  int k = 0;
  for (int b0 = 0; b0 < w.len; b0 += 32) {
    const int j = b0 + lane;
    const int v = j < w.len ? w.Q[j] : -1;
    const unsigned keep = __ballot_sync(TL_FULL, v >= 0);
    __syncwarp();
    if (v >= 0) w.Q[k + __popc(keep & below)] = v;
    k += __popc(keep);
    __syncwarp();
  }
  w.len = k;
  w.cur = w.tail = -1;
  for (int b0 = 0; b0 < k; b0 += 32) {
    const int j = b0 + lane;
    const unsigned r = j < k ? (unsigned)g.slot[w.Q[j]] & 31 : 0;
    for (int x = 0; x < min(32, k - b0); x++) {
      if (lane == (int)__shfl_sync(TL_FULL, r, x)) {
        const int i = b0 + x;
        w.NX[i] = -1;
        if (w.tail >= 0) w.NX[w.tail] = (short)i; else w.cur = i;
        w.tail = i;
      }
    }
  }
  w.first = 0;
  __syncwarp();
}

__device__ __forceinline__ void tl_wait_push(TL_Wait& w, const TL_Group& g, int q, unsigned sl) {
  // (Only when full: where the taken entries are dropped changes no
  // result, and a stream of fewer than TL_WAIT entries never is. The
  // host's rule, at 1,024 places and twice the live entries, compacted
  // kron21's waiting lists 70K times.)
  if (w.len == TL_WAIT) tl_wait_compact(w, g);
  const int i = w.len++;
  if (g.lane == (int)(sl & 31)) {
    w.Q[i] = q;
    w.NX[i] = -1;
    if (w.tail >= 0) w.NX[w.tail] = (short)i;
    if (w.cur < 0) w.cur = i;
    w.tail = i;
  }
  w.live++;
}

// tl_take is groups' take (strict: only in lane slot mod 32).
__device__ __forceinline__ bool tl_take(TL_Group& g, bool strict, int q, unsigned sl, int col) {
  int l = (int)(sl & 31);
  if (tl_far(g, col)) return false;
  if ((g.occ >> l) & 1u) {
    if (strict || tl_holds(g, sl)) return false;
    l = tl_free(g);
  }
  tl_put(g, q, sl, col, l);
  return true;
}

// tl_stream takes entries from the stream, the ones that do not fit
// waiting (at most TL_WAITING wait), a batch of 32 loaded at a time. In
// strict mode a candidate joins the group where it is within span and
// its residue's lane is free and was not taken by an earlier candidate of
// the batch, else it waits: each candidate's fate follows from the state
// before the batch and the candidates before it (match and prefix
// counts), and the batch ends where the group fills or the waiting list
// reaches its most; the candidates that wait are appended in order and
// chained by residue. The loose mode, and a strict batch that may set the
// group's base (an empty group) or compact the waiting list, go one
// candidate at a time.
__device__ void tl_stream(TL_Group& g, TL_Wait& w, bool strict, int& next) {
  const int lane = g.lane;
  const unsigned lt = (1u << lane) - 1;
  while (g.n < 32 && next < g.len && w.live < TL_WAITING) {
    const int m = min(32, g.len - next);
    int colj = 0;
    unsigned qsj = 0;
    if (lane < m) tl_cand(g, g.st[next + lane], qsj, colj);
    if (!strict || g.n == 0 || w.len + m > TL_WAIT) {
      int x = 0;
      for (; x < m && g.n < 32 && w.live < TL_WAITING; x++) {
        int q, col;
        unsigned sl;
        tl_shfl(qsj, colj, x, q, sl, col);
        if (!tl_take(g, strict, q, sl, col)) tl_wait_push(w, g, q, sl);
      }
      next += x;
      __syncwarp();
      continue;
    }
    const bool valid = lane < m;
    const int r = (int)(qsj & 31);
    const bool cand = valid && !tl_far(g, colj) && !((g.occ >> r) & 1u);
    const unsigned peers = __match_any_sync(TL_FULL, cand ? r : 32 + lane);
    const bool acc = cand && (peers & lt) == 0;
    const unsigned accM = __ballot_sync(TL_FULL, acc), waitM = __ballot_sync(TL_FULL, valid && !acc);
    const unsigned stopM = __ballot_sync(TL_FULL, valid && (g.n + __popc(accM & lt) >= 32 || w.live + __popc(waitM & lt) >= TL_WAITING));
    const int cut = stopM ? __ffs(stopM) - 1 : m;
    const unsigned in = cut == 32 ? TL_FULL : (1u << cut) - 1;
    const unsigned A = accM & in, P = waitM & in;
    for (unsigned bits = A; bits; bits &= bits - 1) {
      const int x = __ffs(bits) - 1;
      const unsigned qs = __shfl_sync(TL_FULL, qsj, x);
      const int col = __shfl_sync(TL_FULL, colj, x);
      tl_put(g, (int)(qs >> 16), qs & 0xffffu, col, (int)(qs & 31));
    }
    const bool waits = (P >> lane) & 1u;
    const unsigned same = __match_any_sync(TL_FULL, waits ? r : 32 + lane);
    if (waits) {
      const int pos = w.len + __popc(P & lt);
      const unsigned later = same & ~lt & ~(1u << lane);
      w.Q[pos] = (int)(qsj >> 16);
      w.NX[pos] = later ? (short)(w.len + __popc(P & ((1u << (__ffs(later) - 1)) - 1))) : (short)-1;
    }
    // (each residue's first and last new place to its lane's chain)
    for (unsigned lead = __ballot_sync(TL_FULL, waits && (same & lt) == 0); lead; lead &= lead - 1) {
      const int x = __ffs(lead) - 1;
      const int rr = __shfl_sync(TL_FULL, r, x);
      const unsigned grp = __shfl_sync(TL_FULL, same, x);
      if (lane == rr) {
        const int first = w.len + __popc(P & ((1u << x) - 1));
        const int last = w.len + __popc(P & ((1u << (31 - __clz(grp))) - 1));
        if (w.tail >= 0) w.NX[w.tail] = (short)first;
        if (w.cur < 0) w.cur = first;
        w.tail = last;
      }
    }
    w.len += __popc(P);
    w.live += __popc(P);
    next += cut;
    __syncwarp();
  }
  __syncwarp();
}

// tl_groups is tileWorker.groups; it returns the stream's groups.
__device__ int tl_groups(TL_Group& g, TL_Wait& w) {
  const int lane = g.lane;
  w.len = w.first = w.live = 0;
  w.cur = w.tail = -1;
  int next = 0, G = 0;
  while (next < g.len || w.live > 0) {
    tl_reset(g);
    if (w.live > 0) {
      // The oldest waiting entry, then each free lane's residue's oldest
      // (independent: each goes to its own lane, and the base is set).
      // (32 places at a time: kron21's streams stepped 34M times one by one)
      for (;;) {
        const unsigned live = __ballot_sync(TL_FULL, w.first + lane < w.len && w.Q[w.first + lane] >= 0);
        if (live != 0) {
          w.first += __ffs(live) - 1;
          break;
        }
        w.first += 32;
      }
      const int q = w.Q[w.first];
      unsigned qs;
      int col;
      tl_cand(g, q, qs, col);
      const unsigned sl = qs & 0xffffu;
      tl_put(g, q, sl, col, (int)(sl & 31));
      __syncwarp();
      if (lane == 0) w.Q[w.first] = -1;
      w.live--;
      __syncwarp();
      bool took = false;
      if (!tl_mine(g)) {
        int i = w.cur;
        while (i >= 0 && w.Q[i] < 0) i = w.NX[i];
        w.cur = i;
        if (i >= 0) {
          const int qi = w.Q[i];
          unsigned qsi;
          int coli;
          tl_cand(g, qi, qsi, coli);
          if (!tl_far(g, coli)) {
            g.myQ = qi, g.mySl = qsi & 0xffffu;
            w.Q[i] = -1;
            took = true;
          }
        }
      }
      const unsigned t = __ballot_sync(TL_FULL, took);
      g.occ |= t;
      g.n += __popc(t);
      w.live -= __popc(t);
      __syncwarp();
    }
    tl_stream(g, w, true, next);
    if (g.n < 32) {
      for (int b0 = w.first; b0 < w.len && g.n < 32; b0 += 32) {
        const int m = min(32, w.len - b0);
        int colj = 0;
        unsigned qsj = 0xffffffffu;  // (taken: no slot is 0xffff)
        if (lane < m) {
          const int qj = w.Q[b0 + lane];
          if (qj >= 0) tl_cand(g, qj, qsj, colj);
        }
        __syncwarp();
        for (int x = 0; x < m && g.n < 32; x++) {
          int q, col;
          unsigned sl;
          tl_shfl(qsj, colj, x, q, sl, col);
          const bool live = sl != 0xffffu;
          if (live && tl_take(g, false, q, sl, col)) {
            if (lane == 0) w.Q[b0 + x] = -1;
            w.live--;
          }
        }
        __syncwarp();
      }
      tl_stream(g, w, false, next);
    }
    tl_emit(g, G++);
  }
  return G;
}

// tl_group: each warp of the pool takes streams (tile t, warp k) in turn
// and groups them.
extern "C" __global__ void __launch_bounds__(TL_THREADS) tl_group(const TL_Arg a, int unused) {
  const long long wid = ((long long)blockIdx.x * TL_THREADS + threadIdx.x) >> 5;
  if (wid >= a.pool) return;
  const int lane = threadIdx.x & 31;
  int* scr = a.scratch + wid * (a.near ? TL_PEND : TL_WAIT + TL_WAIT / 2);
  TL_Wait w;
  w.Q = scr;
  w.NX = reinterpret_cast<short*>(scr + TL_WAIT);
  const long long streams = a.tiles * TL_W;
  for (;;) {
    long long sid = 0;
    if (lane == 0) sid = atomicAdd(reinterpret_cast<unsigned long long*>(a.next), 1ull);
    sid = __shfl_sync(TL_FULL, sid, 0);
    if (sid >= streams) break;
    const long long t = sid / TL_W;
    const int k = (int)(sid % TL_W);
    const long long lo = a.tileLo[t];
    const int so = a.streamOff[t * (TL_W + 1) + k], se = a.streamOff[t * (TL_W + 1) + k + 1];
    TL_Group g;
    g.st = a.streams + lo + so;
    g.len = se - so;
    g.col = a.sCol + lo;
    g.slot = a.sSlot + lo;
    g.mask = (1u << a.slotBits) - 1;
    g.span = (int)(1u << (32 - a.slotBits));
    g.code = a.code + lo;
    g.base = a.tmpBase + lo + so;
    g.lane = lane;
    g.myQ = 0;
    g.mySl = 0;
    const int G = a.near ? tl_near(g, scr) : tl_groups(g, w);
    if (lane == 0) a.groups[sid] = G;
    __syncwarp();
  }
}

// tl_fill: the padding (the dummy slot, weight 0) in every place of the
// groups; tl_expand writes the entries over it.
extern "C" __global__ void __launch_bounds__(TL_THREADS) tl_fill(const TL_Arg a, int unused) {
  const unsigned dummy = (unsigned)((1 << a.rowBits) + a.vmax);
  for (long long i = (long long)blockIdx.x * TL_THREADS + threadIdx.x; i < a.fill; i += (long long)gridDim.x * TL_THREADS) {
    a.arcs[i] = dummy;
    if (a.vals != nullptr) a.vals[i] = 0u;
  }
}

// tl_expand: a block a tile: each entry into its group's lane (the
// padding, the dummy slot, is set before), and the groups' bases.
extern "C" __global__ void __launch_bounds__(TL_THREADS) tl_expand(const TL_Arg a, int unused) {
  const unsigned mask = (1u << a.slotBits) - 1;
  for (long long t = blockIdx.x; t < a.tiles; t += gridDim.x) {
    const long long lo = a.tileLo[t], hi = a.tileLo[t + 1];
    const int s = a.tileSeg[t];
    for (long long q = lo + threadIdx.x; q < hi; q += TL_THREADS) {
      const int o = tl_owner(a, s, q);
      const unsigned cd = a.code[q];
      const int gi = (int)(cd >> 5);
      const long long g = a.groupOff[t * TL_W + o] + gi;
      const int b = a.tmpBase[lo + a.streamOff[t * (TL_W + 1) + o] + gi];
      const long long at = g * 32 + (cd & 31);
      a.arcs[at] = ((unsigned)a.sCol[q] - (unsigned)b) << a.slotBits | ((unsigned)a.sSlot[q] & mask);
      if (a.vals != nullptr) a.vals[at] = a.sVal[q];
      a.base[g] = b;  // (every entry of the group writes the same)
    }
  }
}
