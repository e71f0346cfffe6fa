//go:build !cgo

package cuda

import (
	"errors"
	"fmt"
	"io"

	"github.com/hpgraph/hpgraph/cuda/gen"
	"github.com/hpgraph/hpgraph/datasets"

	"github.com/hpgraph/hpgraph/cuda/cu"
)

// Built without cgo the backend cannot call the driver: it is registered
// all the same, so that asking for it says why it is not there.

// ErrNoGPU is returned (wrapped) when there is no usable CUDA driver or
// device.
var ErrNoGPU = errors.New("cuda: no GPU")

// Backend is the CUDA backend (name "cuda").
type Backend struct{ config }

// noGPU is why there is no device: no cgo.
func noGPU() error { return fmt.Errorf("%w: %w", ErrNoGPU, cu.Load()) }

// Open implements nothing without cgo: it says why.
func Open(ordinal int, opt Options) (*Backend, error) {
	if err := opt.Validate(); err != nil {
		return nil, err
	}
	return nil, noGPU()
}

// DeviceCount says why there is no device without cgo.
func DeviceCount() (int, error) { return 0, noGPU() }

func newBackend(ordinal int, opt Options) *Backend {
	b := &Backend{config: config{ordinal: ordinal}}
	_ = b.SetOptions(opt) // (valid: the callers checked it)
	return b
}

func (b *Backend) setOrdinal(ordinal int) {
	b.mu.Lock()
	b.ordinal = ordinal
	b.mu.Unlock()
}

// Name implements driver.Backend.
func (*Backend) Name() string { return "cuda" }

// Probe implements driver.Prober: never, without cgo.
func (*Backend) Probe() error { return noGPU() }

// Available implements driver.Backend: never, without cgo.
func (*Backend) Available() error { return noGPU() }

// Generate says why there is no device without cgo.
func (*Backend) Generate(*gen.Graph) (*datasets.Graph, error) { return nil, noGPU() }

// GenerateCounts says why there is no device without cgo.
func (*Backend) GenerateCounts(*gen.Graph, bool) ([]int64, []int32, error) { return nil, nil, noGPU() }

// GenerateParts says why there is no device without cgo.
func (*Backend) GenerateParts(*gen.Graph, gen.Options, []int) (*datasets.Graph, error) {
	return nil, noGPU()
}

// GenerateRows says why there is no device without cgo.
func (*Backend) GenerateRows(*gen.Graph, gen.Options, int, int) (*datasets.Graph, error) {
	return nil, noGPU()
}

// WriteGenerated says why there is no device without cgo.
func (*Backend) WriteGenerated(*gen.Graph, io.Writer) (int64, datasets.BuildStats, error) {
	return 0, datasets.BuildStats{}, noGPU()
}
