// Package cu is hpgraph's binding of the CUDA driver API: the calls the
// GPU backend makes, with the Go shape of github.com/mumax/3/cuda/cu
// (same names, types and signatures; a failed call panics with its
// Result), but nothing linked at build time. That package links -lcuda,
// so a binary built with it needs cuda.h and the libcuda stub to build and
// does not start at all on a machine without an NVIDIA driver; this one
// opens libcuda.so.1 with dlopen when Load is called and resolves each
// entry point with dlsym, so the same binary runs everywhere and uses the
// GPU where there is one.
//
// cu.h declares the driver's types, enumerators and functions that
// hpgraph uses, from NVIDIA's driver API reference. C code in other
// packages includes it (with cuda.h's names: cuMemAlloc, CUstream, ...)
// and calls through the pointers Load fills in. Call Load first: before
// it succeeds every call fails (the Go functions panic with ErrNotLoaded,
// C callers get CUDA_ERROR_NOT_INITIALIZED).
//
// Built without cgo, the package has only Load, which says so.
package cu

import "errors"

// Library is the driver library Load opens (the NVIDIA driver installs it;
// the CUDA toolkit's stub of the same name is not a driver).
const Library = "libcuda.so.1"

// MinDriver is the oldest CUDA version whose driver has every entry point
// Load resolves (cuLaunchKernelEx came with CUDA 11.8).
const MinDriver = "11.8"

var (
	// ErrNoDriver: libcuda.so.1 could not be loaded (no NVIDIA driver).
	ErrNoDriver = errors.New("no NVIDIA driver")
	// ErrDriverTooOld: the driver lacks an entry point hpgraph calls.
	ErrDriverTooOld = errors.New("the NVIDIA driver is too old")
	// ErrNotLoaded is the panic of a call made before Load succeeded.
	ErrNotLoaded = errors.New("cu: the CUDA driver is not loaded (call cu.Load first)")
	// ErrNoCgo is Load's answer in a build without cgo.
	ErrNoCgo = errors.New("built without cgo: the GPU backend is not available")
)
