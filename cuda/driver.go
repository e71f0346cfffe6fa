//go:build cgo

package cuda

import (
	"unsafe"

	"github.com/hpgraph/hpgraph/cuda/build"
	"github.com/hpgraph/hpgraph/cuda/cu"
	"github.com/hpgraph/hpgraph/cuda/jit"
	"github.com/hpgraph/hpgraph/cuda/rt"
)

// ErrNoGPU is returned (wrapped) when there is no usable CUDA driver or
// device.
var ErrNoGPU = rt.ErrNoGPU

// ErrOutOfMemory is returned (wrapped) when a job does not fit in the
// device's free memory; the message states the bytes needed and free.
var ErrOutOfMemory = rt.ErrOutOfMemory

// Error is a failed CUDA driver call.
type Error = rt.Error

// ErrCompile is returned (wrapped in a *CompileError) when NVRTC rejects
// the kernels with a program's device code spliced in.
var ErrCompile = jit.ErrCompile

// CompileError carries NVRTC's log (jit.CompileError).
type CompileError = jit.CompileError

// device is one device (build.Device: its context, stream, memory,
// module cache and matrices) and what runs keep on it: nothing of it is
// shared with another device's, so calls on different devices run at
// once.
type device struct {
	*build.Device

	// parked are resident runs' buffers waiting for the next run (park.go).
	// On the context's thread only.
	parked []*parked
	// layoutOK are the modules whose vp_state_layout agreed with the
	// host's State layout. On the context's thread only.
	layoutOK map[*rt.Module]bool

	// hooks are the tests' settings (tuning.go); counts what tests count.
	hooks  hooks
	counts counts
}

// openDevice opens device ordinal: a context of its own, its stream, and
// the modules every run loads.
func openDevice(ordinal int) (*device, error) {
	d, err := build.Open(ordinal)
	if err != nil {
		return nil, err
	}
	return &device{Device: d, layoutOK: map[*rt.Module]bool{}, hooks: defaultHooks()}, nil
}

// DeviceCount is how many CUDA devices the driver reports, or why there
// is no driver.
func DeviceCount() (int, error) { return rt.DeviceCount() }

var kernelNames = []string{"vp_records", "vp_ctl", "vp_fill", "vp_compact", "vp_pull_ell", "vp_pull_coo", "vp_pull_tiles", "vp_apply_pull", "vp_apply_push", "vp_push", "vp_loop", "vp_state_layout", "vp_init_state"}

// stateOffsets runs vp_state_layout of m: the offsets of State's n
// members, then sizeof(State). Inside device.Do.
func stateOffsets(m *rt.Module, n int) []uint64 {
	out := make([]uint64, n+1)
	buf := cu.MemAlloc(int64(8 * len(out)))
	defer cu.MemFree(buf)
	m.LaunchPtr("vp_state_layout", buf)
	cu.MemcpyDtoH(unsafe.Pointer(&out[0]), buf, int64(8*len(out)))
	return out
}

// vp_loop's block size (VP_LOOP_BLOCK), dynamic shared memory per block
// (VP_LOOP_SHARED_BASE, and VP_LOOP_SHARED_FAR more for delta-stepping),
// largest cluster (VP_LOOP_MAX) and most frontier edges a superstep
// (VP_LOOP_CAP).
const (
	loopBlock      = 1024
	loopSharedBase = 212992
	loopCap        = 16384
	loopSharedFar  = 16384
	maxLoopCluster = MaxLoopCluster
)

func loopShared(priority bool) int {
	if priority {
		return loopSharedBase + loopSharedFar
	}
	return loopSharedBase
}
