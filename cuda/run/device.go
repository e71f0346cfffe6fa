//go:build cgo

package run

import (
	"slices"

	"github.com/hpgraph/hpgraph/cuda/build"
	"github.com/hpgraph/hpgraph/cuda/rt"
)

// New gives d the run layer's state.
func New(d *build.Device) *Device {
	return &Device{Device: d, layoutOK: map[*rt.Module]bool{}, hooks: defaultHooks()}
}

// Open opens device ordinal with every layer: a context of its own, its
// stream, caches and the modules every run loads.
func Open(ordinal int) (*Device, error) {
	d, err := build.Open(ordinal)
	if err != nil {
		return nil, err
	}
	return New(d), nil
}

// distinct reports whether devs are all different devices (a crew's
// condition: crew.go).
func distinct(devs []*Device) bool {
	for i, d := range devs {
		if slices.Contains(devs[:i], d) {
			return false
		}
	}
	return true
}
