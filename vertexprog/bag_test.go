package vertexprog

import (
	"math"
	"slices"
	"testing"
)

// A Bag holds exactly the multiset it was built from: distinct values in
// increasing order, positive counts, and the size; NaNs are one value.
func FuzzBag(f *testing.F) {
	f.Add([]byte{3, 1, 3, 0, 255, 1})
	f.Add([]byte{})
	f.Add([]byte{7, 7, 7})
	f.Fuzz(func(t *testing.T, data []byte) {
		var b bagScratch[float64]
		for round := 0; round < 2; round++ { // (the second reuses b's scratch)
			e := make([]float64, len(data))
			want := map[float64]int{}
			nans := 0
			for i, c := range data {
				switch {
				case c == 255:
					e[i] = math.NaN()
					nans++
				default:
					e[i] = float64(int(c)%17) - float64(round)
					want[e[i]]++
				}
			}
			bag := b.bag(slices.Clone(e))
			if bag.Size != len(e) || len(bag.Values) != len(bag.Counts) {
				t.Fatalf("%v: size %d, %d values, %d counts", e, bag.Size, len(bag.Values), len(bag.Counts))
			}
			distinct := len(want)
			if nans > 0 {
				distinct++
				if !math.IsNaN(bag.Values[0]) || bag.Counts[0] != nans {
					t.Fatalf("%v: NaNs not first and counted once: %v %v", e, bag.Values, bag.Counts)
				}
			}
			if len(bag.Values) != distinct {
				t.Fatalf("%v: %d distinct values, want %d", e, len(bag.Values), distinct)
			}
			for i, x := range bag.Values {
				if math.IsNaN(x) {
					continue
				}
				if bag.Counts[i] != want[x] || (i > 0 && !math.IsNaN(bag.Values[i-1]) && bag.Values[i-1] >= x) {
					t.Fatalf("%v: value %v count %d (want %d), values %v", e, x, bag.Counts[i], want[x], bag.Values)
				}
			}
		}
	})
}
