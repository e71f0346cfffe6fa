package widest_test

import (
	"math"
	"testing"

	// The GPU backend joins vptest's configurations where it is available.
	_ "github.com/hpgraph/hpgraph/cuda"
	"github.com/hpgraph/hpgraph/examples/internal/exref"
	"github.com/hpgraph/hpgraph/examples/widest"
	"github.com/hpgraph/hpgraph/vertexprog"
	"github.com/hpgraph/hpgraph/vertexprog/vptest"
)

// reference relaxes every arc until nothing changes (Bellman-Ford on the
// (max, min) semiring).
func reference(g *vertexprog.Graph, src int32) []float32 {
	w := make([]float32, g.N())
	w[src] = float32(math.Inf(1))
	for changed := true; changed; {
		changed = false
		exref.Arcs(g, func(u, v int32, wt float32) {
			if c := min(w[u], wt); c > w[v] {
				w[v], changed = c, true
			}
		})
	}
	return w
}

func TestWidest(t *testing.T) {
	for _, tg := range exref.Graphs(t) {
		t.Run(tg.Name, func(t *testing.T) {
			got, err := widest.Run(tg.G, 0, vertexprog.Options{Backend: "cpu"})
			if err != nil {
				t.Fatal(err)
			}
			want := reference(tg.G, 0)
			for v := range want {
				if got[v] != want[v] {
					t.Fatalf("vertex %d: width %v, reference %v", v, got[v], want[v])
				}
			}
			all := vptest.Compare(t, tg.G, func() widest.Program { return widest.Program{Src: 0} },
				func(_ widest.Program, r *vertexprog.Result[float32]) []float32 { return r.X },
				func(a, b float32) bool { return a == b })
			for v := range want {
				if all[v] != want[v] {
					t.Fatalf("vertex %d: width %v on every backend, reference %v", v, all[v], want[v])
				}
			}
		})
	}
}

func TestDevice(t *testing.T) {
	var p vertexprog.Program[float32, float32] = widest.Program{}
	if _, ok := p.(vertexprog.DeviceProgram); !ok {
		t.Fatal("widest.Program has no generated Device method")
	}
}
