//go:build cgo

package run

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/hpgraph/hpgraph/apps/bfs"
	"github.com/hpgraph/hpgraph/apps/cc"
	"github.com/hpgraph/hpgraph/apps/pagerank"
	"github.com/hpgraph/hpgraph/cuda/build"
	"github.com/hpgraph/hpgraph/cuda/cu"
	"github.com/hpgraph/hpgraph/cuda/internal/gputest"
	"github.com/hpgraph/hpgraph/cuda/jit"
	"github.com/hpgraph/hpgraph/cuda/rt"
	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/hyb"
	"github.com/hpgraph/hpgraph/vertexprog"
	"github.com/hpgraph/hpgraph/vertexprog/driver"
	"github.com/hpgraph/hpgraph/vertexprog/vptest"
)

// These tests run on a GPU (they skip without one, unless
// HPGRAPH_REQUIRE_GPU is set, when they fail). HPGRAPH_TESTGRAPHS names a
// folder of extra graphs (*.mtx, *.edgelist) to check besides the
// generated ones.

func needGPU(t testing.TB) *Device {
	t.Helper()
	d, err := registered.device()
	gputest.Need(t, err)
	return d
}

func TestAvailable(t *testing.T) {
	err := registered.Available()
	if err != nil {
		if !errors.Is(err, rt.ErrNoGPU) {
			t.Errorf("Available: %v is not rt.ErrNoGPU", err)
		}
		gputest.Need(t, err)
	}
	info, err := registered.Describe()
	if err != nil {
		t.Fatal(err)
	}
	nv := "NVRTC not found"
	if jit.Load() == nil {
		name, version := jit.Library()
		nv = "NVRTC " + version + " (" + name + ")"
	}
	t.Logf("device: %+v (copy %.0f GB/s); %s; options %+v", info, info.CopyBandwidth/1e9, nv, registered.Options())
	if info.Name == "" || info.SMs <= 0 || info.MemoryBytes <= 0 || info.Driver == "" || info.CopyBandwidth <= 0 {
		t.Errorf("Describe = %+v: a field is missing", info)
	}
	var _ driver.Describer = registered
	if !slices.Contains(vertexprog.Backends(), "cuda") {
		t.Errorf("Backends() = %v lacks cuda", vertexprog.Backends())
	}
}

// TestAppsMatchCPU runs every app and the user programs on the CPU and on
// the GPU in every direction and HYB split, with texture objects and with
// __ldg loads, and compares the outputs: exactly, PageRank to 1e-9
// relative (the COO part sums in another order).
func TestAppsMatchCPU(t *testing.T) {
	needGPU(t)
	needNVRTC(t)
	plain := testGraphs(t, datasets.Options{})
	weighted := testGraphs(t, datasets.Options{Weights: datasets.WeightsRandom, WeightMin: 1, WeightMax: 64, Seed: 5})
	var gpuTime time.Duration
	runs := 0
	for _, tex := range []bool{true, false} {
		withOptions(t, func(o *Options) { o.Texture = tex })
		mode := map[bool]string{true: "texture", false: "ldg"}[tex]
		for gi := range plain {
			for _, a := range appCases {
				tg := a.graph(plain, weighted, gi)
				g := vertexprog.NewGraph(tg.g)
				t.Run(fmt.Sprintf("%s/%s/%s", mode, tg.name, a.name), func(t *testing.T) {
					for _, dir := range []vertexprog.Direction{vertexprog.Auto, vertexprog.Push, vertexprog.Pull} {
						if dir == vertexprog.Push && a.pullOnly {
							continue
						}
						for _, s := range gputest.Splits {
							opt := vertexprog.Options{Direction: dir, HYB: s.Opt, Backend: "cpu"}
							want, wantIt, err := a.run(g, opt)
							if err != nil {
								t.Fatalf("cpu %s/%s: %v", dir, s.Name, err)
							}
							opt.Backend = "cuda"
							t0 := time.Now()
							got, gotIt, err := a.run(g, opt)
							gpuTime += time.Since(t0)
							runs++
							if err != nil {
								t.Fatalf("cuda %s/%s: %v", dir, s.Name, err)
							}
							if len(got) != len(want) {
								t.Fatalf("cuda %s/%s: %d outputs, cpu %d", dir, s.Name, len(got), len(want))
							}
							if gotIt != wantIt && !(a.ownPath && dir == vertexprog.Auto) && !a.reorders {
								t.Errorf("cuda %s/%s: %d supersteps, cpu %d", dir, s.Name, gotIt, wantIt)
							}
							for i := range want {
								if !same(got[i], want[i], a.tol) {
									t.Fatalf("cuda %s/%s: output %d is %v, cpu %v", dir, s.Name, i, got[i], want[i])
								}
							}
						}
					}
				})
			}
		}
	}
	t.Logf("%d GPU runs in %v", runs, gpuTime)
}

// TestDeviceInMatricesMatchCPU runs the apps that pull along InEdges
// (BFS, SSSP, PageRank and a user program) on the directed test graphs
// on the GPU first, so that their in-matrices are the device's transposes
// (TestAppsMatchCPU runs the CPU first on one graph, whose host-built
// matrices the GPU then reuses), in every direction and HYB split, and
// resident (PageRank's tiles read the out-CSR as the in-matrix's
// columns), and compares them with the CPU on a fresh graph; the host
// never builds the transpose of the graph a GPU run had.
func TestDeviceInMatricesMatchCPU(t *testing.T) {
	needGPU(t)
	needNVRTC(t)
	plain := testGraphs(t, datasets.Options{})
	weighted := testGraphs(t, datasets.Options{Weights: datasets.WeightsRandom, WeightMin: 1, WeightMax: 64, Seed: 5})
	use := map[string]bool{"bfs": true, "sssp": true, "sssp (delta-stepping)": true, "pagerank": true, "pagerank-ldbc": true, "widest (user)": true}
	directed := 0
	for gi := range plain {
		for _, a := range appCases {
			tg := a.graph(plain, weighted, gi)
			if !use[a.name] || !tg.g.Directed {
				continue
			}
			directed++
			t.Run(fmt.Sprintf("%s/%s", tg.name, a.name), func(t *testing.T) {
				for _, dir := range []vertexprog.Direction{vertexprog.Auto, vertexprog.Push, vertexprog.Pull} {
					if dir == vertexprog.Push && a.pullOnly {
						continue
					}
					for _, s := range append(gputest.Splits, struct {
						Name string
						Opt  hyb.Options
					}{"default", hyb.Options{}}) {
						for _, resident := range []bool{false, true} {
							what := fmt.Sprintf("%s/%s resident=%v", dir, s.Name, resident)
							g := vertexprog.NewGraph(tg.g)
							opt := vertexprog.Options{Direction: dir, HYB: s.Opt, Backend: "cuda", Resident: resident}
							got, gotIt, err := a.run(g, opt)
							if err != nil {
								t.Fatalf("cuda %s: %v", what, err)
							}
							if g.InAdjacencyBuilt() {
								t.Errorf("cuda %s: the host built the graph's transpose", what)
							}
							opt.Backend = "cpu"
							want, wantIt, err := a.run(vertexprog.NewGraph(tg.g), opt)
							if err != nil {
								t.Fatalf("cpu %s: %v", what, err)
							}
							if len(got) != len(want) {
								t.Fatalf("cuda %s: %d outputs, cpu %d", what, len(got), len(want))
							}
							if gotIt != wantIt && !a.reorders {
								t.Errorf("cuda %s: %d supersteps, cpu %d", what, gotIt, wantIt)
							}
							for i := range want {
								if !same(got[i], want[i], a.tol) {
									t.Fatalf("cuda %s: output %d is %v, cpu %v", what, i, got[i], want[i])
								}
							}
						}
					}
				}
			})
		}
	}
	if directed == 0 {
		t.Fatal("no directed test graph")
	}
}

// TestTilesMatchCPU runs the programs that gather from every neighbour
// (vp_pull_tiles) on the GPU with the tiles off, as the matrix's own, and
// cut small (segments of 4 and 16 rows, tiles of 5 and 64 entries: many
// segments of several tiles, folding into y atomically), each grouping
// for either accumulator size, and compares them with the CPU.
func TestTilesMatchCPU(t *testing.T) {
	d := needGPU(t)
	needNVRTC(t)
	plain := testGraphs(t, datasets.Options{})
	weighted := testGraphs(t, datasets.Options{Weights: datasets.WeightsRandom, WeightMin: 1, WeightMax: 64, Seed: 7})
	defer func(h hooks) { d.hooks = h }(d.hooks)
	tc := appCaseNamed(t, "triangles")
	tc.heavy = true // (DeviceCode.HeavyGather: never tiled)
	cases := []appCase{appCaseNamed(t, "pagerank"), appCaseNamed(t, "pagerank-ldbc"), appCaseNamed(t, "pagerank-ldbc float32"), tc}
	for _, add := range []bool{true, false} {
		p := walks{add: add}
		cases = append(cases, appCase{name: fmt.Sprintf("walks (user, add %v)", add), weighted: true,
			run: func(g *vertexprog.Graph, opt vertexprog.Options) ([]float64, int, error) {
				r, err := vertexprog.Run(g, vertexprog.Program[uint32, uint32](p), opt)
				if err != nil {
					return nil, 0, err
				}
				var out []float64
				for _, x := range r.X {
					out = append(out, float64(x))
				}
				return out, r.Iterations, nil
			}})
	}
	// (near: hooks.tileNear, -1 the default grouping by accumulator size, 1 and
	// 0 groupsNear and groups for every size)
	shapes := []struct {
		name             string
		on               bool
		bits, arcs, near int
	}{{"rows", false, 0, build.TileArcsDefault, -1}, {"own", true, 0, build.TileArcsDefault, -1}, {"4x5", true, 2, 5, -1}, {"16x64", true, 4, 64, -1},
		{"own, near", true, 0, build.TileArcsDefault, 1}, {"4x5, near", true, 2, 5, 1}, {"16x64, not near", true, 4, 64, 0}}
	for gi := range plain {
		for _, a := range cases {
			tg := a.graph(plain, weighted, gi)
			g := vertexprog.NewGraph(tg.g)
			t.Run(tg.name+"/"+a.name, func(t *testing.T) {
				want, _, err := a.run(g, vertexprog.Options{Backend: "cpu"})
				if err != nil {
					t.Fatal(err)
				}
				for _, sh := range shapes {
					withOptions(t, func(o *Options) { o.Tiles = map[bool]TileMode{true: TilesResident, false: TilesNever}[sh.on] })
					d.hooks.tileRowBits, d.hooks.tileArcs, d.hooks.tileNear = sh.bits, sh.arcs, sh.near
					// The first resident run of a shape builds its tiles
					// on the device (tilesdev.go), and the next uses them.
					first, _, err := a.run(g, vertexprog.Options{Backend: "cuda", Resident: true})
					if err != nil {
						t.Fatalf("%s, first run: %v", sh.name, err)
					}
					for i := range want {
						if i < len(first) && !same(first[i], want[i], a.tol) {
							t.Fatalf("%s, first run: output %d is %v, cpu %v", sh.name, i, first[i], want[i])
						}
					}
					before := d.counts.tiledRuns
					got, _, err := a.run(g, vertexprog.Options{Backend: "cuda", Resident: true})
					if err != nil {
						t.Fatalf("%s: %v", sh.name, err)
					}
					if tiled := d.counts.tiledRuns > before; tiled != (sh.on && !a.heavy) {
						t.Fatalf("%s: tiled %v", sh.name, tiled)
					}
					// A run that is not resident pulls by rows.
					before = d.counts.tiledRuns
					if _, _, err := a.run(g, vertexprog.Options{Backend: "cuda"}); err != nil {
						t.Fatalf("%s, not resident: %v", sh.name, err)
					}
					if d.counts.tiledRuns > before {
						t.Fatalf("%s: a run that is not resident pulled by tiles", sh.name)
					}
					if len(got) != len(want) {
						t.Fatalf("%s: %d outputs, cpu %d", sh.name, len(got), len(want))
					}
					for i := range want {
						if !same(got[i], want[i], a.tol) {
							t.Fatalf("%s: output %d is %v, cpu %v", sh.name, i, got[i], want[i])
						}
					}
				}
			})
		}
	}
}

// TestUserProgramWithVptest checks a user program the way a user would:
// vptest.Compare over every backend, direction and split.
func TestUserProgramWithVptest(t *testing.T) {
	needGPU(t)
	needNVRTC(t)
	for _, tg := range testGraphs(t, datasets.Options{Weights: datasets.WeightsRandom, WeightMin: 1, WeightMax: 9, Seed: 2})[:3] {
		g := vertexprog.NewGraph(tg.g)
		out := vptest.Compare[float32, float32](t, g, func() widest { return widest{src: 1} },
			func(_ widest, r *vertexprog.Result[float32]) []float32 { return r.X }, func(a, b float32) bool { return a == b })
		if len(out) != tg.g.N {
			t.Fatalf("%s: %d outputs", tg.name, len(out))
		}
	}
	n := 0
	for _, c := range vptest.Configs() {
		if c.Options.Backend == "cuda" {
			n++
		}
	}
	if n != 18 {
		t.Errorf("vptest.Configs() has %d cuda configs; want 18 (3 directions x 3 gputest.Splits, 2 and 3 parts, and resident in each direction)", n)
	}
}

// TestConcurrentRuns runs programs from several goroutines at once: the
// worker serializes their CUDA calls.
func TestConcurrentRuns(t *testing.T) {
	needGPU(t)
	needNVRTC(t)
	gs := testGraphs(t, datasets.Options{})
	var wg sync.WaitGroup
	errs := make(chan error, len(gs))
	for _, tg := range gs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			g := vertexprog.NewGraph(tg.g)
			want, err := cc.Run(g, vertexprog.Options{Backend: "cpu"})
			if err != nil {
				errs <- err
				return
			}
			for i := 0; i < 3; i++ {
				got, err := cc.Run(g, vertexprog.Options{Backend: "cuda"})
				if err != nil {
					errs <- fmt.Errorf("%s: %w", tg.name, err)
					return
				}
				if !slices.Equal(got.Label, want.Label) {
					errs <- fmt.Errorf("%s: labels differ from the cpu's", tg.name)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestOutOfMemoryIsReported(t *testing.T) {
	d := needGPU(t)
	d.Hooks.MemInfo = func() (int64, int64) { return 1000, 80 << 30 }
	defer func() { d.Hooks.MemInfo = nil }()
	_, err := bfs.Run(smallGraph(t), 0, vertexprog.Options{Backend: "cuda"})
	if !errors.Is(err, rt.ErrOutOfMemory) {
		t.Fatalf("err = %v, want rt.ErrOutOfMemory", err)
	}
	t.Log(err)
	if !strings.Contains(err.Error(), "1000 bytes") || !strings.Contains(err.Error(), "needs") {
		t.Errorf("the message does not state the bytes needed and free: %v", err)
	}
}

// TestTilesLeftOutWhenTheyDoNotFit: a resident PageRank whose tiles'
// build would not fit in the free device memory pulls by rows (with the
// CPU's answer), and the next, with room, by tiles.
func TestTilesLeftOutWhenTheyDoNotFit(t *testing.T) {
	d := needGPU(t)
	needNVRTC(t)
	g := smallGraph(t)
	a := appCaseNamed(t, "pagerank")
	want, _, err := a.run(g, vertexprog.Options{Backend: "cpu"})
	if err != nil {
		t.Fatal(err)
	}
	for _, room := range []bool{false, true} {
		d.Hooks.MemInfo = func() (int64, int64) {
			if d.hooks.sizing && !room {
				return 1000, 80 << 30
			}
			return cu.MemGetInfo()
		}
		before := d.counts.tiledRuns
		got, _, err := a.run(g, vertexprog.Options{Backend: "cuda", Resident: true})
		d.Hooks.MemInfo = nil
		if err != nil {
			t.Fatalf("room %v: %v", room, err)
		}
		if tiled := d.counts.tiledRuns > before; tiled != room {
			t.Errorf("room for the tiles %v: tiled %v", room, tiled)
		}
		for i := range want {
			if !same(got[i], want[i], a.tol) {
				t.Fatalf("room %v: output %d is %v, cpu %v", room, i, got[i], want[i])
			}
		}
	}
}

// TestTilesAfterAParkedRun: a resident PageRank after a resident BFS,
// whose state is parked on the device, where the tiles fit only once the
// parked run is given back: the PageRank pulls by tiles (with the CPU's
// answer), and the parked run is gone.
func TestTilesAfterAParkedRun(t *testing.T) {
	d := needGPU(t)
	needNVRTC(t)
	g := smallGraph(t)
	bfs, pr := appCaseNamed(t, "bfs"), appCaseNamed(t, "pagerank")
	want, _, err := pr.run(g, vertexprog.Options{Backend: "cpu"})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := bfs.run(g, vertexprog.Options{Backend: "cuda", Resident: true}); err != nil {
		t.Fatal(err)
	}
	var parked int
	_ = d.Do("test", func() error { parked = len(d.parked); return nil })
	if parked == 0 {
		t.Fatal("the resident BFS left no parked run")
	}
	d.Hooks.MemInfo = func() (int64, int64) {
		if d.hooks.sizing && len(d.parked) > 0 {
			return 1000, 80 << 30
		}
		return cu.MemGetInfo()
	}
	before := d.counts.tiledRuns
	got, _, err := pr.run(g, vertexprog.Options{Backend: "cuda", Resident: true})
	d.Hooks.MemInfo = nil
	if err != nil {
		t.Fatal(err)
	}
	if d.counts.tiledRuns == before {
		t.Error("the PageRank pulled by rows: the parked run was not given back for its tiles")
	}
	for i := range want {
		if !same(got[i], want[i], pr.tol) {
			t.Fatalf("output %d is %v, cpu %v", i, got[i], want[i])
		}
	}
}

// broken is CC with a device snippet that does not compile, run by
// supersteps (not declaring Spec.Components, whose union-find path needs
// no device code).
type broken struct{ cc.Program }

func (broken) Spec() vertexprog.Spec { return superstepCC() }

// superstepCC is cc.Program's Spec without Components.
func superstepCC() vertexprog.Spec {
	s := cc.Program{}.Spec()
	s.Components = false
	return s
}

func (broken) Device() vertexprog.DeviceCode {
	return vertexprog.DeviceCode{Source: `typedef int X_t;
typedef int A_t;
struct State {};
__device__ A_t vp_identity() { return 2147483647; }
__device__ A_t vp_gather(A_t acc, int v, int u, X_t lu, float w, const State& s) { return min(acc, lu) }
__device__ A_t vp_reduce(A_t a, A_t b) { return min(a, b); }
__device__ bool vp_update(int v, A_t acc, X_t* l, const State& s, Step& st) { return false; }
`}
}

func TestCompileErrorThroughRun(t *testing.T) {
	needGPU(t)
	needNVRTC(t)
	_, err := vertexprog.Run(smallGraph(t), vertexprog.Program[int32, int32](broken{}), vertexprog.Options{Backend: "cuda"})
	if !errors.Is(err, jit.ErrCompile) || !strings.Contains(err.Error(), jit.SnippetFile+"(5)") {
		t.Fatalf("err = %v, want jit.ErrCompile at %s(5)", err, jit.SnippetFile)
	}
	t.Log(err)
}

// swapped declares its State members in another order than its Arrays
// (run by supersteps, as broken is).
type swapped struct {
	cc.Program
	a, b []int32
}

func (*swapped) Spec() vertexprog.Spec { return superstepCC() }

func (p *swapped) Prepare(g *vertexprog.Graph) error {
	p.a, p.b = make([]int32, g.N()), make([]int32, g.N())
	return nil
}

func (p *swapped) Device() vertexprog.DeviceCode {
	return vertexprog.DeviceCode{Source: `typedef int X_t;
typedef int A_t;
struct State { int* b; int* a; };
__device__ A_t vp_identity() { return 2147483647; }
__device__ A_t vp_gather(A_t acc, int v, int u, X_t lu, float w, const State& s) { return min(acc, lu); }
__device__ A_t vp_reduce(A_t a, A_t b) { return min(a, b); }
__device__ bool vp_update(int v, A_t acc, X_t* l, const State& s, Step& st) { return false; }
`, Arrays: []vertexprog.DeviceArray{{Name: "a", Data: p.a}, {Name: "b", Data: p.b}}}
}

func TestStateOrderIsChecked(t *testing.T) {
	needGPU(t)
	needNVRTC(t)
	_, err := vertexprog.Run(smallGraph(t), vertexprog.Program[int32, int32](&swapped{}), vertexprog.Options{Backend: "cuda"})
	if !errors.Is(err, jit.ErrCompile) || !strings.Contains(err.Error(), "State member a") {
		t.Fatalf("err = %v, want a layout error naming member a", err)
	}
	t.Log(err)
}

// BenchmarkDo is a call's round trip through Do, bare and with a
// stream synchronization (every superstep makes at least one), and what
// the driver calls of a superstep cost the host one by one (inside one
// Do): making the context current, an event, a kernel launch, the
// records' copy back, each alone and with the wait for the GPU. These
// bound how little host time a superstep can take
// (docs/perf/supersteps-and-graphs.md#where-the-hosts-time-goes).
func BenchmarkDo(b *testing.B) {
	d := needGPU(b)
	b.Run("bare", func(b *testing.B) {
		for b.Loop() {
			if err := d.Do("nothing", func() error { return nil }); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("sync", func(b *testing.B) {
		for b.Loop() {
			if err := d.Do("waiting", func() error { d.Sync(); return nil }); err != nil {
				b.Fatal(err)
			}
		}
	})
	ptx, key, err := jit.PTX(`extern "C" __global__ void hp_nop(long long a, long long b) {}
struct hp_big { long long w[56]; };
extern "C" __global__ void hp_nop_big(hp_big a, long long b) {}
extern "C" __global__ void hp_spin(long long ns, long long b) {
  long long t0, t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  do { asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); } while (t - t0 < ns);
}`, d.Arch())
	if err != nil {
		b.Fatal(err)
	}
	var mod *rt.Module
	arg, big, spin := make([]byte, 8), make([]byte, 448), make([]byte, 8)
	binary.LittleEndian.PutUint64(spin, 50000) // ns
	ev := make([]rt.Event, 0, 2)
	var buf cu.DevicePtr
	var host unsafe.Pointer
	err = d.Do("setting up", func() error {
		var err error
		mod, err = d.Load(key, ptx, []string{"hp_nop", "hp_nop_big", "hp_spin"})
		ev = append(ev, rt.NewEvent(), rt.NewEvent())
		buf = cu.MemAlloc(64)
		host = cu.MemAllocHost(64)
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	var graph *rt.Graph
	err = d.Do("capturing", func() error {
		d.BeginCapture()
		mod.Launch2("hp_nop_big", 1, d.Stream(), big, arg)
		mod.Launch2("hp_nop_big", 1, d.Stream(), big, arg)
		mod.Launch2("hp_nop", 1, d.Stream(), arg, arg)
		graph = d.EndCapture()
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	defer d.Do("cleaning up", func() error {
		for _, e := range ev {
			e.Destroy()
		}
		cu.MemFree(buf)
		cu.MemFreeHost(host)
		graph.Destroy()
		return nil
	})
	st := d.Stream().Handle()
	calls := []struct {
		name string
		f    func()
	}{
		{"set-current", func() { d.MakeCurrent() }},
		{"get-current", func() { _ = cu.CtxGetCurrent() }},
		{"event-create", func() { e := rt.NewEvent(); e.Destroy() }},
		{"event-record", func() { d.Record(ev[0]) }},
		{"launch", func() { mod.Launch2("hp_nop", 1, d.Stream(), arg, arg) }},
		{"launch-sync", func() { mod.Launch2("hp_nop", 1, d.Stream(), arg, arg); d.Sync() }},
		{"copy-back", func() { cu.MemcpyDtoHAsync(host, buf, 64, st) }},
		{"copy-back-sync", func() { cu.MemcpyDtoHAsync(host, buf, 64, st); d.Sync() }},
		{"launch+copy-back", func() { mod.Launch2("hp_nop", 1, d.Stream(), arg, arg); cu.MemcpyDtoHAsync(host, buf, 64, st) }},
		{"launch-448B", func() { mod.Launch2("hp_nop_big", 1, d.Stream(), big, arg) }},
		{"launch-busy", func() { mod.Launch2("hp_nop", 1, d.Stream(), arg, arg) }},
		{"launch-448B-busy", func() { mod.Launch2("hp_nop_big", 1, d.Stream(), big, arg) }},
		{"copy-back-busy", func() { cu.MemcpyDtoHAsync(host, buf, 64, st) }},
		{"graph-3-launches", func() { d.LaunchGraph(graph) }},
		{"graph-3-launches-busy", func() { d.LaunchGraph(graph) }},
		{"launch+launch", func() { mod.Launch2("hp_nop", 1, d.Stream(), arg, arg); mod.Launch2("hp_nop", 1, d.Stream(), arg, arg) }},
		{"superstep-shape", func() {
			d.Record(ev[0])
			mod.Launch2("hp_nop", 1, d.Stream(), arg, arg)
			mod.Launch2("hp_nop", 1, d.Stream(), arg, arg)
			d.Record(ev[1])
			cu.MemcpyDtoHAsync(host, buf, 64, st)
			d.Sync()
		}},
	}
	for _, c := range calls {
		b.Run(c.name, func(b *testing.B) {
			busy := strings.HasSuffix(c.name, "-busy") // behind a 50 µs kernel
			err := d.Do(c.name, func() error {
				for b.Loop() {
					if busy {
						b.StopTimer()
						mod.Launch2("hp_spin", 1, d.Stream(), spin, arg)
						b.StartTimer()
					}
					c.f()
				}
				d.Sync()
				return nil
			})
			if err != nil {
				b.Fatal(err)
			}
		})
	}
}

// TestDeviceTime checks the runs' device clock (driver.DeviceTimer)
// against the host's: positive, and within the host's compute time, which
// holds the span between the first launch and the last superstep's end;
// on the CPU it is absent.
func TestDeviceTime(t *testing.T) {
	needGPU(t)
	g := smallGraph(t)
	check := func(name string, device, compute time.Duration, iters int) {
		t.Helper()
		if device <= 0 || device > compute {
			t.Errorf("%s: device time %v, host compute %v over %d supersteps: want 0 < device <= host", name, device, compute, iters)
		}
	}
	for _, dir := range []vertexprog.Direction{vertexprog.Auto, vertexprog.Pull, vertexprog.Push} {
		b, err := bfs.Run(g, 0, vertexprog.Options{Backend: "cuda", Direction: dir})
		if err != nil {
			t.Fatal(err)
		}
		check(fmt.Sprint("bfs ", dir), b.Run.Device, b.Run.Compute, b.Run.Iterations)
	}
	pr, err := pagerank.LDBC(g, 0.85, 3, vertexprog.Options{Backend: "cuda"})
	if err != nil {
		t.Fatal(err)
	}
	check("pagerank-ldbc", pr.Run.Device, pr.Run.Compute, pr.Run.Iterations)
	comp, err := cc.Run(g, vertexprog.Options{Backend: "cuda"})
	if err != nil {
		t.Fatal(err)
	}
	check("cc (afforest)", comp.Run.Device, comp.Run.Compute, comp.Run.Iterations)
	cpu, err := bfs.Run(g, 0, vertexprog.Options{Backend: "cpu"})
	if err != nil {
		t.Fatal(err)
	}
	if cpu.Run.Device != 0 {
		t.Errorf("cpu: device time %v, want 0", cpu.Run.Device)
	}
}
