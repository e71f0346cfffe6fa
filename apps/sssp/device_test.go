package sssp

import (
	"strings"
	"testing"
	"unsafe"

	"github.com/hpgraph/hpgraph/apps/internal/apptest"
)

// TestDeviceCode: the generated device code takes the source as a
// per-run input, and has what the hand-written code had: delta-stepping's
// priority, and the fold by one signed atomicMin on the bits of
// distances >= 0.
func TestDeviceCode(t *testing.T) {
	g := apptest.DeviceGraph(t)
	p := &Program{Source: 2, Delta: 4}
	apptest.Prepare(t, g, p)
	code := p.Device()
	src, _ := code.Arrays[0].Data.([]int32) // (a per-run input, as BFS's)
	apptest.CheckDeviceCode(t, "sssp", code, []apptest.Array{{"Source", src, true}}, nil)
	if len(src) != 1 || src[0] != 2 || !code.Init {
		t.Errorf("sssp source array %v, want [2]; vp_init %v", src, code.Init)
	}
	for _, w := range []string{"__device__ float vp_priority(int vp_arg0, X_t d, const State& vp_s) {\n  return d;\n}",
		"#define VP_FOLD_ATOMIC 1", "atomicMin(reinterpret_cast<int*>(vp_y), vp_c)"} {
		if !strings.Contains(code.Source, w) {
			t.Errorf("sssp: device source lacks %q:\n%s", w, code.Source)
		}
	}
	apptest.TypeSizes(t, "sssp", programDeviceSource, unsafe.Sizeof(float32(0)), unsafe.Sizeof(float32(0)))
}
