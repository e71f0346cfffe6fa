package reach_test

import (
	"testing"

	_ "github.com/hpgraph/hpgraph/cuda"
	"github.com/hpgraph/hpgraph/examples/internal/exref"
	"github.com/hpgraph/hpgraph/examples/reach"
	"github.com/hpgraph/hpgraph/vertexprog"
	"github.com/hpgraph/hpgraph/vertexprog/vptest"
)

// reference searches from each source in turn over out-arcs.
func reference(g *vertexprog.Graph, sources []int32) []int32 {
	out := make([]int32, g.N())
	adj := make([][]int32, g.N())
	exref.Arcs(g, func(u, v int32, _ float32) { adj[u] = append(adj[u], v) })
	for _, s := range sources {
		seen := make([]bool, g.N())
		seen[s] = true
		stack := []int32{s}
		for len(stack) > 0 {
			u := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			out[u]++
			for _, v := range adj[u] {
				if !seen[v] {
					seen[v] = true
					stack = append(stack, v)
				}
			}
		}
	}
	return out
}

func TestReach(t *testing.T) {
	for _, tg := range exref.Graphs(t) {
		t.Run(tg.Name, func(t *testing.T) {
			var sources []int32
			for i := 0; i < 32 && i*7 < tg.G.N(); i++ {
				sources = append(sources, int32(i*7))
			}
			got, err := reach.Run(tg.G, sources, vertexprog.Options{Backend: "cpu"})
			if err != nil {
				t.Fatal(err)
			}
			want := reference(tg.G, sources)
			for v := range want {
				if got[v] != want[v] {
					t.Fatalf("vertex %d: reached by %d sources, reference %d", v, got[v], want[v])
				}
			}
			all := vptest.Compare(t, tg.G, func() *reach.Program { return &reach.Program{Sources: sources} },
				func(p *reach.Program, _ *vertexprog.Result[uint32]) []int32 { return p.Count },
				func(a, b int32) bool { return a == b })
			for v := range want {
				if all[v] != want[v] {
					t.Fatalf("vertex %d: %d on every backend, reference %d", v, all[v], want[v])
				}
			}
		})
	}
}

func TestTooManySources(t *testing.T) {
	g := exref.Graphs(t)[0].G
	if _, err := reach.Run(g, make([]int32, 33), vertexprog.Options{Backend: "cpu"}); err == nil {
		t.Fatal("33 sources accepted")
	}
}
