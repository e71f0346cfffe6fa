package vptest_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/vertexprog"
	"github.com/hpgraph/hpgraph/vertexprog/vptest"
)

// hops is a user's program: the fewest arcs from src to each vertex
// (math.MaxInt32: unreached).
type hops struct{ src int32 }

func (hops) Spec() vertexprog.Spec {
	return vertexprog.Spec{Edges: vertexprog.InEdges, Sparse: true, Idempotent: true}
}
func (p hops) Init(v int32, _ *vertexprog.Step) (int32, bool) {
	if v == p.src {
		return 0, true
	}
	return math.MaxInt32, false
}
func (hops) Identity() int32 { return math.MaxInt32 }
func (hops) Gather(acc int32, _, _ int32, xu int32, _ float32) int32 {
	if xu == math.MaxInt32 {
		return acc
	}
	return min(acc, xu+1)
}
func (hops) Reduce(a, b int32) int32 { return min(a, b) }
func (hops) Update(_ int32, acc int32, x *int32, _ *vertexprog.Step) bool {
	if acc < *x {
		*x = acc
		return true
	}
	return false
}

// bellmanFord is an independent reference: every arc relaxed until
// nothing changes, over the graph's own arrays.
func bellmanFord(g *vertexprog.Graph, src int32) []int32 {
	d := g.Dataset()
	dist := make([]int32, d.N)
	for v := range dist {
		dist[v] = math.MaxInt32
	}
	dist[src] = 0
	for changed := true; changed; {
		changed = false
		for u := int32(0); int(u) < d.N; u++ {
			for _, v := range d.Neighbors(u) {
				if dist[u] != math.MaxInt32 && dist[u]+1 < dist[v] {
					dist[v], changed = dist[u]+1, true
				}
			}
		}
	}
	return dist
}

func check(newProgram func(g *vertexprog.Graph) hops, reference func(g *vertexprog.Graph) ([]int32, error)) error {
	graphs, err := vptest.NewGraphs(datasets.Options{})
	if err != nil {
		return err
	}
	return vptest.CheckAgainst(graphs, newProgram,
		func(_ hops, r *vertexprog.Result[int32]) []int32 { return r.X },
		reference, func(a, b int32) bool { return a == b })
}

// A program checked against a reference of the user's, on every backend,
// direction and HYB split, on graphs of the shapes that break graph code,
// without a testing.T (a command could run this before a long job).
func ExampleCheckAgainst() {
	err := check(func(*vertexprog.Graph) hops { return hops{src: 0} },
		func(g *vertexprog.Graph) ([]int32, error) { return bellmanFord(g, 0), nil })
	fmt.Println("hops agrees with Bellman-Ford:", err == nil)
	// Output: hops agrees with Bellman-Ford: true
}

// CheckAgainst finds a program that differs from the reference (here a
// reference from another source) and names the graph, the run and the
// vertex; a reference's error is its own.
func TestCheckAgainstFindsDifferences(t *testing.T) {
	err := check(func(*vertexprog.Graph) hops { return hops{src: 0} },
		func(g *vertexprog.Graph) ([]int32, error) { return bellmanFord(g, 1), nil })
	if err == nil || !strings.Contains(err.Error(), "the reference gave") || !strings.HasPrefix(err.Error(), "kron9: ") {
		t.Fatalf("a program from source 0 against a reference from 1: %v", err)
	}
	err = check(func(*vertexprog.Graph) hops { return hops{src: 0} },
		func(g *vertexprog.Graph) ([]int32, error) { return nil, fmt.Errorf("no reference") })
	if err == nil || !strings.Contains(err.Error(), "reference: no reference") {
		t.Fatalf("a reference's error: %v", err)
	}
	err = check(func(g *vertexprog.Graph) hops { return hops{src: int32(g.N())} },
		func(g *vertexprog.Graph) ([]int32, error) { return bellmanFord(g, 0), nil })
	if err == nil {
		t.Fatal("a program that reaches nothing (its source no vertex) passed")
	}
}
