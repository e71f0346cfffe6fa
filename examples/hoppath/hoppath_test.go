package hoppath_test

import (
	"math"
	"testing"

	_ "github.com/hpgraph/hpgraph/cuda"
	"github.com/hpgraph/hpgraph/examples/hoppath"
	"github.com/hpgraph/hpgraph/examples/internal/exref"
	"github.com/hpgraph/hpgraph/vertexprog"
	"github.com/hpgraph/hpgraph/vertexprog/vptest"
)

func less(a, b hoppath.Path) bool { return a.Dist < b.Dist || a.Dist == b.Dist && a.Hops < b.Hops }

// reference relaxes every arc with the lexicographic order until nothing
// changes (Bellman-Ford).
func reference(g *vertexprog.Graph, src int32) []hoppath.Path {
	p := make([]hoppath.Path, g.N())
	for i := range p {
		p[i] = hoppath.Path{Dist: float32(math.Inf(1))}
	}
	p[src] = hoppath.Path{}
	for changed := true; changed; {
		changed = false
		exref.Arcs(g, func(u, v int32, w float32) {
			if math.IsInf(float64(p[u].Dist), 1) {
				return
			}
			if c := (hoppath.Path{Dist: p[u].Dist + w, Hops: p[u].Hops + 1}); less(c, p[v]) {
				p[v], changed = c, true
			}
		})
	}
	return p
}

func TestHopPath(t *testing.T) {
	for _, tg := range exref.Graphs(t) {
		t.Run(tg.Name, func(t *testing.T) {
			got, err := hoppath.Run(tg.G, 2, vertexprog.Options{Backend: "cpu"})
			if err != nil {
				t.Fatal(err)
			}
			want := reference(tg.G, 2)
			for v := range want {
				if got[v] != want[v] {
					t.Fatalf("vertex %d: %+v, reference %+v", v, got[v], want[v])
				}
			}
			vptest.Compare(t, tg.G, func() hoppath.Program { return hoppath.Program{Src: 2, MaxHops: 1 << 30} },
				func(_ hoppath.Program, r *vertexprog.Result[hoppath.Path]) []hoppath.Path { return r.X },
				func(a, b hoppath.Path) bool { return a == b })
		})
	}
}
