// Package cuda is hpgraph's GPU backend: it runs vertex programs that give
// device code (vertexprog.DeviceProgram) on an NVIDIA GPU through the CUDA
// driver API, which package cu opens at run time (dlopen of libcuda.so.1):
// nothing CUDA is needed to build it, and where there is no driver or no
// usable GPU the backend's Available says why. Built without cgo the
// package only reports that it is not available.
//
// Importing the package registers a backend as "cuda" (Registered); its
// devices and options are Configure's. Open opens a backend of its own
// on one device: each backend has its own context, stream, caches and
// memory accounting, and several may run at once. A device's CUDA calls
// run one at a time (a mutex per device), each on the calling
// goroutine's thread, locked to it with the context made current; the
// binding's panics are recovered at this package's boundary and returned
// as errors that carry the CUDA error name.
//
// Kernels are CUDA C (the template kernels*.cu, embedded) with the program's snippet
// spliced in, compiled at run time by NVRTC, which is loaded with dlopen
// (libnvrtc.so, then .so.13, .so.12, .so.11.2; HPGRAPH_NVRTC overrides),
// and cached as PTX under os.UserCacheDir()/hpgraph/ptx.
//
// Options (options.go) belong to a backend (Open, Backend.SetOptions,
// Configure, or the command line's --devices and --cuda-* flags) and
// choose texture reads, CUDA graphs, tiled pulls and vp_loop's cluster
// for its runs started afterwards; the tuning values measured once
// and settled are constants (tuning.go, bins.go, tiles.go, transfer.go).
// No environment variable changes a result, and none but the diagnostic
// HPGRAPH_CUDA_PROBE a kernel's configuration. The environment holds
// only:
//
//   - debugging output: HPGRAPH_CUDA_TRACE=1 times every superstep
//     call's phases on the host (and, as HPGRAPH_TRACE=1 does, prints
//     the phases of PREPROCESS and of a run's start, internal/phase);
//     HPGRAPH_CUDA_PROBE=1 prints vp_loop's cycles per phase from the
//     device and each tile's times after a tile pull
//     (scripts/tile-probe.awk; it compiles the kernels with VP_PROBE,
//     which adds barriers); HPGRAPH_CUDA_MSPROBE=1 prints each multiset
//     kernel's total time when a multiset run closes (multiset.go);
//   - where things are: HPGRAPH_NVRTC, the NVRTC library (the device
//     is an option: Open's ordinal, Configure's list);
//   - a build tool: HPGRAPH_CUDA_PREBUILD=DIR writes the machine code of
//     every kernel compiled to DIR (scripts/gpu-prebuild.sh).
package cuda
