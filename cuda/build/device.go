//go:build cgo

package build

import (
	"github.com/hpgraph/hpgraph/cuda/jit"
	"github.com/hpgraph/hpgraph/cuda/rt"
)

// New gives d the PREPROCESS layer's state, and loads the modules every
// run that builds a matrix loads.
func New(d *jit.Device) *Device {
	b := &Device{Device: d}
	b.Cache.d = b
	// The module of PREPROCESS's kernels: the first module a context loads
	// took ~9.6 ms of a fresh kron21 run's PREPROCESS (H200). (Where it
	// cannot load, the first build says why.) The transpose's too, which
	// builds a directed graph's in-matrix (transpose.go).
	_ = d.Do("loading PREPROCESS's kernels", func() error {
		_ = rt.Catch("loading PREPROCESS's kernels", func() error { b.hybBuildModule(); return nil })
		_ = rt.Catch("loading the transpose's kernels", func() error { b.transposeModule(); return nil })
		return nil
	})
	return b
}

// Open opens device ordinal with the layers up to PREPROCESS's.
func Open(ordinal int) (*Device, error) {
	d, err := rt.Open(ordinal)
	if err != nil {
		return nil, err
	}
	return New(jit.New(d)), nil
}
