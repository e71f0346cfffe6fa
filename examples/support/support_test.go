package support_test

import (
	"testing"

	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/examples/internal/exref"
	"github.com/hpgraph/hpgraph/examples/support"
	"github.com/hpgraph/hpgraph/vertexprog"
	"github.com/hpgraph/hpgraph/vertexprog/vptest"
)

// reference counts, for every edge, the common neighbours of its ends in
// neighbour sets built from the arcs (loops dropped, each neighbour once),
// and keeps each vertex's largest count.
func reference(g *vertexprog.Graph) []int32 {
	n := g.N()
	nb := make([]map[int32]bool, n)
	for v := range nb {
		nb[v] = map[int32]bool{}
	}
	exref.Arcs(g, func(u, v int32, _ float32) {
		if u != v {
			nb[u][v] = true
			nb[v][u] = true
		}
	})
	out := make([]int32, n)
	for v := range n {
		for u := range nb[v] {
			c := int32(0)
			for w := range nb[v] {
				if nb[u][w] {
					c++
				}
			}
			out[v] = max(out[v], c)
		}
	}
	return out
}

func TestSupport(t *testing.T) {
	for _, tg := range exref.Graphs(t) {
		t.Run(tg.Name, func(t *testing.T) {
			want := reference(tg.G)
			got, err := support.Run(tg.G, vertexprog.Options{Backend: "cpu"})
			if err != nil {
				t.Fatal(err)
			}
			nonzero := 0
			for v := range want {
				if got[v] != want[v] {
					t.Fatalf("vertex %d: %d, reference %d", v, got[v], want[v])
				}
				if want[v] > 0 {
					nonzero++
				}
			}
			all := vptest.Compare(t, tg.G, func() *support.Program { return &support.Program{} },
				func(p *support.Program, _ *vertexprog.Result[struct{}]) []int32 { return p.Max },
				func(a, b int32) bool { return a == b })
			for v := range want {
				if all[v] != want[v] {
					t.Fatalf("vertex %d: %d on every backend, reference %d", v, all[v], want[v])
				}
			}
			t.Logf("%d of %d vertices on a triangle", nonzero, len(want))
		})
	}
}

// TestK4 checks the closed form: in the complete graph on k vertices
// every edge lies on k-2 triangles, and an extra pendant vertex on none;
// loops and parallel arcs change nothing.
func TestK4(t *testing.T) {
	el := &datasets.EdgeList{N: 5}
	for u := int32(0); u < 4; u++ {
		for v := u + 1; v < 4; v++ {
			el.Src, el.Dst = append(el.Src, u, v), append(el.Dst, v, u)
		}
	}
	el.Src, el.Dst = append(el.Src, 3, 4, 2), append(el.Dst, 4, 3, 2)
	d, err := datasets.Build(el, datasets.Options{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := support.Run(vertexprog.NewGraph(d), vertexprog.Options{Backend: "cpu"})
	if err != nil {
		t.Fatal(err)
	}
	want := []int32{2, 2, 2, 2, 0}
	for v := range want {
		if got[v] != want[v] {
			t.Fatalf("vertex %d: %d, want %d (all %v)", v, got[v], want[v], got)
		}
	}
}
