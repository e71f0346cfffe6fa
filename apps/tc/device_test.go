package tc

import (
	"regexp"
	"strconv"
	"testing"

	"github.com/hpgraph/hpgraph/apps/internal/apptest"
	"github.com/hpgraph/hpgraph/vertexprog"
)

// TestDeviceCode: the device code names the program's counts and the
// parts of the graph's orientation, which Prepare leaves unbuilt (only
// PrepareHost or a backend builds it).
func TestDeviceCode(t *testing.T) {
	g := apptest.DeviceGraph(t)
	for _, pv := range []bool{false, true} {
		p := &Program{PerVertex: pv}
		apptest.Prepare(t, g, p)
		flag := int32(0)
		if pv {
			flag = 1
		}
		o := g.Orientation(pv)
		if o.Adj != nil {
			t.Errorf("triangles (per vertex %v): the orientation was built on the host by Prepare; only PrepareHost or a backend should build it", pv)
		}
		o.Build()
		apptest.CheckDeviceCode(t, "triangles", p.Device(), []apptest.Array{{"count", p.Count, false}, {"deg", o.Deg, true}, {"off", o.Off, true}, {"cnt", o.Cnt, true}, {"adj", o.Adj, true}},
			[]apptest.Scalar{{"perVertex", flag}})
	}
	apptest.TypeSizes(t, "triangles", triangleDevice, 0, 8)
}

// TestTriangleBlock: the device merge and the Go padding agree on the
// block of entries.
func TestTriangleBlock(t *testing.T) {
	m := regexp.MustCompile(`#define TC_BLOCK (\d+)`).FindStringSubmatch(triangleDevice)
	if m == nil || m[1] != strconv.Itoa(vertexprog.OrientationBlock) {
		t.Fatalf("device TC_BLOCK %v, vertexprog.OrientationBlock %d", m, vertexprog.OrientationBlock)
	}
}
