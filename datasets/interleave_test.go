package datasets

import (
	"slices"
	"testing"
)

// TestInterleaveParts checks the renumbering against its definition:
// range p of the result holds the ranks r with r mod parts = p, in rank
// order, the ranges one after another; and InterleaveOrder inverts it.
func TestInterleaveParts(t *testing.T) {
	for _, n := range []int{1, 2, 5, 31, 32, 33, 100, 1001} {
		for _, parts := range []int{1, 2, 3, 4, 7, 40} {
			ids := make([]int32, n)
			for v := range ids {
				ids[v] = int32((v*7919 + 3) % n) // (a permutation for these n: 7919 is prime)
			}
			ranks := slices.Clone(ids)
			InterleaveParts(ids, parts)
			var want []int32 // new id by rank
			for p := range max(parts, 1) {
				for r := p; r < n; r += max(parts, 1) {
					want = append(want, int32(r))
				}
			}
			byRank := make([]int32, n) // the new id of each rank, by the definition
			for newID, r := range want {
				byRank[r] = int32(newID)
			}
			for v := range ids {
				if ids[v] != byRank[ranks[v]] {
					t.Fatalf("n %d, parts %d: vertex %d of rank %d got %d, want %d", n, parts, v, ranks[v], ids[v], byRank[ranks[v]])
				}
			}
			order := make([]int32, n) // old id of each rank
			for v, r := range ranks {
				order[r] = int32(v)
			}
			io := InterleaveOrder(order, parts)
			for v := range ids {
				if io[ids[v]] != int32(v) {
					t.Fatalf("n %d, parts %d: InterleaveOrder[%d] = %d, want %d", n, parts, ids[v], io[ids[v]], v)
				}
			}
		}
	}
}
