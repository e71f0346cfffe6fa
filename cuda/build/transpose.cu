// hpgraph CUDA: PREPROCESS on the device — the transpose of a CSR that is
// on the device already (transpose.go), equal to datasets.Graph.Transpose
// on the host: row v lists the tails u of the arcs u -> v, sorted by u,
// parallel arcs by weight.
//
// The arcs, in the CSR's order (tails increasing), are sorted stably by
// head: an LSD radix sort of (head; tail, weight) records, TR_DIGIT_BITS
// bits of the head a pass. Stability keeps the tails increasing within
// each head, so the sorted tails are the transpose's columns. Each pass
// is tr_hist (every tile's digit counts), tr_scan1 and tr_scan2 (their
// exclusive scan, digit-major, so a tile's run of a digit follows the
// smaller digits and the earlier tiles' runs of it), tr_scatter (the
// records of a tile ranked stably in shared memory, then written out in
// digit runs). tr_src writes each arc's tail before the first pass;
// tr_rowptr finds each row's start in the sorted heads; tr_fix sorts the
// weights of each run of parallel arcs (already sorted when the out-rows
// list parallel arcs by weight, as every datasets.Graph does: then it
// only reads).

#define TR_THREADS 256
#define TR_WARPS (TR_THREADS / 32)
#define TR_ITEMS 16                       // records a thread of a tile
#define TR_TILE (TR_THREADS * TR_ITEMS)   // records a block of tr_src, tr_hist, tr_scatter
#define TR_DIGIT_BITS 8
#define TR_RADIX (1 << TR_DIGIT_BITS)
#define TR_SCAN_CHUNK (TR_THREADS * 16)   // histogram entries a block of tr_scan1 scans
#define TR_FULL 0xffffffffu

#include "scan.cuh"
#include "radix.cuh"
#include "rows.cuh"

static_assert(TR_RADIX == TR_THREADS, "hpgraph: a thread a digit");

struct TR_Arg {
  const long long* rowPtr;  // n+1: the CSR's row offsets (tr_src)
  const int* keyIn;         // nnz: heads, in the pass's input order
  const int* srcIn;         // nnz: tails
  const unsigned* valIn;    // nnz: weights' bits, or null
  int* keyOut;              // nnz
  int* srcOut;              // nnz (tr_src: the tails it writes)
  unsigned* valOut;         // nnz, or null (tr_fix: sorted in place)
  unsigned* hist;           // TR_RADIX*tiles: counts, then chunk-local offsets
  long long* sums;          // per TR_SCAN_CHUNK of hist: its first offset
  long long* tRowPtr;       // n+1 (tr_rowptr)
  long long nnz;
  long long tiles;          // ceil(nnz / TR_TILE)
  int n, shift;             // shift: the pass's digit's lowest bit
  long long base;           // tr_src: the first arc's index in the CSR (a chunk's)
};

static_assert(sizeof(TR_Arg) == 112, "hpgraph: TR_Arg layout");

// tr_src: a block a tile of arcs; two searches over all rows find the
// tile's first and last rows, then each arc's search stays between them.
extern "C" __global__ void __launch_bounds__(TR_THREADS) tr_src(const TR_Arg a, int unused) {
  __shared__ int rows[2];
  for (long long t = blockIdx.x; t < a.tiles; t += gridDim.x) {
    const long long lo = t * TR_TILE;
    const long long hi = lo + TR_TILE < a.nnz ? lo + TR_TILE : a.nnz;
    hb_tile_rows(a.rowPtr, a.n, a.base + lo, a.base + hi, rows);
    const int r0 = rows[0], r1 = rows[1];
    for (long long i = lo + threadIdx.x; i < hi; i += TR_THREADS) a.srcOut[i] = hb_row_of(a.rowPtr, r0, r1, a.base + i);
    __syncthreads();  // (rows is rewritten for the next tile)
  }
}

// tr_hist: a block a tile; its digit counts (radix.cuh) go to
// hist[digit*tiles + tile] (digit-major: the order of the scan).
extern "C" __global__ void __launch_bounds__(TR_THREADS) tr_hist(const TR_Arg a, int unused) {
  const long long tile = blockIdx.x;
  const int c = hp_radix_count<TR_RADIX, TR_ITEMS, 4>((const unsigned*)a.keyIn, a.nnz, tile * TR_TILE, a.shift);
  a.hist[(long long)threadIdx.x * a.tiles + tile] = (unsigned)c;
}

// tr_scan1: block b scans hist's chunk b (TR_SCAN_CHUNK entries, 16 a
// thread) in place, exclusively (a chunk holds at most TR_SCAN_CHUNK *
// TR_TILE = 2^24 records: 32 bits suffice), and writes its total to
// sums[b].
extern "C" __global__ void __launch_bounds__(TR_THREADS) tr_scan1(const TR_Arg a, int unused) {
  const long long len = a.tiles * TR_RADIX;
  const long long base = (long long)blockIdx.x * TR_SCAN_CHUNK + (long long)threadIdx.x * (TR_SCAN_CHUNK / TR_THREADS);
  unsigned v[TR_SCAN_CHUNK / TR_THREADS];
  long long t = 0;
#pragma unroll
  for (int q = 0; q < TR_SCAN_CHUNK / TR_THREADS; q++) {
    v[q] = base + q < len ? a.hist[base + q] : 0u;
    t += v[q];
  }
  long long total;
  long long run = hp_block_scan<TR_THREADS>(t, &total);
#pragma unroll
  for (int q = 0; q < TR_SCAN_CHUNK / TR_THREADS; q++) {
    if (base + q < len) a.hist[base + q] = (unsigned)run;
    run += v[q];
  }
  if (threadIdx.x == 0) a.sums[blockIdx.x] = total;
}

// tr_scan2: one block turns sums into exclusive prefix sums (64 bits),
// TR_THREADS at a time with a carry.
extern "C" __global__ void __launch_bounds__(TR_THREADS) tr_scan2(const TR_Arg a, int unused) {
  const long long chunks = (a.tiles * TR_RADIX + TR_SCAN_CHUNK - 1) / TR_SCAN_CHUNK;
  long long carry = 0;
  for (long long b0 = 0; b0 < chunks; b0 += TR_THREADS) {
    const long long b = b0 + threadIdx.x;
    const long long v = b < chunks ? a.sums[b] : 0;
    long long total;
    const long long ex = hp_block_scan<TR_THREADS>(v, &total);
    if (b < chunks) a.sums[b] = carry + ex;
    carry += total;
  }
}

// tr_scatter: a block a tile. Ranks: the tile's records in TR_ITEMS rounds
// of TR_THREADS (round, warp, lane: the input order); in each, a warp's
// equal digits are found by __match_any_sync, each group's leader writes
// its size to wc[warp][digit], and thread t turns digit t's column into
// the warps' first ranks (after the earlier rounds' count of the digit,
// which t keeps). Two wc buffers alternate, so thread t clears the next
// round's column while it scans this one, and a round takes two barriers.
// Then the records go to shared memory in digit order (one array at a
// time) and out from there, consecutive threads writing consecutive
// places of a digit's run.
extern "C" __global__ void __launch_bounds__(TR_THREADS) tr_scatter(const TR_Arg a, int unused) {
  __shared__ int wc[2][TR_WARPS][TR_RADIX];  // 16 KB
  __shared__ unsigned buf[TR_TILE];          // 16 KB
  __shared__ int lstart[TR_RADIX];           // the digit's first place in the tile
  __shared__ long long gbase[TR_RADIX];      // the tile's digit's first place in the output
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const unsigned below = (1u << lane) - 1;
  const long long tile = blockIdx.x, first = tile * TR_TILE;
  const long long left = a.nnz - first;
  const int count = left < TR_TILE ? (int)left : TR_TILE;
  const int shift = a.shift;
  {
    const long long h = (long long)tid * a.tiles + tile;
    gbase[tid] = a.sums[h / TR_SCAN_CHUNK] + (long long)a.hist[h];
  }
#pragma unroll
  for (int w = 0; w < TR_WARPS; w++) wc[0][w][tid] = 0;
  __syncthreads();

  unsigned key[TR_ITEMS];
  int pos[TR_ITEMS];
  int tot = 0;  // records of digit tid in the rounds so far
#pragma unroll
  for (int r = 0; r < TR_ITEMS; r++) {
    const int b = r & 1;
    const int i = r * TR_THREADS + tid;
    key[r] = i < count ? (unsigned)a.keyIn[first + i] : 0u;
    const int d = i < count ? hp_digit<TR_RADIX>(key[r], shift) : TR_RADIX;
    const unsigned peers = __match_any_sync(TR_FULL, d);
    const int wrank = __popc(peers & below);
    if (d < TR_RADIX && wrank == 0) wc[b][warp][d] = __popc(peers);
    __syncthreads();
    int run = tot;
#pragma unroll
    for (int w = 0; w < TR_WARPS; w++) {
      const int c = wc[b][w][tid];
      wc[b][w][tid] = run;
      run += c;
      wc[b ^ 1][w][tid] = 0;  // (last read in round r-1, before the barrier above)
    }
    tot = run;
    __syncthreads();
    pos[r] = d < TR_RADIX ? wc[b][warp][d] + wrank : 0;
  }

  long long all;
  lstart[tid] = (int)hp_block_scan<TR_THREADS>((long long)tot, &all);
  __syncthreads();
#pragma unroll
  for (int r = 0; r < TR_ITEMS; r++) {
    const int i = r * TR_THREADS + tid;
    if (i < count) {
      pos[r] += lstart[hp_digit<TR_RADIX>(key[r], shift)];
      buf[pos[r]] = key[r];
    }
  }
  __syncthreads();

  // The heads, out; dig[q] is the digit of tile place q*TR_THREADS+tid.
  int dig[TR_ITEMS];
#pragma unroll
  for (int q = 0; q < TR_ITEMS; q++) {
    const int j = q * TR_THREADS + tid;
    dig[q] = 0;
    if (j < count) {
      const unsigned k = buf[j];
      const int d = hp_digit<TR_RADIX>(k, shift);
      dig[q] = d;
      a.keyOut[gbase[d] + (j - lstart[d])] = (int)k;
    }
  }
  __syncthreads();

  // The tails.
#pragma unroll
  for (int r = 0; r < TR_ITEMS; r++) {
    const int i = r * TR_THREADS + tid;
    if (i < count) buf[pos[r]] = (unsigned)a.srcIn[first + i];
  }
  __syncthreads();
#pragma unroll
  for (int q = 0; q < TR_ITEMS; q++) {
    const int j = q * TR_THREADS + tid;
    if (j < count) a.srcOut[gbase[dig[q]] + (j - lstart[dig[q]])] = (int)buf[j];
  }

  // The weights (a.valIn is the same for the whole block).
  if (a.valIn != nullptr) {
    __syncthreads();
#pragma unroll
    for (int r = 0; r < TR_ITEMS; r++) {
      const int i = r * TR_THREADS + tid;
      if (i < count) buf[pos[r]] = a.valIn[first + i];
    }
    __syncthreads();
#pragma unroll
    for (int q = 0; q < TR_ITEMS; q++) {
      const int j = q * TR_THREADS + tid;
      if (j < count) a.valOut[gbase[dig[q]] + (j - lstart[dig[q]])] = buf[j];
    }
  }
}

// tr_rowptr: a thread a row v in [0, n]: tRowPtr[v] is the first place
// of the sorted heads (keyIn) that is >= v.
extern "C" __global__ void tr_rowptr(const TR_Arg a, int unused) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long v = (long long)blockIdx.x * blockDim.x + threadIdx.x; v <= a.n; v += stride) {
    long long lo = 0, hi = a.nnz;
    while (lo < hi) {
      const long long mid = lo + ((hi - lo) >> 1);
      if ((long long)a.keyIn[mid] < v) lo = mid + 1; else hi = mid;
    }
    a.tRowPtr[v] = lo;
  }
}

// tr_fix: the thread at the start of a run of equal (head, tail) (parallel
// arcs, in their out-row's order) insertion-sorts the run's weights,
// valOut, in place: linear for a run already in order, quadratic in the
// run's length otherwise.
extern "C" __global__ void tr_fix(const TR_Arg a, int unused) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long p = (long long)blockIdx.x * blockDim.x + threadIdx.x; p + 1 < a.nnz; p += stride) {
    const int k = a.keyIn[p], s = a.srcIn[p];
    if (a.keyIn[p + 1] != k || a.srcIn[p + 1] != s) continue;  // no run of two or more
    if (p > 0 && a.keyIn[p - 1] == k && a.srcIn[p - 1] == s) continue;  // not its start
    long long e = p + 2;
    while (e < a.nnz && a.keyIn[e] == k && a.srcIn[e] == s) e++;
    unsigned* w = a.valOut;
    for (long long x = p + 1; x < e; x++) {
      const unsigned v = w[x];
      long long y = x;
      while (y > p && __uint_as_float(w[y - 1]) > __uint_as_float(v)) {
        w[y] = w[y - 1];
        y--;
      }
      w[y] = v;
    }
  }
}

// The transpose in chunks (transposeChunked, transpose.go): each chunk
// of whole out-rows is sorted by head as above into temporaries, then
// tr_place writes its tails (and weights) at the heads' cursors, cur
// (tRowPtr's field: each head's next free place, from the host's counted
// row offsets), and tr_advance moves the cursors past them. Chunks go in
// row order, so every row of the result lists its tails in increasing
// order, as the whole sort does; a run of parallel arcs lies in one
// out-row, so in one chunk, where tr_fix sorts its weights first. Only
// the output and one chunk's temporaries are ever allocated.

// tr_run_start is the first index of the run of keys equal to key[i] in
// the sorted key: a gallop back from i (most runs are short), then a
// binary search of the last step.
__device__ __forceinline__ long long tr_run_start(const int* key, long long i) {
  const int k = key[i];
  long long lo = i, step = 1;
  while (lo - step >= 0 && key[lo - step] == k) {
    lo -= step;
    step <<= 1;
  }
  long long a = lo - step < 0 ? 0 : lo - step + 1, b = lo;  // the start is in [a, b]
  while (a < b) {
    const long long mid = a + ((b - a) >> 1);
    if (key[mid] == k) b = mid; else a = mid + 1;
  }
  return a;
}

// tr_place: the chunk's sorted record i (keyIn, srcIn, valIn: nnz of
// them) goes to cur[head] plus its rank in its head's run.
extern "C" __global__ void tr_place(const TR_Arg a, int unused) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < a.nnz; i += stride) {
    const int v = a.keyIn[i];
    const long long p = a.tRowPtr[v] + (i - tr_run_start(a.keyIn, i));
    a.srcOut[p] = a.srcIn[i];
    if (a.valOut != nullptr) a.valOut[p] = a.valIn[i];
  }
}

// tr_advance: the last record of each head's run moves the head's cursor
// past the run (after tr_place read it).
extern "C" __global__ void tr_advance(const TR_Arg a, int unused) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < a.nnz; i += stride) {
    const int v = a.keyIn[i];
    if (i + 1 < a.nnz && a.keyIn[i + 1] == v) continue;
    a.tRowPtr[v] += i + 1 - tr_run_start(a.keyIn, i);
  }
}

// tr_check counts, into hist[0], the heads whose cursor did not end at
// the next row's start (rowPtr: the result's row offsets): a count that
// disagrees with the arcs (a bug), found after every chunk is placed.
extern "C" __global__ void tr_check(const TR_Arg a, int unused) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long v = (long long)blockIdx.x * blockDim.x + threadIdx.x; v < a.n; v += stride) {
    if (a.tRowPtr[v] != a.rowPtr[v + 1]) atomicAdd(a.hist, 1u);
  }
}

// Renumbering by degree (relabel.go): datasets.Graph.Relabel's degree
// order and Permute's arrays, on the device. The ids are sorted stably
// by maxDeg - degree (the radix sort above: decreasing degree, ties by
// increasing id); the columns renumbered; the transpose of that taken
// (rows the new columns, listing the old tails in input order), its
// entries renumbered, and transposed again: rows the new ids, columns
// increasing, parallel arcs in their input order (by weight).
struct RL_Arg {
  const long long* rowPtr;  // n+1 (tr_rl_keys)
  int* key;                 // n: maxDeg - degree
  int* ids;                 // n: 0, 1, ... (the sort's values)
  const int* order;         // n: the sorted ids, old id of each new one
  int* newID;               // n: new id of each old one
  const int* in;            // tr_rl_map: out[i] = newID[in[i]]
  int* out;
  long long nnz;            // tr_rl_map's entries
  int n, maxDeg;
};

static_assert(sizeof(RL_Arg) == 72, "hpgraph: RL_Arg layout");

extern "C" __global__ void tr_rl_keys(const RL_Arg a, int unused) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long v = (long long)blockIdx.x * blockDim.x + threadIdx.x; v < a.n; v += stride) {
    a.key[v] = a.maxDeg - (int)(a.rowPtr[v + 1] - a.rowPtr[v]);
    a.ids[v] = (int)v;
  }
}

extern "C" __global__ void tr_rl_newid(const RL_Arg a, int unused) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long p = (long long)blockIdx.x * blockDim.x + threadIdx.x; p < a.n; p += stride) a.newID[a.order[p]] = (int)p;
}

extern "C" __global__ void tr_rl_map(const RL_Arg a, int unused) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < a.nnz; i += stride) a.out[i] = a.newID[a.in[i]];
}
