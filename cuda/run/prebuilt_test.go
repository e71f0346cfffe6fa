//go:build cgo

package run

import (
	"testing"

	"github.com/hpgraph/hpgraph/apps/bfs"
	"github.com/hpgraph/hpgraph/apps/lcc"
	"github.com/hpgraph/hpgraph/apps/pagerank"
	"github.com/hpgraph/hpgraph/apps/sssp"
	"github.com/hpgraph/hpgraph/apps/tc"
	"github.com/hpgraph/hpgraph/cuda/internal/gputest"
	"github.com/hpgraph/hpgraph/cuda/jit"
	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/datasets/gen"
	"github.com/hpgraph/hpgraph/vertexprog"
	"github.com/hpgraph/hpgraph/vertexprog/driver"
)

// TestPrebuiltCoversAfforest: Afforest's kernels, whose source depends
// on no program, have an image for sm_90, so a change to afforest.cu or
// mat.cu without scripts/gpu-prebuild.sh fails here instead of compiling
// at run time on every fresh machine (PREPROCESS's modules: build's
// TestPrebuiltCoversModules).
func TestPrebuiltCoversAfforest(t *testing.T) {
	needPrebuilt(t, "afforest.cu", afforestProgram())
}

// TestPrebuiltCoversBuiltinApps rebuilds the kernel source of each
// built-in app as a single `hpgraph run` compiles it on an sm_90 device
// and checks that its prebuilt image is there: a change to kernels.cu,
// prelude.cu, mat.cu or an app's device code without
// scripts/gpu-prebuild.sh fails here, not as a second of NVRTC on every
// fresh machine.
func TestPrebuiltCoversBuiltinApps(t *testing.T) {
	g := smallGraph(t)
	// LCC builds its source for the graph: directed or not, and (not
	// directed) whether it is numbered by degree
	byDegree := vertexprog.NewGraph(g.Dataset().Relabel(datasets.RelabelDegree))
	kron, err := gen.Kronecker(8, 8, 1)
	if err != nil {
		t.Fatal(err)
	}
	kron.Directed = true
	directed := vertexprog.NewGraph(gputest.Build(t, kron, datasets.Options{}))
	type app struct {
		name     string
		p        any // a vertexprog.Program[X, A] with device code
		x, a     int // sizes of X and A
		push     bool
		wants    bool
		done     bool
		prepared bool
		g        *vertexprog.Graph // (nil: g)
	}
	apps := []app{
		{name: "bfs", p: &bfs.Program{Source: 0}, x: 0, a: 4, push: true, wants: true, done: true},
		{name: "sssp", p: &sssp.Program{Source: 0, Delta: sssp.DefaultDelta(g)}, x: 4, a: 4, push: true},
		{name: "pagerank", p: &pagerank.Program{Damping: 0.85, Tolerance: 1e-4}, x: 8, a: 8},
		{name: "pagerank-ldbc", p: &pagerank.LDBCProgram[float64]{Damping: 0.85, Iterations: 10}, x: 8, a: 8},
		{name: "pagerank-ldbc float32", p: &pagerank.LDBCProgram[float32]{Damping: 0.85, Iterations: 10}, x: 4, a: 4},
		{name: "tc", p: &tc.Program{}, x: 0, a: 8},
		{name: "lcc", p: &lcc.Program{}, x: 0, a: 8},
		{name: "lcc numbered by degree", p: &lcc.Program{}, x: 0, a: 8, g: byDegree},
		{name: "lcc directed", p: &lcc.Program{}, x: 0, a: 8, g: directed},
	}
	for _, a := range apps {
		if pr, ok := a.p.(vertexprog.Preparer); ok {
			ag := a.g
			if ag == nil {
				ag = g
			}
			if err := pr.Prepare(ag); err != nil {
				t.Fatalf("%s: %v", a.name, err)
			}
		}
		sp := a.p.(interface{ Spec() vertexprog.Spec })
		job := &driver.DeviceJob{Spec: sp.Spec(), Code: a.p.(vertexprog.DeviceProgram).Device(),
			XSize: a.x, ASize: a.a, HasWants: a.wants, HasDone: a.done}
		if a.push {
			job.Push = &driver.Matrix{}
		}
		l, err := layoutState(&job.Code)
		if err != nil {
			t.Fatalf("%s: %v", a.name, err)
		}
		// (an sm_90 device's linear textures hold 2^28 texels)
		src := buildSource(&job.Code, l, jobFeatures(job, 1<<21, 1<<28, DefaultOptions()))
		needPrebuilt(t, a.name, src)
	}
}

// needPrebuilt fails t where src (a module's source for an sm_90 device)
// has no prebuilt image, or writes it (jit.CheckPrebuilt).
func needPrebuilt(t *testing.T, name, src string) {
	t.Helper()
	if err := jit.CheckPrebuilt(src, "compute_90"); err != nil {
		t.Errorf("%s: %v", name, err)
	}
}
