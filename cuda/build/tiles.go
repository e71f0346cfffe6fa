package build

import "github.com/hpgraph/hpgraph/hyb"

// Column-sorted tiles: the pull of programs that gather from every
// neighbour each superstep (Spec.GatherAll: PageRank), vp_pull_tiles in
// run/kernels_tiles.cu.
//
// The rows are cut into segments of 1<<rowBits consecutive rows, few
// enough that one block keeps an accumulator per row in shared memory.
// A segment's entries (ELL and COO alike) are sorted by column and cut
// into tiles of at most maxArcs entries; a block takes a tile. Because
// the entries go by column, the block reads X in increasing order:
// neighbouring lanes share sectors, and a segment reads each sector of X
// at most once per tile, where a row-by-row pull reads a random sector
// per entry (docs/perf/pagerank-tiles.md#column-sorted-tiles). A segment
// cut into several tiles folds its tiles' accumulators into y with
// atomics (y starts each superstep as the identity on those rows: APPLY
// resets them); a segment of one tile writes its rows' y directly.
//
// No atomics in shared memory: each of the block's warps owns some of the
// segment's accumulators (slots) and folds only its own, with plain loads
// and stores. A tile holds one stream per warp, in groups of 32 entries
// (one per lane) that name 32 different slots, lane i preferably one of
// slot i mod 32. For 8-byte accumulators a group's slots fall in 32
// different banks as far as the stream allows (groups); for 4-byte ones
// a group is taken from the stream's next 64 entries, at most two slots
// of a residue, so its X gathers stay near in columns at the price of a
// two-way bank conflict (groupsNear;
// docs/perf/pagerank-tiles.md#groups-near-in-columns-for-4-byte-accumulators).
// A row with more than a quarter of a lane's fair share of the segment is
// split over several slots (virtual slots, folded into the row at the
// end), and the slots go to the warps in chunks of 32 (every residue
// once), each to the warp whose busiest lane it raises least, so the
// streams come out nearly equal. A group that cannot be filled is padded
// with entries of the dummy slot (kron21: 1.5% of the entries).
//
// An entry is one 32-bit word, (column - base) << slotBits | slot, where
// base is its group's first column and slotBits = rowBits + 1: slots
// 0 .. R-1 are the segment's rows (R = 1<<rowBits), R .. R+V-1 its
// virtual slots (V <= vmax), R+vmax the dummy.

// TileRowBitsFor is log2 of a segment's rows for an accumulator of asize
// bytes: 4,096 rows of 4-byte slots where X is in the L2 (kron21's
// float32 PageRank, one iteration 0.170 -> 0.167 ms and ten 1.54 -> 1.50
// ms against 8,192;
// docs/perf/pagerank-tiles.md#each-warps-stream-through-registers), 8,192
// where it is not (beyondL2, the column order's case: each segment's
// columns twice as dense, so fewer of X's sectors a segment; kron27 12.71
// -> 11.47 ms, 16,384 35.0, 2,048 14.3;
// docs/perf/pagerank-tiles.md#segments-of-8192-rows-where-x-is-beyond-the-l2),
// 8,192 of 8-byte ones (4,096 no faster). More rows leave the
// multiprocessor's memory too little L1 (16,384 rows of 4-byte slots:
// docs/perf/pagerank-tiles.md#float32-pagerank).
func TileRowBitsFor(asize int, beyondL2 bool) int {
	if asize <= 4 && !beyondL2 {
		return 12
	}
	return 13
}

// TileShared is vp_pull_tiles' shared memory: the slots, then the rows
// of the virtual slots and the dummy.
func TileShared(rowBits, asize int) int {
	v := tileVMax(rowBits)
	return (1<<rowBits+v+1)*asize + 4*(v+1)
}

// tileArcs is the most entries a tile takes: 64K against 32K, 128K and
// 256K on kron21's PageRank (docs/perf/pagerank-tiles.md#tile-length-and-occupancy,
// docs/perf/pagerank-tiles.md#each-warps-stream-through-shared-memory and
// docs/perf/pagerank-tiles.md#float32-pagerank).
const TileArcsDefault = 65536

// TileChunkFor is the groups of 32 entries a warp of vp_pull_tiles loads
// at a time for an accumulator of asize bytes, measured on kron21's
// PageRank (docs/perf/pagerank-tiles.md#each-warps-stream-through-registers):
// 8 groups for 4-byte accumulators (58 registers, two blocks a
// multiprocessor; 4 and 16 ran slower), 16 for 8-byte ones.
func TileChunkFor(asize int) int {
	if asize <= 4 {
		return 8
	}
	return 16
}

// Tiles is one matrix's tiles, in launch order (launchOrder).
type Tiles struct {
	rowBits, maxArcs int
	near             bool // grouped by groupsNear
	columns          bool // launched in column order (TileSpec.Columns)
	// arcs are the packed entries, tile by tile, warp stream by warp
	// stream, in groups of 32; vals their weights (nil for a pattern
	// matrix); base[g] the base column of group g.
	arcs []uint32
	vals []float32
	base []int32
	// Per tile: its first entry (a multiple of 32); info = segment |
	// multi<<31, multi set when its segment has other tiles; warp[t*(W+1)
	// + w] the first group of warp w's stream, counted from the tile's
	// first group (W+1 entries, the last the tile's groups).
	first []int64
	info  []int32
	warp  []int32
	// multi[s] is 1 when segment s has several tiles; segment s's virtual
	// slots are vrow[vfirst[s]:vfirst[s+1]], each the row (in the
	// segment) it folds into.
	multi  []uint8
	vfirst []int32
	vrow   []int32
}

// Count is the tiles (vp_pull_tiles' blocks).
func (t *Tiles) Count() int { return len(t.first) }

// Shared is vp_pull_tiles' dynamic shared memory for accumulators of
// asize bytes.
func (t *Tiles) Shared(asize int) int { return TileShared(t.rowBits, asize) }

// Tile describes tile i (in launch order): its segment, whether its
// segment has other tiles, and its groups of 32 entries.
func (t *Tiles) Tile(i int) (seg int32, multi bool, groups int32) {
	info := t.info[i]
	return info & (1<<31 - 1), info < 0, t.warp[i*(tileWarps+1)+tileWarps]
}

// tileBytes estimates the device memory of a matrix's tiles (padding
// allowed for: a quarter of the entries, and a group per warp and tile).
func tileBytes(m *hyb.Matrix, rowBits, maxArcs int) int64 {
	nnz := m.NNZ()
	per := int64(4)
	if m.Weighted() {
		per = 8
	}
	segs := int64(m.N>>rowBits) + 1
	tiles := nnz/int64(max(1, maxArcs)) + segs
	arcs := 32 * tileGroups(m, rowBits, maxArcs)
	return arcs*per + arcs/8 + tiles*(12+4*(tileWarps+1)) + segs*(5+4*int64(tileVMax(rowBits)))
}

// tileGroups estimates the groups of 32 entries of a matrix's tiles
// (tileBytes' padding: a quarter of the entries, and a group per warp and
// tile).
func tileGroups(m *hyb.Matrix, rowBits, maxArcs int) int64 {
	nnz := m.NNZ()
	tiles := nnz/int64(max(1, maxArcs)) + int64(m.N>>rowBits) + 1
	return (nnz+nnz/4+31)/32 + tileWarps*tiles
}

// tileWarps is vp_pull_tiles' warps a block (VP_TILE_BLOCK / 32).
const (
	tileWarps = 16
	TileBlock = 32 * tileWarps
)

// tileVMax is the most virtual slots of a segment of 1<<rowBits rows.
func tileVMax(rowBits int) int { return min(511, 1<<rowBits-1) }
