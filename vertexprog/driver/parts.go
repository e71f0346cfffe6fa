package driver

import "time"

// Comm joins the processes of one partitioned run (package
// vertexprog/cluster makes one from --world, --rank and --coordinator or
// mpirun's variables). Every process calls each method in the same order.
type Comm interface {
	// Rank is this process's place, from 0; Size the processes.
	Rank() int
	Size() int
	// AllGather sends b to every process and returns what each sent, by
	// rank (b itself at Rank).
	AllGather(b []byte) ([][]byte, error)
}

// Part describes one part of a partitioned run to a device backend
// (DeviceJob.Part).
type Part struct {
	// Index is the part's place among the run's Count parts (over every
	// process of the run).
	Index, Count int
	// Lo and Hi bound the vertices the part owns and updates, [Lo, Hi);
	// its pull matrix has no other rows, its push matrix only their
	// columns. The job's X, Active and state arrays are the whole
	// graph's: the part reads every vertex's value and frontier bit.
	Lo, Hi int32
	// FrontierDegree[v] is v's degree in the whole graph's push matrix:
	// what an activated vertex adds to the frontier's edges (the part's
	// push matrix counts only its arcs into the part). Nil without push.
	FrontierDegree []int32
	// Arcs[q], for each of the run's Count parts q, is part q's vertices
	// up to its last with arcs in the push's direction (a column of the
	// pull: an undirected graph's vertices with arcs): from Arcs[q].Hi on,
	// no part reads a vertex of part q's value or frontier bit, so a dense
	// exchange sends only these spans (and components' forests leave every
	// other vertex alone). Nil where not known: then every part's whole
	// range.
	Arcs []Span
}

// Span is the rows [Lo, Hi).
type Span struct{ Lo, Hi int32 }

// PartBackend is a device backend that runs the parts of a partitioned
// run on its devices, exchanging between them on the devices (and, with
// a Comm of several processes, with the other processes' parts).
type PartBackend interface {
	DeviceBackend
	// Devices is how many devices the backend runs parts on: the parts a
	// run has on it unless vertexprog.Options.Parts says otherwise.
	PartDevices() int
	// StartParts starts the local parts of one run, jobs[i] on device i
	// mod PartDevices(), and returns a run whose every Step runs the
	// superstep on all of them, exchanges what the next superstep reads
	// and reports the whole run's counts and aggregators (comm's other
	// processes' parts included, where comm is not nil). Finish copies
	// each part's own vertices' values and state into x and the
	// program's arrays.
	StartParts(jobs []*DeviceJob, comm Comm) (DeviceRun, error)
}

// PartStat is what one part of a partitioned run did.
type PartStat struct {
	Index  int
	Lo, Hi int32
	// Arcs is the part's pull entries.
	Arcs int64
	// Compute is its supersteps' time, Exchange the time the exchanges
	// after them took, ExchangeBytes what it received in them.
	Compute, Exchange time.Duration
	ExchangeBytes     int64
}

// SparseExchange returns the rule that picks a superstep's exchange:
// the changed vertices one by one (sparse) where few changed, else whole
// ranges. Only a Sparse program changes no vertex it does not activate
// (Spec.Sparse's promise, which the exchange relies on); the others send
// every value every superstep.
func SparseExchange(spec Spec, n, xsize int) func(active int) bool {
	if !spec.Sparse || spec.GatherAll {
		return func(int) bool { return false }
	}
	// A vertex sent alone costs its index and value; a range sends a
	// value a vertex and a bit.
	return func(active int) bool { return int64(active)*int64(4+xsize)*8 < int64(n)*int64(8*xsize+1) }
}
