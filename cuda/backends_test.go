//go:build cgo

package cuda

import (
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/hpgraph/hpgraph/apps"
	"github.com/hpgraph/hpgraph/vertexprog"
)

// TestBackendsPerDevice opens several backends at once (two on device 0,
// one on each other device, up to four) and runs BFS on all of them
// together, each from a goroutine of its own, three times: each has its
// own context, caches and memory accounting, and every answer is the
// CPU's.
func TestBackendsPerDevice(t *testing.T) {
	needGPU(t)
	needNVRTC(t)
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
	if bs[0].dev == bs[1].dev || bs[0].dev.Device == bs[1].dev.Device {
		t.Fatal("two backends opened on device 0 share their device state")
	}
	g := gridGraph(t, 60, 70)
	want, err := apps.BFS(g, 0, vertexprog.Options{Backend: "cpu"})
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
		if hits, _ := b.dev.Cache.Hits(); hits < 2 {
			t.Errorf("backend %d: its matrix cache was hit %d times in 3 runs on one graph", i, hits)
		}
	}
}

// bfsRounds runs BFS from 0 on g on b rounds times, in batches, and
// compares the depths with want.
func bfsRounds(b *Backend, g *vertexprog.Graph, want []int32, rounds int) error {
	for round := range rounds {
		p, r, err := startBFS(b, g, 0)
		if err != nil {
			return err
		}
		for it := 0; it <= 10*g.N(); {
			reps, err := r.StepBatch(it, vertexprog.Push, 64, 0)
			if err != nil {
				r.Close()
				return err
			}
			it += len(reps)
			if reps[len(reps)-1].Active == 0 {
				break
			}
		}
		err = r.Finish(nil)
		r.Close()
		if err != nil {
			return err
		}
		if !slices.Equal(p.Depth, want) {
			return fmt.Errorf("round %d: depths differ from the cpu's", round)
		}
	}
	return nil
}
