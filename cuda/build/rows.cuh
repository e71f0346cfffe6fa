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

// hb_tile_rows finds the rows of entries lo and hi-1 (of n rows) with two
// searches over all rows, into rows (shared), so that each entry of the
// tile searches between them. Every thread of the block calls it; rows
// may be rewritten after the block's next barrier.
__device__ __forceinline__ void hb_tile_rows(const long long* ptr, int n, long long lo, long long hi, int* rows) {
  if (threadIdx.x == 0) rows[0] = hb_row_of(ptr, 0, n - 1, lo);
  if (threadIdx.x == 32) rows[1] = hb_row_of(ptr, 0, n - 1, hi - 1);
  __syncthreads();
}
