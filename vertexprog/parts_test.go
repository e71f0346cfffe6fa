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
	manyWorkers(t) // (a run that pushes and pulls)
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

// inSum sums its neighbours' values over edges e, every vertex every
// superstep: a dense exchange's program.
type inSum struct{ e vertexprog.EdgeType }

func (s inSum) Spec() vertexprog.Spec {
	return vertexprog.Spec{Edges: s.e, GatherAll: true, MaxIterations: 6}
}
func (inSum) Init(v int32, _ *vertexprog.Step) (float64, bool)             { return 1 / float64(v+2), true }
func (inSum) Identity() float64                                            { return 0 }
func (inSum) Gather(acc float64, _, _ int32, x float64, _ float32) float64 { return acc + x }
func (inSum) Reduce(a, b float64) float64                                  { return a + b }
func (inSum) Update(v int32, acc float64, x *float64, _ *vertexprog.Step) bool {
	*x = 0.5*acc + 1/float64(v+1)
	return true
}

// TestDenseExchangeSendsWhatIsRead: a part's dense exchange sends only
// its vertices up to the last that has an arc the other parts' pulls
// read (driver.Part.Arcs), and the answers stay the whole run's. The
// graph is directed; in each block of 1,000 vertices the last 300 have
// in-arcs but no out-arcs, and some of those no arcs at all, so a part
// that ends in such a run sends less over in-edges (whose pulls read
// sources) and its whole range over out-edges (whose pulls read targets:
// not known from the row offsets).
func TestDenseExchangeSendsWhatIsRead(t *testing.T) {
	const n = 4000
	el := datasets.EdgeList{N: n, Directed: true}
	for v := range int32(n) {
		if v%1000 >= 700 {
			continue
		}
		for k := range int32(6) {
			u := (v*7919 + k*104729) % n
			if u%1000 >= 950 {
				u -= 100 // (vertices 950..999 of a block: no arc at all)
			}
			el.Src, el.Dst = append(el.Src, v), append(el.Dst, u)
		}
	}
	d, err := datasets.Build(&el, datasets.Options{})
	if err != nil {
		t.Fatal(err)
	}
	g := vertexprog.NewGraph(d)
	for _, e := range []vertexprog.EdgeType{vertexprog.InEdges, vertexprog.OutEdges} {
		want, err := vertexprog.Run(g, vertexprog.Program[float64, float64](inSum{e}), vertexprog.Options{Backend: "cpu"})
		if err != nil {
			t.Fatal(err)
		}
		for _, parts := range []int{2, 3, 4} {
			got, err := vertexprog.Run(g, vertexprog.Program[float64, float64](inSum{e}), vertexprog.Options{Backend: "cpu", Parts: parts})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got.X, want.X) {
				t.Fatalf("%v in %d parts: the values differ from the whole run's", e, parts)
			}
			// (a whole range a part a superstep into every other part:
			// its values and frontier words, and a message's header)
			var sent, whole int64
			for _, p := range got.Parts {
				sent += p.ExchangeBytes
				for _, o := range got.Parts {
					if o.Index != p.Index {
						whole += int64(got.Iterations) * (int64(o.Hi-o.Lo)*8 + int64(o.Hi-o.Lo+31)/32*4 + 9)
					}
				}
			}
			if e == vertexprog.InEdges && sent >= whole || e == vertexprog.OutEdges && sent != whole {
				t.Errorf("%v in %d parts: %d bytes exchanged, %d in whole ranges", e, parts, sent, whole)
			}
		}
	}
}
