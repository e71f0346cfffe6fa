package lcc

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/hpgraph/hpgraph/apps/internal/apptest"
	"github.com/hpgraph/hpgraph/vertexprog"
)

// TestDeviceCode: the device code is the directed build on a directed
// graph, and names the program's state and the parts of the graph's
// ranked orientation, which Prepare leaves unbuilt (only PrepareHost or a
// backend builds it).
func TestDeviceCode(t *testing.T) {
	g := apptest.DeviceGraph(t)
	p := &Program{}
	apptest.Prepare(t, g, p)
	lo := g.RankedOrientation()
	if p.o != lo || lo.Adj != nil {
		t.Errorf("lcc: the program's orientation is not the graph's ranked one, or Prepare built it on the host (only PrepareHost or a backend should)")
	}
	if !strings.Contains(p.Device().Source, "#define LCC_DIRECTED 1\n") {
		t.Error("lcc: a directed graph's device code is not the directed build")
	}
	for _, a := range p.Device().Arrays[3:] {
		if a.Orientation != lo || a.Data != nil || !a.ReadOnly || a.Constant {
			t.Errorf("lcc: array %s is not a part of the graph's ranked orientation", a.Name)
		}
	}
	lo.Build()
	apptest.CheckDeviceCode(t, "lcc", p.Device(), []apptest.Array{{"lcc", p.LCC, false}, {"credit", p.credit, false}, {"hub", p.hub, false},
		{"rank", lo.Rank, true}, {"deg", lo.Deg, true}, {"off", lo.Off, true}, {"cnt", lo.Cnt, true}, {"adj", lo.Adj, true}, {"both", lo.Both, true}},
		[]apptest.Scalar{{"hubs", int32(min(g.N()/8, lccHubs))}})
	var _ vertexprog.DeviceProgram = p
	apptest.TypeSizes(t, "lcc", lccSource(false, false), 0, 8)
	apptest.TypeSizes(t, "lcc summing hub credits", lccSource(false, true), 0, 8)
	apptest.TypeSizes(t, "lcc directed", lccSource(true, false), 0, 8)
}

// TestDeviceConstants: LCC's device code and Go agree on the block of
// list entries and the copies of a hub's credit and their layout.
func TestDeviceConstants(t *testing.T) {
	for name, v := range map[string]int{"LCC_BLOCK": vertexprog.OrientationBlock, "LCC_REPLICAS": lccReplicas, "LCC_HUB_PAD": lccHubPad} {
		m := regexp.MustCompile(`#define ` + name + ` (\d+)`).FindStringSubmatch(lccDevice)
		if m == nil || m[1] != strconv.Itoa(v) {
			t.Errorf("device %s %v, Go %d", name, m, v)
		}
	}
	if lccReplicas&(lccReplicas-1) != 0 {
		t.Errorf("lccReplicas %d: the device picks a copy with a mask", lccReplicas)
	}
}
