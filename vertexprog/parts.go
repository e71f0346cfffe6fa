package vertexprog

import (
	"errors"
	"fmt"
	"reflect"
	"time"
	"unsafe"

	"github.com/hpgraph/hpgraph/bitmask"
	"github.com/hpgraph/hpgraph/hyb"
	"github.com/hpgraph/hpgraph/internal/phase"
	"github.com/hpgraph/hpgraph/vertexprog/driver"
)

// The partitioned run (partition.go says what a part is): its start,
// the CPU's parts, and the exchange between supersteps, which every
// kind of part shares in its message form (packParts, unpack).

// ErrNoParts is returned (wrapped) for a partitioned run its backend
// cannot run.
var ErrNoParts = errors.New("vertexprog: backend does not run partitioned runs")

// partsFor is how many parts a run of opt has: Options.Parts, else one
// per device of a driver.PartBackend the run would take (1: a whole-graph run).
func partsFor[X, A any](p Program[X, A], opt Options) int {
	if opt.Parts <= 0 && commSize(opt.Comm) <= 1 && !mayUseDevice(opt.Backend, p) {
		return 1
	}
	return PartsOf(opt)
}

// PartsOf is how many parts the runs of opt split a graph into where
// their program can be split: Options.Parts (on each of the Comm's
// processes), else one per process of several, else one per device of a
// driver.PartBackend opt's backend names (1: whole-graph runs). A loader
// renumbering a graph for such runs interleaves its degree order over them
// (Relabel). It does not wait for a device to open: a backend whose probe
// (driver.Prober) finds what it needs counts, so a loader may ask while
// the device opens beside the load.
func PartsOf(opt Options) int {
	if opt.Parts > 0 {
		return opt.Parts * commSize(opt.Comm)
	}
	if opt.Comm != nil && opt.Comm.Size() > 1 {
		return opt.Comm.Size()
	}
	if pb, ok := probedAs[driver.PartBackend](opt.Backend); ok && pb.PartDevices() > 1 {
		return pb.PartDevices()
	}
	return 1
}

func commSize(c Comm) int {
	if c == nil {
		return 1
	}
	return c.Size()
}

// split is p's partition of g's rows (rowPtr) into parts: SplitRows's,
// or for a search, whose rows cost more, searchSplit's, except on a
// graph of some rows, whose processes' parts are the rows each holds
// (heldRows.partition).
func split[X, A any](g *Graph, p Program[X, A], rowPtr []int64, parts int) (Partition, error) {
	_, filters := any(p).(RowFilter)
	_, exits := any(p).(EarlyExit[A])
	if g.held != nil {
		return g.held.partition(parts)
	}
	if filters && exits {
		return searchSplit(rowPtr, parts)
	}
	return SplitRows(rowPtr, parts)
}

// partDevice is the device backend a partitioned run's parts run on, and
// where the program's code there comes from (called after Prepare).
type partDevice struct {
	pb   driver.PartBackend
	code func() DeviceCode
	// multiset: code is a MultisetDeviceProgram's (driver.DeviceJob.Multiset).
	multiset bool
}

// runParts is Run for a partitioned run of P parts (P > 1, or a Comm of
// several processes), of which this process runs P / Size: on dev where
// it is not nil (a multiset program's, whose backend its adapter chose),
// else on the device backend opt selects for a DeviceProgram, else on
// the CPU.
func runParts[X, A any](g *Graph, p Program[X, A], opt Options, parts int, dev *partDevice) (*Result[X], error) {
	t0 := time.Now()
	size, rank := 1, 0
	if opt.Comm != nil {
		size, rank = opt.Comm.Size(), opt.Comm.Rank()
	}
	if parts%size != 0 {
		return nil, fmt.Errorf("vertexprog: %d parts do not split evenly over %d processes", parts, size)
	}
	spec := p.Spec()
	if opt.HYB == (hyb.Options{}) {
		opt.HYB = hyb.CPUOptions()
	}
	if dev == nil && mayUseDevice(opt.Backend, p) {
		b, err := selectBackend(opt.Backend, p)
		if err != nil {
			return nil, err
		}
		if b != nil {
			pb, ok := b.(driver.PartBackend)
			if !ok {
				return nil, fmt.Errorf("%w: %s", ErrNoParts, b.Name())
			}
			if opt.HYB == hyb.CPUOptions() {
				opt.HYB = hyb.DefaultOptions()
			}
			dev = &partDevice{pb: pb, code: p.(DeviceProgram).Device}
		}
	} else if dev == nil && opt.Backend != "" && opt.Backend != "auto" && opt.Backend != "cpu" {
		if _, err := selectBackend(opt.Backend, p); err != nil {
			return nil, err
		}
	}
	if err := rowsReadable(g, p); err != nil {
		return nil, err
	}
	if prep, ok := p.(Preparer); ok {
		if err := prep.Prepare(g); err != nil {
			return nil, err
		}
	}
	tr := phase.New("vertexprog", fmt.Sprintf("%d parts' PREPROCESS on the host", parts))
	defer tr.Print()
	rowPtr, nnz, err := g.splitRows(spec.Edges, opt.HYB)
	if err != nil {
		return nil, err
	}
	pt, err := split(g, p, rowPtr, parts)
	if err != nil {
		return nil, err
	}
	tr.Mark("split")
	if err := agree(opt.Comm, fmt.Sprintf("%d parts of %T on a graph of %d vertices and %d arcs (direction %v, rule %d, alpha %g, beta %g, %d iterations, HYB %+v)",
		parts, p, g.N(), nnz, opt.Direction, opt.Rule, opt.Alpha, opt.Beta, opt.MaxIterations, opt.HYB)); err != nil {
		return nil, err
	}
	if size > 1 {
		// Every process gathers every other's results at the end, so none
		// may leave its own on a device (a process that writes no output
		// asks for a summary).
		opt.SummaryOnly, opt.NoValues = false, false
	}
	// Every process holds every vertex's value and frontier bit, so each
	// runs Init over all of them (the same values everywhere) into its
	// first part; the other parts copy them.
	local := parts / size
	if err := g.partRows(pt.Bounds[rank*local], pt.Bounds[(rank+1)*local], true); err != nil {
		return nil, err
	}
	push, err := (&hostRun[X, A]{p: p}).wantsPush(opt)
	if err != nil {
		return nil, err
	}
	if push && g.held != nil {
		if err := g.pushCounts(pt, rank, local, opt.Comm); err != nil {
			return nil, err
		}
	}
	tr.Mark("rows")
	runs := make([]*hostRun[X, A], local)
	for i := range runs {
		lo, hi := pt.Range(rank*local + i)
		r := &hostRun[X, A]{p: p, spec: spec, n: g.N(), lo: lo, hi: hi, nnz: nnz}
		if r.pull, r.push, err = g.PartMatrices(spec.Edges, opt.HYB, lo, hi, !push); err != nil {
			return nil, err
		}
		r.identity = p.Identity()
		r.optional(opt)
		runs[i] = r
		tr.Mark(fmt.Sprintf("part %d's matrices", rank*local+i))
	}
	if runs[0].push != nil {
		fd, err := g.frontierDegrees(spec.Edges, opt.HYB)
		if err != nil {
			return nil, err
		}
		for _, r := range runs {
			r.frontDeg = fd
		}
		tr.Mark("frontier degrees")
	}
	h0 := runs[0]
	h0.x = make([]X, h0.n)
	if xs, ok := opt.Values.([]X); ok && len(xs) == h0.n {
		h0.x = xs
	}
	// Init over every vertex (its lo, hi are those of the whole graph for
	// this call).
	lo, hi := h0.lo, h0.hi
	h0.lo, h0.hi = 0, int32(h0.n)
	err = h0.init()
	h0.lo, h0.hi = lo, hi
	if err != nil {
		return nil, err
	}
	tr.Mark("init")
	prev := h0.steps[0].prev
	advance(h0.steps, 0)
	for _, r := range runs {
		for i := range r.steps {
			r.steps[i].prev = prev
		}
	}
	for _, r := range runs[1:] {
		r.x = append([]X(nil), h0.x...)
		r.frontier, r.active = bitmask.New(r.n), bitmask.New(r.n)
		r.active.CopyFrom(h0.active)
		r.activeCount, r.initEdges = h0.activeCount, h0.initEdges
	}
	if hp, ok := p.(HostPreparer); ok && dev == nil {
		if err := hp.PrepareHost(g); err != nil {
			return nil, err
		}
	}
	res := &Result[X]{Backend: "cpu"}
	tr.Mark("parts' state")
	if dev != nil {
		return runDeviceParts(g, opt, dev, pt, runs, res, t0, tr)
	}
	steppers := make([]*cpuStepper[X, A], len(runs))
	for i, r := range runs {
		r.materialize()
		steppers[i] = newCPUStepper(r, opt, true)
	}
	sm, err := newSums(p, opt.Comm)
	if err != nil {
		return nil, err
	}
	cp := &cpuParts[X, A]{runs: steppers, pt: pt, reads: g.readSpans(spec.Edges, pt), comm: opt.Comm, base: rank * local, prev: prev, xsize: int(unsafe.Sizeof(*new(X))), sums: sm}
	res.Preprocess = time.Since(t0)
	t1 := time.Now()
	if err := loop(h0, cp, opt, res); err != nil {
		return nil, err
	}
	res.Compute = time.Since(t1)
	// Each part's own values into the first's.
	for _, r := range runs[1:] {
		copy(h0.x[r.lo:r.hi], r.x[r.lo:r.hi])
	}
	var code *DeviceCode
	if dp, ok := p.(DeviceProgram); ok && size > 1 {
		c := dp.Device()
		code = &c
	}
	if err := gatherAll(code, opt, pt, rank*local, local, h0.x); err != nil {
		return nil, err
	}
	res.X = h0.x
	res.Parts, res.Whole = cp.stats(), wholeBytes(p)
	return res, nil
}

// namesOrientation reports whether code names an Orientation of g.
func namesOrientation(code DeviceCode, g *Graph) bool {
	for _, a := range code.Arrays {
		if a.Orientation != nil && a.Orientation.Of(g) {
			return true
		}
	}
	return false
}

// wholeBytes is Result.Whole for a partitioned run of p: the bytes of the
// Orientation arrays its device code names, each counted once (those the
// run built; nothing for a program that names none).
func wholeBytes(p any) int64 {
	dp, ok := p.(DeviceProgram)
	if !ok {
		return 0
	}
	type key struct {
		o    *Orientation
		part OrientationPart
	}
	seen := map[key]bool{}
	total := int64(0)
	for _, a := range dp.Device().Arrays {
		k := key{a.Orientation, a.Part}
		if a.Orientation == nil || seen[k] {
			continue
		}
		seen[k] = true
		if a.Orientation.Off == nil {
			continue // (not built: Slice would build it)
		}
		if v := reflect.ValueOf(a.Slice()); v.Kind() == reflect.Slice {
			total += int64(v.Len()) * int64(v.Type().Elem().Size())
		}
	}
	return total
}

// rowsReadable refuses, on a graph of which this process holds some rows
// (NewGraphRows), a program that would read others: one with host data
// built from the whole adjacency (HostPreparer) or device arrays over an
// Orientation. (A multiset program gathers its part's rows of the pull
// matrix, as any other.)
func rowsReadable[X, A any](g *Graph, p Program[X, A]) error {
	if g.held == nil {
		return nil
	}
	why := ""
	if _, ok := p.(HostPreparer); ok {
		why = "prepares host data from the whole adjacency (HostPreparer)"
	} else if dp, ok := p.(DeviceProgram); ok {
		for _, a := range dp.Device().Arrays {
			if a.Orientation != nil {
				why = "reads an orientation of the whole graph (" + a.Name + ")"
			}
		}
	}
	if why != "" {
		return g.wholeRows(fmt.Sprintf("%T %s, which", p, why))
	}
	return nil
}

// gatherAll is gatherOwned for a run over several processes (nothing
// otherwise); code is the program's device code, nil for none.
func gatherAll[X any](code *DeviceCode, opt Options, pt Partition, first, local int, x []X) error {
	if opt.Comm == nil || opt.Comm.Size() <= 1 {
		return nil
	}
	return gatherOwned(opt.Comm, pt, first, local, valueBytes(x), int(unsafe.Sizeof(*new(X))), code)
}

// agree checks that every process of comm runs what this one does
// (what: the parts, the program and the graph), so that a process
// started with other flags or another file fails at once, saying how.
func agree(comm Comm, what string) error {
	if comm == nil || comm.Size() <= 1 {
		return nil
	}
	all, err := comm.AllGather([]byte(what))
	if err != nil {
		return err
	}
	for r, b := range all {
		if string(b) != what {
			return fmt.Errorf("vertexprog: process %d runs %s, process %d %s: every process of a run needs the same graph, program and parts", r, b, comm.Rank(), what)
		}
	}
	return nil
}

// readSpans is driver.Part.Arcs for a run over edge type e in the parts
// of pt: every part's vertices up to its last with an arc in the push's
// direction (out-arcs for a pull over in-arcs, any arc of an undirected
// graph), from the row offsets the graph holds; nil for a directed
// graph's other edge types (their push rows are not at hand), where
// every part sends its whole range.
func (g *Graph) readSpans(e EdgeType, pt Partition) []driver.Span {
	if g.g.Directed && pushRows(e) != rowsOut {
		return nil
	}
	return arcSpans(g.rowPtr(), pt)
}

// frontierDegrees is every vertex's degree in the whole graph's push
// matrix for edge type e (its row lengths, without building it).
func (g *Graph) frontierDegrees(e EdgeType, opt hyb.Options) ([]int32, error) {
	r := pushRows(e)
	if !g.g.Directed || r == rowsOut {
		return g.OutDegrees(), nil
	}
	if r == rowsIn {
		return g.Memo(inDegreesKey{}, func() any { return rowLengths(inRowPtr(g.g)) }).([]int32), nil
	}
	m, err := g.matrixFor(r, opt, false, nil)
	if err != nil {
		return nil, err
	}
	return m.Degree, nil
}

type inDegreesKey struct{}

// runDeviceParts runs the local parts runs (prepared, Init done) on
// dev's devices.
func runDeviceParts[X, A any](g *Graph, opt Options, dev *partDevice, pt Partition, runs []*hostRun[X, A], res *Result[X], t0 time.Time, tr *phase.Trace) (*Result[X], error) {
	h0, pb, code := runs[0], dev.pb, dev.code()
	jobs := make([]*driver.DeviceJob, len(runs))
	reads := g.readSpans(h0.spec.Edges, pt)
	base := 0
	if opt.Comm != nil {
		base = opt.Comm.Rank() * len(runs)
	}
	// (each part's device builds the whole orientation from the whole
	// graph's matrix, as a whole run does, where it has room: built on
	// the host, kron24's triangles on two GPUs answered in 3.0 s, one
	// GPU's in 1.9; docs/parts.md)
	var whole *driver.Matrix
	if namesOrientation(code, g) && h0.spec.Edges == AllEdges {
		var err error
		if whole, err = g.matrixFor(gatherRows(AllEdges), opt.HYB, true, nil); err != nil {
			return nil, err
		}
		tr.Mark("the whole graph's matrix")
	}
	for i, r := range runs {
		jobs[i] = &driver.DeviceJob{
			Graph: g, Spec: r.spec, Code: code, Pull: r.pull, Push: r.push, Multiset: dev.multiset,
			X: valueBytes(h0.x), XSize: int(unsafe.Sizeof(*new(X))), ASize: int(unsafe.Sizeof(*new(A))),
			Active: h0.active, Aggregates: append([]float64(nil), h0.steps[0].prev...),
			HasWants: r.wants != nil, HasDone: r.done != nil, Resident: opt.Resident,
			Part: &driver.Part{Index: base + i, Count: pt.Parts(), Lo: r.lo, Hi: r.hi, FrontierDegree: r.frontDeg, Arcs: reads}, Whole: whole,
		}
	}
	run, err := pb.StartParts(jobs, opt.Comm)
	if err != nil {
		return nil, err
	}
	tr.Mark("the parts started on their devices")
	defer run.Close()
	ds := &deviceStepper{run: run, agg: jobs[0].Aggregates}
	res.Backend = pb.Name()
	res.Preprocess = time.Since(t0)
	t1 := time.Now()
	if err := loop(h0, ds, opt, res); err != nil {
		return nil, err
	}
	res.Compute = time.Since(t1)
	if err := finishDevice(ds, h0, opt, res); err != nil {
		return nil, err
	}
	if err := gatherAll(&code, opt, pt, base, len(runs), res.X); err != nil {
		return nil, err
	}
	if ps, ok := run.(interface{ Parts() []PartStat }); ok {
		res.Parts, res.Whole = ps.Parts(), wholeBytes(runs[0].p)
	}
	if wr, ok := run.(interface{ WholeBytes() int64 }); ok && whole != nil {
		if b := wr.WholeBytes(); b > 0 {
			res.Whole = b // (the device built it, not the host)
		}
	}
	return res, nil
}

// gatherOwned completes, on every process of a run over several, the
// per-vertex arrays each holds only its own parts' share of: the values
// x (xsize bytes a vertex) and the program's writable state arrays
// (DeviceCode.Arrays that are neither ReadOnly nor Scratch), each process
// sending its parts' ranges. A program of the CPU alone states no arrays:
// its state beyond the values stays each process's own.
func gatherOwned(comm Comm, pt Partition, first, local int, x []byte, xsize int, code *DeviceCode) error {
	arrays := [][]byte{x}
	sizes := []int{xsize}
	if code != nil {
		for _, a := range code.Arrays {
			if a.ReadOnly || a.Scratch || a.Orientation != nil {
				continue
			}
			b, size, ok := elemBytes(a.Data)
			if !ok {
				return fmt.Errorf("vertexprog: state array %s is a %T, not a slice of numbers", a.Name, a.Data)
			}
			arrays, sizes = append(arrays, b), append(sizes, size)
		}
	}
	var msg []byte
	for i, b := range arrays {
		if sizes[i] == 0 || len(b) == 0 {
			continue
		}
		for p := first; p < first+local; p++ {
			lo, hi := pt.Range(p)
			msg = append(msg, b[int(lo)*sizes[i]:int(hi)*sizes[i]]...)
		}
	}
	all, err := comm.AllGather(msg)
	if err != nil {
		return err
	}
	for r, m := range all {
		if r == comm.Rank() {
			continue
		}
		for i, b := range arrays {
			if sizes[i] == 0 || len(b) == 0 {
				continue
			}
			for p := r * local; p < (r+1)*local; p++ {
				lo, hi := pt.Range(p)
				k := int(hi-lo) * sizes[i]
				if len(m) < k {
					return fmt.Errorf("vertexprog: process %d sent %d bytes too few of its results", r, k-len(m))
				}
				copy(b[int(lo)*sizes[i]:], m[:k])
				m = m[k:]
			}
		}
		if len(m) != 0 {
			return fmt.Errorf("vertexprog: process %d sent %d bytes too many of its results", r, len(m))
		}
	}
	return nil
}

// elemBytes views a slice of numbers as bytes.
func elemBytes(data any) ([]byte, int, bool) {
	switch s := data.(type) {
	case []int32:
		return valueBytes(s), 4, true
	case []uint32:
		return valueBytes(s), 4, true
	case []float32:
		return valueBytes(s), 4, true
	case []int64:
		return valueBytes(s), 8, true
	case []uint64:
		return valueBytes(s), 8, true
	case []float64:
		return valueBytes(s), 8, true
	}
	return nil, 0, false
}
