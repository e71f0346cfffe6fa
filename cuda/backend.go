//go:build cgo

package cuda

import (
	"fmt"
	"sync"

	"github.com/hpgraph/hpgraph/cuda/cu"
	"github.com/hpgraph/hpgraph/cuda/jit"
	"github.com/hpgraph/hpgraph/cuda/rt"
	"github.com/hpgraph/hpgraph/cuda/run"
)

// The backend: one device's (Open), or the one registered as "cuda" at
// init, which opens the device Configure names on first use. What it
// does on its device is the run layer's (run.Backend); the layers below
// build what runs need (cuda/doc.go).

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

// CompileError carries NVRTC's log.
type CompileError = jit.CompileError

// Backend is the CUDA backend on one device (name "cuda"): its runs,
// the vertexprog interfaces it implements (run.Backend's) and its
// options. Several may be open at once, each with its own context (the
// first on a device its primary one, which NCCL uses), stream, module
// and matrix caches and memory accounting; calls on one device wait for
// each other, never for another device's.
type Backend struct {
	run.Backend

	config
	// opening is held while a device opens (a quarter of a second: the
	// driver and a context), so that config's mu, which the options and
	// the devices listed are read under, never waits for it: a loader
	// asks how many devices a run splits over while the device opens
	// beside the load.
	opening sync.Mutex
	dev     *run.Device // nil until opened (the registered backend: on first use); under mu
	err     error       // why the device did not open; under mu
	tried   bool        // under mu
	// others are the other devices a partitioned run's parts run on
	// (parts.go), opened on first use; under mu.
	others map[int]*run.Device
}

func newBackend(ordinal int, opt Options) *Backend {
	b := &Backend{config: config{ordinal: ordinal}}
	_ = b.SetOptions(opt) // (valid: the callers checked it)
	b.Backend = run.Backend{Dev: b.device, Opt: b.Options}
	return b
}

// Open opens device ordinal (0 is the first the driver lists) as a
// backend of its own, with options opt.
func Open(ordinal int, opt Options) (*Backend, error) {
	if err := opt.Validate(); err != nil {
		return nil, err
	}
	d, err := run.Open(ordinal)
	if err != nil {
		return nil, err
	}
	b := newBackend(ordinal, opt)
	b.dev, b.tried = d, true
	return b, nil
}

// DeviceCount is how many CUDA devices the driver reports, or why there
// is no driver.
func DeviceCount() (int, error) { return rt.DeviceCount() }

// openDevice opens a device (run.Open; a test's slow stand-in).
var openDevice = run.Open

// device is b's device, opened on first use (under opening, not mu).
func (b *Backend) device() (*run.Device, error) {
	b.opening.Lock()
	defer b.opening.Unlock()
	b.mu.Lock()
	ordinal, tried, dev, err := b.ordinal, b.tried, b.dev, b.err
	b.mu.Unlock()
	if tried {
		return dev, err
	}
	dev, err = openDevice(ordinal)
	b.mu.Lock()
	if b.ordinal == ordinal { // (else setOrdinal moved b meanwhile: its next use opens that one)
		b.dev, b.err, b.tried = dev, err, true
	}
	b.mu.Unlock()
	return dev, err
}

// setOrdinal makes b use device ordinal from its next use (a device
// opened before stays open for the runs that have it).
func (b *Backend) setOrdinal(ordinal int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if ordinal != b.ordinal {
		b.ordinal, b.dev, b.err, b.tried = ordinal, nil, nil, false
	}
}

// Name implements driver.Backend.
func (*Backend) Name() string { return "cuda" }

// Probe implements driver.Prober: why the backend cannot run here
// where the driver's library does not load (no NVIDIA driver), else nil.
// It opens no context: a machine without a GPU learns it at once.
func (*Backend) Probe() error {
	if err := cu.Load(); err != nil {
		return fmt.Errorf("%w: %w", ErrNoGPU, err)
	}
	return nil
}

// Available reports why the backend cannot run here (no driver, no
// device), or nil. The first call starts the CUDA context.
func (b *Backend) Available() error {
	_, err := b.device()
	return err
}
