//go:build cgo

package rt

/*
#include "../cu/cu.h"
static CUresult hp_host_register(void* p, size_t n) { return cuMemHostRegister(p, n, 0); }
static CUresult hp_host_unregister(void* p) { return cuMemHostUnregister(p); }
*/
import "C"

import (
	"sync"
	"unsafe"

	"github.com/hpgraph/hpgraph/cuda/cu"
)

// Host↔device copies of large arrays go through two pinned staging
// buffers of stageBytes, the DMA of one chunk overlapping the host copy
// of the other, spread over copyPartsDefault goroutines: the driver's path for
// pageable memory copies through its own staging buffer on one thread.
// 64 MiB host→device 7.0 → 24.7 GB/s, device→host 15.5 → 20.0
// (docs/perf/time-to-answer.md#describe-and-transfers); 2, 4, 16 and 32
// MiB buffers and 8 or 16 goroutines, and pinning the source in place,
// measured no better (rows g, i and the last of
// docs/perf/time-to-answer.md#from-the-file-to-the-answer-on-the-gpu,
// docs/perf/time-to-answer.md#the-first-preprocess-and-kron27s-bfs and
// docs/perf/time-to-answer.md#the-first-preprocess-on-the-device-and-a-servers-many-queries).
const (
	stageBytes       int64 = 8 << 20
	copyPartsDefault       = 4
)

const stageMin = 1 << 20 // smaller copies go straight

// Staged reports whether large copies go through the staging buffers
// (not Hooks.Unstaged, and the buffers could be made), making them on
// first use. Inside Do.
func (d *Device) Staged() bool {
	st := &d.stage
	if d.Hooks.Unstaged || st.fail {
		return false
	}
	if st.buf[0] == nil {
		err := Catch("allocating pinned staging memory", func() error {
			st.buf[0] = cu.MemAllocHost(stageBytes)
			st.buf[1] = cu.MemAllocHost(stageBytes)
			st.ev[0], st.ev[1] = NewEvent(), NewEvent()
			return nil
		})
		if err != nil {
			st.fail = true
			return false
		}
	}
	return true
}

// CopyParts is the goroutines of the host's copies (Hooks.CopyParts).
func (d *Device) CopyParts() int {
	if d.Hooks.CopyParts > 0 {
		return d.Hooks.CopyParts
	}
	return copyPartsDefault
}

// HostCopy copies n bytes from src to dst with a few goroutines (parts).
func HostCopy(dst, src unsafe.Pointer, n, parts int) {
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

// HtoD copies host memory to the device and returns once the device has
// it. Inside Do, with the stream idle.
//
// Every copy goes on the device's stream, where the kernels that read it
// run, and is waited for there. cuMemcpyHtoD would not do: from pageable
// memory it returns once the bytes are staged, before their DMA lands,
// and its legacy stream does not order the work of ours, which is
// non-blocking. A kernel launched next could read the memory as it was:
// with another process loading the GPU, TestAppsMatchCPU and
// TestBFSMatchesReference read stale COO offsets (session 20:
// docs/perf/time-to-answer.md#five-branches-merged-a-stale-memory-race-tiles-in-the-background).
func (d *Device) HtoD(dst cu.DevicePtr, src unsafe.Pointer, bytes int64) {
	if d.stream.s == nil {
		cu.MemcpyHtoD(dst, src, bytes)
		cu.CtxSynchronize()
		return
	}
	st := d.stream.Handle()
	if d.Hooks.PinInPlace && bytes >= stageMin && C.hp_host_register(src, C.size_t(bytes)) == C.CUDA_SUCCESS {
		cu.MemcpyHtoDAsync(dst, src, bytes, st)
		d.Sync()
		C.hp_host_unregister(src)
		return
	}
	if bytes < stageMin || !d.Staged() {
		cu.MemcpyHtoDAsync(dst, src, bytes, st)
		d.Sync()
		return
	}
	for off, i := int64(0), 0; off < bytes; off, i = off+stageBytes, i+1 {
		n := min(stageBytes, bytes-off)
		b := i & 1
		if i >= 2 {
			d.stage.ev[b].Wait() // the DMA that last read this buffer is done
		}
		HostCopy(d.stage.buf[b], unsafe.Add(src, off), int(n), d.CopyParts())
		cu.MemcpyHtoDAsync(dst+cu.DevicePtr(off), d.stage.buf[b], n, st)
		d.Record(d.stage.ev[b])
	}
	d.Sync()
}

// HtoDQueued is HtoD without the wait, for copies the stream's later
// kernels read: a copy under stageMin from memory Pin did not lock goes
// into the stream and returns once the driver has staged the bytes (the
// host memory is free again; the kernels after it in the stream see
// them). Others, and without a stream, are HtoD. A run's start made four
// waits for copies of a few bytes (a source vertex, the superstep
// records) and memsets (~0.2 ms of a kron21 SSSP query's start).
// Inside Do.
func (d *Device) HtoDQueued(dst cu.DevicePtr, src unsafe.Pointer, bytes int64) {
	if bytes >= stageMin || d.stream.s == nil || d.Hooks.PinInPlace || d.isPinned(src, bytes) {
		d.HtoD(dst, src, bytes)
		return
	}
	cu.MemcpyHtoDAsync(dst, src, bytes, d.stream.Handle())
}

// isPinned reports whether [p, p+bytes) lies in a range Pin locked.
// Inside Do.
func (d *Device) isPinned(p unsafe.Pointer, bytes int64) bool {
	a := uintptr(p)
	for start, n := range d.pinned {
		if a >= start && a+uintptr(bytes) <= start+uintptr(n) {
			return true
		}
	}
	return false
}

// Pin page-locks host memory (cuMemHostRegister), once, for memory that
// runs copy results into again and again (a server's scratch ranks):
// DtoH then copies into it by DMA. unpin unregisters it.
func (d *Device) Pin(p unsafe.Pointer, bytes int) (unpin func(), err error) {
	err = d.Do("page-locking host memory", func() error {
		check("cuMemHostRegister", C.hp_host_register(p, C.size_t(bytes)))
		d.pinned[uintptr(p)] = int64(bytes)
		return nil
	})
	if err != nil {
		return nil, err
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			_ = d.Do("unlocking host memory", func() error {
				delete(d.pinned, uintptr(p))
				C.hp_host_unregister(p)
				return nil
			})
		})
	}, nil
}

// DtoH copies device memory to the host. Inside Do, after the stream's
// kernels are done. Into memory Pin locked it copies by DMA; large
// copies into other memory go through the staging buffers.
func (d *Device) DtoH(dst unsafe.Pointer, src cu.DevicePtr, bytes int64) {
	if bytes >= stageMin && d.stream.s != nil && d.isPinned(dst, bytes) {
		cu.MemcpyDtoHAsync(dst, src, bytes, d.stream.Handle())
		d.Sync()
		return
	}
	if bytes < stageMin || !d.Staged() {
		cu.MemcpyDtoH(dst, src, bytes)
		return
	}
	st := d.stream.Handle()
	chunks := (bytes + stageBytes - 1) / stageBytes
	issue := func(i int64) {
		off := i * stageBytes
		cu.MemcpyDtoHAsync(d.stage.buf[i&1], src+cu.DevicePtr(off), min(stageBytes, bytes-off), st)
		d.Record(d.stage.ev[i&1])
	}
	issue(0)
	for i := int64(0); i < chunks; i++ {
		if i+1 < chunks {
			// Buffer (i+1)&1 was copied out to the host in the last
			// iteration: reuse it.
			issue(i + 1)
		}
		d.stage.ev[i&1].Wait()
		off := i * stageBytes
		HostCopy(unsafe.Add(dst, off), d.stage.buf[i&1], int(min(stageBytes, bytes-off)), d.CopyParts())
	}
}
