package cc

import (
	"testing"

	"github.com/hpgraph/hpgraph/apps/internal/apptest"
	"github.com/hpgraph/hpgraph/vertexprog"
)

// TestDeviceCode: the generated device code has no state of its own, and
// 4-byte values and accumulators.
func TestDeviceCode(t *testing.T) {
	apptest.CheckDeviceCode(t, "cc", Program{}.Device(), nil, nil)
	var _ vertexprog.DeviceProgram = Program{}
	apptest.TypeSizes(t, "cc", programDeviceSource, 4, 4)
}
