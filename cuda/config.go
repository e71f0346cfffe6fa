package cuda

import (
	"slices"
	"sync"
)

// config is what a backend is set to: its device (ordinal) and options,
// and for the registered backend the devices Configure listed. Backend
// embeds it (with or without cgo).
type config struct {
	mu      sync.Mutex
	ordinal int
	devices DeviceList // Configure's (the registered backend's)
	opt     Options
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

// Options are the options b's runs started now get.
func (b *config) Options() Options {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.opt
}

// SetOptions sets the options of b's runs started afterwards, or returns
// why o is invalid (and changes nothing). Runs already started keep the
// options they started with.
func (b *config) SetOptions(o Options) error {
	if err := o.Validate(); err != nil {
		return err
	}
	b.mu.Lock()
	b.opt = o
	b.mu.Unlock()
	return nil
}
