//go:build cgo

package cuda

import (
	"unsafe"

	"github.com/hpgraph/hpgraph/cuda/build"
	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/vertexprog"
)

// The optional interfaces of vertexprog the backend implements, each on
// its device.

// Describe implements vertexprog.Describer: the device, its driver, and
// its device-to-device copy bandwidth (measured once, then kept).
func (b *Backend) Describe() (vertexprog.DeviceInfo, error) {
	d, err := b.device()
	if err != nil {
		return vertexprog.DeviceInfo{}, err
	}
	return d.Describe()
}

// Pin implements vertexprog.HostPinner: cuMemHostRegister, once, for
// memory that runs copy results into again and again (a server's
// scratch ranks); unpin unregisters it.
func (b *Backend) Pin(p unsafe.Pointer, bytes int) (func(), error) {
	d, err := b.device()
	if err != nil {
		return nil, err
	}
	return d.Pin(p, bytes)
}

// Prefetch implements vertexprog.Prefetcher: it registers the graph's
// copy and makes it in a goroutine of its own, when the device is free.
func (b *Backend) Prefetch(rowPtr []int64, col []int32, val []float32) {
	d, err := b.device()
	if err != nil {
		return
	}
	d.Prefetch(rowPtr, col, val)
}

// SymmetrizedRows implements vertexprog.Symmetrizer: a directed graph's
// undirected view, built on the device and kept there.
func (b *Backend) SymmetrizedRows(rowPtr []int64, col []int32, val []float32) ([]int64, error) {
	d, err := b.device()
	if err != nil {
		return nil, err
	}
	return d.SymmetrizedRows(rowPtr, col, val)
}

// RelabelByDegree implements vertexprog.DegreeRelabeler: g renumbered by
// decreasing degree on the device (build.RelabelByDegree).
func (b *Backend) RelabelByDegree(g *datasets.Graph) (*datasets.Graph, error) {
	return build.RelabelByDegree(g, func() (*build.Device, error) {
		d, err := b.device()
		if err != nil {
			return nil, err
		}
		return d.Device, nil
	})
}
