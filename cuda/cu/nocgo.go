//go:build !cgo

package cu

// Load reports that a binary built without cgo cannot call the driver.
func Load() error { return ErrNoCgo }

// Loaded reports whether Load succeeded: never, without cgo.
func Loaded() bool { return false }
