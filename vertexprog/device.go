package vertexprog

import (
	"time"
	"unsafe"

	"github.com/hpgraph/hpgraph/bitmask"
	"github.com/hpgraph/hpgraph/datasets"
)

// DeviceProgram is implemented by programs that can run on a GPU backend:
// they give CUDA C versions of their per-edge and per-vertex functions.
// Prepare and Init always run on the host; the backend copies X, the
// state arrays and the initial frontier to the device, runs the supersteps
// there, and copies X and the state arrays back at the end.
type DeviceProgram interface {
	Device() DeviceCode
}

// DeviceCode is a program's device side. Source is CUDA C that defines
//
//	typedef ... X_t;   // the vertex value, laid out exactly as Go's X
//	typedef ... A_t;   // the accumulator, laid out exactly as Go's A
//	struct State { ... };  // one pointer member per entry of Arrays, in order,
//	                       // of the element type given there, then one member
//	                       // per entry of Scalars, in order
//	__device__ A_t vp_identity();
//	__device__ A_t vp_gather(A_t acc, int v, int u, X_t xu, float w, const State& s);
//	__device__ A_t vp_reduce(A_t a, A_t b);
//	__device__ bool vp_update(int v, A_t acc, X_t* x, const State& s, Step& st);
//
// and, when the Go program implements RowFilter / EarlyExit,
//
//	__device__ bool vp_wants(int v, const State& s);
//	__device__ bool vp_done(A_t acc);
//
// and, when its Spec.Delta is positive, the priority that delta-stepping
// orders vertices by (lower first; a shortest path's distance):
//
//	__device__ float vp_priority(int v, X_t x, const State& s);
//
// A program whose Gather of one edge can be one atomic operation on the
// accumulator (a min or max, say) may also
//
//	#define VP_FOLD_ATOMIC 1
//	__device__ int vp_fold_atomic(A_t* y, int v, int u, X_t xu, float w, const State& s);
//
// which sets *y = vp_gather(*y, v, u, xu, w, s) atomically and returns 0
// when *y did not change, 1 when it did, 2 when it changed from the
// identity; pushes over small frontiers then use it instead of a
// compare-and-swap loop.
//
// A program whose vp_reduce(a, b) is a + b on an int, unsigned, unsigned
// long long, float or double A_t may also
//
//	#define VP_REDUCE_ADD 1
//
// and accumulators are then combined with atomicAdd where the backend
// combines them atomically (instead of a compare-and-swap loop around
// vp_reduce).
//
// A program whose Init can run on the device (it reads only v, the
// program's arrays and scalars) may also define, with Init set,
//
//	__device__ bool vp_init(int v, X_t* x, const State& s, Step& st);
//
// which does what Init(v) does: it sets *x (zeroed before the call) and
// v's elements of the writable state arrays, may add to the aggregators
// (st.add; st.aggregate(i) is the aggregator's identity, as in Init),
// and says whether v starts active. A device backend then makes the
// initial state itself and the host runs neither Init nor InitRange: the
// writable arrays and X are not copied in (they start zeroed on the
// device), so vp_init must write every element Init writes. The program's
// arrays on the host are left as Prepare made them until the run's state
// is copied back (not at all with Options.SummaryOnly). Per-run inputs
// such as a source vertex belong in a ReadOnly array, not a scalar: a
// scalar is part of the kernels' arguments, and a resident backend
// re-records its launches when they change.
//
// Step (provided by the backend) has `int iteration`, `double
// aggregate(int i)` and `void add(int i, double v)`.
type DeviceCode struct {
	Source string
	// Init says Source defines vp_init (see above).
	Init bool
	// Arrays are the program's state arrays, as Go slices ([]int32,
	// []uint32, []int64, []float32 or []float64) allocated in Prepare; the
	// backend copies them in before the run and out after it.
	Arrays []DeviceArray
	// Scalars are constant parameters (int32, int64, float32 or float64).
	Scalars []DeviceScalar
	// HeavyGather says that one vp_gather does much work of its own
	// (triangle counting's list intersections): the backend then pulls row
	// by row, where a row's lanes share what v's gathers read, rather than
	// by the column-sorted tiles it uses for cheap gathers (Spec.GatherAll).
	HeavyGather bool
}

// DeviceArray is a named state array.
type DeviceArray struct {
	Name string
	Data any
	// ReadOnly arrays are not copied back.
	ReadOnly bool
	// Scratch arrays are the device code's working memory, which the
	// host never reads: a backend neither copies them in (they start
	// zeroed, so the host's slice must hold zeros, as make leaves it)
	// nor back; Data gives their element type and length. The CPU
	// engine, which does not run the device code, is unaffected.
	Scratch bool
	// Sum says that Gathers add to any vertex's elements of the array
	// (not only their own vertex's), and Updates read the sums: LCC
	// credits each triangle to its three vertices. A partitioned run
	// then adds up what every part added since the last superstep before
	// any part's APPLY, so each part reads the whole graph's sums. Int32,
	// int64, uint32, uint64, float32 or float64 elements.
	Sum bool
	// Constant says a ReadOnly array's contents never change once made
	// (data derived from the graph alone, kept with Graph.Memo): a backend
	// that keeps runs' buffers between runs (Options.Resident) may then
	// reuse its device copy whenever a run passes the same slice, without
	// comparing the bytes again.
	Constant bool
	// Orientation, when set (Data nil, ReadOnly), says the array is part
	// Part of the graph's Orientation: a device backend builds it on the
	// device from the run's gather matrix when the program gathers along
	// AllEdges (whose rows are Neighbors), and keeps it with the matrix
	// for later runs; otherwise it calls Orientation.Build and copies the
	// host's array.
	Orientation *Orientation
	Part        OrientationPart
}

// Slice returns the array's host data: Data, or the part of its
// Orientation, built on the host (Build) if it was not.
func (a DeviceArray) Slice() any {
	if a.Orientation == nil {
		return a.Data
	}
	o := a.Orientation
	o.Build()
	switch a.Part {
	case OrientationDeg:
		return o.Deg
	case OrientationCnt:
		return o.Cnt
	case OrientationOff:
		return o.Off
	case OrientationAdj:
		return o.Adj
	case OrientationRank:
		return o.Rank
	case OrientationBoth:
		return o.Both
	}
	return nil
}

// DeviceScalar is a named constant.
type DeviceScalar struct {
	Name  string
	Value any
}

// DeviceJob is everything a backend needs to run one program: the engine
// has already run Prepare and Init on the host.
type DeviceJob struct {
	Graph *Graph
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
	// Resident is Options.Resident.
	Resident bool
	// DeviceInit says the host ran no Init: the backend runs the
	// program's vp_init (Code.Init) for every vertex, X holds no values
	// yet, Active and Aggregates are nil, and the DeviceRun must
	// implement DeviceInitReporter.
	DeviceInit bool
	// Part, when set, makes the job one part of a partitioned run
	// (PartBackend.StartParts).
	Part *Part
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
	// nil x: Options.NoValues) and the writable state arrays back to the
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

// Prefetcher is implemented by a device backend that can start copying a
// graph's adjacency (a CSR: row offsets, columns, weights or nil) to the
// device while the host prepares a run. Run calls Prefetch, which must
// return at once, with each adjacency the run's matrices are described
// from that already exists, before the program's Prepare and the
// matrices' description; the backend builds a matrix whose source is the
// same CSR (the same arrays) from the copy, and frees a copy no matrix
// took when the next run starts. A backend may skip a prefetch (a matrix
// already on the device, too little memory): it only saves time.
type Prefetcher interface {
	Prefetch(rowPtr []int64, col []int32, val []float32)
}

// Symmetrizer is implemented by a device backend that builds a directed
// graph's undirected view (the rows of AllEdges: each vertex's out- and
// in-neighbours merged, every neighbour once with its lightest weight, as
// datasets.Graph.Symmetrized makes them) on the device from the graph's
// out-CSR, so that the host builds neither it nor the transpose it merges.
// SymmetrizedRows builds it, keeps it on the device for the matrix that
// Run then describes from the returned row offsets
// (hyb.DescribeSymmetrized: that slice, not a copy, identifies it), and
// returns them; an error leaves the view to the host. Run calls it beside
// the host's PREPROCESS, after Prefetch, for a run on the backend that
// gathers along AllEdges on a directed graph whose view the host has not
// built.
type Symmetrizer interface {
	SymmetrizedRows(rowPtr []int64, col []int32, val []float32) ([]int64, error)
}

// DegreeRelabeler is implemented by a device backend that renumbers a
// graph by degree on its device: RelabelByDegree returns, array by array,
// what g.Relabel(datasets.RelabelDegree) makes (g itself where g is in
// that order already); an error (no room on the device) leaves it to the
// host.
type DegreeRelabeler interface {
	Backend
	RelabelByDegree(g *datasets.Graph) (*datasets.Graph, error)
}

// Relabel is g.Relabel(r), made on the named backend's device where it
// is a DegreeRelabeler that can run here ("auto" or "": the first
// available one; "cpu": the host), else on the host. The host's
// renumbering of a skewed graph takes hundreds of milliseconds and
// several times the graph's memory (kron21 on 16 cores: 353-423 ms, 4.7
// times the file at the peak).
func Relabel(g *datasets.Graph, r datasets.Relabeling, backend string) *datasets.Graph {
	if r.Resolve(g) != datasets.RelabelDegree {
		return g
	}
	if dr, ok := backendAs[DegreeRelabeler](backend); ok {
		if p, err := dr.RelabelByDegree(g); err == nil {
			return p
		}
	}
	return g.Relabel(r)
}

// HostPinner is implemented by a device backend that can page-lock host
// memory that runs copy results into again and again (a server's
// scratch arrays): its copies to that memory then go by DMA, without the
// staging a pageable destination needs (a served kron21 PageRank's 16 MB
// of ranks: ~1 ms staged). Pin locks the bytes at p until unpin runs,
// which must be before the memory is freed or used for anything else.
type HostPinner interface {
	Backend
	Pin(p unsafe.Pointer, bytes int) (unpin func(), err error)
}

// Pin page-locks s's memory for the copies of the named backend ("auto"
// or "": the first available device backend) and returns the function
// that unlocks it, which the caller must run before s is dropped. It
// returns nil, and nothing is locked, where the backend cannot (the CPU,
// no device, memory the device refuses): copies into s then work as
// before.
func Pin[T any](backend string, s []T) (unpin func()) {
	if len(s) == 0 || backend == "cpu" {
		return nil
	}
	var hp HostPinner
	if backend == "" || backend == "auto" {
		hp, _ = firstBackend[HostPinner]()
	} else if b, err := namedBackend(backend); err == nil {
		hp, _ = b.(HostPinner)
	}
	if hp == nil {
		return nil
	}
	unpin, err := hp.Pin(unsafe.Pointer(unsafe.SliceData(s)), len(s)*int(unsafe.Sizeof(s[0])))
	if err != nil {
		return nil
	}
	return unpin
}

// DeviceInfo describes the device a backend runs on, for benchmark records.
type DeviceInfo struct {
	Name              string // e.g. "NVIDIA H200"
	Driver            string // driver version, e.g. "580.159.04" or "13000"
	ComputeCapability string // e.g. "9.0"
	SMs               int
	MemoryBytes       int64
	// CopyBandwidth is the measured device-to-device copy rate in bytes
	// per second, counting bytes read plus bytes written: the roofline
	// that benchmarks compare achieved bandwidth with.
	CopyBandwidth float64
}

// Describer is implemented by backends that can describe their device.
type Describer interface {
	Describe() (DeviceInfo, error)
}

// SummaryFinisher is implemented by a DeviceRun that can end without
// copying its state back (Options.SummaryOnly).
type SummaryFinisher interface {
	// FinishSummary ends the run like Finish, leaving X and the state
	// arrays on the device.
	FinishSummary() error
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
