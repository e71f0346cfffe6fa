// The kernel template, part 8 of 8 (after kernels_loop.cu): the exchange
// between the parts of a partitioned run (vertexprog/parts.go, docs/parts.md).
// After a superstep a part packs the vertices it activated and their
// values (vp_pack); every other part unpacks them into its next frontier
// and its values (vp_unpack). A superstep's next frontier is mask[next].

// VP_Pack is a packed list: cap vertex ids, then (from the first 16-byte
// boundary after them) cap values.
struct VP_Pack {
  unsigned char* buf;
  unsigned long long* count;  // vp_pack: the slots taken so far
  int lo, hi;                 // vp_pack: the part's vertices
  int cap;                    // the list's length
  int next;                   // the frontier's mask (and vp_unpack's queues)
  unsigned long long* qrec;   // vp_unpack: the record whose queue counts it adds to, or null
};
static_assert(sizeof(VP_Pack) == 40, "hpgraph: VP_Pack layout");

__device__ __forceinline__ X_t* vp_pack_values(const VP_Pack& a) {
  return reinterpret_cast<X_t*>(a.buf + (((long long)a.cap * 4 + 15) & ~15LL));
}

// vp_pack lists the part's activated vertices (a thread a frontier word
// of the part's range: the part activates only its own vertices) and
// their values. A warp takes its 32 words' slots with one atomic add (a
// scan of their bit counts): one a word put every word of a spread
// frontier on the one counter.
extern "C" __global__ void __launch_bounds__(VP_BLOCK) vp_pack(VP_Run c, VP_Pack a) {
  int* ids = reinterpret_cast<int*>(a.buf);
  X_t* xs = vp_pack_values(a);
  const int lane = threadIdx.x & 31;
  const long long wlo = a.lo >> 5, whi = ((long long)a.hi + 31) >> 5;
  // (w0 is the warp's first word: the loop is uniform over the warp)
  for (long long w0 = wlo + (long long)blockIdx.x * VP_BLOCK + (threadIdx.x & ~31); w0 < whi; w0 += (long long)gridDim.x * VP_BLOCK) {
    const long long w = w0 + lane;
    unsigned bits = w < whi ? c.mask[a.next][w] : 0u;
    const unsigned k = __popc(bits), in = hp_warp_scan(k), total = __shfl_sync(VP_FULL, in, 31);
    if (total == 0) continue;
    unsigned long long at = 0;
    if (lane == 31) at = atomicAdd(a.count, (unsigned long long)total);
    at = __shfl_sync(VP_FULL, at, 31) + in - k;
    for (; bits; bits &= bits - 1) {
      const int v = (int)(w * 32 + __ffs(bits) - 1);
      if (at < (unsigned long long)a.cap) {
        ids[at] = v;
#if VP_XSIZE > 0
        xs[at] = c.x[v];
#endif
      }
      at++;
    }
  }
}

// vp_unpack sets the listed vertices' frontier bits and values, and with
// a.qrec appends them to the next push's queues, beside those the part's
// own APPLY made, so that the push needs no vp_compact over every vertex
// (two of them a BFS superstep on two parts, each a pass over all N:
// 0.1 ms of kron24's last supersteps).
extern "C" __global__ void __launch_bounds__(VP_BLOCK) vp_unpack(VP_Run c, VP_Pack a) {
  const int* ids = reinterpret_cast<const int*>(a.buf);
  const X_t* xs = vp_pack_values(a);
  for (long long b = (long long)blockIdx.x * VP_BLOCK; b < a.cap; b += (long long)gridDim.x * VP_BLOCK) {
    const long long i = b + threadIdx.x;
    const bool in = i < a.cap;
    const int v = in ? ids[i] : 0;
    if (in) {
      atomicOr(c.mask[a.next] + (v >> 5), 1u << (v & 31));
#if VP_XSIZE > 0
      c.x[v] = xs[i];
#endif
    }
    if (a.qrec) {  // (the same in every thread: vp_emit synchronizes the block)
      const int deg = in ? c.pushDeg[v] : 0;
      vp_emit(c, nullptr, a.qrec, c.queue[a.next], c.chunks[a.next], v, in, deg, deg);
    }
  }
}

// VP_Sum is a step of the exchange of a Sum array (DeviceArray.Sum)
// between the parts of a run (vp_sum): op 0 writes out = a - b (what the
// part added since the last exchange: its array less the exchange's
// copy), op 1 adds a into out. kind: 0 4-byte integers, 1 8-byte
// integers (either sign: the sums wrap alike), 2 float, 3 double.
struct VP_Sum {
  unsigned char* out;
  const unsigned char* a;
  const unsigned char* b;
  long long n;
  int op, kind;
};
static_assert(sizeof(VP_Sum) == 40, "hpgraph: VP_Sum layout");

template <typename T>
__device__ __forceinline__ void vp_sum_as(const VP_Sum& s) {
  T* out = reinterpret_cast<T*>(s.out);
  const T* a = reinterpret_cast<const T*>(s.a);
  const T* b = reinterpret_cast<const T*>(s.b);
  for (long long i = (long long)blockIdx.x * VP_BLOCK + threadIdx.x; i < s.n; i += (long long)gridDim.x * VP_BLOCK)
    out[i] = s.op == 0 ? (T)(a[i] - b[i]) : (T)(out[i] + a[i]);
}

extern "C" __global__ void __launch_bounds__(VP_BLOCK) vp_sum(VP_Run c, VP_Sum s) {
  (void)c;
  switch (s.kind) {
    case 0: vp_sum_as<unsigned>(s); break;
    case 1: vp_sum_as<unsigned long long>(s); break;
    case 2: vp_sum_as<float>(s); break;
    default: vp_sum_as<double>(s); break;
  }
}
