//go:build cgo

package cuda

import (
	"errors"
	"testing"
	"time"

	"github.com/hpgraph/hpgraph/cuda/run"
)

// TestDevicesWhileOpening: while a backend's device opens (a quarter of
// a second on a GPU: here a stand-in that takes 300 ms), the devices it
// lists and its options are read at once. A one-shot answer's loader asks
// for them (vertexprog.PartsOf) while the device opens beside the load;
// they were read under the mutex the open held.
func TestDevicesWhileOpening(t *testing.T) {
	const open = 300 * time.Millisecond
	old := openDevice
	t.Cleanup(func() { openDevice = old })
	started := make(chan struct{})
	openDevice = func(int) (*run.Device, error) {
		close(started)
		time.Sleep(open)
		return nil, errors.New("no device in this test")
	}
	b := newBackend(0, DefaultOptions())
	done := make(chan error)
	go func() { done <- b.Available() }()
	<-started
	t0 := time.Now()
	if n := b.PartDevices(); n != 1 {
		t.Errorf("PartDevices = %d, want 1", n)
	}
	_ = b.Options()
	if took := time.Since(t0); took > open/2 {
		t.Errorf("the devices and options took %v to read while the device opened (%v)", took, open)
	}
	if err := <-done; err == nil {
		t.Error("Available: nil, want the stand-in's error")
	}
	if err := b.Available(); err == nil || time.Since(t0) > 2*open {
		t.Errorf("a second Available: %v after %v, want the first open's error at once", err, time.Since(t0))
	}
}
