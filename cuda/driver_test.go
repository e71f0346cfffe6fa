//go:build cgo

package cuda

import (
	"errors"
	"strings"
	"testing"
)

// TestCatchNamesBugSite: a Go runtime error recovered from a device call
// (a bug, not a driver error) says where it was raised.
func TestCatchNamesBugSite(t *testing.T) {
	var s []int
	i := 5
	err := catch("testing", func() error { s[i]++; return nil })
	if err == nil || !strings.Contains(err.Error(), "index out of range") || !strings.Contains(err.Error(), "driver_test.go:") {
		t.Fatalf("catch: %v; want the runtime error and its site", err)
	}
	if err := catch("testing", func() error { panic(errors.New("plain")) }); err == nil || strings.Contains(err.Error(), " (at ") {
		t.Fatalf("catch of a plain error: %v", err)
	}
}
