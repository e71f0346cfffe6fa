//go:build cgo

package cuda

import (
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/hpgraph/hpgraph/apps/bfs"
	"github.com/hpgraph/hpgraph/apps/cc"
	"github.com/hpgraph/hpgraph/apps/cdlp"
	"github.com/hpgraph/hpgraph/apps/lcc"
	"github.com/hpgraph/hpgraph/apps/sssp"
	"github.com/hpgraph/hpgraph/cuda/internal/gputest"
	"github.com/hpgraph/hpgraph/cuda/jit"
	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/datasets/gen"
	"github.com/hpgraph/hpgraph/vertexprog"
	"github.com/hpgraph/hpgraph/vertexprog/driver"
)

func needGPU(t *testing.T) {
	t.Helper()
	gputest.Need(t, registered.Available())
	gputest.NeedNVRTC(t, jit.Load())
}

func testGraph(t *testing.T, directed bool) *vertexprog.Graph {
	t.Helper()
	el, err := gen.Kronecker(12, 8, 5)
	if err != nil {
		t.Fatal(err)
	}
	el.Directed = directed
	return vertexprog.NewGraph(gputest.Build(t, el, datasets.Options{Weights: datasets.WeightsRandom, WeightMin: 1, WeightMax: 64, Seed: 3}))
}

// TestRegisteredBackendMatchesCPU runs apps through vertexprog on the
// backend registered as "cuda" (each path of its: supersteps, Afforest,
// a multiset program, a directed graph's transpose, undirected view and
// renumbering by degree, made on the device) and compares them with the
// CPU engine's.
func TestRegisteredBackendMatchesCPU(t *testing.T) {
	needGPU(t)
	for _, directed := range []bool{false, true} {
		g := testGraph(t, directed)
		cpu, gpu := vertexprog.Options{Backend: "cpu"}, vertexprog.Options{Backend: "cuda"}
		what := fmt.Sprintf("directed=%v", directed)
		b1, err1 := bfs.Run(g, 0, cpu)
		b2, err2 := bfs.Run(g, 0, gpu)
		if err1 != nil || err2 != nil || !slices.Equal(b1.Depth, b2.Depth) || b2.Run.Backend != "cuda" {
			t.Errorf("%s: bfs: %v, %v, ran on %s, same depths %v", what, err1, err2, b2.Run.Backend, err1 == nil && err2 == nil && slices.Equal(b1.Depth, b2.Depth))
		}
		s1, err1 := sssp.Run(g, 0, cpu)
		s2, err2 := sssp.Run(g, 0, gpu)
		if err1 != nil || err2 != nil || !slices.Equal(s1.Dist, s2.Dist) {
			t.Errorf("%s: sssp: %v, %v, or the distances differ", what, err1, err2)
		}
		c1, err1 := cc.Run(g, cpu)
		c2, err2 := cc.Run(g, gpu)
		if err1 != nil || err2 != nil || !slices.Equal(c1.Label, c2.Label) {
			t.Errorf("%s: cc: %v, %v, or the labels differ", what, err1, err2)
		}
		l1, err1 := lcc.Run(g, cpu)
		l2, err2 := lcc.Run(g, gpu)
		if err1 != nil || err2 != nil || !slices.Equal(l1.LCC, l2.LCC) {
			t.Errorf("%s: lcc: %v, %v, or the coefficients differ", what, err1, err2)
		}
		d1, err1 := cdlp.Run(g, 10, cpu)
		d2, err2 := cdlp.Run(g, 10, gpu)
		if err1 != nil || err2 != nil || !slices.Equal(d1.Label, d2.Label) {
			t.Errorf("%s: cdlp: %v, %v, or the labels differ", what, err1, err2)
		}
		for _, parts := range []int{1, 2} {
			relabelled, err := registered.RelabelByDegree(g.Dataset(), parts)
			if want := g.Dataset().RelabelParts(datasets.RelabelDegree, parts); err != nil || !slices.Equal(relabelled.Col, want.Col) || !slices.Equal(relabelled.IDs, want.IDs) {
				t.Errorf("%s: renumbering by degree over %d parts on the device: %v, or it differs from the host's", what, parts, err)
			}
		}
	}
	if peak, total := registered.DeviceMemory(); peak <= 0 || total <= 0 {
		t.Errorf("DeviceMemory() = %d, %d after runs", peak, total)
	}
}

// TestBackendsPerDevice opens several backends at once (two on device 0,
// one on each other device, up to four) and runs BFS on all of them
// together, each from a goroutine of its own, three times: each has its
// own context, caches and memory accounting, and every answer is the
// CPU's.
func TestBackendsPerDevice(t *testing.T) {
	needGPU(t)
	n, err := DeviceCount()
	if err != nil || n < 1 {
		t.Fatalf("DeviceCount() = %d, %v with a GPU", n, err)
	}
	ords := []int{0, 0}
	for i := 1; i < min(n, 4); i++ {
		ords = append(ords, i)
	}
	var bs []*Backend
	for _, o := range ords {
		b, err := Open(o, DefaultOptions())
		if err != nil {
			t.Fatalf("Open(%d): %v", o, err)
		}
		bs = append(bs, b)
	}
	if _, err := Open(n, DefaultOptions()); err == nil {
		t.Errorf("Open(%d) with %d devices succeeded", n, n)
	}
	if bs[0].dev == bs[1].dev || bs[0].dev.RT() == bs[1].dev.RT() {
		t.Fatal("two backends opened on device 0 share their device state")
	}
	g := testGraph(t, false)
	want, err := bfs.Run(g, 0, vertexprog.Options{Backend: "cpu"})
	if err != nil {
		t.Fatal(err)
	}
	errs := make([]error, len(bs))
	var wg sync.WaitGroup
	for i, b := range bs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = bfsRounds(b, g, want.Depth, 3)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("backend %d (device %d): %v", i, ords[i], err)
		}
	}
	for i, b := range bs {
		if peak, total := b.DeviceMemory(); peak <= 0 || total <= 0 {
			t.Errorf("backend %d: DeviceMemory() = %d, %d", i, peak, total)
		}
		// (its own cache: hit by its later runs; two backends on one
		// device share its memory, and one may trim what the other
		// would hit)
		if hits, _ := b.dev.Cache.Hits(); hits < 1 {
			t.Errorf("backend %d: its matrix cache was never hit in 3 runs on one graph", i)
		}
	}
}

// bfsRounds runs BFS from 0 on g on b rounds times, in batches, and
// compares the depths with want.
func bfsRounds(b *Backend, g *vertexprog.Graph, want []int32, rounds int) error {
	for round := range rounds {
		p, job, err := gputest.BFSJob(g, 0)
		if err != nil {
			return err
		}
		dr, err := b.Start(job)
		if err != nil {
			return err
		}
		r := dr.(driver.DeviceBatchRun)
		for it := 0; it <= 10*g.N(); {
			reps, err := r.StepBatch(it, vertexprog.Push, 64, 0)
			if err != nil {
				dr.Close()
				return err
			}
			it += len(reps)
			if reps[len(reps)-1].Active == 0 {
				break
			}
		}
		err = dr.Finish(nil)
		dr.Close()
		if err != nil {
			return err
		}
		if !slices.Equal(p.Depth, want) {
			return fmt.Errorf("round %d: depths differ from the cpu's", round)
		}
	}
	return nil
}
