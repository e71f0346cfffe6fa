// Package cuda is hpgraph's GPU backend: it runs vertex programs that give
// device code (vertexprog.DeviceProgram) on an NVIDIA GPU through the CUDA
// driver API, which package cu opens at run time (dlopen of libcuda.so.1):
// nothing CUDA is needed to build it, and where there is no driver or no
// usable GPU the backend's Available says why. Built without cgo the
// package only reports that it is not available.
//
// Importing the package registers the backend as "cuda".
// CUDA calls run one at a time (a mutex), each on the calling goroutine's
// thread, locked to it with the context made current; the binding's
// panics are recovered at this package's boundary and returned as errors
// that carry the CUDA error name.
//
// Kernels are CUDA C (kernels.cu, embedded) with the program's snippet
// spliced in, compiled at run time by NVRTC, which is loaded with dlopen
// (libnvrtc.so, then .so.13, .so.12, .so.11.2; HPGRAPH_NVRTC overrides),
// and cached as PTX under os.UserCacheDir()/hpgraph/ptx.
//
// Environment: HPGRAPH_CUDA_TEXTURE=0/1 picks how the bitmasks and X are
// read (texture objects or __ldg; default: the Texture variable),
// HPGRAPH_CUDA_DEVICE selects the device ordinal (default 0),
// HPGRAPH_NVRTC names the NVRTC library. For measurements:
// HPGRAPH_CUDA_TRACE=1 times every superstep call's phases on the host,
// HPGRAPH_CUDA_PROBE=1 prints vp_loop's cycles per phase from the device
// and each tile's times after a tile pull (scripts/tile-probe.awk),
// HPGRAPH_CUDA_MSPROBE=1 each multiset kernel's total time when a
// multiset run closes (multiset.go), and
// HPGRAPH_CUDA_LOOP, _LOOPEDGES, _BINS, _UNROLL, _STREAM, _GRAPHS,
// _GRAPHWARM, _PUSHGRID, _APPLYGRID, _APPLYROWS and the _TILE* knobs
// override tuning values (see their variables).
package cuda
