package cuda

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Which devices the registered backend uses, and its options: set by
// Configure (the command line's --devices and --cuda-* flags).

// registered is the backend registered as "cuda" (vertexprog's registry
// holds it); Configure sets what it uses.
var registered = &Backend{opt: DefaultOptions()}

// Registered is the backend registered as "cuda".
func Registered() *Backend { return registered }

// DeviceList is a list of devices as --devices gives it: ordinals, or
// all the driver reports.
type DeviceList struct {
	All      bool
	Ordinals []int // when not All: distinct, in the order given
}

// ParseDeviceList reads "0", "0,1" (distinct non-negative ordinals) or
// "all".
func ParseDeviceList(s string) (DeviceList, error) {
	if s == "all" {
		return DeviceList{All: true}, nil
	}
	var l DeviceList
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 0 {
			return DeviceList{}, fmt.Errorf("cuda: devices %q: %q is not a device ordinal (want ordinals such as 0 or 0,1, or all)", s, f)
		}
		if slices.Contains(l.Ordinals, n) {
			return DeviceList{}, fmt.Errorf("cuda: devices %q: device %d is listed twice", s, n)
		}
		l.Ordinals = append(l.Ordinals, n)
	}
	return l, nil
}

// String is the list as ParseDeviceList reads it.
func (l DeviceList) String() string {
	if l.All {
		return "all"
	}
	s := make([]string, len(l.Ordinals))
	for i, n := range l.Ordinals {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ",")
}

// First is the list's first device (0 for all).
func (l DeviceList) First() int {
	if l.All || len(l.Ordinals) == 0 {
		return 0
	}
	return l.Ordinals[0]
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

// Configure sets the devices and options of the registered backend, or
// returns why they are invalid (and changes nothing). The registered
// backend runs on the first device listed; runs already started keep
// their device and options.
func Configure(devices DeviceList, opt Options) error {
	if err := opt.Validate(); err != nil {
		return err
	}
	if !devices.All && len(devices.Ordinals) == 0 {
		return fmt.Errorf("cuda: no device listed")
	}
	registered.setOrdinal(devices.First())
	registered.mu.Lock()
	registered.opt = opt
	registered.devices = DeviceList{All: devices.All, Ordinals: slices.Clone(devices.Ordinals)}
	registered.mu.Unlock()
	return nil
}

// Devices are the devices Configure listed for the registered backend
// (device 0 until then); a backend from Open lists its own.
func (b *Backend) Devices() DeviceList {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.devices.All || len(b.devices.Ordinals) > 0 {
		return DeviceList{All: b.devices.All, Ordinals: slices.Clone(b.devices.Ordinals)}
	}
	return DeviceList{Ordinals: []int{b.ordinal}}
}

// Options are the options b's runs started now get.
func (b *Backend) Options() Options {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.opt
}

// SetOptions sets the options of b's runs started afterwards, or returns
// why o is invalid (and changes nothing). Runs already started keep the
// options they started with.
func (b *Backend) SetOptions(o Options) error {
	if err := o.Validate(); err != nil {
		return err
	}
	b.mu.Lock()
	b.opt = o
	b.mu.Unlock()
	return nil
}
