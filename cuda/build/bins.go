package build

// Row bins of the COO pull (vp_pull_coo in run/kernels_pull.cu). Every row with a
// COO part goes to exactly one bin by its COO length L:
//
//	L <= Thread:         one lane per row (256 rows a block)
//	L <= Quad:           4 lanes per row (64 rows a block)
//	L <= Warp:           a warp per row (8 rows a block)
//	longer ("heavy"):    cut into chunks of Chunk entries, a block each;
//	                     the block that finishes a row's last chunk folds
//	                     the chunks' partials, in order, into y.
//
// The bins are built on the device once per matrix (deviceBins,
// hybbuild.cu; they are cached with the matrix's device copy).

// BinLimits are the bin thresholds.
type BinLimits struct {
	Thread, Quad, Warp, Chunk int
}

// DefaultBins are the bin thresholds: 4,32,1024,4096 against
// 2,16,512,2048 on kron21 relabelled, PageRank iteration 0.553 → 0.496
// ms, BFS 0.355 → 0.326, SSSP 2.08 → 1.83, TC 20.4 → 19.6
// (docs/perf/gpu-kernels.md#pull-coo-by-row-bins and
// docs/perf/gpu-kernels.md#bins-re-tuned-and-evict-first-matrix-loads).
// Not to be changed at run time.
func DefaultBins() BinLimits { return BinLimits{Thread: 4, Quad: 32, Warp: 1024, Chunk: 4096} }

// Bins is the bins of one matrix, as vp_pull_coo reads them.
type Bins struct {
	lim BinLimits
	// rows lists the warp rows, then the quad rows, then the thread rows,
	// each in increasing order (built on the host only by the tests'
	// makePullBins; deviceBins leaves it on the device).
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

func (b *Bins) blocks() (chunks, w, q, t int) {
	return len(b.chunkHeavy), ceilDiv(b.nWarp, warpRowsPerBlock), ceilDiv(b.nQuad, quadRowsPerBlock), ceilDiv(b.nThread, threadRowsPerBlock)
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }

// heavyChunks cuts the heavy rows (in order) into chunks of chunk COO
// entries: heavy row h's chunks are heavyFirst[h] .. heavyFirst[h+1]-1,
// and chunkHeavy[c] = h.
func heavyChunks(cooPtr []int64, heavyRow []int32, chunk int) (heavyFirst, chunkHeavy []int32) {
	heavyFirst = make([]int32, 1, len(heavyRow)+1)
	for h, r := range heavyRow {
		l := cooPtr[r+1] - cooPtr[r]
		for range (l + int64(chunk) - 1) / int64(chunk) {
			chunkHeavy = append(chunkHeavy, int32(h))
		}
		heavyFirst = append(heavyFirst, int32(len(chunkHeavy)))
	}
	return heavyFirst, chunkHeavy
}

// Push work classes (vp_push): a frontier vertex with at most PushSmall
// edges is expanded by one thread, one with at most PushChunk by a warp,
// longer rows in chunks of PushChunk edges by a block each.
const (
	PushSmall = 8
	PushChunk = 1024
)

// pushChunkBound bounds the chunk queues' capacity (what hb_degrees
// counts, pushChunks in bins_test.go) before the degrees are known: a row
// of d > PushChunk edges makes ceil(d/PushChunk) < 2d/PushChunk chunks.
func pushChunkBound(nnz int64) int64 { return 2*nnz/PushChunk + 1 }

// Chunks is the heavy rows' chunks (a partial each).
func (b *Bins) Chunks() int { return len(b.chunkHeavy) }

// HeavyRows is the rows cut into chunks (a counter each).
func (b *Bins) HeavyRows() int { return len(b.heavyRow) }
