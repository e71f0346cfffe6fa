package vertexprog_test

import (
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hpgraph/hpgraph/vertexprog"
	"github.com/hpgraph/hpgraph/vertexprog/driver"
)

// recordParts is a part backend that gathers multisets, available only
// while on: its StartParts keeps the jobs it is given and runs none, so
// a test reads what vertexprog hands a device for a partitioned run.
type recordParts struct {
	on   atomic.Bool
	jobs []*driver.DeviceJob
}

var errRecorded = errors.New("recorded, not run")

func (d *recordParts) Name() string { return "test-record-parts" }
func (d *recordParts) Available() error {
	if !d.on.Load() {
		return errors.New("only in TestPartJobs")
	}
	return nil
}

// Probe is Available (driver.Prober: the race tests ask every backend).
func (d *recordParts) Probe() error                                      { return d.Available() }
func (d *recordParts) PartDevices() int                                  { return 1 }
func (d *recordParts) Start(*driver.DeviceJob) (driver.DeviceRun, error) { return nil, errRecorded }
func (d *recordParts) StartMultiset(*driver.DeviceJob) (driver.DeviceRun, error) {
	return nil, errRecorded
}
func (d *recordParts) StartParts(jobs []*driver.DeviceJob, _ driver.Comm) (driver.DeviceRun, error) {
	d.jobs = jobs
	return nil, errRecorded
}

var recorder = &recordParts{}

func init() { driver.Register(recorder) }

// preparedCode is device code that names what Prepare saw: a program's
// Device must be called after Prepare (its arrays and constants may
// depend on the graph).
func preparedCode(n int) vertexprog.DeviceCode {
	return vertexprog.DeviceCode{Source: fmt.Sprintf("// prepared for %d vertices\n", n)}
}

// preparedMin is a plain program with device code; preparedMode a multiset one.
type preparedMin struct{ n int }

func (p *preparedMin) Spec() vertexprog.Spec {
	return vertexprog.Spec{Edges: vertexprog.InEdges, GatherAll: true, MaxIterations: 3}
}
func (p *preparedMin) Prepare(g *vertexprog.Graph) error { p.n = g.N(); return nil }
func (p *preparedMin) Init(v int32, _ *vertexprog.Step) (int32, bool) {
	return v, true
}
func (p *preparedMin) Identity() int32                                 { return 1 << 30 }
func (p *preparedMin) Gather(a, _, _ int32, xu int32, _ float32) int32 { return min(a, xu) }
func (p *preparedMin) Reduce(a, b int32) int32                         { return min(a, b) }
func (p *preparedMin) Update(_ int32, a int32, x *int32, _ *vertexprog.Step) bool {
	*x = min(*x, a)
	return true
}
func (p *preparedMin) Device() vertexprog.DeviceCode { return preparedCode(p.n) }

type preparedMode struct{ n int }

func (p *preparedMode) Spec() vertexprog.Spec {
	return vertexprog.Spec{Edges: vertexprog.InEdges, GatherAll: true, MaxIterations: 3}
}
func (p *preparedMode) Prepare(g *vertexprog.Graph) error { p.n = g.N(); return nil }
func (p *preparedMode) Init(v int32, _ *vertexprog.Step) (int64, bool) {
	return int64(v % 3), true
}
func (p *preparedMode) Element(_, _ int32, xu int64, _ float32) int64 { return xu }
func (p *preparedMode) Summarize(_ int32, b vertexprog.Bag[int64]) int64 {
	best := int64(-1)
	for i, c := range b.Counts {
		if best < 0 || c > b.Counts[best] {
			best = int64(i)
		}
	}
	if best < 0 {
		return -1
	}
	return b.Values[best]
}
func (p *preparedMode) Update(_ int32, a int64, x *int64, _ *vertexprog.Step) bool {
	if a >= 0 {
		*x = a
	}
	return true
}
func (p *preparedMode) Device() vertexprog.DeviceCode { return preparedCode(p.n) }

// TestPartJobs: a partitioned run on a device backend hands it one job a
// part, covering the graph's rows in order, with the program's code made
// after Prepare, and a multiset program's marked as such.
func TestPartJobs(t *testing.T) {
	recorder.on.Store(true)
	t.Cleanup(func() { recorder.on.Store(false) })
	g := pathGraph(t, 300)
	opt := vertexprog.Options{Backend: recorder.Name(), Parts: 3}
	for _, c := range []struct {
		name     string
		run      func() error
		multiset bool
	}{
		{"plain", func() error { _, err := vertexprog.Run[int32, int32](g, &preparedMin{}, opt); return err }, false},
		{"multiset", func() error {
			_, err := vertexprog.Multiset[int64, int64, int64](&preparedMode{}).Run(g, opt)
			return err
		}, true},
	} {
		recorder.jobs = nil
		if err := c.run(); !errors.Is(err, errRecorded) {
			t.Fatalf("%s: %v, want the recorder's refusal", c.name, err)
		}
		if len(recorder.jobs) != 3 {
			t.Fatalf("%s: %d jobs, want 3", c.name, len(recorder.jobs))
		}
		next := int32(0)
		for i, j := range recorder.jobs {
			if j.Multiset != c.multiset || j.Part == nil || j.Part.Index != i || j.Part.Count != 3 || j.Part.Lo != next || j.Pull.N != g.N() {
				t.Fatalf("%s: job %d: multiset %v, part %+v, %d rows; want multiset %v, part %d of 3 from %d, %d rows",
					c.name, i, j.Multiset, j.Part, j.Pull.N, c.multiset, i, next, g.N())
			}
			next = j.Part.Hi
			if want := fmt.Sprintf("prepared for %d vertices", g.N()); !strings.Contains(j.Code.Source, want) {
				t.Errorf("%s: job %d's code %q, want it made after Prepare (%s)", c.name, i, j.Code.Source, want)
			}
		}
		if next != int32(g.N()) {
			t.Errorf("%s: the parts end at %d of %d rows", c.name, next, g.N())
		}
	}
}
