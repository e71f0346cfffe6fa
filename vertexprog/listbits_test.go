package vertexprog

import (
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
)

// TestListBits: listBits sets exactly the bits of its lists' rows in its
// words and leaves the others, on one goroutine and on several (the
// filed shares), for lists of every size; joinLists concatenates them
// in order and empties them.
func TestListBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, workers := range []int{1, 2, 3, 7, 16} {
		old := runtime.GOMAXPROCS(workers)
		for _, c := range []struct{ rows, words, wlo, whi int }{
			{0, 10, 0, 10}, {100, 10, 2, 9}, {20000, 1000, 0, 1000},
			{200000, 70000, 0, 70000}, {300000, 50000, 1000, 33333}, {1 << 17, 5, 1, 4},
		} {
			lists := make([][]int32, workers)
			var all []int32
			for range c.rows {
				v := int32(c.wlo*32 + rng.IntN((c.whi-c.wlo)*32))
				w := rng.IntN(workers)
				lists[w] = append(lists[w], v)
			}
			for _, l := range lists {
				all = append(all, l...)
			}
			ws := make([]uint32, c.words)
			for i := range ws {
				ws[i] = rng.Uint32() // (what was there: kept outside [wlo, whi), cleared in)
			}
			want := slices.Clone(ws)
			clear(want[c.wlo:c.whi])
			for _, v := range all {
				want[v>>5] |= 1 << (uint32(v) & 31)
			}
			var files [][]int32
			files = listBits(ws, c.wlo, c.whi, lists, files)
			if !slices.Equal(ws, want) {
				t.Errorf("%d workers, %d rows in words [%d, %d): bits differ from the rows'", workers, c.rows, c.wlo, c.whi)
			}
			if len(files) < len(lists) && c.rows >= listBitsRows && workers >= listBitsWorkers {
				t.Errorf("%d workers: %d files for %d lists", workers, len(files), len(lists))
			}
			out := joinLists([]int32{-1}, lists)
			if !slices.Equal(out, append([]int32{-1}, all...)) {
				t.Errorf("%d workers, %d rows: joined lists differ from their concatenation", workers, c.rows)
			}
			for w, l := range lists {
				if len(l) != 0 {
					t.Errorf("%d workers: list %d holds %d rows after the join", workers, w, len(l))
				}
			}
		}
		runtime.GOMAXPROCS(old)
	}
}
