//go:build cgo

package cuda

/*
#include "cu/cu.h"
static CUresult hp_host_register(void* p, size_t n) { return cuMemHostRegister(p, n, 0); }
static CUresult hp_host_unregister(void* p) { return cuMemHostUnregister(p); }
*/
import "C"

import (
	"fmt"
	"os"
	"regexp"
	"sort"
	"sync"
	"unsafe"

	"github.com/hpgraph/hpgraph/cuda/cu"
	"github.com/hpgraph/hpgraph/vertexprog"
)

// Host↔device copies of large arrays go through two pinned staging
// buffers of stageBytes, the DMA of one chunk overlapping the host copy
// of the other, spread over copyParts goroutines: the driver's path for
// pageable memory copies through its own staging buffer on one thread.
// 64 MiB host→device 7.0 → 24.7 GB/s, device→host 15.5 → 20.0
// (docs/perf.md, section 4); 2, 4, 16 and 32 MiB buffers and 8 or 16
// goroutines, and pinning the source in place, measured no better
// (docs/perf.md, "From the file to the answer on the GPU", g, "The first
// PREPROCESS and kron27's BFS", i, and "The first PREPROCESS on the
// device").
const (
	stageBytes       int64 = 8 << 20
	copyPartsDefault       = 4
)

const stageMin = 1 << 20 // smaller copies go straight

// staging is a device's pinned staging memory, allocated on first use;
// used inside device.do only.
type staging struct {
	buf  [2]unsafe.Pointer
	ev   [2]event
	fail bool
}

// stageReady reports whether large copies go through the staging
// buffers (hooks.staged, and the buffers could be made).
func (d *device) stageReady() bool {
	st := &d.stage
	if !d.hooks.staged || st.fail {
		return false
	}
	if st.buf[0] == nil {
		err := catch("allocating pinned staging memory", func() error {
			st.buf[0] = cu.MemAllocHost(stageBytes)
			st.buf[1] = cu.MemAllocHost(stageBytes)
			st.ev[0], st.ev[1] = newEvent(), newEvent()
			return nil
		})
		if err != nil {
			st.fail = true
			return false
		}
	}
	return true
}

// hostCopy copies n bytes from src to dst with a few goroutines (parts).
func hostCopy(dst, src unsafe.Pointer, n, parts int) {
	if n < 2<<20 {
		copy(unsafe.Slice((*byte)(dst), n), unsafe.Slice((*byte)(src), n))
		return
	}
	var wg sync.WaitGroup
	per := (n/parts + 63) &^ 63
	for lo := 0; lo < n; lo += per {
		hi := min(lo+per, n)
		wg.Add(1)
		go func() {
			defer wg.Done()
			copy(unsafe.Slice((*byte)(unsafe.Add(dst, lo)), hi-lo), unsafe.Slice((*byte)(unsafe.Add(src, lo)), hi-lo))
		}()
	}
	wg.Wait()
}

// htod copies host memory to the device and returns once the device has
// it. Inside device.do, with the run's stream idle.
//
// Every copy goes on the device's stream, where the kernels that read it
// run, and is waited for there. cuMemcpyHtoD would not do: from pageable
// memory it returns once the bytes are staged, before their DMA lands,
// and its legacy stream does not order the work of ours, which is
// non-blocking. A kernel launched next could read the memory as it was:
// with another process loading the GPU, TestAppsMatchCPU and
// TestBFSMatchesReference read stale COO offsets (session 20).
func (d *device) htod(dst cu.DevicePtr, src unsafe.Pointer, bytes int64) {
	if d.stream == nil {
		cu.MemcpyHtoD(dst, src, bytes)
		cu.CtxSynchronize()
		return
	}
	st := cu.Stream(uintptr(unsafe.Pointer(d.stream)))
	if d.hooks.pinInPlace && bytes >= stageMin && C.hp_host_register(src, C.size_t(bytes)) == C.CUDA_SUCCESS {
		cu.MemcpyHtoDAsync(dst, src, bytes, st)
		d.syncStream()
		C.hp_host_unregister(src)
		return
	}
	if bytes < stageMin || !d.stageReady() {
		cu.MemcpyHtoDAsync(dst, src, bytes, st)
		d.syncStream()
		return
	}
	for off, i := int64(0), 0; off < bytes; off, i = off+stageBytes, i+1 {
		n := min(stageBytes, bytes-off)
		b := i & 1
		if i >= 2 {
			d.stage.ev[b].wait() // the DMA that last read this buffer is done
		}
		hostCopy(d.stage.buf[b], unsafe.Add(src, off), int(n), d.hooks.copyParts)
		cu.MemcpyHtoDAsync(dst+cu.DevicePtr(off), d.stage.buf[b], n, st)
		d.record(d.stage.ev[b])
	}
	d.syncStream()
}

// isPinned reports whether [p, p+bytes) lies in a range Pin locked.
// Inside device.do.
func (d *device) isPinned(p unsafe.Pointer, bytes int64) bool {
	a := uintptr(p)
	for start, n := range d.pinnedRanges {
		if a >= start && a+uintptr(bytes) <= start+uintptr(n) {
			return true
		}
	}
	return false
}

// Pin implements vertexprog.HostPinner: cuMemHostRegister, once, for
// memory that runs copy results into again and again (a server's
// scratch ranks); unpin unregisters it.
func (b *Backend) Pin(p unsafe.Pointer, bytes int) (func(), error) {
	d, err := b.device()
	if err != nil {
		return nil, err
	}
	err = d.do("page-locking host memory", func() error {
		check("cuMemHostRegister", C.hp_host_register(p, C.size_t(bytes)))
		d.pinnedRanges[uintptr(p)] = int64(bytes)
		return nil
	})
	if err != nil {
		return nil, err
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			_ = d.do("unlocking host memory", func() error {
				delete(d.pinnedRanges, uintptr(p))
				C.hp_host_unregister(p)
				return nil
			})
		})
	}, nil
}

// dtoh copies device memory to the host. Inside device.do, after
// the stream's kernels are done. Into memory Pin locked it copies by
// DMA; large copies into other memory go through the staging buffers.
func (d *device) dtoh(dst unsafe.Pointer, src cu.DevicePtr, bytes int64) {
	if bytes >= stageMin && d.stream != nil && d.isPinned(dst, bytes) {
		cu.MemcpyDtoHAsync(dst, src, bytes, cu.Stream(uintptr(unsafe.Pointer(d.stream))))
		d.syncStream()
		return
	}
	if bytes < stageMin || !d.stageReady() {
		cu.MemcpyDtoH(dst, src, bytes)
		return
	}
	st := cu.Stream(uintptr(unsafe.Pointer(d.stream)))
	chunks := (bytes + stageBytes - 1) / stageBytes
	issue := func(i int64) {
		off := i * stageBytes
		cu.MemcpyDtoHAsync(d.stage.buf[i&1], src+cu.DevicePtr(off), min(stageBytes, bytes-off), st)
		d.record(d.stage.ev[i&1])
	}
	issue(0)
	for i := int64(0); i < chunks; i++ {
		if i+1 < chunks {
			// Buffer (i+1)&1 was copied out to the host in the last
			// iteration: reuse it.
			issue(i + 1)
		}
		d.stage.ev[i&1].wait()
		off := i * stageBytes
		hostCopy(unsafe.Add(dst, off), d.stage.buf[i&1], int(min(stageBytes, bytes-off)), d.hooks.copyParts)
	}
}

// Describe implements vertexprog.Describer: the device, its driver, and
// its device-to-device copy bandwidth (measured once, then cached).
func (b *Backend) Describe() (vertexprog.DeviceInfo, error) {
	d, err := b.device()
	if err != nil {
		return vertexprog.DeviceInfo{}, err
	}
	d.mu.Lock()
	if d.info != nil {
		info := *d.info
		d.mu.Unlock()
		return info, nil
	}
	d.mu.Unlock()
	info := vertexprog.DeviceInfo{
		Name:              d.name,
		ComputeCapability: fmt.Sprintf("%d.%d", d.major, d.minor),
		SMs:               d.sms,
		MemoryBytes:       d.totalMem,
	}
	err = d.do("measuring the copy bandwidth", func() error {
		info.Driver = driverVersion(cu.Version())
		info.CopyBandwidth = measureCopy(d)
		return nil
	})
	if err != nil {
		return vertexprog.DeviceInfo{}, err
	}
	d.mu.Lock()
	d.info = &info
	d.mu.Unlock()
	return info, nil
}

var nvidiaModuleRE = regexp.MustCompile(`Kernel Module.*?\s(\d+\.\d+(?:\.\d+)?)\s`)

// driverVersion is the kernel module's version from
// /proc/driver/nvidia/version (e.g. "580.159.04 (CUDA 13.0)"), or the CUDA
// driver API version alone where that file is missing.
func driverVersion(v int) string {
	api := fmt.Sprintf("CUDA %d.%d", v/1000, v%1000/10)
	if b, err := os.ReadFile("/proc/driver/nvidia/version"); err == nil {
		if m := nvidiaModuleRE.FindSubmatch(b); m != nil {
			return fmt.Sprintf("%s (%s)", m[1], api)
		}
	}
	return fmt.Sprintf("%s (%d)", api, v)
}

// measureCopy times device-to-device copies of a 1 GiB buffer (less when
// memory is short) and returns the median rate in bytes per second,
// counting bytes read plus bytes written. Inside device.do.
func measureCopy(d *device) float64 {
	free, _ := cu.MemGetInfo()
	size := int64(1 << 30)
	if 3*size > free {
		size = free / 4 &^ (1<<20 - 1)
	}
	if size < 16<<20 {
		return 0
	}
	src := cu.MemAlloc(size)
	defer cu.MemFree(src)
	dst := cu.MemAlloc(size)
	defer cu.MemFree(dst)
	cu.MemsetD32(src, 0x5a3c9617, size/4)
	cu.MemsetD32(dst, 0x01234567, size/4)
	copyMillis(dst, src, size) // warm-up
	var ms []float64
	for i := 0; i < 7; i++ {
		ms = append(ms, copyMillis(dst, src, size))
	}
	sort.Float64s(ms)
	if ms[3] <= 0 {
		return 0
	}
	return 2 * float64(size) / (ms[3] / 1e3)
}
