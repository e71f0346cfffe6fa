package par

import (
	"sync/atomic"
	"testing"
)

func TestSplitBalancesWeight(t *testing.T) {
	// Row i weighs i: prefix(i) = i(i-1)/2.
	prefix := func(i int) int64 { return int64(i) * int64(i-1) / 2 }
	n, p := 1000, 4
	b := Split(n, p, prefix)
	if b[0] != 0 || b[p] != n {
		t.Fatalf("bounds %v do not span [0, %d]", b, n)
	}
	total := prefix(n)
	for k := 0; k < p; k++ {
		w := prefix(b[k+1]) - prefix(b[k])
		if w > total/int64(p)+int64(n) {
			t.Errorf("part %d weighs %d of %d", k, w, total)
		}
	}
}

func TestBlocksCoverEachIndexOnce(t *testing.T) {
	for _, n := range []int{0, 1, 4095, 4096, 100003} {
		seen := make([]int32, n)
		Blocks(n, func(_, lo, hi int) {
			for i := lo; i < hi; i++ {
				atomic.AddInt32(&seen[i], 1)
			}
		})
		for i, c := range seen {
			if c != 1 {
				t.Fatalf("n=%d: index %d visited %d times", n, i, c)
			}
		}
	}
}

func TestDynamicCoversEachIndexOnce(t *testing.T) {
	for _, parts := range []int{0, 1, 3, 64} {
		n := 10007
		b := Split(n, max(parts, 1), func(i int) int64 { return int64(i) })
		if parts == 0 {
			b = []int{0}
			n = 0
		}
		seen := make([]int32, n)
		Dynamic(b, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				atomic.AddInt32(&seen[i], 1)
			}
		})
		for i, c := range seen {
			if c != 1 {
				t.Fatalf("%d parts: index %d visited %d times", parts, i, c)
			}
		}
	}
}
