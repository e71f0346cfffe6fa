package vertexprog_test

import (
	"math"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/datasets/gen"
	"github.com/hpgraph/hpgraph/vertexprog"
	"github.com/hpgraph/hpgraph/vertexprog/vptest"
)

func path(t *testing.T, n int) *vertexprog.Graph {
	t.Helper()
	el := &datasets.EdgeList{N: n, Directed: true}
	for v := 0; v+1 < n; v++ {
		el.Src, el.Dst = append(el.Src, int32(v)), append(el.Dst, int32(v+1))
	}
	g, err := datasets.Build(el, datasets.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return vertexprog.NewGraph(g)
}

// kron is GAP's Kronecker graph of the scale and degree, built.
func kron(t *testing.T, scale, degree int) *datasets.Graph {
	t.Helper()
	el, err := gen.Kronecker(scale, degree, gen.GAPSeed)
	if err != nil {
		t.Fatal(err)
	}
	d, err := datasets.Build(el, datasets.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// counter counts supersteps and sums vertex ids through aggregators: Init
// adds every id, each Update adds 1 and tracks the minimum iteration seen.
type counter struct{ limit int }

func (c counter) Spec() vertexprog.Spec {
	return vertexprog.Spec{Edges: vertexprog.InEdges, GatherAll: true, MaxIterations: c.limit,
		Aggregators: []vertexprog.Aggregator{vertexprog.Sum, vertexprog.Max, vertexprog.Min}}
}
func (counter) Init(v int32, s *vertexprog.Step) (float64, bool) {
	s.Add(0, float64(v))
	return 0, true
}
func (counter) Identity() float64                                            { return 0 }
func (counter) Gather(acc float64, _, _ int32, x float64, _ float32) float64 { return acc + x }
func (counter) Reduce(a, b float64) float64                                  { return a + b }
func (counter) Update(v int32, _ float64, x *float64, s *vertexprog.Step) bool {
	// What the previous superstep summed must be visible now.
	*x = s.Aggregate(0)
	s.Add(0, 1)
	s.Add(1, float64(s.Iteration))
	s.Add(2, float64(v))
	return true
}

func TestAggregatorsAndIterationLimit(t *testing.T) {
	g := path(t, 10)
	res, err := vertexprog.Run(g, vertexprog.Program[float64, float64](counter{limit: 3}), vertexprog.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Iterations != 3 || len(res.Active) != 3 || res.Active[2] != 10 {
		t.Fatalf("iterations %d, active %v; want 3 supersteps of 10 active", res.Iterations, res.Active)
	}
	// Superstep 0 sees Init's sum 0+…+9 = 45; supersteps 1 and 2 see 10.
	// The last superstep's sum is 10 again.
	if res.X[0] != 10 || res.Aggregates[0] != 10 || res.Aggregates[1] != 2 || res.Aggregates[2] != 0 {
		t.Fatalf("x[0] = %v, aggregates %v; want 10, [10 2 0]", res.X[0], res.Aggregates)
	}
	res, err = vertexprog.Run(g, vertexprog.Program[float64, float64](counter{limit: 3}), vertexprog.Options{MaxIterations: 1})
	if err != nil {
		t.Fatal(err)
	}
	if res.Iterations != 1 || res.X[0] != 45 {
		t.Fatalf("with MaxIterations 1: %d supersteps, x[0] = %v; want 1 and 45", res.Iterations, res.X[0])
	}
}

// reach is BFS reachability without depths: a minimal Sparse program.
type reach struct{ src int32 }

func (reach) Spec() vertexprog.Spec { return vertexprog.Spec{Edges: vertexprog.InEdges, Sparse: true} }
func (r reach) Init(v int32, _ *vertexprog.Step) (uint32, bool) {
	if v == r.src {
		return 1, true
	}
	return 0, false
}
func (reach) Identity() uint32                                          { return 0 }
func (reach) Gather(acc uint32, _, _ int32, x uint32, _ float32) uint32 { return acc | x }
func (reach) Reduce(a, b uint32) uint32                                 { return a | b }
func (reach) Update(_ int32, acc uint32, x *uint32, _ *vertexprog.Step) bool {
	if acc&^*x != 0 {
		*x |= acc
		return true
	}
	return false
}

// manyWorkers runs the rest of the test on eight workers, where the
// CPU's Alpha for programs whose pull reads every edge is 3 (on up to
// four it is 1: such a program then pulls only a frontier of more edges
// than the whole graph's).
func manyWorkers(t *testing.T) {
	old := runtime.GOMAXPROCS(8)
	t.Cleanup(func() { runtime.GOMAXPROCS(old) })
}

func TestDirectionChoiceIsLogged(t *testing.T) {
	manyWorkers(t)
	d := kron(t, 12, 16)
	g := vertexprog.NewGraph(d)
	hub := int32(0)
	for v := int32(0); v < int32(d.N); v++ {
		if d.Degree(v) > d.Degree(hub) {
			hub = v
		}
	}
	var lines []string
	res, err := vertexprog.Run(g, vertexprog.Program[uint32, uint32](reach{hub}),
		vertexprog.Options{Log: func(l string) { lines = append(lines, l) }})
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) != res.Iterations || !strings.Contains(lines[0], "superstep 0: push") {
		t.Fatalf("log %q for %d supersteps; want one line each, starting with a push", lines, res.Iterations)
	}
	// A Kronecker graph's frontier explodes after a hop or two: Beamer's
	// rule must switch to pull at some point.
	pulled := false
	for _, d := range res.Directions {
		pulled = pulled || d == vertexprog.Pull
	}
	if !pulled {
		t.Errorf("directions %v never pull on a scale-free graph", res.Directions)
	}
	// GraphBLAST's rule and forced directions give the same answer.
	vptest.Compare[uint32, uint32](t, g, func() reach { return reach{hub} },
		func(_ reach, r *vertexprog.Result[uint32]) []uint32 { return r.X },
		func(a, b uint32) bool { return a == b })
	gb, err := vertexprog.Run(g, vertexprog.Program[uint32, uint32](reach{hub}), vertexprog.Options{Rule: vertexprog.GraphBLAST})
	if err != nil {
		t.Fatal(err)
	}
	for v := range gb.X {
		if gb.X[v] != res.X[v] {
			t.Fatalf("graphblast rule: vertex %d = %d, beamer %d", v, gb.X[v], res.X[v])
		}
	}
}

func TestRunErrors(t *testing.T) {
	g := path(t, 4)
	if _, err := vertexprog.Run(g, vertexprog.Program[float64, float64](counter{limit: -1}), vertexprog.Options{}); err == nil {
		t.Error("negative iteration limit accepted")
	}
	if _, err := vertexprog.Run(g, vertexprog.Program[float64, float64](counter{}), vertexprog.Options{Direction: vertexprog.Push}); err == nil {
		t.Error("push forced on a dense program")
	}
	_, err := vertexprog.Run(g, vertexprog.Program[uint32, uint32](reach{}), vertexprog.Options{Backend: "cuda"})
	if err == nil || !strings.Contains(err.Error(), "cuda") {
		t.Errorf("backend cuda without the tag: %v", err)
	}
}

// deltaReach is reach with a Spec.Delta (reach is Sparse, not Idempotent,
// unless idem).
type deltaReach struct {
	reach
	delta float64
	idem  bool
}

func (d deltaReach) Spec() vertexprog.Spec {
	s := d.reach.Spec()
	s.Delta, s.Idempotent = d.delta, d.idem
	return s
}

func TestDeltaIsChecked(t *testing.T) {
	g := path(t, 4)
	for _, c := range []deltaReach{{delta: -1, idem: true}, {delta: math.NaN(), idem: true}, {delta: math.Inf(1), idem: true}, {delta: 2}} {
		if _, err := vertexprog.Run(g, vertexprog.Program[uint32, uint32](c), vertexprog.Options{}); err == nil || !strings.Contains(err.Error(), "Delta") {
			t.Errorf("delta %v (idempotent %v): error %v", c.delta, c.idem, err)
		}
	}
	// Without a Priority the CPU engine defers nothing: the same
	// supersteps as without Delta.
	want, err := vertexprog.Run(g, vertexprog.Program[uint32, uint32](reach{}), vertexprog.Options{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := vertexprog.Run(g, vertexprog.Program[uint32, uint32](deltaReach{delta: 2, idem: true}), vertexprog.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Iterations != want.Iterations || !slices.Equal(got.X, want.X) {
		t.Errorf("with delta: %d supersteps, x %v; without: %d, %v", got.Iterations, got.X, want.Iterations, want.X)
	}
}

func TestEmptyFrontierRunsNoSuperstep(t *testing.T) {
	g := path(t, 5)
	res, err := vertexprog.Run(g, vertexprog.Program[uint32, uint32](reach{src: -1}), vertexprog.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Iterations != 0 || res.X[0] != 0 {
		t.Fatalf("%d supersteps, x[0] = %d with no active vertex", res.Iterations, res.X[0])
	}
}

// leftDigits writes, into each vertex's value, Step.Left()+1 at Init and
// in each superstep, one decimal digit after the other (4321: three
// supersteps under a limit of 3); without a limit it stops after stop
// supersteps.
type leftDigits struct{ limit, stop int }

func (p leftDigits) Spec() vertexprog.Spec {
	return vertexprog.Spec{Edges: vertexprog.InEdges, GatherAll: true, MaxIterations: p.limit}
}
func (leftDigits) Init(v int32, s *vertexprog.Step) (float64, bool) {
	return float64(s.Left() + 1), true
}
func (leftDigits) Identity() float64                                            { return 0 }
func (leftDigits) Gather(acc float64, _, _ int32, _ float64, _ float32) float64 { return acc }
func (leftDigits) Reduce(a, b float64) float64                                  { return a + b }
func (p leftDigits) Update(v int32, _ float64, x *float64, s *vertexprog.Step) bool {
	*x = *x*10 + float64(s.Left()+1)
	return p.limit > 0 || s.Iteration+1 < p.stop
}

func TestStepLeft(t *testing.T) {
	g := path(t, 100)
	for _, c := range []struct {
		name string
		p    leftDigits
		opt  vertexprog.Options
		want float64
	}{
		{"the program's limit", leftDigits{limit: 3}, vertexprog.Options{}, 4321},
		{"Options.MaxIterations under it", leftDigits{limit: 5}, vertexprog.Options{MaxIterations: 2}, 321},
		{"Options.MaxIterations over it", leftDigits{limit: 2}, vertexprog.Options{MaxIterations: 4}, 54321},
		{"no limit", leftDigits{stop: 3}, vertexprog.Options{}, 0},
		{"in parts", leftDigits{limit: 3}, vertexprog.Options{Parts: 3}, 4321},
	} {
		c.opt.Backend = "cpu"
		res, err := vertexprog.Run(g, vertexprog.Program[float64, float64](c.p), c.opt)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		for v, x := range res.X {
			if x != c.want {
				t.Fatalf("%s: vertex %d's digits %v, want %v", c.name, v, x, c.want)
			}
		}
	}
}
