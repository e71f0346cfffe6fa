// hpgraph CUDA: multiset programs, part 2 of 2 (multiset.cu's header
// says what they do; multiset.go joins the parts): counting sorted keys
// by distinct key, the block rows (ms_block), the hub rows (ms_hub_chunk,
// ms_hub_merge, ms_hub_final), the kernels of each row class, the
// superstep's start and APPLY.


// ms_rbk counts the sorted keys[0, len) (with multiplicities cnts when
// Counted, else 1 each) by distinct key: dk[j] is the j-th distinct key
// and dp[j] the multiplicities summed before its first entry. It returns
// the number of distinct keys and sets *size to the sum of all
// multiplicities. The block takes MS_BLOCK*I entries at a time, each warp
// 32*I consecutive ones, striped (item q of lane l: entry q*32+l of the
// warp's, so loads are coalesced or conflict-free): a head is an entry
// whose key differs from the previous entry's; its distinct index is the
// heads before it (ballots within the warp, the warps' totals across the
// block), its prefix the multiplicities before it (without Counted, its
// index). dk and dp must not overlap keys and cnts. Every thread of the
// block calls it; every thread gets the same answers; it ends with a
// barrier, after which keys and cnts may be overwritten.
template <int I, bool Counted>
__device__ __forceinline__ int ms_rbk(const ms_key* keys, const int* cnts, int len, ms_key* dk, int* dp, int* size) {
  __shared__ int tot[2][MS_WARPS][2];
  const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
  const unsigned lt = (1u << lane) - 1u;
  int distinct = 0, sum = 0, turn = 0;
  for (int t0 = 0; t0 < len; t0 += MS_BLOCK * I, turn ^= 1) {
    const int wb = t0 + w * 32 * I;
    ms_key k[I];
    int c[I];
    unsigned hm[I];
    int wh = 0, wc = 0;
#pragma unroll
    for (int q = 0; q < I; q++) {
      const int p = wb + q * 32 + lane;
      k[q] = p < len ? keys[p] : MS_PAD;
      c[q] = p >= len ? 0 : Counted ? cnts[p] : 1;
      const bool h = p < len && (p == 0 || keys[p - 1] != k[q]);
      hm[q] = __ballot_sync(MS_FULL, h);
      wh += __popc(hm[q]);
      if (Counted) wc += c[q];
    }
    if (Counted) wc = ms_warp_sum(wc);
    if (lane == 0) {
      tot[turn][w][0] = wh;
      tot[turn][w][1] = wc;
    }
    __syncthreads();
    int rh = distinct, rc = sum, allH = 0, allC = 0;
#pragma unroll
    for (int i = 0; i < MS_WARPS; i++) {
      const int th = tot[turn][i][0], tc = tot[turn][i][1];
      if (i < w) {
        rh += th;
        rc += tc;
      }
      allH += th;
      allC += tc;
    }
#pragma unroll
    for (int q = 0; q < I; q++) {
      const int p = wb + q * 32 + lane;
      int ex = 0, qs = 0;
      if (Counted) {
        const int incl = hp_warp_scan(c[q]);
        ex = incl - c[q];
        qs = __shfl_sync(MS_FULL, incl, 31);
      }
      if ((hm[q] >> lane) & 1u) {
        const int at = rh + __popc(hm[q] & lt);
        dk[at] = k[q];
        dp[at] = Counted ? rc + ex : p;
      }
      rh += __popc(hm[q]);
      rc += qs;
    }
    distinct += allH;
    sum += allC;
    // (tot[turn] is read again two tiles on, after the next tile's barrier)
  }
  __syncthreads();
  *size = Counted ? sum : len;
  return distinct;
}

// ms_counts_to writes the multiplicities of ms_rbk's distinct keys, from
// its prefixes dp, to out (not dp). Every thread of the block calls it.
__device__ __forceinline__ void ms_counts_to(const int* dp, int distinct, int size, int* out) {
  for (int i = threadIdx.x; i < distinct; i += MS_BLOCK) out[i] = (i + 1 < distinct ? dp[i + 1] : size) - dp[i];
  __syncthreads();
}

// ms_values turns keys into K_t values in place (the same size).
__device__ __forceinline__ void ms_values(ms_key* dk, int distinct) {
  for (int i = threadIdx.x; i < distinct; i += MS_BLOCK) {
    const K_t val = ms_from_key(dk[i]);
    memcpy(dk + i, &val, sizeof(K_t));
  }
  __syncthreads();
}

// ms_summarize writes y[v] from the distinct values and counts (shared or
// global memory): with a summary fold, thread t joins a contiguous range
// of them and the block the threads in order; else thread 0 calls
// vp_summarize. Every thread of the block calls it.
__device__ __forceinline__ void ms_summarize(const MS_Run& c, const State& s, int v, const K_t* vals, const int* cnts, int distinct, int size) {
#if VP_SUMMARY_FOLD
  const int per = (distinct + MS_BLOCK - 1) / MS_BLOCK;
  const int i0 = min(distinct, (int)threadIdx.x * per), i1 = min(distinct, i0 + per);
  S_t t{};
  bool have = false;
  for (int i = i0; i < i1; i++) ms_join(t, have, vp_summary_leaf(v, vals[i], cnts[i], s), true);
  ms_fold_block(t, have);
  if (threadIdx.x == 0) c.y[v] = distinct > 0 ? vp_summary_final(v, t, distinct, size, s) : vp_summarize(v, vals, cnts, 0, 0, s);
#else
  if (threadIdx.x == 0) c.y[v] = vp_summarize(v, vals, cnts, distinct, size, s);
#endif
}

// ms_merge_part writes outputs [d, min(d+k, la+lb)) of the stable merge
// of the sorted a[0, la) and b[0, lb) (a's first on ties) to out (and
// their counts, with Counted): the merge path's split (i from a, d-i from
// b before output d: the first i with a[i] > b[d-1-i]) by one binary
// search, then a sequential merge. With lb 0 it copies a.
template <bool Counted, typename T>
__device__ __forceinline__ void ms_merge_part(const ms_key* a, const int* ac, T la, const ms_key* b, const int* bc, T lb, T d, int k,
                                              ms_key* out, int* oc) {
  T lo = d > lb ? d - lb : 0, hi = d < la ? d : la;
  while (lo < hi) {
    const T mid = (lo + hi) >> 1;
    if (a[mid] <= b[d - 1 - mid]) lo = mid + 1;
    else hi = mid;
  }
  T i = lo, j = d - lo;
  const T end = d + k < la + lb ? d + k : la + lb;
  for (T o = d; o < end; o++) {
    if (j >= lb || (i < la && a[i] <= b[j])) {
      out[o] = a[i];
      if (Counted) oc[o] = ac[i];
      i++;
    } else {
      out[o] = b[j];
      if (Counted) oc[o] = bc[j];
      j++;
    }
  }
}

// ms_block_sort sorts the keys of row v's entries [lo, lo+len) (len <=
// the buffers' capacity) in shared memory and returns the buffer that
// holds them (A or B) and, in *size, how many are elements (the rest, to
// the end of the last slice, are MS_PAD). Each warp sorts slices of
// MS_SLICE entries in registers (ms_sort_warp) and stores them
// lane-major; then runs of MS_SLICE, 2*MS_SLICE, ... are merged pairwise
// from one buffer to the other, each thread taking MS_MK outputs at a
// time (ms_merge_part; a pair's outputs start at a multiple of
// 2*MS_SLICE, so a thread's never straddle two pairs). A last run
// without a partner is copied. A slice whose elements are one key
// (ms_warp_one_key) or none is stored sorted without the network (the
// key, then MS_PAD). Where all the elements are one key it returns
// nullptr and the key in *one, and sorts nothing more: the caller counts
// *size of it. Every thread of the block calls it; every thread gets the
// same answers.
__device__ __forceinline__ ms_key* ms_block_sort(const VP_Mat& m, const MS_Run& c, const State& s, const MS_Arg& a, int v, int lo, int len,
                                                 ms_key* A, ms_key* B, int* size, ms_key* one) {
  __shared__ int count;
  __shared__ ms_key wkey[MS_WARPS];
  __shared__ int wstate[MS_WARPS];  // a warp's slices: 0 no element, 1 one key (wkey), 2 more
  if (threadIdx.x == 0) count = 0;
  __syncthreads();
  const int lane = threadIdx.x & 31;
  const int slices = (len + MS_SLICE - 1) / MS_SLICE;
  const long long c0 = m.cooPtr[v];
  int wst = 0;  // (the warp's state, the same in every lane)
  ms_key wk = 0;
  for (int sl = threadIdx.x >> 5; sl < slices; sl += MS_WARPS) {
    ms_key x[MS_SLICE_E];
    bool have = false, same = true;
    ms_key k0 = 0;
    const int valid = ms_warp_sum(ms_lane_keys(m, c, s, a, v, c0, lo, sl * MS_SLICE, len, x, have, k0, same));
    ms_key key;
    ms_key* out = A + sl * MS_SLICE + lane * MS_SLICE_E;
    if (ms_warp_one_key(have, k0, same, &key)) {
#pragma unroll
      for (int e = 0; e < MS_SLICE_E; e++) out[e] = lane * MS_SLICE_E + e < valid ? key : MS_PAD;
      if (wst == 0) wk = key;
      wst = (wst == 0 || (wst == 1 && wk == key)) ? 1 : 2;
    } else if (valid == 0) {
#pragma unroll
      for (int e = 0; e < MS_SLICE_E; e++) out[e] = MS_PAD;
    } else {
      ms_sort_warp<MS_SLICE_E>(x, lane);
#pragma unroll
      for (int e = 0; e < MS_SLICE_E; e++) out[e] = x[e];
      wst = 2;
    }
    if (lane == 0 && valid) atomicAdd(&count, valid);
  }
  if (lane == 0) {
    wstate[threadIdx.x >> 5] = wst;
    wkey[threadIdx.x >> 5] = wk;
  }
  __syncthreads();
  int bst = 0;
  ms_key bk = 0;
#pragma unroll
  for (int w = 0; w < MS_WARPS; w++) {
    if (wstate[w] == 0) continue;
    if (bst == 0) bk = wkey[w];
    bst = (bst == 0 || (bst == 1 && wkey[w] == bk)) && wstate[w] == 1 ? 1 : 2;
  }
  *size = count;
  if (bst == 1) {
    *one = bk;
    return nullptr;
  }
  const int L = slices * MS_SLICE;
  ms_key *src = A, *dst = B;
  for (int R = MS_SLICE; R < L; R <<= 1) {
    for (int o = threadIdx.x * MS_MK; o < L; o += MS_BLOCK * MS_MK) {
      const int ls = o / (2 * R) * (2 * R);
      const int la = min(R, L - ls), lb = max(0, min(R, L - ls - R));
      ms_merge_part<false, int>(src + ls, nullptr, la, src + ls + R, nullptr, lb, o - ls, MS_MK, dst + ls, nullptr);
    }
    __syncthreads();
    ms_key* t = src;
    src = dst;
    dst = t;
  }
  return src;
}

// Dynamic shared memory of ms_block and ms_hub_chunk: two key buffers of
// cap keys (ms_block: a.cap; ms_hub_chunk: MS_CHUNK), then cap ints.
extern __shared__ __align__(16) unsigned char ms_smem[];

// ms_count_sorted counts the size keys ms_block_sort sorted (into A or B)
// by distinct key (ms_rbk): the distinct keys go to *dk (the other
// buffer), their counts to *cnt (over the sorted keys), H as scratch. It
// returns how many are distinct. Every thread of the block calls it.
__device__ __forceinline__ int ms_count_sorted(ms_key* sorted, ms_key* A, ms_key* B, int* H, int size, ms_key** dk, int** cnt) {
  int sum;
  *dk = sorted == A ? B : A;
  const int distinct = ms_rbk<MS_RBK_ITEMS, false>(sorted, nullptr, size, *dk, H, &sum);
  *cnt = reinterpret_cast<int*>(sorted);
  ms_counts_to(H, distinct, size, *cnt);
  return distinct;
}

// ms_block: rows of at most a.cap elements (a power of two, at most
// MS_CHUNK), a block each: sorted (ms_block_sort), counted (ms_rbk, the
// counts into the sorted keys' buffer), summarized; a row of one key
// (ms_block_sort returns nullptr) is summarized as its one value. The host bins these
// rows by cap, so a class of short rows takes little shared memory and
// many blocks fit on a multiprocessor.
extern "C" __global__ void __launch_bounds__(MS_BLOCK, 3) ms_block(VP_Mat m, MS_Run c, State s, MS_Arg a) {
  ms_key* A = reinterpret_cast<ms_key*>(ms_smem);
  ms_key* B = A + a.cap;
  int* H = reinterpret_cast<int*>(B + a.cap);
  for (long long r = blockIdx.x; r < a.count; r += gridDim.x) {
    const int v = c.rows[a.first + r];
    const int d = ms_degree(m, v);  // (<= a.cap: the bin's rule)
    int size;
    ms_key one;
    ms_key* sorted = ms_block_sort(m, c, s, a, v, 0, d, A, B, &size, &one);
    if (sorted == nullptr) {
      // One distinct value: summarized as below, from B.
      if (threadIdx.x == 0) {
        const K_t val = ms_from_key(one);
        memcpy(B, &val, sizeof(K_t));
        H[0] = size;
      }
      __syncthreads();
      ms_summarize(c, s, v, reinterpret_cast<const K_t*>(B), H, 1, size);
      __syncthreads();
      continue;
    }
    ms_key* dk;
    int* cnt;
    const int distinct = ms_count_sorted(sorted, A, B, H, size, &dk, &cnt);
    ms_values(dk, distinct);
    ms_summarize(c, s, v, reinterpret_cast<const K_t*>(dk), cnt, distinct, size);
    __syncthreads();  // (the buffers are the next row's)
  }
}

// ms_hub_chunk: chunk b of the hub rows (rows a.first ..), a block each:
// sorted and counted as ms_block does (one key: that key, count size),
// its distinct keys and counts written to hub list 0 at the chunk's
// slot, their number (0 where the mask left the chunk no element) to the
// slot's length in hubLen[0].
// The rest of the slot is left as it is: nothing reads it.
extern "C" __global__ void __launch_bounds__(MS_BLOCK, 2) ms_hub_chunk(VP_Mat m, MS_Run c, State s, MS_Arg a) {
  ms_key* A = reinterpret_cast<ms_key*>(ms_smem);
  ms_key* B = A + MS_CHUNK;
  int* H = reinterpret_cast<int*>(B + MS_CHUNK);
  for (long long ch = blockIdx.x; ch < c.nChunks; ch += gridDim.x) {
    const int h = c.chunkHub[ch];
    const int v = c.rows[a.first + h];
    const long long lc = ch - c.hubFirst[h];
    const int d = ms_degree(m, v);
    const int lo = (int)(lc * MS_CHUNK), len = min(MS_CHUNK, d - lo);
    int size;
    ms_key one;
    ms_key* sorted = ms_block_sort(m, c, s, a, v, lo, len, A, B, &size, &one);
    ms_key* ok = reinterpret_cast<ms_key*>(c.hubKeys[0]) + ch * MS_CHUNK;
    int* oc = c.hubCnt[0] + ch * MS_CHUNK;
    if (sorted == nullptr) {  // (one distinct value)
      if (threadIdx.x == 0) {
        ok[0] = one;
        oc[0] = size;
        c.hubLen[0][ch] = 1;
      }
      __syncthreads();
      continue;
    }
    ms_key* dk;
    int* cnt;
    const int distinct = ms_count_sorted(sorted, A, B, H, size, &dk, &cnt);
    for (int i = threadIdx.x; i < distinct; i += MS_BLOCK) {
      ok[i] = dk[i];
      oc[i] = cnt[i];
    }
    if (threadIdx.x == 0) c.hubLen[0][ch] = distinct;
    __syncthreads();
  }
}

__device__ __forceinline__ int ms_lower_g(const ms_key* a, int n, ms_key x) {
  int lo = 0, hi = n;
  while (lo < hi) {
    const int mid = (int)(((unsigned)lo + (unsigned)hi) >> 1);
    if (a[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

__device__ __forceinline__ int ms_upper_g(const ms_key* a, int n, ms_key x) {
  int lo = 0, hi = n;
  while (lo < hi) {
    const int mid = (int)(((unsigned)lo + (unsigned)hi) >> 1);
    if (a[mid] <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

// ms_hub_levels is the merge levels that leave a row of k chunks one run
// (ceil(log2 k); 0 for one chunk).
__device__ __forceinline__ int ms_hub_levels(long long k) { return k <= 1 ? 0 : 64 - __clzll(k - 1); }

// ms_hub_merge: merge level a.level of the hub rows' runs, from list
// a.level&1 to the other. At level l a hub row's runs are 2^l chunks
// long (the last may be shorter): run r lies at slot r*2^l of the row,
// its hubLen[l&1] there saying how many of its entries are valid (sorted
// distinct keys of the chunks it merged: at most its slots' entries).
// Runs 2i and 2i+1 (lengths la, lb) merge by rank into run i of level
// l+1, at run 2i's slot, length la+lb: an entry of the left run goes to
// its index in the run plus the keys of the right run below it, one of a
// right run to its index plus the keys of the left run not above it (a
// stable merge, the same as ms_merge_part's: a permutation of [0,
// la+lb)). A block takes a part of MS_HUB_PART entries of a slot at a
// time, a thread an entry: the valid entries of its run that lie there
// (the run's entries [o, o + MS_CHUNK) are the slot's, o its offset in
// the run), so a part past its run's length costs a few loads; the part
// that starts a pair writes the merged length. A last run without a
// partner is copied (lb = 0). A row already one run (2^l >= its chunks)
// is left where it is: ms_hub_final reads it from list
// ms_hub_levels(chunks)&1. (Merge path, a thread walking MS_MK outputs
// of its own, measured 2.5 times slower here: its loads and stores do
// not coalesce.)
extern "C" __global__ void __launch_bounds__(MS_BLOCK) ms_hub_merge(VP_Mat m, MS_Run c, State s, MS_Arg a) {
  const int src = a.level & 1;
  const ms_key* sk = reinterpret_cast<const ms_key*>(c.hubKeys[src]);
  const int* sc = c.hubCnt[src];
  const int* sl = c.hubLen[src];
  ms_key* dk = reinterpret_cast<ms_key*>(c.hubKeys[src ^ 1]);
  int* dc = c.hubCnt[src ^ 1];
  int* dl = c.hubLen[src ^ 1];
  const long long span = 1LL << a.level;  // chunks a run spans
  const int parts = MS_CHUNK / MS_HUB_PART;
  for (long long u = blockIdx.x; u < (long long)c.nChunks * parts; u += gridDim.x) {
    const long long ch = u / parts;
    const int pt = (int)(u - ch * parts);
    const int h = c.chunkHub[ch];
    const long long f = c.hubFirst[h], k = c.hubFirst[h + 1] - f;
    if (k <= span) continue;  // (one run)
    const long long j = ch - f, run = j >> a.level, ls = (run & ~1LL) << a.level, rs = ls + span;
    const int la = sl[f + ls], lb = rs < k ? sl[f + rs] : 0;
    if (j == ls && pt == 0 && threadIdx.x == 0) dl[f + ls] = la + lb;
    const bool left = (run & 1) == 0;
    // The part's entries of its run: [o, end).
    const long long o = (j - (run << a.level)) * MS_CHUNK + (long long)pt * MS_HUB_PART;
    const int end = (int)min(o + MS_HUB_PART, (long long)(left ? la : lb));
    if (o >= end) continue;
    const ms_key* ak = sk + (f + ls) * MS_CHUNK;
    const ms_key* bk = sk + (f + (rs < k ? rs : ls)) * MS_CHUNK;  // (a right run's; none: lb is 0)
    const ms_key* rk = left ? ak : bk;
    const int* rc = sc + (f + (left ? ls : rs)) * MS_CHUNK;
    ms_key* ok = dk + (f + ls) * MS_CHUNK;
    int* oc = dc + (f + ls) * MS_CHUNK;
    for (int q = (int)o + threadIdx.x; q < end; q += MS_BLOCK) {
      const ms_key key = rk[q];
      const int to = left ? q + ms_lower_g(bk, lb, key) : q + ms_upper_g(ak, la, key);
      ok[to] = key;
      oc[to] = rc[q];
    }
  }
}

// ms_hub_final: hub row a.first+b, a block each, after its merge levels
// (its run in list ms_hub_levels(chunks)&1, at its first slot): the
// run's valid (key, count) entries counted by distinct key into the
// other list, the counts into its own, then summarized.
extern "C" __global__ void __launch_bounds__(MS_BLOCK) ms_hub_final(VP_Mat m, MS_Run c, State s, MS_Arg a) {
  for (long long h = blockIdx.x; h < c.nHub; h += gridDim.x) {
    const int v = c.rows[a.first + h];
    const long long f = c.hubFirst[h];
    const int cur = ms_hub_levels(c.hubFirst[h + 1] - f) & 1;
    const long long base = f * MS_CHUNK;
    const int len = c.hubLen[cur][f];
    const ms_key* keys = reinterpret_cast<const ms_key*>(c.hubKeys[cur]) + base;
    const int* cnts = c.hubCnt[cur] + base;
    ms_key* dk = reinterpret_cast<ms_key*>(c.hubKeys[cur ^ 1]) + base;
    int* dp = c.hubCnt[cur ^ 1] + base;
    int size;
    const int distinct = ms_rbk<MS_ITEMS, true>(keys, cnts, len, dk, dp, &size);
    int* cnt = c.hubCnt[cur] + base;  // (the merged counts, read: free now)
    ms_counts_to(dp, distinct, size, cnt);
    ms_values(dk, distinct);
    ms_summarize(c, s, v, reinterpret_cast<const K_t*>(dk), cnt, distinct, size);
    __syncthreads();
  }
}

extern "C" __global__ void __launch_bounds__(MS_BLOCK) ms_tiny1(VP_Mat m, MS_Run c, State s, MS_Arg a) { ms_tiny<1>(m, c, s, a); }
extern "C" __global__ void __launch_bounds__(MS_BLOCK) ms_tiny2(VP_Mat m, MS_Run c, State s, MS_Arg a) { ms_tiny<2>(m, c, s, a); }
extern "C" __global__ void __launch_bounds__(MS_BLOCK) ms_tiny4(VP_Mat m, MS_Run c, State s, MS_Arg a) { ms_tiny<4>(m, c, s, a); }
extern "C" __global__ void __launch_bounds__(MS_BLOCK) ms_tiny8(VP_Mat m, MS_Run c, State s, MS_Arg a) { ms_tiny<8>(m, c, s, a); }
extern "C" __global__ void __launch_bounds__(MS_BLOCK) ms_tiny16(VP_Mat m, MS_Run c, State s, MS_Arg a) { ms_tiny<16>(m, c, s, a); }
extern "C" __global__ void __launch_bounds__(MS_BLOCK) ms_tiny32(VP_Mat m, MS_Run c, State s, MS_Arg a) { ms_tiny<32>(m, c, s, a); }
extern "C" __global__ void __launch_bounds__(MS_BLOCK) ms_warp2(VP_Mat m, MS_Run c, State s, MS_Arg a) { ms_warp<2>(m, c, s, a); }
extern "C" __global__ void __launch_bounds__(MS_BLOCK) ms_warp4(VP_Mat m, MS_Run c, State s, MS_Arg a) { ms_warp<4>(m, c, s, a); }
extern "C" __global__ void __launch_bounds__(MS_BLOCK) ms_warp8(VP_Mat m, MS_Run c, State s, MS_Arg a) { ms_warp<8>(m, c, s, a); }
extern "C" __global__ void __launch_bounds__(MS_BLOCK) ms_warp16(VP_Mat m, MS_Run c, State s, MS_Arg a) { ms_warp<16>(m, c, s, a); }
// (launched for 4-byte keys only: MS_SLICE)
extern "C" __global__ void __launch_bounds__(MS_BLOCK, 2) ms_warp32(VP_Mat m, MS_Run c, State s, MS_Arg a) {
  if constexpr (sizeof(ms_key) == 4) ms_warp<32>(m, c, s, a);
}

// ms_begin resets record a.cur (vertices activated, the aggregators'
// identities) before superstep a's first kernel.
extern "C" __global__ void ms_begin(VP_Mat m, MS_Run c, State s, MS_Arg a) {
  if (blockIdx.x != 0 || threadIdx.x != 0) return;
  unsigned long long* r = c.rec + (long long)a.cur * c.recWords;
  r[0] = 0;
  for (int i = 0; i < c.recWords - 1; i++) r[1 + i] = (unsigned long long)__double_as_longlong(vp_agg_identity(vp_agg_kind(i)));
}

// ms_apply: APPLY after the summaries, a thread a vertex of the run's rows
// [lo, hi): vp_update with y[v]; the warp of 32 consecutive vertices
// writes their word of the next frontier (every word of the rows, so it
// needs no clearing; a part's other words are the exchange's) and counts
// its activations. The aggregators' contributions are folded per thread
// (up to 8 of them) and combined per warp, then into the record.
extern "C" __global__ void __launch_bounds__(MS_BLOCK) ms_apply(VP_Mat m, MS_Run c, State s, MS_Arg a) {
  unsigned long long* rec = c.rec + (long long)a.cur * c.recWords;
  const unsigned long long* prev = c.rec + (long long)(a.cur ^ 1) * c.recWords;
  unsigned* next = c.mask[a.cur ^ 1];
  Step st;
  st.iteration = a.iteration;
  st.prev = reinterpret_cast<const double*>(prev + 1);
  st.acc = reinterpret_cast<double*>(rec + 1);
  st.blk = nullptr;
  st.part = nullptr;
#define MS_REGS (VP_NAGG > 0 && VP_NAGG <= 8)
#if MS_REGS
  double part[VP_NAGG];
#pragma unroll
  for (int k = 0; k < VP_NAGG; k++) part[k] = vp_agg_identity(vp_agg_kind(k));
  st.part = part;
#endif
  const int lane = threadIdx.x & 31;
  unsigned long long acts = 0;
  for (long long b = c.lo + (long long)blockIdx.x * MS_BLOCK; b < c.hi; b += (long long)gridDim.x * MS_BLOCK) {
    const long long v = b + threadIdx.x;
    bool act = false;
    if (v < c.hi) {
#if VP_XSIZE == 0
      X_t none = X_t();
      act = vp_update((int)v, c.y[v], &none, s, st);
#else
      act = vp_update((int)v, c.y[v], c.x + v, s, st);
#endif
    }
    const unsigned bal = __ballot_sync(MS_FULL, act);
    if (lane == 0 && v < c.hi) {
      next[v >> 5] = bal;
      acts += __popc(bal);
    }
  }
#if MS_REGS
  vp_agg_flush_regs(part, st.acc);
#endif
  if (lane == 0 && acts) atomicAdd(rec, acts);
}

// ms_info reports what the host sizes the run's buffers by.
extern "C" __global__ void ms_info(unsigned long long* out, int unused) {
  if (blockIdx.x != 0 || threadIdx.x != 0) return;
  out[0] = sizeof(K_t);
  out[1] = MS_CHUNK;
  out[2] = VP_SUMMARY_FOLD;
  out[3] = sizeof(X_t);
  out[4] = sizeof(A_t);
  out[5] = MS_WARP_MAX;
}
