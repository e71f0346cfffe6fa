//go:build !cgo

package cu

import (
	"errors"
	"testing"
)

// Built without cgo there is no driver to open: Load says why, every time.
func TestLoadWithoutCgo(t *testing.T) {
	for range 2 {
		if err := Load(); !errors.Is(err, ErrNoCgo) {
			t.Fatalf("Load() = %v, want ErrNoCgo", err)
		}
	}
	if Loaded() {
		t.Error("Loaded() is true without cgo")
	}
}
