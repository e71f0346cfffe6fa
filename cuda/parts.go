//go:build cgo

package cuda

import (
	"fmt"

	"github.com/hpgraph/hpgraph/cuda/run"
	"github.com/hpgraph/hpgraph/vertexprog/driver"
)

// A backend runs the parts of a partitioned run (driver.PartBackend)
// on its devices: the registered backend on those --devices lists, one
// part each unless --parts says otherwise; a backend from Open on its one
// device.

// PartDevices implements driver.PartBackend: the devices listed, or
// 1 where they cannot be counted.
func (b *Backend) PartDevices() int {
	ords, err := b.Devices().Resolve()
	if err != nil || len(ords) == 0 {
		return 1
	}
	return len(ords)
}

// StartParts implements driver.PartBackend: jobs[i] on the i-th
// device listed (modulo their number), each device opened once.
func (b *Backend) StartParts(jobs []*driver.DeviceJob, comm driver.Comm) (driver.DeviceRun, error) {
	devs, err := b.partDevices(len(jobs))
	if err != nil {
		return nil, err
	}
	return run.StartParts(devs, jobs, comm, b.Options())
}

// PartComponents implements driver.PartComponentsBackend: parts[i] on
// the i-th device listed (modulo their number), as StartParts.
func (b *Backend) PartComponents(parts []*driver.Matrix, info []driver.Part, comm driver.Comm) (driver.ComponentsRun, error) {
	devs, err := b.partDevices(len(parts))
	if err != nil {
		return nil, err
	}
	return run.StartPartComponents(devs, parts, info, comm)
}

// partDevices is the devices of n local parts: the i-th listed (modulo
// their number) for part i.
func (b *Backend) partDevices(n int) ([]*run.Device, error) {
	ords, err := b.Devices().Resolve()
	if err != nil {
		return nil, err
	}
	if len(ords) == 0 {
		return nil, fmt.Errorf("cuda: no device listed for the run's %d parts", n)
	}
	devs := make([]*run.Device, n)
	for i := range devs {
		if devs[i], err = b.deviceAt(ords[i%len(ords)]); err != nil {
			return nil, err
		}
	}
	return devs, nil
}

// deviceAt is device ordinal, opened once for the backend: its own
// device, or one more of those --devices lists.
func (b *Backend) deviceAt(ordinal int) (*run.Device, error) {
	b.mu.Lock()
	own := ordinal == b.ordinal
	b.mu.Unlock()
	if own {
		return b.device()
	}
	b.opening.Lock() // (as device: mu is not held while a device opens)
	defer b.opening.Unlock()
	b.mu.Lock()
	d, ok := b.others[ordinal]
	b.mu.Unlock()
	if ok {
		return d, nil
	}
	d, err := openDevice(ordinal)
	if err != nil {
		return nil, fmt.Errorf("cuda: device %d (--devices): %w", ordinal, err)
	}
	b.mu.Lock()
	if b.others == nil {
		b.others = map[int]*run.Device{}
	}
	b.others[ordinal] = d
	b.mu.Unlock()
	return d, nil
}

var _ driver.PartComponentsBackend = (*Backend)(nil)
