// The kernel template, part 6 of 8 (after kernels_tiles.cu): a push
// superstep of the grid-wide kernels, and its APPLY.

// Push, the first kernel of a push superstep.
extern "C" __global__ void __launch_bounds__(VP_BLOCK) vp_push(VP_Mat m, VP_Run c, State s, VP_Arg a) {
  VP_St t = vp_st(c, a, true);
  if (!t.go) return;
  if (blockIdx.x == 0 && threadIdx.x == 0) t.rec[VP_R_RAN] = 1;
  vp_push_steps<VP_BLOCK, false>(m, c, t, s, t.prev, blockIdx.x, gridDim.x, VP_Touch{c.y, c.touchedList, t.rec + VP_R_TOUCHED});
}

// vp_take_row takes touched row v for APPLY: it swaps the row's
// accumulator for the identity, one atomic where a touched bitmap took an
// atomic and a read. Of a row listed twice (a gather brought it back to
// the identity and another changed it again) the second taker finds the
// identity and skips it, as it skips a row whose gathers came back to the
// identity: push supersteps are for Sparse programs, whose Update of the
// identity changes nothing. It returns whether the row has an
// accumulator, in acc.
__device__ __forceinline__ bool vp_take_row(A_t* y, int v, A_t& acc) {
#if VP_ASIZE == 4 || VP_ASIZE == 8
  vp_abits id, got;
  id.a = vp_identity();
  got.b = atomicExch(reinterpret_cast<vp_aword*>(y + v), id.b);
  acc = got.a;
  return got.b != id.b;
#else
  return false;  // never launched: the engine pushes only 4- and 8-byte accumulators
#endif
}

// APPLY after a push, the last kernel of a push superstep: Update on the
// rows the push touched (listed by vp_push_one; they go back to the
// identity), queueing the vertices it activates for the next push.
extern "C" __global__ void __launch_bounds__(VP_BLOCK) vp_apply_push(VP_Mat m, VP_Run c, State s, VP_Arg a) {
  VP_St t = vp_st(c, a, true);
  vp_next_record(c, t);
  if (!t.go) return;
  __shared__ double agg[VP_BLOCK_AGG];
  double* blk = vp_agg_begin(c, agg);
  const long long cnt = (long long)t.rec[VP_R_TOUCHED];
  // Whole blocks loop together (vp_emit synchronizes the block).
  for (long long base = (long long)blockIdx.x * VP_BLOCK; base < cnt; base += (long long)gridDim.x * VP_BLOCK) {
    long long i = base + threadIdx.x;
    bool act = false;
    int v = 0, deg = 0, edges = 0;
    A_t acc;
    if (i < cnt) {
      v = c.touchedList[i];
      const int d = c.pushDeg[v], e = c.frontDeg[v];  // (read with the swap, not after it)
      if (vp_take_row(c.y, v, acc) && (act = vp_update_at(c, t, s, v, acc, blk))) {
        atomicOr(c.mask[t.p ^ 1] + (v >> 5), 1u << (v & 31));
        deg = d;
        edges = e;
      }
    }
    vp_emit(c, t.rec, t.rec, c.queue[t.p ^ 1], c.chunks[t.p ^ 1], v, act, deg, edges);
  }
  vp_agg_flush(c, t, blk);
}

