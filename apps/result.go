package apps

import (
	"io"
	"time"

	"github.com/hpgraph/hpgraph/vertexprog"
)

// Result is a run's answer, in the forms the front ends give it.
type Result struct {
	Stats Stats
	// Summary is the line `run` prints after "result: " (serve's
	// "summary"); Fields are its values (serve's "result").
	Summary string
	Fields  map[string]any
	// Rows fills one vertex's row: a cell per App.Columns. It is nil
	// where the run kept no per-vertex answer.
	Rows func(v int32, cells []Cell)
	// WriteText writes --out's lines, one per vertex in the file's ids
	// (triangle counting without per-vertex counts: the total).
	WriteText func(w io.Writer) error
	// WriteLDBC writes LDBC Graphalytics' "id value" lines (nil where the
	// app has no LDBC output).
	WriteLDBC func(w io.Writer) error
	// Check compares the answer with the independent reference
	// (apps/reference), to App.Tolerance.
	Check func() error
}

// Cell is a value of a per-vertex row: an integer, or a float when
// IsFloat (+Inf: unreached).
type Cell struct {
	Int     int64
	Float   float64
	IsFloat bool
}

// Stats are the parts of a vertexprog.Result that do not depend on the
// program's value type.
type Stats struct {
	Backend             string
	Iterations          int
	Active              []int
	Directions          []vertexprog.Direction
	StepTimes           []time.Duration
	Preprocess, Compute time.Duration
	Finish, Transfer    time.Duration
	Device, BackendWait time.Duration
	// Parts is what each of a partitioned run's parts did (nil for a
	// whole-graph run), and Whole the bytes of whole-graph data every
	// part reads (vertexprog.Result.Whole).
	Parts []vertexprog.PartStat
	Whole int64
}

// StatsOf returns r's Stats.
func StatsOf[X any](r *vertexprog.Result[X]) Stats {
	return Stats{Backend: r.Backend, Iterations: r.Iterations, Active: r.Active, Directions: r.Directions, StepTimes: r.StepTimes,
		Preprocess: r.Preprocess, Compute: r.Compute, Finish: r.Finish, Transfer: r.Transfer, Device: r.Device, BackendWait: r.BackendWait, Parts: r.Parts, Whole: r.Whole}
}

// TrafficIn is what bench knows of a run when it models its traffic.
type TrafficIn struct {
	// Graph is the graph the app ran on.
	Graph *vertexprog.Graph
	// N is its vertices, NNZ the nonzeros of the matrix the app traverses.
	N, NNZ int64
	// Weighted: the run read edge weights.
	Weighted bool
	// Iterations is the run's supersteps (the median of bench's runs).
	Iterations int
}

// Traffic is a lower bound on the bytes a run must move between memory
// and the processor (each input read once, each output written once), and
// the model it comes from. Real traffic is higher (frontier re-reads,
// gathers of x[u] per nonzero, HYB padding), so achieved GB/s against it
// is an efficiency.
type Traffic struct {
	Bytes int64
	Model string
	// OrientedArcs are triangle counting's oriented (lower to higher rank)
	// arcs, which its model counts; 0 for the others.
	OrientedArcs int64
}

// TraversalTraffic is the model of the traversals that read the matrix
// once and write a 4-byte value per vertex once (bfs, cc).
func TraversalTraffic(in TrafficIn) Traffic {
	return Traffic{Bytes: 4*in.NNZ + 4*in.N,
		Model: "4*nnz + 4*n: each stored nonzero's int32 column index read once and each vertex's int32 depth/label written once, for the whole run"}
}
