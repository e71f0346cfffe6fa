//go:build cgo

package run

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"
	"unsafe"

	"github.com/hpgraph/hpgraph/apps/bfs"
	"github.com/hpgraph/hpgraph/apps/cc"
	"github.com/hpgraph/hpgraph/apps/pagerank"
	"github.com/hpgraph/hpgraph/apps/sssp"
	"github.com/hpgraph/hpgraph/cuda/build"
	"github.com/hpgraph/hpgraph/cuda/cu"
	"github.com/hpgraph/hpgraph/cuda/internal/gputest"
	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/datasets/gen"
	"github.com/hpgraph/hpgraph/hyb"
	"github.com/hpgraph/hpgraph/vertexprog"
)

// bfsJob starts BFS from src on g as the engine would, without the
// engine, on the registered backend.
func bfsJob(t *testing.T, g *vertexprog.Graph, src int32) (*bfs.Program, *progRun) {
	t.Helper()
	p, job, err := gputest.BFSJob(g, src)
	if err != nil {
		t.Fatal(err)
	}
	dr, err := registered.Start(job)
	if err != nil {
		t.Fatal(err)
	}
	return p, dr.(*progRun)
}

func gridGraph(t *testing.T, rows, cols int) *vertexprog.Graph {
	el, err := gen.Grid(rows, cols)
	if err != nil {
		t.Fatal(err)
	}
	return vertexprog.NewGraph(gputest.Build(t, el, datasets.Options{}))
}

// TestStepBatch drives BFS on a grid through StepBatch, in both
// directions, with and without CUDA graphs, and pushing, with and without
// vp_loop (a cluster, one block, with an edge limit that makes it hand
// batches to the grid-wide kernels and take them back, and with touched
// lists of 3 rows, so that pushes spill and the loop takes them back),
// and compares every superstep's report and the result with the CPU's.
func TestStepBatch(t *testing.T) {
	d := needGPU(t)
	needNVRTC(t)
	g := gridGraph(t, 60, 70)
	want, err := bfs.Run(g, 0, vertexprog.Options{Backend: "cpu"})
	if err != nil {
		t.Fatal(err)
	}
	defer func(h hooks) { d.hooks = h }(d.hooks)
	for _, c := range []struct {
		graphs            bool
		loop, edges, list int
	}{{false, 0, 0, 0}, {true, 0, 0, 0}, {false, 1, 16384, 0}, {true, 16, 16384, 0}, {false, 16, 40, 0}, {true, 8, 40, 0}, {true, 16, 16384, 3}} {
		withOptions(t, func(o *Options) { o.Graphs, o.LoopCluster = c.graphs, c.loop })
		d.hooks.loopEdges, d.hooks.loopList = c.edges, c.list
		for _, dir := range []vertexprog.Direction{vertexprog.Push, vertexprog.Pull} {
			for _, size := range []int{1, 3, 64, 1000} {
				name := fmt.Sprintf("graphs=%v/loop=%d,%d,%d/%s/batch%d", c.graphs, c.loop, c.edges, c.list, dir, size)
				p, r := bfsJob(t, g, 0)
				var active []int
				spilled := false
				for it := 0; ; {
					reps, err := r.StepBatch(it, dir, size, 0)
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					if c.list > 0 {
						// ctl[3]: the rows the last vp_loop launch spilled.
						var ctl [4]int32
						if err := r.d.Do("reading ctl", func() error {
							cu.MemcpyDtoH(unsafe.Pointer(&ctl[0]), r.ctl, 16)
							return nil
						}); err != nil {
							t.Fatal(err)
						}
						spilled = spilled || ctl[3] > 0
					}
					if len(reps) == 0 || len(reps) > min(size, maxBatch) {
						t.Fatalf("%s: %d reports for a batch of %d", name, len(reps), size)
					}
					for i, rep := range reps {
						if rep.Active == 0 && i != len(reps)-1 {
							t.Fatalf("%s: superstep %d activated nothing but the batch went on", name, it+i)
						}
						active = append(active, rep.Active)
					}
					it += len(reps)
					if reps[len(reps)-1].Active == 0 {
						break
					}
					if it > 10*g.N() {
						t.Fatalf("%s: no end", name)
					}
				}
				if err := r.Finish(nil); err != nil {
					t.Fatal(err)
				}
				r.Close()
				// (past 48 rows a superstep, 16 lists of 3 cannot hold them;
				// a launch runs until then in batches of 64 or more)
				if c.list > 0 && dir == vertexprog.Push && size >= 64 && !spilled {
					t.Errorf("%s: no push spilled", name)
				}
				if !slices.Equal(active, want.Run.Active) {
					t.Fatalf("%s: active per superstep %v, cpu %v", name, active, want.Run.Active)
				}
				if !slices.Equal(p.Depth, want.Depth) || !slices.Equal(p.Parent, want.Parent) {
					t.Fatalf("%s: depths or parents differ from the cpu's", name)
				}
			}
		}
	}
}

// TestStepBatchStopsAtLargeFrontier: a batch from a star's hub ends after
// the first superstep, whose frontier (every leaf) is too large to batch,
// unless the batch pushes and the leaves' 4999 edges are below its edge
// limit: then the leaves' superstep (activating nothing) runs in it too.
func TestStepBatchStopsAtLargeFrontier(t *testing.T) {
	needGPU(t)
	needNVRTC(t)
	el := &datasets.EdgeList{N: 5000}
	for v := int32(1); v < 5000; v++ {
		el.Src, el.Dst = append(el.Src, 0), append(el.Dst, v)
	}
	g := vertexprog.NewGraph(gputest.Build(t, el, datasets.Options{}))
	for _, tc := range []struct {
		pushEdges int64
		want      []int
	}{{0, []int{4999}}, {4999, []int{4999}}, {5000, []int{4999, 0}}} {
		p, r := bfsJob(t, g, 0)
		reps, err := r.StepBatch(0, vertexprog.Push, 8, tc.pushEdges)
		if err != nil {
			t.Fatal(err)
		}
		var got []int
		for _, rep := range reps {
			got = append(got, rep.Active)
		}
		if !slices.Equal(got, tc.want) {
			t.Fatalf("edge limit %d: active per superstep %v, want %v", tc.pushEdges, got, tc.want)
		}
		if len(reps) == 1 {
			a, _, _, err := r.Step(1, vertexprog.Pull)
			if err != nil || a != 0 {
				t.Fatalf("Step(1) = %d, %v; want 0 active", a, err)
			}
		}
		if err := r.Finish(nil); err != nil {
			t.Fatal(err)
		}
		r.Close()
		for v := 1; v < 5000; v++ {
			if p.Depth[v] != 1 || p.Parent[v] != 0 {
				t.Fatalf("edge limit %d: vertex %d: depth %d parent %d", tc.pushEdges, v, p.Depth[v], p.Parent[v])
			}
		}
	}
}

// TestBinsAndBatchesMatchCPU runs the apps through the engine (which
// batches small frontiers) on graphs with long rows, with bins small
// enough that every bin and many heavy chunks occur, with and without
// CUDA graphs, and compares with the CPU.
func TestBinsAndBatchesMatchCPU(t *testing.T) {
	d := needGPU(t)
	needNVRTC(t)
	kron, err := gen.Kronecker(12, 16, 3)
	if err != nil {
		t.Fatal(err)
	}
	graphs := []testGraph{
		{"kron12", gputest.Build(t, kron, datasets.Options{})},
		{"grid90x110", gridGraph(t, 90, 110).Dataset()},
	}
	weighted := []testGraph{
		{"kron12", gputest.Build(t, kron, datasets.Options{Weights: datasets.WeightsRandom, WeightMin: 1, WeightMax: 64, Seed: 5})},
		{"grid90x110", graphs[1].g},
	}
	defer func(h hooks) { d.hooks = h }(d.hooks)
	for _, bins := range []build.BinLimits{build.DefaultBins(), {Thread: 1, Quad: 4, Warp: 32, Chunk: 16}, {Chunk: 7}} {
		d.hooks.binLimits = bins
		for _, gr := range []bool{true, false} {
			withOptions(t, func(o *Options) { o.Graphs = gr })
			for gi := range graphs {
				for _, a := range appCases {
					tg := a.graph(graphs, weighted, gi)
					g := vertexprog.NewGraph(tg.g)
					for _, s := range gputest.Splits[:2] {
						opt := vertexprog.Options{HYB: s.Opt, Backend: "cpu"}
						want, wantIt, err := a.run(g, opt)
						if err != nil {
							t.Fatal(err)
						}
						opt.Backend = "cuda"
						got, gotIt, err := a.run(g, opt)
						name := fmt.Sprintf("bins %v graphs %v %s %s %s", bins, gr, tg.name, a.name, s.Name)
						if err != nil {
							t.Fatalf("%s: %v", name, err)
						}
						if gotIt != wantIt && !a.ownPath && !a.reorders {
							t.Errorf("%s: %d supersteps, cpu %d", name, gotIt, wantIt)
						}
						for i := range want {
							if !same(got[i], want[i], a.tol) {
								t.Fatalf("%s: output %d is %v, cpu %v", name, i, got[i], want[i])
							}
						}
					}
				}
			}
		}
	}
}

// TestMatrixCacheReuse: a second run on the same graph finds its matrices
// on the device, and computes the same.
func TestMatrixCacheReuse(t *testing.T) {
	d := needGPU(t)
	needNVRTC(t)
	kron, err := gen.Kronecker(14, 16, 9)
	if err != nil {
		t.Fatal(err)
	}
	g := vertexprog.NewGraph(gputest.Build(t, kron, datasets.Options{}))
	var first []int32
	for i := 0; i < 3; i++ {
		var hits int
		_ = d.Do("", func() error { hits, _ = d.Cache.Hits(); return nil })
		r, err := cc.Run(g, vertexprog.Options{Backend: "cuda"})
		if err != nil {
			t.Fatal(err)
		}
		var hits2 int
		_ = d.Do("", func() error { hits2, _ = d.Cache.Hits(); return nil })
		t.Logf("run %d: preprocess %v, compute %v, transfers %v, cache hits %d", i, r.Run.Preprocess, r.Run.Compute, r.Run.Transfer, hits2-hits)
		if i == 0 {
			first = r.Label
			continue
		}
		if hits2 <= hits {
			t.Errorf("run %d: the matrix was not found in the cache", i)
		}
		if !slices.Equal(r.Label, first) {
			t.Fatalf("run %d: labels differ from the first run's", i)
		}
	}
}

// TestTimings logs in-process timings of the apps (HPGRAPH_CUDA_TIMINGS=
// SCALE runs them on a Kronecker graph of that scale, and on a 1000x1000
// grid): PREPROCESS, compute and transfers per run, with CUDA graphs on and
// off and with and without texture objects. It asserts nothing.
func TestTimings(t *testing.T) {
	scale, err := strconv.Atoi(os.Getenv("HPGRAPH_CUDA_TIMINGS"))
	if err != nil {
		t.Skip("HPGRAPH_CUDA_TIMINGS=SCALE runs it")
	}
	needGPU(t)
	needNVRTC(t)
	kron, err := gen.Kronecker(scale, 16, gen.GAPSeed)
	if err != nil {
		t.Fatal(err)
	}
	k := vertexprog.NewGraph(gputest.Build(t, kron, datasets.Options{}))
	grid := gridGraph(t, 1000, 1000)
	for _, o := range []hyb.Options{hyb.DefaultOptions(), {RelativeSpeed: 3, Breakeven: 1 << 30}} {
		m, err := k.PullMatrix(vertexprog.InEdges, o)
		if err != nil {
			t.Fatal(err)
		}
		t0 := time.Now()
		nnz := m.NNZ()
		t.Logf("kron%d K=%d: hyb.Matrix.NNZ() = %d took %v (the engine's loop calls it every run)", scale, m.K, nnz, time.Since(t0))
	}
	type variant struct {
		name        string
		graphs, tex bool
	}
	for _, v := range []variant{{"graphs+tex", true, true}, {"nographs+tex", false, true}, {"graphs+ldg", true, false}} {
		withOptions(t, func(o *Options) { o.Graphs, o.Texture = v.graphs, v.tex })
		for _, gg := range []struct {
			name string
			g    *vertexprog.Graph
		}{{fmt.Sprintf("kron%d", scale), k}, {"grid1000", grid}} {
			src := sourcesOf(gg.g)[0]
			for _, app := range []string{"bfs", "cc", "pr-ldbc"} {
				var pre, comp, tr []time.Duration
				steps := 0
				for i := 0; i < 4; i++ {
					var r *vertexprog.Result[struct{}]
					var err error
					switch app {
					case "bfs":
						var b *bfs.Result
						if b, err = bfs.Run(gg.g, src, vertexprog.Options{Backend: "cuda"}); err == nil {
							r = b.Run
						}
					case "cc":
						var c *cc.Result
						if c, err = cc.Run(gg.g, vertexprog.Options{Backend: "cuda"}); err == nil {
							r = &vertexprog.Result[struct{}]{Preprocess: c.Run.Preprocess, Compute: c.Run.Compute, Transfer: c.Run.Transfer, Iterations: c.Run.Iterations}
						}
					default:
						var p *pagerank.Result[float64]
						if p, err = pagerank.LDBC(gg.g, 0.85, 10, vertexprog.Options{Backend: "cuda"}); err == nil {
							r = &vertexprog.Result[struct{}]{Preprocess: p.Run.Preprocess, Compute: p.Run.Compute, Transfer: p.Run.Transfer, Iterations: p.Run.Iterations}
						}
					}
					if err != nil {
						t.Fatal(err)
					}
					pre, comp, tr = append(pre, r.Preprocess), append(comp, r.Compute), append(tr, r.Transfer)
					steps = r.Iterations
				}
				t.Logf("%-13s %-9s %-8s %4d supersteps: preprocess %v | compute %v | transfers %v", v.name, gg.name, app, steps, pre, comp, tr)
			}
		}
	}
}

// TestBatchCost (HPGRAPH_CUDA_TIMINGS=1) times StepBatch over grid BFS,
// and the same batches once the frontier is empty, when every kernel
// returns at once: what a small superstep costs against what launching it
// costs (docs/perf/supersteps-and-graphs.md#fused-push-supersteps-tried-removed).
func TestBatchCost(t *testing.T) {
	if os.Getenv("HPGRAPH_CUDA_TIMINGS") == "" {
		t.Skip("HPGRAPH_CUDA_TIMINGS=1 runs it")
	}
	needGPU(t)
	needNVRTC(t)
	grid := gridGraph(t, 1000, 1000)
	path := &datasets.EdgeList{N: 4000}
	for v := int32(1); v < int32(path.N); v++ {
		path.Src, path.Dst = append(path.Src, v-1), append(path.Dst, v)
	}
	line := vertexprog.NewGraph(gputest.Build(t, path, datasets.Options{}))
	for _, c := range []struct {
		g          *vertexprog.Graph
		src        int32
		loop, size int
	}{{grid, 500500, 0, 64}, {grid, 500500, 1, 64}, {grid, 500500, 8, 64}, {grid, 500500, 16, 64}, {grid, 500500, 16, maxBatch},
		{line, 0, 0, maxBatch}, {line, 0, 1, maxBatch}, {line, 0, 16, maxBatch}} {
		withOptions(t, func(o *Options) { o.LoopCluster = c.loop })
		g := c.g
		_, r := bfsJob(t, g, c.src)
		var busy time.Duration
		steps, calls, it := 0, 0, 0
		for {
			t0 := time.Now()
			reps, err := r.StepBatch(it, vertexprog.Push, c.size, 1<<20)
			if err != nil {
				t.Fatal(err)
			}
			busy += time.Since(t0)
			calls++
			steps += len(reps)
			it += len(reps)
			if reps[len(reps)-1].Active == 0 {
				break
			}
		}
		const idle = 20
		t0 := time.Now()
		for i := 0; i < idle; i++ {
			if _, err := r.StepBatch(it, vertexprog.Push, 64, 1<<20); err != nil {
				t.Fatal(err)
			}
		}
		empty := time.Since(t0) / idle
		r.Close()
		t.Logf("%d vertices, loop cluster %d (ran %d), batches of %d: %d supersteps in %d calls: %v, %.2f µs each; a batch of 64 empty supersteps: %v, %.2f µs each",
			g.N(), c.loop, r.loop, c.size, steps, calls, busy, float64(busy.Nanoseconds())/float64(steps)/1e3, empty, float64(empty.Nanoseconds())/64e3)
	}
}

// TestDeltaStepping runs SSSP by delta-stepping in vp_loop (deltas from
// below the lightest edge to beyond the graph's diameter; a cluster, one
// block, an edge limit that hands batches with far vertices to the
// grid-wide kernels, and touched lists that spill) and compares the
// distances with the CPU's Bellman-Ford. A small delta must defer work:
// more supersteps than Bellman-Ford on the GPU. One block with delta 1 on
// the larger grid fills its far list.
func TestDeltaStepping(t *testing.T) {
	d := needGPU(t)
	needNVRTC(t)
	defer func(h hooks) { d.hooks = h }(d.hooks)
	for _, gc := range []struct{ rows, cols int }{{60, 70}, {300, 300}} {
		el, err := gen.Grid(gc.rows, gc.cols)
		if err != nil {
			t.Fatal(err)
		}
		g := vertexprog.NewGraph(gputest.Build(t, el, datasets.Options{Weights: datasets.WeightsRandom, WeightMin: 1, WeightMax: 64, Seed: 9}))
		src := int32(gc.cols + 1)
		want, err := sssp.RunDelta(g, src, 0, vertexprog.Options{Backend: "cpu"})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct{ loop, edges, list int }{{16, 16384, 0}, {1, 16384, 0}, {8, 40, 0}, {16, 16384, 5}} {
			withOptions(t, func(o *Options) { o.LoopCluster = c.loop })
			d.hooks.loopEdges, d.hooks.loopList = c.edges, c.list
			bf, err := sssp.RunDelta(g, src, 0, vertexprog.Options{Backend: "cuda"})
			if err != nil {
				t.Fatal(err)
			}
			for _, delta := range []float64{0.5, 1, 64, 260, 1e9} {
				for _, dir := range []vertexprog.Direction{vertexprog.Auto, vertexprog.Push} {
					name := fmt.Sprintf("grid%dx%d/loop=%d,%d,%d/delta=%v/%s", gc.rows, gc.cols, c.loop, c.edges, c.list, delta, dir)
					got, err := sssp.RunDelta(g, src, delta, vertexprog.Options{Backend: "cuda", Direction: dir})
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					if !slices.Equal(got.Dist, want.Dist) {
						t.Fatalf("%s: distances differ from the cpu's", name)
					}
					if delta <= 64 && c.edges > 40 && c.list == 0 && got.Run.Iterations <= bf.Run.Iterations {
						t.Errorf("%s: %d supersteps, Bellman-Ford %d: nothing deferred", name, got.Run.Iterations, bf.Run.Iterations)
					}
					t.Logf("%s: %d supersteps (Bellman-Ford %d)", name, got.Run.Iterations, bf.Run.Iterations)
				}
			}
		}
	}
}
