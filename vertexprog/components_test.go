package vertexprog_test

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/vertexprog"
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
func (unionFind) Components(m *vertexprog.Matrix) (vertexprog.ComponentsRun, error) {
	return &ufRun{m: m}, nil
}

type ufRun struct {
	m      *vertexprog.Matrix
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

// ufClock is what ufRun reports as its device time (vertexprog.DeviceTimer).
const ufClock = 42 * time.Microsecond

func (r *ufRun) DeviceTime() time.Duration { return ufClock }

func TestComponentsPath(t *testing.T) {
	vertexprog.RegisterBackend(unionFind{})
	unionFindOn = true
	defer func() { unionFindOn = false }()
	// Two paths, 0-1-2 and 3-4 (edges given backwards), and vertex 5 alone.
	el := &datasets.EdgeList{N: 6, Src: []int32{2, 1, 4}, Dst: []int32{1, 0, 3}}
	d, err := datasets.Build(el, datasets.Options{})
	if err != nil {
		t.Fatal(err)
	}
	g := vertexprog.NewGraph(d)
	res, ok, err := vertexprog.Components(g, vertexprog.Options{Backend: "test-unionfind"})
	if err != nil || !ok {
		t.Fatalf("ok %v, err %v", ok, err)
	}
	if want := []int32{0, 0, 0, 3, 3, 5}; !slices.Equal(res.X, want) || res.Backend != "test-unionfind" || res.Iterations != 1 {
		t.Fatalf("labels %v on %s in %d passes, want %v", res.X, res.Backend, res.Iterations, want)
	}
	if res.Device != ufClock {
		t.Errorf("Result.Device %v, want the run's DeviceTime %v", res.Device, ufClock)
	}
	for _, c := range []struct {
		name string
		opt  vertexprog.Options
	}{
		{"cpu", vertexprog.Options{Backend: "cpu"}},
		{"forced direction", vertexprog.Options{Backend: "test-unionfind", Direction: vertexprog.Pull}},
		{"iteration limit", vertexprog.Options{Backend: "test-unionfind", MaxIterations: 3}},
	} {
		if _, ok, err := vertexprog.Components(g, c.opt); ok || err != nil {
			t.Errorf("%s: ok %v, err %v; want the vertex program", c.name, ok, err)
		}
	}
	if _, _, err := vertexprog.Components(g, vertexprog.Options{Backend: "no-such"}); !errors.Is(err, vertexprog.ErrNoBackend) {
		t.Errorf("unknown backend: err %v, want ErrNoBackend", err)
	}
}
