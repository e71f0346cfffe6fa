//go:build !cgo

package nccl

// Load reports that a binary built without cgo cannot call NCCL.
func Load() error { return ErrNoCgo }

// Version reports that a binary built without cgo has no NCCL.
func Version() (int, error) { return 0, ErrNoCgo }
