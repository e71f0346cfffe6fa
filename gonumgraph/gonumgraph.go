// Package gonumgraph connects hpgraph to gonum's graphs
// (gonum.org/v1/gonum/graph): FromGonum turns any graph.Graph, directed
// or undirected, weighted or not, into a *vertexprog.Graph whose vertices
// keep the node ids as their original ids, and ToGonum turns a graph back
// into one of gonum's simple graphs. The helpers (BFS, ShortestPaths,
// ConnectedComponents, PageRank, Triangles, Run) convert a gonum graph,
// run an algorithm or a program of your own on it, and answer keyed by
// node id.
//
// Each helper converts the graph anew. To run several algorithms on one
// graph, convert it once with FromGonum and use apps' id-based entry
// points (bfs.From, sssp.From, cc.RunByID) and
// vertexprog.ByID, which answer in the same node ids.
//
// Misuse is an error, never a panic: a nil graph, a source that is not a
// node, a weight that is not a float32-sized number, a negative weight
// for shortest paths.
package gonumgraph

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"

	"gonum.org/v1/gonum/graph"
	"gonum.org/v1/gonum/graph/simple"

	"github.com/hpgraph/hpgraph/apps/bfs"
	"github.com/hpgraph/hpgraph/apps/cc"
	"github.com/hpgraph/hpgraph/apps/pagerank"
	"github.com/hpgraph/hpgraph/apps/sssp"
	"github.com/hpgraph/hpgraph/apps/tc"
	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/vertexprog"
)

// ErrNilGraph is returned for a nil graph, gonum's or hpgraph's.
var ErrNilGraph = errors.New("gonumgraph: nil graph")

// Options are FromGonum's choices. The zero value converts the graph as
// it is: direction from its type, weights when it is a graph.Weighted,
// self loops kept, vertices in increasing order of node id.
type Options struct {
	// Unweighted ignores the weights of a graph.Weighted.
	Unweighted bool
	// DropSelfLoops drops (v, v) edges, as loading a file does by default.
	DropSelfLoops bool
	// Relabel renumbers the vertices inside hpgraph (datasets.Relabeling;
	// datasets.RelabelDegree speeds skewed graphs up). Node ids, and every
	// result keyed by them, do not change.
	Relabel datasets.Relabeling
	// Name names the graph in errors and statistics.
	Name string
}

// isNil reports a nil interface or an interface holding a nil pointer,
// map, slice, function or channel, whose methods would panic.
func isNil(g any) bool {
	if g == nil {
		return true
	}
	switch v := reflect.ValueOf(g); v.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Func, reflect.Chan, reflect.Interface:
		return v.IsNil()
	}
	return false
}

// FromGonum converts g. A graph.Directed becomes a directed graph whose
// arcs are those From lists; a graph.Undirected an undirected one; any
// other graph.Graph is read as directed, through From. Weights are those
// graph.Weighted's Weight gives each edge (stored as float32: a weight
// beyond float32's range, infinite or NaN is an error), unless
// opt.Unweighted or g is not weighted. Vertex v of the result is the node
// of the v-th smallest id (unless opt.Relabel renumbers them), and its
// original id (vertexprog.Graph.ID, Vertex) is the node's id.
//
// A graph with no nodes is an error wrapping datasets.ErrEmptyGraph.
func FromGonum(g graph.Graph, opt Options) (*vertexprog.Graph, error) {
	if isNil(g) {
		return nil, ErrNilGraph
	}
	name := opt.Name
	if name == "" {
		name = "gonum graph"
	}
	it := g.Nodes()
	if isNil(it) {
		return nil, fmt.Errorf("gonumgraph: %s: Nodes returned nil", name)
	}
	var ids []int64
	for it.Next() {
		nd := it.Node()
		if isNil(nd) {
			return nil, fmt.Errorf("gonumgraph: %s: Nodes returned a nil node", name)
		}
		ids = append(ids, nd.ID())
	}
	if len(ids) == 0 {
		return nil, fmt.Errorf("gonumgraph: %s: %w", name, datasets.ErrEmptyGraph)
	}
	if len(ids) > math.MaxInt32 {
		return nil, fmt.Errorf("gonumgraph: %s: %d nodes, at most %d are supported", name, len(ids), math.MaxInt32)
	}
	slices.Sort(ids)
	for i := 1; i < len(ids); i++ {
		if ids[i] == ids[i-1] {
			return nil, fmt.Errorf("gonumgraph: %s: Nodes lists id %d twice", name, ids[i])
		}
	}
	n := len(ids)
	contiguous := ids[n-1]-ids[0] == int64(n-1)
	index := func(id int64) (int32, bool) {
		if contiguous {
			if v := id - ids[0]; id >= ids[0] && v >= 0 && v < int64(n) {
				return int32(v), true
			}
			return -1, false
		}
		i, ok := slices.BinarySearch(ids, id)
		return int32(i), ok
	}

	directed := true
	if _, ok := g.(graph.Directed); !ok {
		if _, ok := g.(graph.Undirected); ok {
			directed = false
		}
	}
	wg, weighted := g.(graph.Weighted)
	weighted = weighted && !opt.Unweighted

	el := &datasets.EdgeList{N: n, Directed: directed, Name: name}
	for u, uid := range ids {
		nb := g.From(uid)
		if isNil(nb) {
			continue
		}
		for nb.Next() {
			nd := nb.Node()
			if isNil(nd) {
				return nil, fmt.Errorf("gonumgraph: %s: From(%d) returned a nil node", name, uid)
			}
			vid := nd.ID()
			v, ok := index(vid)
			if !ok {
				return nil, fmt.Errorf("gonumgraph: %s: edge %d -> %d leads to a node Nodes does not list", name, uid, vid)
			}
			if !directed && v < int32(u) {
				continue // an undirected edge is listed from both ends; take it once
			}
			el.Src = append(el.Src, int32(u))
			el.Dst = append(el.Dst, v)
			if !weighted {
				continue
			}
			w, ok := wg.Weight(uid, vid)
			if !ok {
				return nil, fmt.Errorf("gonumgraph: %s: edge %d -> %d has no weight", name, uid, vid)
			}
			if math.IsNaN(w) || math.Abs(w) > math.MaxFloat32 {
				return nil, fmt.Errorf("gonumgraph: %s: edge %d -> %d has weight %v, which is no finite float32", name, uid, vid, w)
			}
			el.W = append(el.W, float32(w))
		}
	}
	if weighted && el.W == nil {
		el.W = []float32{} // weighted, with no edges
	}
	if contiguous {
		el.IDBase = ids[0]
	} else {
		el.IDs = ids
	}
	d, err := datasets.Build(el, datasets.Options{KeepSelfLoops: !opt.DropSelfLoops, Relabel: opt.Relabel})
	if err != nil {
		return nil, fmt.Errorf("gonumgraph: %w", err)
	}
	return vertexprog.NewGraph(d), nil
}

// ToGonum converts g into one of gonum's simple graphs, whose node ids are
// g's original ids (vertexprog.Graph.ID): a *simple.DirectedGraph,
// *simple.UndirectedGraph, *simple.WeightedDirectedGraph or
// *simple.WeightedUndirectedGraph as g is directed and weighted. A
// weighted graph's absent edges weigh +Inf and a node's weight to itself
// is 0 (simple.NewWeightedDirectedGraph(0, math.Inf(1))), as gonum's path
// algorithms expect. Parallel arcs become one edge, of the smallest
// weight. Simple graphs hold no self loops: a graph with one is an error
// (load it without --keep-loops, or FromGonum it with DropSelfLoops).
func ToGonum(g *vertexprog.Graph) (graph.Graph, error) {
	if g == nil || g.Dataset() == nil {
		return nil, ErrNilGraph
	}
	d := g.Dataset()
	type builder interface {
		graph.Graph
		AddNode(graph.Node)
	}
	var out builder
	// set adds the arc u -> v of weight w (w unused when unweighted),
	// keeping the lighter of parallel arcs.
	var set func(u, v graph.Node, w float64)
	switch {
	case d.Directed && d.W != nil:
		wg := simple.NewWeightedDirectedGraph(0, math.Inf(1))
		out, set = wg, func(u, v graph.Node, w float64) {
			if old, ok := wg.Weight(u.ID(), v.ID()); !ok || w < old {
				wg.SetWeightedEdge(wg.NewWeightedEdge(u, v, w))
			}
		}
	case d.Directed:
		sg := simple.NewDirectedGraph()
		out, set = sg, func(u, v graph.Node, _ float64) { sg.SetEdge(sg.NewEdge(u, v)) }
	case d.W != nil:
		wg := simple.NewWeightedUndirectedGraph(0, math.Inf(1))
		out, set = wg, func(u, v graph.Node, w float64) {
			if old, ok := wg.Weight(u.ID(), v.ID()); !ok || w < old {
				wg.SetWeightedEdge(wg.NewWeightedEdge(u, v, w))
			}
		}
	default:
		sg := simple.NewUndirectedGraph()
		out, set = sg, func(u, v graph.Node, _ float64) { sg.SetEdge(sg.NewEdge(u, v)) }
	}
	nodes := make([]graph.Node, d.N)
	for v := range nodes {
		id := d.OriginalID(int32(v))
		if out.Node(id) != nil {
			return nil, fmt.Errorf("gonumgraph: %s: two vertices have id %d", d.Name, id)
		}
		nodes[v] = simple.Node(id)
		out.AddNode(nodes[v])
	}
	for u := int32(0); u < int32(d.N); u++ {
		w := d.Weights(u)
		for i, v := range d.Neighbors(u) {
			if v == u {
				return nil, fmt.Errorf("gonumgraph: %s: vertex %d has a self loop, which gonum's simple graphs cannot hold", d.Name, d.OriginalID(u))
			}
			if !d.Directed && v < u {
				continue // stored both ways; added once
			}
			var wt float64
			if w != nil {
				wt = float64(w[i])
			}
			set(nodes[u], nodes[v], wt)
		}
	}
	return out, nil
}

// BFS runs a breadth-first search on g from the node of id src and
// returns the depth (number of edges on a shortest path from src) of
// every node it reached, by node id; unreached nodes are absent. Weights
// are ignored.
func BFS(g graph.Graph, src int64, opt vertexprog.Options) (map[int64]int, error) {
	vg, err := FromGonum(g, Options{Unweighted: true})
	if err != nil {
		return nil, err
	}
	r, err := bfs.From(vg, src, opt)
	if err != nil {
		return nil, err
	}
	return r.Depths()
}

// ShortestPaths returns the length of a shortest path from the node of id
// src to every node it reaches, by node id (unreached nodes are absent);
// an unweighted graph's edges weigh 1. A negative weight is an error
// wrapping apps.ErrInvalidInput. Distances are summed in float32.
func ShortestPaths(g graph.Graph, src int64, opt vertexprog.Options) (map[int64]float64, error) {
	vg, err := FromGonum(g, Options{})
	if err != nil {
		return nil, err
	}
	r, err := sssp.From(vg, src, opt)
	if err != nil {
		return nil, err
	}
	return r.Dists()
}

// ConnectedComponents returns the (weakly, for a directed graph)
// connected components of g as lists of node ids, each sorted, in
// increasing order of their smallest ids.
func ConnectedComponents(g graph.Graph, opt vertexprog.Options) ([][]int64, error) {
	vg, err := FromGonum(g, Options{Unweighted: true})
	if err != nil {
		return nil, err
	}
	r, err := cc.RunByID(vg, opt)
	if err != nil {
		return nil, err
	}
	return r.Groups(), nil
}

// PageRank returns LDBC's PageRank of every node after the given number
// of iterations, by node id: ranks that sum to 1, dangling nodes' rank
// spread over all nodes, the stationary distribution gonum's
// network.PageRank computes on an unweighted graph. Weights are ignored
// (network.PageRank weighs a graph.WeightedDirected's edges); an
// undirected edge counts both ways.
func PageRank(g graph.Graph, damping float64, iterations int, opt vertexprog.Options) (map[int64]float64, error) {
	vg, err := FromGonum(g, Options{Unweighted: true})
	if err != nil {
		return nil, err
	}
	r, err := pagerank.LDBC(vg, damping, iterations, opt)
	if err != nil {
		return nil, err
	}
	return vertexprog.ByID(vg, r.Rank)
}

// Triangles returns the number of triangles of g, its edges taken as
// undirected (direction and self loops ignored).
func Triangles(g graph.Graph, opt vertexprog.Options) (int64, error) {
	vg, err := FromGonum(g, Options{Unweighted: true})
	if err != nil {
		return 0, err
	}
	r, err := tc.Run(vg, false, opt)
	if err != nil {
		return 0, err
	}
	return r.Total, nil
}

// Run converts g (FromGonum with opt's zero value), makes a program for
// it with newProgram, runs it and returns every node's final value (the
// run's X) by node id. newProgram receives the converted graph, so it can
// turn node ids into the vertex indices a program works with
// (vertexprog.Graph.Vertex); an error it returns is Run's.
func Run[X, A any](g graph.Graph, newProgram func(*vertexprog.Graph) (vertexprog.Program[X, A], error), opt vertexprog.Options) (map[int64]X, error) {
	if newProgram == nil {
		return nil, errors.New("gonumgraph: Run: nil newProgram")
	}
	vg, err := FromGonum(g, Options{})
	if err != nil {
		return nil, err
	}
	p, err := newProgram(vg)
	if err != nil {
		return nil, err
	}
	if isNil(p) {
		return nil, errors.New("gonumgraph: Run: newProgram returned a nil program")
	}
	r, err := vertexprog.Run(vg, p, opt)
	if err != nil {
		return nil, err
	}
	return vertexprog.ByID(vg, r.X)
}
