//go:build cgo

package rt

/*
#include "../cu/cu.h"
static CUresult hp_can_peer(int* ok, CUdevice a, CUdevice b) { return cuDeviceCanAccessPeer(ok, a, b); }
#include <stdint.h>
static CUresult hp_enable_peer(uintptr_t peer) { return cuCtxEnablePeerAccess((CUcontext)peer, 0); }
static CUresult hp_copy_peer(CUdeviceptr dst, uintptr_t dctx, CUdeviceptr src, uintptr_t sctx, size_t n, CUstream st) {
	return cuMemcpyPeerAsync(dst, (CUcontext)dctx, src, (CUcontext)sctx, n, st);
}
static CUresult hp_copy_dd(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream st) { return cuMemcpyDtoDAsync(dst, src, n, st); }
static CUresult hp_memset32(CUdeviceptr p, unsigned v, size_t n, CUstream st) { return cuMemsetD32Async(p, v, n, st); }
*/
import "C"

import "github.com/hpgraph/hpgraph/cuda/cu"

// Copies between devices: the parts of a partitioned run exchange on
// the devices (cuda/run's parts), from one context's memory to
// another's, over NVLink or PCIe where the devices reach each other
// directly (peer access), through the host otherwise.

// EnablePeer lets d's copies and kernels reach from's memory directly
// where the devices can (the same device is always reached; peer access
// between two is enabled once a context). It reports whether they reach
// each other directly. Inside d.Do.
func (d *Device) EnablePeer(from *Device) bool {
	if from.dev == d.dev {
		return true
	}
	var ok C.int
	if C.hp_can_peer(&ok, C.CUdevice(d.dev), C.CUdevice(from.dev)) != C.CUDA_SUCCESS || ok == 0 {
		return false
	}
	// CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED (704) means yes as well.
	r := C.hp_enable_peer(C.uintptr_t(from.ctx))
	return r == C.CUDA_SUCCESS || r == 704
}

// CopyFrom copies bytes at src in from's memory to dst in d's, in d's
// stream. Inside d.Do (from's memory must hold what is copied: from's
// stream synchronized).
func (d *Device) CopyFrom(dst cu.DevicePtr, from *Device, src cu.DevicePtr, bytes int64) {
	if bytes <= 0 {
		return
	}
	if from.ctx == d.ctx {
		check("copying on the device", C.hp_copy_dd(C.CUdeviceptr(dst), C.CUdeviceptr(src), C.size_t(bytes), d.stream.s))
		return
	}
	check("copying between devices", C.hp_copy_peer(C.CUdeviceptr(dst), C.uintptr_t(d.ctx), C.CUdeviceptr(src), C.uintptr_t(from.ctx), C.size_t(bytes), d.stream.s))
}

// Fill32 sets n 32-bit words at p to v, in d's stream. Inside d.Do.
func (d *Device) Fill32(p cu.DevicePtr, v uint32, n int64) {
	if n > 0 {
		check("filling device memory", C.hp_memset32(C.CUdeviceptr(p), C.uint(v), C.size_t(n), d.stream.s))
	}
}
