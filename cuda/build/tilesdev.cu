// hpgraph CUDA: PREPROCESS on the device — a pull matrix's column-sorted
// tiles (tiles.go's makePullTiles, array by array), built from its HYB
// arrays on the device (tilesdev.go). The steps:
//
//   tl_plan      a block a segment: the cap, each row's slots (parts) and
//                first virtual slot (part), the segment's virtual slots
//   tl_vrow      each virtual slot's row
//   tl_assign    a block a segment: the slots' warps (tileWorker.assign),
//                the slots' loads in closed form from the rows' lengths
//   tl_rec_ell,  each entry (row r, k-th of its row, column c) of a piece's
//   tl_rec_coo   rows as a record (c; segment << slotBits | slot, weight)
//                at its CSR place (from the piece's first, tilesdev.go);
//                its slot is k mod parts[r] (tileWorker.plan's round robin:
//                a row's entries in column order are its CSR row)
//   (two stable radix sorts of transpose.cu: by column, then by segment,
//   so each segment's entries go by column, rows increasing: passes 1
//   and 2 of makePullTiles; a symmetric matrix's records are made in
//   column order, and only the second sort is needed)
//   tl_streams   a block a tile: its entries by warp stream (stable), and
//                the X sectors they touch
//   tl_group     a warp a stream: groups or groupsNear, step by step as
//                tiles.go's, recording each entry's group and lane
//   tl_fill,     the groups' places padded, then the packed entries into
//   tl_expand    their groups' lanes (a block a tile), and the groups' bases

#define TL_THREADS 256
#define TL_WARPS (TL_THREADS / 32)
#define TL_W 16            // tileWarps
#define TL_CAPDIV 4        // tileCapDiv
#define TL_WINDOW 64       // tileNearWindow
#define TL_PEND 4096       // groupsNear's window at its largest
#define TL_WAITING 4096    // groups' waiting entries at most
#define TL_WAIT 8192       // groups' waiting list's places (taken ones too)
#define TL_MAXSLOTS 8704   // rmax + vmax at most (8,192 rows, 511 virtual slots)
#define TL_FULL 0xffffffffu

#include "scan.cuh"
#include "rows.cuh"

struct TL_Arg {
  const int* ellCol;          // K*pitch, by row (a copy of rows [lo, hi): shifted back by lo)
  const unsigned* ellVal;     // K*pitch, or null
  const int* cooCol;          // coo
  const unsigned* cooVal;     // coo, or null
  const long long* cooPtr;    // n+1, by row (a copy's rows and its end only)
  const long long* rowPtr;    // n+1: the rows' CSR offsets
  const int* csrCol;          // rowPtr[n]: the CSR's columns where the device has it, or null
  int* part;                  // n: a row's first virtual slot (in its segment), -1 for none
  int* parts;                 // n: a row's slots
  int* nv;                    // nseg: a segment's virtual slots
  const int* vfirst;          // nseg+1
  int* vrow;                  // vfirst[nseg]: a virtual slot's row in its segment
  unsigned char* owner;       // nseg*(rmax+vmax): a slot's warp, by compact index
  int* key;                   // nnz records: columns
  int* src;                   //   segment << slotBits | slot
  unsigned* val;              //   weights' bits, or null
  const int* sCol;            // nnz, sorted: columns
  const int* sSlot;           //   segment << slotBits | slot
  const unsigned* sVal;       //   weights, or null
  const long long* tileLo;    // tiles+1: a tile's first entry (the next tile's is its end)
  const int* tileSeg;         // tiles
  int* streamOff;             // tiles*(TL_W+1): a stream's first entry in its tile's list
  unsigned short* streams;    // nnz: the tiles' entries (from the tile's first) by stream
  long long* sectors;         // tiles: the X sectors a tile touches
  unsigned* code;             // nnz: an entry's group in its stream << 5 | lane
  int* tmpBase;               // nnz: a stream's groups' bases, at the stream's places
  int* groups;                // tiles*TL_W: a stream's groups
  int* scratch;               // pool threads' waiting lists
  int* next;                  // the next stream a pool thread takes
  const long long* groupOff;  // tiles*TL_W: a stream's first group in the output
  unsigned* arcs;             // groups*32
  unsigned* vals;             // groups*32, or null
  int* base;                  // groups
  long long nnz, coo, tiles;  // coo: the end of the piece's COO entries
  long long fill;             // tl_fill: the words of arcs (and vals)
  long long recBase;          // the piece's first CSR place: its records' 0
  long long cooLo;            // the piece's first COO entry
  int n, K, pitch, rowBits, slotBits, nseg, rmax, vmax, near, pool;
  int sym;                    // the matrix is its own transpose (tl_record)
  int r0, r1;                 // the piece's rows (whole segments) that the copy holds
  int pad;
};

static_assert(sizeof(TL_Arg) == 368, "hpgraph: TL_Arg layout");

__device__ __forceinline__ long long tl_deg(const TL_Arg& a, int r) { return a.rowPtr[r + 1] - a.rowPtr[r]; }

// tl_plan: tileWorker.plan's split of segment s's rows: the cap (raised
// until the virtual slots fit), each row's slots and first virtual slot.
extern "C" __global__ void __launch_bounds__(TL_THREADS) tl_plan(const TL_Arg a, int unused) {
  const int R = 1 << a.rowBits;
  for (int s = blockIdx.x; s < a.nseg; s += gridDim.x) {
    const int r0 = s << a.rowBits, nrows = min(R, a.n - r0);
    const long long entries = a.rowPtr[r0 + nrows] - a.rowPtr[r0];
    long long cap = max(32LL, entries / (TL_W * 32 * TL_CAPDIV)), total;
    for (;;) {
      long long v = 0;
      for (int i = threadIdx.x; i < nrows; i += TL_THREADS) {
        const long long d = tl_deg(a, r0 + i);
        if (d > cap) v += (d + cap - 1) / cap - 1;
      }
      hp_block_scan<TL_THREADS>(v, &total);
      if (total <= a.vmax) break;
      cap *= 2;
    }
    // A thread a run of consecutive rows, so the virtual slots go in row order.
    const int per = (nrows + TL_THREADS - 1) / TL_THREADS;
    const int lo = min(nrows, (int)threadIdx.x * per), hi = min(nrows, lo + per);
    long long mine = 0;
    for (int i = lo; i < hi; i++) {
      const long long d = tl_deg(a, r0 + i);
      if (d > cap) mine += (d + cap - 1) / cap - 1;
    }
    long long off = hp_block_scan<TL_THREADS>(mine, &total);
    for (int i = lo; i < hi; i++) {
      const long long d = tl_deg(a, r0 + i);
      int k = 1, p = -1;
      if (d > cap) {
        k = (int)((d + cap - 1) / cap);
        p = (int)off;
        off += k - 1;
      }
      a.parts[r0 + i] = k;
      a.part[r0 + i] = p;
    }
    if (threadIdx.x == 0) a.nv[s] = (int)total;
  }
}

// tl_vrow: a thread a row of a segment; a split row's virtual slots name it.
extern "C" __global__ void __launch_bounds__(TL_THREADS) tl_vrow(const TL_Arg a, int unused) {
  const int R = 1 << a.rowBits;
  for (int s = blockIdx.x; s < a.nseg; s += gridDim.x) {
    const int r0 = s << a.rowBits, nrows = min(R, a.n - r0);
    for (int i = threadIdx.x; i < nrows; i += TL_THREADS) {
      const int k = a.parts[r0 + i];
      if (k > 1) {
        int* v = a.vrow + a.vfirst[s] + a.part[r0 + i];
        for (int j = 0; j < k - 1; j++) v[j] = i;
      }
    }
  }
}

// tl_load is the entries of slot ix (compact index) of segment s: a
// row's entries go round robin over its slots, so slot j of a row of d
// entries and k slots takes ceil((d - j) / k).
__device__ __forceinline__ long long tl_load(const TL_Arg& a, int s, int ix, int nrows, int v0, int nv) {
  const int r0 = s << a.rowBits;
  if (ix < a.rmax) {
    if (ix >= nrows) return 0;
    const long long d = tl_deg(a, r0 + ix);
    const int k = a.parts[r0 + ix];
    return (d + k - 1) / k;
  }
  const int v = ix - a.rmax;
  if (v >= nv) return 0;
  const int r = r0 + a.vrow[v0 + v];
  const int k = a.parts[r], j = v - a.part[r] + 1;
  return (tl_deg(a, r) - j + k - 1) / k;
}

__device__ __forceinline__ int tl_lane(const TL_Arg& a, int ix) {
  return ix < a.rmax ? ix & 31 : ((1 << a.rowBits) + ix - a.rmax) & 31;
}

// tl_assign: tileWorker.assign for segment s: chunks of 32 slots, largest
// first (ties by index), each to the warp whose busiest lane it raises
// least (ties: the least loaded warp, then the first).
extern "C" __global__ void __launch_bounds__(TL_THREADS) tl_assign(const TL_Arg a, int unused) {
  __shared__ long long cl[TL_MAXSLOTS / 32];
  __shared__ int order[TL_MAXSLOTS / 32];
  __shared__ long long lanes[TL_W][32];
  __shared__ long long wl[TL_W], mk[TL_W], ld[32];
  __shared__ int ln[32], npos;
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int R = 1 << a.rowBits, stride = a.rmax + a.vmax;
  for (int s = blockIdx.x; s < a.nseg; s += gridDim.x) {
    const int nrows = min(R, a.n - (s << a.rowBits));
    const int v0 = a.vfirst[s], nv = a.vfirst[s + 1] - v0;
    const int ns = a.rmax + nv, nch = (ns + 31) / 32;
    unsigned char* owner = a.owner + (long long)s * stride;
    for (int c = warp; c < nch; c += TL_WARPS) {
      const int i = c * 32 + lane;
      long long l = i < ns ? tl_load(a, s, i, nrows, v0, nv) : 0;
      for (int o = 16; o > 0; o >>= 1) l += __shfl_xor_sync(TL_FULL, l, o);
      if (lane == 0) cl[c] = l;
    }
    for (int i = tid; i < ns; i += TL_THREADS) owner[i] = 0;
    for (int i = tid; i < TL_W * 32; i += TL_THREADS) lanes[i >> 5][i & 31] = 0;
    if (tid < TL_W) wl[tid] = 0;
    if (tid == 0) npos = 0;
    __syncthreads();
    for (int c = tid; c < nch; c += TL_THREADS) {
      if (cl[c] <= 0) continue;
      int rank = 0;
      for (int c2 = 0; c2 < nch; c2++) {
        if (cl[c2] > 0 && (cl[c2] > cl[c] || cl[c2] == cl[c] && c2 < c)) rank++;
      }
      order[rank] = c;
      atomicAdd(&npos, 1);
    }
    __syncthreads();
    for (int o = 0; o < npos; o++) {
      const int c = order[o];
      if (tid < 32) {
        const int i = c * 32 + tid;
        ld[tid] = i < ns ? tl_load(a, s, i, nrows, v0, nv) : -1;
        ln[tid] = tl_lane(a, i);
      }
      __syncthreads();
      for (int k = warp; k < TL_W; k += TL_WARPS) {
        long long m = ld[lane] >= 0 ? lanes[k][ln[lane]] + ld[lane] : 0;
        for (int q = 16; q > 0; q >>= 1) m = max(m, __shfl_xor_sync(TL_FULL, m, q));
        if (lane == 0) mk[k] = m;
      }
      __syncthreads();
      if (tid == 0) {
        int best = 0;
        long long bestMax = -1;
        for (int k = 0; k < TL_W; k++) {
          const long long m = mk[k];
          if (bestMax < 0 || m < bestMax || m == bestMax && wl[k] < wl[best]) best = k, bestMax = m;
        }
        for (int l = 0; l < 32 && ld[l] >= 0; l++) {
          owner[c * 32 + l] = (unsigned char)best;
          lanes[best][ln[l]] += ld[l];
          wl[best] += ld[l];
        }
      }
      __syncthreads();
    }
    __syncthreads();
  }
}

// tl_col_at is entry k of row r: from the CSR where it is there (a row's
// entries side by side), else its ELL slot k or its COO entry k-K.
__device__ __forceinline__ int tl_col_at(const TL_Arg& a, int r, long long k) {
  if (a.csrCol != nullptr) return a.csrCol[a.rowPtr[r] + k];
  return k < a.K ? a.ellCol[k * a.pitch + r] : a.cooCol[a.cooPtr[r] + k - a.K];
}

// tl_lower is the first k in [0, d) with entry k of row r >= c.
__device__ __forceinline__ long long tl_lower(const TL_Arg& a, int r, long long d, int c) {
  long long lo = 0, hi = d;
  while (lo < hi) {
    const long long mid = (lo + hi) >> 1;
    if (tl_col_at(a, r, mid) < c) lo = mid + 1; else hi = mid;
  }
  return lo;
}

// tl_record writes a record for entry k of HYB row `row` (column col,
// weight bits w) at its CSR place. By rows (sym 0): the entry itself,
// (col; segment << slotBits | slot), its slot from k. A symmetric matrix
// (sym 1) is its own transpose, so its rows in order are its columns in
// order: the record is the entry (col, row), (segment << slotBits | slot;
// row), already in column order, and its rank in row col (for a row
// split over several slots) is found by binary search of that row
// (after parallel entries equal to it, by their order in row `row`).
__device__ __forceinline__ void tl_record(const TL_Arg& a, int row, long long k, int col, unsigned w) {
  const long long p = a.rowPtr[row] + k - a.recBase;
  int r = row, c = col;
  long long rank = k;
  if (a.sym) {
    r = col, c = row;
    rank = 0;
    if (a.parts[r] > 1) {
      rank = tl_lower(a, r, tl_deg(a, r), c);
      if (k > 0 && tl_col_at(a, row, k - 1) == col) rank += k - tl_lower(a, row, tl_deg(a, row), col);
    }
  }
  const int ps = a.parts[r];
  const int j = (int)(rank % ps);
  const unsigned slot = j == 0 ? (unsigned)(r & ((1 << a.rowBits) - 1)) : (unsigned)((1 << a.rowBits) + a.part[r] + j - 1);
  const int packed = (int)(((unsigned)(r >> a.rowBits) << a.slotBits) | slot);
  a.key[p] = a.sym ? packed : c;
  a.src[p] = a.sym ? c : packed;
  if (a.val != nullptr) a.val[p] = w;
}

// tl_rec_ell: a thread an ELL slot of the piece's rows [r0, r1).
extern "C" __global__ void __launch_bounds__(TL_THREADS) tl_rec_ell(const TL_Arg a, int unused) {
  const long long rows = a.r1 - a.r0, slots = (long long)a.K * rows;
  for (long long i = (long long)blockIdx.x * TL_THREADS + threadIdx.x; i < slots; i += (long long)gridDim.x * TL_THREADS) {
    const int k = (int)(i / rows), r = a.r0 + (int)(i - (long long)k * rows);
    const long long e = (long long)k * a.pitch + r;
    const int c = a.ellCol[e];
    if (c >= 0) tl_record(a, r, k, c, a.ellVal != nullptr ? a.ellVal[e] : 0u);
  }
}

// tl_rec_coo: a block 4,096 COO entries: two searches (of the piece's
// rows [r0, r1), which hold them) find their first and last rows, then
// each entry's search stays between them.
extern "C" __global__ void __launch_bounds__(TL_THREADS) tl_rec_coo(const TL_Arg a, int unused) {
  __shared__ int rows[2];
  const long long tiles = (a.coo - a.cooLo + 4095) / 4096;
  for (long long t = blockIdx.x; t < tiles; t += gridDim.x) {
    const long long lo = a.cooLo + t * 4096, hi = lo + 4096 < a.coo ? lo + 4096 : a.coo;
    if (threadIdx.x == 0) rows[0] = hb_row_of(a.cooPtr, a.r0, a.r1 - 1, lo);
    if (threadIdx.x == 32) rows[1] = hb_row_of(a.cooPtr, a.r0, a.r1 - 1, hi - 1);
    __syncthreads();
    const int r0 = rows[0], r1 = rows[1];
    for (long long i = lo + threadIdx.x; i < hi; i += TL_THREADS) {
      const int r = hb_row_of(a.cooPtr, r0, r1, i);
      tl_record(a, r, a.K + (i - a.cooPtr[r]), a.cooCol[i], a.cooVal != nullptr ? a.cooVal[i] : 0u);
    }
    __syncthreads();
  }
}

__device__ __forceinline__ int tl_ix(const TL_Arg& a, unsigned sl) {
  return sl < (1u << a.rowBits) ? (int)sl : a.rmax + (int)sl - (1 << a.rowBits);
}

// tl_owner is the warp of sorted entry q of segment s.
__device__ __forceinline__ int tl_owner(const TL_Arg& a, int s, long long q) {
  const unsigned sl = (unsigned)a.sSlot[q] & ((1u << a.slotBits) - 1);
  return a.owner[(long long)s * (a.rmax + a.vmax) + tl_ix(a, sl)];
}

// tl_streams: a block a tile. Each warp takes a run of the tile's
// entries and counts them by owner; the counts scanned (owner-major), the
// warps place them again in order: each stream's entries in column
// order. And the X sectors (8 columns) the tile's entries touch.
extern "C" __global__ void __launch_bounds__(TL_THREADS) tl_streams(const TL_Arg a, int unused) {
  __shared__ int wc[TL_WARPS][TL_W + 1];
  __shared__ int start[TL_W + 1];
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const unsigned below = (1u << lane) - 1;
  for (long long t = blockIdx.x; t < a.tiles; t += gridDim.x) {
    const long long lo = a.tileLo[t], hi = a.tileLo[t + 1];
    const int s = a.tileSeg[t];
    const long long cnt = hi - lo;
    const long long chunk = (cnt + TL_THREADS - 1) / TL_THREADS * 32;
    const long long wlo = lo + min(cnt, warp * chunk), whi = lo + min(cnt, (warp + 1) * chunk);
    if (lane <= TL_W) wc[warp][lane] = 0;
    __syncthreads();
    long long sec = 0;
    for (long long q0 = wlo; q0 < whi; q0 += 32) {
      const long long q = q0 + lane;
      int o = TL_W;
      if (q < whi) {
        o = tl_owner(a, s, q);
        if (q == lo || (a.sCol[q] >> 3) != (a.sCol[q - 1] >> 3)) sec++;
      }
      const unsigned peers = __match_any_sync(TL_FULL, o);
      if ((peers & below) == 0 && o < TL_W) wc[warp][o] += __popc(peers);
    }
    long long total;
    hp_block_scan<TL_THREADS>(sec, &total);
    if (tid == 0) {
      a.sectors[t] = total;
      int run = 0;
      for (int k = 0; k < TL_W; k++) {
        start[k] = run;
        for (int w = 0; w < TL_WARPS; w++) {
          const int c = wc[w][k];
          wc[w][k] = run;
          run += c;
        }
      }
      start[TL_W] = run;
    }
    __syncthreads();
    if (tid <= TL_W) a.streamOff[t * (TL_W + 1) + tid] = start[tid];
    for (long long q0 = wlo; q0 < whi; q0 += 32) {
      const long long q = q0 + lane;
      const int o = q < whi ? tl_owner(a, s, q) : TL_W;
      const unsigned peers = __match_any_sync(TL_FULL, o);
      if (o < TL_W) a.streams[lo + wc[warp][o] + __popc(peers & below)] = (unsigned short)(q - lo);
      __syncwarp();
      if ((peers & below) == 0 && o < TL_W) wc[warp][o] += __popc(peers);
      __syncwarp();
    }
    __syncthreads();
  }
}

