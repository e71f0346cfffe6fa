package bfs

import (
	"testing"
	"unsafe"

	"github.com/hpgraph/hpgraph/apps/internal/apptest"
	"github.com/hpgraph/hpgraph/vertexprog"
)

// TestDeviceCode: the generated device code names the program's own
// state, the source as a per-run input, and vp_init.
func TestDeviceCode(t *testing.T) {
	g := apptest.DeviceGraph(t)
	p := &Program{Source: 1}
	apptest.Prepare(t, g, p)
	code := p.Device()
	src, _ := code.Arrays[2].Data.([]int32) // (a per-run input: a new one-element array, generated)
	apptest.CheckDeviceCode(t, "bfs", code, []apptest.Array{{"Depth", p.Depth, false}, {"Parent", p.Parent, false}, {"Source", src, true}}, nil)
	if len(src) != 1 || src[0] != 1 || !code.Init {
		t.Errorf("bfs source array %v, want [1]; vp_init %v", src, code.Init)
	}
	if len(p.Depth) != g.N() {
		t.Fatalf("bfs depth has %d entries", len(p.Depth))
	}
	_ = vertexprog.Program[struct{}, int32](p)
	var _ vertexprog.DeviceProgram = p
	apptest.TypeSizes(t, "bfs", programDeviceSource, unsafe.Sizeof(struct{}{}), unsafe.Sizeof(int32(0)))
}
