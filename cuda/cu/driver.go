//go:build cgo

package cu

/*
#include <stdint.h>
#include <stdlib.h>
#include "cu.h"

// Go cannot call through a C function pointer: these call the driver's
// entry points for it. Handles cross as uintptr_t (Go keeps them as
// uintptr, which it must not turn back into unsafe.Pointer).
static CUresult hp_go_init(unsigned int flags) { return cuInit(flags); }
static CUresult hp_go_version(int* v) { return cuDriverGetVersion(v); }
static CUresult hp_go_error_name(CUresult r, const char** s) { return cuGetErrorName(r, s); }
static CUresult hp_go_device_get(CUdevice* d, int ordinal) { return cuDeviceGet(d, ordinal); }
static CUresult hp_go_device_count(int* n) { return cuDeviceGetCount(n); }
static CUresult hp_go_device_name(char* name, int len, CUdevice d) { return cuDeviceGetName(name, len, d); }
static CUresult hp_go_device_attribute(int* v, int attrib, CUdevice d) { return cuDeviceGetAttribute(v, (CUdevice_attribute)attrib, d); }
static CUresult hp_go_device_total_mem(size_t* bytes, CUdevice d) { return cuDeviceTotalMem(bytes, d); }
static CUresult hp_go_ctx_create(uintptr_t* ctx, unsigned int flags, CUdevice d) {
	CUcontext c = 0;
	CUresult r = cuCtxCreate(&c, flags, d);
	*ctx = (uintptr_t)c;
	return r;
}
static CUresult hp_go_primary_ctx(uintptr_t* ctx, CUdevice d) {
	CUcontext c = 0;
	CUresult r = cuDevicePrimaryCtxRetain(&c, d);
	*ctx = (uintptr_t)c;
	return r;
}
static CUresult hp_go_ctx_set_current(uintptr_t ctx) { return cuCtxSetCurrent((CUcontext)ctx); }
static CUresult hp_go_ctx_get_current(uintptr_t* ctx) {
	CUcontext c = 0;
	CUresult r = cuCtxGetCurrent(&c);
	*ctx = (uintptr_t)c;
	return r;
}
static CUresult hp_go_ctx_synchronize(void) { return cuCtxSynchronize(); }
static CUresult hp_go_mem_get_info(size_t* free, size_t* total) { return cuMemGetInfo(free, total); }
static CUresult hp_go_mem_alloc(CUdeviceptr* p, size_t bytes) { return cuMemAlloc(p, bytes); }
static CUresult hp_go_mem_free(CUdeviceptr p) { return cuMemFree(p); }
static CUresult hp_go_mem_alloc_host(void** p, size_t bytes) { return cuMemAllocHost(p, bytes); }
static CUresult hp_go_mem_free_host(void* p) { return cuMemFreeHost(p); }
static CUresult hp_go_memcpy_htod(CUdeviceptr dst, const void* src, size_t n) { return cuMemcpyHtoD(dst, src, n); }
static CUresult hp_go_memcpy_dtoh(void* dst, CUdeviceptr src, size_t n) { return cuMemcpyDtoH(dst, src, n); }
static CUresult hp_go_memcpy_dtod(CUdeviceptr dst, CUdeviceptr src, size_t n) { return cuMemcpyDtoD(dst, src, n); }
static CUresult hp_go_memcpy_htod_async(CUdeviceptr dst, const void* src, size_t n, uintptr_t st) {
	return cuMemcpyHtoDAsync(dst, src, n, (CUstream)st);
}
static CUresult hp_go_memcpy_dtoh_async(void* dst, CUdeviceptr src, size_t n, uintptr_t st) {
	return cuMemcpyDtoHAsync(dst, src, n, (CUstream)st);
}
static CUresult hp_go_memset_d32(CUdeviceptr p, unsigned int v, size_t n) { return cuMemsetD32(p, v, n); }
*/
import "C"

import (
	"strconv"
	"unsafe"
)

// Result is a CUresult: the panic value of a failed call.
type Result int

// The codes hpgraph names (cu.h's CUresult).
const (
	SUCCESS                  Result = C.CUDA_SUCCESS
	ERROR_INVALID_VALUE      Result = C.CUDA_ERROR_INVALID_VALUE
	ERROR_OUT_OF_MEMORY      Result = C.CUDA_ERROR_OUT_OF_MEMORY
	ERROR_NOT_INITIALIZED    Result = C.CUDA_ERROR_NOT_INITIALIZED
	ERROR_STUB_LIBRARY       Result = C.CUDA_ERROR_STUB_LIBRARY
	ERROR_DEVICE_UNAVAILABLE Result = C.CUDA_ERROR_DEVICE_UNAVAILABLE
	ERROR_NO_DEVICE          Result = C.CUDA_ERROR_NO_DEVICE
	ERROR_INVALID_DEVICE     Result = C.CUDA_ERROR_INVALID_DEVICE
	ERROR_NO_BINARY_FOR_GPU  Result = C.CUDA_ERROR_NO_BINARY_FOR_GPU
)

// resultNames are the names of the codes above, for when the driver is
// not there to name them.
var resultNames = map[Result]string{
	SUCCESS:                  "CUDA_SUCCESS",
	ERROR_INVALID_VALUE:      "CUDA_ERROR_INVALID_VALUE",
	ERROR_OUT_OF_MEMORY:      "CUDA_ERROR_OUT_OF_MEMORY",
	ERROR_NOT_INITIALIZED:    "CUDA_ERROR_NOT_INITIALIZED",
	ERROR_STUB_LIBRARY:       "CUDA_ERROR_STUB_LIBRARY",
	ERROR_DEVICE_UNAVAILABLE: "CUDA_ERROR_DEVICE_UNAVAILABLE",
	ERROR_NO_DEVICE:          "CUDA_ERROR_NO_DEVICE",
	ERROR_INVALID_DEVICE:     "CUDA_ERROR_INVALID_DEVICE",
	ERROR_NO_BINARY_FOR_GPU:  "CUDA_ERROR_NO_BINARY_FOR_GPU",
}

// String is the code's name (CUDA_ERROR_OUT_OF_MEMORY): the driver's
// when it is loaded and knows the code, else this package's.
func (r Result) String() string {
	if Loaded() {
		var s *C.char
		if C.hp_go_error_name(C.CUresult(r), &s) == C.CUDA_SUCCESS && s != nil {
			return C.GoString(s)
		}
	}
	if s, ok := resultNames[r]; ok {
		return s
	}
	return "CUresult " + strconv.Itoa(int(r))
}

// check panics with the failed call's Result, or with ErrNotLoaded when
// the call failed because Load has not succeeded.
func check(r C.CUresult) {
	if r == C.CUDA_SUCCESS {
		return
	}
	if Result(r) == ERROR_NOT_INITIALIZED && !Loaded() {
		panic(ErrNotLoaded)
	}
	panic(Result(r))
}

// Init initializes the driver (cuInit); flags must be 0.
func Init(flags int) { check(C.hp_go_init(C.uint(flags))) }

// Version is the CUDA version of the driver, 1000*major + 10*minor.
func Version() int {
	var v C.int
	check(C.hp_go_version(&v))
	return int(v)
}

// Device is a device handle (CUdevice).
type Device int

// DeviceAttribute is a CUdevice_attribute.
type DeviceAttribute int

// The device attributes hpgraph reads.
const (
	MULTIPROCESSOR_COUNT     DeviceAttribute = C.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT
	COMPUTE_CAPABILITY_MAJOR DeviceAttribute = C.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR
	COMPUTE_CAPABILITY_MINOR DeviceAttribute = C.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR
	L2_CACHE_SIZE            DeviceAttribute = C.CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE
)

// DeviceGet returns the handle of device ordinal.
func DeviceGet(ordinal int) Device {
	var d C.CUdevice
	check(C.hp_go_device_get(&d, C.int(ordinal)))
	return Device(d)
}

// DeviceGetCount is the number of CUDA devices.
func DeviceGetCount() int {
	var n C.int
	check(C.hp_go_device_count(&n))
	return int(n)
}

// DeviceGetName is the device's name.
func DeviceGetName(dev Device) string {
	const size = 256
	buf := (*C.char)(C.calloc(size, 1))
	defer C.free(unsafe.Pointer(buf))
	check(C.hp_go_device_name(buf, size, C.CUdevice(dev)))
	return C.GoString(buf)
}

// Name is the device's name.
func (dev Device) Name() string { return DeviceGetName(dev) }

// DeviceGetAttribute returns an attribute of the device.
func DeviceGetAttribute(attrib DeviceAttribute, dev Device) int {
	var v C.int
	check(C.hp_go_device_attribute(&v, C.int(attrib), C.CUdevice(dev)))
	return int(v)
}

// Attribute returns an attribute of the device.
func (dev Device) Attribute(attrib DeviceAttribute) int { return DeviceGetAttribute(attrib, dev) }

// DeviceComputeCapability is the device's compute capability.
func DeviceComputeCapability(dev Device) (major, minor int) {
	return dev.Attribute(COMPUTE_CAPABILITY_MAJOR), dev.Attribute(COMPUTE_CAPABILITY_MINOR)
}

// ComputeCapability is the device's compute capability.
func (dev Device) ComputeCapability() (major, minor int) { return DeviceComputeCapability(dev) }

// DeviceTotalMem is the device's memory in bytes.
func DeviceTotalMem(dev Device) int64 {
	var n C.size_t
	check(C.hp_go_device_total_mem(&n, C.CUdevice(dev)))
	return int64(n)
}

// TotalMem is the device's memory in bytes.
func (dev Device) TotalMem() int64 { return DeviceTotalMem(dev) }

// Context is a CUDA context (CUcontext).
type Context uintptr

// Context creation flags.
const CTX_SCHED_AUTO = C.CU_CTX_SCHED_AUTO

// CtxCreate creates a context on dev, current on the calling thread.
func CtxCreate(flags uint, dev Device) Context {
	var c C.uintptr_t
	check(C.hp_go_ctx_create(&c, C.uint(flags), C.CUdevice(dev)))
	return Context(c)
}

// DevicePrimaryCtxRetain returns dev's primary context (the one the CUDA
// runtime and the libraries built on it, NCCL among them, use), retained
// for the caller; it is not made current.
func DevicePrimaryCtxRetain(dev Device) Context {
	var c C.uintptr_t
	check(C.hp_go_primary_ctx(&c, C.CUdevice(dev)))
	return Context(c)
}

// CtxSetCurrent makes ctx the calling thread's context.
func CtxSetCurrent(ctx Context) { check(C.hp_go_ctx_set_current(C.uintptr_t(ctx))) }

// SetCurrent makes ctx the calling thread's context.
func (ctx Context) SetCurrent() { CtxSetCurrent(ctx) }

// CtxGetCurrent is the calling thread's context (0 if none).
func CtxGetCurrent() Context {
	var c C.uintptr_t
	check(C.hp_go_ctx_get_current(&c))
	return Context(c)
}

// CtxSynchronize waits for the current context's work.
func CtxSynchronize() { check(C.hp_go_ctx_synchronize()) }

// DevicePtr is a device address (CUdeviceptr).
type DevicePtr uintptr

// Stream is a CUDA stream (CUstream; 0 is the default stream).
type Stream uintptr

// MemGetInfo returns the current context's device's free and total
// memory.
func MemGetInfo() (free, total int64) {
	var f, t C.size_t
	check(C.hp_go_mem_get_info(&f, &t))
	return int64(f), int64(t)
}

// MemAlloc allocates bytes of device memory.
func MemAlloc(bytes int64) DevicePtr {
	var p C.CUdeviceptr
	check(C.hp_go_mem_alloc(&p, C.size_t(bytes)))
	return DevicePtr(p)
}

// MemFree frees device memory (0 is ignored).
func MemFree(p DevicePtr) {
	if p == 0 {
		return
	}
	check(C.hp_go_mem_free(C.CUdeviceptr(p)))
}

// Free frees the device memory.
func (p DevicePtr) Free() { MemFree(p) }

// MemAllocHost allocates bytes of pinned host memory.
func MemAllocHost(bytes int64) unsafe.Pointer {
	var p unsafe.Pointer
	check(C.hp_go_mem_alloc_host(&p, C.size_t(bytes)))
	return p
}

// MemFreeHost frees pinned host memory.
func MemFreeHost(p unsafe.Pointer) { check(C.hp_go_mem_free_host(p)) }

// MemcpyHtoD copies bytes from the host to the device.
func MemcpyHtoD(dst DevicePtr, src unsafe.Pointer, bytes int64) {
	check(C.hp_go_memcpy_htod(C.CUdeviceptr(dst), src, C.size_t(bytes)))
}

// MemcpyDtoH copies bytes from the device to the host.
func MemcpyDtoH(dst unsafe.Pointer, src DevicePtr, bytes int64) {
	check(C.hp_go_memcpy_dtoh(dst, C.CUdeviceptr(src), C.size_t(bytes)))
}

// MemcpyDtoD copies bytes within the device.
func MemcpyDtoD(dst, src DevicePtr, bytes int64) {
	check(C.hp_go_memcpy_dtod(C.CUdeviceptr(dst), C.CUdeviceptr(src), C.size_t(bytes)))
}

// MemcpyHtoDAsync copies bytes from the host to the device in stream.
func MemcpyHtoDAsync(dst DevicePtr, src unsafe.Pointer, bytes int64, stream Stream) {
	check(C.hp_go_memcpy_htod_async(C.CUdeviceptr(dst), src, C.size_t(bytes), C.uintptr_t(stream)))
}

// MemcpyDtoHAsync copies bytes from the device to the host in stream.
func MemcpyDtoHAsync(dst unsafe.Pointer, src DevicePtr, bytes int64, stream Stream) {
	check(C.hp_go_memcpy_dtoh_async(dst, C.CUdeviceptr(src), C.size_t(bytes), C.uintptr_t(stream)))
}

// MemsetD32 sets n 32-bit words at p to value.
func MemsetD32(p DevicePtr, value uint32, n int64) {
	check(C.hp_go_memset_d32(C.CUdeviceptr(p), C.uint(value), C.size_t(n)))
}
