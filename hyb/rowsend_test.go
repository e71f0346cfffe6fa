package hyb

import (
	"math/rand/v2"
	"testing"
)

// TestRowsEnd compares RowsEnd's binary search with a scan from the end,
// on row pointers with empty rows anywhere and trailing.
func TestRowsEnd(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	for trial := range 200 {
		n := 1 + rng.IntN(70)
		rp := make([]int64, n+1)
		for r := range n {
			d := int64(0)
			if rng.IntN(3) == 0 && r < n-trial%7 {
				d = 1 + rng.Int64N(4)
			}
			rp[r+1] = rp[r] + d
		}
		for range 20 {
			lo := rng.IntN(n + 1)
			hi := lo + rng.IntN(n-lo+1)
			want := hi
			for want > lo && rp[want-1] == rp[want] {
				want--
			}
			if got := RowsEnd(rp, lo, hi); got != want {
				t.Fatalf("row pointer %v: RowsEnd(%d, %d) = %d, want %d", rp, lo, hi, got, want)
			}
		}
	}
}
