package driver

import (
	"time"

	"github.com/hpgraph/hpgraph/bitmask"
)

// DeviceJob is everything a backend needs to run one program: the engine
// has already run Prepare and Init on the host.
type DeviceJob struct {
	// Graph is the graph the program runs on (nil in a job made without
	// one); Spec and Code the program's declaration and device code.
	Graph Graph
	Spec  Spec
	Code  DeviceCode
	// Pull is the gathering matrix; Push its transpose, or nil when the
	// program cannot push (then every superstep pulls).
	Pull, Push *Matrix
	// X holds the initial values, XSize bytes each (Go's layout); ASize is
	// the accumulator's size.
	X            []byte
	XSize, ASize int
	// Active is the initial frontier.
	Active *bitmask.Bitmask
	// Aggregates are the aggregators' values after Init.
	Aggregates []float64
	// HasWants and HasDone say whether vp_wants and vp_done exist.
	HasWants, HasDone bool
	// Resident is vertexprog.Options.Resident.
	Resident bool
	// DeviceInit says the host ran no Init: the backend runs the
	// program's vp_init (Code.Init) for every vertex, X holds no values
	// yet, Active and Aggregates are nil, and the DeviceRun must
	// implement DeviceInitReporter.
	DeviceInit bool
	// Part, when set, makes the job one part of a partitioned run
	// (PartBackend.StartParts).
	Part *Part
	// Whole, for a part whose device code names an Orientation of the
	// graph, is the whole graph's gathering matrix (as a whole run's
	// Pull), from which the device builds the orientation as a whole run
	// does; nil otherwise (the backend builds it on the host).
	Whole *Matrix
	// Multiset says Code is a multiset program's
	// (vertexprog.MultisetDeviceProgram), whose supersteps gather
	// multisets as MultisetBackend's do. Only StartParts reads it: a
	// whole run of such a program starts with StartMultiset.
	Multiset bool
}

// DeviceInitReporter is implemented by a DeviceRun started with
// DeviceJob.DeviceInit: it reports what vp_init made, the initial
// frontier's size, its push-matrix degree sum (0 without a push matrix)
// and the aggregators' values.
type DeviceInitReporter interface {
	Initial() (active int, frontierEdges int64, aggregates []float64)
}

// DeviceRun is a program running on a device; the engine drives its
// supersteps so the direction choice and the loop are shared by backends.
type DeviceRun interface {
	// Step runs superstep it in direction dir: SPMV over the current
	// frontier, APPLY, then the frontier becomes the vertices activated.
	// It returns how many were activated, their push-matrix degree sum
	// (the next frontier's edges; 0 when Push is nil) and the aggregators
	// combined over this superstep.
	Step(it int, dir Direction) (active int, frontierEdges int64, aggregates []float64, err error)
	// Finish copies X (into x, XSize bytes per vertex; not at all for a
	// nil x: vertexprog.Options.NoValues) and the writable state arrays back to the
	// host.
	Finish(x []byte) error
	// Close frees the device memory.
	Close()
}

// DeviceBackend is a Backend that runs programs.
type DeviceBackend interface {
	Backend
	Start(job *DeviceJob) (DeviceRun, error)
}

// SummaryFinisher is implemented by a DeviceRun that can end without
// copying its state back (vertexprog.Options.SummaryOnly).
type SummaryFinisher interface {
	// FinishSummary ends the run like Finish, leaving X and the state
	// arrays on the device.
	FinishSummary() error
}

// Reducer is implemented by a DeviceRun that computes the program's
// Spec.Reductions where its values are, after the last superstep.
type Reducer interface {
	// Reduce returns each of Spec.Reductions over X's every vertex, in
	// order (Reduction.Identity where it counts none). The engine calls
	// it, when the program declares reductions, after the last Step and
	// before Finish or FinishSummary.
	Reduce() ([]float64, error)
}

// TransferReporter is implemented by a DeviceRun that reports the time its
// host↔device copies took so far (they are part of Preprocess and Compute).
type TransferReporter interface {
	Transfers() time.Duration
}

// DeviceTimer is implemented by a DeviceRun (or ComponentsRun) that times
// its supersteps on the device's own clock: DeviceTime is the span from
// the first superstep's first launch to the end of the last superstep's
// work (GPU events, as Gunrock's and GraphBLAST's timers measure), the
// host round trips between supersteps included, the launch latency before
// the first and the wait after the last not. 0 before any superstep.
type DeviceTimer interface {
	DeviceTime() time.Duration
}

// StepReport is what one superstep of a batch reports.
type StepReport struct {
	Active        int
	FrontierEdges int64
	Aggregates    []float64
}

// DeviceBatchRun is implemented by a DeviceRun that can run several
// supersteps back to back on the device, all in one direction, without a
// host round trip between them (the long tail of small supersteps on
// high-diameter graphs, and every superstep of a program that only
// pulls). StepBatch runs supersteps it, it+1, … — at most max of them —
// and stops after the first one that activates no vertex. Unless the job
// has no push matrix (every superstep pulls then, whatever the
// frontier), it stops before a superstep whose frontier is large, where
// the engine would not batch: one of n/64 vertices or more, unless the
// batch pushes and the frontier has fewer than pushEdges push-matrix
// edges (the engine passes 0 when only the vertex rule applies). It may
// stop earlier. It
// returns one report per superstep run (at least one). Supersteps after
// the frontier empties must not change any state.
type DeviceBatchRun interface {
	StepBatch(it int, dir Direction, max int, pushEdges int64) ([]StepReport, error)
}
