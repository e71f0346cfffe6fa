//go:build cgo

package run

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hpgraph/hpgraph/cuda/build"
	"github.com/hpgraph/hpgraph/cuda/cu"
	"github.com/hpgraph/hpgraph/cuda/rt"
	"github.com/hpgraph/hpgraph/vertexprog/driver"
)

// A partitioned run's parts on the devices of one process
// (driver.PartBackend; docs/parts.md): each part is a run of its own
// (progRun, restricted to its rows by VP_Run's lo and hi, or a multiset
// program's msRun, by its bins and MS_Run's lo and hi), and after
// every superstep the group adds up their counts and aggregators and
// copies what each part changed to the others, device to device (peer
// copies between devices, plain copies on one), then writes the whole
// run's counts into every part's record, which the next superstep reads.
// With a Comm of several processes the parts of the other processes
// take part through NCCL (nccl.go).

// StartParts starts jobs[i] (the local parts of one run) on devs[i] and
// returns the run that steps them together (driver.PartBackend).
func StartParts(devs []*Device, jobs []*driver.DeviceJob, comm driver.Comm, opt Options) (driver.DeviceRun, error) {
	if len(jobs) == 0 || len(devs) != len(jobs) {
		return nil, fmt.Errorf("cuda: %d parts for %d devices", len(jobs), len(devs))
	}
	j0 := jobs[0]
	for _, j := range jobs {
		if j.Part == nil || j.Pull.N != j0.Pull.N || j.Part.Count != j0.Part.Count || j.DeviceInit || j.Multiset != j0.Multiset {
			return nil, errors.New("cuda: the parts of a partitioned run must be parts of one graph and program, with their initial state")
		}
	}
	g := &parts{n: j0.Pull.N, first: j0.Part.Index, total: j0.Part.Count, xsize: j0.XSize, ops: j0.Spec.Aggregators, nagg: len(j0.Spec.Aggregators),
		sparse: driver.SparseExchange(j0.Spec, j0.Pull.N, j0.XSize)}
	// (a part's device may copy the pieces of the whole graph that the
	// others' parts hold: build.AddPeers)
	for _, d := range devs {
		for _, o := range devs {
			d.AddPeers(o.Device)
		}
	}
	g.runs = make([]partRun, len(jobs))
	if !j0.Multiset {
		g.progs = make([]*progRun, len(jobs))
	}
	errs := make([]error, len(jobs))
	var wg sync.WaitGroup
	for i := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// (a nil *progRun or *msRun must not become a non-nil partRun)
			if j0.Multiset {
				if r, err := startMultiset(devs[i], jobs[i]); err == nil {
					g.runs[i] = r
				} else {
					errs[i] = err
				}
				return
			}
			if r, err := start(devs[i], jobs[i], opt); err == nil {
				g.runs[i], g.progs[i] = r, r
			} else {
				errs[i] = err
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		g.Close()
		return nil, err
	}
	if err := g.allocate(); err != nil {
		g.Close()
		return nil, err
	}
	if err := g.allocateSums(); err != nil {
		g.Close()
		return nil, err
	}
	if comm != nil && comm.Size() > 1 {
		var err error
		if g.net, err = newNetParts(g, comm); err != nil {
			g.Close()
			return nil, err
		}
	}
	for i, r := range g.progs {
		r.partTail = g.partTail(i)
	}
	g.crew = newCrew(len(devs), distinct(devs))
	g.stats = make([]driver.PartStat, len(jobs))
	for i, j := range jobs {
		g.stats[i] = driver.PartStat{Index: j.Part.Index, Lo: j.Part.Lo, Hi: j.Part.Hi, Arcs: j.Pull.NNZ()}
	}
	if g.net != nil {
		if err := alignStart(devs, g.net.nc, g.net.cnt, g.first); err != nil {
			g.Close()
			return nil, err
		}
	}
	return g, nil
}

// partTail is part i's progRun.partTail: the other parts' frontier
// words cleared (clearOthers) and, over several processes, the part's
// record gathered with every part's (gatherRecord), queued after each
// superstep's, so that the one wait for its record covers them.
func (g *parts) partTail(i int) func(s int) {
	r := g.progs[i]
	return func(s int) {
		r.clearOthers(s)
		if g.net != nil {
			g.net.gatherRecord(i, r, s)
		}
	}
}

// A progRun as a part (partRun).
func (r *progRun) dev() *Device           { return r.d }
func (r *progRun) part() *driver.Part     { return r.job.Part }
func (r *progRun) values() cu.DevicePtr   { return r.x }
func (r *progRun) frontier() cu.DevicePtr { return r.mask[r.next()] }

func (r *progRun) stepPart(it int, dir driver.Direction) (driver.StepReport, error) {
	rs, err := r.steps(it, dir, 1, 0) // (and partTail)
	if err != nil {
		return driver.StepReport{}, err
	}
	return rs[0], nil
}

func (r *progRun) finishPart(x []byte) error {
	p := r.job.Part
	err := copyPart(r.d, x, r.x, r.job.XSize, r.layout, r.arrays, r.n, p.Lo, p.Hi, &r.transfers)
	r.finished = err == nil
	return err
}

// allocate makes each part's exchange buffers and lets each device reach
// the others' memory directly where it can.
func (g *parts) allocate() error {
	n := len(g.runs)
	g.send, g.recv, g.count = make([]cu.DevicePtr, n), make([]cu.DevicePtr, n), make([]cu.DevicePtr, n)
	g.bufs = make([][]cu.DevicePtr, n)
	g.packed, g.copied = make([]rt.Event, n), make([]rt.Event, n)
	sparse := g.sparse(0) // (the rule may pick the sparse exchange)
	largest := int64(0)
	for _, r := range g.runs {
		largest = max(largest, int64(r.part().Hi-r.part().Lo))
	}
	for i, r := range g.runs {
		p, d := r.part(), r.dev()
		err := d.Do("allocating a part's exchange", func() error {
			for _, o := range g.runs {
				d.EnablePeer(o.dev().RT())
			}
			g.copied[i] = rt.NewOrderEvent()
			if !sparse {
				return nil
			}
			g.send[i] = rt.Alloc(&g.bufs[i], packBytes(int64(p.Hi-p.Lo), g.xsize))
			g.recv[i] = rt.Alloc(&g.bufs[i], packBytes(largest, g.xsize))
			g.count[i] = rt.Alloc(&g.bufs[i], 8)
			g.packed[i] = rt.NewOrderEvent()
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// Step implements driver.DeviceRun: the superstep on every part, then
// the exchange.
func (g *parts) Step(it int, dir driver.Direction) (int, int64, []float64, error) {
	if g.closed {
		return 0, 0, nil, errors.New("cuda: Step on a closed run")
	}
	reps := make([]driver.StepReport, len(g.runs))
	t0 := time.Now()
	if g.sums != nil {
		if err := g.stepSums(it, dir, reps); err != nil {
			return 0, 0, nil, err
		}
	} else if err := g.each(func(i int, r partRun) error {
		t := time.Now()
		rep, err := r.stepPart(it, dir)
		if err != nil {
			return err
		}
		reps[i] = rep
		g.stats[i].Compute += time.Since(t)
		return nil
	}); err != nil {
		return 0, 0, nil, err
	}
	t := time.Now()
	tr := partsTrace{start: t0, computed: t}
	counts := make([]int, len(g.runs))
	for i, rep := range reps {
		counts[i] = rep.Active
	}
	all := reps
	if g.net != nil {
		var err error
		if all, err = g.net.counts(reps); err != nil {
			return 0, 0, nil, err
		}
	}
	tr.counted = time.Now()
	active, edges := 0, int64(0)
	aggs := make([]float64, g.nagg)
	for k, op := range g.ops {
		aggs[k] = op.Identity()
	}
	for _, rep := range all {
		active += rep.Active
		edges += rep.FrontierEdges
		for k, op := range g.ops {
			aggs[k] = op.Combine(aggs[k], rep.Aggregates[k])
		}
	}
	// The counts first, in the same visit to each part as its exchange: a
	// sparse exchange's unpacks then add the other parts' vertices to the
	// queues the record keeps.
	sparse := g.sparse(active)
	record := func(r partRun) { r.setRecord(active, edges, aggs, sparse) }
	var err error
	switch {
	case g.net != nil && sparse:
		err = g.net.sparse(counts, all, record)
	case g.net != nil:
		err = g.net.dense(record)
	case sparse:
		err = g.exchangeSparse(counts, record)
	default:
		err = g.exchangeDense(record)
	}
	if err != nil {
		return 0, 0, nil, err
	}
	tr.report(it, sparse, g.net != nil)
	for i := range g.stats {
		g.stats[i].Exchange += time.Since(t)
	}
	return active, edges, aggs, nil
}

// exchangeDense writes each part's record, then copies each part's values
// and frontier words to every other part. Nothing waits on the host: each
// part's copies go in its stream, which its next superstep follows, and
// once every part has queued its copies, each part's stream waits on the
// device for the others' (copied) before its next superstep overwrites
// its own vertices' values and words, which they read. (A host wait for
// the copies took 52-72 µs of a dense superstep's exchange at kron24.)
func (g *parts) exchangeDense(record func(partRun)) error {
	var queued atomic.Int64
	queued.Store(int64(len(g.runs)))
	return g.each(func(q int, r partRun) error {
		d := r.dev()
		err := d.Do("exchanging the parts' values", func() error {
			record(r)
			x, mask := r.values(), r.frontier()
			for p, o := range g.runs {
				if p == q {
					continue
				}
				lo, hi := int64(o.part().Lo), sentHi(o.part(), o.part().Index, o.part().Hi)
				if hi <= lo {
					continue
				}
				xs := int64(g.xsize)
				d.CopyFrom(x+cu.DevicePtr(lo*xs), o.dev().RT(), o.values()+cu.DevicePtr(lo*xs), (hi-lo)*xs)
				wlo, whi := lo/32, (hi+31)/32
				d.CopyFrom(mask+cu.DevicePtr(wlo*4), o.dev().RT(), o.frontier()+cu.DevicePtr(wlo*4), (whi-wlo)*4)
				g.stats[q].ExchangeBytes += (hi-lo)*xs + (whi-wlo)*4
			}
			d.Record(g.copied[q])
			return nil
		})
		// (outside Do: parts on one device take turns at its lock; a
		// yielding spin, as the crew's parts would wait a thread's wake-up
		// on a WaitGroup)
		queued.Add(-1)
		for queued.Load() > 0 {
			runtime.Gosched()
		}
		if err != nil {
			return err
		}
		return d.Do("waiting for the other parts' copies", func() error {
			for p := range g.runs {
				if p != q {
					d.WaitEvent(g.copied[p])
				}
			}
			return nil
		})
	})
}

// exchangeSparse writes each part's record and packs its activated
// vertices (counts[i] of them) and their values, and unpacks every other
// part's list into each part. Nothing waits on the host: a part's stream
// waits for another's pack on the device (packed), and the next
// superstep follows the unpacks in the part's stream. A part's next pack, which overwrites its list,
// comes after every part's next superstep has been waited for (its
// record read), by then the copies of this list are done.
func (g *parts) exchangeSparse(counts []int, record func(partRun)) error {
	if err := g.pack(counts, record); err != nil {
		return err
	}
	return g.eachProg(func(q int, r *progRun) error {
		return r.d.Do("unpacking the other parts' changes", func() error {
			for p, o := range g.progs {
				k := counts[p]
				if p == q || k == 0 {
					continue
				}
				bytes := packBytes(int64(k), g.xsize)
				r.d.WaitEvent(g.packed[p])
				r.d.CopyFrom(g.recv[q], o.d.RT(), g.send[p], bytes)
				g.stats[q].ExchangeBytes += bytes
				r.unpack(g.recv[q], k)
			}
			return nil
		})
	})
}

// Finish implements driver.DeviceRun: every part copies its own
// vertices' values and state back.
func (g *parts) Finish(x []byte) error {
	if g.closed {
		return errors.New("cuda: Finish on a closed run")
	}
	return g.each(func(_ int, r partRun) error { return r.finishPart(x) })
}

// FinishSummary implements driver.SummaryFinisher.
func (g *parts) FinishSummary() error {
	return g.each(func(_ int, r partRun) error { return r.FinishSummary() })
}

// DeviceTime implements driver.DeviceTimer: the slowest part's.
func (g *parts) DeviceTime() time.Duration {
	var d time.Duration
	for _, r := range g.runs {
		d = max(d, r.DeviceTime())
	}
	return d
}

// Transfers implements driver.TransferReporter: the slowest part's.
func (g *parts) Transfers() time.Duration {
	var d time.Duration
	for _, r := range g.runs {
		d = max(d, r.Transfers())
	}
	return d
}

// Parts is what each part did (vertexprog.Result.Parts).
func (g *parts) Parts() []driver.PartStat { return g.stats }

// WholeBytes is the size of the whole graph's orientation arrays that
// each part's device built (DeviceJob.Whole) and its program names, each
// counted once (vertexprog.Result.Whole); 0 where the host built them.
func (g *parts) WholeBytes() int64 {
	if len(g.progs) == 0 || g.progs[0] == nil || g.progs[0].whole == nil {
		return 0
	}
	r := g.progs[0]
	type key struct {
		kind int
		part driver.OrientationPart
	}
	seen, total := map[key]bool{}, int64(0)
	for _, a := range r.layout.arrays {
		if a.orient == nil {
			continue
		}
		k := key{build.OrientKind(a.orient), a.part}
		if !seen[k] {
			seen[k] = true
			total += r.whole.Orientation(a.orient).Bytes(a.part, int64(r.n))
		}
	}
	return total
}

// Close implements driver.DeviceRun.
func (g *parts) Close() {
	if g.closed {
		return
	}
	g.closed = true
	g.crew.close()
	if g.net != nil {
		g.net.close()
	}
	// (every part's copies of the others' vertices done before any part's
	// buffers go: exchangeDense does not wait for them)
	for _, r := range g.runs {
		if r != nil {
			d := r.dev()
			_ = d.Do("waiting for the parts' last copies", func() error { d.Sync(); return nil })
		}
	}
	for i, r := range g.runs {
		if r == nil {
			continue
		}
		d := r.dev()
		_ = d.Do("freeing a part's exchange", func() error {
			if i < len(g.bufs) {
				rt.FreeAll(g.bufs[i])
			}
			for _, es := range [][]rt.Event{g.packed, g.gathered, g.copied} {
				if i < len(es) && es[i] != (rt.Event{}) {
					es[i].Destroy()
				}
			}
			return nil
		})
		if i < len(g.progs) && g.progs[i] != nil {
			g.progs[i].partTail = nil // (a parked run may run whole next)
		}
		r.Close()
	}
}
