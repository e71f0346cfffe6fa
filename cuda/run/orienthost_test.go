//go:build cgo

package run

import (
	"testing"

	"github.com/hpgraph/hpgraph/apps/tc"
	"github.com/hpgraph/hpgraph/cuda/internal/gputest"
	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/datasets/gen"
	"github.com/hpgraph/hpgraph/vertexprog"
)

// TestOrientOnHostWhereShort: triangle counting in parts builds the
// whole graph's orientation on each part's device, or, where the whole
// matrix does not fit beside the part (a test hook fails the first
// reservation), on the host; either way with the CPU's total and the
// orientation's size the CPU reports.
func TestOrientOnHostWhereShort(t *testing.T) {
	d := needGPU(t)
	needNVRTC(t)
	kron, err := gen.Kronecker(12, 8, 1)
	if err != nil {
		t.Fatal(err)
	}
	g := vertexprog.NewGraph(gputest.Build(t, kron, datasets.Options{}))
	want, err := tc.Run(g, false, vertexprog.Options{Backend: "cpu", Parts: 2})
	if err != nil {
		t.Fatal(err)
	}
	for _, short := range []bool{false, true} {
		d.hooks.noWholeRoom = short
		before := d.counts.hostOrients
		got, err := tc.Run(g, false, vertexprog.Options{Backend: "cuda", Parts: 2})
		d.hooks.noWholeRoom = false
		if err != nil {
			t.Fatalf("short %v: %v", short, err)
		}
		if n := d.counts.hostOrients - before; (n > 0) != short {
			t.Errorf("short %v: %d parts oriented on the host", short, n)
		}
		if got.Total != want.Total || got.Run.Whole != want.Run.Whole || want.Run.Whole == 0 {
			t.Errorf("short %v: %d triangles, orientation %d bytes; the CPU's %d, %d", short, got.Total, got.Run.Whole, want.Total, want.Run.Whole)
		}
	}
}
