package cuda

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/hpgraph/hpgraph/internal/par"
)

// Row bins of the COO pull (vp_pull_coo in kernels.cu). Every row with a
// COO part goes to exactly one bin by its COO length L:
//
//	L <= Thread:         one lane per row (256 rows a block)
//	L <= Quad:           4 lanes per row (64 rows a block)
//	L <= Warp:           a warp per row (8 rows a block)
//	longer ("heavy"):    cut into chunks of Chunk entries, a block each;
//	                     the block that finishes a row's last chunk folds
//	                     the chunks' partials, in order, into y.
//
// The bins are built on the host once per matrix (they are cached with the
// matrix's device copy).

// binLimits are the bin thresholds.
type binLimits struct {
	Thread, Quad, Warp, Chunk int
}

// defaultBins: measured on an H200 (docs/perf.md, "GPU performance
// (issue 5)"); HPGRAPH_CUDA_BINS="thread,quad,warp,chunk" overrides them.
var defaultBins = binLimits{Thread: 4, Quad: 32, Warp: 1024, Chunk: 4096}

func parseBins(s string) (binLimits, error) {
	f := strings.Split(s, ",")
	if len(f) != 4 {
		return binLimits{}, fmt.Errorf("want 4 numbers thread,quad,warp,chunk, have %q", s)
	}
	var v [4]int
	for i, x := range f {
		n, err := strconv.Atoi(strings.TrimSpace(x))
		if err != nil || n < 0 || n > 1<<24 {
			return binLimits{}, fmt.Errorf("%q: bad number %q", s, x)
		}
		v[i] = n
	}
	b := binLimits{v[0], v[1], v[2], v[3]}
	if b.Quad < b.Thread || b.Warp < b.Quad || b.Chunk < 1 {
		return binLimits{}, fmt.Errorf("%q: need thread <= quad <= warp and chunk >= 1", s)
	}
	return b, nil
}

// binsFromEnv is defaultBins, or HPGRAPH_CUDA_BINS when it parses.
func binsFromEnv() binLimits {
	if s := os.Getenv("HPGRAPH_CUDA_BINS"); s != "" {
		if b, err := parseBins(s); err == nil {
			return b
		}
	}
	return defaultBins
}

// pullBins is the bins of one matrix, as vp_pull_coo reads them.
type pullBins struct {
	lim binLimits
	// rows lists the warp rows, then the quad rows, then the thread rows,
	// each in increasing order.
	rows                  []int32
	nWarp, nQuad, nThread int
	// Heavy rows: heavyRow[h] is the row, its chunks are
	// heavyFirst[h] .. heavyFirst[h+1]-1, and chunkHeavy[c] = h.
	heavyRow, heavyFirst, chunkHeavy []int32
}

// Rows per block in each bin (VP_BLOCK = 256 threads).
const (
	warpRowsPerBlock   = 256 / 32
	quadRowsPerBlock   = 256 / 4
	threadRowsPerBlock = 256
	// A program with vp_wants or vp_done tests a block of warp or quad
	// rows before reducing the rows that take input, and gives each heavy
	// chunk a warp (VP_LISTED).
	listedRowsPerBlock   = 256
	listedChunksPerBlock = 256 / 32
)

func (b *pullBins) blocks() (chunks, w, q, t int) {
	return len(b.chunkHeavy), ceilDiv(b.nWarp, warpRowsPerBlock), ceilDiv(b.nQuad, quadRowsPerBlock), ceilDiv(b.nThread, threadRowsPerBlock)
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }

// makePullBins bins the rows of a matrix with COO row offsets cooPtr: on
// every core, each block of rows counted per bin, then written at its
// place in one array (appending to growing slices on one core took 33 ms
// of a kron21 BFS's first PREPROCESS). Heavy rows are few and listed in
// order after.
func makePullBins(cooPtr []int64, lim binLimits) *pullBins {
	b := &pullBins{lim: lim}
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
	b.heavyFirst = []int32{0}
	for _, rs := range heavy {
		for _, r := range rs {
			h := int32(len(b.heavyRow))
			b.heavyRow = append(b.heavyRow, r)
			l := cooPtr[r+1] - cooPtr[r]
			for range (l + int64(lim.Chunk) - 1) / int64(lim.Chunk) {
				b.chunkHeavy = append(b.chunkHeavy, h)
			}
			b.heavyFirst = append(b.heavyFirst, int32(len(b.chunkHeavy)))
		}
	}
	return b
}

// Push work classes (vp_push): a frontier vertex with at most pushSmall
// edges is expanded by one thread, one with at most pushChunk by a warp,
// longer rows in chunks of pushChunk edges by a block each.
const (
	pushSmall = 8
	pushChunk = 1024
)

// pushChunks is how many (vertex, chunk) entries a frontier holding every
// vertex of degrees deg would need: the capacity of the chunk queues.
func pushChunks(deg []int32) int64 {
	var c int64
	for _, d := range deg {
		if d > pushChunk {
			c += (int64(d) + pushChunk - 1) / pushChunk
		}
	}
	return c
}
