package cuda

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

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
		if err != nil {
			return DeviceList{}, fmt.Errorf("cuda: devices %q: %q is not a device ordinal (want ordinals such as 0 or 0,1, or all)", s, f)
		}
		l.Ordinals = append(l.Ordinals, n)
	}
	if err := l.check(); err != nil {
		return DeviceList{}, fmt.Errorf("cuda: devices %q: %w", s, err)
	}
	return l, nil
}

// check reports what is wrong with l: no device, a negative ordinal, one
// listed twice.
func (l DeviceList) check() error {
	if l.All {
		return nil
	}
	if len(l.Ordinals) == 0 {
		return fmt.Errorf("no device listed")
	}
	for i, n := range l.Ordinals {
		if n < 0 {
			return fmt.Errorf("device %d is not a device ordinal", n)
		}
		if slices.Contains(l.Ordinals[:i], n) {
			return fmt.Errorf("device %d is listed twice", n)
		}
	}
	return nil
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
