//go:build !cgo

package cuda

import (
	"errors"
	"fmt"

	"github.com/hpgraph/hpgraph/cuda/cu"
	"github.com/hpgraph/hpgraph/vertexprog"
)

// Built without cgo the backend cannot call the driver: it is registered
// all the same, so that asking for it says why it is not there.

// ErrNoGPU is returned (wrapped) when there is no usable CUDA driver or
// device.
var ErrNoGPU = errors.New("cuda: no GPU")

func init() { vertexprog.RegisterBackend(Backend{}) }

// Backend is the CUDA backend (name "cuda").
type Backend struct{}

// Name implements vertexprog.Backend.
func (Backend) Name() string { return "cuda" }

// Available implements vertexprog.Backend: never, without cgo.
func (Backend) Available() error { return fmt.Errorf("%w: %w", ErrNoGPU, cu.Load()) }
