// hpgraph CUDA: PREPROCESS on the device. A HYB matrix's ELL and COO
// arrays built from the CSR that the host uploads (hyb.Matrix.Materialize
// does the same on the host): the first K entries of each row go to ELL,
// column-major with a pitch, Pad (-1) and 0 past the row's end; the rest
// of the row to COO at the row's CooPtr, in the CSR's order. A copy of
// the rows [lo, n) only (a part's pull: build.Window) holds slots for
// those rows (slot k of row r at k*pitch + r - lo) and is given cooPtr
// shifted back by lo rows, so that cooPtr[r] is row r's offset.

#include "scan.cuh"
#include "rows.cuh"

struct HB_Arg {
  const long long* rowPtr;  // n+1
  const int* col;           // the CSR's columns
  const float* val;         // its values, or null for a pattern matrix
  const long long* cooPtr;  // by row, [lo, n]
  int* ellCol;              // k*pitch: the rows from lo
  float* ellVal;            // k*pitch, or null
  int* cooCol;              // cooPtr[n] - cooPtr[lo]
  float* cooVal;            // the same, or null
  int n, k, pitch, lo;      // the rows [lo, n)
};

static_assert(sizeof(HB_Arg) == 80, "hpgraph: HB_Arg layout");

// hb_ell: one thread a slot, in the ELL's own order (stores coalesced).
extern "C" __global__ void hb_ell(const HB_Arg a, int unused) {
  long long slots = (long long)a.k * a.pitch;
  long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < slots; i += stride) {
    int j = (int)(i / a.pitch), r = a.lo + (int)(i - (long long)j * a.pitch);
    int c = -1;
    float w = 0.0f;
    if (r < a.n) {
      long long s = a.rowPtr[r] + j;
      if (s < a.rowPtr[r + 1]) {
        c = a.col[s];
        if (a.val) w = a.val[s];
      }
    }
    a.ellCol[i] = c;
    if (a.ellVal) a.ellVal[i] = w;
  }
}

// hb_coo: one warp a row, copying the row's tail past K.
extern "C" __global__ void hb_coo(const HB_Arg a, int unused) {
  int lane = threadIdx.x & 31;
  long long warps = ((long long)gridDim.x * blockDim.x) >> 5;
  for (long long r = a.lo + (((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5); r < a.n; r += warps) {
    long long d = a.cooPtr[r], len = a.cooPtr[r + 1] - d;
    if (len <= 0) continue;
    long long s = a.rowPtr[r] + a.k;
    for (long long i = lane; i < len; i += 32) {
      a.cooCol[d + i] = a.col[s + i];
      if (a.val) a.cooVal[d + i] = a.val[s + i];
    }
  }
}

// A parked run's written state arrays start the next run from their
// initial copy (park.go). The copy reads with an evict-first hint (__ldcs)
// and stores plainly: cuMemcpyDtoD left the initial copy in the L2 cache
// too, pushing out what the last run's supersteps had left there.
struct HB_Copy {
  const unsigned char* src;
  unsigned char* dst;
  long long bytes;
};

static_assert(sizeof(HB_Copy) == 24, "hpgraph: HB_Copy layout");

extern "C" __global__ void hb_restore(const HB_Copy a, int unused) {
  long long stride = (long long)gridDim.x * blockDim.x;
  long long i0 = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  long long n16 = a.bytes >> 4;
  const uint4* s = reinterpret_cast<const uint4*>(a.src);
  uint4* d = reinterpret_cast<uint4*>(a.dst);
  for (long long i = i0; i < n16; i += stride) d[i] = __ldcs(s + i);
  for (long long i = (n16 << 4) + i0; i < a.bytes; i += stride) a.dst[i] = __ldcs(a.src + i);
}

// Pull bins (bins.go) on the device, from the COO row offsets of the
// rows [lo, n) (a copy's: HB_Arg): every row with a COO part goes to the warp, quad or thread list, or is heavy, by
// its COO length; each list holds its rows in increasing order. A block
// takes HB_TILE rows (from lo), a thread HB_PER consecutive ones. hb_bin_count
// counts each tile's rows per bin, hb_bin_scan turns the counts into each
// tile's first place in its bin, hb_bin_place writes the rows there in
// order. A thread's four counts (at most HB_PER each) travel packed, 16
// bits a bin, so one scan orders all four bins.
#define HB_THREADS 256
#define HB_PER 8
#define HB_TILE (HB_THREADS * HB_PER)

struct HB_Bins {
  const long long* cooPtr;  // by row, [lo, n]
  int* counts;              // 4 per tile, then each tile's first place
  int* rows;                // the warp rows, then quad rows, then thread rows
  int* heavy;               // the heavy rows
  int* totals;              // 4: the rows in each bin
  int n, thread, quad, warp;
  int lo, pad_;             // the rows [lo, n)
};

static_assert(sizeof(HB_Bins) == 64, "hpgraph: HB_Bins layout");

// Bins 0 (warp), 1 (quad), 2 (thread), 3 (heavy); -1 for no COO part.
__device__ __forceinline__ int hb_bin(const HB_Bins& a, int r) {
  long long l = a.cooPtr[r + 1] - a.cooPtr[r];
  if (l == 0) return -1;
  if (l <= a.thread) return 2;
  if (l <= a.quad) return 1;
  if (l <= a.warp) return 0;
  return 3;
}

// The packed counts of this thread's rows of the tile.
__device__ __forceinline__ unsigned long long hb_thread_counts(const HB_Bins& a, long long first) {
  unsigned long long c = 0;
  for (int i = 0; i < HB_PER; i++) {
    long long r = first + i;
    if (r >= a.n) break;
    int b = hb_bin(a, (int)r);
    if (b >= 0) c += 1ull << (16 * b);
  }
  return c;
}

extern "C" __global__ void __launch_bounds__(HB_THREADS) hb_bin_count(const HB_Bins a, int unused) {
  long long tile = blockIdx.x;
  unsigned long long total;
  hp_block_scan<HB_THREADS>(hb_thread_counts(a, a.lo + tile * HB_TILE + (long long)threadIdx.x * HB_PER), &total);
  if (threadIdx.x < 4) a.counts[tile * 4 + threadIdx.x] = (int)((total >> (16 * threadIdx.x)) & 0xffff);
}

// One block: each bin's counts become each tile's first place in the
// bin's list (an exclusive scan over the tiles, in place); totals[b] is
// the bin's size.
extern "C" __global__ void __launch_bounds__(HB_THREADS) hb_bin_scan(const HB_Bins a, int tiles) {
  for (int b = 0; b < 4; b++) {
    unsigned long long carry = 0;
    for (int base = 0; base < tiles; base += HB_THREADS) {
      int t = base + threadIdx.x;
      unsigned long long v = t < tiles ? (unsigned long long)a.counts[t * 4 + b] : 0, total;
      unsigned long long ex = hp_block_scan<HB_THREADS>(v, &total);
      if (t < tiles) a.counts[t * 4 + b] = (int)(carry + ex);
      carry += total;
    }
    if (threadIdx.x == 0) a.totals[b] = (int)carry;
  }
}

extern "C" __global__ void __launch_bounds__(HB_THREADS) hb_bin_place(const HB_Bins a, int unused) {
  long long tile = blockIdx.x, first = a.lo + tile * HB_TILE + (long long)threadIdx.x * HB_PER;
  unsigned long long total;
  unsigned long long ex = hp_block_scan<HB_THREADS>(hb_thread_counts(a, first), &total);
  int at[4];
  int start[3] = {0, a.totals[0], a.totals[0] + a.totals[1]};
  for (int b = 0; b < 4; b++) at[b] = (b < 3 ? start[b] : 0) + a.counts[tile * 4 + b] + (int)((ex >> (16 * b)) & 0xffff);
  for (int i = 0; i < HB_PER; i++) {
    long long r = first + i;
    if (r >= a.n) break;
    int b = hb_bin(a, (int)r);
    if (b == 3) a.heavy[at[3]++] = (int)r;
    else if (b >= 0) a.rows[at[b]++] = (int)r;
  }
}

// A push matrix's row degrees (the ELL part's entries up to its first
// Pad, plus the COO part), and the chunks of pushChunk edges that a
// frontier of every vertex would queue (bins.go's pushChunks) added to
// *chunks.
struct HB_Deg {
  const int* ellCol;        // k*pitch
  const long long* cooPtr;  // n+1
  int* deg;                 // n
  unsigned long long* chunks;
  int n, k, pitch, chunk;
};

static_assert(sizeof(HB_Deg) == 48, "hpgraph: HB_Deg layout");

extern "C" __global__ void hb_degrees(const HB_Deg a, int unused) {
  long long stride = (long long)gridDim.x * blockDim.x;
  unsigned long long c = 0;
  for (long long r = (long long)blockIdx.x * blockDim.x + threadIdx.x; r < a.n; r += stride) {
    long long d = a.cooPtr[r + 1] - a.cooPtr[r];
    int j = 0;
    while (j < a.k && a.ellCol[(long long)j * a.pitch + r] != -1) j++;
    d += j;
    a.deg[r] = (int)d;
    if (d > a.chunk) c += (unsigned long long)((d + a.chunk - 1) / a.chunk);
  }
  for (int o = 16; o > 0; o >>= 1) c += __shfl_down_sync(0xffffffffu, c, o);
  if ((threadIdx.x & 31) == 0 && c) atomicAdd(a.chunks, c);
}

// A graph's orientation (vertexprog.Orientation) built from the HYB
// matrix of its Neighbors: row r's entries are its ELL slots up to the
// first Pad, then its COO part, sorted. deg[r] is the row's length without
// self loops; cnt[r] the entries u != r kept (all, or u ranked above r by
// (deg, id)); off[r] where r's list starts, lists padded to HB_OR_BLOCK
// entries with HB_OR_PAD; adj the lists.
#define HB_OR_BLOCK 4
#define HB_OR_PAD 2147483647
#define HB_OR_ROWS 1024  // rows a block of hb_or_scan1 sums (4 a thread)
struct HB_Or {
  const int* ellCol;        // k*pitch
  const int* cooCol;
  const long long* cooPtr;  // n+1
  int* deg;                 // n
  int* cnt;                 // n
  long long* off;           // n+1
  int* adj;                 // off[n]
  long long* sums;          // per HB_OR_ROWS rows (hb_or_scan1..3)
  // The ranked orientation's (hb_rk_*): rank[v]; the records' keys and
  // values (the sort's input, and iota's output); low[ρ], where the
  // records of the vertex of rank ρ start; padAt, the pad records' count.
  int* rank;
  int* key;
  int* val;
  long long* low;
  unsigned long long* padAt;
  // len[r]: row r's entries (hb_or_deg); seg: HB_OR_SEG times each row's
  // first segment (a scan of len rounded up), so hb_or_count and
  // hb_rk_records spread a hub's row over many warps.
  int* len;
  long long* seg;
  int n, k, pitch, all;
  int unit;  // the scans round each count up to it (HB_OR_BLOCK, or 1)
  int unused;
};

static_assert(sizeof(HB_Or) == 144, "hpgraph: HB_Or layout");

// A warp's unit of hb_or_count's and hb_rk_records' work: up to
// HB_OR_SEG entries of one row. A warp a row left a hub's row of ~10^5
// entries to one warp: 2-5 ms of a kron21 orientation (session 24).
#define HB_OR_SEG 256

__device__ __forceinline__ int hb_or_ell_len(const HB_Or& a, int r) {
  int j = 0;
  while (j < a.k && a.ellCol[(long long)j * a.pitch + r] != -1) j++;
  return j;
}

// hb_or_at is entry i of row r, whose ELL part holds el entries.
__device__ __forceinline__ int hb_or_at(const HB_Or& a, int r, int el, long long i) {
  return i < el ? a.ellCol[i * a.pitch + r] : a.cooCol[a.cooPtr[r] + (i - el)];
}

__device__ __forceinline__ bool hb_or_keep(const HB_Or& a, int r, int u) {
  if (u == r) return false;
  if (a.all) return true;
  const int dr = a.deg[r], du = a.deg[u];
  return dr < du || (dr == du && r < u);
}

// hb_or_deg: a thread a row; the self loops found by two binary searches.
extern "C" __global__ void hb_or_deg(const HB_Or a, int unused) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long rr = (long long)blockIdx.x * blockDim.x + threadIdx.x; rr < a.n; rr += stride) {
    const int r = (int)rr, el = hb_or_ell_len(a, r);
    const long long len = el + (a.cooPtr[r + 1] - a.cooPtr[r]);
    long long lo = 0, hi = len;  // first entry >= r
    while (lo < hi) {
      const long long mid = lo + (hi - lo) / 2;
      if (hb_or_at(a, r, el, mid) < r) lo = mid + 1; else hi = mid;
    }
    long long lo2 = lo, hi2 = len;  // first entry > r
    while (lo2 < hi2) {
      const long long mid = lo2 + (hi2 - lo2) / 2;
      if (hb_or_at(a, r, el, mid) <= r) lo2 = mid + 1; else hi2 = mid;
    }
    a.deg[r] = (int)(len - (lo2 - lo));
    a.len[r] = (int)len;
    a.cnt[r] = 0;  // (hb_or_count adds to it)
  }
}

// hb_or_segments walks the rows' segments (seg), a warp a run of
// consecutive ones, calling f(r, el, s0, s1) for each: row r, whose ELL
// part holds el entries, from entry s0 to s1.
template <typename F>
__device__ __forceinline__ void hb_or_segments(const HB_Or& a, F f) {
  const long long warps = ((long long)gridDim.x * blockDim.x) >> 5;
  const long long w = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  const long long total = a.seg[a.n] / HB_OR_SEG;
  const long long per = (total + warps - 1) / warps, c0 = w * per, c1 = min(c0 + per, total);
  int r = -1;
  for (long long c = c0; c < c1; c++) {
    const long long at = c * HB_OR_SEG;
    // the last row whose first segment is at or before c
    r = r < 0 ? hb_row_of(a.seg, 0, a.n - 1, at) : hb_next_row(a.seg, r, a.n, at);
    const long long len = a.len[r], s0 = at - a.seg[r];
    f(r, (int)(len - (a.cooPtr[r + 1] - a.cooPtr[r])), s0, min(s0 + HB_OR_SEG, len));
  }
}

// hb_or_count: a warp a segment, its kept entries added to its row's
// count.
extern "C" __global__ void hb_or_count(const HB_Or a, int unused) {
  const int lane = threadIdx.x & 31;
  hb_or_segments(a, [&](int r, int el, long long s0, long long s1) {
    int c = 0;
    for (long long i = s0 + lane; i < s1; i += 32) c += hb_or_keep(a, r, hb_or_at(a, r, el, i));
    for (int o = 16; o > 0; o >>= 1) c += __shfl_down_sync(0xffffffffu, c, o);
    if (lane == 0 && c) atomicAdd(a.cnt + r, c);
  });
}

// hb_or_padded is row r's list length rounded up to a.unit (0 past n).
__device__ __forceinline__ long long hb_or_padded(const HB_Or& a, long long r) {
  return r < a.n ? ((long long)a.cnt[r] + a.unit - 1) / a.unit * a.unit : 0;
}

// hb_or_scan1: block b (256 threads, 4 rows each) writes off[r+1] = the
// padded lengths of its rows up to r, and sums[b] their total. (The
// scans take any counts cnt to their offsets off: the ranked orientation
// scans two other arrays too.)
extern "C" __global__ void __launch_bounds__(256) hb_or_scan1(const HB_Or a, int unused) {
  const long long base = (long long)blockIdx.x * HB_OR_ROWS + threadIdx.x * 4;
  long long p[4], t = 0, total;
  for (int q = 0; q < 4; q++) t += (p[q] = hb_or_padded(a, base + q));
  long long run = hp_block_scan<256>(t, &total);
  for (int q = 0; q < 4; q++) {
    run += p[q];
    if (base + q < a.n) a.off[base + q + 1] = run;
  }
  if (threadIdx.x == 0) a.sums[blockIdx.x] = total;
}

// hb_or_scan2: one block turns sums[0..blocks) into exclusive prefix sums,
// 256 at a time with a carry.
extern "C" __global__ void __launch_bounds__(256) hb_or_scan2(const HB_Or a, int blocks) {
  long long carry = 0;
  for (int b0 = 0; b0 < blocks; b0 += 256) {
    const int b = b0 + threadIdx.x;
    const long long v = b < blocks ? a.sums[b] : 0;
    long long total;
    const long long ex = hp_block_scan<256>(v, &total);
    if (b < blocks) a.sums[b] = carry + ex;
    carry += total;
  }
  if (threadIdx.x == 0) a.off[0] = 0;
}

// hb_or_scan3: adds the rows before block b to its rows' off.
extern "C" __global__ void hb_or_scan3(const HB_Or a, int unused) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long r = (long long)blockIdx.x * blockDim.x + threadIdx.x; r < a.n; r += stride)
    a.off[r + 1] += a.sums[r / HB_OR_ROWS];
}

// hb_or_fill: a warp a row, writing the kept entries in the row's order
// (a ballot's prefix places each), then the padding.
extern "C" __global__ void hb_or_fill(const HB_Or a, int unused) {
  const int lane = threadIdx.x & 31;
  const unsigned below = (1u << lane) - 1;
  const long long warps = ((long long)gridDim.x * blockDim.x) >> 5;
  for (long long rr = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5; rr < a.n; rr += warps) {
    const int r = (int)rr, el = hb_or_ell_len(a, r);
    const long long len = el + (a.cooPtr[r + 1] - a.cooPtr[r]);
    long long at = a.off[r];
    for (long long i0 = 0; i0 < len; i0 += 32) {
      const long long i = i0 + lane;
      const int u = i < len ? hb_or_at(a, r, el, i) : -1;
      const bool keep = i < len && hb_or_keep(a, r, u);
      const unsigned bal = __ballot_sync(0xffffffffu, keep);
      if (keep) a.adj[at + __popc(bal & below)] = u;
      at += __popc(bal);
    }
    for (long long i = at + lane; i < a.off[r + 1]; i += 32) a.adj[i] = HB_OR_PAD;
  }
}

// A ranked orientation (vertexprog.Graph.RankedOrientation) of an
// undirected graph: the lists of the orientation above, in rank space
// (rank 0 the highest (deg, id)), laid out in rank order, built without
// sorting a list: deg and cnt as above (hb_or_deg, hb_or_count); ranks
// from a stable radix sort of the ids by degree (hb_rk_iota, the tr_
// passes of transpose.cu, hb_rk_rank); then, per vertex u, one record
// (ρ(v), ρ(u)) for each neighbour v below u (hb_rk_records), written
// where u's rank puts it (low: a scan, in rank order, of each vertex's
// count below, deg - cnt), so the records come in increasing ρ(u); and
// (ρ(u), n) for each slot of u's padding, after every real record. A
// stable sort of the records by key then leaves each row's values
// sorted, its padding last, and the rows in rank order: the values are
// Adj, n standing for the pad (hb_rk_adj). The graph is undirected, so
// the neighbours below u are exactly the vertices whose lists hold u.

// hb_rk_iota: val[i] = i for i < n.
extern "C" __global__ void hb_rk_iota(const HB_Or a, int unused) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < a.n; i += stride) a.val[i] = (int)i;
}

// hb_rk_rank: val holds the ids in increasing (deg, id): the p-th gets
// rank n-1-p.
extern "C" __global__ void hb_rk_rank(const HB_Or a, int unused) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long p = (long long)blockIdx.x * blockDim.x + threadIdx.x; p < a.n; p += stride)
    a.rank[a.val[p]] = (int)(a.n - 1 - p);
}

// hb_rk_counts: in rank order, key[ρ(v)] = v's neighbours below it
// (deg - cnt: every entry but a loop is above or below) and val[ρ(v)] its
// list's length, cnt.
extern "C" __global__ void hb_rk_counts(const HB_Or a, int unused) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long v = (long long)blockIdx.x * blockDim.x + threadIdx.x; v < a.n; v += stride) {
    const int r = a.rank[v];
    a.key[r] = a.deg[v] - a.cnt[v];
    a.val[r] = a.cnt[v];
  }
}

// hb_rk_records: a warp a segment of u's row, writing (ρ(v), ρ(u)) for
// each entry v below u from low[ρ(u)] on, where an atomic on low[ρ(u)]
// (a cursor from there) and a ballot's prefix place it (so u's records
// come in any order: the sort by key then leaves each list's values in
// increasing ρ(u) all the same, each u's records having distinct keys
// but for repeated entries, which are equal); and, with its first
// segment, its list's padding as (ρ(u), n) at padAt's count past low[n].
extern "C" __global__ void hb_rk_records(const HB_Or a, int unused) {
  const int lane = threadIdx.x & 31;
  const unsigned below = (1u << lane) - 1;
  hb_or_segments(a, [&](int u, int el, long long s0, long long s1) {
    const int ru = a.rank[u];
    for (long long i0 = s0; i0 < s1; i0 += 32) {
      const long long i = i0 + lane;
      const int v = i < s1 ? hb_or_at(a, u, el, i) : u;
      const bool keep = v != u && hb_or_keep(a, v, u);
      const unsigned bal = __ballot_sync(0xffffffffu, keep);
      if (!bal) continue;
      long long at = 0;
      if (lane == 0) at = (long long)atomicAdd((unsigned long long*)(a.low + ru), (unsigned long long)__popc(bal));
      at = __shfl_sync(0xffffffffu, at, 0);
      if (keep) {
        a.key[at + __popc(bal & below)] = a.rank[v];
        a.val[at + __popc(bal & below)] = ru;
      }
    }
    const int pads = (HB_OR_BLOCK - a.cnt[u] % HB_OR_BLOCK) % HB_OR_BLOCK;
    if (s0 == 0 && lane == 0 && pads) {
      const long long p = a.low[a.n] + (long long)atomicAdd(a.padAt, (unsigned long long)pads);
      for (int q = 0; q < pads; q++) {
        a.key[p + q] = ru;
        a.val[p + q] = a.n;
      }
    }
  });
}

// hb_rk_adj: adj from the sorted values (val), n becoming HB_OR_PAD.
extern "C" __global__ void hb_rk_adj(const HB_Or a, int unused) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  const long long len = a.off[a.n];
  for (long long s = (long long)blockIdx.x * blockDim.x + threadIdx.x; s < len; s += stride)
    a.adj[s] = a.val[s] == a.n ? HB_OR_PAD : a.val[s];
}

// A directed graph's ranked orientation (its Neighbors are in ∪ out, so
// the lists above are built alike) also says which edges have arcs both
// ways: bit s of both is set where the list entry in slot s, u in the
// list of v, has v -> u and u -> v among the graph's out-rows.
struct HB_Both {
  const long long* outPtr;  // n+1: the out-rows
  const int* outCol;
  const int* order;         // order[p]: the vertex of rank n-1-p
  const long long* off;     // by rank
  const int* cnt;
  const int* adj;
  unsigned* both;           // a bit a slot of adj, zeroed
  int n, unused;
};

static_assert(sizeof(HB_Both) == 64, "hpgraph: HB_Both layout");

// hb_has: whether the sorted col[lo, hi) holds x.
__device__ __forceinline__ bool hb_has(const int* col, long long lo, long long hi, int x) {
  const long long end = hi;
  while (lo < hi) {
    const long long mid = lo + (hi - lo) / 2;
    if (col[mid] < x) lo = mid + 1; else hi = mid;
  }
  return lo < end && col[lo] == x;
}

// hb_rk_both: a warp a list (rank r), a lane an entry.
extern "C" __global__ void hb_rk_both(const HB_Both a, int unused) {
  const int lane = threadIdx.x & 31;
  const long long warps = ((long long)gridDim.x * blockDim.x) >> 5;
  for (long long rr = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5; rr < a.n; rr += warps) {
    const int r = (int)rr, v = a.order[a.n - 1 - r];
    const long long s0 = a.off[r], c = a.cnt[r], vb = a.outPtr[v], ve = a.outPtr[v + 1];
    for (long long i = lane; i < c; i += 32) {
      const int u = a.order[a.n - 1 - a.adj[s0 + i]];
      if (hb_has(a.outCol, vb, ve, u) && hb_has(a.outCol, a.outPtr[u], a.outPtr[u + 1], v)) {
        const long long s = s0 + i;
        atomicOr(a.both + (s >> 5), 1u << (s & 31));
      }
    }
  }
}

// A directed graph's undirected view (symmetrize.go): row v merges v's
// out-row A (the graph's) and in-row B (the transpose's), every
// neighbour once with its lightest weight, out-entries first among
// equal ones: what datasets.Graph.Symmetrized makes on the host
// (mergeRows there). Arc-parallel, so a hub's row is spread over many
// warps: each side's rows are cut in chunks of 32 arcs (ch: 32 times a
// row's first chunk, a scan of the degrees rounded up to 32), a warp a
// chunk. A kept entry of A is the first of its run of equal columns; of
// B, the first of its run that A's row lacks (a binary search). Each
// chunk's kept entries are a ballot (mask) and its count (cnt), scanned
// into base, so an entry's rank among its row's kept ones is a
// difference of two bases and a popcount, and its place in the merged
// row that rank plus the kept entries of the other side below it (a
// binary search there, then the same sum).
struct HB_Sym {
  const long long* ptr[2];  // n+1: side 0 A (out-rows), 1 B (in-rows)
  const int* col[2];
  const float* val[2];      // or null: unweighted
  int* deg[2];              // n: the rows' lengths (hb_sy_deg)
  const long long* ch[2];   // n+1: 32 × each row's first chunk
  unsigned* mask[2];        // a chunk's kept entries
  int* cnt[2];              // their count, scanned into base
  const long long* base[2]; // chunks+1
  long long* symPtr;        // n+1 (hb_sy_rows)
  int* symCol;
  float* symVal;            // or null
  long long chunks[2];      // a bound on each side's chunks, as allocated
  int n, unused;
};

static_assert(sizeof(HB_Sym) == 176, "hpgraph: HB_Sym layout");

// hb_sy_lower: the first index of the sorted col[lo, hi) whose value is
// not below x (hi if none).
__device__ __forceinline__ long long hb_sy_lower(const int* col, long long lo, long long hi, int x) {
  while (lo < hi) {
    const long long mid = lo + (hi - lo) / 2;
    if (col[mid] < x) lo = mid + 1; else hi = mid;
  }
  return lo;
}

// hb_sy_below: of side s's kept entries in row u, how many lie before its
// index i (ptr[u] <= i <= ptr[u+1]).
__device__ __forceinline__ long long hb_sy_below(const HB_Sym& a, int s, int u, long long i) {
  const long long k = i - a.ptr[s][u], c0 = a.ch[s][u] >> 5, c = c0 + (k >> 5);
  return a.base[s][c] - a.base[s][c0] + __popc(a.mask[s][c] & ((1u << (k & 31)) - 1));
}

// hb_sy_deg: both sides' row lengths.
extern "C" __global__ void hb_sy_deg(const HB_Sym a, int unused) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long v = (long long)blockIdx.x * blockDim.x + threadIdx.x; v < a.n; v += stride)
    for (int s = 0; s < 2; s++) a.deg[s][v] = (int)(a.ptr[s][v + 1] - a.ptr[s][v]);
}

// hb_sy_chunks walks side s's chunks, a warp a run of consecutive ones,
// calling f(u, c, i, in) for each: u its row, c the chunk, i the lane's
// arc, in whether that arc is in the row. Chunks past the last (up to the
// bound allocated) call f with u = -1.
template <typename F>
__device__ __forceinline__ void hb_sy_chunks(const HB_Sym& a, int s, F f) {
  const long long warps = ((long long)gridDim.x * blockDim.x) >> 5;
  const long long w = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  const long long per = (a.chunks[s] + warps - 1) / warps, c0 = w * per, c1 = min(c0 + per, a.chunks[s]);
  const long long total = a.ch[s][a.n] >> 5;
  const int lane = threadIdx.x & 31;
  int u = -1;
  for (long long c = c0; c < c1; c++) {
    if (c >= total) {
      f(-1, c, 0LL, false);
      continue;
    }
    const long long at = c << 5;
    // the last row whose first chunk is at or before c
    u = u < 0 ? hb_row_of(a.ch[s], 0, a.n - 1, at) : hb_next_row(a.ch[s], u, a.n, at);
    const long long i = a.ptr[s][u] + (at - a.ch[s][u]) + lane;
    f(u, c, i, i < a.ptr[s][u + 1]);
  }
}

// hb_sy_mask: the kept entries of side s's chunks.
extern "C" __global__ void hb_sy_mask(const HB_Sym a, int s) {
  hb_sy_chunks(a, s, [&](int u, long long c, long long i, bool in) {
    bool keep = false;
    if (in) {
      const int x = a.col[s][i];
      keep = i == a.ptr[s][u] || a.col[s][i - 1] != x;
      if (keep && s == 1) {  // B's entry kept only where A's row lacks it
        const long long e = a.ptr[0][u + 1], j = hb_sy_lower(a.col[0], a.ptr[0][u], e, x);
        keep = j == e || a.col[0][j] != x;
      }
    }
    const unsigned m = __ballot_sync(0xffffffffu, keep);
    if ((threadIdx.x & 31) == 0) {
      a.mask[s][c] = m;
      a.cnt[s][c] = __popc(m);
    }
  });
}

// hb_sy_rows: the view's row offsets, each side's kept entries before
// row v summed.
extern "C" __global__ void hb_sy_rows(const HB_Sym a, int unused) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long v = (long long)blockIdx.x * blockDim.x + threadIdx.x; v <= a.n; v += stride)
    a.symPtr[v] = a.base[0][a.ch[0][v] >> 5] + a.base[1][a.ch[1][v] >> 5];
}

// hb_sy_fill: side s's kept entries written where the merge puts them.
// An entry of A takes the lightest weight of its run, then of B's run of
// the same column (strictly lighter only: the host's merge keeps the
// first of equal weights); an entry of B, of its run.
extern "C" __global__ void hb_sy_fill(const HB_Sym a, int s) {
  const int o = 1 - s;
  hb_sy_chunks(a, s, [&](int u, long long c, long long i, bool in) {
    if (!in) return;
    const unsigned m = a.mask[s][c];
    const int lane = threadIdx.x & 31;
    if (!(m >> lane & 1)) return;
    const int x = a.col[s][i];
    const long long oe = a.ptr[o][u + 1], j = hb_sy_lower(a.col[o], a.ptr[o][u], oe, x);
    const long long rank = a.base[s][c] - a.base[s][a.ch[s][u] >> 5] + __popc(m & ((1u << lane) - 1));
    const long long at = a.symPtr[u] + rank + hb_sy_below(a, o, u, j);
    a.symCol[at] = x;
    if (a.symVal) {
      const long long e = a.ptr[s][u + 1];
      float w = a.val[s][i];
      for (long long k = i + 1; k < e && a.col[s][k] == x; k++)
        if (a.val[s][k] < w) w = a.val[s][k];
      if (s == 0)
        for (long long k = j; k < oe && a.col[o][k] == x; k++)
          if (a.val[o][k] < w) w = a.val[o][k];
      a.symVal[at] = w;
    }
  });
}
