package mintag_test

import (
	"math/rand/v2"
	"testing"

	_ "github.com/hpgraph/hpgraph/cuda"
	"github.com/hpgraph/hpgraph/examples/internal/exref"
	"github.com/hpgraph/hpgraph/examples/mintag"
	"github.com/hpgraph/hpgraph/vertexprog"
	"github.com/hpgraph/hpgraph/vertexprog/vptest"
)

// reference labels the components by searching from each vertex not yet
// seen, over arcs taken either way, and gives each its smallest tag.
func reference(g *vertexprog.Graph, tags []int64) []int64 {
	n := g.N()
	adj := make([][]int32, n)
	exref.Arcs(g, func(u, v int32, _ float32) {
		adj[u] = append(adj[u], v)
		adj[v] = append(adj[v], u)
	})
	out := make([]int64, n)
	seen := make([]bool, n)
	for s := range int32(n) {
		if seen[s] {
			continue
		}
		seen[s] = true
		comp, low := []int32{s}, tags[s]
		for i := 0; i < len(comp); i++ {
			low = min(low, tags[comp[i]])
			for _, v := range adj[comp[i]] {
				if !seen[v] {
					seen[v] = true
					comp = append(comp, v)
				}
			}
		}
		for _, v := range comp {
			out[v] = low
		}
	}
	return out
}

func TestMinTag(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	for _, tg := range exref.Graphs(t) {
		t.Run(tg.Name, func(t *testing.T) {
			tags := make([]int64, tg.G.N())
			for v := range tags {
				tags[v] = rng.Int64N(1<<40) - 1<<39
			}
			want := reference(tg.G, tags)
			got, err := mintag.Run(tg.G, tags, vertexprog.Options{Backend: "cpu"})
			if err != nil {
				t.Fatal(err)
			}
			for v := range want {
				if got[v] != want[v] {
					t.Fatalf("vertex %d: %d, reference %d", v, got[v], want[v])
				}
			}
			// Every backend, the union-find path (direction auto) and
			// supersteps (push, pull) alike.
			all := vptest.Compare(t, tg.G, func() *mintag.Program { return &mintag.Program{Tags: tags} },
				func(_ *mintag.Program, r *vertexprog.Result[int64]) []int64 { return r.X },
				func(a, b int64) bool { return a == b })
			for v := range want {
				if all[v] != want[v] {
					t.Fatalf("vertex %d: %d on every backend, reference %d", v, all[v], want[v])
				}
			}
		})
	}
}

func TestWrongTags(t *testing.T) {
	g := exref.Graphs(t)[0].G
	if _, err := mintag.Run(g, make([]int64, g.N()+1), vertexprog.Options{Backend: "cpu"}); err == nil {
		t.Fatal("one tag too many accepted")
	}
}
