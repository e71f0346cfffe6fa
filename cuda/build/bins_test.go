package build

import (
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/hpgraph/hpgraph/internal/par"
)

// Models of the COO pull of kernels.cu (vp_coo_group and vp_pull_chunk
// over the bins of makePullBins), run on the CPU: they need no GPU and no
// build tag. Each row's entries are gathered by lanes striding over them
// in rounds; a group (or block) stops after the first round in which a
// lane's accumulator is done; partials are combined with Reduce.

// randomRows returns CooPtr for row lengths from empty to many chunks.
func randomRows(rng *rand.Rand, lim BinLimits) []int64 {
	nrows := 1 + rng.IntN(300)
	ptr := []int64{0}
	for r := 0; r < nrows; r++ {
		var l int
		switch rng.IntN(6) {
		case 0:
			l = 0
		case 1:
			l = 1 + rng.IntN(max(1, lim.Thread))
		case 2:
			l = rng.IntN(lim.Quad + 2)
		case 3:
			l = rng.IntN(lim.Warp + 2)
		case 4:
			l = lim.Warp + rng.IntN(5*lim.Chunk)
		default:
			l = rng.IntN(4)
		}
		ptr = append(ptr, ptr[len(ptr)-1]+int64(l))
	}
	return ptr
}

func TestPullBinsCoverEveryEntryOnce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 300; trial++ {
		lim := []BinLimits{DefaultBins(), {1, 4, 32, 8}, {0, 0, 0, 1}, {3, 3, 64, 5}}[trial%4]
		ptr := randomRows(rng, lim)
		b := makePullBins(ptr, lim)
		n := len(ptr) - 1
		seen := make([]int64, ptr[n]) // times each entry is covered
		cover := func(r int32, lo, hi int64) {
			if lo < ptr[r] || hi > ptr[r+1] || lo > hi {
				t.Fatalf("trial %d: range [%d,%d) outside row %d [%d,%d)", trial, lo, hi, r, ptr[r], ptr[r+1])
			}
			for i := lo; i < hi; i++ {
				seen[i]++
			}
		}
		if len(b.rows) != b.nWarp+b.nQuad+b.nThread {
			t.Fatalf("trial %d: %d rows for bins of %d+%d+%d", trial, len(b.rows), b.nWarp, b.nQuad, b.nThread)
		}
		for i, r := range b.rows {
			l := ptr[r+1] - ptr[r]
			var lo, hi int64
			switch {
			case i < b.nWarp:
				lo, hi = int64(lim.Quad)+1, int64(lim.Warp)
			case i < b.nWarp+b.nQuad:
				lo, hi = int64(lim.Thread)+1, int64(lim.Quad)
			default:
				lo, hi = 1, int64(lim.Thread)
			}
			if l < lo || l > hi {
				t.Fatalf("trial %d: row %d of length %d in the bin for %d..%d", trial, r, l, lo, hi)
			}
			cover(r, ptr[r], ptr[r+1])
		}
		if len(b.heavyFirst) != len(b.heavyRow)+1 {
			t.Fatalf("trial %d: heavyFirst has %d entries for %d heavy rows", trial, len(b.heavyFirst), len(b.heavyRow))
		}
		for c, h := range b.chunkHeavy {
			r := b.heavyRow[h]
			if int32(c) < b.heavyFirst[h] || int32(c) >= b.heavyFirst[h+1] {
				t.Fatalf("trial %d: chunk %d of heavy row %d outside its range", trial, c, h)
			}
			// As vp_pull_chunk computes its range.
			lo := ptr[r] + int64(int32(c)-b.heavyFirst[h])*int64(lim.Chunk)
			cover(r, lo, min(lo+int64(lim.Chunk), ptr[r+1]))
		}
		for i, s := range seen {
			if s != 1 {
				t.Fatalf("trial %d: entry %d covered %d times", trial, i, s)
			}
		}
		ch, w, q, th := b.blocks()
		if ch != len(b.chunkHeavy) || w*warpRowsPerBlock < b.nWarp || q*quadRowsPerBlock < b.nQuad || th*threadRowsPerBlock < b.nThread {
			t.Fatalf("trial %d: blocks %d %d %d %d too few", trial, ch, w, q, th)
		}
	}
}

// modelGroup is vp_coo_group (and, with g = 256, vp_pull_chunk) for one
// row: g lanes; in each round lane l takes the per entries l, l+g, ...,
// l+(per-1)g past the round's start and folds them in order with gather,
// stopping its folds at a done accumulator (vp_batch_gather); the group
// stops after the first round in which a lane is done; then a tree reduce.
func modelGroup[A any](g, per int, lo, hi int64, id A, gather func(A, int64) A, done func(A) bool, reduce func(A, A) A) A {
	acc := make([]A, g)
	for l := range acc {
		acc[l] = id
	}
	for base := lo; base < hi; base += int64(per * g) {
		stop := false
		for l := range acc {
			for q := 0; q < per; q++ {
				i := base + int64(l+q*g)
				if i >= hi {
					break
				}
				acc[l] = gather(acc[l], i)
				if done != nil && done(acc[l]) {
					stop = true
					break
				}
			}
		}
		if stop {
			break
		}
	}
	// __shfl_down_sync(v, o, G): every lane l with l+o < G takes lane
	// l+o's value, all at once.
	for o := g / 2; o > 0; o >>= 1 {
		next := slices.Clone(acc)
		for l := 0; l+o < g; l++ {
			next[l] = reduce(acc[l], acc[l+o])
		}
		acc = next
	}
	return acc[0]
}

// TestGroupReductionModel checks the lane schedule against a sequential
// scan: every entry once for a sum (a multiset, so any order passes), and
// the first active entry, as a sequential scan with early exit finds it,
// for BFS's parent (min with early exit).
func TestGroupReductionModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 2000; trial++ {
		g := []int{1, 4, 32, 256}[trial%4]
		per := []int{1, 4}[trial/4%2] // VP_UNROLL
		n := int64(rng.IntN(700))
		cols := make([]int32, n)
		c := int32(rng.IntN(5))
		for i := range cols {
			c += int32(1 + rng.IntN(3))
			cols[i] = c
		}
		active := make([]bool, n)
		for i := range active {
			active[i] = rng.IntN(1+trial%50) == 0
		}
		// Multiset: every entry exactly once.
		got := modelGroup(g, per, 0, n, []int64(nil), func(a []int64, i int64) []int64 { return append(slices.Clip(a), i) },
			nil, func(a, b []int64) []int64 { return append(slices.Clip(a), b...) })
		slices.Sort(got)
		for i, v := range got {
			if v != int64(i) {
				t.Fatalf("trial %d (G=%d, %d entries): entries %v", trial, g, n, got)
			}
		}
		if int64(len(got)) != n {
			t.Fatalf("trial %d: %d entries gathered of %d", trial, len(got), n)
		}
		// BFS: min over active columns, done once any is found.
		const none = int32(1<<31 - 1)
		want := none
		for i := range cols {
			if active[i] {
				want = cols[i]
				break
			}
		}
		par := modelGroup(g, per, 0, n, none, func(a int32, i int64) int32 {
			if active[i] && cols[i] < a {
				return cols[i]
			}
			return a
		}, func(a int32) bool { return a != none }, func(a, b int32) int32 { return min(a, b) })
		if par != want {
			t.Fatalf("trial %d (G=%d): parent %d, sequential scan %d", trial, g, par, want)
		}
	}
}

func TestPushChunks(t *testing.T) {
	deg := []int32{0, PushSmall, PushChunk, PushChunk + 1, 3*PushChunk + 7}
	if c := pushChunks(deg); c != 2+4 {
		t.Fatalf("pushChunks = %d, want 6", c)
	}
}

// TestPullBinsManyRows checks makePullBins on enough rows to split over
// every core against a one-pass sequential binning: the same rows in each
// bin, in increasing order, and the same heavy rows and chunks.
func TestPullBinsManyRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, lim := range []BinLimits{DefaultBins(), {1, 4, 32, 8}} {
		ptr := []int64{0}
		for range 300_000 {
			l := rng.IntN(lim.Warp + 2)
			if rng.IntN(1000) == 0 {
				l = lim.Warp + rng.IntN(7*lim.Chunk)
			}
			ptr = append(ptr, ptr[len(ptr)-1]+int64(l))
		}
		var warp, quad, thread, heavy, chunkHeavy []int32
		heavyFirst := []int32{0}
		for r := range len(ptr) - 1 {
			switch l := ptr[r+1] - ptr[r]; {
			case l == 0:
			case l <= int64(lim.Thread):
				thread = append(thread, int32(r))
			case l <= int64(lim.Quad):
				quad = append(quad, int32(r))
			case l <= int64(lim.Warp):
				warp = append(warp, int32(r))
			default:
				heavy = append(heavy, int32(r))
				for range (l + int64(lim.Chunk) - 1) / int64(lim.Chunk) {
					chunkHeavy = append(chunkHeavy, int32(len(heavy)-1))
				}
				heavyFirst = append(heavyFirst, int32(len(chunkHeavy)))
			}
		}
		b := makePullBins(ptr, lim)
		rows := slices.Concat(warp, quad, thread)
		if b.nWarp != len(warp) || b.nQuad != len(quad) || b.nThread != len(thread) || !slices.Equal(b.rows, rows) {
			t.Fatalf("%v: bins of %d+%d+%d rows, want %d+%d+%d, or rows out of place", lim, b.nWarp, b.nQuad, b.nThread, len(warp), len(quad), len(thread))
		}
		if !slices.Equal(b.heavyRow, heavy) || !slices.Equal(b.chunkHeavy, chunkHeavy) || !slices.Equal(b.heavyFirst, heavyFirst) {
			t.Fatalf("%v: heavy rows or chunks differ from the sequential binning", lim)
		}
	}
}

// makePullBins bins the rows of a matrix with COO row offsets cooPtr on
// the host, on every core: the reference the device's bins (deviceBins,
// hybbuild.cu) are tested against, and the bins the CPU-side tests of
// vp_pull_coo's blocks use. Each block of rows is counted per bin, then
// written at its place in one array; heavy rows are few and listed in
// order after.
func makePullBins(cooPtr []int64, lim BinLimits) *Bins {
	b := &Bins{lim: lim}
	n := len(cooPtr) - 1
	const (
		bWarp = iota
		bQuad
		bThread
		bHeavy
		nBins
	)
	bin := func(r int) int {
		switch l := cooPtr[r+1] - cooPtr[r]; {
		case l == 0:
			return -1
		case l <= int64(lim.Thread):
			return bThread
		case l <= int64(lim.Quad):
			return bQuad
		case l <= int64(lim.Warp):
			return bWarp
		}
		return bHeavy
	}
	parts := max(1, min(par.Workers()*4, n/4096))
	counts := make([][nBins]int, parts)
	span := func(p int) (int, int) { return p * n / parts, (p + 1) * n / parts }
	forParts := func(f func(p int)) {
		var wg sync.WaitGroup
		for p := range parts {
			wg.Add(1)
			go func() { defer wg.Done(); f(p) }()
		}
		wg.Wait()
	}
	forParts(func(p int) {
		lo, hi := span(p)
		for r := lo; r < hi; r++ {
			if k := bin(r); k >= 0 {
				counts[p][k]++
			}
		}
	})
	// Where each part's rows of each bin start: warp rows, then quad,
	// then thread rows.
	var total [nBins]int
	for p := range counts {
		for k := range nBins {
			total[k] += counts[p][k]
		}
	}
	b.nWarp, b.nQuad, b.nThread = total[bWarp], total[bQuad], total[bThread]
	next := [nBins]int{bWarp: 0, bQuad: b.nWarp, bThread: b.nWarp + b.nQuad}
	at := make([][nBins]int, parts)
	for p := range counts {
		at[p] = next
		for k := range nBins {
			next[k] += counts[p][k]
		}
	}
	b.rows = make([]int32, b.nWarp+b.nQuad+b.nThread)
	heavy := make([][]int32, parts)
	forParts(func(p int) {
		lo, hi := span(p)
		for r := lo; r < hi; r++ {
			switch k := bin(r); k {
			case -1:
			case bHeavy:
				heavy[p] = append(heavy[p], int32(r))
			default:
				b.rows[at[p][k]] = int32(r)
				at[p][k]++
			}
		}
	})
	for _, rs := range heavy {
		b.heavyRow = append(b.heavyRow, rs...)
	}
	b.heavyFirst, b.chunkHeavy = heavyChunks(cooPtr, b.heavyRow, lim.Chunk)
	return b
}

// pushChunks is how many (vertex, chunk) entries a frontier holding every
// vertex of degrees deg would need: the capacity of the chunk queues.
func pushChunks(deg []int32) int64 {
	var c int64
	for _, d := range deg {
		if d > PushChunk {
			c += (int64(d) + PushChunk - 1) / PushChunk
		}
	}
	return c
}
