package par

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"
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
		DynamicW(b, func(w, lo, hi int) {
			if w < 0 || w >= Workers() {
				t.Errorf("worker %d of %d", w, Workers())
			}
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

// TestChunksCoverEachIndexOnce: every index once, whatever the chunk
// and worker counts, chunks of the size asked (the last shorter), and a
// single chunk on the caller's goroutine.
func TestChunksCoverEachIndexOnce(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, procs := range []int{1, 3} {
		runtime.GOMAXPROCS(procs)
		for _, c := range []struct{ n, chunk int }{{0, 5}, {1, 1}, {7, 0}, {100, 7}, {100, 100}, {10007, 64}} {
			seen := make([]int32, c.n)
			var workers [8]atomic.Int32
			Chunks(c.n, c.chunk, func(w, lo, hi int) {
				workers[w].Add(1)
				if hi-lo != max(c.chunk, 1) && hi != c.n {
					t.Errorf("n=%d chunk=%d: a chunk [%d, %d)", c.n, c.chunk, lo, hi)
				}
				for i := lo; i < hi; i++ {
					atomic.AddInt32(&seen[i], 1)
				}
			})
			for i, s := range seen {
				if s != 1 {
					t.Fatalf("procs=%d n=%d chunk=%d: index %d visited %d times", procs, c.n, c.chunk, i, s)
				}
			}
			for w := procs; w < len(workers); w++ {
				if workers[w].Load() != 0 {
					t.Errorf("procs=%d: worker %d ran", procs, w)
				}
			}
		}
	}
}

// TestEachRunsEveryWorkerOnce: Each(p) runs fn once for each w below
// min(p, Workers()), none above, at several worker counts.
func TestEachRunsEveryWorkerOnce(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, procs := range []int{1, 3, 4} {
		runtime.GOMAXPROCS(procs)
		for _, p := range []int{-1, 0, 1, 2, 4, 9} {
			var ran [16]atomic.Int32
			for rep := 0; rep < 50; rep++ {
				Each(p, func(w int) { ran[w].Add(1) })
			}
			want := max(min(p, procs), 1)
			for w := range ran {
				if got, exp := ran[w].Load(), int32(0); w < want && got != 50 || w >= want && got != exp {
					t.Fatalf("procs=%d p=%d: worker %d ran %d times in 50 calls", procs, p, w, got)
				}
			}
		}
	}
}

// TestPrefixSum: the running sums equal a serial loop's, a[0] kept, on
// sizes below and above the parallel threshold and at several worker
// counts (more workers than cores too).
func TestPrefixSum(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	rng := rand.New(rand.NewPCG(3, 4))
	for _, procs := range []int{1, 2, 7} {
		runtime.GOMAXPROCS(procs)
		for _, n := range []int{0, 1, 5, 1<<16 - 1, 1 << 16, 1<<16 + 3, 300_001} {
			a := make([]int64, n+1)
			for i := range a {
				a[i] = rng.Int64N(1000) - 100
			}
			want := slices.Clone(a)
			for i := 1; i <= n; i++ {
				want[i] += want[i-1]
			}
			PrefixSum(a)
			if !slices.Equal(a, want) {
				t.Fatalf("procs=%d n=%d: sums differ", procs, n)
			}
		}
	}
}

// TestRegionsBackToBack: regions in a row (the pool's helpers spinning
// between them), regions after the helpers have gone, regions inside a
// region and regions from several goroutines at once each visit every
// index once; the helpers exit once regions stop.
func TestRegionsBackToBack(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	base := runtime.NumGoroutine()
	for _, procs := range []int{2, 4} {
		runtime.GOMAXPROCS(procs)
		check := func(n, chunk int) {
			seen := make([]int32, n)
			Chunks(n, chunk, func(_, lo, hi int) {
				for i := lo; i < hi; i++ {
					atomic.AddInt32(&seen[i], 1)
				}
			})
			for i, s := range seen {
				if s != 1 {
					t.Fatalf("procs=%d n=%d: index %d visited %d times", procs, n, i, s)
				}
			}
		}
		for r := range 2000 {
			check(1+r%300, 8)
			if r%500 == 0 {
				time.Sleep(2 * spinFor) // (the helpers leave)
			}
		}
		// Blocks' static blocks: each worker's block once, whoever runs it.
		for range 200 {
			var blocks [8]atomic.Int32
			Blocks(1<<13, func(w, _, _ int) { blocks[w].Add(1) })
			for w := range procs {
				if blocks[w].Load() != 1 {
					t.Fatalf("procs=%d: block %d ran %d times", procs, w, blocks[w].Load())
				}
			}
		}
		// A region inside a region, and several callers at once.
		var wg sync.WaitGroup
		for range 3 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range 100 {
					var total atomic.Int64
					Chunks(64, 4, func(_, lo, hi int) {
						Chunks(100, 7, func(_, lo2, hi2 int) { total.Add(int64((hi - lo) * (hi2 - lo2))) })
					})
					if total.Load() != 64*100 {
						t.Errorf("procs=%d: nested regions covered %d of %d", procs, total.Load(), 64*100)
						return
					}
				}
			}()
		}
		wg.Wait()
	}
	deadline := time.Now().Add(2 * time.Second)
	for runtime.NumGoroutine() > base {
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines after the regions, %d before", runtime.NumGoroutine(), base)
		}
		time.Sleep(time.Millisecond)
	}
}

// BenchmarkRegion: a region of two workers' small shares (a few µs of
// a superstep's work on a grid), back to back, on the pool and on fresh
// goroutines.
func BenchmarkRegion(b *testing.B) {
	work := func(n int) int {
		s := 0
		for i := range n {
			s += i * i
		}
		return s
	}
	var sink atomic.Int64
	for _, size := range []int{0, 1000, 10000} {
		fn := func(w int) { sink.Add(int64(work(size))) }
		b.Run(fmt.Sprintf("pool/%d", size), func(b *testing.B) {
			for b.Loop() {
				run(2, fn)
			}
		})
		b.Run(fmt.Sprintf("spawn/%d", size), func(b *testing.B) {
			for b.Loop() {
				spawn(2, fn)
			}
		})
	}
}
