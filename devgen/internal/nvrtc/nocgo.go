//go:build !cgo

package nvrtc

import "errors"

// ErrUnavailable is returned when no NVRTC library could be opened.
var ErrUnavailable = errors.New("nvrtc: not available (built without cgo)")

// Compile needs cgo.
func Compile(src, arch string) error { return ErrUnavailable }
