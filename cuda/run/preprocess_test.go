//go:build cgo

package run

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/hpgraph/hpgraph/apps/bfs"
	"github.com/hpgraph/hpgraph/apps/cc"
	"github.com/hpgraph/hpgraph/apps/lcc"
	"github.com/hpgraph/hpgraph/apps/sssp"
	"github.com/hpgraph/hpgraph/apps/tc"
	"github.com/hpgraph/hpgraph/cuda/internal/gputest"
	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/vertexprog"
	"github.com/hpgraph/hpgraph/vertexprog/driver"
)

// Runs on what PREPROCESS built on the device (package build's tests
// compare the builds themselves with the host's).

// TestSymmetrizedOnDeviceRuns: triangle counting, LCC and connected
// components of directed graphs on the GPU equal the CPU engine's, and
// the host built no undirected view for the GPU's runs (the device did).
func TestSymmetrizedOnDeviceRuns(t *testing.T) {
	needGPU(t)
	needNVRTC(t)
	rng := rand.New(rand.NewPCG(24, 13))
	for _, c := range []struct{ n, arcs, hub int }{{33, 100, 10}, {1000, 8191, 300}, {70000, 300000, 20000}} {
		d := gputest.DirectedGraph(rng, c.n, c.arcs, c.hub, 0)
		gpu, cpu := vertexprog.NewGraph(d), vertexprog.NewGraph(d)
		what := fmt.Sprintf("n=%d arcs=%d", c.n, c.arcs)
		tcG, err := tc.Run(gpu, false, vertexprog.Options{Backend: "cuda"})
		if err != nil {
			t.Fatal(err)
		}
		if gpu.UndirectedViewBuilt() {
			t.Fatalf("%s: the host built the undirected view for a GPU run", what)
		}
		tcC, err := tc.Run(cpu, false, vertexprog.Options{Backend: "cpu"})
		if err != nil {
			t.Fatal(err)
		}
		if tcG.Total != tcC.Total {
			t.Errorf("%s: triangles %d on the GPU, %d on the CPU", what, tcG.Total, tcC.Total)
		}
		lccG, err := lcc.Run(gpu, vertexprog.Options{Backend: "cuda"})
		if err != nil {
			t.Fatal(err)
		}
		lccC, err := lcc.Run(cpu, vertexprog.Options{Backend: "cpu"})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(lccG.LCC, lccC.LCC) {
			t.Errorf("%s: LCC differs between the GPU and the CPU", what)
		}
		ccG, err := cc.Run(gpu, vertexprog.Options{Backend: "cuda"})
		if err != nil {
			t.Fatal(err)
		}
		ccC, err := cc.Run(cpu, vertexprog.Options{Backend: "cpu"})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(ccG.Label, ccC.Label) {
			t.Errorf("%s: component labels differ between the GPU and the CPU", what)
		}
		if gpu.UndirectedViewBuilt() {
			t.Fatalf("%s: the host built the undirected view for the GPU's runs", what)
		}
	}
}

// TestLCCOrientationOnDevice: LCC on the GPU matches the CPU engine's
// coefficients exactly (both divide the same integer counts) on an
// undirected and a directed graph, whose ranked orientations the device
// builds and the host never does.
func TestLCCOrientationOnDevice(t *testing.T) {
	needGPU(t)
	rng := rand.New(rand.NewPCG(21, 22))
	for _, directed := range []bool{false, true} {
		n := 20000
		el := &datasets.EdgeList{N: n, Directed: directed}
		for range 12 * n {
			u, v := int32(rng.IntN(n)), int32(rng.IntN(n))
			if rng.IntN(6) == 0 {
				u = int32(rng.IntN(8)) // hubs
			}
			el.Src, el.Dst = append(el.Src, u), append(el.Dst, v)
		}
		g := vertexprog.NewGraph(gputest.Build(t, el, datasets.Options{}))
		gpu, err := lcc.Run(g, vertexprog.Options{Backend: "cuda"})
		if err != nil {
			t.Fatal(err)
		}
		if g.RankedOrientation().Adj != nil {
			t.Errorf("directed=%v: the host built the ranked orientation", directed)
		}
		cpu, err := lcc.Run(vertexprog.NewGraph(g.Dataset()), vertexprog.Options{Backend: "cpu"})
		if err != nil {
			t.Fatal(err)
		}
		for v := range cpu.LCC {
			if gpu.LCC[v] != cpu.LCC[v] {
				t.Fatalf("directed=%v: vertex %d: GPU lcc %v, CPU %v", directed, v, gpu.LCC[v], cpu.LCC[v])
			}
		}
		if slices.Max(cpu.LCC) == 0 {
			t.Fatalf("directed=%v: no triangles: the test's graph tests nothing", directed)
		}
	}
}

// TestRelabelledGraphRuns: a graph renumbered by degree on the device
// (driver.DegreeRelabeler) is the host's renumbering, and BFS and
// SSSP on it, whose copy stays on the device, equal the CPU's.
func TestRelabelledGraphRuns(t *testing.T) {
	needGPU(t)
	needNVRTC(t)
	var _ driver.DegreeRelabeler = registered
	rng := rand.New(rand.NewPCG(24, 23))
	for _, c := range []struct{ n, arcs, hub, weights int }{{33, 100, 10, 0}, {1000, 8191, 300, 2}, {70000, 300000, 20000, 1}} {
		g := gputest.DirectedGraph(rng, c.n, c.arcs, c.hub, c.weights)
		what := fmt.Sprintf("n=%d weights=%d", c.n, c.weights)
		want := g.Relabel(datasets.RelabelDegree)
		got, err := registered.RelabelByDegree(g, 1)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if !slices.Equal(got.RowPtr, want.RowPtr) || !slices.Equal(got.Col, want.Col) || !slices.Equal(got.IDs, want.IDs) {
			t.Fatalf("%s: the device's renumbering differs from the host's", what)
		}
		src := int32(got.N - 1)
		gpu, cpu := vertexprog.NewGraph(got), vertexprog.NewGraph(got)
		bg, err := bfs.Run(gpu, src, vertexprog.Options{Backend: "cuda"})
		if err != nil {
			t.Fatal(err)
		}
		bc, err := bfs.Run(cpu, src, vertexprog.Options{Backend: "cpu"})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(bg.Depth, bc.Depth) {
			t.Errorf("%s: BFS on the GPU differs from the CPU's", what)
		}
		if got.W != nil {
			sg, err := sssp.Run(gpu, src, vertexprog.Options{Backend: "cuda"})
			if err != nil {
				t.Fatal(err)
			}
			sc, err := sssp.Run(cpu, src, vertexprog.Options{Backend: "cpu"})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(sg.Dist, sc.Dist) {
				t.Errorf("%s: SSSP on the GPU differs from the CPU's", what)
			}
		}
	}
}
