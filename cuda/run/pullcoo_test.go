//go:build cgo

package run

import (
	"slices"
	"testing"

	"github.com/hpgraph/hpgraph/apps/bfs"
	"github.com/hpgraph/hpgraph/cuda/internal/gputest"
	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/datasets/gen"
	"github.com/hpgraph/hpgraph/vertexprog"
)

// TestPullWithoutELLWhereShort: a BFS in parts whose runs do not fit
// with their pulls' ELL (a test hook fails the first reservation) runs
// with each part's pull all COO, with the CPU's depths and parents. (A
// Kronecker graph of 16K vertices: its parts' pulls have an ELL.)
func TestPullWithoutELLWhereShort(t *testing.T) {
	d := needGPU(t)
	needNVRTC(t)
	kron, err := gen.Kronecker(14, 8, 1)
	if err != nil {
		t.Fatal(err)
	}
	g := vertexprog.NewGraph(gputest.Build(t, kron, datasets.Options{}))
	want, err := bfs.Run(g, 3, vertexprog.Options{Backend: "cpu"})
	if err != nil {
		t.Fatal(err)
	}
	for _, short := range []bool{false, true} {
		d.hooks.noELLRoom = short
		before := d.counts.cooPullRuns
		got, err := bfs.Run(g, 3, vertexprog.Options{Backend: "cuda", Parts: 2})
		d.hooks.noELLRoom = false
		if err != nil {
			t.Fatalf("short %v: %v", short, err)
		}
		if len(got.Run.Parts) != 2 {
			t.Fatalf("short %v: %d parts reported, want 2", short, len(got.Run.Parts))
		}
		if n := d.counts.cooPullRuns - before; (n > 0) != short {
			t.Errorf("short %v: %d runs pulled without their ELL", short, n)
		}
		if !slices.Equal(got.Depth, want.Depth) || !slices.Equal(got.Parent, want.Parent) {
			t.Errorf("short %v: depths or parents differ from the CPU's", short)
		}
	}
}
