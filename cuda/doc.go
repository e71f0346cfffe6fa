// Package cuda is hpgraph's GPU backend: it runs vertex programs that give
// device code (vertexprog.DeviceProgram) on an NVIDIA GPU through the CUDA
// driver API, which package cu opens at run time (dlopen of libcuda.so.1):
// nothing CUDA is needed to build it, and where there is no driver or no
// usable GPU the backend's Available says why. Built without cgo the
// package only reports that it is not available.
//
// Importing the package registers a backend as "cuda" (Registered); its
// devices and options are Configure's (the command line's --devices and
// --cuda-* flags). Open opens a backend of its own on one device; each
// backend has its own context (the first on a device its primary one,
// which NCCL shares), stream, caches and memory accounting, and several
// may run at once. A device's CUDA calls run one at a time (a
// mutex per device), each on the calling goroutine's thread, locked to
// it with the context made current; the binding's panics are recovered
// there and returned as errors that carry the CUDA error name.
//
// The backend stands in layers, each a package that imports only those
// below it, each with a per-device value that embeds the one below
// (docs/cuda-layers.md):
//
//   - rt: the driver: a device's context, stream, memory, copies,
//     events, CUDA graphs and loaded modules (rt.Device);
//   - jit: device code: NVRTC (the one loader; devgen's tests use it),
//     the PTX disk cache, the prebuilt images, a device's module cache;
//   - build: PREPROCESS on the device: a graph's CSR, the HYB matrix,
//     transpose, undirected view, renumbering, bins, orientations, tiles,
//     and the cache of the matrices' device copies;
//   - run: a program's runs: the kernel template and the program's
//     snippet, the upload, supersteps, vp_loop, CUDA graphs, parked
//     resident runs, results, multiset programs and Afforest; its Device
//     is the whole per-device value, and run.Backend what a backend does
//     for vertexprog on it;
//   - cuda (this package): the backend, its device(s) and options.
//
// Kernels are CUDA C (in each layer's folder, embedded), compiled at run
// time by NVRTC, which is loaded with dlopen (libnvrtc.so, then .so.13,
// .so.12, .so.11.2; HPGRAPH_NVRTC overrides), and cached as PTX under
// os.UserCacheDir()/hpgraph/ptx, unless machine code was prebuilt.
//
// Options (run.Options) belong to a backend and choose texture reads,
// CUDA graphs, tiled pulls and vp_loop's cluster for its runs started
// afterwards; the tuning values measured once and settled are constants
// (run/tuning.go, build/bins.go, build/tiles.go, rt/transfer.go). No
// environment variable changes a result, and none but the diagnostic
// HPGRAPH_CUDA_PROBE a kernel's configuration. The environment holds
// only:
//
//   - debugging output: HPGRAPH_CUDA_TRACE=1 times every superstep
//     call's phases on the host (and, as HPGRAPH_TRACE=1 does, prints
//     the phases of PREPROCESS, of a run's start and of each run and
//     query around its supersteps, internal/phase);
//     HPGRAPH_CUDA_PROBE=1 prints vp_loop's cycles per phase from the
//     device and each tile's times after a tile pull
//     (scripts/tile-probe.awk; it compiles the kernels with VP_PROBE,
//     which adds barriers); HPGRAPH_CUDA_MSPROBE=1 prints each multiset
//     kernel's total time when a multiset run closes (run/multiset.go);
//   - where things are: HPGRAPH_NVRTC, the NVRTC library (the device
//     is an option: Open's ordinal, Configure's list);
//   - a build tool: HPGRAPH_CUDA_PREBUILD=DIR writes the machine code of
//     every kernel compiled to DIR (scripts/gpu-prebuild.sh).
package cuda
