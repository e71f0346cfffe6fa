// search.cuh: searches over sorted runs of an array, for kernels and
// programs' device code alike (#include "search.cuh": jit.Expand splices
// it in).

// hp_lower_bound is the first index in [j, je) whose entry of the sorted
// a is >= x (je where none is).
__device__ __forceinline__ long long hp_lower_bound(const int* a, long long j, long long je, int x) {
  while (j < je) {
    long long mid = j + (je - j) / 2;
    if (a[mid] < x) j = mid + 1; else je = mid;
  }
  return j;
}
