package vertexprog

import "github.com/hpgraph/hpgraph/vertexprog/driver"

// The program's declaration is read by the engine and by device backends
// alike, so its types are defined in package driver, the backends'
// contract; these are their names for program authors.

// Spec declares how a program runs: the edges it gathers along
// (EdgeType), its iteration limit, and the promises that let the engine
// push, batch, skip or replace work (Sparse, GatherAll, Idempotent,
// Aggregators, Delta, Components). Its fields are documented at
// driver.Spec.
type Spec = driver.Spec

// EdgeType selects the neighbours a vertex gathers from.
type EdgeType = driver.EdgeType

// The edge types (driver.InEdges, ...).
const (
	// InEdges: v gathers from every u with an arc u -> v (what flows
	// along arcs: ranks, distances, reachability). On an undirected graph
	// every neighbour.
	InEdges = driver.InEdges
	// OutEdges: v gathers from every u with an arc v -> u.
	OutEdges = driver.OutEdges
	// AllEdges: v gathers from its neighbours in both directions, each
	// neighbour once (weakly connected components).
	AllEdges = driver.AllEdges
	// InOutEdges: v gathers along every arc at v, in and out alike, so a
	// neighbour joined both ways is gathered twice (as LDBC Graphalytics'
	// label propagation counts neighbours).
	InOutEdges = driver.InOutEdges
)

// Aggregator is how per-vertex contributions to a global value
// (Spec.Aggregators, Step.Add) combine.
type Aggregator = driver.Aggregator

// The aggregators.
const (
	Sum = driver.Sum
	Min = driver.Min
	Max = driver.Max
)

// Direction is how a superstep moves values: pull (every wanted row
// gathers from its active neighbours) or push (every active vertex
// scatters to the rows that gather from it, with an atomic Reduce).
type Direction = driver.Direction

// The directions (Options.Direction, Result.Directions).
const (
	// Auto lets the cost model pick per superstep.
	Auto = driver.Auto
	Push = driver.Push
	Pull = driver.Pull
)

// DeviceCode is a program's device side (DeviceProgram): CUDA C that
// defines the program's types and functions (vp_gather, vp_reduce,
// vp_update, ...), its state arrays and scalars; driver.DeviceCode says
// what Source must define. devgen writes it from the Go methods.
type DeviceCode = driver.DeviceCode

// DeviceArray is a named state array of DeviceCode (driver.DeviceArray).
type DeviceArray = driver.DeviceArray

// DeviceScalar is a named constant of DeviceCode.
type DeviceScalar = driver.DeviceScalar

// Orientation is a graph's adjacency without self loops, each list
// holding the neighbours ranked above (all: every neighbour), sorted, in
// blocks of OrientationBlock: the sorted-list intersection operator's
// lists (the package documentation, "Operators"; CountCommon intersects
// two). Graph.Orientation and Graph.RankedOrientation make it,
// driver.Orientation documents its arrays.
type Orientation = driver.Orientation

// OrientationPart names one of an Orientation's arrays (DeviceArray.Part).
type OrientationPart = driver.OrientationPart

// The parts of an Orientation.
const (
	OrientationDeg  = driver.OrientationDeg
	OrientationCnt  = driver.OrientationCnt
	OrientationOff  = driver.OrientationOff
	OrientationAdj  = driver.OrientationAdj
	OrientationRank = driver.OrientationRank
	OrientationBoth = driver.OrientationBoth
)

// OrientationBlock and OrientationPad: an Orientation's lists start at
// multiples of OrientationBlock entries, padded with OrientationPad.
const (
	OrientationBlock = driver.OrientationBlock
	OrientationPad   = driver.OrientationPad
)

// PartStat is what one part of a partitioned run did (Result.Parts).
type PartStat = driver.PartStat

// Comm joins the processes of one partitioned run (Options.Comm;
// package vertexprog/cluster makes one).
type Comm = driver.Comm
