// rows.cuh: finding the row of an entry of a CSR (or a COO by its row
// offsets), shared by PREPROCESS's modules.

// hb_row_of is the row of entry i: the largest u in [lo, hi] with
// ptr[u] <= i, given ptr[lo] <= i < ptr[hi+1].
__device__ __forceinline__ int hb_row_of(const long long* ptr, long long lo, long long hi, long long i) {
  while (lo < hi) {
    const long long mid = lo + ((hi - lo + 1) >> 1);
    if (ptr[mid] <= i) lo = mid; else hi = mid - 1;
  }
  return (int)lo;
}

// hb_next_row is the row of entry i for a walk that had row r: the
// largest u >= r with ptr[u] <= i, given ptr[r] <= i < ptr[n]. It gallops
// from r, then searches: rows without entries (equal offsets) can lie in
// runs of millions (a part's rows without arcs, before the next part's),
// which a walk a row at a time crossed at a dependent load each (1.5 s a
// kernel at kron26 in 2 parts, docs/parts.md).
__device__ __forceinline__ int hb_next_row(const long long* ptr, long long r, long long n, long long i) {
  if (ptr[r + 1] > i) return (int)r;
  long long lo = r + 1, step = 1;  // ptr[lo] <= i
  for (;;) {
    const long long hi = min(lo + step, n);
    if (ptr[hi] > i) return hb_row_of(ptr, lo, hi - 1, i);
    lo = hi;
    step <<= 1;
  }
}

// hb_tile_rows finds the rows of entries lo and hi-1 (of n rows) with two
// searches over all rows, into rows (shared), so that each entry of the
// tile searches between them. Every thread of the block calls it; rows
// may be rewritten after the block's next barrier.
__device__ __forceinline__ void hb_tile_rows(const long long* ptr, int n, long long lo, long long hi, int* rows) {
  if (threadIdx.x == 0) rows[0] = hb_row_of(ptr, 0, n - 1, lo);
  if (threadIdx.x == 32) rows[1] = hb_row_of(ptr, 0, n - 1, hi - 1);
  __syncthreads();
}
