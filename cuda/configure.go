package cuda

import (
	"fmt"
	"slices"

	"github.com/hpgraph/hpgraph/vertexprog/driver"
)

// The backend registered as "cuda", and what the command line sets it to
// (--devices and the --cuda-* flags).

// registered is the backend registered as "cuda" (vertexprog's registry
// holds it); Configure sets what it uses.
var registered = newBackend(0, DefaultOptions())

func init() { driver.Register(registered) }

// Registered is the backend registered as "cuda".
func Registered() *Backend { return registered }

// Configure sets the devices and options of the registered backend, or
// returns why they are invalid (and changes nothing). The registered
// backend runs on the first device listed; runs already started keep
// their device and options.
func Configure(devices DeviceList, opt Options) error {
	if err := opt.Validate(); err != nil {
		return err
	}
	if err := devices.check(); err != nil {
		return fmt.Errorf("cuda: %w", err)
	}
	registered.setOrdinal(devices.First())
	registered.mu.Lock()
	registered.devices = DeviceList{All: devices.All, Ordinals: slices.Clone(devices.Ordinals)}
	registered.mu.Unlock()
	return registered.SetOptions(opt)
}

// Resolve lists the ordinals: all the driver reports for All.
func (l DeviceList) Resolve() ([]int, error) {
	if !l.All {
		return slices.Clone(l.Ordinals), nil
	}
	n, err := DeviceCount()
	if err != nil {
		return nil, err
	}
	all := make([]int, n)
	for i := range all {
		all[i] = i
	}
	return all, nil
}
