package vertexprog_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/vertexprog"
)

// TestOrientation checks Graph.Orientation's lists against their
// definition, computed plainly per vertex: directed and undirected random
// graphs with self loops, parallel arcs and a hub, oriented and All.
func TestOrientation(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, directed := range []bool{false, true} {
		for _, dups := range []bool{false, true} {
			n := 300
			el := &datasets.EdgeList{N: n, Directed: directed}
			for range 3000 {
				u, v := int32(rng.IntN(n)), int32(rng.IntN(n))
				if rng.IntN(3) == 0 {
					u = 7 // a hub
				}
				el.Src, el.Dst = append(el.Src, u), append(el.Dst, v)
			}
			el.Src, el.Dst = append(el.Src, 5, 5), append(el.Dst, 5, 5) // loops
			d, err := datasets.Build(el, datasets.Options{KeepSelfLoops: true, KeepDuplicates: dups})
			if err != nil {
				t.Fatal(err)
			}
			g := vertexprog.NewGraph(d)
			for _, all := range []bool{false, true} {
				t.Run(fmt.Sprintf("directed=%v/dups=%v/all=%v", directed, dups, all), func(t *testing.T) {
					o := g.Orientation(all)
					if o != g.Orientation(all) {
						t.Fatal("Orientation is not one per graph")
					}
					o.Build()
					deg := make([]int32, n)
					for v := range int32(n) {
						for _, u := range g.Neighbors(v) {
							if u != v {
								deg[v]++
							}
						}
					}
					if !slices.Equal(deg, o.Deg) {
						t.Fatalf("Deg %v, want %v", o.Deg, deg)
					}
					if o.Off[0] != 0 || len(o.Off) != n+1 || int64(len(o.Adj)) != o.Off[n] {
						t.Fatalf("Off[0] %d, %d offsets, Adj %d long, Off[N] %d", o.Off[0], len(o.Off), len(o.Adj), o.Off[n])
					}
					for v := range int32(n) {
						var want []int32
						for _, u := range g.Neighbors(v) {
							if u != v && (all || deg[v] < deg[u] || deg[v] == deg[u] && v < u) {
								want = append(want, u)
							}
						}
						if !slices.Equal(o.List(v), want) {
							t.Fatalf("vertex %d: list %v, want %v", v, o.List(v), want)
						}
						if o.Off[v]%vertexprog.OrientationBlock != 0 {
							t.Fatalf("vertex %d: list at %d", v, o.Off[v])
						}
						span := o.Off[v+1] - o.Off[v]
						if span != (int64(len(want))+vertexprog.OrientationBlock-1)/vertexprog.OrientationBlock*vertexprog.OrientationBlock {
							t.Fatalf("vertex %d: %d entries for a list of %d", v, span, len(want))
						}
						for _, x := range o.Adj[o.Off[v]+int64(len(want)) : o.Off[v+1]] {
							if x != vertexprog.OrientationPad {
								t.Fatalf("vertex %d: padding %d", v, x)
							}
						}
					}
				})
			}
		}
	}
}
