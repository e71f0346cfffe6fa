package vertexprog_test

import (
	"cmp"
	"errors"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/vertexprog"
	"github.com/hpgraph/hpgraph/vertexprog/driver"
)

// unionFind is a ComponentsBackend that labels on the host by union-find
// over the matrix it is given (what a device's path must compute). It is
// available only inside TestComponentsPath, so that other tests, which
// run every available backend, do not see it.
type unionFind struct{}

var unionFindOn bool

func (unionFind) Name() string { return "test-unionfind" }
func (unionFind) Available() error {
	if !unionFindOn {
		return errors.New("only in TestComponentsPath")
	}
	return nil
}
func (unionFind) Components(m *driver.Matrix) (driver.ComponentsRun, error) {
	return &ufRun{m: m}, nil
}

type ufRun struct {
	m      *driver.Matrix
	labels []int32
}

func (r *ufRun) Run() (int, error) {
	parent := make([]int32, r.m.N)
	for v := range parent {
		parent[v] = int32(v)
	}
	find := func(v int32) int32 {
		for parent[v] != v {
			v = parent[v]
		}
		return v
	}
	for v := 0; v < r.m.N; v++ {
		for k := 0; k < r.m.K; k++ {
			if u := r.m.EllCol[k*r.m.Pitch+v]; u >= 0 {
				a, b := find(int32(v)), find(u)
				parent[max(a, b)] = min(a, b)
			}
		}
		for e := r.m.CooPtr[v]; e < r.m.CooPtr[v+1]; e++ {
			a, b := find(int32(v)), find(r.m.CooCol[e])
			parent[max(a, b)] = min(a, b)
		}
	}
	r.labels = make([]int32, r.m.N)
	for v := range r.labels {
		r.labels[v] = find(int32(v))
	}
	return 1, nil
}

func (r *ufRun) Finish(labels []int32) error { copy(labels, r.labels); return nil }
func (r *ufRun) Close()                      {}

// ufClock is what ufRun reports as its device time (driver.DeviceTimer).
const ufClock = 42 * time.Microsecond

func (r *ufRun) DeviceTime() time.Duration { return ufClock }

// minLabel is min-label propagation from Init values of its own (a
// value per vertex, any type), declared as such (Spec.Components).
type minLabel[X cmp.Ordered] struct {
	init []X
	none X // above every value
}

func (p minLabel[X]) Spec() vertexprog.Spec {
	return vertexprog.Spec{Edges: vertexprog.AllEdges, Sparse: true, Idempotent: true, Components: true}
}
func (p minLabel[X]) Init(v int32, _ *vertexprog.Step) (X, bool)  { return p.init[v], true }
func (p minLabel[X]) Identity() X                                 { return p.none }
func (p minLabel[X]) Gather(acc X, _, _ int32, xu X, _ float32) X { return min(acc, xu) }
func (p minLabel[X]) Reduce(a, b X) X                             { return min(a, b) }
func (p minLabel[X]) Update(_ int32, acc X, x *X, _ *vertexprog.Step) bool {
	if acc < *x {
		*x = acc
		return true
	}
	return false
}

// ccIDs is connected components: min-label propagation from the ids.
type ccIDs struct{ minLabel[int32] }

func (ccIDs) Init(v int32, _ *vertexprog.Step) (int32, bool) { return v, true }

// TestComponentsPath: a program declaring Spec.Components runs on a
// backend's union-find path where there is one, with the same result as
// supersteps on the CPU: the labels themselves for the ids, and each
// component's smallest Init value for values of other types; options that
// only supersteps honour, the CPU, and a Spec that cannot be min-label
// propagation keep supersteps or fail.
func TestComponentsPath(t *testing.T) {
	driver.Register(unionFind{})
	unionFindOn = true
	defer func() { unionFindOn = false }()
	// Two paths, 0-1-2 and 3-4 (edges given backwards), and vertex 5 alone.
	el := &datasets.EdgeList{N: 6, Src: []int32{2, 1, 4}, Dst: []int32{1, 0, 3}}
	d, err := datasets.Build(el, datasets.Options{})
	if err != nil {
		t.Fatal(err)
	}
	g := vertexprog.NewGraph(d)
	uf := vertexprog.Options{Backend: "test-unionfind"}
	res, err := vertexprog.Run[int32, int32](g, ccIDs{minLabel[int32]{none: math.MaxInt32}}, uf)
	if err != nil {
		t.Fatal(err)
	}
	if want := []int32{0, 0, 0, 3, 3, 5}; !slices.Equal(res.X, want) || res.Backend != "test-unionfind" || res.Iterations != 1 {
		t.Fatalf("labels %v on %s in %d passes, want %v", res.X, res.Backend, res.Iterations, want)
	}
	if res.Device != ufClock {
		t.Errorf("Result.Device %v, want the run's DeviceTime %v", res.Device, ufClock)
	}
	// Values of another type, with ties and an isolated vertex, on a
	// larger random graph: the union-find path equals supersteps.
	rng := rand.New(rand.NewPCG(3, 4))
	n := 3000
	el = &datasets.EdgeList{N: n}
	for range 2500 {
		el.Src = append(el.Src, int32(rng.IntN(n)))
		el.Dst = append(el.Dst, int32(rng.IntN(n)))
	}
	if d, err = datasets.Build(el, datasets.Options{}); err != nil {
		t.Fatal(err)
	}
	g = vertexprog.NewGraph(d)
	p := minLabel[float32]{init: make([]float32, n), none: float32(math.Inf(1))}
	for v := range p.init {
		p.init[v] = float32(rng.IntN(500)) / 7
	}
	fast, err := vertexprog.Run[float32, float32](g, p, uf)
	if err != nil {
		t.Fatal(err)
	}
	slow, err := vertexprog.Run[float32, float32](g, supersteps[float32]{p}, vertexprog.Options{Backend: "cpu"})
	if err != nil {
		t.Fatal(err)
	}
	if fast.Backend != "test-unionfind" || slow.Backend != "cpu" || !slices.Equal(fast.X, slow.X) {
		t.Errorf("float32 labels on %s differ from supersteps on %s", fast.Backend, slow.Backend)
	}
	// The labels written into Options.Values, and values of int32 that
	// are not the ids.
	q := minLabel[int32]{init: make([]int32, n), none: math.MaxInt32}
	for v := range q.init {
		q.init[v] = int32(rng.IntN(n))
	}
	vals := make([]int32, n)
	fastI, err := vertexprog.Run[int32, int32](g, q, vertexprog.Options{Backend: "test-unionfind", Values: vals})
	if err != nil {
		t.Fatal(err)
	}
	slowI, err := vertexprog.Run[int32, int32](g, supersteps[int32]{q}, vertexprog.Options{Backend: "cpu"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(fastI.X, slowI.X) || &fastI.X[0] != &vals[0] {
		t.Errorf("int32 labels on the union-find path differ from supersteps' (or were not written to Options.Values)")
	}
	for _, c := range []struct {
		name string
		opt  vertexprog.Options
	}{
		{"forced direction", vertexprog.Options{Direction: vertexprog.Pull}},
		{"iteration limit", vertexprog.Options{MaxIterations: 3}},
		{"per-edge gathers", vertexprog.Options{PerEdge: true}},
	} {
		r, err := vertexprog.Run[float32, float32](g, p, c.opt)
		if err != nil || r.Backend == "test-unionfind" {
			t.Errorf("%s: ran on %v (err %v); want supersteps", c.name, r, err)
		}
	}
	if _, err := vertexprog.Run[float32, float32](g, p, vertexprog.Options{Backend: "no-such"}); !errors.Is(err, vertexprog.ErrNoBackend) {
		t.Errorf("unknown backend: err %v, want ErrNoBackend", err)
	}
	if _, err := vertexprog.Run[float32, float32](g, badComponents{p}, uf); err == nil || !strings.Contains(err.Error(), "Spec.Components") {
		t.Errorf("Spec.Components over in-edges: err %v, want the Spec's error", err)
	}
}

// supersteps is a minLabel that does not declare Spec.Components.
type supersteps[X cmp.Ordered] struct{ minLabel[X] }

func (supersteps[X]) Spec() vertexprog.Spec {
	return vertexprog.Spec{Edges: vertexprog.AllEdges, Sparse: true, Idempotent: true}
}

// TestHostComponents: the CPU engine's union-find path (Afforest on all
// cores) gives what supersteps give, on undirected and directed graphs
// (weakly connected), from a giant component with satellites to many
// small ones and isolated vertices, for ids and for values of their own;
// options that only supersteps honour run supersteps.
func TestHostComponents(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, c := range []struct {
		n, m     int
		directed bool
		blocks   int // (the edges' ends drawn within one of blocks equal ranges: as many components)
	}{{1, 0, false, 1}, {2, 1, false, 1}, {500, 0, false, 1}, {5000, 12000, false, 1}, {5000, 3000, false, 1}, {20000, 19000, true, 1}, {3000, 30000, true, 1},
		{20000, 200000, false, 50}} {
		el := &datasets.EdgeList{N: c.n, Directed: c.directed}
		size := c.n / c.blocks
		for range c.m {
			b := rng.IntN(c.blocks) * size
			el.Src = append(el.Src, int32(b+rng.IntN(size)))
			el.Dst = append(el.Dst, int32(b+rng.IntN(size)))
		}
		d, err := datasets.Build(el, datasets.Options{})
		if err != nil {
			t.Fatal(err)
		}
		g := vertexprog.NewGraph(d)
		ids := minLabel[int32]{init: make([]int32, c.n), none: math.MaxInt32}
		vals := minLabel[float64]{init: make([]float64, c.n), none: math.Inf(1)}
		for v := range c.n {
			ids.init[v] = int32(v)
			vals.init[v] = float64(rng.IntN(c.n))
		}
		cpu := vertexprog.Options{Backend: "cpu"}
		want, err := vertexprog.Run[int32, int32](g, supersteps[int32]{ids}, cpu)
		if err != nil {
			t.Fatal(err)
		}
		var got *vertexprog.Result[int32]
		// (up to two workers link both sampled neighbours in one pass,
		// more in a pass each, on graphs of rows 16 entries long or more
		// (the last two; the last of 50 components) a claim's ends read
		// first: linkRows)
		for _, w := range []int{1, 4, runtime.GOMAXPROCS(0)} {
			old := runtime.GOMAXPROCS(w)
			got, err = vertexprog.Run[int32, int32](g, ids, cpu)
			runtime.GOMAXPROCS(old)
			if err != nil {
				t.Fatal(err)
			}
			passes := 3
			if w <= 2 {
				passes = 2
			}
			if !slices.Equal(got.X, want.X) || got.Backend != "cpu" || c.n > 0 && got.Iterations != passes {
				t.Errorf("n=%d m=%d directed=%v, %d workers: union-find labels differ from supersteps' (%d passes, want %d)", c.n, c.m, c.directed, w, got.Iterations, passes)
			}
		}
		gotV, err := vertexprog.Run[float64, float64](g, vals, cpu)
		if err != nil {
			t.Fatal(err)
		}
		wantV, err := vertexprog.Run[float64, float64](g, supersteps[float64]{vals}, cpu)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(gotV.X, wantV.X) {
			t.Errorf("n=%d m=%d directed=%v: union-find values differ from supersteps'", c.n, c.m, c.directed)
		}
		forced, err := vertexprog.Run[int32, int32](g, ids, vertexprog.Options{Backend: "cpu", Direction: vertexprog.Pull})
		if err != nil || len(forced.Active) == 0 || len(got.Active) != 0 || !slices.Equal(forced.X, want.X) {
			t.Errorf("n=%d: a forced direction ran %d supersteps (err %v), the union-find path %d; want supersteps and none", c.n, len(forced.Active), err, len(got.Active))
		}
	}
}

// badComponents declares Components over in-edges only.
type badComponents struct{ minLabel[float32] }

func (badComponents) Spec() vertexprog.Spec {
	return vertexprog.Spec{Edges: vertexprog.InEdges, Components: true}
}

// TestComponentsInParts: a program declaring Spec.Components split into
// parts on the CPU takes the partitioned union-find (each part's forest,
// then the others' linked in: Result.Parts says so), with the labels of
// supersteps on the whole graph, for the ids and for values of another
// type, on directed and undirected random graphs with many small
// components, in 2, 3 and 7 parts, and on one whose last 40% of vertices
// have no arcs (as in an order by degree: the parts exchange only their
// rows up to the last with arcs), and on two dense halves joined by one
// arc between their parts' largest components.
func TestComponentsInParts(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 41))
	for _, c := range []struct {
		directed, clusters, bridge bool
		arcs                       int // (the vertices with arcs: the first ones)
	}{{false, false, false, 5000}, {true, false, false, 5000}, {false, true, false, 5000}, {false, true, true, 5000}, {false, false, false, 3000}} {
		directed := c.directed
		n := 5000
		el := &datasets.EdgeList{N: n, Directed: directed}
		for range 3500 {
			u := int32(rng.IntN(c.arcs))
			el.Src, el.Dst = append(el.Src, u), append(el.Dst, int32(rng.IntN(c.arcs)))
			if rng.IntN(4) == 0 { // (hubs among low ids)
				el.Src, el.Dst = append(el.Src, int32(rng.IntN(40))), append(el.Dst, u)
			}
		}
		if c.clusters {
			// Two dense components, one in each half: the parts' largest
			// components are two, and the run is made again unskipped.
			el.Src, el.Dst = nil, nil
			for range 20000 {
				h := int32(rng.IntN(2)) * int32(n/2)
				el.Src, el.Dst = append(el.Src, h+int32(rng.IntN(n/2))), append(el.Dst, h+int32(rng.IntN(n/2)))
			}
			if c.bridge {
				// One arc between the two, both ends in their part's
				// largest component.
				el.Src, el.Dst = append(el.Src, 7), append(el.Dst, int32(n/2+11))
			}
		}
		d, err := datasets.Build(el, datasets.Options{KeepSelfLoops: true})
		if err != nil {
			t.Fatal(err)
		}
		g := vertexprog.NewGraph(d)
		ids := ccIDs{minLabel[int32]{none: math.MaxInt32}}
		q := minLabel[int32]{init: make([]int32, n), none: math.MaxInt32}
		for v := range q.init {
			q.init[v] = int32(v)
		}
		want, err := vertexprog.Run[int32, int32](g, supersteps[int32]{q}, vertexprog.Options{Backend: "cpu"})
		if err != nil {
			t.Fatal(err)
		}
		p := minLabel[float32]{init: make([]float32, n), none: float32(math.Inf(1))}
		for v := range p.init {
			p.init[v] = float32(rng.IntN(900)) / 3
		}
		wantF, err := vertexprog.Run[float32, float32](g, supersteps[float32]{p}, vertexprog.Options{Backend: "cpu"})
		if err != nil {
			t.Fatal(err)
		}
		for _, parts := range []int{2, 3, 7} {
			got, err := vertexprog.Run[int32, int32](g, ids, vertexprog.Options{Backend: "cpu", Parts: parts})
			if err != nil {
				t.Fatal(err)
			}
			if len(got.Parts) != parts {
				t.Errorf("directed %v, %d parts: %d parts reported; want the partitioned union-find's %d", directed, parts, len(got.Parts), parts)
			}
			if !slices.Equal(got.X, want.X) {
				t.Errorf("directed %v, %d parts: labels differ from supersteps' on the whole graph", directed, parts)
			}
			gotF, err := vertexprog.Run[float32, float32](g, p, vertexprog.Options{Backend: "cpu", Parts: parts})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(gotF.X, wantF.X) {
				t.Errorf("directed %v, %d parts: float32 values differ from supersteps'", directed, parts)
			}
		}
	}
}
