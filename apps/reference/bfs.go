package reference

import (
	"fmt"

	"gonum.org/v1/gonum/graph"
	"gonum.org/v1/gonum/graph/traverse"

	"github.com/hpgraph/hpgraph/datasets"
)

// BFS returns the depth of every vertex in a breadth-first search from src
// over out-edges (an undirected graph stores both directions): 0 at src,
// -1 where src does not reach. The depths are gonum's traverse.BreadthFirst
// levels.
func BFS(g *datasets.Graph, src int32) ([]int32, error) {
	if err := checkSource(g, src); err != nil {
		return nil, err
	}
	depth := make([]int32, g.N)
	for v := range depth {
		depth[v] = -1
	}
	view := NewDirected(g)
	var bf traverse.BreadthFirst
	bf.Walk(view, view.Node(int64(src)), func(n graph.Node, d int) bool {
		depth[n.ID()] = int32(d)
		return false // visit everything reachable
	})
	return depth, nil
}

// ValidateBFS checks an engine's BFS output from src. depth must equal the
// reference depths. parent (nil to check depths only) must satisfy the GAP
// verifier's rule: parent[src] == src; parent[v] == -1 exactly when v is
// unreachable; otherwise parent[v] is an in-neighbour of v (the arc
// parent[v] -> v exists) with depth[parent[v]] == depth[v]-1. Any parent
// tree meeting the rule is accepted, since ties make BFS trees non-unique.
// The error names the first vertex that breaks a rule.
func ValidateBFS(g *datasets.Graph, src int32, depth, parent []int32) error {
	want, err := BFS(g, src)
	if err != nil {
		return err
	}
	if len(depth) != g.N {
		return fmt.Errorf("bfs: %d depths for %d vertices", len(depth), g.N)
	}
	for v := range want {
		if depth[v] != want[v] {
			return fmt.Errorf("bfs from %s: %s has depth %d, want %d",
				vertexName(g, src), vertexName(g, int32(v)), depth[v], want[v])
		}
	}
	if parent == nil {
		return nil
	}
	if len(parent) != g.N {
		return fmt.Errorf("bfs: %d parents for %d vertices", len(parent), g.N)
	}
	view := NewDirected(g)
	for i, p := range parent {
		v := int32(i)
		var problem string
		switch {
		case v == src:
			if p != src {
				problem = "is the source but its parent is not itself"
			}
		case want[v] < 0:
			if p != -1 {
				problem = "is unreachable but has a parent"
			}
		case p < 0 || int(p) >= g.N:
			problem = "is reachable but its parent is not a vertex"
		case !view.HasEdgeFromTo(int64(p), int64(v)):
			problem = "has a parent that is not an in-neighbour"
		case want[p] != want[v]-1:
			problem = fmt.Sprintf("has a parent at depth %d, want %d", want[p], want[v]-1)
		}
		if problem != "" {
			return fmt.Errorf("bfs from %s: %s (depth %d, parent %d) %s",
				vertexName(g, src), vertexName(g, v), want[v], p, problem)
		}
	}
	return nil
}

// checkSource rejects a source vertex outside the graph.
func checkSource(g *datasets.Graph, src int32) error {
	if src < 0 || int(src) >= g.N {
		return fmt.Errorf("source vertex %d is out of range [0, %d) of graph %q", src, g.N, g.Name)
	}
	return nil
}

// vertexName names v by index and by the id it had in the input, which is
// what a user looking at the file recognizes.
func vertexName(g *datasets.Graph, v int32) string {
	return fmt.Sprintf("vertex %d (input id %d)", v, g.OriginalID(v))
}
