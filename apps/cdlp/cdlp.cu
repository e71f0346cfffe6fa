// CDLP's device code (Program, apps/cdlp/cdlp.go; the contract:
// vertexprog.MultisetDeviceProgram): see apps/cdlp/device.go. With
// CDLP_INDEX 1 the keys are labels minus the smallest id (4 bytes),
// with 0 the labels themselves.
#if CDLP_INDEX
typedef unsigned K_t;
#else
typedef long long K_t;
#endif
struct State;
__device__ __forceinline__ long long cdlp_label(K_t k, const State& s);

typedef long long X_t;
struct A_t {
  long long label;
  bool found;
};
struct State {
  long long base;
};
__device__ A_t vp_summarize(int v, const K_t* values, const int* counts, int distinct, int size, const State& s) {
  A_t r;
  r.label = 0;
  r.found = false;
  if (size == 0) return r;
  int best = 0;
  for (int i = 1; i < distinct; i++)
    if (counts[i] > counts[best]) best = i;
  r.label = cdlp_label(values[best], s);
  r.found = true;
  return r;
}
#define VP_SUMMARY_FOLD 1
struct S_t {
  K_t value;
  int count;
};
__device__ S_t vp_summary_leaf(int v, K_t value, int count, const State& s) {
  S_t t;
  t.value = value;
  t.count = count;
  return t;
}
__device__ S_t vp_summary_join(S_t a, S_t b) { return b.count > a.count ? b : a; }
__device__ A_t vp_summary_final(int v, S_t t, int distinct, int size, const State& s) {
  A_t r;
  r.label = cdlp_label(t.value, s);
  r.found = true;
  return r;
}
__device__ bool vp_update(int v, A_t c, X_t* label, const State& s, Step& st) {
  if (!c.found || c.label == *label) return false;
  *label = c.label;
  return true;
}

#if CDLP_INDEX
__device__ __forceinline__ long long cdlp_label(K_t k, const State& s) { return s.base + (long long)k; }
__device__ K_t vp_element(int v, int u, X_t xu, float w, const State& s) { return (K_t)(xu - s.base); }
#else
__device__ __forceinline__ long long cdlp_label(K_t k, const State& s) { return k; }
__device__ K_t vp_element(int v, int u, X_t xu, float w, const State& s) { return xu; }
#endif
