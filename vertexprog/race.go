package vertexprog

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hpgraph/hpgraph/vertexprog/driver"
)

// One-shot answers on Options.Backend "auto". Opening a GPU costs a fresh
// process a quarter of a second (the driver and the context), in which
// the CPU engine answers most queries of a graph that fits a host: a
// kron21 BFS takes 0.07 s on 16 cores. So an answer that may go either
// way is raced: the CPU run starts at once, the device run as soon as the
// device has opened (if the CPU has not answered by then), and the first
// answer is the answer; the other run is cancelled through its
// Options.Context (a device run stops at its next superstep and frees
// what it holds). Where the device is sure to win — gathers that do much
// work each (sorted-list intersections, DeviceCode.HeavyGather), graphs
// of hundreds of millions of edges — and for runs that keep the device's state for the
// next (Options.Resident), auto goes to the device as it always did. A
// partitioned run (Options.Parts > 1, or a Comm of several processes) is
// never raced: every process of it must take the one path the others
// take, and it runs as Run runs it (runParts). A device that opens while
// the CPU run is sure to answer first (supersteps of equal work, due
// before a device run could end: raceDeviceTime) does not start its run.
//
// Where nothing has opened the device yet (Warm), the race opens it
// itself, lazily: once the CPU run has run raceOpenAfter without
// answering, or sooner where its supersteps of equal work say it will
// run longer than the device's opening and run would take. An opening
// costs the process more than its time: a context made, or still being
// made, is torn down at exit, which held kron21's one-shot answers 40-80
// ms past the CPU's (bfs under auto 0.106 s against the CPU's 0.066, sssp
// 0.24 against 0.16; one H200, session 32). A one-shot answer that will
// be raced (OpenLazily) therefore leaves the device closed until then.

// DeviceFirst is implemented by programs whose one-shot answer a device
// gives first on any graph a race would take, because their CPU run does
// far more work an edge than the device's (counting the labels of every
// row's multiset, say): auto then goes to the device, as for
// DeviceCode.HeavyGather, without starting the CPU run beside it, which
// would take the host's cores from the device's set-up. DeviceFirst says
// why, for the output. The method needs no Prepare: an app's zero
// program answers it.
type DeviceFirst interface {
	DeviceFirst() string
}

// raceMaxArcs is the size (stored arcs of the graph) from which an answer
// goes straight to the device: a 100M-edge graph's BFS takes the CPU
// engine about as long as the device's opening, upload and run.
const raceMaxArcs = 200_000_000

// raceDeviceFloor is the least a device run of a raced answer takes once
// the device has opened: its upload, PREPROCESS and supersteps, on a
// graph under raceMaxArcs (kron21's LDBC PageRank took 0.18 s on an H200
// after the open, session 29). A CPU run due to end sooner than that
// answers first whatever the device does, so the device's run does not
// start: its upload and host-side set-up would only take the host's cores
// and memory bandwidth from the CPU run.
var raceDeviceFloor = 100 * time.Millisecond

// raceDeviceArc is a raced device run's time an arc of the graph once
// the device has opened: the upload and PREPROCESS, which grow with the
// arcs (kron21, 63.5M arcs: 0.18 s, session 29: 2.8 ns an arc). Below
// it, a CPU run due to end before the device's would (raceDeviceTime)
// answers first: a device run started beside it only takes the host's
// cores and memory bandwidth from it (kron21's float32 LDBC PageRank on
// 16 cores: the CPU due ~0.12 s after the open, alone 0.24 s a wall;
// with the device's run started beside it, the device answered at 0.36 s).
var raceDeviceArc = 2.5 * float64(time.Nanosecond)

// raceDeviceTime is the least a raced device run on a graph of arcs
// stored arcs takes once the device has opened.
func raceDeviceTime(arcs int64) time.Duration {
	return max(raceDeviceFloor, time.Duration(float64(arcs)*raceDeviceArc))
}

// raceOpenTime is a device's opening in a fresh process: the driver, a
// context, a stream, staging buffers (an H200: 0.16-0.24 s, session 32).
var raceOpenTime = 200 * time.Millisecond

// raceOpenAfter is how long a race's CPU run runs before a device the
// race opens itself starts opening, where the CPU's supersteps do not
// tell when it will end (a traversal's). A device opened then answers
// after its opening and run (0.3 s and more) on top: the CPU's answers
// due within ~0.4 s are its own either way, and then pay for the opening
// at exit (kron21's weighted sssp on 16 cores, 0.28 s: 0.36 under auto
// with 150 ms here; session 32).
var raceOpenAfter = 250 * time.Millisecond

// warming is set once Warm has begun opening a device backend: a race
// then waits for that opening rather than opening lazily.
var warming atomic.Bool

// OpenLazily reports whether a one-shot answer of a program like p under
// opt, on a graph of about arcs stored arcs (before the load, a guess
// from the file's size will do), will be raced with the device opened by
// the race itself, lazily (Race), so a caller should not open it ahead
// (Warm) beside the load: PlanAnswer races it, and the graph is under the
// size from which answers go straight to the device.
func OpenLazily(p interface{ Spec() Spec }, opt Options, arcs int64) bool {
	return arcs < raceMaxArcs && PlanAnswer(p, nil, opt).Race
}

// raceProgress is a raced CPU run's progress, written by its superstep
// loop and read by the race's device side.
type raceProgress struct {
	mu    sync.Mutex
	began time.Time // the superstep loop's start; zero before it
	last  time.Time // when the last superstep ended
	done  int       // supersteps run
	of    int       // the supersteps it will run, each of about the same work; 0 where that is not known
	arcs  int64     // the graph's stored arcs
}

// start marks the loop's start; uniform is the number of supersteps it
// will run, each of about the same work (a GatherAll program's iteration
// limit), or 0 where that cannot be told; arcs is the graph's stored arcs.
func (p *raceProgress) start(uniform int, arcs int64) {
	p.mu.Lock()
	p.began, p.of, p.arcs = time.Now(), uniform, arcs
	p.mu.Unlock()
}

// stepped records that done supersteps have run.
func (p *raceProgress) stepped(done int) {
	p.mu.Lock()
	p.done, p.last = done, time.Now()
	p.mu.Unlock()
}

// remaining estimates how long the run has left at now: the supersteps
// left at the mean of those run, less the time since the last ended, and
// how long a device run on the graph would take (raceDeviceTime). ok is
// false where it cannot tell (no superstep run yet, or supersteps whose
// work varies).
func (p *raceProgress) remaining(now time.Time) (left, device time.Duration, ok bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.of <= 0 || p.done <= 0 || p.began.IsZero() {
		return 0, 0, false
	}
	per := p.last.Sub(p.began) / time.Duration(p.done)
	return max(0, per*time.Duration(max(0, p.of-p.done))-now.Sub(p.last)), raceDeviceTime(p.arcs), true
}

// openNow waits until a race should open the device itself: the CPU run
// has run raceOpenAfter (from t0) without its supersteps telling when it
// ends, or they tell that it will run longer than the device's opening
// and run; where they tell that the CPU answers first, it waits on. It
// reports false when ctx ends first (the CPU answered).
func openNow(ctx context.Context, p *raceProgress, t0 time.Time) bool {
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	for {
		now := time.Now()
		if left, dev, ok := p.remaining(now); ok {
			if left >= raceOpenTime+dev {
				return true
			}
		} else if now.Sub(t0) >= raceOpenAfter {
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-tick.C:
		}
	}
}

// errNotOpened is the device side's answer when the race did not open
// the device: the CPU answered, or was due, first (openNow).
var errNotOpened = errors.New("the device was not opened")

// errCPUDue is the device side's answer when it did not start because
// the CPU run was due first (raceDeviceTime).
type errCPUDue struct{ left, device time.Duration }

func (e errCPUDue) Error() string {
	return fmt.Sprintf("the CPU was due in %s, a device run would take %s or more", roundMS(e.left), roundMS(e.device))
}

// AnswerPlan is how a one-shot answer on Options.Backend runs: raced
// (Race), or on Backend alone, and why.
type AnswerPlan struct {
	Race    bool
	Backend string
	Why     string
}

// PlanAnswer decides how an answer of a program like p (its Spec and, if
// a DeviceProgram, its device code: an app's zero program will do) on g
// runs under opt: raced where opt.Backend is "auto" (or ""), a device
// backend may run here (DeviceMayRun: one is built in, and its probe
// finds what it needs), the program has device code, the run is not
// Resident nor partitioned, and neither the program (its gathers,
// DeviceCode.HeavyGather, or its own word, DeviceFirst) nor the graph
// (raceMaxArcs) make the device the sure winner.
func PlanAnswer(p interface{ Spec() Spec }, g *Graph, opt Options) AnswerPlan {
	plan := AnswerPlan{Backend: opt.Backend}
	if plan.Backend == "" {
		plan.Backend = "auto"
	}
	if plan.Backend != "auto" {
		plan.Why = "--backend " + plan.Backend
		return plan
	}
	dp, hasCode := p.(DeviceProgram)
	switch {
	case partitioned(opt):
		plan.Why = "auto: a partitioned run (parts, processes), which every process runs one way"
	case !DeviceMayRun():
		plan.Why = "auto: no device backend can run here (none built in, or no driver)"
	case !hasCode:
		plan.Why = "auto: the program has no device code"
	case opt.Resident:
		plan.Why = "auto: several runs share the device's state (resident)"
	case heavyGathers(dp):
		plan.Why = "auto: its gathers do much work each (HeavyGather), which the device wins"
	case deviceFirst(p) != "":
		plan.Why = "auto: " + deviceFirst(p)
	case g != nil && g.g != nil && g.g.NNZ() >= raceMaxArcs:
		plan.Why = fmt.Sprintf("auto: %d stored arcs, where the device wins", g.g.NNZ())
	default:
		plan.Race = true
		plan.Why = "auto: raced, the CPU at once and the device once it opens"
	}
	return plan
}

// deviceFirst is p's DeviceFirst reason, or "".
func deviceFirst(p any) string {
	if d, ok := p.(DeviceFirst); ok {
		return d.DeviceFirst()
	}
	return ""
}

// heavyGathers reports whether p's device code says its gathers are
// heavy. A program whose device code can be described only once Prepare
// has seen the graph (an app's zero program, say, whose code depends on
// the graph's ids) may fail to describe it: that counts as not heavy.
func heavyGathers(p DeviceProgram) (heavy bool) {
	defer func() {
		if recover() != nil {
			heavy = false
		}
	}()
	return p.Device().HeavyGather
}

// RaceReport says which run of a race answered, and why.
type RaceReport struct {
	// Backend is the backend whose answer Race returned.
	Backend string
	// Why is one line: who answered when, and what became of the other.
	Why string
	// CPU and Device are how long each run took to answer or to stop,
	// from the race's start (Device: 0 where no device run started);
	// Opened is when the device had opened (0: it had not when the race
	// ended, or none could).
	CPU, Device, Opened time.Duration
	// Done is closed once the other run has stopped: a device that was
	// still opening stops once it has opened, without starting a run. A
	// caller that must leave nothing running waits for it (a process that
	// exits after printing the answer need not).
	Done <-chan struct{}
}

// partitioned reports whether opt asks for a partitioned run: parts, or
// several processes.
func partitioned(opt Options) bool {
	return opt.Parts > 1 || commSize(opt.Comm) > 1
}

// errNoDevice says no device backend could run the race's other side.
var errNoDevice = errors.New("no device backend opened")

// Race runs one answer on the CPU at once (run with Options.Backend
// "cpu") and on the first device backend that opens (its name, from when
// it has), and returns the first answer: the other run's Options.Context
// is cancelled, and the report's Done is closed once it has stopped. The
// device run gets no Options.Values (the CPU's run may be writing them).
// Each run's Options.Log lines are kept, and the answer's passed to
// opt.Log once it is known. A run that fails leaves the answer to the
// other; where both fail, the CPU's error is returned. opt.Context, when
// set, stops both. A partitioned opt is an error (PlanAnswer never races
// one): its processes must all run it one way.
func Race[T any](opt Options, run func(Options) (T, error)) (T, *RaceReport, error) {
	if partitioned(opt) {
		var zero T
		done := make(chan struct{})
		close(done) // (nothing started)
		return zero, &RaceReport{Done: done}, errors.New("vertexprog: a partitioned run (parts, or several processes) is not raced: every process runs it one way; run it with Run")
	}
	parent := opt.Context
	if parent == nil {
		parent = context.Background()
	}
	cpuCtx, cpuCancel := context.WithCancel(parent)
	devCtx, devCancel := context.WithCancel(parent)
	type answer struct {
		v       T
		err     error
		backend string
		took    time.Duration
	}
	answers := make(chan answer, 2)
	done := make(chan struct{})
	rep := &RaceReport{Done: done}
	var opened time.Duration
	var openedMu sync.Mutex
	t0 := time.Now()
	var logs [2][]string // the CPU's, the device's
	logTo := func(o *Options, i int) {
		if opt.Log != nil {
			o.Log = func(line string) { logs[i] = append(logs[i], line) }
		}
	}
	var wg sync.WaitGroup
	wg.Add(2)
	progress := &raceProgress{}
	go func() {
		defer wg.Done()
		o := opt
		o.Backend, o.Context, o.progress = "cpu", cpuCtx, progress
		logTo(&o, 0)
		v, err := run(o)
		answers <- answer{v, err, "cpu", time.Since(t0)}
	}()
	var lazy atomic.Bool // (the race opens the device itself, once openNow says)
	lazy.Store(!warming.Load())
	go func() {
		defer wg.Done()
		if lazy.Load() && !openNow(devCtx, progress, t0) {
			var zero T
			answers <- answer{zero, errNotOpened, "", 0}
			return
		}
		lazy.Store(false)                             // (opening)
		b, ok := firstBackend[driver.DeviceBackend]() // (waits for the device to open)
		if !ok {
			var zero T
			answers <- answer{zero, errNoDevice, "", 0}
			return
		}
		openedMu.Lock()
		opened = time.Since(t0)
		openedMu.Unlock()
		if err := devCtx.Err(); err != nil {
			var zero T
			answers <- answer{zero, err, b.Name(), 0}
			return
		}
		if left, dev, ok := progress.remaining(time.Now()); ok && left < dev {
			var zero T
			answers <- answer{zero, errCPUDue{left, dev}, b.Name(), 0}
			return
		}
		o := opt
		o.Backend, o.Context, o.Values = b.Name(), devCtx, nil
		logTo(&o, 1)
		v, err := run(o)
		answers <- answer{v, err, b.Name(), time.Since(t0)}
	}()
	go func() {
		wg.Wait()
		cpuCancel()
		devCancel()
		close(done)
	}()
	first := <-answers
	defer func() {
		// (the answer's run has returned: its lines are all there)
		if opt.Log != nil && rep.Backend != "" {
			i := 1
			if rep.Backend == "cpu" {
				i = 0
			}
			for _, l := range logs[i] {
				opt.Log(l)
			}
		}
	}()
	if first.err != nil {
		// The answer is the other run's; where both fail, the CPU's error.
		loser := <-answers
		if loser.err == nil || loser.backend == "cpu" {
			first, loser = loser, first
		}
		rep.Backend = first.backend
		rep.setTimes(first.backend, first.took, loser.took, &openedMu, &opened)
		switch {
		case first.err != nil:
			rep.Why = fmt.Sprintf("raced: both runs failed (%v; %v)", first.err, loser.err)
		case errors.Is(loser.err, errNotOpened):
			rep.Why = fmt.Sprintf("raced: the CPU answered in %s; the device was not opened (%s)", roundMS(first.took), lazyWhy())
		case errors.Is(loser.err, errNoDevice):
			rep.Why = fmt.Sprintf("raced: no device opened; the CPU answered in %s", roundMS(first.took))
		case errors.As(loser.err, new(errCPUDue)):
			rep.Why = fmt.Sprintf("raced: the CPU answered in %s; %s, open after %s, did not start its run: %v", roundMS(first.took), loser.backend, roundMS(rep.Opened), loser.err)
		default:
			rep.Why = fmt.Sprintf("raced: %s failed (%v); %s answered in %s", sideName(loser.backend), loser.err, sideName(first.backend), roundMS(first.took))
		}
		return first.v, rep, first.err
	}
	// The first answer wins; the other run stops.
	if first.backend == "cpu" {
		devCancel()
	} else {
		cpuCancel()
	}
	rep.Backend = first.backend
	rep.setTimes(first.backend, first.took, 0, &openedMu, &opened)
	switch {
	case first.backend == "cpu" && lazy.Load():
		rep.Why = fmt.Sprintf("raced: the CPU answered in %s; the device was not opened (%s)", roundMS(first.took), lazyWhy())
	case first.backend == "cpu" && rep.Opened == 0:
		rep.Why = fmt.Sprintf("raced: the CPU answered in %s while the device was still opening (its run will not start)", roundMS(first.took))
	case first.backend == "cpu":
		rep.Why = fmt.Sprintf("raced: the CPU answered in %s; the device, open after %s, was cancelled", roundMS(first.took), roundMS(rep.Opened))
	default:
		rep.Why = fmt.Sprintf("raced: %s answered in %s (open after %s); the CPU run was cancelled", first.backend, roundMS(first.took), roundMS(rep.Opened))
	}
	return first.v, rep, nil
}

// lazyWhy says when a race opens the device itself.
func lazyWhy() string {
	return fmt.Sprintf("a race opens it once the CPU has run %s without answering, or sooner where its supersteps say it will run longer than the device's opening and run", roundMS(raceOpenAfter))
}

// setTimes fills the report's durations: the answer's (backend, took)
// and the other run's.
func (r *RaceReport) setTimes(backend string, took, other time.Duration, mu *sync.Mutex, opened *time.Duration) {
	mu.Lock()
	r.Opened = *opened
	mu.Unlock()
	if backend == "cpu" {
		r.CPU, r.Device = took, other
	} else {
		r.Device, r.CPU = took, other
	}
}

// sideName names a race's run in its report.
func sideName(backend string) string {
	switch backend {
	case "cpu":
		return "the CPU"
	case "":
		return "the device"
	}
	return backend
}

func roundMS(d time.Duration) string { return d.Round(100 * time.Microsecond).String() }
