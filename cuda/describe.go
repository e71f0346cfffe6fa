//go:build cgo

package cuda

import (
	"unsafe"

	"github.com/hpgraph/hpgraph/vertexprog"
)

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
