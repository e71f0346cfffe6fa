package pagerank_test

import (
	"testing"

	"github.com/hpgraph/hpgraph/apps/internal/apptest"
	"github.com/hpgraph/hpgraph/apps/pagerank"
	"github.com/hpgraph/hpgraph/apps/reference"
	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/vertexprog"
)

// float32Rel is how close float32 LDBC PageRank's ranks come to the
// float64 reference: the contributions are rounded to float32 (2^-24
// relative) every iteration.
const float32Rel = 1e-5

func TestPageRankMatchesReference(t *testing.T) {
	for _, tg := range apptest.Shapes(t, datasets.Options{}) {
		t.Run(tg.Name, func(t *testing.T) {
			want, iters := reference.PageRank(tg.G, 0.85, 1e-7, 200)
			wantL := reference.PageRankLDBC(tg.G, 0.85, 20)
			g := vertexprog.NewGraph(tg.G)
			for _, c := range apptest.PullConfigs() {
				r, err := pagerank.Run(g, 0.85, 1e-7, 200, c.Options)
				if err != nil {
					t.Fatalf("%s: %v", c.Name, err)
				}
				if r.Run.Iterations != iters {
					t.Errorf("%s: %d iterations, reference took %d", c.Name, r.Run.Iterations, iters)
				}
				l, err := pagerank.LDBC(g, 0.85, 20, c.Options)
				if err != nil {
					t.Fatalf("%s: %v", c.Name, err)
				}
				l32, err := pagerank.LDBCIn[float32](g, 0.85, 20, c.Options)
				if err != nil {
					t.Fatalf("%s: %v", c.Name, err)
				}
				for v := range want {
					if !apptest.CloseRel(r.Rank[v], want[v], 1e-9) {
						t.Fatalf("%s: rank[%d] = %v, want %v", c.Name, v, r.Rank[v], want[v])
					}
					if !apptest.CloseRel(l.Rank[v], wantL[v], 1e-9) {
						t.Fatalf("%s: ldbc rank[%d] = %v, want %v", c.Name, v, l.Rank[v], wantL[v])
					}
					if !apptest.CloseRel(l32.Rank[v], wantL[v], float32Rel) {
						t.Fatalf("%s: ldbc float32 rank[%d] = %v, want %v", c.Name, v, l32.Rank[v], wantL[v])
					}
				}
			}
		})
	}
}

// TestBadInput: a damping outside [0, 1] and a forced push (PageRank
// pulls) are refused.
func TestBadInput(t *testing.T) {
	el := &datasets.EdgeList{N: 3, Src: []int32{0, 1}, Dst: []int32{1, 2}, Directed: true}
	g := vertexprog.NewGraph(apptest.Build(t, el, datasets.Options{}))
	if _, err := pagerank.Run(g, 1.5, 0, 10, vertexprog.Options{}); err == nil {
		t.Error("damping 1.5 accepted")
	}
	if _, err := pagerank.Run(g, 0.85, 0, 10, vertexprog.Options{Direction: vertexprog.Push}); err == nil {
		t.Error("forced push of PageRank accepted")
	}
	if _, err := pagerank.Run(g, 0.85, 0, 10, vertexprog.Options{}); err != nil {
		t.Errorf("damping 0.85: %v", err)
	}
}

// TestLDBCUnderAnIterationLimit: the ranks are the limit's last
// superstep's where Options.MaxIterations stops the run before the
// program's iterations or runs it past them (UpdateList writes them in
// the last superstep only, Step.Left).
func TestLDBCUnderAnIterationLimit(t *testing.T) {
	for _, tg := range apptest.Shapes(t, datasets.Options{}) {
		g := vertexprog.NewGraph(tg.G)
		for _, limit := range []int{1, 3, 25} {
			want := reference.PageRankLDBC(tg.G, 0.85, limit)
			for _, c := range apptest.PullConfigs() {
				opt := c.Options
				opt.MaxIterations = limit
				l, err := pagerank.LDBC(g, 0.85, 20, opt)
				if err != nil {
					t.Fatalf("%s %s: %v", tg.Name, c.Name, err)
				}
				l32, err := pagerank.LDBCIn[float32](g, 0.85, 20, opt)
				if err != nil {
					t.Fatalf("%s %s: %v", tg.Name, c.Name, err)
				}
				if l.Run.Iterations != limit || l32.Run.Iterations != limit {
					t.Fatalf("%s %s: %d and %d iterations under a limit of %d", tg.Name, c.Name, l.Run.Iterations, l32.Run.Iterations, limit)
				}
				for v := range want {
					if !apptest.CloseRel(l.Rank[v], want[v], 1e-9) || !apptest.CloseRel(l32.Rank[v], want[v], float32Rel) {
						t.Fatalf("%s %s, limit %d: rank[%d] = %v (float32 %v), want %v", tg.Name, c.Name, limit, v, l.Rank[v], l32.Rank[v], want[v])
					}
				}
			}
		}
	}
}
