//go:build cuda

package main

// Built with the cuda tag, the command line registers the GPU backend.
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
