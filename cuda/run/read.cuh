// read.cuh: a program's reads of X and the frontier bitmasks, shared by
// its kernel template (kernels*.cu) and its multiset kernels
// (multiset.cu), after the program's snippet (X_t).

// vp_ldg_x is X of vertex u at x through the read-only path (a word at a
// time where X_t has whole words).
__device__ __forceinline__ X_t vp_ldg_x(const X_t* x, int u) {
#if VP_XSIZE == 0
  return X_t();
#elif VP_XSIZE % 4 == 0
  X_t v;
  unsigned* w = reinterpret_cast<unsigned*>(&v);
  const unsigned* p = reinterpret_cast<const unsigned*>(x + u);
#pragma unroll
  for (int i = 0; i < VP_XSIZE / 4; i++) w[i] = __ldg(p + i);
  return v;
#else
  return x[u];
#endif
}

// vp_bit is bit u of the bitmask m, through the read-only path.
__device__ __forceinline__ bool vp_bit(const unsigned* m, int u) { return (__ldg(m + (u >> 5)) >> (u & 31)) & 1u; }
