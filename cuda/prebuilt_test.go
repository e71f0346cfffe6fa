//go:build cgo

package cuda

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/hpgraph/hpgraph/apps"
	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/datasets/gen"
	"github.com/hpgraph/hpgraph/vertexprog"
)

// TestPrebuiltImagesAreMachineCode: every shipped image is named as
// prebuiltImage looks it up and is an ELF object (a cubin).
func TestPrebuiltImagesAreMachineCode(t *testing.T) {
	name := regexp.MustCompile(`^[0-9a-f]{32}\.sm_[0-9]+\.cubin$`)
	n := 0
	err := fs.WalkDir(prebuilt, "prebuilt", func(path string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() || e.Name() == "README.md" {
			return err
		}
		if !name.MatchString(e.Name()) {
			t.Errorf("%s: not KEY.sm_XY.cubin", path)
			return nil
		}
		if b, err := prebuilt.ReadFile(path); err != nil || !bytes.HasPrefix(b, []byte("\x7fELF")) {
			t.Errorf("%s: not an ELF object (%v)", path, err)
		}
		n++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d prebuilt images", n)
}

// TestWritePrebuiltRoundTrip: writePrebuilt writes machine code for the
// architecture asked for, under the name prebuiltImage looks up.
func TestWritePrebuiltRoundTrip(t *testing.T) {
	needNVRTC(t)
	dir := t.TempDir()
	for _, arch := range testArchs() {
		if err := writePrebuilt(dir, hybBuildSource, arch); err != nil {
			t.Fatalf("%s: %v", arch, err)
		}
		key := prebuiltKey(hybBuildSource, arch) + "." + smOf(arch)
		img, err := os.ReadFile(filepath.Join(dir, key+".cubin"))
		if err != nil || !bytes.HasPrefix(img, []byte("\x7fELF")) {
			t.Fatalf("%s: not an ELF object (%v)", arch, err)
		}
		if prebuiltKey(hybBuildSource+" ", arch) == prebuiltKey(hybBuildSource, arch) || prebuiltKey(hybBuildSource, "compute_80") == prebuiltKey(hybBuildSource, "compute_90") {
			t.Fatal("prebuiltKey ignores the source or the architecture")
		}
	}
}

// TestPrebuiltCoversFixedModules: the kernels whose source does not
// depend on a program (the device's PREPROCESS and Afforest) have an
// image for sm_90, so a change to hybbuild.cu, mat.cu, afforest.cu or
// transpose.cu without scripts/gpu-prebuild.sh fails here instead of compiling at run
// time on every fresh machine.
func TestPrebuiltCoversFixedModules(t *testing.T) {
	for name, src := range map[string]string{"hybbuild.cu": hybBuildSource, "afforest.cu": afforestProgram(), "transpose.cu": transposeSource, "tilesdev.cu": tilesDevSource} {
		image, key := prebuiltImage(src, "compute_90")
		switch {
		case image != "":
		default:
			t.Errorf("%s: no prebuilt image %s.cubin (run scripts/gpu-prebuild.sh)", name, key)
		}
	}
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
	directed := vertexprog.NewGraph(build(t, kron, datasets.Options{}))
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
		{name: "bfs", p: &apps.BFSProgram{Source: 0}, x: 0, a: 4, push: true, wants: true, done: true},
		{name: "sssp", p: &apps.SSSPProgram{Source: 0, Delta: apps.DefaultDelta(g)}, x: 4, a: 4, push: true},
		{name: "pagerank", p: &apps.PageRankProgram{Damping: 0.85, Tolerance: 1e-4}, x: 8, a: 8},
		{name: "pagerank-ldbc", p: &apps.PageRankLDBCProgram[float64]{Damping: 0.85, Iterations: 10}, x: 8, a: 8},
		{name: "pagerank-ldbc float32", p: &apps.PageRankLDBCProgram[float32]{Damping: 0.85, Iterations: 10}, x: 4, a: 4},
		{name: "tc", p: &apps.TriangleProgram{}, x: 0, a: 8},
		{name: "lcc", p: &apps.LCCProgram{}, x: 0, a: 8},
		{name: "lcc numbered by degree", p: &apps.LCCProgram{}, x: 0, a: 8, g: byDegree},
		{name: "lcc directed", p: &apps.LCCProgram{}, x: 0, a: 8, g: directed},
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
		job := &vertexprog.DeviceJob{Spec: sp.Spec(), Code: a.p.(vertexprog.DeviceProgram).Device(),
			XSize: a.x, ASize: a.a, HasWants: a.wants, HasDone: a.done}
		if a.push {
			job.Push = &vertexprog.Matrix{}
		}
		l, err := layoutState(&job.Code)
		if err != nil {
			t.Fatalf("%s: %v", a.name, err)
		}
		// (an sm_90 device's linear textures hold 2^28 texels)
		src := buildSource(&job.Code, l, jobFeatures(job, 1<<21, 1<<28, DefaultOptions()))
		if image, key := prebuiltImage(src, "compute_90"); image == "" {
			t.Errorf("%s: no prebuilt image %s.cubin (run scripts/gpu-prebuild.sh)", a.name, key)
		}
	}
}
