package tc

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/hpgraph/hpgraph/apps/internal/apptest"
	"github.com/hpgraph/hpgraph/vertexprog"
)

// TestDeviceCode: the device code names the program's counts and the
// parts of the graph's orientation (for a total the ranked one, the
// CPU's: GatherBlock), which Prepare leaves unbuilt (only PrepareHost
// or a backend builds it).
func TestDeviceCode(t *testing.T) {
	g := apptest.DeviceGraph(t)
	for _, pv := range []bool{false, true} {
		p := &Program{PerVertex: pv}
		apptest.Prepare(t, g, p)
		o := g.RankedOrientation()
		if pv {
			o = g.Orientation(true)
		}
		if o.Adj != nil {
			t.Errorf("triangles (per vertex %v): the orientation was built on the host by Prepare; only PrepareHost or a backend should build it", pv)
		}
		o.Build()
		arrays := []apptest.Array{{"count", p.Count, false}, {"rank", o.Rank, true}, {"off", o.Off, true}, {"cnt", o.Cnt, true}, {"adj", o.Adj, true}}
		if pv {
			arrays = append(arrays[:1], arrays[2:]...)
		}
		code := p.Device()
		apptest.CheckDeviceCode(t, "triangles", code, arrays, nil)
		want := "#define TC_RANKED 1\n"
		if pv {
			want = "#define TC_RANKED 0\n"
		}
		if !strings.HasPrefix(code.Source, want) {
			t.Errorf("triangles (per vertex %v): the source does not start with %q", pv, want)
		}
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
