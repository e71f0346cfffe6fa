package driver

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
// and, when the Go program implements vertexprog.RowFilter / EarlyExit,
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
// is copied back (not at all with vertexprog.Options.SummaryOnly). Per-run inputs
// such as a source vertex belong in a ReadOnly array, not a scalar: a
// scalar is part of the kernels' arguments, and a resident backend
// re-records its launches when they change.
//
// Step (provided by the backend) has `int iteration`, `double
// aggregate(int i)` and `void add(int i, double v)`. The CUDA backend's
// shared device headers may be included by name (`#include
// "search.cuh"`: hp_lower_bound, a binary search over a sorted run).
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
	// (sorted-list intersections over an Orientation): the backend then
	// pulls row by row, where a row's lanes share what v's gathers read,
	// rather than by the column-sorted tiles it uses for cheap gathers
	// (Spec.GatherAll).
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
	// (not only their own vertex's), and Updates read the sums (a
	// program may credit each triangle it finds to its three
	// vertices). A partitioned run then adds up what every part added
	// since the last superstep before any part's APPLY, so each part
	// reads the whole graph's sums. Int32, int64, uint32, uint64,
	// float32 or float64 elements.
	Sum bool
	// Constant says a ReadOnly array's contents never change once made
	// (data derived from the graph alone, kept with vertexprog.Graph.Memo): a backend
	// that keeps runs' buffers between runs (vertexprog.Options.Resident) may then
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
