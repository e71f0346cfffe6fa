//go:build cgo

package rt

import (
	"fmt"

	"github.com/hpgraph/hpgraph/cuda/cu"
)

// Open opens device ordinal (0 is the first the driver lists): a context
// of its own, its stream and its staging buffers.
func Open(ordinal int) (*Device, error) {
	d, err := newDevice(ordinal)
	if err != nil {
		return nil, err
	}
	// The pinned staging buffers now, beside the graph's load: the first
	// upload paid ~6 ms for them.
	_ = d.Do("allocating pinned staging memory", func() error { d.Staged(); return nil })
	return d, nil
}

// DeviceCount is how many CUDA devices the driver reports, or why there
// is no driver.
func DeviceCount() (int, error) {
	if err := cu.Load(); err != nil {
		return 0, fmt.Errorf("%w: %w", ErrNoGPU, err)
	}
	n := 0
	err := Catch("counting the devices", func() error {
		cu.Init(0)
		n = cu.DeviceGetCount()
		return nil
	})
	if err != nil {
		return 0, noGPU(err)
	}
	return n, nil
}
