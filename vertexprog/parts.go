package vertexprog

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"time"
	"unsafe"

	"github.com/hpgraph/hpgraph/bitmask"
	"github.com/hpgraph/hpgraph/hyb"
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
	if opt.Parts > 0 {
		return opt.Parts * commSize(opt.Comm)
	}
	if opt.Comm != nil && opt.Comm.Size() > 1 {
		return opt.Comm.Size()
	}
	if !mayUseDevice(opt.Backend, p) || deviceSplit(p) != nil {
		return 1 // (a program a device cannot split runs whole on the first)
	}
	if pb, ok := backendAs[driver.PartBackend](opt.Backend); ok && pb.PartDevices() > 1 {
		return pb.PartDevices()
	}
	return 1
}

// deviceSplit says why a device backend cannot run p split into parts,
// or nil: its Sum arrays (DeviceArray.Sum) would have to be added up
// between a superstep's SPMV and its APPLY, which a device's superstep
// runs in one go.
func deviceSplit[X, A any](p Program[X, A]) error {
	dp, ok := p.(DeviceProgram)
	if !ok {
		return nil
	}
	for _, a := range dp.Device().Arrays {
		if a.Sum {
			return fmt.Errorf("%w on a device: %T adds to other vertices' %s in its Gathers (DeviceArray.Sum), which parts on devices do not add up yet; it runs split on the CPU backend, or whole on one device", ErrNoParts, p, a.Name)
		}
	}
	return nil
}

func commSize(c Comm) int {
	if c == nil {
		return 1
	}
	return c.Size()
}

// runParts is Run for a partitioned run of P parts (P > 1, or a Comm of
// several processes), of which this process runs P / Size.
func runParts[X, A any](g *Graph, p Program[X, A], opt Options, parts int) (*Result[X], error) {
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
	var pb driver.PartBackend
	if mayUseDevice(opt.Backend, p) {
		b, err := selectBackend(opt.Backend, p)
		if err != nil {
			return nil, err
		}
		if b != nil {
			var ok bool
			if pb, ok = b.(driver.PartBackend); !ok {
				return nil, fmt.Errorf("%w: %s", ErrNoParts, b.Name())
			}
			if err := deviceSplit(p); err != nil {
				return nil, err
			}
			if opt.HYB == hyb.CPUOptions() {
				opt.HYB = hyb.DefaultOptions()
			}
		}
	} else if opt.Backend != "" && opt.Backend != "auto" && opt.Backend != "cpu" {
		if _, err := selectBackend(opt.Backend, p); err != nil {
			return nil, err
		}
	}
	if prep, ok := p.(Preparer); ok {
		if err := prep.Prepare(g); err != nil {
			return nil, err
		}
	}
	whole, err := g.matrixFor(gatherRows(spec.Edges), opt.HYB, false, nil)
	if err != nil {
		return nil, err
	}
	pt, err := SplitRows(whole.Src.RowPtr, parts)
	if err != nil {
		return nil, err
	}
	if err := agree(opt.Comm, fmt.Sprintf("%d parts of %T on a graph of %d vertices and %d arcs (direction %v, rule %d, alpha %g, beta %g, %d iterations, HYB %+v)",
		parts, p, g.N(), whole.NNZ(), opt.Direction, opt.Rule, opt.Alpha, opt.Beta, opt.MaxIterations, opt.HYB)); err != nil {
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
	runs := make([]*hostRun[X, A], local)
	for i := range runs {
		lo, hi := pt.Range(rank*local + i)
		r := &hostRun[X, A]{p: p, spec: spec, n: g.N(), lo: lo, hi: hi, nnz: whole.NNZ()}
		push, err := r.wantsPush(opt)
		if err != nil {
			return nil, err
		}
		if r.pull, r.push, err = g.PartMatrices(spec.Edges, opt.HYB, lo, hi, !push); err != nil {
			return nil, err
		}
		r.identity = p.Identity()
		r.optional(opt)
		runs[i] = r
	}
	if runs[0].push != nil {
		fd, err := g.frontierDegrees(spec.Edges, opt.HYB)
		if err != nil {
			return nil, err
		}
		for _, r := range runs {
			r.frontDeg = fd
		}
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
	if hp, ok := p.(HostPreparer); ok && pb == nil {
		if err := hp.PrepareHost(g); err != nil {
			return nil, err
		}
	}
	res := &Result[X]{Backend: "cpu"}
	if pb != nil {
		return runDeviceParts(g, p, opt, pb, pt, runs, res, t0)
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
	cp := &cpuParts[X, A]{runs: steppers, pt: pt, comm: opt.Comm, base: rank * local, prev: prev, xsize: int(unsafe.Sizeof(*new(X))), sums: sm}
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
	if err := gatherAll(p, opt, pt, rank*local, local, h0.x); err != nil {
		return nil, err
	}
	res.X = h0.x
	res.Parts = cp.stats()
	return res, nil
}

// gatherAll is gatherOwned for a run over several processes (nothing
// otherwise).
func gatherAll[X, A any](p Program[X, A], opt Options, pt Partition, first, local int, x []X) error {
	if opt.Comm == nil || opt.Comm.Size() <= 1 {
		return nil
	}
	var code *DeviceCode
	if dp, ok := p.(DeviceProgram); ok {
		c := dp.Device()
		code = &c
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

// cpuParts runs the parts of a partitioned run on the CPU, one after
// the other on all cores, exchanging by messages between supersteps:
// the path every partitioned run takes, checked against the whole-graph
// run where no device is.
type cpuParts[X, A any] struct {
	runs  []*cpuStepper[X, A]
	pt    Partition
	comm  Comm
	base  int       // the first local part's index
	prev  []float64 // the aggregators every part's Steps read
	xsize int
	sums  *sums // Sum arrays to add up over processes between SPMV and APPLY
	part  []PartStat
}

func (c *cpuParts[X, A]) step(it int, dir Direction) (int, int64, error) {
	if c.part == nil {
		c.part = make([]PartStat, len(c.runs))
		for i, r := range c.runs {
			c.part[i] = PartStat{Index: c.base + i, Lo: r.lo, Hi: r.hi, Arcs: r.pull.NNZ()}
		}
	}
	// Every part's SPMV before any part's APPLY, as in a whole-graph
	// superstep: a Gather may leave something for other vertices' Updates
	// (LCC credits each triangle's three vertices).
	msgs := make([]partMsg, len(c.runs))
	for i, r := range c.runs {
		t := time.Now()
		for j := range r.steps {
			r.steps[j].Iteration = it
		}
		r.spmvPhase(dir)
		c.part[i].Compute += time.Since(t)
	}
	if err := c.sums.exchange(); err != nil {
		return 0, 0, err
	}
	for i, r := range c.runs {
		t := time.Now()
		msgs[i].active, msgs[i].edges = r.applyPhase(dir)
		r.frontierToBits()
		msgs[i].aggs = foldSteps(r.steps)
		c.part[i].Compute += time.Since(t)
	}
	t := time.Now()
	all, err := exchangeMsgs(c.comm, msgs, func(i int, sparse bool) []byte {
		r := c.runs[i]
		return packPart(r.lo, r.hi, r.active, valueBytes(r.x), c.xsize, sparse)
	}, driver.SparseExchange(c.runs[0].spec, c.runs[0].n, c.xsize))
	if err != nil {
		return 0, 0, err
	}
	active, edges := combineMsgs(all, c.runs[0].spec.Aggregators, c.prev)
	for i, r := range c.runs {
		for _, m := range all {
			if m.index == c.base+i {
				continue
			}
			if err := unpackPart(m.blob, r.active, valueBytes(r.x), c.xsize); err != nil {
				return 0, 0, err
			}
			c.part[i].ExchangeBytes += int64(len(m.blob))
		}
		// (the whole run's counts: the next superstep's direction and
		// work, as in a whole-graph run)
		r.activeCount, r.edges = active, edges
		c.part[i].Exchange += time.Since(t) / time.Duration(len(c.runs))
	}
	return active, edges, nil
}

func (c *cpuParts[X, A]) aggregates() []float64 { return c.prev }

func (c *cpuParts[X, A]) stats() []PartStat { return c.part }

// foldSteps combines a part's workers' contributions to the aggregators
// and resets them.
func foldSteps(steps []Step) []float64 {
	if len(steps) == 0 || len(steps[0].ops) == 0 {
		return nil
	}
	ops := steps[0].ops
	out := make([]float64, len(ops))
	for j, op := range ops {
		out[j] = op.Identity()
		for i := range steps {
			out[j] = op.Combine(out[j], steps[i].acc[j])
			steps[i].acc[j] = op.Identity()
		}
	}
	return out
}

// partMsg is what a part tells every other after a superstep: what it
// activated, their frontier edges, its aggregator contributions and its
// vertices' new state (packPart's blob).
type partMsg struct {
	index  int
	active int
	edges  int64
	aggs   []float64
	blob   []byte
}

// exchangeMsgs sends the local parts' messages to every process and
// returns every part's, in part order: counts first (one all-gather),
// then, with the mode the global count picks, the parts' states (pack,
// by local part; a second all-gather).
func exchangeMsgs(comm Comm, local []partMsg, pack func(i int, sparse bool) []byte, sparse func(int) bool) ([]partMsg, error) {
	all := local
	if comm != nil && comm.Size() > 1 {
		got, err := comm.AllGather(encodeCounts(local))
		if err != nil {
			return nil, err
		}
		all = nil
		for r, b := range got {
			ms, err := decodeCounts(b)
			if err != nil {
				return nil, fmt.Errorf("vertexprog: process %d's counts: %w", r, err)
			}
			all = append(all, ms...)
		}
	}
	total := 0
	for _, m := range all {
		total += m.active
	}
	mode := sparse(total)
	for i := range local {
		local[i].blob = pack(i, mode)
	}
	if comm == nil || comm.Size() <= 1 {
		for i := range all {
			all[i].index = i
		}
		return all, nil
	}
	var buf []byte
	for _, m := range local {
		buf = binary.LittleEndian.AppendUint64(buf, uint64(len(m.blob)))
		buf = append(buf, m.blob...)
	}
	got, err := comm.AllGather(buf)
	if err != nil {
		return nil, err
	}
	k := 0
	for r, b := range got {
		for len(b) > 0 {
			if len(b) < 8 || uint64(len(b)-8) < binary.LittleEndian.Uint64(b) || k >= len(all) {
				return nil, fmt.Errorf("vertexprog: process %d sent a malformed exchange", r)
			}
			l := binary.LittleEndian.Uint64(b)
			all[k].blob, b = b[8:8+l], b[8+l:]
			all[k].index = k
			k++
		}
	}
	if k != len(all) {
		return nil, fmt.Errorf("vertexprog: the exchange had %d parts' states for %d parts", k, len(all))
	}
	return all, nil
}

// combineMsgs adds up the parts' counts and combines their aggregator
// contributions, in part order, into prev.
func combineMsgs(all []partMsg, ops []Aggregator, prev []float64) (int, int64) {
	active, edges := 0, int64(0)
	for j, op := range ops {
		prev[j] = op.Identity()
	}
	for _, m := range all {
		active += m.active
		edges += m.edges
		for j, op := range ops {
			prev[j] = op.Combine(prev[j], m.aggs[j])
		}
	}
	return active, edges
}

// encodeCounts is local's counts and aggregators as bytes.
func encodeCounts(local []partMsg) []byte {
	b := binary.LittleEndian.AppendUint32(nil, uint32(len(local)))
	for _, m := range local {
		b = binary.LittleEndian.AppendUint64(b, uint64(m.active))
		b = binary.LittleEndian.AppendUint64(b, uint64(m.edges))
		b = binary.LittleEndian.AppendUint32(b, uint32(len(m.aggs)))
		for _, a := range m.aggs {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(a))
		}
	}
	return b
}

func decodeCounts(b []byte) ([]partMsg, error) {
	bad := errors.New("malformed counts")
	if len(b) < 4 {
		return nil, bad
	}
	k := int(binary.LittleEndian.Uint32(b))
	b = b[4:]
	var ms []partMsg
	for range k {
		if len(b) < 20 {
			return nil, bad
		}
		m := partMsg{active: int(binary.LittleEndian.Uint64(b)), edges: int64(binary.LittleEndian.Uint64(b[8:]))}
		na := int(binary.LittleEndian.Uint32(b[16:]))
		b = b[20:]
		if na < 0 || len(b) < 8*na {
			return nil, bad
		}
		for j := range na {
			m.aggs = append(m.aggs, math.Float64frombits(binary.LittleEndian.Uint64(b[8*j:])))
		}
		b = b[8*na:]
		ms = append(ms, m)
	}
	if len(b) != 0 {
		return nil, bad
	}
	return ms, nil
}

// A part's state message (packPart): a kind byte, the range, then
//
//	dense:  the values of [lo, hi) and the frontier words of the range
//	sparse: the count, the activated vertices, their values
const (
	msgDense  = 1
	msgSparse = 2
)

// packPart is part [lo, hi)'s state after a superstep: its vertices'
// values (x, xsize bytes each) and frontier bits (active), all of them
// (dense) or those of its activated vertices (sparse).
func packPart(lo, hi int32, active *bitmask.Bitmask, x []byte, xsize int, sparse bool) []byte {
	b := make([]byte, 9, 64)
	binary.LittleEndian.PutUint32(b[1:], uint32(lo))
	binary.LittleEndian.PutUint32(b[5:], uint32(hi))
	wlo, whi := wordRange(lo, hi)
	words := active.Words()[wlo:whi]
	if !sparse {
		b[0] = msgDense
		b = append(b, x[int(lo)*xsize:int(hi)*xsize]...)
		for _, w := range words {
			b = binary.LittleEndian.AppendUint32(b, w)
		}
		return b
	}
	b[0] = msgSparse
	var vs []int32
	active.ForEachInWords(wlo, whi, func(v int32) { vs = append(vs, v) })
	b = binary.LittleEndian.AppendUint32(b, uint32(len(vs)))
	for _, v := range vs {
		b = binary.LittleEndian.AppendUint32(b, uint32(v))
	}
	for _, v := range vs {
		b = append(b, x[int(v)*xsize:int(v+1)*xsize]...)
	}
	return b
}

// wordRange is the frontier words of vertices [lo, hi) (none for an
// empty range, wherever it lies).
func wordRange(lo, hi int32) (int, int) {
	if hi <= lo {
		return 0, 0
	}
	return int(lo) / 32, (int(hi) + 31) / 32
}

// unpackPart writes another part's message into this part's values and
// frontier.
func unpackPart(b []byte, active *bitmask.Bitmask, x []byte, xsize int) error {
	bad := func(what string) error { return fmt.Errorf("vertexprog: a part's message is malformed: %s", what) }
	if len(b) < 9 {
		return bad("short header")
	}
	kind := b[0]
	lo, hi := int32(binary.LittleEndian.Uint32(b[1:])), int32(binary.LittleEndian.Uint32(b[5:]))
	if lo < 0 || hi < lo || int(hi) > active.Len() || lo%partAlign != 0 && lo != hi {
		return bad(fmt.Sprintf("range [%d, %d)", lo, hi))
	}
	wlo, whi := wordRange(lo, hi)
	b = b[9:]
	switch kind {
	case msgDense:
		nx := int(hi-lo) * xsize
		if len(b) != nx+4*(whi-wlo) {
			return bad("dense length")
		}
		copy(x[int(lo)*xsize:], b[:nx])
		words := active.Words()
		for i := wlo; i < whi; i++ {
			words[i] = binary.LittleEndian.Uint32(b[nx+4*(i-wlo):])
		}
	case msgSparse:
		if len(b) < 4 {
			return bad("sparse count")
		}
		k := int(binary.LittleEndian.Uint32(b))
		b = b[4:]
		if k < 0 || k > int(hi-lo) || len(b) != k*(4+xsize) {
			return bad("sparse length")
		}
		vals := b[4*k:]
		active.ClearRange(wlo, whi)
		for i := range k {
			v := int32(binary.LittleEndian.Uint32(b[4*i:]))
			if v < lo || v >= hi {
				return bad(fmt.Sprintf("vertex %d outside [%d, %d)", v, lo, hi))
			}
			active.Set(v)
			copy(x[int(v)*xsize:int(v+1)*xsize], vals[i*xsize:])
		}
	default:
		return bad(fmt.Sprintf("kind %d", kind))
	}
	return nil
}

// runDeviceParts runs the local parts runs (prepared, Init done) on pb's
// devices.
func runDeviceParts[X, A any](g *Graph, p Program[X, A], opt Options, pb driver.PartBackend, pt Partition, runs []*hostRun[X, A], res *Result[X], t0 time.Time) (*Result[X], error) {
	h0 := runs[0]
	code := p.(DeviceProgram).Device()
	jobs := make([]*driver.DeviceJob, len(runs))
	base := 0
	if opt.Comm != nil {
		base = opt.Comm.Rank() * len(runs)
	}
	for i, r := range runs {
		jobs[i] = &driver.DeviceJob{
			Graph: g, Spec: r.spec, Code: code, Pull: r.pull, Push: r.push,
			X: valueBytes(h0.x), XSize: int(unsafe.Sizeof(*new(X))), ASize: int(unsafe.Sizeof(*new(A))),
			Active: h0.active, Aggregates: append([]float64(nil), h0.steps[0].prev...),
			HasWants: r.wants != nil, HasDone: r.done != nil, Resident: opt.Resident,
			Part: &driver.Part{Index: base + i, Count: pt.Parts(), Lo: r.lo, Hi: r.hi, FrontierDegree: r.frontDeg},
		}
	}
	run, err := pb.StartParts(jobs, opt.Comm)
	if err != nil {
		return nil, err
	}
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
	if err := gatherAll(p, opt, pt, base, len(runs), res.X); err != nil {
		return nil, err
	}
	if ps, ok := run.(interface{ Parts() []PartStat }); ok {
		res.Parts = ps.Parts()
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

// sums keeps a run's Sum arrays (DeviceArray.Sum) added up over the
// processes of a run over several: each process sends what its parts
// added since the last exchange, and every process adds all of it to
// what they held then.
type sums struct {
	comm   Comm
	arrays []sumArray
}

// sumArray is one Sum array: its data and its sums at the last exchange.
type sumArray interface {
	delta() []byte        // what was added since the last exchange
	add(all [][]byte) int // adds every process's delta to the last sums; bytes read
}

type sumOf[T int32 | int64 | uint32 | uint64 | float32 | float64] struct {
	cur, snap []T
}

func (s *sumOf[T]) delta() []byte {
	d := make([]T, len(s.cur))
	for i := range d {
		d[i] = s.cur[i] - s.snap[i]
	}
	return valueBytes(d)
}

func (s *sumOf[T]) add(all [][]byte) int {
	size := int(unsafe.Sizeof(*new(T)))
	copy(s.cur, s.snap)
	for _, b := range all {
		d := unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), len(b)/size)
		for i := range s.cur {
			s.cur[i] += d[i]
		}
	}
	copy(s.snap, s.cur)
	return len(s.cur) * size
}

func newSumOf[T int32 | int64 | uint32 | uint64 | float32 | float64](cur []T) sumArray {
	return &sumOf[T]{cur: cur, snap: append([]T(nil), cur...)}
}

// newSums finds p's Sum arrays; nil where it has none or the run is one
// process's (whose parts share the program's arrays).
func newSums[X, A any](p Program[X, A], comm Comm) (*sums, error) {
	dp, ok := p.(DeviceProgram)
	if !ok || comm == nil || comm.Size() <= 1 {
		return nil, nil
	}
	s := &sums{comm: comm}
	for _, a := range dp.Device().Arrays {
		if !a.Sum {
			continue
		}
		var sa sumArray
		switch d := a.Data.(type) {
		case []int32:
			sa = newSumOf(d)
		case []int64:
			sa = newSumOf(d)
		case []uint32:
			sa = newSumOf(d)
		case []uint64:
			sa = newSumOf(d)
		case []float32:
			sa = newSumOf(d)
		case []float64:
			sa = newSumOf(d)
		default:
			return nil, fmt.Errorf("vertexprog: Sum array %s is a %T; want a slice of int32, int64, uint32, uint64, float32 or float64", a.Name, a.Data)
		}
		s.arrays = append(s.arrays, sa)
	}
	if len(s.arrays) == 0 {
		return nil, nil
	}
	return s, nil
}

// exchange adds up the Sum arrays over the processes.
func (s *sums) exchange() error {
	if s == nil {
		return nil
	}
	var msg []byte
	for _, a := range s.arrays {
		msg = append(msg, a.delta()...)
	}
	all, err := s.comm.AllGather(msg)
	if err != nil {
		return err
	}
	off := 0
	for _, a := range s.arrays {
		parts := make([][]byte, len(all))
		for r, m := range all {
			if len(m) != len(msg) {
				return fmt.Errorf("vertexprog: process %d sent %d bytes of sums, this one %d", r, len(m), len(msg))
			}
			parts[r] = m[off:]
		}
		off += a.add(parts)
	}
	return nil
}
