//go:build cgo

package cuda

import (
	"github.com/hpgraph/hpgraph/vertexprog"
)

// The backend: registered as "cuda" at init; a run starts on the device
// opened on first use (driver.go). A run's life: start and its state
// on the device (run.go, upload.go), its supersteps (steps.go; the
// launches of one in launch.go, replayed from CUDA graphs in graphs.go),
// its results and end (finish.go). Its options: options.go; the measured
// tuning values: tuning.go.

func init() { vertexprog.RegisterBackend(Backend{}) }

// Backend is the CUDA backend (name "cuda").
type Backend struct{}

// Name implements vertexprog.Backend.
func (Backend) Name() string { return "cuda" }

// Available reports why the backend cannot run here (no driver, no
// device), or nil. The first call starts the CUDA context.
func (Backend) Available() error {
	_, err := getDevice()
	return err
}

// Start implements vertexprog.DeviceBackend.
func (Backend) Start(job *vertexprog.DeviceJob) (vertexprog.DeviceRun, error) {
	d, err := getDevice()
	if err != nil {
		return nil, err
	}
	return start(d, job)
}
