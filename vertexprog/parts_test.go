package vertexprog_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/datasets/gen"
	"github.com/hpgraph/hpgraph/vertexprog"
)

// levels is BFS's depths kept in the program's state, which Wants reads
// (a RowFilter whose answers the CPU engine keeps in bits), with an early
// exit: what apps/bfs is, without its list forms.
type levels struct {
	src   int32
	depth []int32
}

func (l *levels) Spec() vertexprog.Spec {
	return vertexprog.Spec{Edges: vertexprog.InEdges, Sparse: true}
}
func (l *levels) Init(v int32, _ *vertexprog.Step) (uint32, bool) {
	if v == l.src {
		l.depth[v] = 0
		return 1, true
	}
	l.depth[v] = -1
	return 0, false
}
func (*levels) Identity() uint32                                          { return 0 }
func (*levels) Gather(acc uint32, _, _ int32, x uint32, _ float32) uint32 { return acc | x }
func (*levels) Reduce(a, b uint32) uint32                                 { return a | b }
func (*levels) Done(acc uint32) bool                                      { return acc != 0 }
func (l *levels) Wants(v int32) bool                                      { return l.depth[v] < 0 }
func (l *levels) Update(v int32, acc uint32, x *uint32, s *vertexprog.Step) bool {
	if acc == 0 || l.depth[v] >= 0 {
		return false
	}
	l.depth[v], *x = int32(s.Iteration+1), 1
	return true
}

// TestPartsRunTheWholeRunsSupersteps: a partitioned run on the CPU makes
// the supersteps of the whole-graph run, not only its answer: the same
// vertices active after each and the same direction chosen for each,
// which the chooser takes from the frontier's edges (counted in the whole
// graph's push degrees, which a part's push matrix does not hold) and
// the whole graph's entries.
func TestPartsRunTheWholeRunsSupersteps(t *testing.T) {
	el, err := gen.Kronecker(12, 16, gen.GAPSeed)
	if err != nil {
		t.Fatal(err)
	}
	for _, directed := range []bool{false, true} {
		el.Directed = directed
		d, err := datasets.Build(el, datasets.Options{})
		if err != nil {
			t.Fatal(err)
		}
		g := vertexprog.NewGraph(d)
		src := int32(0)
		for v := range int32(g.N()) {
			if g.OutDegree(v) > g.OutDegree(src) {
				src = v
			}
		}
		type run struct {
			x      []uint32
			depth  []int32
			active []int
			dirs   []vertexprog.Direction
		}
		runs := map[string]func(opt vertexprog.Options) (run, error){
			"reach": func(opt vertexprog.Options) (run, error) {
				r, err := vertexprog.Run(g, vertexprog.Program[uint32, uint32](reach{src}), opt)
				if err != nil {
					return run{}, err
				}
				return run{x: r.X, active: r.Active, dirs: r.Directions}, nil
			},
			"levels": func(opt vertexprog.Options) (run, error) {
				l := &levels{src: src, depth: make([]int32, g.N())}
				r, err := vertexprog.Run(g, vertexprog.Program[uint32, uint32](l), opt)
				if err != nil {
					return run{}, err
				}
				return run{x: r.X, depth: l.depth, active: r.Active, dirs: r.Directions}, nil
			},
		}
		for name, answer := range runs {
			for _, rule := range []vertexprog.Rule{vertexprog.Beamer, vertexprog.GraphBLAST} {
				opt := vertexprog.Options{Backend: "cpu", Rule: rule}
				want, err := answer(opt)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Contains(want.dirs, vertexprog.Push) || !slices.Contains(want.dirs, vertexprog.Pull) {
					t.Fatalf("%s (directed %v, rule %d): the whole run's directions %v do not both push and pull", name, directed, rule, want.dirs)
				}
				for _, parts := range []int{2, 3} {
					what := fmt.Sprintf("%s in %d parts (directed %v, rule %d)", name, parts, directed, rule)
					opt.Parts = parts
					got, err := answer(opt)
					if err != nil {
						t.Fatalf("%s: %v", what, err)
					}
					if !slices.Equal(got.x, want.x) || !slices.Equal(got.depth, want.depth) {
						t.Errorf("%s: the answer differs from the whole run's", what)
					}
					if !slices.Equal(got.active, want.active) || !slices.Equal(got.dirs, want.dirs) {
						t.Errorf("%s: supersteps %v %v, the whole run's %v %v", what, got.active, got.dirs, want.active, want.dirs)
					}
				}
			}
		}
	}
}
