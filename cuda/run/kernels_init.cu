// The kernel template, part 2 of 8 (after kernels.cu): set-up kernels —
// the superstep base, the identity fills, the program's vp_init on every
// vertex.

// vp_ctl: the host's way to set the superstep base without a copy.
extern "C" __global__ void vp_ctl(VP_Mat m, VP_Run c, State s, VP_Arg a) {
  if (blockIdx.x != 0 || threadIdx.x != 0) return;
  if (a.op == 0) c.ctl[0] = a.j;
  else if (a.op == 1) c.ctl[0] += a.j;
  else if (a.op == 2) c.ctl[1] = a.j;
  else c.ctl[2] = a.j;
}

// y (a.op 1: yLoop) := identity on every row (before a push after pull
// supersteps; yLoop once, before the first vp_loop).
extern "C" __global__ void __launch_bounds__(VP_BLOCK) vp_fill(VP_Mat m, VP_Run c, State s, VP_Arg a) {
  int r = c.lo + blockIdx.x * blockDim.x + threadIdx.x;  // (the run's rows)
  if (r < c.hi) (a.op == 1 ? c.yLoop : c.y)[r] = vp_identity();
}

// vp_count_flush adds a block's frontier size and push edges to record
// t.rec: acts, counted by each warp's lane 0, and edges, by every thread;
// cnt is the block's two shared counters, cleared at its start. Every
// thread of the block calls it (vp_init_state, vp_apply_pull).
__device__ __forceinline__ void vp_count_flush(const VP_St& t, unsigned long long* cnt, unsigned long long acts, unsigned long long edges) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) edges += __shfl_down_sync(VP_FULL, edges, o);
  __syncthreads();  // (cnt cleared)
  if ((threadIdx.x & 31) == 0) {
    if (acts) atomicAdd(&cnt[0], acts);
    if (edges) atomicAdd(&cnt[1], edges);
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    if (cnt[0]) atomicAdd(t.rec + VP_R_ACTIVE, cnt[0]);
    if (cnt[1]) atomicAdd(t.rec + VP_R_EDGES, cnt[1]);
  }
}

// vp_init_state runs the program's vp_init (DeviceCode.Init) on every
// vertex, before the first superstep: it writes X, the program's writable
// arrays (zeroed before), superstep 0's x_bitmask and the record of
// superstep -1 (the first frontier's size and push-matrix edges, the
// aggregators Init added to) — what the host sends when it ran Init. A
// warp takes 32 consecutive vertices and writes their bitmask word whole;
// Step's aggregate(i) reads the identities of superstep 0's cleared
// record, as Init's Step does.
extern "C" __global__ void __launch_bounds__(VP_BLOCK) vp_init_state(VP_Mat m, VP_Run c, State s, VP_Arg a) {
#ifdef VP_HAS_INIT
  VP_St t;
  t.rec = vp_record(c, -1);
  __shared__ double agg[VP_BLOCK_AGG];
  __shared__ unsigned long long cnt[2];
  double* blk = vp_agg_begin(c, agg);
  if (threadIdx.x < 2) cnt[threadIdx.x] = 0;
  Step st;
  st.iteration = 0;
  st.prev = reinterpret_cast<const double*>(vp_record(c, 0) + VP_R_AGG);
  st.acc = reinterpret_cast<double*>(t.rec + VP_R_AGG);
  st.blk = blk;
  st.part = nullptr;
  const int lane = threadIdx.x & 31;
  const long long end = ((long long)c.n + 31) / 32 * 32;
  unsigned long long acts = 0, edges = 0;
  for (long long b = (long long)blockIdx.x * VP_BLOCK; b < end; b += (long long)gridDim.x * VP_BLOCK) {
    const long long u = b + threadIdx.x;
    bool act = false;
    if (u < c.n) {
      const int v = (int)u;
      X_t x;
      memset(&x, 0, sizeof(X_t));
      act = vp_init(v, &x, s, st);
#if VP_XSIZE > 0
      c.x[v] = x;
#endif
      if (act && c.pushDeg) edges += c.pushDeg[v];
    }
    const unsigned bal = __ballot_sync(VP_FULL, act);
    if (lane == 0 && u < end) {
      c.mask[0][u >> 5] = bal;
      acts += __popc(bal);
    }
  }
  vp_count_flush(t, cnt, acts, edges);
  vp_agg_flush(c, t, blk);
#endif
}

