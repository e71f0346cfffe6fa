// Package nccl is hpgraph's binding of NCCL, the collective library of
// NVIDIA GPUs, for the exchange between the parts of a run spread over
// several GPUs and hosts. Like package cu for the driver, it links
// nothing at build time: Load opens libnccl.so.2 (or $HPGRAPH_NCCL) with
// dlopen and resolves each entry point with dlsym, so the binary builds
// and runs without NCCL and says why where a run needs it.
//
// NVLink multicast (NVLS) stays off: Load sets NCCL_NVLS_ENABLE=0 when
// the variable is unset, before NCCL reads it, and never overrides a
// value the user set; nothing here makes multicast objects. On shared
// hosts a program that uses multicast can take the GPUs out of service
// for a day (../shared/docs/gpu.md).
//
// NCCL runs on the CUDA context current on the calling thread: callers
// make their device's context current first (package cuda's runs do).
// Built without cgo the package has only Load, which says so.
package nccl

import (
	"errors"
	"os"
)

// Library is the NCCL library Load opens unless $HPGRAPH_NCCL names another.
const Library = "libnccl.so.2"

// UniqueIDBytes is the size of an NCCL unique id.
const UniqueIDBytes = 128

// UniqueID is what rank 0 makes and every rank passes to CommInitRank.
type UniqueID [UniqueIDBytes]byte

var (
	// ErrNoNCCL: the library could not be loaded or lacks an entry point.
	ErrNoNCCL = errors.New("NCCL is not available")
	// ErrNoCgo is Load's answer in a build without cgo.
	ErrNoCgo = errors.New("built without cgo: NCCL is not available")
)

// libraryName is the library to open.
func libraryName() string {
	if s := os.Getenv("HPGRAPH_NCCL"); s != "" {
		return s
	}
	return Library
}

// KeepMulticastOff sets NCCL_NVLS_ENABLE=0 unless it is set already, and
// reports the value in force.
func KeepMulticastOff() string {
	if v, ok := os.LookupEnv("NCCL_NVLS_ENABLE"); ok {
		return v
	}
	os.Setenv("NCCL_NVLS_ENABLE", "0")
	return "0"
}
