// hpgraph CUDA prelude: what a program's device code may use. The backend
// puts a block of #defines before this file (VP_XSIZE, VP_ASIZE,
// VP_HAS_WANTS, VP_HAS_DONE, VP_TEXTURE, VP_TEXTURE_X, VP_NAGG, VP_AGG_OPS)
// and the program's snippet after it.

// The program's aggregators: VP_NAGG of them, their ops (0 Sum, 1 Min,
// 2 Max: vertexprog.Aggregator) listed in VP_AGG_OPS, each followed by a
// comma, so a kernel can fold with an op it knows when it is compiled.
__device__ __forceinline__ int vp_agg_kind(int i) {
  const int k[] = {VP_AGG_OPS 0};
  return k[i];
}

// Step is what vp_update sees of the superstep: its number and the global
// aggregators (the values combined over the previous superstep, and the
// contributions to the next).
struct Step {
  int iteration;
  const double* prev;
  double* acc;      // the superstep's record (global memory)
  double* blk;      // the block's partial values in shared memory, or null
  double* part;     // the thread's own partial values (registers), or null
  __device__ double aggregate(int i) const { return prev[i]; }
  __device__ void add(int i, double v);
};

// Go's min and max (math.Min/math.Max for floating point: -Inf and NaN win
// as in Go, and -0 is below +0), for device code that must match the Go
// program bit for bit.
__device__ __forceinline__ double vp_go_min(double a, double b) {
  const double ninf = __longlong_as_double(0xfff0000000000000ULL);
  if (a == ninf || b == ninf) return ninf;
  if (a != a || b != b) return a + b;
  if (a == 0 && b == 0) return __double_as_longlong(a) < 0 ? a : b;
  return a < b ? a : b;
}
__device__ __forceinline__ double vp_go_max(double a, double b) {
  const double pinf = __longlong_as_double(0x7ff0000000000000ULL);
  if (a == pinf || b == pinf) return pinf;
  if (a != a || b != b) return a + b;
  if (a == 0 && b == 0) return __double_as_longlong(a) < 0 ? b : a;
  return a > b ? a : b;
}
// Go's builtin min/max on float32 (NaN wins; -0 below +0).
__device__ __forceinline__ float vp_go_minf(float a, float b) {
  if (a != a) return a;
  if (b != b) return b;
  if (a == 0 && b == 0) return __float_as_int(a) < 0 ? a : b;
  return a < b ? a : b;
}
__device__ __forceinline__ float vp_go_maxf(float a, float b) {
  if (a != a) return a;
  if (b != b) return b;
  if (a == 0 && b == 0) return __float_as_int(a) < 0 ? b : a;
  return a > b ? a : b;
}

// vp_agg_fold is op applied to a and b (op 0 Sum, 1 Min, 2 Max).
__device__ __forceinline__ double vp_agg_fold(int op, double a, double b) {
  return op == 0 ? a + b : op == 1 ? vp_go_min(a, b) : vp_go_max(a, b);
}

// vp_agg_op folds v into the aggregator word at p (op 0 Sum, 1 Min, 2 Max).
__device__ __forceinline__ void vp_agg_op(double* p, int op, double v) {
  if (op == 0) {
    atomicAdd(p, v);
    return;
  }
  unsigned long long* q = reinterpret_cast<unsigned long long*>(p);
  unsigned long long old = *reinterpret_cast<volatile unsigned long long*>(q);
  for (;;) {
    double cur = __longlong_as_double(old);
    double nv = op == 1 ? vp_go_min(cur, v) : vp_go_max(cur, v);
    unsigned long long nb = __double_as_longlong(nv);
    if (nb == old) return;
    unsigned long long seen = atomicCAS(q, old, nb);
    if (seen == old) return;
    old = seen;
  }
}

// vp_agg_identity is op's identity (op 0 Sum, 1 Min, 2 Max).
__device__ __forceinline__ double vp_agg_identity(int op) {
  if (op == 1) return __longlong_as_double(0x7ff0000000000000ULL);  // Min: +Inf
  if (op == 2) return __longlong_as_double(0xfff0000000000000ULL);  // Max: -Inf
  return 0.0;
}

// vp_agg_flush_regs combines the threads' partials of the VP_NAGG
// aggregators (an APPLY's, in registers: part) over the warp and folds
// each warp's into dst, where it is not the identity. Every lane calls it.
template <int N>
__device__ __forceinline__ void vp_agg_flush_regs(const double (&part)[N], double* dst) {
  const int lane = threadIdx.x & 31;
#pragma unroll
  for (int k = 0; k < N; k++) {
    double r = part[k];
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) r = vp_agg_fold(vp_agg_kind(k), r, __shfl_xor_sync(0xffffffffu, r, o));
    if (lane == 0 && __double_as_longlong(r) != __double_as_longlong(vp_agg_identity(vp_agg_kind(k)))) vp_agg_op(dst + k, vp_agg_kind(k), r);
  }
}

// Step::add folds v into the thread's own partial when it has one (an
// APPLY after a pull combines them once, at its end); otherwise it
// combines the contributions of the lanes that add to the same aggregator
// first, then folds them into the block's partial (flushed to memory once
// per block).
__device__ __forceinline__ void Step::add(int i, double v) {
  const int op = vp_agg_kind(i);
  if (part) {
    part[i] = vp_agg_fold(op, part[i], v);
    return;
  }
#if __CUDA_ARCH__ >= 700
  const unsigned g = __match_any_sync(__activemask(), i);
  const int lane = threadIdx.x & 31, leader = __ffs(g) - 1;
  double r = v;
  if (g == 0xffffffffu) {
    // The whole warp adds to one aggregator: a butterfly, 5 shuffles
    // instead of 31.
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) r = vp_agg_fold(op, r, __shfl_xor_sync(g, r, o));
  } else {
    for (unsigned rest = g & ~(1u << lane); rest; rest &= rest - 1) r = vp_agg_fold(op, r, __shfl_sync(g, v, __ffs(rest) - 1));
  }
  if (lane == leader) vp_agg_op((blk ? blk : acc) + i, op, r);
#else
  vp_agg_op((blk ? blk : acc) + i, op, v);
#endif
}
