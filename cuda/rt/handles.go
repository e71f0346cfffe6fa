//go:build cgo

package rt

/*
#include "../cu/cu.h"
*/
import "C"

import "unsafe"

// The handles a Device holds and hands out; their calls are in
// stream.go, clock.go and transfer.go.

// Stream is a CUDA stream of a device (Device.Stream).
type Stream struct{ s C.CUstream }

// Graph is an instantiated CUDA graph (nil: none).
type Graph struct{ e C.CUgraphExec }

// Event is a CUDA event for ordering host work after stream work.
type Event struct{ e C.CUevent }

// Mark is an event that times the stream's work (Elapsed).
type Mark struct{ e C.CUevent }

// staging is a device's pinned staging memory, allocated on first use;
// used inside Do only.
type staging struct {
	buf  [2]unsafe.Pointer
	ev   [2]Event
	fail bool
}
