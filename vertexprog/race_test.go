package vertexprog_test

import (
	"errors"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/vertexprog"
	"github.com/hpgraph/hpgraph/vertexprog/driver"
)

// slowDevice is a device backend that opens slowly (its first Available
// blocks for open), whose supersteps each take step and never empty the
// frontier unless done, and which counts the runs it started and closed.
// It is available only while on, so that other tests do not see it.
type slowDevice struct {
	on       atomic.Bool
	open     time.Duration
	openOnce sync.Once
	step     time.Duration
	done     bool // supersteps report an empty frontier: the run ends
	starts   atomic.Int32
	closes   atomic.Int32
}

func (d *slowDevice) Name() string { return "test-slow-device" }
func (d *slowDevice) Available() error {
	if !d.on.Load() {
		return errors.New("only in the race tests")
	}
	d.openOnce.Do(func() { time.Sleep(d.open) })
	return nil
}

// Probe says at once what Available would, without the opening's wait
// (driver.Prober).
func (d *slowDevice) Probe() error {
	if !d.on.Load() {
		return errors.New("only in the race tests")
	}
	return nil
}
func (d *slowDevice) Start(job *driver.DeviceJob) (driver.DeviceRun, error) {
	d.starts.Add(1)
	return &slowRun{d: d, x: slices.Clone(job.X)}, nil
}

type slowRun struct {
	d *slowDevice
	x []byte
}

func (r *slowRun) Step(int, vertexprog.Direction) (int, int64, []float64, error) {
	time.Sleep(r.d.step)
	if r.d.done {
		return 0, 0, nil, nil
	}
	return 1, 1, nil, nil
}
func (r *slowRun) Finish(x []byte) error { copy(x, r.x); return nil }
func (r *slowRun) Close()                { r.d.closes.Add(1) }

// The race tests' device, registered once.
var raceDevice = &slowDevice{}

func init() { driver.Register(raceDevice) }

// useRaceDevice makes the race device available for one test, with its
// counts reset.
// useRaceDevice turns the race device on as if Warm had begun opening it
// beside the load (the race waits for it; TestRaceOpensLazily turns that
// off).
func useRaceDevice(t *testing.T, open, step time.Duration, done bool) *slowDevice {
	vertexprog.SetWarming(t, true)
	d := raceDevice
	d.open, d.step, d.done, d.openOnce = open, step, done, sync.Once{}
	d.starts.Store(0)
	d.closes.Store(0)
	d.on.Store(true)
	t.Cleanup(func() { d.on.Store(false) })
	return d
}

// racer is minLabel from the ids with device code (which the race device
// never compiles). On a path, every superstep updates its last vertex,
// whose Update, when slowAt names it, sleeps a millisecond.
type racer struct {
	minLabel[int32]
	slowAt int32
}

func newRacer(slowAt int32) racer { return racer{minLabel[int32]{none: 1 << 30}, slowAt} }

func (r racer) Init(v int32, _ *vertexprog.Step) (int32, bool) { return v, true }
func (r racer) Update(v int32, acc int32, x *int32, s *vertexprog.Step) bool {
	if v == r.slowAt {
		time.Sleep(time.Millisecond)
	}
	return r.minLabel.Update(v, acc, x, s)
}
func (racer) Device() vertexprog.DeviceCode {
	return vertexprog.DeviceCode{Source: "// (never compiled)"}
}

// pathGraph is a path of n vertices: min-label propagation runs n
// supersteps along it.
func pathGraph(t *testing.T, n int) *vertexprog.Graph {
	el := &datasets.EdgeList{N: n}
	for v := 0; v+1 < n; v++ {
		el.Src, el.Dst = append(el.Src, int32(v+1)), append(el.Dst, int32(v))
	}
	d, err := datasets.Build(el, datasets.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return vertexprog.NewGraph(d)
}

// runRacer is a race's run of r on g.
func runRacer(g *vertexprog.Graph, r racer) func(vertexprog.Options) ([]int32, error) {
	return func(o vertexprog.Options) ([]int32, error) {
		// (Direction: supersteps, not the components' union-find path)
		o.Direction = vertexprog.Pull
		res, err := vertexprog.Run[int32, int32](g, r, o)
		if err != nil {
			return nil, err
		}
		return res.X, nil
	}
}

// settled waits for the race's other run to stop, then for the goroutines
// to fall back to base.
func settled(t *testing.T, rep *vertexprog.RaceReport, base int) {
	t.Helper()
	select {
	case <-rep.Done:
	case <-time.After(10 * time.Second):
		t.Fatal("the race's other run did not stop")
	}
	deadline := time.Now().Add(2 * time.Second)
	for runtime.NumGoroutine() > base {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			t.Fatalf("%d goroutines after the race, %d before:\n%s", runtime.NumGoroutine(), base, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(time.Millisecond)
	}
}

// TestRaceCPUWinsWhileTheDeviceOpens: the CPU answers before the device
// has opened; the answer is the CPU's own, no device run starts, and
// nothing is left running once the device has opened.
func TestRaceCPUWinsWhileTheDeviceOpens(t *testing.T) {
	g := pathGraph(t, 300)
	want, err := runRacer(g, newRacer(-1))(vertexprog.Options{Backend: "cpu"})
	if err != nil {
		t.Fatal(err)
	}
	d := useRaceDevice(t, 300*time.Millisecond, time.Millisecond, false)
	base := runtime.NumGoroutine()
	got, rep, err := vertexprog.Race(vertexprog.Options{Backend: "auto"}, runRacer(g, newRacer(-1)))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Backend != "cpu" || !slices.Equal(got, want) || rep.Opened != 0 {
		t.Fatalf("race answered on %s (opened after %v): %v, want the CPU's %v", rep.Backend, rep.Opened, got[:5], want[:5])
	}
	settled(t, rep, base)
	if d.starts.Load() != 0 {
		t.Errorf("the device, opened after the answer, started %d runs", d.starts.Load())
	}
	t.Log(rep.Why)
}

// TestRaceCPUWinsAgainstARunningDevice: the device opens at once and its
// run starts, the CPU answers first; the device run is cancelled and
// closed, and the answer is the CPU's.
func TestRaceCPUWinsAgainstARunningDevice(t *testing.T) {
	g := pathGraph(t, 60)
	r := newRacer(59)
	var cpuLines, raceLines []string
	want, err := runRacer(g, r)(vertexprog.Options{Backend: "cpu", Log: func(l string) { cpuLines = append(cpuLines, l) }})
	if err != nil {
		t.Fatal(err)
	}
	d := useRaceDevice(t, 0, 20*time.Millisecond, false)
	base := runtime.NumGoroutine()
	got, rep, err := vertexprog.Race(vertexprog.Options{Log: func(l string) { raceLines = append(raceLines, l) }}, runRacer(g, r))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Backend != "cpu" || !slices.Equal(got, want) {
		t.Fatalf("race answered on %s: %v, want the CPU's", rep.Backend, got[:5])
	}
	if len(raceLines) != len(cpuLines) {
		t.Errorf("the race logged %d superstep lines, the CPU's run %d: want the answer's alone", len(raceLines), len(cpuLines))
	}
	settled(t, rep, base)
	if s, c := d.starts.Load(), d.closes.Load(); s != 1 || c != 1 {
		t.Errorf("the device started %d runs and closed %d, want 1 and 1", s, c)
	}
	t.Log(rep.Why)
}

// TestRaceDeviceWins: a device that answers in one superstep beats a CPU
// run of seconds, which is cancelled and stops; its run is closed.
func TestRaceDeviceWins(t *testing.T) {
	g := pathGraph(t, 3000)
	d := useRaceDevice(t, 0, 0, true)
	base := runtime.NumGoroutine()
	t0 := time.Now()
	_, rep, err := vertexprog.Race(vertexprog.Options{}, runRacer(g, newRacer(2999)))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Backend != d.Name() {
		t.Fatalf("race answered on %s, want the device", rep.Backend)
	}
	settled(t, rep, base)
	if took := time.Since(t0); took > 2*time.Second {
		t.Errorf("the cancelled CPU run stopped after %v (a superstep is a millisecond)", took)
	}
	if s, c := d.starts.Load(), d.closes.Load(); s != 1 || c != 1 {
		t.Errorf("the device started %d runs and closed %d, want 1 and 1", s, c)
	}
	t.Log(rep.Why)
}

// fixedRacer gathers from every neighbour (GatherAll) for iters
// supersteps, each of which sleeps step in vertex 0's Update: a run whose
// end the race can tell from its start.
type fixedRacer struct {
	iters int
	step  time.Duration
}

func (r fixedRacer) Spec() vertexprog.Spec {
	return vertexprog.Spec{Edges: vertexprog.AllEdges, GatherAll: true, MaxIterations: r.iters}
}
func (fixedRacer) Init(v int32, _ *vertexprog.Step) (int32, bool)         { return v, true }
func (fixedRacer) Identity() int32                                        { return 1 << 30 }
func (fixedRacer) Gather(acc int32, _, _ int32, l int32, _ float32) int32 { return min(acc, l) }
func (fixedRacer) Reduce(a, b int32) int32                                { return min(a, b) }
func (r fixedRacer) Update(v int32, acc int32, l *int32, _ *vertexprog.Step) bool {
	if v == 0 {
		time.Sleep(r.step)
	}
	*l = min(*l, acc)
	return true // (active to the iteration limit)
}
func (fixedRacer) Device() vertexprog.DeviceCode {
	return vertexprog.DeviceCode{Source: "// (never compiled)"}
}

func runFixed(g *vertexprog.Graph, r fixedRacer) func(vertexprog.Options) ([]int32, error) {
	return func(o vertexprog.Options) ([]int32, error) {
		res, err := vertexprog.Run[int32, int32](g, r, o)
		if err != nil {
			return nil, err
		}
		return res.X, nil
	}
}

// TestRaceCPUDue: the device opens while a CPU run of supersteps of equal
// work is due to end sooner than a device run could (raceDeviceFloor, or
// the graph's arcs at raceDeviceArc, set high here): the device's run does
// not start, and the CPU answers. With both low, the same race starts the
// device's run.
func TestRaceCPUDue(t *testing.T) {
	g := pathGraph(t, 200)
	r := fixedRacer{iters: 40, step: 5 * time.Millisecond}
	want, err := runFixed(g, r)(vertexprog.Options{Backend: "cpu"})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		floor, arc time.Duration
		starts     int32
	}{{10 * time.Second, 0, 0}, {time.Millisecond, 100 * time.Millisecond, 0}, {time.Millisecond, 0, 1}} {
		vertexprog.SetRaceDeviceFloor(t, c.floor)
		vertexprog.SetRaceDeviceArc(t, c.arc) // (the path's 398 arcs: 40 s)
		d := useRaceDevice(t, 60*time.Millisecond, 20*time.Millisecond, false)
		base := runtime.NumGoroutine()
		got, rep, err := vertexprog.Race(vertexprog.Options{}, runFixed(g, r))
		if err != nil {
			t.Fatal(err)
		}
		if rep.Backend != "cpu" || !slices.Equal(got, want) || rep.Opened == 0 {
			t.Fatalf("floor %v, arc %v: race answered on %s (opened after %v), want the CPU's answer after the device opened", c.floor, c.arc, rep.Backend, rep.Opened)
		}
		settled(t, rep, base)
		if s := d.starts.Load(); s != c.starts {
			t.Errorf("floor %v, arc %v: the device started %d runs, want %d (%s)", c.floor, c.arc, s, c.starts, rep.Why)
		}
		if dueWhy := strings.Contains(rep.Why, "did not start"); dueWhy != (c.starts == 0) {
			t.Errorf("floor %v, arc %v: %q", c.floor, c.arc, rep.Why)
		}
		t.Log(rep.Why)
	}
}

// TestRaceOpensLazily: nothing has opened the device (no Warm), so the
// race opens it itself: not at all where the CPU answers within
// raceOpenAfter, or where its supersteps of equal work say it will answer
// before a device could open and run; after raceOpenAfter where the
// CPU's supersteps do not tell (the device then answers a long run); at
// once where they say the CPU will run longer than the opening and run.
func TestRaceOpensLazily(t *testing.T) {
	vertexprog.SetRaceDeviceFloor(t, time.Millisecond)
	vertexprog.SetRaceDeviceArc(t, 0)
	for _, c := range []struct {
		name          string
		run           func(vertexprog.Options) ([]int32, error)
		opens         bool
		after, before time.Duration // (where it opens)
	}{
		{"a short traversal", runRacer(pathGraph(t, 60), newRacer(-1)), false, 0, 0},
		{"a long traversal", runRacer(pathGraph(t, 3000), newRacer(2999)), true, vertexprog.RaceOpenAfter, time.Second},
		{"equal supersteps due before an opening", runFixed(pathGraph(t, 200), fixedRacer{iters: 30, step: 5 * time.Millisecond}), false, 0, 0},
		{"equal supersteps past an opening", runFixed(pathGraph(t, 200), fixedRacer{iters: 100, step: 5 * time.Millisecond}), true, 0, 100 * time.Millisecond},
	} {
		useRaceDevice(t, 10*time.Millisecond, 0, true)
		vertexprog.SetWarming(t, false)
		base := runtime.NumGoroutine()
		_, rep, err := vertexprog.Race(vertexprog.Options{}, c.run)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		settled(t, rep, base)
		if opened := rep.Opened > 0; opened != c.opens || c.opens && (rep.Opened < c.after || rep.Opened > c.before) {
			t.Errorf("%s: the device opened after %v, want opened %v (between %v and %v): %s", c.name, rep.Opened, c.opens, c.after, c.before, rep.Why)
		}
		// (an opened device answers at once: it answers where it opens)
		if c.opens == (rep.Backend == "cpu") {
			t.Errorf("%s: answered by %s: %s", c.name, rep.Backend, rep.Why)
		}
		if !c.opens && !strings.Contains(rep.Why, "not opened") {
			t.Errorf("%s: %q does not say the device was not opened", c.name, rep.Why)
		}
		t.Log(c.name, ": ", rep.Why)
	}
}

// slowParts is a part backend of 2 devices that opens slowly (its
// Available blocks for a second) and probes at once: PartsOf must not
// wait for it.
type slowParts struct{ slowDevice }

func (d *slowParts) Name() string     { return "test-slow-parts" }
func (d *slowParts) PartDevices() int { return 2 }
func (d *slowParts) StartParts([]*driver.DeviceJob, driver.Comm) (driver.DeviceRun, error) {
	return nil, errors.New("not in this test")
}

var partsDevice = &slowParts{}

func init() { driver.Register(partsDevice) }

// TestPartsOfDoesNotWaitForTheDevice: a loader asks how many parts a run
// takes while the device opens beside the load (a one-shot answer's
// device set-up); the answer comes from the backend's probe, at once.
func TestPartsOfDoesNotWaitForTheDevice(t *testing.T) {
	d := partsDevice
	d.open, d.openOnce = time.Second, sync.Once{}
	d.on.Store(true)
	t.Cleanup(func() { d.on.Store(false) })
	for _, backend := range []string{"auto", d.Name()} {
		t0 := time.Now()
		n := vertexprog.PartsOf(vertexprog.Options{Backend: backend})
		if took := time.Since(t0); took > 500*time.Millisecond || n != 2 {
			t.Errorf("PartsOf(%s) = %d after %v, want 2 at once (the device opens in 1 s)", backend, n, took)
		}
	}
	if n := vertexprog.PartsOf(vertexprog.Options{Backend: "cpu"}); n != 1 {
		t.Errorf("PartsOf(cpu) = %d, want 1", n)
	}
}

// TestRaceWithoutDevice: no device opens; the CPU answers.
func TestRaceWithoutDevice(t *testing.T) {
	g := pathGraph(t, 50)
	got, rep, err := vertexprog.Race(vertexprog.Options{}, runRacer(g, newRacer(-1)))
	if err != nil || rep.Backend != "cpu" || got[49] != 0 {
		t.Fatalf("race without a device: %v on %s, label %d", err, rep.Backend, got[49])
	}
	<-rep.Done
}

// TestPlanAnswer: what races and what goes straight to one backend.
func TestPlanAnswer(t *testing.T) {
	useRaceDevice(t, 0, 0, true)
	g := pathGraph(t, 10)
	r := newRacer(-1)
	cases := []struct {
		name string
		p    interface{ Spec() vertexprog.Spec }
		opt  vertexprog.Options
		race bool
	}{
		{"auto", r, vertexprog.Options{}, true},
		{"auto by name", r, vertexprog.Options{Backend: "auto"}, true},
		{"cpu", r, vertexprog.Options{Backend: "cpu"}, false},
		{"named device", r, vertexprog.Options{Backend: "test-slow-device"}, false},
		{"resident", r, vertexprog.Options{Resident: true}, false},
		{"no device code", minLabel[int32]{}, vertexprog.Options{}, false},
		{"heavy gathers", heavyRacer{r}, vertexprog.Options{}, false},
		{"device first", firstRacer{r}, vertexprog.Options{}, false},
		{"device first, on the CPU", firstRacer{r}, vertexprog.Options{Backend: "cpu"}, false},
		{"device code only after Prepare", unpreparedRacer{racer: r}, vertexprog.Options{}, true},
		{"one part", r, vertexprog.Options{Parts: 1}, true},
		{"parts", r, vertexprog.Options{Parts: 2}, false},
		{"processes", r, vertexprog.Options{Comm: twoProcesses{}}, false},
		{"a process of one", r, vertexprog.Options{Comm: oneProcess{}}, true},
	}
	for _, c := range cases {
		plan := vertexprog.PlanAnswer(c.p, g, c.opt)
		if plan.Race != c.race || plan.Why == "" {
			t.Errorf("%s: race %v (%s), want %v", c.name, plan.Race, plan.Why, c.race)
		}
	}
	if plan := vertexprog.PlanAnswer(firstRacer{r}, g, vertexprog.Options{}); plan.Backend != "auto" || !strings.Contains(plan.Why, "far more an edge") {
		t.Errorf("device first: backend %q, why %q; want auto and the program's reason", plan.Backend, plan.Why)
	}
	// No device backend's probe finds what it needs (no driver): nothing
	// to race, and nothing waited for to learn it.
	raceDevice.on.Store(false)
	if vertexprog.DeviceMayRun() {
		t.Error("DeviceMayRun with the only device backend's probe failing")
	}
	if plan := vertexprog.PlanAnswer(r, g, vertexprog.Options{}); plan.Race || plan.Why == "" {
		t.Errorf("no device can run: race %v (%s), want none and why", plan.Race, plan.Why)
	}
}

// TestRaceRefusesParts: a partitioned run is not raced (its processes
// would each pick their own winner): Race says so and runs nothing.
func TestRaceRefusesParts(t *testing.T) {
	for _, opt := range []vertexprog.Options{{Parts: 2}, {Comm: twoProcesses{}}} {
		runs := 0
		_, rep, err := vertexprog.Race(opt, func(vertexprog.Options) (int, error) { runs++; return 0, nil })
		if err == nil || runs != 0 {
			t.Errorf("Race of parts %d, comm %v: err %v after %d runs; want an error and none", opt.Parts, opt.Comm, err, runs)
		}
		<-rep.Done // (closed: nothing to wait for)
	}
}

// twoProcesses and oneProcess are the Comms of a run's first process of
// two, and of a run of one, for PlanAnswer (which never exchanges).
type twoProcesses struct{}

func (twoProcesses) Rank() int                            { return 0 }
func (twoProcesses) Size() int                            { return 2 }
func (twoProcesses) AllGather(b []byte) ([][]byte, error) { return nil, errors.New("not joined") }

type oneProcess struct{}

func (oneProcess) Rank() int                            { return 0 }
func (oneProcess) Size() int                            { return 1 }
func (oneProcess) AllGather(b []byte) ([][]byte, error) { return [][]byte{b}, nil }

type heavyRacer struct{ racer }

// firstRacer says the device answers it first (vertexprog.DeviceFirst).
type firstRacer struct{ racer }

func (firstRacer) DeviceFirst() string { return "its CPU run does far more an edge" }

// unpreparedRacer's device code needs Prepare (it reads what Prepare
// made): an unprepared one's Device fails.
type unpreparedRacer struct {
	racer
	prepared *vertexprog.Graph
}

func (u unpreparedRacer) Device() vertexprog.DeviceCode {
	return vertexprog.DeviceCode{Source: "// " + u.prepared.Dataset().Name}
}

func (heavyRacer) Device() vertexprog.DeviceCode {
	return vertexprog.DeviceCode{Source: "// (never compiled)", HeavyGather: true}
}
