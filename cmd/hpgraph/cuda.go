package main

// The command line registers the GPU backend (importing cuda does); it
// runs where an NVIDIA driver and GPU are, and says why not elsewhere.
import (
	"errors"

	"github.com/hpgraph/hpgraph/cuda"
	"github.com/hpgraph/hpgraph/vertexprog"
)

func init() {
	// bench's device record: the backend describes its GPU (name, driver,
	// SMs, measured copy bandwidth) through vertexprog.Describer.
	deviceDescribers["cuda"] = func() (vertexprog.DeviceInfo, error) {
		var b any = &cuda.Backend{}
		d, ok := b.(vertexprog.Describer)
		if !ok {
			return vertexprog.DeviceInfo{}, errors.New("this build's cuda backend does not implement vertexprog.Describer")
		}
		return d.Describe()
	}
}

// gpuUnavailable is why the GPU backend cannot run here (no driver, no
// device, too old a GPU or driver, a build without cgo), or nil.
func gpuUnavailable() error { return cuda.Backend{}.Available() }
