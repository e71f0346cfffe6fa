package vertexprog

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hpgraph/hpgraph/bitmask"
	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/hyb"
	"github.com/hpgraph/hpgraph/internal/huge"
	"github.com/hpgraph/hpgraph/internal/par"
	"github.com/hpgraph/hpgraph/internal/phase"
	"github.com/hpgraph/hpgraph/vertexprog/driver"
)

// ParseDirection reads "auto", "push" or "pull".
func ParseDirection(s string) (Direction, error) {
	switch s {
	case "auto", "":
		return Auto, nil
	case "push":
		return Push, nil
	case "pull":
		return Pull, nil
	}
	return Auto, fmt.Errorf("direction %q: want auto, push or pull", s)
}

// Rule is the cost model that picks a superstep's direction under Auto.
type Rule int

const (
	// Beamer switches push→pull when the frontier's edges exceed the
	// unexplored edges / Alpha, and back when the frontier shrinks below
	// n / Beta (GAP's direction-optimizing BFS).
	Beamer Rule = iota
	// GraphBLAST pulls when the frontier's edges exceed nnz / 10.
	GraphBLAST
)

// Options tune a run. The zero value is the default: backend auto, direction
// auto with Beamer's rule (α = 15, β = 18), CUSP's HYB constants.
type Options struct {
	// Backend is "auto" (a GPU when one is present and the program has
	// device code, else the CPU), "cpu", or a registered backend's name.
	// (A caller that wants one answer soonest races the CPU against the
	// device instead: PlanAnswer, Race.)
	Backend string
	// Direction forces push or pull supersteps; Auto chooses per superstep.
	Direction Direction
	// Rule, Alpha and Beta configure Auto (0 means GAP's 15 and 18). On
	// the CPU, a program whose pull reads every edge (no RowFilter, no
	// EarlyExit: SSSP, label propagation) goes by Beamer's rule with an
	// Alpha of its own, 1 on up to four cores and 3 on more, superstep
	// by superstep (cpuFullPullAlpha), unless Alpha is given.
	Rule        Rule
	Alpha, Beta float64
	// alphaDefault: Alpha was 0, GAP's 15 (withDefaults).
	alphaDefault bool
	// HYB sets the ELL/COO split; the zero value means the backend's own:
	// hyb.DefaultOptions() on a GPU, hyb.CPUOptions() on the CPU.
	HYB hyb.Options
	// MaxIterations overrides the program's Spec.MaxIterations when > 0.
	MaxIterations int
	// Log, when set, receives one line per superstep (direction, frontier).
	Log func(line string)
	// PerEdge makes the CPU backend call Gather for every edge, Update and
	// Wants for every vertex, even when the program is a RowGatherer,
	// BlockGatherer, FirstGatherer, Contributor (WeightAdder, Relaxer), ListUpdater, ListFilter,
	// WordFilter, Claimer or FirstClaimer (to check one against the
	// other).
	PerEdge bool
	// Resident says the graph stays loaded for many runs (a benchmark, a
	// server): backends may then build structures whose PREPROCESS costs
	// more than one run gains, to make every later run faster (the CUDA
	// backend's column-sorted tiles for programs that gather from every
	// neighbour, about a second on kron21 for 0.35 ms a pull). A single
	// answer is fastest without them.
	Resident bool
	// SummaryOnly says the caller reads only the Result's summary
	// (Iterations, Active, Directions, Aggregates, Reductions, the
	// times), not X nor the program's own arrays: a device backend then
	// leaves the final state on the device instead of copying it back (16
	// MB a kron21 BFS, ~2 ms of a query; it copies the values back where
	// it cannot compute the program's Spec.Reductions itself, for the
	// host to), Result.X is nil, and the program's arrays hold
	// what Init wrote, or, where vp_init made the initial state on the
	// device (DeviceCode.Init), what Prepare left. (run --src with several
	// sources and no --out: a BFS answer is its counts.) The CPU ignores
	// it.
	SummaryOnly bool
	// Context, when set, stops a run between supersteps (or batches of
	// them) once it is done: Run returns an error wrapping its Err (a
	// server's query that timed out or whose client went away).
	Context context.Context
	// NoValues says the caller reads the program's own arrays but not
	// the values: a device backend copies the arrays back and leaves X
	// on the device (Result.X is nil). PageRank's values are its
	// contributions, 8-16 MB a kron21 query to copy for nothing. The CPU
	// ignores it.
	NoValues bool
	// Values, when it is a []X of N elements, is the memory of the
	// values (Result.X) instead of a new array: a caller answering many
	// queries reuses the last answer's, whose fresh memory costs a page
	// fault per 4 KB (~5 ms of 24 MB on the GPU machine's VM). The run
	// overwrites it; a Values of another type or length is ignored.
	Values any
	// Parts splits the graph into that many parts, vertex ranges
	// balanced by arcs and rows, each run with its own values and exchanging what
	// changed after every superstep (partition.go), as a graph spread
	// over several devices is: on the CPU, or on a device backend that
	// runs parts (driver.PartBackend: parts share its devices). 0 means one part
	// per device of such a backend (one for the CPU); 1 a whole-graph
	// run. With Comm, each process runs Parts of them.
	Parts int
	// Comm joins the processes of a run that spans several (each runs
	// its share of the parts and holds every vertex's value); nil for one.
	Comm Comm

	// progress: a raced CPU run's supersteps, which Race's device side
	// reads once the device has opened (race.go).
	progress *raceProgress
}

func (o Options) withDefaults() Options {
	if o.Alpha == 0 {
		o.Alpha, o.alphaDefault = 15, true
	}
	if o.Beta == 0 {
		o.Beta = 18
	}
	return o
}

// Result is what a run returns besides the program's own state.
type Result[X any] struct {
	// X is every vertex's final value.
	X []X
	// Backend names where the run happened.
	Backend string
	// Iterations is the number of supersteps run.
	Iterations int
	// Active[i] is the number of vertices active after superstep i.
	Active []int
	// Directions[i] is how superstep i ran.
	Directions []Direction
	// StepTimes[i] is superstep i's wall time.
	StepTimes []time.Duration
	// Aggregates are the aggregators' values after the last superstep.
	Aggregates []float64
	// Reductions are the program's Spec.Reductions over the final
	// values, in order (nil where it declares none).
	Reductions []float64
	// Preprocess is PREPROCESS: matrices, state, Prepare and Init, and on a
	// device the uploads. Compute is the superstep loop, the algorithm's
	// time. Finish is copying the final state back from a device (0 on the
	// CPU), part of neither.
	Preprocess, Compute, Finish time.Duration
	// Transfer is the time spent copying between host and device, in
	// Preprocess and Finish (0 on the CPU backend).
	Transfer time.Duration
	// Device is Compute on the device's own clock (driver.DeviceTimer), 0 where
	// the backend does not report it (the CPU).
	Device time.Duration
	// BackendWait is how long PREPROCESS, done on the host, then waited
	// for the backend to open (a GPU's driver and context, when Warm had
	// not finished them); not part of Preprocess.
	BackendWait time.Duration
	// Parts is what each of this process's parts did, for a partitioned
	// run (Options.Parts); nil otherwise.
	Parts []PartStat
	// Whole is, for a partitioned run of a program whose device arrays
	// name an Orientation (DeviceArray.Orientation), the bytes of the
	// whole graph's orientation that every part reads: a device holds a
	// copy for each of its parts, the CPU's parts share the host's. 0
	// otherwise.
	Whole int64
}

// ErrPushUnsupported is returned when push supersteps are forced for a
// program that cannot push.
var ErrPushUnsupported = errors.New("program cannot run push supersteps")

// Run executes p on g.
func Run[X, A any](g *Graph, p Program[X, A], opt Options) (*Result[X], error) {
	res, err := run(g, p, opt)
	if err != nil {
		return nil, err
	}
	if err := reduceOnHost(p.Spec(), res); err != nil {
		return nil, err
	}
	return res, nil
}

// reduceOnHost computes spec's Reductions over res.X where the backend
// did not (the CPU's runs, and device runs that cannot: every core's
// pass over the values).
func reduceOnHost[X any](spec Spec, res *Result[X]) error {
	if len(spec.Reductions) == 0 || res.Reductions != nil {
		return nil
	}
	if res.X == nil {
		return fmt.Errorf("vertexprog: backend %s neither reduced the values nor copied them back", res.Backend)
	}
	pt := phase.New("vertexprog", "reductions")
	defer pt.Print()
	res.Reductions = reduceValues(spec.Reductions, res.X)
	pt.Mark("on the host")
	return nil
}

// run is Run but for the reductions the backend left to the host.
func run[X, A any](g *Graph, p Program[X, A], opt Options) (*Result[X], error) {
	if g == nil || g.g == nil {
		return nil, ErrNilGraph
	}
	if p == nil {
		return nil, errors.New("vertexprog: nil program")
	}
	if err := opt.check(); err != nil {
		return nil, err
	}
	opt = opt.withDefaults()
	spec := p.Spec()
	if spec.Edges < InEdges || spec.Edges > InOutEdges {
		return nil, fmt.Errorf("vertexprog: unknown edge type %d", spec.Edges)
	}
	if spec.MaxIterations < 0 || opt.MaxIterations < 0 {
		return nil, fmt.Errorf("vertexprog: negative iteration limit")
	}
	if !(spec.Delta >= 0) || math.IsInf(spec.Delta, 1) {
		return nil, fmt.Errorf("vertexprog: Spec.Delta is %v; want a finite number >= 0", spec.Delta)
	}
	if spec.Delta > 0 && !(spec.Sparse && spec.Idempotent) {
		return nil, errors.New("vertexprog: Spec.Delta needs a Sparse and Idempotent program (one that reaches the same result in any order)")
	}
	if err := checkIdentity(p); err != nil {
		return nil, err
	}
	if err := checkComponents(spec); err != nil {
		return nil, err
	}
	if err := checkReductions[X](spec); err != nil {
		return nil, err
	}
	if parts := partsFor(p, opt); parts > 1 {
		if spec.Components {
			if res, ok, err := runPartComponents(g, p, opt, parts); err != nil || ok {
				return res, err
			}
		}
		return runParts(g, p, opt, parts, nil)
	}
	if err := g.wholeRows("a run of the whole graph"); err != nil {
		return nil, err
	}
	if spec.Components {
		if res, ok, err := runComponents(g, p, opt); err != nil || ok {
			return res, err
		}
	}
	// (HPGRAPH_TRACE: where a run's time goes around its supersteps,
	// which a query of many pays each time)
	pt := phase.New("vertexprog", "run")
	defer pt.Print()
	mayDevice := mayUseDevice(opt.Backend, p)
	defaultHYB := opt.HYB == (hyb.Options{})
	if defaultHYB {
		opt.HYB = hyb.CPUOptions()
		if mayDevice {
			opt.HYB = hyb.DefaultOptions()
		}
	}
	// The backend is chosen beside the host's PREPROCESS: choosing a GPU
	// waits for its driver and context to open (Warm starts that beside a
	// graph's load), hundreds of milliseconds a fresh process can spend
	// preparing instead. A directed graph's undirected view, where the run
	// gathers along it and the host has not built it, is then built by
	// the backend if it can (driver.Symmetrizer), and described from its rows.
	chosen := make(chan backendChoice, 1)
	var symRows func() []int64
	var symCh chan []int64
	if mayDevice && g.needsSymmetrized(spec, opt.HYB) {
		symCh = make(chan []int64, 1)
		symRows = sync.OnceValue(func() []int64 { return <-symCh })
	}
	go func() {
		b, err := selectBackend(opt.Backend, p)
		if pf, ok := b.(driver.Prefetcher); ok && err == nil {
			prefetch(g, spec, pf)
		}
		if symCh != nil {
			var rows []int64
			if sy, ok := b.(driver.Symmetrizer); ok && err == nil {
				d := g.g
				if rp, err := sy.SymmetrizedRows(d.RowPtr, d.Col, d.W); err == nil {
					rows = rp
				}
			}
			symCh <- rows
		}
		chosen <- backendChoice{b, err}
	}()
	pt.Mark("set-up")
	t0 := time.Now()
	h, err := prepare(g, p, opt, mayDevice, symRows)
	pt.Mark("prepare")
	tw := time.Now()
	c := <-chosen
	wait := time.Since(tw)
	pt.Mark("backend wait")
	if c.err != nil {
		return nil, c.err
	}
	if err != nil {
		return nil, err
	}
	b := c.b
	if b == nil && defaultHYB && opt.HYB != hyb.CPUOptions() {
		// (the device it prepared for did not open: the CPU's matrices)
		opt.HYB = hyb.CPUOptions()
		if err := h.matrices(g, opt, false, nil); err != nil {
			return nil, err
		}
	}
	res := &Result[X]{Backend: "cpu", BackendWait: wait}
	var st stepper
	if b == nil {
		if hp, ok := p.(HostPreparer); ok {
			if err := hp.PrepareHost(g); err != nil {
				return nil, err
			}
		}
		if h.deviceInit {
			if err := h.init(); err != nil {
				return nil, err
			}
		}
		h.materialize()
		st = newCPUStepper(h, opt, false)
		pt.Mark("cpu state")
	} else {
		ds, err := startDevice(b, g, h, opt.Resident, h.deviceInit)
		if err != nil {
			return nil, err
		}
		defer func() {
			ds.run.Close()
			pt.Mark("close")
		}()
		st, res.Backend = ds, b.Name()
		pt.Mark("device start")
	}
	res.Preprocess = time.Since(t0) - wait
	t1 := time.Now()
	if err := loop(h, st, opt, res); err != nil {
		return nil, err
	}
	res.Compute = time.Since(t1)
	pt.Mark("supersteps")
	if cs, ok := st.(*cpuStepper[X, A]); ok {
		cs.release()
	}
	if ds, ok := st.(*deviceStepper); ok {
		if err := finishDevice(ds, h, opt, res); err != nil {
			return nil, err
		}
		pt.Mark("finish")
		return res, nil
	}
	res.X = h.x
	return res, nil
}

// finishDevice ends a device run: its device time, its reductions where
// the backend computes them, the copy of its values and state back (as
// opt allows, and the values where the host must reduce them) into res.X
// and the program's arrays, and its transfer time.
func finishDevice[X, A any](ds *deviceStepper, h *hostRun[X, A], opt Options, res *Result[X]) error {
	if dt, ok := ds.run.(driver.DeviceTimer); ok {
		res.Device = dt.DeviceTime()
	}
	t2 := time.Now()
	reduced := len(h.spec.Reductions) == 0
	if rd, ok := ds.run.(driver.Reducer); ok && !reduced {
		v, err := rd.Reduce()
		if err != nil {
			return err
		}
		if len(v) != len(h.spec.Reductions) {
			return fmt.Errorf("vertexprog: backend %s reduced %d values; the program declares %d reductions", res.Backend, len(v), len(h.spec.Reductions))
		}
		res.Reductions, reduced = v, true
	}
	if sf, ok := ds.run.(driver.SummaryFinisher); ok && opt.SummaryOnly && reduced {
		if err := sf.FinishSummary(); err != nil {
			return err
		}
		h.x = nil
	} else if opt.NoValues && reduced {
		if err := ds.run.Finish(nil); err != nil {
			return err
		}
		h.x = nil
	} else if err := ds.run.Finish(valueBytes(h.x)); err != nil {
		return err
	}
	res.Finish = time.Since(t2)
	if tr, ok := ds.run.(driver.TransferReporter); ok {
		res.Transfer = tr.Transfers()
	}
	res.X = h.x
	return nil
}

// prefetch offers pf the adjacencies the run's pull and push matrices
// will be described from, where they exist already (a directed graph's
// in-out rows may not: describing the matrix builds them), so that their
// upload overlaps the host's PREPROCESS. A directed graph's in-matrix,
// while its transpose is not built, is the device's transpose of the
// out-CSR (matrixFor): the out-CSR is offered for it.
func prefetch(g *Graph, spec Spec, pf driver.Prefetcher) {
	var seen *datasets.Graph
	for _, r := range []matrixRows{gatherRows(spec.Edges), pushRows(spec.Edges)} {
		a := g.builtAdjacency(r)
		if a == nil && r == rowsIn {
			a = g.g
		}
		if a != nil && a != seen {
			pf.Prefetch(a.RowPtr, a.Col, a.W)
			seen = a
		}
	}
}

// materialize fills the host arrays of the matrices the CPU kernels read,
// the accumulators and the touched rows (of a push, or of a Sparse
// program's pull), which a device run keeps on the device (a fresh array
// a run is a page fault per 4 KB on a VM's host: ~1 ms a kron21 BFS
// query).
func (h *hostRun[X, A]) materialize() {
	if h.push != nil || h.spec.Sparse {
		h.touched = h.spare.newMask(h.n)
	}
	h.pull.Materialize()
	if h.push != nil {
		h.push.Materialize()
	}
}

// acc returns the accumulators, made on first use with every one the
// identity: a run whose supersteps all claim (a search's, Claimer and
// FirstClaimer) never needs them (4 MB to fill a query on a graph of 1M
// vertices). The CPU stepper makes them at its start for every other run
// (so a run's first superstep does not pay for them).
func (h *hostRun[X, A]) acc() []A {
	if h.y == nil {
		h.y = newAccumulators[A](h.spare, h.n)
		par.Blocks(h.n, func(_, lo, hi int) {
			for v := lo; v < hi; v++ {
				h.y[v] = h.identity
			}
		})
	}
	return h.y
}

// hostRun is a run's host state: PREPROCESS's products and, on the CPU
// backend, everything the supersteps touch.
type hostRun[X, A any] struct {
	p          Program[X, A]
	spec       Spec
	n          int
	pull, push *driver.Matrix
	x          []X
	y          []A // (made by acc)
	identity   A
	frontier   *bitmask.Bitmask // x_bitmask: active in this superstep
	active     *bitmask.Bitmask // active_bitmask: changed in this superstep
	touched    *bitmask.Bitmask // rows a push, or a Sparse program's pull, wrote to
	// The program as its optional interfaces (nil where it has none).
	wants     RowFilter
	done      EarlyExit[A]
	gatherRow RowGatherer[X, A]
	block     BlockGatherer[X, A]
	sum       bool // block is a SumGatherer's
	first     FirstGatherer[X, A]
	steps     []Step
	tallies   []tally // one per worker
	initEdges int64
	// activeCount is the number of vertices active now: the next
	// superstep's frontier.
	activeCount int
	// deviceInit: prepare left Init to a device's vp_init (or to init).
	deviceInit bool
	// nnz is the entries of the gather matrix of the whole graph, which
	// the direction chooser weighs a frontier against (a part's pull
	// holds only its own rows).
	nnz int64
	// frontDeg[v] is v's degree in the whole graph's push matrix, the
	// edges a frontier holding v pushes along (a part's push matrix holds
	// only the arcs into the part); nil without a push matrix.
	frontDeg []int32
	// lo and hi are the vertices the run updates: [0, n), or a part's.
	lo, hi int32
	// spare is the graph's scratch of finished runs (nil: none).
	spare *spares
}

// matrices gets the pull matrix, and the push matrix when the program can
// push and opt allows it, in opt.HYB's form; device: the run may go to a
// device, which builds a directed graph's in-matrix itself, and its
// undirected view where symRows gives the view's rows (matrixFor).
func (r *hostRun[X, A]) matrices(g *Graph, opt Options, device bool, symRows func() []int64) error {
	var err error
	if r.pull, err = g.matrixFor(gatherRows(r.spec.Edges), opt.HYB, device, symRows); err != nil {
		return err
	}
	r.nnz, r.lo, r.hi = r.pull.NNZ(), 0, int32(r.n)
	r.push, r.frontDeg = nil, nil
	if push, err := r.wantsPush(opt); err != nil || !push {
		return err
	}
	if r.push, err = g.matrixFor(pushRows(r.spec.Edges), opt.HYB, device, symRows); err != nil {
		return err
	}
	r.frontDeg = r.push.Degree
	return nil
}

// wantsPush says whether the run needs a push matrix: the program can
// push and opt allows it (an error where opt forces pushes it cannot).
func (r *hostRun[X, A]) wantsPush(opt Options) (bool, error) {
	pushErr := canPush(r.p)
	if opt.Direction == Push && pushErr != nil {
		return false, pushErr
	}
	return pushErr == nil && opt.Direction != Pull, nil
}

// prepare is PREPROCESS and Init: the program's Prepare, the HYB matrices,
// the value and accumulator arrays and bitmasks, and the first frontier.
// When the run may go to a device (mayDevice) and the program's device
// code has vp_init, it skips Init (deviceInit): the device makes the
// initial state where the run goes there (the host's Init, a fill of 16
// MB a kron21 BFS, and its upload or, resident, its comparison with the
// last run's, are saved), the caller runs init where it does not.
func prepare[X, A any](g *Graph, p Program[X, A], opt Options, mayDevice bool, symRows func() []int64) (*hostRun[X, A], error) {
	r := &hostRun[X, A]{p: p, spec: p.Spec(), n: g.N(), spare: &g.spare}
	pt := phase.New("vertexprog", "prepare")
	defer pt.Print()
	if prep, ok := p.(Preparer); ok {
		if err := prep.Prepare(g); err != nil {
			return nil, err
		}
		pt.Mark("program's Prepare")
	}
	if err := r.matrices(g, opt, mayDevice, symRows); err != nil {
		return nil, err
	}
	pt.Mark("matrices")
	if xs, ok := opt.Values.([]X); ok && len(xs) == r.n {
		r.x = xs
	} else {
		r.x = huge.Make[X](r.n)
	}
	r.identity = p.Identity()
	pt.Mark("values")
	r.optional(opt)
	if mayDevice && p.(DeviceProgram).Device().Init {
		r.deviceInit = true
		pt.Mark("Init left to the device")
		return r, nil
	}
	if err := r.init(); err != nil {
		return nil, err
	}
	pt.Mark("Init")
	return r, nil
}

// optional takes the program's optional interfaces (those of the
// CPU's gathers not under Options.PerEdge) and makes the workers'
// aggregator steps and tallies.
func (r *hostRun[X, A]) optional(opt Options) {
	p := r.p
	if f, ok := p.(RowFilter); ok {
		r.wants = f
	}
	if e, ok := p.(EarlyExit[A]); ok {
		r.done = e
	}
	if rg, ok := p.(RowGatherer[X, A]); ok && !opt.PerEdge {
		r.gatherRow = rg
	}
	if bg, ok := p.(BlockGatherer[X, A]); ok && !opt.PerEdge {
		r.block = bg
		_, r.sum = p.(SumGatherer)
	}
	if fg, ok := p.(FirstGatherer[X, A]); ok && r.done != nil && !opt.PerEdge {
		r.first = fg
	}
	workers := par.Workers()
	r.steps = newSteps(workers, r.spec.Aggregators, r.n)
	limit := iterationLimit(r.spec, opt)
	for i := range r.steps {
		r.steps[i].limit = limit
	}
	r.tallies = make([]tally, workers)
}

// init runs the program's Init (or InitRange) for every vertex on all
// cores and makes the first frontier.
func (r *hostRun[X, A]) init() error {
	p := r.p
	r.frontier, r.active = r.spare.newMask(r.n), r.spare.newMask(r.n)
	ri, ranged := p.(RangeIniter[X])
	var badInit atomic.Bool
	initWords := func(st *Step, t *tally, lo, hi int) {
		vlo, vhi := int32(lo*32), int32(min(hi*32, r.n))
		if !ranged {
			for v := vlo; v < vhi; v++ {
				x, act := p.Init(v, st)
				r.x[v] = x
				if act {
					r.activate(t, v)
				}
			}
		} else if all, act := ri.InitRange(vlo, vhi, r.x[vlo:vhi], st); all {
			r.active.SetWords(lo, hi)
			t.count += int64(vhi - vlo)
			if r.frontDeg != nil {
				for _, d := range r.frontDeg[vlo:vhi] {
					t.edges += int64(d)
				}
			}
		} else {
			for _, v := range act {
				if v < vlo || v >= vhi {
					badInit.Store(true)
					break
				}
				r.activate(t, v)
			}
		}
	}
	words := r.active.NumWords()
	if r.steps[0].cells == nil {
		par.Blocks(words, func(w, lo, hi int) {
			t := tally{}
			initWords(&r.steps[w], &t, lo, hi)
			r.tallies[w] = t
		})
	} else {
		// By whole cells, each one piece whatever the number of workers
		// (cellSums).
		par.Blocks((words+cellWords-1)/cellWords, func(w, lo, hi int) {
			st, t := &r.steps[w], tally{}
			for c := lo; c < hi; c++ {
				initWords(st, &t, c*cellWords, min((c+1)*cellWords, words))
				st.flushCell(c * cellWords)
			}
			r.tallies[w] = t
		})
	}
	if badInit.Load() {
		return fmt.Errorf("vertexprog: %T.InitRange listed an active vertex outside its range", p)
	}
	r.activeCount, r.initEdges = r.tally()
	return nil
}

// tally is what one worker activated in a superstep: vertices and their
// push-matrix edges. Workers count into locals and store their tally once;
// the padding keeps two workers' tallies off one cache line (counting into
// adjacent int64s per vertex made APPLY slower on two cores than on one).
type tally struct {
	count, edges int64
	_            [48]byte
}

// activate marks v active for the next superstep. Callers split the work
// by whole bitmask words, so the bit is set without an atomic.
func (r *hostRun[X, A]) activate(t *tally, v int32) {
	r.active.Set(v)
	t.count++
	if r.frontDeg != nil {
		t.edges += int64(r.frontDeg[v])
	}
}

// tally sums and resets the workers' counts of activated vertices and of
// their push-matrix edges (the next frontier's work).
func (r *hostRun[X, A]) tally() (int, int64) {
	var c, e int64
	for w := range r.tallies {
		c += r.tallies[w].count
		e += r.tallies[w].edges
		r.tallies[w] = tally{}
	}
	return int(c), e
}

// denseFrontier: an Idempotent program pulls unmasked once at least
// 1/denseFrontier of the vertices are active, or half of the edges are
// the frontier's: a masked pull scans every edge anyway, and an unmasked
// one gathers each without a test (kron20 SSSP, whose few active hubs
// hold most of the edges, one core: 305-320 ms by the vertices alone,
// 260-270 with the edges; urand20, whose degrees are even, the same;
// a quarter of the edges made urand20 10% slower).
const denseFrontier = 4
