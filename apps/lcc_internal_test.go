package apps

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// countIn's two ways (merge, and searching the short list in the long
// one) count what a set intersection would, repeats and skips included.
func TestCountIn(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	list := func(n, span int) []int32 {
		l := make([]int32, n)
		for i := range l {
			l[i] = int32(rng.IntN(span))
		}
		slices.Sort(l)
		return l
	}
	for range 2000 {
		span := 1 + rng.IntN(200)
		a, b := list(rng.IntN(40), span), list(rng.IntN(400), span)
		if rng.IntN(2) == 0 {
			a, b = b, a
		}
		skip1, skip2 := int32(rng.IntN(span)), int32(rng.IntN(span))
		want := int64(0)
		for _, x := range slices.Compact(slices.Clone(a)) {
			if x != skip1 && x != skip2 && slices.Contains(b, x) {
				want++
			}
		}
		if got := countIn(a, b, skip1, skip2); got != want {
			t.Fatalf("countIn(%v, %v, %d, %d) = %d, want %d", a, b, skip1, skip2, got, want)
		}
	}
}
