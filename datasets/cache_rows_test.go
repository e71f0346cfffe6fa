package datasets

import (
	"bytes"
	"errors"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
)

// splitAt chooses rows [lo, hi) as fractions of the vertices.
func splitAt(num, den int) func([]int64) (int32, int32, error) {
	return func(rowPtr []int64) (int32, int32, error) {
		n := len(rowPtr) - 1
		return int32(n * num / den), int32(n * (num + 1) / den), nil
	}
}

// checkRows checks that r holds the rows of g it says, the same as g's,
// and nothing else.
func checkRows(t *testing.T, what string, r *Rows, g *Graph) {
	t.Helper()
	p := r.Graph
	if p.N != g.N || p.Name != g.Name || p.Directed != g.Directed || p.IDBase != g.IDBase || p.Stats != g.Stats ||
		!reflect.DeepEqual(p.IDs, g.IDs) || (p.W == nil) != (g.W == nil) || !slices.Equal(r.RowPtr, g.RowPtr) {
		t.Fatalf("%s: the part's graph differs from the whole one beyond its rows", what)
	}
	for v := int32(0); v < int32(g.N); v++ {
		var want []int32
		var wantW []float32
		if v >= r.Lo && v < r.Hi {
			want, wantW = g.Neighbors(v), g.Weights(v)
		}
		if !slices.Equal(p.Neighbors(v), want) || (g.W != nil && !slices.Equal(p.Weights(v), wantW)) {
			t.Fatalf("%s: row %d is %v %v, want %v %v", what, v, p.Neighbors(v), p.Weights(v), want, wantW)
		}
	}
}

// Every part's rows, read alone, are the whole graph's rows, and the
// parts' checksums together verify the file's.
func TestReadCacheRows(t *testing.T) {
	smallChunks(t)
	dir := t.TempDir()
	for name, g := range testGraphs(t) {
		data := cacheBytes(t, g)
		path := writeFile(t, dir, strings.ReplaceAll(name, " ", "_")+".hpg", data)
		whole, err := ReadCacheFile(path)
		if err != nil {
			t.Fatal(err)
		}
		info, err := ReadCacheInfo(path)
		if want := (CacheInfo{int64(g.N), g.NNZ(), g.Directed, g.W != nil, g.IDs != nil}); err != nil || info != want {
			t.Fatalf("%s: ReadCacheInfo says %+v, %v; want %+v", name, info, err, want)
		}
		for _, parts := range []int{1, 2, 3} {
			var sums []RowsChecksum
			var first *Rows
			for p := range parts {
				r, err := ReadCacheRows(path, splitAt(p, parts))
				if err != nil {
					t.Fatalf("%s, part %d of %d: %v", name, p, parts, err)
				}
				checkRows(t, name, r, whole)
				sums = append(sums, r.Checksum)
				if first == nil {
					first = r
				}
			}
			if err := first.VerifyRowsChecksum(sums, path); err != nil {
				t.Fatalf("%s in %d parts: %v", name, parts, err)
			}
			if sums[0].Hi > 0 {
				if err := first.VerifyRowsChecksum(sums[1:], path); err == nil {
					t.Fatalf("%s: a checksum verified without the first part's rows", name)
				}
			}
		}
	}
}

// What a part reads: the row offsets, ids and its own arcs, never the
// others' (counted by the reader and by the bytes the file gave).
func TestReadCacheRowsReadsItsRows(t *testing.T) {
	g := randomGraph(t, 4, 2000, 40000, false, true, false)
	data := cacheBytes(t, g)
	cr := &countingReaderAt{r: bytes.NewReader(data)}
	r, err := readCacheRows(cr, int64(len(data)), "g.hpg", splitAt(1, 4))
	if err != nil {
		t.Fatal(err)
	}
	arcs := r.RowPtr[r.Hi] - r.RowPtr[r.Lo]
	want := int64(len(data)) - 8*g.NNZ() + 8*arcs // (columns and weights: 8 bytes an arc)
	if cr.n.Load() != r.Bytes || r.Bytes != want {
		t.Fatalf("read %d bytes (said %d), want %d of the file's %d", cr.n.Load(), r.Bytes, want, len(data))
	}
	if 2*r.Bytes > int64(len(data)) {
		t.Fatalf("a quarter of the rows read %d of %d bytes", r.Bytes, len(data))
	}
}

// countingReaderAt counts the bytes read through it (on several
// goroutines).
type countingReaderAt struct {
	r *bytes.Reader
	n atomic.Int64
}

func (c *countingReaderAt) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.r.ReadAt(p, off)
	c.n.Add(int64(n))
	return n, err
}

// A corrupt file fails: a bad row offset or column in the part's rows at
// once, a flipped byte anywhere by the checksum of every part's pieces.
func TestReadCacheRowsCorrupt(t *testing.T) {
	g := randomGraph(t, 5, 300, 2000, false, true, false)
	data := cacheBytes(t, g)
	l, err := parseCacheHeader(data[:cacheHeaderLen], "g")
	if err != nil {
		t.Fatal(err)
	}
	read := func(d []byte, choose func([]int64) (int32, int32, error)) (*Rows, error) {
		return readCacheRows(bytes.NewReader(d), int64(len(d)), "g.hpg", choose)
	}
	bad := slices.Clone(data)
	bad[l.rowPtr+8*10+7] = 0x80 // row 9's end offset negative
	if _, err := read(bad, splitAt(1, 2)); !errors.Is(err, ErrBadCache) {
		t.Fatalf("a negative row offset: %v", err)
	}
	bad = slices.Clone(data)
	bad[l.col+3] = 0x7f // the first column far out of range
	if _, err := read(bad, splitAt(0, 2)); !errors.Is(err, ErrBadCache) {
		t.Fatalf("a column out of range: %v", err)
	}
	if _, err := read(data[:len(data)-1], splitAt(0, 2)); !errors.Is(err, ErrBadCache) {
		t.Fatalf("a truncated file: %v", err)
	}
	if _, err := read(data, func([]int64) (int32, int32, error) { return 5, 2, nil }); err == nil {
		t.Fatal("rows [5, 2) were read")
	}
	if _, err := ReadCacheInfo(writeFile(t, t.TempDir(), "g.mtx", []byte("%%MatrixMarket matrix coordinate pattern general\n1 1 0\n"))); !errors.Is(err, ErrBadCache) {
		t.Fatalf("ReadCacheInfo of a Matrix Market file: %v", err)
	}
	// A weight's low bit flipped: valid, caught only by the checksum.
	bad = slices.Clone(data)
	bad[l.w+4*100] ^= 1
	var sums []RowsChecksum
	var first *Rows
	for p := range 2 {
		r, err := read(bad, splitAt(p, 2))
		if err != nil {
			t.Fatal(err)
		}
		sums = append(sums, r.Checksum)
		first = r
	}
	if err := first.VerifyRowsChecksum(sums, "g.hpg"); !errors.Is(err, ErrBadCache) {
		t.Fatalf("a flipped weight bit: %v", err)
	}
}

// Whatever bytes it is given, ReadCacheRows returns a valid part whose
// rows are those of the whole graph ReadCache reads (when it does), or an
// error, never a panic.
func FuzzReadCacheRows(f *testing.F) {
	for _, g := range testGraphs(f) {
		f.Add(cacheBytes(f, g), uint8(1), uint8(2))
	}
	f.Fuzz(func(t *testing.T, data []byte, num, den uint8) {
		den = max(den%4, 1)
		num %= den
		r, err := readCacheRows(bytes.NewReader(data), int64(len(data)), "fuzz.hpg", splitAt(int(num), int(den)))
		if err != nil {
			return
		}
		if err := r.Graph.Validate(); err != nil {
			t.Fatalf("an invalid part: %v", err)
		}
		if r.Bytes > int64(len(data)) {
			t.Fatalf("read %d bytes of %d", r.Bytes, len(data))
		}
		whole, err := ReadCache(bytes.NewReader(data), "fuzz.hpg")
		verr := r.VerifyRowsChecksum([]RowsChecksum{r.Checksum}, "fuzz.hpg")
		if r.Lo == 0 && int(r.Hi) == r.Graph.N && (err == nil) != (verr == nil) {
			t.Fatalf("the whole read says %v, the checksum of one part of every row %v", err, verr)
		}
		if err == nil {
			checkRows(t, "fuzz", r, whole)
		}
	})
}
