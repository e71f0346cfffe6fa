package reference

import (
	"math"
	"slices"
	"sync"

	"gonum.org/v1/gonum/graph"

	"github.com/hpgraph/hpgraph/datasets"
)

var (
	_ graph.Directed         = (*Directed)(nil)
	_ graph.WeightedDirected = (*Directed)(nil)
	_ graph.Undirected       = (*Undirected)(nil)
)

// node is a vertex as a graph.Node; its ID is the vertex index in the CSR.
type node struct{ id int64 }

func (n *node) ID() int64 { return n.id }

// nodeTable holds one node per vertex. Views hand out pointers into it, so
// turning a vertex into a graph.Node never allocates (boxing an int64 into
// an interface would, once per visited arc).
type nodeTable []node

func newNodeTable(n int) nodeTable {
	t := make(nodeTable, n)
	for i := range t {
		t[i].id = int64(i)
	}
	return t
}

// node returns the node with the given id, or nil when id is not a vertex.
func (t nodeTable) node(id int64) graph.Node {
	if id < 0 || id >= int64(len(t)) {
		return nil
	}
	return &t[id]
}

// edge is an arc of a view. It is returned by value so a missing arc is a
// true nil interface, never a typed nil pointer.
type edge struct {
	from, to *node
	w        float64
}

func (e edge) From() graph.Node         { return e.from }
func (e edge) To() graph.Node           { return e.to }
func (e edge) ReversedEdge() graph.Edge { return edge{from: e.to, to: e.from, w: e.w} }
func (e edge) Weight() float64          { return e.w }

// cursor is the position of an iterator over n items: -1 before the first
// Next, n once Next has returned false (so Node then returns nil, as gonum's
// iterators do).
type cursor struct{ i, n int }

func newCursor(n int) cursor { return cursor{i: -1, n: n} }

func (c *cursor) Next() bool {
	if c.i+1 < c.n {
		c.i++
		return true
	}
	c.i = c.n
	return false
}

func (c *cursor) Len() int    { return max(c.n-c.i-1, 0) }
func (c *cursor) Reset()      { c.i = -1 }
func (c *cursor) valid() bool { return c.i >= 0 && c.i < c.n }

// allNodes iterates over the vertices 0..n-1.
type allNodes struct {
	cursor
	table nodeTable
}

func newAllNodes(t nodeTable) graph.Nodes { return &allNodes{cursor: newCursor(len(t)), table: t} }

func (it *allNodes) Node() graph.Node {
	if !it.valid() {
		return nil
	}
	return &it.table[it.i]
}

// rowNodes iterates over the vertices listed in one CSR row, in storage
// order (sorted by id), including repeats when the graph kept duplicates.
type rowNodes struct {
	cursor
	table nodeTable
	row   []int32
}

func newRowNodes(t nodeTable, row []int32) graph.Nodes {
	if len(row) == 0 {
		return graph.Empty
	}
	return &rowNodes{cursor: newCursor(len(row)), table: t, row: row}
}

func (it *rowNodes) Node() graph.Node {
	if !it.valid() {
		return nil
	}
	return &it.table[it.row[it.i]]
}

// unionNodes iterates over the union of two sorted rows, each vertex once:
// the neighbours of a vertex in the undirected simple view.
type unionNodes struct {
	table  nodeTable
	a, b   []int32
	i, j   int   // read positions in a and b
	cur    int32 // current vertex, valid after a successful Next
	onNode bool
}

func (it *unionNodes) Reset() { it.i, it.j, it.onNode = 0, 0, false }

func (it *unionNodes) Next() bool {
	var v int32
	switch {
	case it.i < len(it.a) && (it.j >= len(it.b) || it.a[it.i] <= it.b[it.j]):
		v = it.a[it.i]
	case it.j < len(it.b):
		v = it.b[it.j]
	default:
		it.onNode = false
		return false
	}
	// Skip every copy of v in both rows (duplicates and the shared entry).
	for it.i < len(it.a) && it.a[it.i] == v {
		it.i++
	}
	for it.j < len(it.b) && it.b[it.j] == v {
		it.j++
	}
	it.cur, it.onNode = v, true
	return true
}

func (it *unionNodes) Node() graph.Node {
	if !it.onNode {
		return nil
	}
	return &it.table[it.cur]
}

// Len counts the remaining vertices by merging the rest of both rows; it
// is O(degree), and gonum calls it rarely (when materializing a slice).
func (it *unionNodes) Len() int {
	rest := *it
	n := 0
	for rest.Next() {
		n++
	}
	return n
}

// Directed is a read-only graph.Directed and graph.WeightedDirected view of
// a CSR graph: From lists the out-neighbours (row u), To the in-neighbours
// (row v of the transpose, built on the first call to To). An undirected
// graph stores both directions, so From and To agree on it. Weights are the
// stored float32 weights, or 1 for every arc of an unweighted graph.
type Directed struct {
	g     *datasets.Graph
	nodes nodeTable

	inOnce sync.Once
	in     *datasets.Graph
}

// NewDirected returns the directed view of g. It does not copy the arcs.
func NewDirected(g *datasets.Graph) *Directed {
	return &Directed{g: g, nodes: newNodeTable(g.N)}
}

// transpose builds the in-edge CSR once; BFS and SSSP never need it, so
// they do not pay for it.
func (d *Directed) transpose() *datasets.Graph {
	d.inOnce.Do(func() { d.in = d.g.Transpose() })
	return d.in
}

// Node returns the vertex with the given id, or nil when out of range.
func (d *Directed) Node(id int64) graph.Node { return d.nodes.node(id) }

// Nodes returns all vertices in id order.
func (d *Directed) Nodes() graph.Nodes { return newAllNodes(d.nodes) }

// From returns the out-neighbours of id.
func (d *Directed) From(id int64) graph.Nodes {
	if d.Node(id) == nil {
		return graph.Empty
	}
	return newRowNodes(d.nodes, d.g.Neighbors(int32(id)))
}

// To returns the in-neighbours of id.
func (d *Directed) To(id int64) graph.Nodes {
	if d.Node(id) == nil {
		return graph.Empty
	}
	return newRowNodes(d.nodes, d.transpose().Neighbors(int32(id)))
}

// HasEdgeBetween reports whether an arc joins x and y in either direction.
func (d *Directed) HasEdgeBetween(xid, yid int64) bool {
	return d.HasEdgeFromTo(xid, yid) || d.HasEdgeFromTo(yid, xid)
}

// HasEdgeFromTo reports whether the arc u -> v exists.
func (d *Directed) HasEdgeFromTo(uid, vid int64) bool {
	_, ok := arcIndex(d.g, uid, vid)
	return ok
}

// Edge returns the arc u -> v, or nil.
func (d *Directed) Edge(uid, vid int64) graph.Edge {
	if e := d.WeightedEdge(uid, vid); e != nil {
		return e
	}
	return nil
}

// WeightedEdge returns the arc u -> v with its weight, or nil.
func (d *Directed) WeightedEdge(uid, vid int64) graph.WeightedEdge {
	i, ok := arcIndex(d.g, uid, vid)
	if !ok {
		return nil
	}
	return edge{from: &d.nodes[uid], to: &d.nodes[vid], w: arcWeight(d.g, i)}
}

// Weight returns the weight of the arc x -> y. As gonum's simple graphs do,
// a vertex is at distance 0 from itself unless it has a stored self loop,
// and a missing arc has weight +Inf and ok false. Where duplicate arcs were
// kept, the lightest one counts (rows are sorted by column, then weight).
func (d *Directed) Weight(xid, yid int64) (w float64, ok bool) {
	if i, ok := arcIndex(d.g, xid, yid); ok {
		return arcWeight(d.g, i), true
	}
	if xid == yid && d.Node(xid) != nil {
		return 0, true
	}
	return math.Inf(1), false
}

// Undirected is a read-only graph.Undirected view of a CSR graph: the
// neighbours of a vertex are its out- and in-neighbours, each once. On a
// directed graph this is the view for weakly connected components; on any
// graph it is the simple undirected graph (apart from self loops, which
// are listed as a vertex's own neighbour when stored).
type Undirected struct {
	g, in *datasets.Graph
	nodes nodeTable
}

// NewUndirected returns the undirected view of g. For a directed graph it
// builds the transpose (to list in-neighbours); the arcs are not copied
// otherwise.
func NewUndirected(g *datasets.Graph) *Undirected {
	return &Undirected{g: g, in: g.Transpose(), nodes: newNodeTable(g.N)}
}

// Node returns the vertex with the given id, or nil when out of range.
func (u *Undirected) Node(id int64) graph.Node { return u.nodes.node(id) }

// Nodes returns all vertices in id order.
func (u *Undirected) Nodes() graph.Nodes { return newAllNodes(u.nodes) }

// From returns the neighbours of id in increasing id order, each once.
func (u *Undirected) From(id int64) graph.Nodes {
	if u.Node(id) == nil {
		return graph.Empty
	}
	out, in := u.g.Neighbors(int32(id)), u.in.Neighbors(int32(id))
	if len(out) == 0 && len(in) == 0 {
		return graph.Empty
	}
	return &unionNodes{table: u.nodes, a: out, b: in}
}

// HasEdgeBetween reports whether an arc joins x and y in either direction.
func (u *Undirected) HasEdgeBetween(xid, yid int64) bool {
	return u.Edge(xid, yid) != nil
}

// Edge returns the edge between u and v, or nil. Its weight is that of the
// arc u -> v when stored, else of v -> u.
func (u *Undirected) Edge(uid, vid int64) graph.Edge {
	if i, ok := arcIndex(u.g, uid, vid); ok {
		return edge{from: &u.nodes[uid], to: &u.nodes[vid], w: arcWeight(u.g, i)}
	}
	if i, ok := arcIndex(u.g, vid, uid); ok {
		return edge{from: &u.nodes[uid], to: &u.nodes[vid], w: arcWeight(u.g, i)}
	}
	return nil
}

// EdgeBetween is Edge: direction does not matter in this view.
func (u *Undirected) EdgeBetween(xid, yid int64) graph.Edge { return u.Edge(xid, yid) }

// arcIndex finds the arc u -> v by binary search in the sorted row u and
// returns its position in g.Col: the first of any duplicates, which is the
// lightest.
func arcIndex(g *datasets.Graph, uid, vid int64) (int64, bool) {
	n := int64(g.N)
	if uid < 0 || uid >= n || vid < 0 || vid >= n {
		return 0, false
	}
	row := g.Neighbors(int32(uid))
	k, ok := slices.BinarySearch(row, int32(vid))
	return g.RowPtr[uid] + int64(k), ok
}

// arcWeight is the weight of arc i, 1 when the graph is unweighted.
func arcWeight(g *datasets.Graph, i int64) float64 {
	if g.W == nil {
		return 1
	}
	return float64(g.W[i])
}
