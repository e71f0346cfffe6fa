package cuda

import (
	"slices"
	"sync"

	"github.com/hpgraph/hpgraph/cuda/run"
)

// config is what a backend is set to: its device (ordinal) and options
// (Options, SetOptions), and for the registered backend the devices
// Configure listed. Backend embeds it (with or without cgo).
type config struct {
	run.Settings

	mu      sync.Mutex
	ordinal int
	devices DeviceList // Configure's (the registered backend's)
}

// Devices are the devices Configure listed for the registered backend
// (device 0 until then); a backend from Open lists its own.
func (b *config) Devices() DeviceList {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.devices.All || len(b.devices.Ordinals) > 0 {
		return DeviceList{All: b.devices.All, Ordinals: slices.Clone(b.devices.Ordinals)}
	}
	return DeviceList{Ordinals: []int{b.ordinal}}
}
