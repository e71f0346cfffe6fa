package apps_test

import (
	"math/rand/v2"
	"testing"

	"github.com/hpgraph/hpgraph/apps"
)

// TestLabelCounts compares LabelCounts with a plain count, on
// labels with a giant component, many small ones, labels that share a
// table slot (a multiple of 1024 apart), with and without a scratch.
func TestLabelCounts(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	s := &apps.Scratch{}
	for _, n := range []int{0, 1, 5000, 100000} {
		for _, giant := range []float64{0, 0.3, 0.9} {
			label := make([]int32, n)
			for v := range label {
				switch {
				case rng.Float64() < giant:
					label[v] = 0
				case rng.IntN(2) == 0:
					label[v] = int32(rng.IntN(4)) * 1024 % int32(n)
				default:
					label[v] = int32(rng.IntN(n))
				}
			}
			count := make(map[int32]int32)
			want := int32(0)
			for _, l := range label {
				count[l]++
				want = max(want, count[l])
			}
			for _, sc := range []*apps.Scratch{nil, s, s} {
				if got, groups := apps.LabelCounts(label, sc); got != want || groups != len(count) {
					t.Fatalf("n=%d giant=%v: largest %d of %d groups, want %d of %d", n, giant, got, groups, want, len(count))
				}
			}
		}
	}
}
