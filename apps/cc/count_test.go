package cc

import (
	"math/rand/v2"
	"testing"
)

// TestCounts checks roots and largestComponent against counts made with
// a map, on labellings where one component holds half of the vertices
// or more (the sampled label's count) and where none does (LabelCounts).
func TestCounts(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	// shares: the fraction of the vertices in each of a few components,
	// the rest isolated.
	for _, shares := range [][]float64{{0.9}, {0.5}, {0.6, 0.3}, {0.3, 0.25, 0.2}, {0.49, 0.49}, {0.01}, {}} {
		for _, n := range []int{1, 7, 64, 1000, 100_003} {
			label := make([]int32, n)
			for v := range label {
				label[v] = int32(v)
			}
			// a component's vertices are random; its label its smallest
			for _, sh := range shares {
				k := int(sh * float64(n))
				vs := rng.Perm(n)[:k]
				if k == 0 {
					continue
				}
				low := int32(n)
				for _, v := range vs {
					low = min(low, label[v])
				}
				for _, v := range vs {
					label[v] = low
				}
			}
			// (labels of a vertex moved twice: make every label its
			// group's smallest vertex again)
			count := map[int32]int{}
			smallest := map[int32]int32{}
			for v, l := range label {
				if s, ok := smallest[l]; !ok || int32(v) < s {
					smallest[l] = int32(v)
				}
			}
			for v, l := range label {
				label[v] = smallest[l]
				count[label[v]]++
			}
			want := 0
			for _, c := range count {
				want = max(want, c)
			}
			if got := roots(label); got != len(count) {
				t.Errorf("shares %v, n %d: %d roots, want %d", shares, n, got, len(count))
			}
			if got := largestComponent(label, nil); int(got) != want {
				t.Errorf("shares %v, n %d: largest %d, want %d", shares, n, got, want)
			}
		}
	}
	if got := largestComponent(nil, nil); got != 0 {
		t.Errorf("no vertices: largest %d", got)
	}
}
