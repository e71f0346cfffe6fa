package khop_test

import (
	"testing"

	_ "github.com/hpgraph/hpgraph/cuda"
	"github.com/hpgraph/hpgraph/examples/internal/exref"
	"github.com/hpgraph/hpgraph/examples/khop"
	"github.com/hpgraph/hpgraph/vertexprog"
	"github.com/hpgraph/hpgraph/vertexprog/vptest"
)

// reference is a breadth-first search over out-arcs cut at k levels.
func reference(g *vertexprog.Graph, src, k int32) ([]int32, int) {
	adj := make([][]int32, g.N())
	exref.Arcs(g, func(u, v int32, _ float32) { adj[u] = append(adj[u], v) })
	d := make([]int32, g.N())
	for i := range d {
		d[i] = -1
	}
	d[src] = 0
	n := 1
	for level, front := int32(0), []int32{src}; level < k && len(front) > 0; level++ {
		var next []int32
		for _, u := range front {
			for _, v := range adj[u] {
				if d[v] < 0 {
					d[v] = level + 1
					n++
					next = append(next, v)
				}
			}
		}
		front = next
	}
	return d, n
}

func TestKHop(t *testing.T) {
	for _, tg := range exref.Graphs(t) {
		for _, k := range []int32{0, 1, 3, 1000} {
			got, n, err := khop.Run(tg.G, 1, k, vertexprog.Options{Backend: "cpu"})
			if err != nil {
				t.Fatal(err)
			}
			want, wn := reference(tg.G, 1, k)
			if n != wn {
				t.Fatalf("%s k=%d: %d vertices, reference %d", tg.Name, k, n, wn)
			}
			for v := range want {
				if got[v] != want[v] {
					t.Fatalf("%s k=%d: vertex %d at %d hops, reference %d", tg.Name, k, v, got[v], want[v])
				}
			}
			if k != 3 {
				continue
			}
			all := vptest.Compare(t, tg.G, func() khop.Program { return khop.Program{Src: 1, K: k} },
				func(_ khop.Program, r *vertexprog.Result[int32]) []int32 { return r.X },
				func(a, b int32) bool { return a == b })
			for v := range want {
				if (all[v] == khop.Far) != (want[v] < 0) || want[v] >= 0 && all[v] != want[v] {
					t.Fatalf("%s: vertex %d at %d on every backend, reference %d", tg.Name, v, all[v], want[v])
				}
			}
		}
	}
}
