package datasets

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sync/atomic"
	"unsafe"

	"github.com/hpgraph/hpgraph/internal/huge"
	"github.com/hpgraph/hpgraph/internal/par"
)

// The binary cache (extension .hpg) stores a built *Graph so that loading
// it costs one read, a checksum and a validation pass instead of parsing.
// All integers are little-endian and every section starts at a multiple of
// 8 bytes, so on a little-endian machine the arrays are used in place,
// straight from the buffer the file was read into.
//
//	offset  size         contents
//	0       8            magic "HPGRAPH\x00"
//	8       4            format version (cacheVersion)
//	12      4            flags: 1 directed, 2 weighted, 4 has IDs
//	16      8            N
//	24      8            nnz (stored arcs)
//	32      8            IDBase
//	40      8            name length L (at most maxCacheName)
//	48      L, padded    name
//	        24           Stats: Entries, SelfLoops, Duplicates
//	        8(N+1)       RowPtr (int64)
//	        4nnz, padded Col (int32)
//	        4nnz, padded W (float32), if weighted
//	        8N           IDs (int64), if it has IDs
//	        4            CRC-32C (Castagnoli) of every byte before it

// ErrBadCache is wrapped by every error about a malformed cache file.
var ErrBadCache = errors.New("invalid hpgraph cache")

const (
	cacheMagic     = "HPGRAPH\x00"
	cacheVersion   = 1
	cacheHeaderLen = 48
	maxCacheName   = 1 << 16
	maxCacheArcs   = 1 << 60 // keeps every offset computation far from overflow
)

const (
	cacheDirected uint32 = 1 << iota
	cacheWeighted
	cacheHasIDs
	cacheFlags = cacheDirected | cacheWeighted | cacheHasIDs
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// littleEndian says whether this machine's integers are laid out as the
// cache's are; where they are not, arrays are decoded and encoded element
// by element. A variable so that tests can exercise that path.
var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// cacheLayout gives the byte offset of every section of a cache file.
type cacheLayout struct {
	n, nnz, idBase, nameLen          int64
	flags                            uint32
	name, stats, rowPtr, col, w, ids int64
	crc, total                       int64
}

func pad8(x int64) int64 { return (x + 7) &^ 7 }

func newCacheLayout(n, nnz, idBase, nameLen int64, flags uint32) cacheLayout {
	l := cacheLayout{n: n, nnz: nnz, idBase: idBase, nameLen: nameLen, flags: flags}
	l.name = cacheHeaderLen
	l.stats = l.name + pad8(nameLen)
	l.rowPtr = l.stats + 24
	l.col = l.rowPtr + 8*(n+1)
	l.w = l.col + pad8(4*nnz)
	l.ids = l.w
	if flags&cacheWeighted != 0 {
		l.ids += pad8(4 * nnz)
	}
	l.crc = l.ids
	if flags&cacheHasIDs != 0 {
		l.crc += 8 * n
	}
	l.total = l.crc + 4
	return l
}

func badCache(name, format string, args ...any) error {
	return fmt.Errorf("%s: %w: %s", name, ErrBadCache, fmt.Sprintf(format, args...))
}

// parseCacheHeader checks the fixed header; the sizes it returns are safe
// to compute offsets with, but not yet checked against the file length.
func parseCacheHeader(hdr []byte, name string) (cacheLayout, error) {
	le := binary.LittleEndian
	if string(hdr[:8]) != cacheMagic {
		return cacheLayout{}, badCache(name, "expected magic %q, found %q", cacheMagic, hdr[:8])
	}
	if v := le.Uint32(hdr[8:]); v != cacheVersion {
		return cacheLayout{}, badCache(name, "expected format version %d, found %d", cacheVersion, v)
	}
	flags := le.Uint32(hdr[12:])
	if flags&^cacheFlags != 0 {
		return cacheLayout{}, badCache(name, "unknown flags %#x", flags&^cacheFlags)
	}
	n, nnz := int64(le.Uint64(hdr[16:])), int64(le.Uint64(hdr[24:]))
	idBase, nameLen := int64(le.Uint64(hdr[32:])), int64(le.Uint64(hdr[40:]))
	switch {
	case n == 0:
		return cacheLayout{}, fmt.Errorf("%s: %w", name, ErrEmptyGraph)
	case n < 0 || n > math.MaxInt32:
		return cacheLayout{}, badCache(name, "expected 1..%d vertices, found %d", math.MaxInt32, n)
	case nnz < 0 || nnz > maxCacheArcs:
		return cacheLayout{}, badCache(name, "expected 0..%d arcs, found %d", int64(maxCacheArcs), nnz)
	case nameLen < 0 || nameLen > maxCacheName:
		return cacheLayout{}, badCache(name, "expected a name of at most %d bytes, found a length of %d", maxCacheName, nameLen)
	}
	return newCacheLayout(n, nnz, idBase, nameLen, flags), nil
}

// ReadCache reads a graph written by WriteCache. The header's sizes are
// checked against the input's length before anything is allocated (when
// the length is known, as for files and byte readers; otherwise memory
// grows only with the bytes actually read), then the checksum, then the
// graph's invariants (Graph.Validate). A regular file is read from its
// current offset on all cores (readCacheFile) and left at its end.
func ReadCache(r io.Reader, name string) (*Graph, error) {
	size := sizeOf(r)
	if f, ok := r.(*os.File); ok && size >= 0 {
		base, err := f.Seek(0, io.SeekCurrent)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		g, err := readCacheFile(f, base, size, name, nil)
		if err == nil {
			_, err = f.Seek(base+size, io.SeekStart)
		}
		return g, err
	}
	return readCache(r, name, size)
}

// ReadCacheFile reads a cache file into one buffer whose arrays become
// the graph's, on all cores: the fastest way to load a graph.
func ReadCacheFile(path string) (*Graph, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadCache(f, path)
}

// readCache reads a cache from a stream (gzip data, pipes, byte readers):
// sequentially, the checksum then computed on all cores.
func readCache(r io.Reader, name string, size int64) (*Graph, error) {
	var hdr [cacheHeaderLen]byte
	if n, err := io.ReadFull(r, hdr[:]); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, badCache(name, "expected a %d-byte header, found %d bytes", cacheHeaderLen, n)
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	l, err := parseCacheHeader(hdr[:], name)
	if err != nil {
		return nil, err
	}
	if size >= 0 && size != l.total {
		return nil, badCache(name, "expected %d bytes as the header describes, found %d", l.total, size)
	}
	buf, err := readAligned(r, hdr[:], l.total, size >= 0)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return decodeCache(buf, l, name, checksumParallel(buf[:l.crc]), arcsChecked{})
}

// Reading a file in parallel: goroutines claim its pieces in turn and
// read each with positional reads of readPiece bytes, each checksummed
// and, once the row offsets are in, validated while it is still in the
// cache; the pieces' CRCs are then combined. The head (header, name,
// stats and row offsets) comes first, in pieces of readPiece bytes; the
// arcs and what follows them in chunks of readChunk bytes, which keep the
// goroutines busy to the end. Pieces of 1 MiB fit the L2 cache of any
// current core. Variables so that tests can cut small files into many
// pieces.
var (
	readChunk int64 = 8 << 20
	readPiece int64 = 1 << 20
)

// readCacheFile reads the size bytes of f from offset base with
// positional reads on all cores, checksumming and validating as it goes;
// size is the file's length from base (known, since f is a regular
// file). pr, when not nil, receives the bytes read.
//
// Validating each piece of arcs right after reading it, from the cache,
// saves the second pass over memory that Graph.Validate makes (a second
// read of the whole file's columns, ~10 ms of a kron20 one-shot on two
// cores). What a piece checks is what Validate checks of its arcs (each
// column in range, each row sorted, each weight finite, repeated columns
// noted), and the pairs of columns that straddle two pieces are checked
// at the end; the row offsets are checked before any piece of arcs. The
// checksum is still compared first, and any failure is reported by
// Validate itself, so errors are the ones a serial read gives.
func readCacheFile(f *os.File, base, size int64, name string, pr *progressReader) (*Graph, error) {
	l, _, err := readCacheHeader(f, base, name)
	if err != nil {
		return nil, err
	}
	if size != l.total {
		return nil, badCache(name, "expected %d bytes as the header describes, found %d", l.total, size)
	}
	if pr != nil {
		pr.restart()
	}
	buf := alignedBytes(l.total)
	cuts := []int64{0}
	for p := readPieces(); p < l.col; p += readPieces() {
		cuts = append(cuts, p)
	}
	head := len(cuts) // pieces before the arcs
	for p := l.col; p < l.total; p += max(8, readChunk&^7) {
		cuts = append(cuts, p)
	}
	cuts = append(cuts, l.total)
	parts := len(cuts) - 1
	crcs := make([]uint32, parts)
	errs := make([]error, parts)
	var failed atomic.Bool
	read := func(from, to int, check func(c int, lo, hi int64)) {
		bounds := make([]int, to-from+1)
		for i := range bounds {
			bounds[i] = from + i
		}
		par.Dynamic(bounds, func(lo, hi int) {
			for c := lo; c < hi && !failed.Load(); c++ {
				var piece func(lo, hi int64)
				if check != nil {
					piece = func(lo, hi int64) { check(c, lo, hi) }
				}
				crcs[c], errs[c] = readRangeAt(f, base, buf, cuts[c], cuts[c+1], l.crc, pr, piece)
				if errs[c] != nil {
					failed.Store(true)
				}
			}
		})
	}
	read(0, head, nil)
	var arcs *arcChecker
	if !failed.Load() {
		arcs = newArcChecker(buf, l, cuts[head:])
	}
	var check func(int, int64, int64)
	if arcs != nil {
		check = func(c int, lo, hi int64) { arcs.check(c-head, lo, hi) }
	}
	read(head, parts, check)
	for _, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	crc := crcs[0]
	for c := 1; c < parts; c++ {
		lo := min(cuts[c], l.crc)
		crc = crc32cCombine(crc, crcs[c], min(cuts[c+1], l.crc)-lo)
	}
	return decodeCache(buf, l, name, crc, arcs.verdict())
}

// readCacheHeader reads and checks the header of the cache at base in f.
func readCacheHeader(f io.ReaderAt, base int64, name string) (cacheLayout, [cacheHeaderLen]byte, error) {
	var hdr [cacheHeaderLen]byte
	if n, err := f.ReadAt(hdr[:], base); n < len(hdr) {
		if err == nil || errors.Is(err, io.EOF) {
			return cacheLayout{}, hdr, badCache(name, "expected a %d-byte header, found %d bytes", cacheHeaderLen, n)
		}
		return cacheLayout{}, hdr, fmt.Errorf("%s: %w", name, err)
	}
	l, err := parseCacheHeader(hdr[:], name)
	return l, hdr, err
}

// readPieces is the step of readRangeAt's reads: readPiece, a multiple
// of 8 bytes (no 4-byte element of a section straddles two pieces).
func readPieces() int64 { return max(8, readPiece&^7) }

// readRangeAt fills buf[off:end] from f at base+off, a piece of
// readPieces() bytes a read, and returns the CRC-32C of its bytes before
// crcEnd; check, where not nil, is called with each piece's bounds once
// it is read, while its bytes are in the cache.
func readRangeAt(f *os.File, base int64, buf []byte, off, end, crcEnd int64, pr *progressReader, check func(lo, hi int64)) (uint32, error) {
	var crc uint32
	step := readPieces()
	for p := off; p < end; p += step {
		q := min(p+step, end)
		n, err := f.ReadAt(buf[p:q], base+p)
		if int64(n) < q-p {
			if err == nil || errors.Is(err, io.EOF) { // the file shrank since its size was taken
				return 0, fmt.Errorf("%w: expected %d bytes as the header describes, found %d", ErrBadCache, len(buf), p+int64(n))
			}
			return 0, err
		}
		if p < crcEnd {
			crc = crc32.Update(crc, castagnoli, buf[p:min(q, crcEnd)])
		}
		if check != nil {
			check(p, q)
		}
		if pr != nil {
			pr.add(q - p)
		}
	}
	return crc, nil
}

// arcChecker checks a cache's arcs piece by piece as they are read, what
// Graph.Validate checks of them, once its row offsets are known to be
// valid.
type arcChecker struct {
	n      int32
	rowPtr []int64
	col    []int32
	w      []float32 // nil: unweighted
	// cuts are the chunks' byte offsets (from the columns' start to the
	// file's end); colAt and wAt the file offsets of the sections.
	cuts       []int64
	colAt, wAt int64
	bad        []bool // per chunk: an arc failed
	repeats    []bool // per chunk: a row lists a column twice
}

// newArcChecker returns a checker of the arcs in buf, or nil when the row
// offsets (in buf already) are not valid: then Validate says why.
func newArcChecker(buf []byte, l cacheLayout, cuts []int64) *arcChecker {
	rowPtr := view[int64](buf, l.rowPtr, l.n+1)
	if !littleEndian || rowPtr[0] != 0 || rowPtr[l.n] != l.nnz {
		return nil
	}
	p := par.Workers()
	bad := make([]bool, p)
	par.Blocks(int(l.n), func(w, lo, hi int) {
		for v := lo; v < hi; v++ {
			if rowPtr[v+1] < rowPtr[v] {
				bad[w] = true
				return
			}
		}
	})
	if slices.Contains(bad, true) {
		return nil
	}
	a := &arcChecker{n: int32(l.n), rowPtr: rowPtr, col: view[int32](buf, l.col, l.nnz), cuts: cuts,
		colAt: l.col, wAt: l.w, bad: make([]bool, len(cuts)-1), repeats: make([]bool, len(cuts)-1)}
	if l.flags&cacheWeighted != 0 {
		a.w = view[float32](buf, l.w, l.nnz)
	}
	return a
}

// span is the elements of a section of size 4-byte elements at file
// offset at that start in the bytes [lo, hi) (pieces are cut at multiples
// of 8 bytes from the columns' start, and sections start at multiples of
// 8, so no element straddles two pieces).
func span(at, size, lo, hi int64) (int64, int64) {
	a := min((max(lo-at, 0)+3)/4, size)
	b := min((max(hi-at, 0)+3)/4, size)
	return a, max(a, b)
}

// check checks the bytes [lo, hi) of chunk k, just read (a piece).
func (a *arcChecker) check(k int, lo, hi int64) {
	nnz := int64(len(a.col))
	i0, i1 := span(a.colAt, nnz, lo, hi)
	if i0 < i1 {
		// From the row holding arc i0: the last v with rowPtr[v] <= i0.
		v, _ := slices.BinarySearch(a.rowPtr, i0+1)
		for v--; v < int(a.n) && a.rowPtr[v] < i1; v++ {
			s, e := max(a.rowPtr[v], i0), min(a.rowPtr[v+1], i1)
			if s >= e {
				continue
			}
			// (the pair before s, where s is inside a row, is verdict's)
			ok, repeats := sortedInRange(a.col[s:e], a.n)
			if repeats {
				a.repeats[k] = true
			}
			if !ok {
				a.bad[k] = true
				return
			}
		}
	}
	if a.w != nil {
		if j0, j1 := span(a.wAt, nnz, lo, hi); !allFinite(a.w[j0:j1]) {
			a.bad[k] = true
		}
	}
}

// arcsChecked is what checking the arcs as they were read found: ok when
// every check passed (Validate need not run), and then whether the graph
// is free of repeated columns (Graph.RepeatFree).
type arcsChecked struct{ ok, repeatFree bool }

// verdict checks the pairs of columns that straddle two pieces inside a
// row, once every piece has been read and checked; a nil checker (the row
// offsets were not valid) checked nothing.
func (a *arcChecker) verdict() arcsChecked {
	if a == nil || slices.Contains(a.bad, true) {
		return arcsChecked{}
	}
	repeats := slices.Contains(a.repeats, true)
	nnz := int64(len(a.col))
	step := readPieces()
	for k := range len(a.cuts) - 1 {
		for p := a.cuts[k]; p < a.cuts[k+1]; p += step {
			i0, _ := span(a.colAt, nnz, p, p+step)
			if i0 == 0 || i0 >= nnz {
				continue
			}
			v, _ := slices.BinarySearch(a.rowPtr, i0+1)
			if a.rowPtr[v-1] == i0 { // i0 starts its row
				continue
			}
			switch prev, c := a.col[i0-1], a.col[i0]; {
			case c < prev:
				return arcsChecked{}
			case c == prev:
				repeats = true
			}
		}
	}
	return arcsChecked{ok: true, repeatFree: !repeats}
}

// alignedBytes allocates n bytes at an 8-byte aligned address, so int64
// sections can be used in place.
func alignedBytes(n int64) []byte {
	words := make([]uint64, (n+7)/8)
	b := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(words))), n)
	huge.Advise(b)
	return b
}

// readAligned reads the total bytes of a cache whose first bytes are hdr.
// When the length is not known in advance, the buffer doubles as data
// arrives, so a header lying about its size costs at most twice the bytes
// really present.
func readAligned(r io.Reader, hdr []byte, total int64, sized bool) ([]byte, error) {
	truncated := func(have int64) error {
		return fmt.Errorf("%w: expected %d bytes as the header describes, found %d", ErrBadCache, total, have)
	}
	if sized {
		buf := alignedBytes(total)
		copy(buf, hdr)
		n, err := io.ReadFull(r, buf[len(hdr):])
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return nil, truncated(int64(len(hdr) + n))
		}
		return buf, err
	}
	buf := alignedBytes(min(total, 1<<20))
	have := int64(copy(buf, hdr))
	for have < total {
		if have == int64(len(buf)) {
			bigger := alignedBytes(min(total, 2*have))
			copy(bigger, buf)
			buf = bigger
		}
		n, err := io.ReadFull(r, buf[have:])
		have += int64(n)
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return nil, truncated(have)
		}
		if err != nil {
			return nil, err
		}
	}
	if n, _ := io.ReadFull(r, make([]byte, 1)); n > 0 {
		return nil, fmt.Errorf("%w: expected %d bytes as the header describes, found more", ErrBadCache, total)
	}
	return buf, nil
}

// decodeCache checks the checksum (computed, of buf[:l.crc]) and the
// graph's invariants (Validate, unless arcs says that they were checked
// as the file was read), and makes the graph from buf.
func decodeCache(buf []byte, l cacheLayout, name string, computed uint32, arcs arcsChecked) (*Graph, error) {
	le := binary.LittleEndian
	stored := le.Uint32(buf[l.crc:])
	if stored != computed {
		return nil, badCache(name, "expected checksum %08x, computed %08x: the file is corrupt", stored, computed)
	}
	g := &Graph{
		Name:     string(buf[l.name : l.name+l.nameLen]),
		N:        int(l.n),
		Directed: l.flags&cacheDirected != 0,
		IDBase:   l.idBase,
		Stats:    decodeStats(buf[l.stats:]),
		RowPtr:   view[int64](buf, l.rowPtr, l.n+1),
		Col:      view[int32](buf, l.col, l.nnz),
	}
	if l.flags&cacheWeighted != 0 {
		g.W = view[float32](buf, l.w, l.nnz)
	}
	if l.flags&cacheHasIDs != 0 {
		g.IDs = view[int64](buf, l.ids, l.n)
	}
	if arcs.ok {
		g.RepeatFree = arcs.repeatFree
		return g, nil
	}
	if err := g.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w: %v", name, ErrBadCache, err)
	}
	return g, nil
}

// decodeStats decodes the 24 bytes of a cache's Stats.
func decodeStats(b []byte) BuildStats {
	le := binary.LittleEndian
	return BuildStats{Entries: int64(le.Uint64(b)), SelfLoops: int64(le.Uint64(b[8:])), Duplicates: int64(le.Uint64(b[16:]))}
}

// view returns the n elements at buf[off:] as a slice, in place on a
// little-endian machine.
func view[T int32 | int64 | float32](buf []byte, off, n int64) []T {
	if n == 0 {
		return []T{}
	}
	if littleEndian {
		return unsafe.Slice((*T)(unsafe.Pointer(&buf[off])), n)
	}
	out := make([]T, n)
	if _, err := binary.Decode(buf[off:], binary.LittleEndian, out); err != nil {
		panic(err) // unreachable: the layout was checked against len(buf)
	}
	return out
}

// WriteCache writes g in the binary cache format; ReadCache and Load read
// it back. g is validated first, so a cache is always readable.
func WriteCache(w io.Writer, g *Graph) error {
	if err := g.Validate(); err != nil {
		return err
	}
	s := CacheStream{Name: g.Name, Directed: g.Directed, IDBase: g.IDBase, Stats: g.Stats, RowPtr: g.RowPtr, IDs: g.IDs,
		Cols: func(put func([]int32) error) error { return put(g.Col) }}
	if g.W != nil {
		s.Weights = func(put func([]float32) error) error { return put(g.W) }
	}
	return writeCache(w, s, nil)
}

// CacheStream is a graph to write as a cache whose arcs are handed over
// in pieces, never held whole (a graph on a GPU): its row offsets, then
// its columns and weights, each from the first arc to the last in
// consecutive pieces of any length. A put's error ends the writing.
type CacheStream struct {
	Name     string
	Directed bool
	IDBase   int64
	Stats    BuildStats
	RowPtr   []int64 // N+1 offsets
	IDs      []int64 // N, or nil
	Cols     func(put func([]int32) error) error
	Weights  func(put func([]float32) error) error // nil: unweighted
}

// WriteCacheStream writes s in the binary cache format, checking what
// WriteCache's validation checks as the pieces go by: an invalid graph
// fails the writing (a reader would reject the file).
func WriteCacheStream(w io.Writer, s CacheStream) error {
	n := len(s.RowPtr) - 1
	g := &Graph{Name: s.Name, N: n, RowPtr: s.RowPtr, IDs: s.IDs}
	switch {
	case n < 0:
		return fmt.Errorf("graph %q: no row offsets", s.Name)
	case n > math.MaxInt32:
		return fmt.Errorf("graph %q: %d vertices, at most %d are supported", s.Name, n, math.MaxInt32)
	case s.RowPtr[0] != 0:
		return fmt.Errorf("graph %q: RowPtr starts at %d, want 0", s.Name, s.RowPtr[0])
	case s.IDs != nil && len(s.IDs) != n:
		return fmt.Errorf("graph %q: %d original ids for %d vertices", s.Name, len(s.IDs), n)
	}
	for v := range n {
		if s.RowPtr[v+1] < s.RowPtr[v] {
			return fmt.Errorf("graph %q: row %d has negative length", s.Name, v)
		}
	}
	return writeCache(w, s, g)
}

// writeCache writes s; with check (a graph of s's rows, no arcs) each
// piece of arcs is validated first.
func writeCache(w io.Writer, s CacheStream, check *Graph) error {
	if len(s.Name) > maxCacheName {
		return fmt.Errorf("graph name is %d bytes; a cache holds at most %d", len(s.Name), maxCacheName)
	}
	n := int64(len(s.RowPtr) - 1)
	nnz := s.RowPtr[n]
	var flags uint32
	if s.Directed {
		flags |= cacheDirected
	}
	if s.Weights != nil {
		flags |= cacheWeighted
	}
	if s.IDs != nil {
		flags |= cacheHasIDs
	}
	l := newCacheLayout(n, nnz, s.IDBase, int64(len(s.Name)), flags)
	le := binary.LittleEndian
	hdr := make([]byte, l.rowPtr)
	copy(hdr, cacheMagic)
	le.PutUint32(hdr[8:], cacheVersion)
	le.PutUint32(hdr[12:], flags)
	le.PutUint64(hdr[16:], uint64(l.n))
	le.PutUint64(hdr[24:], uint64(l.nnz))
	le.PutUint64(hdr[32:], uint64(l.idBase))
	le.PutUint64(hdr[40:], uint64(l.nameLen))
	copy(hdr[l.name:], s.Name)
	le.PutUint64(hdr[l.stats:], uint64(s.Stats.Entries))
	le.PutUint64(hdr[l.stats+8:], uint64(s.Stats.SelfLoops))
	le.PutUint64(hdr[l.stats+16:], uint64(s.Stats.Duplicates))

	cw := &crcWriter{w: w}
	cw.write(hdr)
	writeSection(cw, s.RowPtr)
	cw.pad()
	var checkCols func([]int32) error
	var checkWeights func([]float32) error
	if check != nil {
		var cols, weights pieceChecker
		checkCols = func(p []int32) error { return cols.cols(check, p) }
		checkWeights = func(p []float32) error { return weights.weights(check, p) }
	}
	if err := writePieces(cw, s.Cols, checkCols, check, "columns", nnz); err != nil {
		return err
	}
	if s.Weights != nil {
		if err := writePieces(cw, s.Weights, checkWeights, check, "weights", nnz); err != nil {
			return err
		}
	}
	if s.IDs != nil {
		writeSection(cw, s.IDs)
		cw.pad()
	}
	_, err := w.Write(le.AppendUint32(nil, cw.crc))
	if cw.err != nil {
		return cw.err
	}
	return err
}

// pieceChecker validates a graph's arcs piece by piece: each column in
// range and each row sorted, each weight finite.
type pieceChecker struct {
	arc  int64 // arcs seen
	row  int   // the row of arc `arc`
	last int32 // the previous column
}

func (c *pieceChecker) cols(g *Graph, col []int32) error {
	if c.arc+int64(len(col)) > g.RowPtr[g.N] {
		return fmt.Errorf("graph %q: more than the %d arcs its rows hold", g.Name, g.RowPtr[g.N])
	}
	n := int32(g.N)
	for _, v := range col {
		for g.RowPtr[c.row+1] <= c.arc {
			c.row++
		}
		if uint32(v) >= uint32(n) {
			return fmt.Errorf("graph %q: arc %d->%d out of range [0,%d)", g.Name, c.row, v, g.N)
		}
		if c.arc > g.RowPtr[c.row] && v < c.last {
			return fmt.Errorf("graph %q: row %d is not sorted", g.Name, c.row)
		}
		c.last = v
		c.arc++
	}
	return nil
}

func (c *pieceChecker) weights(g *Graph, w []float32) error {
	for i, x := range w {
		if !finite(x) {
			return fmt.Errorf("graph %q: arc %d has weight %v", g.Name, c.arc+int64(i), x)
		}
	}
	c.arc += int64(len(w))
	return nil
}

// writePieces writes the section pieces hands over, each piece checked
// first (check nil: none), and with g (a graph to check) that nnz values
// came.
func writePieces[T int32 | float32](cw *crcWriter, pieces func(put func([]T) error) error, check func([]T) error, g *Graph, what string, nnz int64) error {
	var n int64
	err := pieces(func(p []T) error {
		if check != nil {
			if err := check(p); err != nil {
				return err
			}
		}
		n += int64(len(p))
		writeSection(cw, p)
		return cw.err
	})
	if err == nil && g != nil && n != nnz {
		err = fmt.Errorf("graph %q: %d %s for %d arcs", g.Name, n, what, nnz)
	}
	cw.pad()
	return err
}

// crcWriter writes and checksums, remembering the first error.
type crcWriter struct {
	w   io.Writer
	crc uint32
	n   int64
	err error
}

func (c *crcWriter) write(p []byte) {
	if c.err != nil {
		return
	}
	_, c.err = c.w.Write(p)
	c.crc = crc32.Update(c.crc, castagnoli, p)
	c.n += int64(len(p))
}

// pad ends a section: zeros to a multiple of 8 bytes.
func (c *crcWriter) pad() {
	if r := c.n % 8; r != 0 {
		c.write(make([]byte, 8-r))
	}
}

// writeSection writes s little-endian (a section, or a piece of one).
func writeSection[T int32 | int64 | float32](c *crcWriter, s []T) {
	if littleEndian {
		c.write(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*int(unsafe.Sizeof(s[0]))))
	} else {
		var buf []byte
		for len(s) > 0 {
			k := min(len(s), 1<<16)
			buf, _ = binary.Append(buf[:0], binary.LittleEndian, s[:k])
			c.write(buf)
			s = s[k:]
		}
	}
}

// WriteCacheFile writes g to path atomically: to a temporary file in the
// same directory, renamed over path once complete, so a reader never sees
// a half-written cache.
func WriteCacheFile(path string, g *Graph) (err error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	bw := bufio.NewWriterSize(tmp, 1<<20)
	if err = WriteCache(bw, g); err != nil {
		return err
	}
	if err = bw.Flush(); err != nil {
		return err
	}
	if err = tmp.Chmod(0o644); err != nil {
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
