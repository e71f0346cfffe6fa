package sssp

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/hpgraph/hpgraph/apps"
	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/vertexprog"
)

// TestCheckWeights: SSSP's weight check reports the first bad weight
// (negative, -0 excepted, or NaN) in vertex order, which a serial walk of
// the rows finds, wherever the parallel blocks of its pass cut the
// weights; -0, 0 and +Inf pass.
func TestCheckWeights(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 24))
	n := 3000
	rp := make([]int64, n+1)
	for v := range n {
		rp[v+1] = rp[v] + int64(rng.IntN(9))
	}
	col := make([]int32, rp[n])
	for i := range col {
		col[i] = int32(rng.IntN(n))
	}
	nan := float32(math.NaN())
	for trial := range 40 {
		w := make([]float32, len(col))
		for i := range w {
			w[i] = []float32{0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), 3.5}[rng.IntN(4)]
		}
		for range trial % 4 { // none, or up to three bad weights anywhere
			w[rng.IntN(len(w))] = []float32{-1, -1e-45, nan, float32(math.Inf(-1))}[rng.IntN(4)]
		}
		g := vertexprog.NewGraph(&datasets.Graph{Name: "w", N: n, RowPtr: rp, Col: col, W: w, Directed: true})
		want := ""
	walk:
		for u := range n {
			for i := rp[u]; i < rp[u+1]; i++ {
				if w[i] < 0 || w[i] != w[i] {
					want = fmt.Sprintf("edge %d -> %d has weight %v;", u, col[i], w[i])
					break walk
				}
			}
		}
		err := checkWeights(g)
		switch {
		case want == "" && err != nil:
			t.Fatalf("trial %d: %v, want no error", trial, err)
		case want != "" && (err == nil || !strings.Contains(err.Error(), want) || !errors.Is(err, apps.ErrInvalidInput)):
			t.Fatalf("trial %d: %v, want %q", trial, err, want)
		}
	}
}

// SSSP's default delta is the graph's: computed once (a pass over every
// weight a query cost a batch of weighted kron21 queries ~80 ms each),
// and equal to DeltaWeights times the mean weight.
func TestDefaultDeltaOncePerGraph(t *testing.T) {
	d, err := datasets.Build(&datasets.EdgeList{N: 4, Src: []int32{0, 1, 2}, Dst: []int32{1, 2, 3}, W: []float32{1, 2, 6}}, datasets.Options{})
	if err != nil {
		t.Fatal(err)
	}
	g := vertexprog.NewGraph(d)
	for range 3 {
		if _, err := App.Run(g, apps.Request{Params: App.DefaultParams()}, vertexprog.Options{Backend: "cpu"}); err != nil {
			t.Fatal(err)
		}
	}
	kept := g.Memo(defaultDeltaKey{}, func() any { t.Fatal("the runs did not keep the graph's delta"); return 0.0 })
	if want := DeltaWeights * 3.0; kept != want || DefaultDelta(g) != want {
		t.Fatalf("delta %v (DefaultDelta %v), want %v: %d times the mean weight 3", kept, DefaultDelta(g), want, DeltaWeights)
	}
}
