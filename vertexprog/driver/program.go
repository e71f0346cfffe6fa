package driver

import (
	"fmt"
	"math"
)

// The program's declaration as the engine hands it to a backend: the
// edges it gathers along, its promises (Spec), its aggregators and a
// superstep's direction. Package vertexprog names each of them for
// program authors (vertexprog.Spec is this Spec).

// EdgeType selects the neighbours a vertex gathers from.
type EdgeType int

const (
	// InEdges: v gathers from every u with an arc u -> v (what flows
	// along arcs: ranks, distances, reachability). On an undirected graph
	// every neighbour.
	InEdges EdgeType = iota
	// OutEdges: v gathers from every u with an arc v -> u.
	OutEdges
	// AllEdges: v gathers from its neighbours in both directions, each
	// neighbour once (weakly connected components).
	AllEdges
	// InOutEdges: v gathers along every arc at v, its in-arcs and its
	// out-arcs alike, so a neighbour joined both ways is gathered
	// twice (LDBC Graphalytics' label propagation counts neighbours
	// so) and a self loop twice. On an undirected graph, where every
	// edge is both, each edge once: as InEdges.
	InOutEdges
)

func (e EdgeType) String() string {
	switch e {
	case InEdges:
		return "in"
	case OutEdges:
		return "out"
	case AllEdges:
		return "all"
	case InOutEdges:
		return "in+out"
	}
	return fmt.Sprintf("EdgeType(%d)", int(e))
}

// Aggregator is how per-vertex contributions to a global value combine.
type Aggregator int

const (
	Sum Aggregator = iota
	Min
	Max
)

// Identity is the aggregator's value before any contribution.
func (a Aggregator) Identity() float64 {
	switch a {
	case Min:
		return math.Inf(1)
	case Max:
		return math.Inf(-1)
	}
	return 0
}

// Combine is x and y combined.
func (a Aggregator) Combine(x, y float64) float64 {
	switch a {
	case Min:
		return math.Min(x, y)
	case Max:
		return math.Max(x, y)
	}
	return x + y
}

// Spec declares how a program runs.
type Spec struct {
	// Edges is the edge type to gather along.
	Edges EdgeType
	// MaxIterations bounds the supersteps; 0 means until no vertex is
	// active. vertexprog.Options.MaxIterations overrides it.
	MaxIterations int
	// Sparse declares a data-driven program: Update(v, Identity(), ...)
	// never changes v nor activates it. Supersteps then need only the
	// vertices with an active neighbour, and the engine may push from the
	// frontier instead of pulling over all rows.
	Sparse bool
	// GatherAll makes every neighbour contribute each superstep, active or
	// not (x_bitmask is ignored): for programs whose value is a function of
	// all neighbours, like PageRank, where "active" only decides when to stop.
	GatherAll bool
	// Idempotent declares that gathering again from a neighbour whose value
	// did not change since v last gathered it never changes v, and that
	// what v gathered once Update has taken in never matters again:
	// Update(v, Reduce(old, new)) after Update(v, old) does what
	// Update(v, new) would (min- and max-like programs whose Update keeps
	// the better of acc and *x: components, shortest and widest paths; not
	// BFS, whose accumulator is the parent). The CPU engine then drops the
	// x_bitmask test when most vertices are active (a dense frontier is
	// cheaper to pull unmasked), and keeps a vertex's accumulator from one
	// superstep to the next instead of resetting it to the identity, so
	// that a push that does not better it changes nothing and costs no
	// Update (GAP's SSSP compares with the distance so).
	Idempotent bool
	// Aggregators declares global values that Update (and Init) contribute
	// to with vertexprog.Step.Add and read, one superstep later, with Step.Aggregate.
	// The CPU engine adds a Sum's contributions in a fixed order (those of
	// each 2,048 consecutive vertices, then those sums in vertex order), so
	// its runs give the same bits every time and on any number of workers;
	// such a program's Claimer is not used, and its pushes' APPLY runs by
	// bitmask words.
	Aggregators []Aggregator
	// Delta, when positive, lets a device backend run the program by
	// delta-stepping where the frontier is small: a vertex activated with
	// a priority (the device code's vp_priority, see DeviceCode; in Go
	// the program's Priority method, vertexprog.Prioritizer) Delta or more above the
	// lowest of the current round waits, and joins a later frontier,
	// instead of pushing at once. Shortest paths then relax far
	// fewer edges on high-diameter graphs. Only for Sparse, Idempotent
	// programs whose result does not depend on the order in which active
	// vertices are processed (a vertex's value and priority only drop:
	// shortest paths). The CPU engine delta-steps too, with buckets a
	// sixteenth as wide (and on every frontier): a CPU's few cores favour
	// less redundant work over wider frontiers. Supersteps and
	// per-superstep reports then differ between backends; results do not.
	Delta float64
	// Components declares min-label propagation over the weakly
	// connected components: Gather folds the smaller of acc and xu,
	// Reduce is min, and Update keeps acc where it is smaller than *x and
	// only then activates v, over AllEdges with no iteration limit,
	// aggregators or Delta. The result is then, for every vertex, the
	// smallest Init value among the vertices connected to it, and a
	// backend with a union-find path (ComponentsBackend: Afforest on the
	// GPU) computes it without supersteps and without device code: it
	// labels the components, then the engine folds each component's Init
	// values with Gather and gives every vertex its component's
	// accumulator with Update. Other backends, and runs whose Options
	// force a direction, an iteration limit or per-edge gathers, run
	// supersteps. The promise is the program's: one that is not min-label
	// propagation gets another answer on such a backend. Package
	// vertexprog's documentation ("Operators") says what the operator
	// costs and which backends run it.
	Components bool
	// Reductions declares reductions over every vertex's final value
	// (a count, sum, least or greatest of the values, or of the finite
	// ones), which the backend computes after the last superstep, where
	// the values are, into vertexprog.Result.Reductions: a device's
	// kernel, the CPU's pass on every core. A caller that reads only
	// them (a shortest paths' reached count and farthest distance) then
	// needs no copy of the values (vertexprog.Options.SummaryOnly). The
	// program's value (X) must be an int32, uint32, int64, uint64,
	// float32 or float64, or a type of one of those underlying.
	Reductions []Reduction
}

// Reduce is what a Reduction computes over the values it counts, each as
// a float64.
type Reduce int

const (
	// CountValues is how many values are counted.
	CountValues Reduce = iota
	// SumValues is their sum (in the backend's order: a float's sum may
	// differ between backends in its last bits; a count's or an
	// integer's up to 2^53 does not).
	SumValues
	// MinValues is the least (math.Min's: -Inf wins, then a NaN; -0 is
	// below +0; +Inf where none is counted), as an Aggregator's Min.
	MinValues
	// MaxValues is the greatest (math.Max's; -Inf where none is
	// counted).
	MaxValues
)

// Reduction is one of Spec.Reductions.
type Reduction struct {
	Op Reduce
	// Finite counts only the finite values: a float's ±Inf and NaN are
	// left out (every integer is finite).
	Finite bool
}

// Identity is the reduction's value when it counts no value.
func (r Reduction) Identity() float64 { return r.fold().Identity() }

// Combine is x and y, the reduction over two sets of values, combined.
func (r Reduction) Combine(x, y float64) float64 { return r.fold().Combine(x, y) }

// fold is the Aggregator that combines the reduction's partial results
// (a count's and a sum's: Sum).
func (r Reduction) fold() Aggregator {
	switch r.Op {
	case MinValues:
		return Min
	case MaxValues:
		return Max
	}
	return Sum
}

// CheckReductions refuses reductions of no known Reduce.
func CheckReductions(rs []Reduction) error {
	for i, r := range rs {
		if r.Op < CountValues || r.Op > MaxValues {
			return fmt.Errorf("vertexprog: Spec.Reductions[%d]: Op %d; want CountValues, SumValues, MinValues or MaxValues", i, int(r.Op))
		}
	}
	return nil
}

// Direction is how a superstep moves values: pull (every wanted row
// gathers from its active neighbours) or push (every active vertex scatters
// to the rows that gather from it, with an atomic Reduce).
type Direction int

const (
	// Auto lets the cost model pick per superstep.
	Auto Direction = iota
	Push
	Pull
)

func (d Direction) String() string {
	switch d {
	case Push:
		return "push"
	case Pull:
		return "pull"
	}
	return "auto"
}
