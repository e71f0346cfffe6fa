// hpgraph CUDA: PREPROCESS on the device. A HYB matrix's ELL and COO
// arrays built from the CSR that the host uploads (hyb.Matrix.Materialize
// does the same on the host): the first K entries of each row go to ELL,
// column-major with a pitch, Pad (-1) and 0 past the row's end; the rest
// of the row to COO at the row's CooPtr, in the CSR's order.

struct HB_Arg {
  const long long* rowPtr;  // n+1
  const int* col;           // the CSR's columns
  const float* val;         // its values, or null for a pattern matrix
  const long long* cooPtr;  // n+1
  int* ellCol;              // k*pitch
  float* ellVal;            // k*pitch, or null
  int* cooCol;              // cooPtr[n]
  float* cooVal;            // cooPtr[n], or null
  int n, k, pitch, pad_;
};

static_assert(sizeof(HB_Arg) == 80, "hpgraph: HB_Arg layout");

// hb_ell: one thread a slot, in the ELL's own order (stores coalesced).
extern "C" __global__ void hb_ell(const HB_Arg a, int unused) {
  long long slots = (long long)a.k * a.pitch;
  long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < slots; i += stride) {
    int j = (int)(i / a.pitch), r = (int)(i - (long long)j * a.pitch);
    int c = -1;
    float w = 0.0f;
    if (r < a.n) {
      long long s = a.rowPtr[r] + j;
      if (s < a.rowPtr[r + 1]) {
        c = a.col[s];
        if (a.val) w = a.val[s];
      }
    }
    a.ellCol[i] = c;
    if (a.ellVal) a.ellVal[i] = w;
  }
}

// hb_coo: one warp a row, copying the row's tail past K.
extern "C" __global__ void hb_coo(const HB_Arg a, int unused) {
  int lane = threadIdx.x & 31;
  long long warps = ((long long)gridDim.x * blockDim.x) >> 5;
  for (long long r = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5; r < a.n; r += warps) {
    long long d = a.cooPtr[r], len = a.cooPtr[r + 1] - d;
    if (len <= 0) continue;
    long long s = a.rowPtr[r] + a.k;
    for (long long i = lane; i < len; i += 32) {
      a.cooCol[d + i] = a.col[s + i];
      if (a.val) a.cooVal[d + i] = a.val[s + i];
    }
  }
}

// A parked run's written state arrays start the next run from their
// initial copy (park.go). The copy reads with an evict-first hint (__ldcs)
// and stores plainly: cuMemcpyDtoD left the initial copy in the L2 cache
// too, pushing out what the last run's supersteps had left there.
struct HB_Copy {
  const unsigned char* src;
  unsigned char* dst;
  long long bytes;
};

static_assert(sizeof(HB_Copy) == 24, "hpgraph: HB_Copy layout");

extern "C" __global__ void hb_restore(const HB_Copy a, int unused) {
  long long stride = (long long)gridDim.x * blockDim.x;
  long long i0 = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  long long n16 = a.bytes >> 4;
  const uint4* s = reinterpret_cast<const uint4*>(a.src);
  uint4* d = reinterpret_cast<uint4*>(a.dst);
  for (long long i = i0; i < n16; i += stride) d[i] = __ldcs(s + i);
  for (long long i = (n16 << 4) + i0; i < a.bytes; i += stride) a.dst[i] = __ldcs(a.src + i);
}
