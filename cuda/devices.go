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
