package vertexprog

import (
	"math/rand/v2"
	"testing"
)

// TestArcSpans: each part's span of rows with arcs ends after its last
// row that has any, for row offsets with empty rows at the parts' ends,
// inside them and nowhere, against a scan of every row.
func TestArcSpans(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	for trial := range 200 {
		n := 1 + rng.IntN(300)
		rowPtr := make([]int64, n+1)
		empty := rng.Float64() // (the chance of an empty row)
		for v := range n {
			k := int64(0)
			if rng.Float64() >= empty {
				k = 1 + rng.Int64N(5)
			}
			rowPtr[v+1] = rowPtr[v] + k
		}
		parts := 1 + rng.IntN(min(n, 8))
		pt, err := SplitRows(rowPtr, parts)
		if err != nil {
			t.Fatal(err)
		}
		spans := arcSpans(rowPtr, pt)
		if len(spans) != parts {
			t.Fatalf("trial %d: %d spans for %d parts", trial, len(spans), parts)
		}
		for q, s := range spans {
			lo, hi := pt.Range(q)
			end := lo // (after the last row with arcs, by a scan)
			for v := lo; v < hi; v++ {
				if rowPtr[v+1] > rowPtr[v] {
					end = v + 1
				}
			}
			if s.Lo != lo || s.Hi != end {
				t.Fatalf("trial %d, part %d of [%d, %d): span [%d, %d), want [%d, %d)", trial, q, lo, hi, s.Lo, s.Hi, lo, end)
			}
		}
	}
}
