// scan.cuh: the scans every module shares (#include "scan.cuh": jit.Expand
// splices it in). Every thread of the warp (the block) must call them.

// hp_warp_scan is the inclusive scan of v over the first WIDTH lanes of
// the warp (the others' values add to none of those).
template <int WIDTH = 32, class T>
__device__ __forceinline__ T hp_warp_scan(T v) {
  const int lane = threadIdx.x & 31;
#pragma unroll
  for (int o = 1; o < WIDTH; o <<= 1) {
    const T y = __shfl_up_sync(0xffffffffu, v, o);
    if (lane >= o) v += y;
  }
  return v;
}

// hp_block_scan is the exclusive scan of v over a block of THREADS
// threads; *total gets the block's sum. Its shared memory is reused by
// the next call.
template <int THREADS, class T>
__device__ __forceinline__ T hp_block_scan(T v, T* total) {
  __shared__ T warpSum[THREADS / 32];
  const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
  const T x = hp_warp_scan(v);
  if (lane == 31) warpSum[w] = x;
  __syncthreads();
  if (w == 0) {
    const T s = hp_warp_scan<THREADS / 32>(lane < THREADS / 32 ? warpSum[lane] : T(0));
    if (lane < THREADS / 32) warpSum[lane] = s;
  }
  __syncthreads();
  const T before = w > 0 ? warpSum[w - 1] : T(0);
  *total = warpSum[THREADS / 32 - 1];
  __syncthreads();
  return before + x - v;
}
