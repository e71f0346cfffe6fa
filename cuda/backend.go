//go:build cgo

package cuda

import (
	"sync"

	"github.com/hpgraph/hpgraph/vertexprog"
)

// The backend: one device's (Open), or the one registered as "cuda" at
// init, which opens the device Configure names on first use. A run's
// life: start and its state on the device (run.go, upload.go), its
// supersteps (steps.go; the launches of one in launch.go, replayed from
// CUDA graphs in graphs.go), its results and end (finish.go). Its
// options: options.go; the measured tuning values: tuning.go.

func init() { vertexprog.RegisterBackend(registered) }

// Backend is the CUDA backend on one device (name "cuda"). Several may
// be open at once, each with its own context, stream, module and matrix
// caches and memory accounting; calls on one device wait for each other,
// never for another device's.
type Backend struct {
	mu      sync.Mutex
	ordinal int
	devices DeviceList // Configure's (the registered backend's)
	opt     Options
	dev     *device // nil until opened (the registered backend: on first use)
	err     error   // why the device did not open
	tried   bool
}

// Open opens device ordinal (0 is the first the driver lists) as a
// backend of its own, with options opt.
func Open(ordinal int, opt Options) (*Backend, error) {
	if err := opt.Validate(); err != nil {
		return nil, err
	}
	d, err := openDevice(ordinal)
	if err != nil {
		return nil, err
	}
	return &Backend{ordinal: ordinal, opt: opt, dev: d, tried: true}, nil
}

// device is b's device, opened on first use.
func (b *Backend) device() (*device, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.tried {
		b.dev, b.err = openDevice(b.ordinal)
		b.tried = true
	}
	return b.dev, b.err
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

// Name implements vertexprog.Backend.
func (*Backend) Name() string { return "cuda" }

// Available reports why the backend cannot run here (no driver, no
// device), or nil. The first call starts the CUDA context.
func (b *Backend) Available() error {
	_, err := b.device()
	return err
}

// Start implements vertexprog.DeviceBackend.
func (b *Backend) Start(job *vertexprog.DeviceJob) (vertexprog.DeviceRun, error) {
	d, err := b.device()
	if err != nil {
		return nil, err
	}
	return start(d, job, b.Options())
}

// DeviceMemory implements vertexprog.MemoryReporter: the most device
// memory in use at once above the context's own, by this process (and any
// other on the same device meanwhile: the driver counts the device's).
func (b *Backend) DeviceMemory() (peak, total int64) {
	d, err := b.device()
	if err != nil {
		return 0, 0
	}
	return d.Peak()
}
