// After the kernel template (kernels.cu and its parts), for a program
// that declares Spec.Reductions only (source.go): vp_reduce_values, its
// reductions over every vertex's final value.

// The program's reductions: VP_NRED of them, their ops in VP_RED_OPS (0
// count, 1 sum, 2 min, 3 max: driver.Reduce) and in VP_RED_FINITE
// whether each counts the finite values only (1) or all (0), each value
// followed by a comma.
__device__ __forceinline__ int vp_red_op(int k) {
  const int o[] = {VP_RED_OPS 0};
  return o[k];
}
__device__ __forceinline__ bool vp_red_finite(int k) {
  const int f[] = {VP_RED_FINITE 0};
  return f[k] != 0;
}

__device__ __forceinline__ double vp_red_identity(int op) {
  if (op == 2) return __longlong_as_double(0x7ff0000000000000ULL);  // min: +Inf
  if (op == 3) return __longlong_as_double(0xfff0000000000000ULL);  // max: -Inf
  return 0.0;
}

// vp_red_fold is a and b, two partial reductions of op, combined.
__device__ __forceinline__ double vp_red_fold(int op, double a, double b) {
  return op <= 1 ? a + b : op == 2 ? vp_go_min(a, b) : vp_go_max(a, b);
}

// vp_red_block folds the block's partials (acc, a thread's each) into
// thread 0's, in an order fixed by the lanes and warps alone (a sum's
// bits do not depend on the timing). Every thread calls it.
__device__ __forceinline__ void vp_red_block(double (&acc)[VP_NRED]) {
  __shared__ double warps[VP_BLOCK / 32][VP_NRED];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
#pragma unroll
  for (int k = 0; k < VP_NRED; k++) {
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) acc[k] = vp_red_fold(vp_red_op(k), acc[k], __shfl_down_sync(VP_FULL, acc[k], o));
    if (lane == 0) warps[warp][k] = acc[k];
  }
  __syncthreads();
  if (threadIdx.x == 0) {
#pragma unroll
    for (int k = 0; k < VP_NRED; k++) {
      for (int w = 1; w < VP_BLOCK / 32; w++) acc[k] = vp_red_fold(vp_red_op(k), acc[k], warps[w][k]);
    }
  }
}

// VP_Reduce is vp_reduce_values' memory: a partial per block and
// reduction (block-major), the results, and the count of blocks done
// (0 between launches).
struct VP_Reduce {
  double* part;
  double* out;
  unsigned* done;
};
static_assert(sizeof(VP_Reduce) == 24, "hpgraph: VP_Reduce layout");

// vp_reduce_values reduces X over the run's vertices: each block folds
// its vertices (a grid-stride loop) into a partial per reduction, and
// the last block to finish folds the partials, each thread a fixed share
// of them, into out, and resets done. One launch, one copy of VP_NRED
// doubles back: the values stay on the device.
extern "C" __global__ void __launch_bounds__(VP_BLOCK) vp_reduce_values(VP_Run c, VP_Reduce r) {
  double acc[VP_NRED];
#pragma unroll
  for (int k = 0; k < VP_NRED; k++) acc[k] = vp_red_identity(vp_red_op(k));
  const long long stride = (long long)gridDim.x * VP_BLOCK;
  for (long long v = (long long)blockIdx.x * VP_BLOCK + threadIdx.x; v < c.n; v += stride) {
    const double d = (double)c.x[v];
    const bool fin = isfinite(d);
#pragma unroll
    for (int k = 0; k < VP_NRED; k++) {
      const int op = vp_red_op(k);
      if (fin || !vp_red_finite(k)) acc[k] = vp_red_fold(op, acc[k], op == 0 ? 1.0 : d);
    }
  }
  vp_red_block(acc);
  __shared__ bool last;
  if (threadIdx.x == 0) {
#pragma unroll
    for (int k = 0; k < VP_NRED; k++) r.part[(long long)blockIdx.x * VP_NRED + k] = acc[k];
    __threadfence();
    last = atomicAdd(r.done, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (!last) return;
  __threadfence();
#pragma unroll
  for (int k = 0; k < VP_NRED; k++) {
    acc[k] = vp_red_identity(vp_red_op(k));
    for (int b = threadIdx.x; b < (int)gridDim.x; b += VP_BLOCK) acc[k] = vp_red_fold(vp_red_op(k), acc[k], __ldcg(r.part + (long long)b * VP_NRED + k));
  }
  vp_red_block(acc);
  if (threadIdx.x == 0) {
#pragma unroll
    for (int k = 0; k < VP_NRED; k++) r.out[k] = acc[k];
    *r.done = 0;
  }
}
