//go:build cgo

package run

import (
	"unsafe"

	"github.com/hpgraph/hpgraph/cuda/build"
	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/vertexprog/driver"
)

// Backend is what a backend on one device does for vertexprog: its
// runs (Start, StartMultiset, Components) and the optional interfaces
// (Describer, HostPinner, Prefetcher, Symmetrizer, DegreeRelabeler,
// MemoryReporter), on the device Dev opens, each run with the options
// Opt gives at its start. Package cuda's Backend embeds one, adding the
// name, the choice of device and the options.
type Backend struct {
	Dev func() (*Device, error)
	Opt func() Options
}

// DeviceMemory implements driver.MemoryReporter: the most device
// memory in use at once above the context's own, by this process (and any
// other on the same device meanwhile: the driver counts the device's).
func (b Backend) DeviceMemory() (peak, total int64) {
	d, err := b.Dev()
	if err != nil {
		return 0, 0
	}
	return d.Peak()
}

// Describe implements driver.Describer: the device, its driver, and
// its device-to-device copy bandwidth (measured once, then kept).
func (b Backend) Describe() (driver.DeviceInfo, error) {
	d, err := b.Dev()
	if err != nil {
		return driver.DeviceInfo{}, err
	}
	return d.Describe()
}

// Pin implements driver.HostPinner: cuMemHostRegister, once, for
// memory that runs copy results into again and again (a server's
// scratch ranks); unpin unregisters it.
func (b Backend) Pin(p unsafe.Pointer, bytes int) (func(), error) {
	d, err := b.Dev()
	if err != nil {
		return nil, err
	}
	return d.Pin(p, bytes)
}

// Prefetch implements driver.Prefetcher: it registers the graph's
// copy and makes it in a goroutine of its own, when the device is free.
func (b Backend) Prefetch(rowPtr []int64, col []int32, val []float32) {
	d, err := b.Dev()
	if err != nil {
		return
	}
	d.Prefetch(rowPtr, col, val)
}

// SymmetrizedRows implements driver.Symmetrizer: a directed graph's
// undirected view, built on the device and kept there.
func (b Backend) SymmetrizedRows(rowPtr []int64, col []int32, val []float32) ([]int64, error) {
	d, err := b.Dev()
	if err != nil {
		return nil, err
	}
	return d.SymmetrizedRows(rowPtr, col, val)
}

// RelabelByDegree implements driver.DegreeRelabeler: g renumbered by
// decreasing degree on the device, interleaved over parts
// (build.RelabelByDegree).
func (b Backend) RelabelByDegree(g *datasets.Graph, parts int) (*datasets.Graph, error) {
	return build.RelabelByDegree(g, parts, func() (*build.Device, error) {
		d, err := b.Dev()
		if err != nil {
			return nil, err
		}
		return d.Device, nil
	})
}
