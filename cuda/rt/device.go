//go:build cgo

package rt

/*
#include "../cu/cu.h"

static CUresult hp_stream_create(CUstream* s) { return cuStreamCreate(s, CU_STREAM_NON_BLOCKING); }
static CUresult hp_tex_max_width(CUdevice dev, size_t* w) {
	return cuDeviceGetTexture1DLinearMaxWidth(w, CU_AD_FORMAT_UNSIGNED_INT32, 1, dev);
}
*/
import "C"

import (
	"fmt"
	"runtime"
	"sync"
	"time"
	"unsafe"

	"github.com/hpgraph/hpgraph/cuda/cu"
	"github.com/hpgraph/hpgraph/vertexprog/driver"
)

// Device is one device's CUDA context, stream and memory: what the
// layers above keep on a device builds on it (their own device values
// embed it). It is used by one goroutine at a time (Do): nothing of it
// is shared with another Device, so calls on different devices run at
// once, and several Devices may be open on one device (the first on its
// primary context, which NCCL uses, the others each on a context of its
// own).
type Device struct {
	Ordinal      int
	Name         string
	Major, Minor int
	TotalMem     int64
	SharedOptin  int   // the most dynamic shared memory a block may be allowed
	TexMaxWidth  int64 // texels of a linear 32-bit texture
	SMs          int   // multiprocessors
	L2           int64 // the L2 cache's bytes

	dev    cu.Device
	ctx    cu.Context
	stream Stream
	// calls serializes Do: one caller at a time has the context.
	calls  sync.Mutex
	locked time.Time // when Do took the lock (Locked)

	// spare holds pinned host buffers runs gave back, by size, for the
	// next run (pinning costs ~1 ms a run). On the context's thread only.
	spare map[int64][]unsafe.Pointer
	// stage is the pinned staging memory of large copies (transfer.go).
	stage staging
	// pinned are the host ranges Pin page-locked (start address →
	// bytes), which DtoH copies into by DMA. On the context's thread only.
	pinned map[uintptr]int64

	// Hooks are the tests' settings: values tests set, on the device they
	// test, to reach a path the defaults do not, or to compare one path
	// with another. Not knobs.
	Hooks Hooks

	mu sync.Mutex
	// base is the device memory in use once the context was made; peak
	// the most in use since, above base (NotePeak).
	base, peak int64
	info       *driver.DeviceInfo // Describe's answer, once measured
}

// Hooks are a Device's test hooks (Device.Hooks).
type Hooks struct {
	// Unstaged, PinInPlace and CopyParts: the transfer tests compare the
	// plain cuMemcpy path (Unstaged), the source pinned in place for the
	// copy (cuMemHostRegister), and other splits of the host copy (0:
	// copyPartsDefault) with the default (transfer.go).
	Unstaged, PinInPlace bool
	CopyParts            int
	// MemInfo, when set, replaces cuMemGetInfo.
	MemInfo func() (free, total int64)
}

// newDevice opens device ordinal: its context and stream.
func newDevice(ordinal int) (*Device, error) {
	d := &Device{Ordinal: ordinal, pinned: map[uintptr]int64{}}
	if ordinal < 0 {
		return nil, fmt.Errorf("%w: device %d is not a device ordinal", ErrNoGPU, ordinal)
	}
	// The driver library is opened now, not linked: without one the
	// binary runs on the CPU, and this says why.
	if err := cu.Load(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNoGPU, err)
	}
	if err := d.Do("initializing the driver", d.open); err != nil {
		return nil, noGPU(err)
	}
	return d, nil
}

func (d *Device) open() error {
	cu.Init(0)
	if n := cu.DeviceGetCount(); n == 0 {
		return fmt.Errorf("%w: the CUDA driver reports no device", ErrNoGPU)
	} else if d.Ordinal >= n {
		return fmt.Errorf("%w: device %d requested, the driver reports %d", ErrNoGPU, d.Ordinal, n)
	}
	d.dev = cu.DeviceGet(d.Ordinal)
	d.Name = d.dev.Name()
	d.Major, d.Minor = d.dev.ComputeCapability()
	d.TotalMem = d.dev.TotalMem()
	if d.Major < 6 {
		return fmt.Errorf("%w: %s has compute capability %d.%d; hpgraph needs 6.0 or later (double atomicAdd)", ErrNoGPU, d.Name, d.Major, d.Minor)
	}
	// The first Device of a device takes its primary context, which the
	// CUDA runtime's libraries (NCCL) use too: a context of our own made
	// NCCL's collectives fail on our streams ("invalid resource handle",
	// two H200s over NCCL). Another Device on the same device makes a
	// context of its own: in a shared one, one Device's CUDA graph
	// capture and another's context-wide synchronization collide
	// (CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED).
	if takePrimary(d.Ordinal) {
		d.ctx = cu.DevicePrimaryCtxRetain(d.dev)
	} else {
		d.ctx = cu.CtxCreate(cu.CTX_SCHED_AUTO, d.dev)
	}
	d.ctx.SetCurrent()
	d.SMs = d.dev.Attribute(cu.MULTIPROCESSOR_COUNT)
	d.L2 = int64(d.dev.Attribute(cu.L2_CACHE_SIZE))
	d.SharedOptin = d.dev.Attribute(cu.DeviceAttribute(C.CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN))
	check("creating a stream", C.hp_stream_create(&d.stream.s))
	free, total := d.MemInfo()
	d.base = total - free
	var w C.size_t
	if C.hp_tex_max_width(C.CUdevice(d.dev), &w) == C.CUDA_SUCCESS && w > 0 {
		d.TexMaxWidth = int64(w)
	} else {
		d.TexMaxWidth = 1 << 27
	}
	return nil
}

// Do runs f with the context current on the calling goroutine's thread,
// which stays locked to it meanwhile, and returns f's error or the error
// of a panic inside it. Calls are serialized. (A context may be current
// on several threads; making it current costs far less than handing f to
// a thread of its own, measured at 25-55 µs a superstep:
// HPGRAPH_CUDA_TRACE.)
func (d *Device) Do(op string, f func() error) error {
	d.calls.Lock()
	defer d.calls.Unlock()
	d.locked = time.Now()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if d.ctx != 0 {
		if err := Catch("making the CUDA context current", func() error { d.ctx.SetCurrent(); return nil }); err != nil {
			return err
		}
	}
	return Catch(op, f)
}

// RT is d itself: a device value of a layer above, which embeds d,
// hands it on through RT.
func (d *Device) RT() *Device { return d }

// MakeCurrent makes the context current on the calling thread (Do does
// it; a benchmark times it).
func (d *Device) MakeCurrent() { d.ctx.SetCurrent() }

// Locked is when the running Do took the device. Inside Do.
func (d *Device) Locked() time.Time { return d.locked }

// Stream is the device's stream, where its kernels and copies run.
func (d *Device) Stream() Stream { return d.stream }

// Arch is the NVRTC target of the device (compute_XY).
func (d *Device) Arch() string { return fmt.Sprintf("compute_%d%d", d.Major, d.Minor) }

// MemInfo returns the device's free and total memory. On the context's
// thread.
func (d *Device) MemInfo() (free, total int64) {
	if d.Hooks.MemInfo != nil {
		return d.Hooks.MemInfo()
	}
	return cu.MemGetInfo()
}

// LowOnMemory reports whether less than a quarter of the device's memory
// is free: the caches above then give back what no run uses (unused
// matrices and parked runs, least recently used first, even below what
// they keep otherwise). Inside Do.
func (d *Device) LowOnMemory() bool {
	free, total := d.MemInfo()
	return free < total/4
}

// NotePeak samples the device memory in use for Peak, at the points
// where it is highest (a run's buffers and matrices allocated, a
// matrix's CSR still there while the device builds it). Inside Do.
func (d *Device) NotePeak() {
	free, total := d.MemInfo()
	d.mu.Lock()
	d.peak = max(d.peak, total-free-d.base)
	d.mu.Unlock()
}

// Peak is the most device memory in use at once above the context's
// own, by this process (and any other on the same device meanwhile: the
// driver counts the device's), and the device's memory.
func (d *Device) Peak() (peak, total int64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.peak, d.TotalMem
}

// Pinned returns bytes of pinned host memory, a spare one if there is.
// Inside Do.
func (d *Device) Pinned(bytes int64) unsafe.Pointer {
	if s := d.spare[bytes]; len(s) > 0 {
		d.spare[bytes] = s[:len(s)-1]
		return s[len(s)-1]
	}
	return cu.MemAllocHost(bytes)
}

// Unpin gives pinned memory back for a later run (a few kept a size).
// Inside Do.
func (d *Device) Unpin(p unsafe.Pointer, bytes int64) {
	if d.spare == nil {
		d.spare = map[int64][]unsafe.Pointer{}
	}
	if len(d.spare[bytes]) >= 4 {
		cu.MemFreeHost(p)
		return
	}
	d.spare[bytes] = append(d.spare[bytes], p)
}

// primaries are the devices whose primary context a Device holds: the
// process has one primary context a device, whoever opens it.
var primaries struct {
	sync.Mutex
	taken map[int]bool
}

// takePrimary reports whether device ordinal's primary context is free,
// and takes it.
func takePrimary(ordinal int) bool {
	primaries.Lock()
	defer primaries.Unlock()
	if primaries.taken[ordinal] {
		return false
	}
	if primaries.taken == nil {
		primaries.taken = map[int]bool{}
	}
	primaries.taken[ordinal] = true
	return true
}
