//go:build cgo

package rt

/*
#include "../cu/cu.h"
#include <string.h>

static CUresult hp_host_device_ptr(void* p, CUdeviceptr* out) { return cuMemHostGetDevicePointer(out, p, 0); }

static CUresult hp_tex_create(CUdeviceptr p, size_t bytes, unsigned long long* out) {
	CUDA_RESOURCE_DESC rd;
	memset(&rd, 0, sizeof rd);
	rd.resType = CU_RESOURCE_TYPE_LINEAR;
	rd.res.linear.devPtr = p;
	rd.res.linear.format = CU_AD_FORMAT_UNSIGNED_INT32;
	rd.res.linear.numChannels = 1;
	rd.res.linear.sizeInBytes = bytes;
	CUDA_TEXTURE_DESC td;
	memset(&td, 0, sizeof td);
	CUtexObject t = 0;
	CUresult r = cuTexObjectCreate(&t, &rd, &td, NULL);
	*out = (unsigned long long)t;
	return r;
}

static CUresult hp_tex_destroy(unsigned long long t) { return cuTexObjectDestroy((CUtexObject)t); }
*/
import "C"

import (
	"slices"
	"unsafe"

	"github.com/hpgraph/hpgraph/cuda/cu"
)

// Alloc allocates bytes of device memory owned by bufs (0 for none).
// Inside Do.
func Alloc(bufs *[]cu.DevicePtr, bytes int64) cu.DevicePtr {
	if bytes <= 0 {
		return 0
	}
	p := cu.MemAlloc(bytes)
	*bufs = append(*bufs, p)
	return p
}

// Copier is a device's HtoD: a Device, or a device value above that
// embeds one.
type Copier interface {
	HtoD(dst cu.DevicePtr, src unsafe.Pointer, bytes int64)
}

// Put allocates a device copy of s owned by bufs (0 for an empty s) and
// copies s to it on d. Inside Do.
func Put[T any](d Copier, bufs *[]cu.DevicePtr, s []T) cu.DevicePtr {
	bytes := int64(len(s)) * int64(unsafe.Sizeof(*new(T)))
	if bytes <= 0 {
		return 0
	}
	p := cu.MemAlloc(bytes)
	*bufs = append(*bufs, p)
	d.HtoD(p, unsafe.Pointer(&s[0]), bytes)
	return p
}

// FreeAll frees bufs, all of them when one fails (a broken context).
// Inside Do.
func FreeAll(bufs []cu.DevicePtr) {
	for _, p := range bufs {
		_ = Catch("cuMemFree", func() error { cu.MemFree(p); return nil })
	}
}

// Free frees the buffers ps that bufs owns and drops them from it, so a
// build gives back its temporaries as soon as it is done with them (0s
// and buffers bufs does not own are left alone). The device must be done
// with them. Inside Do.
func Free(bufs *[]cu.DevicePtr, ps ...cu.DevicePtr) {
	*bufs = slices.DeleteFunc(*bufs, func(b cu.DevicePtr) bool {
		if b == 0 || !slices.Contains(ps, b) {
			return false
		}
		_ = Catch("cuMemFree", func() error { cu.MemFree(b); return nil })
		return true
	})
}

// HostDevicePtr is the device's address of pinned host memory p.
func HostDevicePtr(p unsafe.Pointer) uint64 {
	var dp C.CUdeviceptr
	check("mapping pinned memory", C.hp_host_device_ptr(p, &dp))
	return uint64(dp)
}

// TexCreate makes a texture object over bytes of 32-bit words at p.
// Inside Do.
func TexCreate(p cu.DevicePtr, bytes int64) uint64 {
	var t C.ulonglong
	check("creating a texture object", C.hp_tex_create(C.CUdeviceptr(p), C.size_t(bytes), &t))
	return uint64(t)
}

// TexDestroy frees a texture object (nothing for 0).
func TexDestroy(t uint64) {
	if t != 0 {
		C.hp_tex_destroy(C.ulonglong(t))
	}
}
