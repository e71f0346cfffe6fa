package sssp_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/hpgraph/hpgraph/apps/internal/apptest"
	"github.com/hpgraph/hpgraph/apps/reference"
	"github.com/hpgraph/hpgraph/apps/sssp"
	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/vertexprog"
	"github.com/hpgraph/hpgraph/vertexprog/vptest"
)

func TestSSSPMatchesReference(t *testing.T) {
	for _, tg := range apptest.Shapes(t, apptest.Weighted) {
		g := vertexprog.NewGraph(tg.G)
		for _, src := range apptest.Sources(tg.G) {
			t.Run(fmt.Sprintf("%s/src%d", tg.Name, src), func(t *testing.T) {
				want, err := reference.SSSP(tg.G, src)
				if err != nil {
					t.Fatal(err)
				}
				for _, c := range vptest.Configs() {
					r, err := sssp.Run(g, src, c.Options)
					if err != nil {
						t.Fatalf("%s: %v", c.Name, err)
					}
					if err := sameDist(r.Dist, want); err != nil {
						t.Fatalf("%s: %v", c.Name, err)
					}
				}
			})
		}
	}
}

// TestSSSPNonNegativeWeights: the weights SSSP's Prepare accepts, -0 and
// subnormals among them, keep every distance a number >= 0 (the promise
// its Gather's //devgen:nonnegative makes for the device's integer
// atomicMin fold; sums that overflow give +Inf), with the same bits on
// every backend, by Bellman-Ford and by delta-stepping; a negative
// weight is rejected.
func TestSSSPNonNegativeWeights(t *testing.T) {
	negZero, inf := float32(math.Copysign(0, -1)), float32(math.Inf(1))
	el := &datasets.EdgeList{N: 7, Directed: true,
		Src: []int32{0, 1, 0, 2, 3, 0, 1, 4},
		Dst: []int32{1, 2, 2, 3, 4, 4, 3, 5},
		W:   []float32{negZero, 1.5, 3e38, 1e-45, 3e38, 3e38, 7, 3e38}}
	g := vertexprog.NewGraph(apptest.Build(t, el, datasets.Options{}))
	// (0 + -0 is +0; 1.5 + 1e-45 rounds to 1.5; 3e38 + 3e38 overflows;
	// 6 is unreachable)
	want := []float32{0, 0, 1.5, 1.5, 3e38, inf, inf}
	for _, b := range vertexprog.Backends() {
		for _, delta := range []float64{0, 1, 1e30} {
			r, err := sssp.RunDelta(g, 0, delta, vertexprog.Options{Backend: b})
			if err != nil {
				t.Fatalf("%s, delta %v: %v", b, delta, err)
			}
			for v, d := range r.Dist {
				if math.Float32bits(d) != math.Float32bits(want[v]) {
					t.Errorf("%s, delta %v: dist[%d] = %v (%#x), want %v", b, delta, v, d, math.Float32bits(d), want[v])
				}
			}
		}
	}
	el.W[1] = -1e-45 // (NaN and infinite weights: datasets.Build rejects them)
	if _, err := sssp.Run(vertexprog.NewGraph(apptest.Build(t, el, datasets.Options{})), 0, vertexprog.Options{}); err == nil {
		t.Error("weight -1e-45 accepted")
	}
}

// TestBadInput: a negative weight and a source outside the graph are
// refused.
func TestBadInput(t *testing.T) {
	el := &datasets.EdgeList{N: 3, Src: []int32{0, 1}, Dst: []int32{1, 2}, W: []float32{2, -1}, Directed: true, IDBase: 1}
	g := vertexprog.NewGraph(apptest.Build(t, el, datasets.Options{}))
	if _, err := sssp.Run(g, 0, vertexprog.Options{}); err == nil {
		t.Error("negative weight accepted")
	}
	el.W[1] = 1
	g = vertexprog.NewGraph(apptest.Build(t, el, datasets.Options{}))
	for _, src := range []int32{-1, 3} {
		if _, err := sssp.Run(g, src, vertexprog.Options{}); err == nil {
			t.Errorf("sssp source %d accepted", src)
		}
	}
}
