//go:build cgo

package run

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hpgraph/hpgraph/apps/bfs"
	"github.com/hpgraph/hpgraph/apps/cc"
	"github.com/hpgraph/hpgraph/apps/lcc"
	"github.com/hpgraph/hpgraph/apps/pagerank"
	"github.com/hpgraph/hpgraph/apps/sssp"
	"github.com/hpgraph/hpgraph/apps/tc"
	"github.com/hpgraph/hpgraph/cuda/internal/gputest"
	"github.com/hpgraph/hpgraph/cuda/jit"
	"github.com/hpgraph/hpgraph/cuda/rt"
	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/vertexprog"
)

// These tests need NVRTC but no GPU: they compile the kernel template with
// each program's snippet spliced in (for compute_80 when there is no
// device). Set HPGRAPH_NVRTC to a libnvrtc to run them on a machine
// without CUDA.

func needNVRTC(t *testing.T) {
	t.Helper()
	gputest.NeedNVRTC(t, jit.Load())
}

func testArch() string { return testArchs()[0] }

// testArchs are the device's architecture, or without one, Ampere's and
// Hopper's (whose kernels use thread block clusters).
func testArchs() []string {
	if d, err := registered.device(); err == nil {
		return []string{d.Arch()}
	}
	return []string{"compute_80", "compute_90"}
}

func compileCode(code vertexprog.DeviceCode, f features) (string, error) {
	return compileFor(code, f, testArch())
}

func compileFor(code vertexprog.DeviceCode, f features, arch string) (string, error) {
	l, err := layoutState(&code)
	if err != nil {
		return "", err
	}
	ptx, _, err := jit.PTX(buildSource(&code, l, f), arch)
	return ptx, err
}

// preparedApps are the built-in apps after Prepare on a small graph, with
// the sizes of their X and A.
func preparedApps(t *testing.T) []struct {
	name  string
	code  vertexprog.DeviceCode
	feats features
} {
	el := &datasets.EdgeList{N: 5, Src: []int32{0, 1, 2, 3, 0}, Dst: []int32{1, 2, 3, 4, 2}}
	dg, err := datasets.Build(el, datasets.Options{})
	if err != nil {
		t.Fatal(err)
	}
	g := vertexprog.NewGraph(dg)
	bfsP := &bfs.Program{Source: 0}
	pr := &pagerank.Program{Damping: 0.85, Tolerance: 1e-7}
	ldbc := &pagerank.LDBCProgram[float64]{Damping: 0.85, Iterations: 2}
	ldbc32 := &pagerank.LDBCProgram[float32]{Damping: 0.85, Iterations: 2}
	tcP, tcTotal := &tc.Program{PerVertex: true}, &tc.Program{}
	lccP := &lcc.Program{}
	for _, p := range []vertexprog.Preparer{bfsP, pr, ldbc, ldbc32, tcP, tcTotal, lccP} {
		if err := p.Prepare(g); err != nil {
			t.Fatal(err)
		}
	}
	el.Directed = true
	ddg, err := datasets.Build(el, datasets.Options{})
	if err != nil {
		t.Fatal(err)
	}
	lccDirected := &lcc.Program{}
	if err := lccDirected.Prepare(vertexprog.NewGraph(ddg)); err != nil {
		t.Fatal(err)
	}
	ssspOps, ssspFinite := redOps((&sssp.Program{}).Spec().Reductions)
	lccByDegree := &lcc.Program{}
	if err := lccByDegree.Prepare(vertexprog.NewGraph(dg.Relabel(datasets.RelabelDegree))); err != nil {
		t.Fatal(err)
	}
	return []struct {
		name  string
		code  vertexprog.DeviceCode
		feats features
	}{
		{"bfs", bfsP.Device(), features{XSize: 0, ASize: 4, HasWants: true, HasDone: true}},
		{"sssp", (&sssp.Program{}).Device(), features{XSize: 4, ASize: 4, Reds: ssspOps, RedsFinite: ssspFinite}},
		{"sssp (delta-stepping)", (&sssp.Program{Delta: 8}).Device(), features{XSize: 4, ASize: 4, Priority: true, Reds: ssspOps, RedsFinite: ssspFinite}},
		{"pagerank", pr.Device(), features{XSize: 8, ASize: 8, Stream: true}},
		{"pagerank-ldbc", ldbc.Device(), features{XSize: 8, ASize: 8, Aggs: aggOps(ldbc.Spec().Aggregators)}},
		{"pagerank-ldbc float32", ldbc32.Device(), features{XSize: 4, ASize: 4, Aggs: aggOps(ldbc32.Spec().Aggregators)}},
		{"triangles per vertex", tcP.Device(), features{XSize: 0, ASize: 8}},
		{"triangles (total, ranked)", tcTotal.Device(), features{XSize: 0, ASize: 8}},
		{"lcc", lccP.Device(), features{XSize: 0, ASize: 8}},
		{"lcc (directed)", lccDirected.Device(), features{XSize: 0, ASize: 8}},
		{"lcc (numbered by degree)", lccByDegree.Device(), features{XSize: 0, ASize: 8}},
		{"cc", cc.Program{}.Device(), features{XSize: 4, ASize: 4}},
		{"stats (12-byte accumulator)", (&statsProg{}).Device(), features{XSize: 4, ASize: 12, HasWants: true}},
		{"widest", widest{}.Device(), features{XSize: 4, ASize: 4}},
		{"scratch", (&scratchProg{devInit: true}).Device(), features{XSize: 4, ASize: 4}},
	}
}

func TestCompileApps(t *testing.T) {
	needNVRTC(t)
	name, version := jit.Library()
	t.Logf("NVRTC %s (%s), targets %v", version, name, testArchs())
	for _, arch := range testArchs() {
		for _, a := range preparedApps(t) {
			for _, tex := range []bool{false, true} {
				f := a.feats
				f.Texture, f.TextureX = tex, tex && f.XSize > 0 && f.XSize%4 == 0
				if !tex {
					f.Unroll = 1 // the one-entry-at-a-time pull loops too
				}
				ptx, err := compileFor(a.code, f, arch)
				if err != nil {
					t.Fatalf("%s, %s (texture %v): %v", arch, a.name, tex, err)
				}
				for _, k := range moduleKernels(f) {
					if !strings.Contains(ptx, ".entry "+k+"(") {
						t.Errorf("%s, %s: PTX lacks kernel %s", arch, a.name, k)
					}
				}
				if hopper := strings.Contains(ptx, "barrier.cluster"); hopper != (arch >= "compute_90") {
					t.Errorf("%s, %s: cluster barrier in the PTX: %v", arch, a.name, hopper)
				}
				// (make cuda-regs: the PTX of the default build, for ptxas)
				if dir := os.Getenv("HPGRAPH_PTX_DIR"); dir != "" && tex == DefaultOptions().Texture {
					name := strings.NewReplacer(" ", "_", "(", "", ")", "").Replace(a.name) + "." + arch + ".ptx"
					if err := os.WriteFile(filepath.Join(dir, name), []byte(ptx), 0o644); err != nil {
						t.Fatal(err)
					}
				}
			}
		}
	}
}

// TestTemplateConstants checks that kernels.cu and the Go side agree on
// the block size and the superstep record layout.
func TestTemplateConstants(t *testing.T) {
	want := map[string]int{
		"VP_BLOCK": rt.BlockSize, "VP_LOOP_BLOCK": loopBlock, "VP_LOOP_SHARED_BASE": loopSharedBase, "VP_LOOP_SHARED_FAR": loopSharedFar, "VP_LOOP_MAX": maxLoopCluster, "VP_LOOP_CAP": loopCap, "VP_R_ACTIVE": recActive, "VP_R_EDGES": recEdges, "VP_R_RAN": recRan,
		"VP_R_SMALL": recSmall, "VP_R_MEDIUM": recMedium, "VP_R_CHUNKS": recChunks, "VP_R_TOUCHED": recTouched,
		"VP_R_AGG": recordHead,
	}
	for name, v := range want {
		m := regexp.MustCompile(`#define ` + name + ` (\d+)`).FindStringSubmatch(kernelSource)
		if m == nil {
			t.Fatalf("kernels.cu: %s not found", name)
		}
		if got, _ := strconv.Atoi(m[1]); got != v {
			t.Errorf("kernels.cu has %s %d; Go has %d", name, got, v)
		}
	}
}

func TestCompileErrorNamesSnippetLine(t *testing.T) {
	needNVRTC(t)
	code := vertexprog.DeviceCode{Source: `typedef int X_t;
typedef int A_t;
struct State {};
__device__ A_t vp_identity() { return 0 }
__device__ A_t vp_gather(A_t acc, int v, int u, X_t xu, float w, const State& s) { return acc + xu; }
__device__ A_t vp_reduce(A_t a, A_t b) { return a + b; }
__device__ bool vp_update(int v, A_t acc, X_t* x, const State& s, Step& st) { *x = acc; return undefined_thing; }
`}
	_, err := compileCode(code, features{XSize: 4, ASize: 4})
	if !errors.Is(err, jit.ErrCompile) {
		t.Fatalf("broken snippet: err = %v, want jit.ErrCompile", err)
	}
	var ce *jit.CompileError
	if !errors.As(err, &ce) {
		t.Fatalf("%T is no *CompileError", err)
	}
	msg := err.Error()
	t.Log(msg)
	for _, want := range []string{jit.SnippetFile + "(4)", jit.SnippetFile + "(7)", "undefined_thing"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the compile error does not mention %q", want)
		}
	}
}

func TestCompileErrorOnStateMismatch(t *testing.T) {
	needNVRTC(t)
	code := vertexprog.DeviceCode{
		Source: `typedef int X_t;
typedef int A_t;
struct State { float* depth; double limit; };
__device__ A_t vp_identity() { return 0; }
__device__ A_t vp_gather(A_t acc, int v, int u, X_t xu, float w, const State& s) { return acc + xu; }
__device__ A_t vp_reduce(A_t a, A_t b) { return a + b; }
__device__ bool vp_update(int v, A_t acc, X_t* x, const State& s, Step& st) { *x = acc; return false; }
`,
		Arrays:  []vertexprog.DeviceArray{{Name: "depth", Data: []int32{1, 2}}},
		Scalars: []vertexprog.DeviceScalar{{Name: "limit", Value: float32(1)}},
	}
	_, err := compileCode(code, features{XSize: 4, ASize: 4})
	if !errors.Is(err, jit.ErrCompile) {
		t.Fatalf("mismatched State: err = %v, want jit.ErrCompile", err)
	}
	for _, want := range []string{"State member depth must be a int*", "State member limit must be a float"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error does not say %q:\n%v", want, err)
		}
	}
	// Sizes of X_t / A_t are checked too.
	_, err = compileCode(vertexprog.DeviceCode{Source: strings.Replace(code.Source, "float* depth; double limit;", "", 1)},
		features{XSize: 8, ASize: 4})
	if err == nil || !strings.Contains(err.Error(), "X_t must have the 8 bytes") {
		t.Errorf("X_t of the wrong size: err = %v", err)
	}
}

func TestStateLayout(t *testing.T) {
	code := vertexprog.DeviceCode{
		Arrays:  []vertexprog.DeviceArray{{Name: "a", Data: []int32{1}}, {Name: "b", Data: []float64(nil)}},
		Scalars: []vertexprog.DeviceScalar{{Name: "c", Value: int32(-2)}, {Name: "d", Value: 1.5}, {Name: "e", Value: float32(3)}},
	}
	l, err := layoutState(&code)
	if err != nil {
		t.Fatal(err)
	}
	// a@0 b@8 c@16 d@24 e@32, size 40 (8-aligned).
	want := []int{0, 8, 16, 24, 32}
	for i, o := range want {
		if l.offsets[i] != o {
			t.Fatalf("offsets %v, want %v", l.offsets, want)
		}
	}
	if l.size != 40 {
		t.Fatalf("size %d, want 40", l.size)
	}
	b := l.bytes([]uint64{0x1122, 0})
	if b[0] != 0x22 || b[1] != 0x11 || b[16] != 0xfe || b[19] != 0xff || b[30] != 0xf8 || b[31] != 0x3f {
		t.Fatalf("state bytes % x", b)
	}
	for _, bad := range []vertexprog.DeviceCode{
		{Arrays: []vertexprog.DeviceArray{{Name: "x", Data: []int{1}}}},
		{Arrays: []vertexprog.DeviceArray{{Name: "x y", Data: []int32{1}}}},
		{Arrays: []vertexprog.DeviceArray{{Name: "x", Data: 3}}},
		{Arrays: []vertexprog.DeviceArray{{Name: "x", Data: []int32{0}, ReadOnly: true, Scratch: true}}},
		{Scalars: []vertexprog.DeviceScalar{{Name: "x", Value: "no"}}},
		{Arrays: []vertexprog.DeviceArray{{Name: "x", Data: []int32{}}}, Scalars: []vertexprog.DeviceScalar{{Name: "x", Value: 1.0}}},
		// (ranks and reciprocal-arc bits are a ranked orientation's alone)
		{Arrays: []vertexprog.DeviceArray{{Name: "x", Orientation: &vertexprog.Orientation{}, Part: vertexprog.OrientationRank, ReadOnly: true}}},
		{Arrays: []vertexprog.DeviceArray{{Name: "x", Orientation: &vertexprog.Orientation{Ranked: true}, Part: vertexprog.OrientationBoth + 1, ReadOnly: true}}},
	} {
		if _, err := layoutState(&bad); err == nil {
			t.Errorf("layoutState accepted %+v", bad)
		}
	}
}

// TestKernelNamesListEveryKernel: the module looks up exactly the kernels
// of kernelNames (vp_state_layout is generated, source.go); one missing
// there failed only when it was launched.
func TestKernelNamesListEveryKernel(t *testing.T) {
	re := regexp.MustCompile(`extern "C" __global__ void (?:__launch_bounds__\([^)]*\) )?(\w+)\(`)
	found := []string{"vp_state_layout"}
	for _, m := range re.FindAllStringSubmatch(kernelSource, -1) {
		found = append(found, m[1])
	}
	slices.Sort(found)
	names := slices.Sorted(slices.Values(kernelNames))
	if !slices.Equal(found, names) {
		t.Fatalf("kernels.cu (and source.go) define %v, kernelNames lists %v", found, names)
	}
}
