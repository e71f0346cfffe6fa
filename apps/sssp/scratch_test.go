package sssp_test

import (
	"fmt"
	"runtime"
	"sync"
	"testing"

	"github.com/hpgraph/hpgraph/apps/internal/apptest"
	"github.com/hpgraph/hpgraph/apps/reference"
	"github.com/hpgraph/hpgraph/apps/sssp"
	"github.com/hpgraph/hpgraph/vertexprog"
)

// TestSSSPRunsReuseTheGraphsScratch: runs one after another and at once
// on one graph, four workers each, take their buckets, lists, bitmasks
// and accumulators from the runs before (the graph's spares) and give
// the reference's distances; and a run after two collections (which
// emptied the sync.Pool the bitmasks and lists were kept in before)
// allocates less than four times its distances' array (one of them the
// distances themselves: 1.1-2.2 times), where the scratch grown afresh
// took 7.4-8.1.
func TestSSSPRunsReuseTheGraphsScratch(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	dg, g := weightedKronecker(t, 16, 8, 9, 4)
	srcs := apptest.Sources(dg)
	want := make([][]float64, len(srcs))
	for i, src := range srcs {
		w, err := reference.SSSP(dg, src)
		if err != nil {
			t.Fatal(err)
		}
		want[i] = w
	}
	check := func(i int, d []float32) error {
		if err := sameDist(d, want[i]); err != nil {
			return fmt.Errorf("src %d: %w", srcs[i], err)
		}
		return nil
	}
	opt := vertexprog.Options{Backend: "cpu"}
	for i, src := range srcs {
		r, err := sssp.Run(g, src, opt)
		if err != nil {
			t.Fatal(err)
		}
		if err := check(i, r.Dist); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	errs := make([]error, 2*len(srcs))
	for k := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			i := k % len(srcs)
			r, err := sssp.Run(g, srcs[i], opt)
			if err == nil {
				err = check(i, r.Dist)
			}
			errs[k] = err
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	for range 3 {
		if _, err := sssp.Run(g, srcs[0], opt); err != nil {
			t.Fatal(err)
		}
	}
	runtime.GC()
	runtime.GC()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	r, err := sssp.Run(g, srcs[0], opt)
	runtime.ReadMemStats(&m1)
	if err != nil {
		t.Fatal(err)
	}
	if err := check(0, r.Dist); err != nil {
		t.Fatal(err)
	}
	if got, dist := m1.TotalAlloc-m0.TotalAlloc, uint64(4*dg.N); got > 4*dist {
		t.Fatalf("a run after two collections allocated %d bytes, %.1f times its distances' %d", got, float64(got)/float64(dist), dist)
	} else {
		t.Logf("allocated %d bytes, %.2f times the distances'", got, float64(got)/float64(dist))
	}
}
