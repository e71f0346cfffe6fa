package datasets

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
)

// smallChunks makes the parallel file reader cut even small files into
// many chunks and pieces (a piece size that does not divide the chunk's),
// on 3 goroutines.
func smallChunks(t *testing.T) {
	withProcs(t, 3)
	chunk, piece := readChunk, readPiece
	readChunk, readPiece = 4096, 1000
	t.Cleanup(func() { readChunk, readPiece = chunk, piece })
}

// The parallel file reader gives what the stream reader gives, through
// every entry point, with progress reported in order up to the file size.
func TestReadCacheFileParallel(t *testing.T) {
	smallChunks(t)
	dir := t.TempDir()
	for name, g := range testGraphs(t) {
		data := cacheBytes(t, g)
		path := writeFile(t, dir, strings.ReplaceAll(name, " ", "_")+".hpg", data)
		back, err := ReadCacheFile(path)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !reflect.DeepEqual(back, g) {
			t.Fatalf("%s: ReadCacheFile changed the graph", name)
		}
		var mu sync.Mutex
		var calls [][2]int64
		loaded, err := Load(path, Options{}, WithProgress(func(n, total int64) {
			mu.Lock()
			calls = append(calls, [2]int64{n, total})
			mu.Unlock()
		}))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !reflect.DeepEqual(loaded, g.Relabel(RelabelNone)) {
			t.Fatalf("%s: Load changed the graph", name)
		}
		size := int64(len(data))
		if len(calls) == 0 || calls[len(calls)-1] != [2]int64{size, size} {
			t.Fatalf("%s: progress calls %v, want the last to be (%d, %d)", name, calls, size, size)
		}
		for i, c := range calls {
			if c[1] != size || c[0] > size || (i > 0 && c[0] < calls[i-1][0]) {
				t.Fatalf("%s: progress calls %v", name, calls)
			}
		}
		// ReadCache on a file reads from its offset and leaves it at the end.
		prefixed := writeFile(t, dir, "prefixed.hpg", append([]byte("0123456789"), data...))
		f, err := os.Open(prefixed)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.Seek(10, io.SeekStart); err != nil {
			t.Fatal(err)
		}
		back, err = ReadCache(f, prefixed)
		if err != nil || !reflect.DeepEqual(back, g) {
			t.Fatalf("%s: ReadCache from an offset: %v", name, err)
		}
		if off, _ := f.Seek(0, io.SeekCurrent); off != int64(len(data))+10 {
			t.Errorf("%s: ReadCache left the file at %d, want its end %d", name, off, len(data)+10)
		}
		f.Close()
	}
}

// Bad files on disk give the errors the stream reader gives.
func TestReadCacheFileBadInput(t *testing.T) {
	smallChunks(t)
	g := randomGraph(t, 9, 3000, 20000, true, true, false) // a file of many chunks
	good := cacheBytes(t, g)
	l := newCacheLayout(int64(g.N), g.NNZ(), g.IDBase, int64(len(g.Name)), cacheDirected|cacheWeighted)
	flip := func(off int64) []byte {
		b := bytes.Clone(good)
		b[off] ^= 0x10
		return b
	}
	dir := t.TempDir()
	for _, c := range []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "expected a 48-byte header, found 0 bytes"},
		{"short header", good[:20], "expected a 48-byte header, found 20 bytes"},
		{"truncated in the arrays", good[:len(good)/2], "bytes as the header describes"},
		{"trailing byte", append(bytes.Clone(good), 0), "bytes as the header describes"},
		{"flipped byte in the first chunk", flip(l.col + 5), "checksum"},
		{"flipped byte in a middle chunk", flip(int64(len(good)) / 2), "checksum"},
		{"flipped byte in the last piece", flip(int64(len(good)) - 5), "checksum"},
		{"flipped checksum", flip(int64(len(good)) - 1), "checksum"},
		{"unsorted row, right checksum", func() []byte {
			b := bytes.Clone(good)
			copy(b[l.col:], b[l.col+4*g.RowPtr[1]-4:l.col+4*g.RowPtr[1]]) // row 0's first column := its last
			return rechecksum(b)
		}(), "row 0 is not sorted"},
	} {
		path := writeFile(t, dir, "bad.hpg", c.data)
		for how, read := range map[string]func() (*Graph, error){
			"ReadCacheFile": func() (*Graph, error) { return ReadCacheFile(path) },
			"Load":          func() (*Graph, error) { return Load(path, Options{}) },
		} {
			_, err := read()
			if err == nil || !errors.Is(err, ErrBadCache) || !strings.HasPrefix(err.Error(), path+": ") || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s, %s: error %v: want ErrBadCache, the path and %q", c.name, how, err, c.want)
			}
		}
	}
	if _, err := ReadCacheFile(filepath.Join(dir, "missing.hpg")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}
