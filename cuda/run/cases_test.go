//go:build cgo

package run

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/hpgraph/hpgraph/apps/bfs"
	"github.com/hpgraph/hpgraph/apps/cc"
	"github.com/hpgraph/hpgraph/apps/pagerank"
	"github.com/hpgraph/hpgraph/apps/sssp"
	"github.com/hpgraph/hpgraph/apps/tc"
	"github.com/hpgraph/hpgraph/cuda/internal/gputest"
	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/datasets/gen"
	"github.com/hpgraph/hpgraph/vertexprog"
	"github.com/hpgraph/hpgraph/vertexprog/vptest"
)

// The graphs and apps the GPU tests run on both backends, and how their
// answers compare.

type testGraph struct {
	name string
	g    *datasets.Graph
}

func testGraphs(t *testing.T, opt datasets.Options) []testGraph {
	var gs []testGraph
	for _, g := range vptest.Graphs(t, opt) {
		gs = append(gs, testGraph{g.Name, g.G})
	}
	if dir := os.Getenv("HPGRAPH_TESTGRAPHS"); dir != "" {
		files, _ := filepath.Glob(filepath.Join(dir, "*.mtx"))
		more, _ := filepath.Glob(filepath.Join(dir, "*.edgelist"))
		for _, f := range append(files, more...) {
			g, err := datasets.Load(f, opt)
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			gs = append(gs, testGraph{filepath.Base(f), g})
		}
	}
	return gs
}

// appCase runs one program and flattens its output.
type appCase struct {
	name     string
	weighted bool
	pullOnly bool
	// ownPath: with Direction Auto the GPU runs the app by a path of its
	// own (Spec.Components: Afforest), whose passes are no supersteps.
	ownPath bool
	// reorders: the program delta-steps (Spec.Delta), the GPU when it
	// pushes and the CPU in every direction (vertexprog/delta.go), or the
	// CPU's push relaxes straight into the values (vertexprog.Relaxer: a
	// source may push from a value the same push lowered), so their
	// supersteps differ (kron9's Bellman-Ford pushing: 19 on the GPU, 15
	// on the CPU), their values not.
	reorders bool
	// heavy: DeviceCode.HeavyGather (pulled by rows, never by tiles)
	heavy bool
	tol   float64 // relative; 0: exact
	run   func(g *vertexprog.Graph, opt vertexprog.Options) (out []float64, iters int, err error)
}

// graph is test graph i in the form the case runs on.
func (a appCase) graph(plain, weighted []testGraph, i int) testGraph {
	if a.weighted {
		return weighted[i]
	}
	return plain[i]
}

func sourcesOf(g *vertexprog.Graph) []int32 {
	hub := int32(0)
	for v := int32(0); v < int32(g.N()); v++ {
		if g.OutDegree(v) > g.OutDegree(hub) {
			hub = v
		}
	}
	return []int32{hub, int32(g.N() - 1)}
}

func i32s(out []float64, s []int32) []float64 {
	for _, v := range s {
		out = append(out, float64(v))
	}
	return out
}

// ssspOut runs SSSP from sourcesOf(g) with delta (0: Bellman-Ford).
func ssspOut(g *vertexprog.Graph, opt vertexprog.Options, delta float64) ([]float64, int, error) {
	var out []float64
	iters := 0
	for _, src := range sourcesOf(g) {
		r, err := sssp.RunDelta(g, src, delta, opt)
		if err != nil {
			return nil, 0, err
		}
		for _, d := range r.Dist {
			out = append(out, float64(d))
		}
		iters += r.Run.Iterations
	}
	return out, iters, nil
}

var appCases = []appCase{
	{name: "bfs", run: func(g *vertexprog.Graph, opt vertexprog.Options) ([]float64, int, error) {
		var out []float64
		iters := 0
		for _, src := range sourcesOf(g) {
			r, err := bfs.Run(g, src, opt)
			if err != nil {
				return nil, 0, err
			}
			out = i32s(i32s(out, r.Depth), r.Parent)
			iters += r.Run.Iterations
		}
		return out, iters, nil
	}},
	{name: "sssp", weighted: true, reorders: true, run: func(g *vertexprog.Graph, opt vertexprog.Options) ([]float64, int, error) {
		return ssspOut(g, opt, 0)
	}},
	{name: "sssp (delta-stepping)", weighted: true, reorders: true, run: func(g *vertexprog.Graph, opt vertexprog.Options) ([]float64, int, error) {
		return ssspOut(g, opt, sssp.DefaultDelta(g))
	}},
	{name: "cc", ownPath: true, run: func(g *vertexprog.Graph, opt vertexprog.Options) ([]float64, int, error) {
		r, err := cc.Run(g, opt)
		if err != nil {
			return nil, 0, err
		}
		return i32s(nil, r.Label), r.Run.Iterations, nil
	}},
	{name: "pagerank", pullOnly: true, tol: 1e-9, run: func(g *vertexprog.Graph, opt vertexprog.Options) ([]float64, int, error) {
		r, err := pagerank.Run(g, 0.85, 1e-7, 200, opt)
		if err != nil {
			return nil, 0, err
		}
		return r.Rank, r.Run.Iterations, nil
	}},
	{name: "pagerank-ldbc", pullOnly: true, tol: 1e-9, run: func(g *vertexprog.Graph, opt vertexprog.Options) ([]float64, int, error) {
		r, err := pagerank.LDBC(g, 0.85, 20, opt)
		if err != nil {
			return nil, 0, err
		}
		return append(r.Rank, r.Run.Aggregates...), r.Run.Iterations, nil
	}},
	// float32 sums: the CPU adds a row in float64, the GPU in float
	// partial sums, so they agree to float32's digits, not bit for bit.
	{name: "pagerank-ldbc float32", pullOnly: true, tol: 1e-5, run: func(g *vertexprog.Graph, opt vertexprog.Options) ([]float64, int, error) {
		r, err := pagerank.LDBCIn[float32](g, 0.85, 20, opt)
		if err != nil {
			return nil, 0, err
		}
		return append(r.Rank, r.Run.Aggregates...), r.Run.Iterations, nil
	}},
	{name: "triangles", pullOnly: true, run: func(g *vertexprog.Graph, opt vertexprog.Options) ([]float64, int, error) {
		r, err := tc.Run(g, false, opt)
		if err != nil {
			return nil, 0, err
		}
		pv, err := tc.Run(g, true, opt)
		if err != nil {
			return nil, 0, err
		}
		out := []float64{float64(r.Total), float64(pv.Total)}
		for _, c := range pv.PerVertex {
			out = append(out, float64(c))
		}
		return out, r.Run.Iterations, nil
	}},
	{name: "stats (user, 12-byte accumulator)", pullOnly: true, run: func(g *vertexprog.Graph, opt vertexprog.Options) ([]float64, int, error) {
		p := &statsProg{}
		r, err := vertexprog.Run(g, vertexprog.Program[int32, stats](p), opt)
		if err != nil {
			return nil, 0, err
		}
		return append(i32s(i32s(nil, r.X), p.seen), r.Aggregates...), r.Iterations, nil
	}},
	{name: "widest (user)", weighted: true, run: func(g *vertexprog.Graph, opt vertexprog.Options) ([]float64, int, error) {
		var out []float64
		iters := 0
		for _, src := range sourcesOf(g) {
			r, err := vertexprog.Run(g, vertexprog.Program[float32, float32](widest{src: src}), opt)
			if err != nil {
				return nil, 0, err
			}
			for _, x := range r.X {
				out = append(out, float64(x))
			}
			iters += r.Iterations
		}
		return out, iters, nil
	}},
}

func same(a, b, tol float64) bool {
	if a == b || (math.IsNaN(a) && math.IsNaN(b)) {
		return true
	}
	return tol > 0 && math.Abs(a-b) <= tol*math.Max(math.Abs(a), math.Abs(b))
}

func appCaseNamed(t *testing.T, name string) appCase {
	for _, a := range appCases {
		if a.name == name {
			return a
		}
	}
	t.Fatalf("no app case %q", name)
	return appCase{}
}

func smallGraph(t *testing.T) *vertexprog.Graph {
	kron, err := gen.Kronecker(8, 8, 1)
	if err != nil {
		t.Fatal(err)
	}
	return vertexprog.NewGraph(gputest.Build(t, kron, datasets.Options{}))
}
