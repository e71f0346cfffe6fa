package tc_test

import (
	"testing"

	"github.com/hpgraph/hpgraph/apps/internal/apptest"
	"github.com/hpgraph/hpgraph/apps/reference"
	"github.com/hpgraph/hpgraph/apps/tc"
	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/vertexprog"
)

func TestTrianglesMatchReference(t *testing.T) {
	for _, tg := range apptest.Shapes(t, datasets.Options{}) {
		t.Run(tg.Name, func(t *testing.T) {
			total, per := reference.Triangles(tg.G)
			g := vertexprog.NewGraph(tg.G)
			for _, c := range apptest.PullConfigs() {
				r, err := tc.Run(g, false, c.Options)
				if err != nil {
					t.Fatalf("%s: %v", c.Name, err)
				}
				if r.Total != total {
					t.Fatalf("%s: %d triangles, want %d", c.Name, r.Total, total)
				}
			}
			r, err := tc.Run(g, true, vertexprog.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if r.Total != total {
				t.Fatalf("per-vertex run: %d triangles, want %d", r.Total, total)
			}
			for v := range per {
				if r.PerVertex[v] != per[v] {
					t.Fatalf("vertex %d in %d triangles, want %d", v, r.PerVertex[v], per[v])
				}
			}
		})
	}
}

func TestTrianglesOfCompleteGraphs(t *testing.T) {
	for n := 3; n <= 12; n++ {
		el := &datasets.EdgeList{N: n, Directed: true}
		for u := 0; u < n; u++ {
			for v := 0; v < n; v++ {
				if u != v {
					el.Src, el.Dst = append(el.Src, int32(u)), append(el.Dst, int32(v))
				}
			}
		}
		g := vertexprog.NewGraph(apptest.Build(t, el, datasets.Options{}))
		r, err := tc.Run(g, false, vertexprog.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if want := int64(n * (n - 1) * (n - 2) / 6); r.Total != want {
			t.Errorf("K_%d: %d triangles, want C(%d,3) = %d", n, r.Total, n, want)
		}
	}
}
