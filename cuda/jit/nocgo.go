//go:build !cgo

package jit

import "fmt"

// Built without cgo NVRTC cannot be opened: every call says so.

// Load says why NVRTC is not there: no cgo.
func Load() error { return fmt.Errorf("%w: built without cgo", ErrNoNVRTC) }

// Library is "" without cgo.
func Library() (name, version string) { return "", "" }

// Compile says why it cannot compile: no cgo.
func Compile(src string, opts []string, cubin bool) (string, error) { return "", Load() }
