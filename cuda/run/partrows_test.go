//go:build cgo

package run

import (
	"fmt"
	"testing"

	"github.com/hpgraph/hpgraph/cuda/internal/gputest"
	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/datasets/gen"
	"github.com/hpgraph/hpgraph/vertexprog"
)

// TestPartPullsHoldTheirRows: BFS, SSSP (weighted), PageRank and CC in 2
// and 3 parts on a Kronecker graph give the CPU's answers, with each
// part's pull on the device holding ELL slots and COO offsets for its
// own rows only (build.Window): fewer bytes than the same arrays over all
// N rows.
func TestPartPullsHoldTheirRows(t *testing.T) {
	d := needGPU(t)
	needNVRTC(t)
	kron, err := gen.Kronecker(13, 8, 3)
	if err != nil {
		t.Fatal(err)
	}
	plain := vertexprog.NewGraph(gputest.Build(t, kron, datasets.Options{}))
	weighted := vertexprog.NewGraph(gputest.Build(t, kron, datasets.Options{Weights: datasets.WeightsRandom, WeightMin: 1, WeightMax: 64, Seed: 5}))
	for _, a := range appCases {
		switch a.name {
		case "bfs", "sssp", "pagerank", "cc":
		default:
			continue
		}
		g := plain
		if a.weighted {
			g = weighted
		}
		want, _, err := a.run(g, vertexprog.Options{Backend: "cpu"})
		if err != nil {
			t.Fatal(err)
		}
		for _, parts := range []int{2, 3} {
			what := fmt.Sprintf("%s in %d parts", a.name, parts)
			runs, have, whole := d.counts.partPulls, d.counts.partPullBytes, d.counts.partPullWhole
			got, _, err := a.run(g, vertexprog.Options{Backend: "cuda", Parts: parts})
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			if len(got) != len(want) {
				t.Fatalf("%s: %d outputs, the CPU's %d", what, len(got), len(want))
			}
			for i := range want {
				if !same(got[i], want[i], a.tol) {
					t.Fatalf("%s: output %d is %v, the CPU's %v", what, i, got[i], want[i])
				}
			}
			runs, have, whole = d.counts.partPulls-runs, d.counts.partPullBytes-have, d.counts.partPullWhole-whole
			if runs < parts || have >= whole {
				t.Errorf("%s: %d parts' pulls took %d bytes of ELL slots and COO offsets, %d over all rows", what, runs, have, whole)
			}
			t.Logf("%s: %d parts' pulls, their rows' arrays %d bytes, %.2f of all rows'", what, runs, have, float64(have)/float64(whole))
		}
	}
}
