// radix.cuh: what the LSD radix sorts of the device share (cuda/build's
// transpose.cu, cuda/gen's gen.cu): a key's digit and a tile's digit
// counts, for a block of RADIX threads, a thread a digit (#include
// "radix.cuh": jit.Expand splices it in).

// hp_digit is the digit of key (an unsigned type) at bit shift; RADIX is
// a power of 2.
template <int RADIX, typename Key>
__device__ __forceinline__ int hp_digit(Key key, int shift) {
  return (int)((key >> shift) & (RADIX - 1));
}

// hp_radix_count: the block counts the digits at shift of the keys of its
// tile, [first, first + RADIX*ITEMS) below n, in ITEMS rounds of RADIX (a
// warp's equal digits add once: a hub's key repeats), and returns the
// count of digit threadIdx.x. UNROLL unrolls the rounds' loop (ITEMS: all
// of it).
template <int RADIX, int ITEMS, int UNROLL, typename Key>
__device__ __forceinline__ int hp_radix_count(const Key* keys, long long n, long long first, int shift) {
  __shared__ int cnt[RADIX];
  const unsigned below = (1u << (threadIdx.x & 31)) - 1;
  cnt[threadIdx.x] = 0;
  __syncthreads();
#pragma unroll(UNROLL)
  for (int r = 0; r < ITEMS; r++) {
    const long long i = first + r * RADIX + threadIdx.x;
    const int d = i < n ? hp_digit<RADIX>(keys[i], shift) : RADIX;
    const unsigned peers = __match_any_sync(0xffffffffu, d);
    if (d < RADIX && (peers & below) == 0) atomicAdd(&cnt[d], __popc(peers));
  }
  __syncthreads();
  return cnt[threadIdx.x];
}
