package datasets

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"sync/atomic"

	"github.com/hpgraph/hpgraph/internal/par"
)

// Reading some rows of a cache file: a process of a run over several
// reads the header, the whole row offsets (8(N+1) bytes: the partition
// of the vertices is computed from them, and the degrees every part
// needs), the original ids (8N bytes, if any: the answer's ids and the
// sources are every vertex's) and, of the columns and weights, only the
// arcs of its rows. Positional reads on all cores, as ReadCacheFile's.
//
// The file's checksum covers every byte, which one process no longer
// reads: ReadCacheRows cannot verify it alone. It checksums what it read
// (Rows.Checksum), and the processes of a run, whose rows together are
// every row, verify the whole file's checksum from their pieces
// (VerifyRowsChecksum) without anyone reading the whole file. What one
// process reads is validated as ReadCacheFile validates it: row offsets
// from 0 to the arcs, never decreasing; its rows sorted, their columns in
// [0, N), their weights finite.

// Rows is the rows [Lo, Hi) of a graph read from a cache file.
type Rows struct {
	// Graph has the file's N vertices, name, ids, flags and stats; its
	// rows [Lo, Hi) are the file's, every other row is empty.
	Graph *Graph
	// RowPtr is the whole graph's row offsets (N+1).
	RowPtr []int64
	Lo, Hi int32
	// Bytes is how many bytes of the file were read.
	Bytes int64
	// Checksum is what this process contributes to verifying the file's
	// checksum (VerifyRowsChecksum).
	Checksum RowsChecksum

	// made: the rows were made, not read (NewRows): there is no file
	// checksum to verify.
	made bool

	// What every process reads, checksummed: the bytes before the
	// columns, the padding after the columns and after the weights, the
	// ids; and the stored checksum.
	layout                     cacheLayout
	head, colPad, wPad, idsCRC uint32
	stored                     uint32
}

// NewRows is rows [lo, hi) of a graph that a process made, not read (a
// generator's part: BuildStreamRows): g has all N rows, those outside
// [lo, hi) empty, and the whole graph's stats; rowPtr is the whole
// graph's row offsets. Its checksum verifies only that the processes'
// rows are every row, in order.
func NewRows(g *Graph, rowPtr []int64, lo, hi int32) *Rows {
	return &Rows{Graph: g, RowPtr: rowPtr, Lo: lo, Hi: hi, Checksum: RowsChecksum{Lo: lo, Hi: hi}, made: true}
}

// RowsChecksum is the CRC-32C of the bytes a process read of the columns
// and of the weights (those of its rows, [Lo, Hi)).
type RowsChecksum struct {
	Lo, Hi int32
	Col, W uint32
}

// ReadCacheRows reads rows [lo, hi) of the cache file at path, where
// choose gives lo and hi from the whole graph's row offsets (the split
// of a partitioned run is computed from them: vertexprog.SplitRows). It
// does not verify the file's checksum (see VerifyRowsChecksum).
func ReadCacheRows(path string, choose func(rowPtr []int64) (lo, hi int32, err error)) (*Rows, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	return readCacheRows(f, st.Size(), path, choose)
}

func readCacheRows(f io.ReaderAt, size int64, name string, choose func([]int64) (int32, int32, error)) (*Rows, error) {
	l, hdr, err := readCacheHeader(f, 0, name)
	if err != nil {
		return nil, err
	}
	if size != l.total {
		return nil, badCache(name, "expected %d bytes as the header describes, found %d", l.total, size)
	}
	r := &Rows{layout: l}
	// The header, name, stats and row offsets: one read.
	head := alignedBytes(l.col)
	copy(head, hdr[:])
	if err := readRange(f, head[cacheHeaderLen:], cacheHeaderLen, name); err != nil {
		return nil, err
	}
	r.head = checksumParallel(head)
	rowPtr := view[int64](head, l.rowPtr, l.n+1)
	if rowPtr[0] != 0 || rowPtr[l.n] != l.nnz {
		return nil, badCache(name, "row offsets span [%d, %d], want [0, %d]", rowPtr[0], rowPtr[l.n], l.nnz)
	}
	if v := decreasingRow(rowPtr); v >= 0 {
		return nil, badCache(name, "row %d has negative length", v)
	}
	lo, hi, err := choose(rowPtr)
	if err != nil {
		return nil, err
	}
	if lo < 0 || hi < lo || int64(hi) > l.n {
		return nil, fmt.Errorf("%s: rows [%d, %d) are not a range of the graph's %d vertices", name, lo, hi, l.n)
	}
	a, b := rowPtr[lo], rowPtr[hi]
	col := alignedBytes(4 * (b - a))
	if err := readRange(f, col, l.col+4*a, name); err != nil {
		return nil, err
	}
	r.Checksum = RowsChecksum{Lo: lo, Hi: hi, Col: checksumParallel(col)}
	var w []byte
	if l.flags&cacheWeighted != 0 {
		w = alignedBytes(4 * (b - a))
		if err := readRange(f, w, l.w+4*a, name); err != nil {
			return nil, err
		}
		r.Checksum.W = checksumParallel(w)
	}
	// The padding after the columns and the weights (at most 4 bytes
	// each), the ids and the stored checksum.
	colEnd, wEnd := l.col+4*l.nnz, l.ids
	if l.flags&cacheWeighted != 0 {
		wEnd = l.w + 4*l.nnz
	}
	pads := make([]byte, l.w-colEnd+l.ids-wEnd)
	if err := readRange(f, pads[:l.w-colEnd], colEnd, name); err != nil {
		return nil, err
	}
	if err := readRange(f, pads[l.w-colEnd:], wEnd, name); err != nil {
		return nil, err
	}
	r.colPad = crc32.Checksum(pads[:l.w-colEnd], castagnoli)
	r.wPad = crc32.Checksum(pads[l.w-colEnd:], castagnoli)
	tail := alignedBytes(l.total - l.ids)
	if err := readRange(f, tail, l.ids, name); err != nil {
		return nil, err
	}
	r.idsCRC = checksumParallel(tail[:l.crc-l.ids])
	r.stored = binary.LittleEndian.Uint32(tail[l.crc-l.ids:])
	r.Bytes = int64(len(head) + len(col) + len(w) + len(pads) + len(tail))

	// The part's graph: its rows' offsets from the part's first arc.
	local := make([]int64, l.n+1)
	par.Blocks(int(l.n), func(_, x, y int) {
		for v := x; v < y; v++ {
			local[v+1] = min(max(rowPtr[v+1], a), b) - a
		}
	})
	g := &Graph{
		Name:     string(head[l.name : l.name+l.nameLen]),
		N:        int(l.n),
		RowPtr:   local,
		Col:      view[int32](col, 0, b-a),
		Directed: l.flags&cacheDirected != 0,
		IDBase:   l.idBase,
		Stats:    decodeStats(head[l.stats:]),
	}
	if w != nil {
		g.W = view[float32](w, 0, b-a)
	}
	if l.flags&cacheHasIDs != 0 {
		g.IDs = view[int64](tail, 0, l.n)
	}
	if err := g.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w: %v", name, ErrBadCache, err)
	}
	r.Graph, r.RowPtr, r.Lo, r.Hi = g, rowPtr, lo, hi
	return r, nil
}

// decreasingRow is the first row whose offsets decrease, or -1.
func decreasingRow(rowPtr []int64) int {
	first := make([]int, par.Workers())
	for w := range first {
		first[w] = -1
	}
	par.Blocks(len(rowPtr)-1, func(w, lo, hi int) {
		for v := lo; v < hi; v++ {
			if rowPtr[v+1] < rowPtr[v] {
				first[w] = v
				return
			}
		}
	})
	for _, v := range first {
		if v >= 0 {
			return v
		}
	}
	return -1
}

// VerifyRowsChecksum verifies the file's checksum from the pieces of
// the processes that read it (Rows.Checksum of each), whose rows must
// together be every row, in order: r is any of them.
func (r *Rows) VerifyRowsChecksum(parts []RowsChecksum, name string) error {
	l := r.layout
	if r.made {
		l.n = int64(r.Graph.N)
	}
	var next int32
	for _, p := range parts {
		if p.Lo != next || p.Hi < p.Lo {
			return fmt.Errorf("%s: the processes read rows [%d, %d) after row %d: their rows are not every row in order, so the file's checksum cannot be verified", name, p.Lo, p.Hi, next)
		}
		next = p.Hi
	}
	if int64(next) != l.n {
		return fmt.Errorf("%s: the processes read rows up to %d of %d: the file's checksum cannot be verified", name, next, l.n)
	}
	if r.made {
		return nil // (no file, no checksum)
	}
	crc := r.head
	for _, p := range parts {
		crc = crc32cCombine(crc, p.Col, 4*(r.RowPtr[p.Hi]-r.RowPtr[p.Lo]))
	}
	crc = crc32cCombine(crc, r.colPad, l.w-(l.col+4*l.nnz))
	if l.flags&cacheWeighted != 0 {
		for _, p := range parts {
			crc = crc32cCombine(crc, p.W, 4*(r.RowPtr[p.Hi]-r.RowPtr[p.Lo]))
		}
		crc = crc32cCombine(crc, r.wPad, l.ids-(l.w+4*l.nnz))
	}
	crc = crc32cCombine(crc, r.idsCRC, l.crc-l.ids)
	if crc != r.stored {
		return badCache(name, "expected checksum %08x, computed %08x: the file is corrupt", r.stored, crc)
	}
	return nil
}

// readRange fills buf from f at off on all cores, in pieces of
// readPiece bytes.
func readRange(f io.ReaderAt, buf []byte, off int64, name string) error {
	pieces := int((int64(len(buf)) + readPiece - 1) / readPiece)
	bounds := make([]int, pieces+1)
	for i := range bounds {
		bounds[i] = i
	}
	var failed atomic.Pointer[error]
	par.Dynamic(bounds, func(x, y int) {
		for i := x; i < y && failed.Load() == nil; i++ {
			p := int64(i) * readPiece
			q := min(p+readPiece, int64(len(buf)))
			n, err := f.ReadAt(buf[p:q], off+p)
			if int64(n) < q-p {
				if err == nil || errors.Is(err, io.EOF) { // the file shrank since its size was taken
					err = badCache(name, "the file ends at %d bytes, before the %d its header describes", off+p+int64(n), off+q)
				} else {
					err = fmt.Errorf("%s: %w", name, err)
				}
				failed.CompareAndSwap(nil, &err)
			}
		}
	})
	if e := failed.Load(); e != nil {
		return *e
	}
	return nil
}

// CacheInfo is what a cache file's header says.
type CacheInfo struct {
	N, Arcs                 int64
	Directed, Weighted, IDs bool
}

// ReadCacheInfo reads the header of the cache file at path: an error
// wrapping ErrBadCache where it is not one.
func ReadCacheInfo(path string) (CacheInfo, error) {
	f, err := os.Open(path)
	if err != nil {
		return CacheInfo{}, err
	}
	defer f.Close()
	l, _, err := readCacheHeader(f, 0, path)
	if err != nil {
		return CacheInfo{}, err
	}
	return CacheInfo{N: l.n, Arcs: l.nnz, Directed: l.flags&cacheDirected != 0, Weighted: l.flags&cacheWeighted != 0, IDs: l.flags&cacheHasIDs != 0}, nil
}
