//go:build !cgo

package nccl

// Load reports that a binary built without cgo cannot call NCCL.
func Load() error { return ErrNoCgo }
