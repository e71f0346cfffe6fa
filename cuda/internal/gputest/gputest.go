// Package gputest holds what the tests of cuda's packages share: how a
// test that needs a GPU (or NVRTC) skips without one, or fails where
// HPGRAPH_REQUIRE_GPU (HPGRAPH_REQUIRE_NVRTC) says there must be one.
package gputest

import (
	"math/rand/v2"
	"os"
	"slices"
	"sync"
	"testing"

	"github.com/hpgraph/hpgraph/apps/bfs"
	"github.com/hpgraph/hpgraph/bitmask"
	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/hyb"
	"github.com/hpgraph/hpgraph/vertexprog"
	"github.com/hpgraph/hpgraph/vertexprog/driver"
)

// Required reports whether the GPU tests must run (HPGRAPH_REQUIRE_GPU):
// on the GPU machine, where a skip would hide a failure.
func Required() bool { return os.Getenv("HPGRAPH_REQUIRE_GPU") != "" }

// Need skips t when err says why the GPU cannot be used, or fails it
// where the GPU is required.
func Need(t testing.TB, err error) {
	t.Helper()
	if err == nil {
		return
	}
	if Required() {
		t.Fatal(err)
	}
	t.Skip(err)
}

// Device is a device a package's tests share, opened once by the first
// test that needs it.
type Device[T any] struct {
	once sync.Once
	d    T
	err  error
}

// Open is the device open opens, once, or why there is none.
func (d *Device[T]) Open(open func() (T, error)) (T, error) {
	d.once.Do(func() { d.d, d.err = open() })
	return d.d, d.err
}

// Get is the device open opens, once, or skips t without one (Need).
func (d *Device[T]) Get(t testing.TB, open func() (T, error)) T {
	t.Helper()
	dev, err := d.Open(open)
	Need(t, err)
	return dev
}

// NeedNVRTC skips t when err says why NVRTC cannot be loaded, or fails
// it where the GPU or NVRTC is required (HPGRAPH_REQUIRE_NVRTC).
func NeedNVRTC(t testing.TB, err error) {
	t.Helper()
	if err == nil {
		return
	}
	if Required() || os.Getenv("HPGRAPH_REQUIRE_NVRTC") != "" {
		t.Fatal(err)
	}
	t.Skip(err)
}

// Build builds el (datasets.Build) or fails t.
func Build(t testing.TB, el *datasets.EdgeList, opt datasets.Options) *datasets.Graph {
	t.Helper()
	g, err := datasets.Build(el, opt)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// Splits exercise K = 0 (all COO), the CUSP rule with breakeven 0, K = max
// (all ELL) and a K in between.
var Splits = []struct {
	Name string
	Opt  hyb.Options
}{
	{"coo", hyb.Options{RelativeSpeed: 3, Breakeven: 1 << 30}},
	{"mixed", hyb.Options{RelativeSpeed: 3, Breakeven: 0}},
	{"ell", hyb.Options{RelativeSpeed: 1e-9, Breakeven: 0}},
	{"k2", hyb.Options{RelativeSpeed: 1e-9, Breakeven: 0, MaxK: 2}},
}

// DirectedGraph is a random directed graph of n vertices and exactly
// arcs arcs (self loops and parallel arcs kept): a third of the vertices
// never used (empty rows both ways), hub arcs into vertex 0 and out of
// vertex n-1 (rows of hub entries), self loops, and repeats of earlier
// arcs with other weights. weights: 0 none, 1 small integers (many equal
// parallel weights), 2 random floats.
func DirectedGraph(rng *rand.Rand, n, arcs, hub, weights int) *datasets.Graph {
	el := &datasets.EdgeList{N: n, Directed: true}
	vertex := func() int32 {
		if n < 3 {
			return int32(rng.IntN(n))
		}
		for {
			if v := rng.IntN(n); v%3 != 1 {
				return int32(v)
			}
		}
	}
	weight := func() float32 {
		if weights == 1 {
			return float32(1 + rng.IntN(4))
		}
		return rng.Float32()*100 + 0.5
	}
	for i := range arcs {
		var u, v int32
		switch {
		case i < hub:
			u, v = vertex(), 0
		case i < 2*hub:
			u, v = int32(n-1), vertex()
		case i > 0 && rng.IntN(16) == 0: // a parallel arc
			j := rng.IntN(i)
			u, v = el.Src[j], el.Dst[j]
		case rng.IntN(64) == 0:
			u = vertex()
			v = u
		default:
			u, v = vertex(), vertex()
		}
		el.Src, el.Dst = append(el.Src, u), append(el.Dst, v)
		if weights != 0 {
			el.W = append(el.W, weight())
		}
	}
	// (shuffled so that hub and parallel arcs are spread through the list)
	rng.Shuffle(arcs, func(i, j int) {
		el.Src[i], el.Src[j] = el.Src[j], el.Src[i]
		el.Dst[i], el.Dst[j] = el.Dst[j], el.Dst[i]
		if el.W != nil {
			el.W[i], el.W[j] = el.W[j], el.W[i]
		}
	})
	g, err := datasets.Build(el, datasets.Options{KeepSelfLoops: true, KeepDuplicates: true})
	if err != nil {
		panic(err)
	}
	return g
}

// BFSJob is the device job of BFS from src on g, as the engine would
// start it: the program (its results after the run's Finish) and the
// job for a driver.DeviceBackend's Start.
func BFSJob(g *vertexprog.Graph, src int32) (*bfs.Program, *driver.DeviceJob, error) {
	p := &bfs.Program{Source: src}
	if err := p.Prepare(g); err != nil {
		return nil, nil, err
	}
	act := bitmask.New(g.N())
	for v := int32(0); v < int32(g.N()); v++ {
		if _, a := p.Init(v, nil); a {
			act.Set(v)
		}
	}
	spec := p.Spec()
	pull, err := g.PullMatrix(spec.Edges, hyb.DefaultOptions())
	if err != nil {
		return nil, nil, err
	}
	push, err := g.PushMatrix(spec.Edges, hyb.DefaultOptions())
	if err != nil {
		return nil, nil, err
	}
	return p, &driver.DeviceJob{Graph: g, Spec: spec, Code: p.Device(), Pull: pull, Push: push,
		ASize: 4, Active: act, HasWants: true, HasDone: true}, nil
}

// ByDecreasing is the new id of each of n vertices numbered by
// decreasing key, ties by increasing id: a plain sort, the reference the
// renumberings are checked against.
func ByDecreasing(n int, key func(v int32) int) []int32 {
	order := make([]int32, n)
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortStableFunc(order, func(a, b int32) int { return key(b) - key(a) })
	newID := make([]int32, n)
	for p, v := range order {
		newID[v] = int32(p)
	}
	return newID
}
