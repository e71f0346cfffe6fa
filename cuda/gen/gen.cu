// hpgraph CUDA: GAP's Kronecker and uniform graphs made on the device
// (cuda/gen), edge for edge the host generator's (datasets/gen), and
// cleaned into the CSR rows [lo, hi) that datasets.BuildStream would give
// them. gen.go drives the kernels; model_test.go is each kernel's
// algorithm in Go, run in CI against the host generator.
//
// The vertex ids (Kronecker only): GAP shuffles them with libstdc++'s
// std::shuffle, Fisher-Yates from the front: element k (1 <= k < n) is
// swapped with element t[k] <= k. Drawing t is one sequential stream of
// random numbers (the host does it); applying it is parallel here. Place
// k is untouched before step k, so step k puts the value k at place t[k]
// and moves the value that was there to place k. A value that arrived at
// place x at time x (or the value 0, at place 0 from the start) next moves
// at the first step after x that targets x, to that step's place. So with
// the steps grouped by target and sorted (sh_count, sh_fill, sh_sort),
// each value follows its chain of moves (sh_place): O(log n) steps on
// average, and every value at once.
//
// The entries: GAP block b (GEN_Arg.blockEntries entries) draws from
// std::mt19937 seeded seed+b; here a warp makes a block (gen_edges),
// twisting the 624 words of state in place in chunks of 32 (word i reads
// words i+1 and i+397, or i-227 once i+397 wraps: in a later chunk, still
// the old values, or an earlier one, already the new), tempering them into
// shared memory after the previous twist's last 32 outputs, so that an
// entry whose draws straddle two twists is read whole. An entry takes
// perEntry draws: Kronecker one a level (scale), uniform two.
//
// The CSR: gen_edges counts every row's arcs (self loops dropped unless
// kept, both directions of the rest), a scan makes offsets, and the rows
// are built in chunks that fit the device's memory: gen_edges again, now
// appending the chunk's arcs as 64-bit keys (row - lo, column), an LSD
// radix sort of the keys (rs_hist, a scan, rs_scatter: 8 bits a pass),
// and u_reduce, a scan and u_emit, which keep the first of each run of
// equal keys (the duplicates merged) and write the columns, the weights
// and the rows' offsets.

#include "scan.cuh"
#include "radix.cuh"

#define GEN_THREADS 256
#define GEN_WARPS (GEN_THREADS / 32)
#define GEN_FULL 0xffffffffu
#define GEN_ITEMS 16                        // values a thread of a tile
#define GEN_TILE (GEN_THREADS * GEN_ITEMS)  // values a block of the tiled kernels takes
#define GEN_DIGIT_BITS 8
#define GEN_RADIX (1 << GEN_DIGIT_BITS)
#define MT_N 624
#define MT_M 397
#define GEN_TAIL 32  // the previous twist's outputs kept before this one's

static_assert(GEN_RADIX == GEN_THREADS, "hpgraph: a thread a digit");

// GEN_Arg: every kernel's argument; every field is 8 bytes (gen.go's arg
// lists the same fields in the same order).
struct GEN_Arg {
  const int* perm;             // n: GAP's id of drawn id u (Kronecker), or null
  unsigned long long* count;   // gen_edges count: raw arcs of rows [lo, hi)
  unsigned long long* keys;    // gen_edges fill: the arcs of rows [lo, hi)
  unsigned long long* stats;   // [0] keys appended, [1] self-loop entries in [lo, hi), [2] overflowed
  const int* targets;          // n: the shuffle's swap targets
  long long* off;              // n+1: the steps of each target (sh_)
  int* lists;                  // n: the steps, grouped by target
  int* permOut;                // n: the shuffled ids (sh_place); counters before
  long long* scan;             // scanLen+1: scanned in place (sc_); per tile (u_)
  long long* sums;             // scanTiles: a tile's sum, then its first offset
  const unsigned long long* keyIn;
  unsigned long long* keyOut;
  long long* hist;             // GEN_RADIX * tiles: digit-major counts (rs_)
  long long* rowPtr;           // the part's row offsets (u_)
  int* col;
  float* w;                    // or null
  unsigned long long* zero;    // gen_zero
  const int* orig;             // u_emit's weights: the GAP id of each renumbered vertex (gen.go's Options.Orig), or null
  long long n;
  long long entries;           // GAP's entries, degree * n
  long long blocks;            // GAP's blocks
  long long blockEntries;      // entries a GAP block
  long long capacity;          // room in keys
  long long scanLen;
  long long scanTiles;
  long long nkeys;
  long long tiles;             // GEN_TILE tiles of nkeys
  long long base;              // u_emit: the part's arcs before this chunk
  long long zeroWords;
  long long fillFrom, fillTo, fillValue;  // u_fill: rowPtr of rows [fillFrom, fillTo]
  long long wSeed, wLo, wSpan;            // random weights
  long long seed;              // std::mt19937's seed for block 0
  long long perEntry;          // draws an entry
  long long lo, hi;            // rows kept (gen_edges), the chunk's (u_)
  long long partLo;            // the part's first row (rowPtr[0])
  long long colBits;           // key = (row - lo) << colBits | column
  long long keepLoops, keepDups;
  long long shift;             // rs_: the pass's lowest bit
  long long rmatA, rmatAB, rmatABC;
  long long mask;              // uniform: n - 1
};

static_assert(sizeof(GEN_Arg) == 48 * 8, "hpgraph: GEN_Arg layout");

__device__ __forceinline__ long long gen_thread() { return (long long)blockIdx.x * GEN_THREADS + threadIdx.x; }
__device__ __forceinline__ long long gen_stride() { return (long long)gridDim.x * GEN_THREADS; }

// gen_zero: zeroWords 8-byte words at zero.
extern "C" __global__ void __launch_bounds__(GEN_THREADS) gen_zero(const GEN_Arg a, int unused) {
  for (long long i = gen_thread(); i < a.zeroWords; i += gen_stride()) a.zero[i] = 0;
}

// ---- scans: scan[0..scanLen) turned into its exclusive prefix sums in
// place, scan[scanLen] the total: sc_reduce (every tile's sum), sc_top
// (one block scans the sums), sc_apply (every tile from its offset).

extern "C" __global__ void __launch_bounds__(GEN_THREADS) sc_reduce(const GEN_Arg a, int unused) {
  const long long first = (long long)blockIdx.x * GEN_TILE;
  long long s = 0;
  for (int r = 0; r < GEN_ITEMS; r++) {
    const long long i = first + r * GEN_THREADS + threadIdx.x;
    if (i < a.scanLen) s += a.scan[i];
  }
  long long total;
  hp_block_scan<GEN_THREADS>(s, &total);
  if (threadIdx.x == 0) a.sums[blockIdx.x] = total;
}

extern "C" __global__ void __launch_bounds__(GEN_THREADS) sc_top(const GEN_Arg a, int unused) {
  long long carry = 0;
  for (long long c = 0; c < a.scanTiles; c += GEN_THREADS) {
    const long long i = c + threadIdx.x;
    const long long v = i < a.scanTiles ? a.sums[i] : 0;
    long long total;
    const long long x = hp_block_scan<GEN_THREADS>(v, &total);
    if (i < a.scanTiles) a.sums[i] = carry + x;
    carry += total;
  }
  if (threadIdx.x == 0) a.scan[a.scanLen] = carry;
}

// sc_apply: a thread scans GEN_ITEMS consecutive values of its block's tile.
extern "C" __global__ void __launch_bounds__(GEN_THREADS) sc_apply(const GEN_Arg a, int unused) {
  const long long first = (long long)blockIdx.x * GEN_TILE + (long long)threadIdx.x * GEN_ITEMS;
  long long v[GEN_ITEMS];
  long long s = 0;
#pragma unroll
  for (int q = 0; q < GEN_ITEMS; q++) {
    v[q] = first + q < a.scanLen ? a.scan[first + q] : 0;
    s += v[q];
  }
  long long total;
  long long x = a.sums[blockIdx.x] + hp_block_scan<GEN_THREADS>(s, &total);
#pragma unroll
  for (int q = 0; q < GEN_ITEMS; q++) {
    if (first + q < a.scanLen) a.scan[first + q] = x;
    x += v[q];
  }
}

// ---- the shuffle of the ids (see the top): off counts the steps of each
// target and is scanned; lists gets them, grouped, then sorted.

extern "C" __global__ void __launch_bounds__(GEN_THREADS) sh_count(const GEN_Arg a, int unused) {
  for (long long k = 1 + gen_thread(); k < a.n; k += gen_stride())
    atomicAdd((unsigned long long*)&a.off[a.targets[k]], 1ull);
}

// sh_fill: permOut (zeroed) counts each target's steps placed so far.
extern "C" __global__ void __launch_bounds__(GEN_THREADS) sh_fill(const GEN_Arg a, int unused) {
  for (long long k = 1 + gen_thread(); k < a.n; k += gen_stride()) {
    const int t = a.targets[k];
    a.lists[a.off[t] + atomicAdd(&a.permOut[t], 1)] = (int)k;
  }
}

// sh_sort: a thread sorts a target's steps (few: place x is the target of
// about ln(n/x) steps).
extern "C" __global__ void __launch_bounds__(GEN_THREADS) sh_sort(const GEN_Arg a, int unused) {
  for (long long x = gen_thread(); x < a.n; x += gen_stride()) {
    const long long s = a.off[x], e = a.off[x + 1];
    for (long long i = s + 1; i < e; i++) {
      const int v = a.lists[i];
      long long j = i;
      for (; j > s && a.lists[j - 1] > v; j--) a.lists[j] = a.lists[j - 1];
      a.lists[j] = v;
    }
  }
}

// sh_next: the first step that targets place x, or -1, for a value that
// arrived at x at time x: by step x, which targeted another place (or
// none, x = 0), so every step that targets x comes after.
__device__ __forceinline__ int sh_next(const GEN_Arg& a, long long x) {
  return a.off[x] < a.off[x + 1] ? a.lists[a.off[x]] : -1;
}

// sh_place: value v follows its moves to its last place.
extern "C" __global__ void __launch_bounds__(GEN_THREADS) sh_place(const GEN_Arg a, int unused) {
  for (long long v = gen_thread(); v < a.n; v += gen_stride()) {
    long long at;
    int next;
    if (v == 0) {
      at = 0;
      next = sh_next(a, 0);
    } else {
      // Step v puts v at its target; it moves at the next step there.
      at = a.targets[v];
      long long q = a.off[at];
      const long long e = a.off[at + 1];
      while (q < e && a.lists[q] != v) q++;
      next = q + 1 < e ? a.lists[q + 1] : -1;
    }
    while (next >= 0) {
      at = next;
      next = sh_next(a, at);
    }
    a.permOut[at] = (int)v;
  }
}

// ---- the entries

__device__ __forceinline__ unsigned gen_temper(unsigned y) {
  y ^= y >> 11;
  y ^= (y << 7) & 0x9d2c5680u;
  y ^= (y << 15) & 0xefc60000u;
  return y ^ (y >> 18);
}

// gen_twist: a warp regenerates its generator's state, 32 words at a time
// (every lane reads before any writes).
__device__ __forceinline__ void gen_twist(unsigned* st, int lane) {
  for (int c = 0; c < MT_N; c += 32) {
    const int i = c + lane;
    unsigned next = 0;
    if (i < MT_N) {
      const unsigned y = (st[i] & 0x80000000u) | (st[i + 1 < MT_N ? i + 1 : 0] & 0x7fffffffu);
      next = st[i < MT_N - MT_M ? i + MT_M : i + MT_M - MT_N] ^ (y >> 1) ^ ((y & 1u) ? 0x9908b0dfu : 0u);
    }
    __syncwarp();
    if (i < MT_N) st[i] = next;
    __syncwarp();
  }
}

__device__ __forceinline__ bool gen_in(const GEN_Arg& a, int v) { return v >= a.lo && v < a.hi; }

// gen_edges: a warp a GAP block at a time. Not fill: count the arcs of
// each row in [lo, hi) into count and the self-loop entries of those rows
// into stats[1]. Fill: append the arcs of rows [lo, hi) to keys, a warp's at
// once (stats[0] the keys so far; stats[2] set where they overflow
// capacity).
extern "C" __global__ void __launch_bounds__(GEN_THREADS) gen_edges(const GEN_Arg a, int fill) {
  __shared__ unsigned state[GEN_WARPS][MT_N];
  __shared__ unsigned drawn[GEN_WARPS][GEN_TAIL + MT_N];
  const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
  unsigned* st = state[w];
  unsigned* out = drawn[w];
  const unsigned below = (1u << lane) - 1;
  const int per = (int)a.perEntry;
  const unsigned rA = (unsigned)a.rmatA, rAB = (unsigned)a.rmatAB, rABC = (unsigned)a.rmatABC;
  unsigned long long loops = 0;
  for (long long b = (long long)blockIdx.x * GEN_WARPS + w; b < a.blocks; b += (long long)gridDim.x * GEN_WARPS) {
    if (lane == 0) {
      unsigned x = (unsigned)a.seed + (unsigned)b;
      st[0] = x;
      for (int i = 1; i < MT_N; i++) {
        x = 1812433253u * (x ^ (x >> 30)) + (unsigned)i;
        st[i] = x;
      }
    }
    __syncwarp();
    const long long first = b * a.blockEntries;
    const long long k = a.entries - first < a.blockEntries ? a.entries - first : a.blockEntries;
    const long long draws = k * per;
    for (long long base = 0; base < draws; base += MT_N) {
      gen_twist(st, lane);
      out[lane] = out[MT_N + lane];  // the previous twist's last GEN_TAIL draws
      __syncwarp();
      for (int i = lane; i < MT_N; i += 32) out[GEN_TAIL + i] = gen_temper(st[i]);
      __syncwarp();
      // The entries whose last draw is in this twist.
      const long long eLo = base / per;
      const long long eHi = (base + MT_N) / per < k ? (base + MT_N) / per : k;
      for (long long e0 = eLo; e0 < eHi; e0 += 32) {
        const long long e = e0 + lane;
        const bool valid = e < eHi;
        int src = 0, dst = 0;
        if (valid) {
          const unsigned* r = out + GEN_TAIL + (e * per - base);
          if (a.perm) {
            unsigned u = 0, v = 0;
            for (int l = 0; l < per; l++) {
              const unsigned x = r[l];
              const unsigned gtA = x > rA, geAB = x >= rAB, gtABC = x > rABC;
              u = u << 1 | geAB;
              v = v << 1 | (gtA ^ geAB ^ gtABC);
            }
            src = a.perm[u];
            dst = a.perm[v];
          } else {
            dst = (int)(r[0] & (unsigned)a.mask);
            src = (int)(r[1] & (unsigned)a.mask);
          }
        }
        const bool loop = src == dst;
        if (!fill) {
          if (valid && loop && gen_in(a, src)) {
            loops++;
            if (a.keepLoops) atomicAdd(&a.count[src - a.lo], 1ull);
          } else if (valid && !loop) {
            if (gen_in(a, src)) atomicAdd(&a.count[src - a.lo], 1ull);
            if (gen_in(a, dst)) atomicAdd(&a.count[dst - a.lo], 1ull);
          }
          continue;
        }
        const bool out0 = valid && gen_in(a, src) && (!loop || a.keepLoops);
        const bool out1 = valid && !loop && gen_in(a, dst);
        const unsigned b0 = __ballot_sync(GEN_FULL, out0), b1 = __ballot_sync(GEN_FULL, out1);
        const int total = __popc(b0) + __popc(b1);
        if (total == 0) continue;
        unsigned long long at = 0;
        if (lane == 0) at = atomicAdd(&a.stats[0], (unsigned long long)total);
        at = __shfl_sync(GEN_FULL, at, 0);
        if (at + total > (unsigned long long)a.capacity) {
          if (lane == 0) a.stats[2] = 1;
          continue;
        }
        if (out0) a.keys[at + __popc(b0 & below)] = (unsigned long long)(src - a.lo) << a.colBits | (unsigned)dst;
        if (out1) a.keys[at + __popc(b0) + __popc(b1 & below)] = (unsigned long long)(dst - a.lo) << a.colBits | (unsigned)src;
      }
      __syncwarp();  // (out is rewritten by the next twist)
    }
  }
  if (!fill) {
    for (int o = 16; o > 0; o >>= 1) loops += __shfl_down_sync(GEN_FULL, loops, o);
    if (lane == 0 && loops) atomicAdd(&a.stats[1], loops);
  }
}

// ---- the radix sort of keyIn into keyOut by the 8 bits at shift, stably

// rs_hist: a block a tile; its digit counts (radix.cuh) go to
// hist[digit*tiles + tile] (digit-major: the order of the scan).
extern "C" __global__ void __launch_bounds__(GEN_THREADS) rs_hist(const GEN_Arg a, int unused) {
  const long long tile = blockIdx.x;
  a.hist[(long long)threadIdx.x * a.tiles + tile] = hp_radix_count<GEN_RADIX, GEN_ITEMS, GEN_ITEMS>(a.keyIn, a.nkeys, tile * GEN_TILE, (int)a.shift);
}

// rs_scatter: a block a tile (hist scanned: each digit's first place for
// the tile). The tile's keys in GEN_ITEMS rounds of GEN_THREADS (round,
// warp, lane: the input order); in each, a warp's equal digits are found
// by __match_any_sync, each group's leader writes its size to
// wc[warp][digit], and thread t turns digit t's column into the warps'
// first ranks (after the earlier rounds' count of the digit, which t
// keeps). Then the keys go to shared memory in digit order and out from
// there, consecutive threads writing consecutive places of a digit's run.
extern "C" __global__ void __launch_bounds__(GEN_THREADS) rs_scatter(const GEN_Arg a, int unused) {
  __shared__ int wc[GEN_WARPS][GEN_RADIX];       // 8 KB
  __shared__ unsigned long long buf[GEN_TILE];   // 32 KB
  __shared__ int lstart[GEN_RADIX];              // the digit's first place in the tile
  __shared__ long long gbase[GEN_RADIX];         // the tile's digit's first place in keyOut
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const unsigned below = (1u << lane) - 1;
  const long long tile = blockIdx.x, first = tile * GEN_TILE;
  const long long left = a.nkeys - first;
  const int count = left < GEN_TILE ? (int)left : GEN_TILE;
  gbase[tid] = a.hist[(long long)tid * a.tiles + tile];
  unsigned long long key[GEN_ITEMS];
  int pos[GEN_ITEMS];
  int tot = 0;  // keys of digit tid in the rounds so far
#pragma unroll
  for (int r = 0; r < GEN_ITEMS; r++) {
    const int i = r * GEN_THREADS + tid;
    key[r] = i < count ? a.keyIn[first + i] : 0ull;
    const int d = i < count ? hp_digit<GEN_RADIX>(key[r], a.shift) : GEN_RADIX;
    const unsigned peers = __match_any_sync(GEN_FULL, d);
    const int wrank = __popc(peers & below);
    __syncwarp();  // (the warp's reads of its row in the last round are done)
    for (int q = lane; q < GEN_RADIX; q += 32) wc[warp][q] = 0;
    __syncwarp();
    if (d < GEN_RADIX && wrank == 0) wc[warp][d] = __popc(peers);
    __syncthreads();
    int run = tot;
    for (int v = 0; v < GEN_WARPS; v++) {
      const int c = wc[v][tid];
      wc[v][tid] = run;
      run += c;
    }
    tot = run;
    __syncthreads();
    pos[r] = d < GEN_RADIX ? wc[warp][d] + wrank : -1;
  }
  long long total;
  lstart[tid] = (int)hp_block_scan<GEN_THREADS>((long long)tot, &total);
  __syncthreads();
#pragma unroll
  for (int r = 0; r < GEN_ITEMS; r++)
    if (pos[r] >= 0) buf[lstart[hp_digit<GEN_RADIX>(key[r], a.shift)] + pos[r]] = key[r];
  __syncthreads();
  for (int j = tid; j < count; j += GEN_THREADS) {
    const unsigned long long k = buf[j];
    const int d = hp_digit<GEN_RADIX>(k, a.shift);
    a.keyOut[gbase[d] + (j - lstart[d])] = k;
  }
}

// ---- the rows of a sorted chunk: u_reduce counts each tile's arcs kept
// into scan[tile], a scan makes them offsets, u_emit writes them.

__device__ __forceinline__ int gen_kept(const GEN_Arg& a, long long i) {
  return a.keepDups || i == 0 || a.keyIn[i] != a.keyIn[i - 1];
}

extern "C" __global__ void __launch_bounds__(GEN_THREADS) u_reduce(const GEN_Arg a, int unused) {
  const long long first = (long long)blockIdx.x * GEN_TILE;
  long long s = 0;
  for (int r = 0; r < GEN_ITEMS; r++) {
    const long long i = first + r * GEN_THREADS + threadIdx.x;
    if (i < a.nkeys) s += gen_kept(a, i);
  }
  long long total;
  hp_block_scan<GEN_THREADS>(s, &total);
  if (threadIdx.x == 0) a.scan[blockIdx.x] = total;
}

// gen_weight is datasets' pairWeight: the unordered pair hashed with the
// seed (splitmix64) to an integer in [wLo, wLo+wSpan).
__device__ __forceinline__ float gen_weight(const GEN_Arg& a, int s, int d) {
  if (s > d) {
    const int t = s;
    s = d;
    d = t;
  }
  unsigned long long z = ((unsigned long long)(unsigned)s << 32 | (unsigned)d) ^ ((unsigned long long)a.wSeed * 0x9e3779b97f4a7c15ull);
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  return (float)((unsigned long long)a.wLo + z % (unsigned long long)a.wSpan);
}

// u_emit: a thread takes GEN_ITEMS consecutive keys of its block's tile;
// a key that starts a row sets the offsets of that row and of the empty
// rows before it (from the chunk's first row, for the chunk's first key).
extern "C" __global__ void __launch_bounds__(GEN_THREADS) u_emit(const GEN_Arg a, int unused) {
  const long long first = (long long)blockIdx.x * GEN_TILE + (long long)threadIdx.x * GEN_ITEMS;
  int kept = 0;
  for (int q = 0; q < GEN_ITEMS; q++)
    if (first + q < a.nkeys) kept += gen_kept(a, first + q);
  long long total;
  long long at = a.base + a.scan[blockIdx.x] + hp_block_scan<GEN_THREADS>((long long)kept, &total);
  const unsigned long long colMask = (1ull << a.colBits) - 1;
  for (int q = 0; q < GEN_ITEMS; q++) {
    const long long i = first + q;
    if (i >= a.nkeys) break;
    if (!gen_kept(a, i)) continue;
    const unsigned long long k = a.keyIn[i];
    const long long row = a.lo + (long long)(k >> a.colBits);
    const int c = (int)(k & colMask);
    const long long prev = i == 0 ? a.lo - 1 : a.lo + (long long)(a.keyIn[i - 1] >> a.colBits);
    for (long long r = prev + 1; r <= row; r++) a.rowPtr[r - a.partLo] = at;
    a.col[at] = c;
    if (a.w) a.w[at] = a.orig ? gen_weight(a, a.orig[row], a.orig[c]) : gen_weight(a, (int)row, c);
    at++;
  }
}

// u_fill: the offsets of rows [fillFrom, fillTo] are fillValue (the rows
// after a chunk's last arc, or all of an empty chunk's).
extern "C" __global__ void __launch_bounds__(GEN_THREADS) u_fill(const GEN_Arg a, int unused) {
  for (long long r = a.fillFrom + gen_thread(); r <= a.fillTo; r += gen_stride()) a.rowPtr[r - a.partLo] = a.fillValue;
}
