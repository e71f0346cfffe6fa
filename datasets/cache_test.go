package datasets

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

func cacheBytes(t testing.TB, g *Graph) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteCache(&buf, g); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// testGraphs covers every flag combination of the cache.
func testGraphs(t testing.TB) map[string]*Graph {
	gs := map[string]*Graph{
		"directed weighted":   randomGraph(t, 1, 500, 3000, true, true, true),
		"undirected":          randomGraph(t, 2, 300, 1000, false, false, false),
		"undirected weighted": randomGraph(t, 3, 100, 2000, false, true, false),
	}
	el, err := ReadEdgeList(strings.NewReader("10 20 1\n20 30 2\n30 10 3\n99 10 4\n"), "ids.txt")
	if err != nil {
		t.Fatal(err)
	}
	if gs["with ids"], err = Build(el, Options{}); err != nil {
		t.Fatal(err)
	}
	gs["one isolated vertex"] = &Graph{Name: "", N: 1, RowPtr: []int64{0, 0}, Col: []int32{}, Directed: true, IDBase: 7}
	gs["directed weighted"].Stats = BuildStats{Entries: 5, SelfLoops: 6, Duplicates: 7}
	return gs
}

func TestCacheRoundTrip(t *testing.T) {
	for _, le := range []bool{true, false} {
		littleEndian = le
		for name, g := range testGraphs(t) {
			data := cacheBytes(t, g)
			readers := map[string]func() (*Graph, error){
				"sized":   func() (*Graph, error) { return ReadCache(bytes.NewReader(data), "g.hpg") },
				"unsized": func() (*Graph, error) { return ReadCache(unsized{bytes.NewReader(data)}, "g.hpg") },
				"oneByte": func() (*Graph, error) { return ReadCache(oneByte{bytes.NewReader(data)}, "g.hpg") },
			}
			for how, read := range readers {
				back, err := read()
				if err != nil {
					t.Fatalf("native=%v %s %s: %v", le, name, how, err)
				}
				if !reflect.DeepEqual(back, g) {
					t.Fatalf("native=%v %s %s: got %+v, want %+v", le, name, how, back, g)
				}
			}
		}
	}
	littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1
}

func TestCacheFile(t *testing.T) {
	g := testGraphs(t)["directed weighted"]
	path := filepath.Join(t.TempDir(), "g.hpg")
	if err := WriteCacheFile(path, g); err != nil {
		t.Fatal(err)
	}
	back, err := ReadCacheFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, g) {
		t.Fatal("file round trip changed the graph")
	}
	loaded, err := Load(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(loaded, g) {
		t.Fatal("Load changed the cached graph")
	}
	if ents, _ := os.ReadDir(filepath.Dir(path)); len(ents) != 1 {
		t.Errorf("WriteCacheFile left %d files behind", len(ents))
	}
}

// rechecksum fixes the trailing CRC after a deliberate edit, so the test
// reaches the check behind it.
func rechecksum(b []byte) []byte {
	n := len(b) - 4
	binary.LittleEndian.PutUint32(b[n:], crc32.Checksum(b[:n], castagnoli))
	return b
}

func TestReadCacheBadInput(t *testing.T) {
	g := testGraphs(t)["directed weighted"]
	good := cacheBytes(t, g)
	edit := func(f func(b []byte) []byte) []byte { return f(bytes.Clone(good)) }
	le := binary.LittleEndian
	l := newCacheLayout(int64(g.N), g.NNZ(), g.IDBase, int64(len(g.Name)), cacheDirected|cacheWeighted)
	for _, c := range []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "expected a 48-byte header, found 0 bytes"},
		{"short header", good[:20], "expected a 48-byte header, found 20 bytes"},
		{"bad magic", edit(func(b []byte) []byte { copy(b, "HPGRAPX\x00"); return b }), `expected magic "HPGRAPH\x00", found "HPGRAPX\x00"`},
		{"text file", []byte("%%MatrixMarket matrix coordinate pattern general\n3 3 0\n"), "expected magic"},
		{"bad version", edit(func(b []byte) []byte { le.PutUint32(b[8:], 2); return b }), "expected format version 1, found 2"},
		{"unknown flags", edit(func(b []byte) []byte { le.PutUint32(b[12:], 1<<7|1); return b }), "unknown flags 0x80"},
		{"negative N", edit(func(b []byte) []byte { le.PutUint64(b[16:], 1<<63); return b }), "vertices, found -9223372036854775808"},
		{"huge N", edit(func(b []byte) []byte { le.PutUint64(b[16:], 1<<40); return b }), "expected 1..2147483647 vertices"},
		{"huge nnz", edit(func(b []byte) []byte { le.PutUint64(b[24:], 1<<62); return b }), "arcs, found 4611686018427387904"},
		{"huge name", edit(func(b []byte) []byte { le.PutUint64(b[40:], 1<<40); return b }), "expected a name of at most 65536 bytes"},
		{"nnz disagrees with length", edit(func(b []byte) []byte { le.PutUint64(b[24:], uint64(g.NNZ()+2)); return b }), "bytes as the header describes"},
		{"truncated in the arrays", good[:len(good)/2], "bytes as the header describes"},
		{"truncated checksum", good[:len(good)-1], "bytes as the header describes"},
		{"trailing byte", append(bytes.Clone(good), 0), "bytes as the header describes"},
		{"flipped byte in Col", edit(func(b []byte) []byte { b[l.col+5] ^= 0x10; return b }), "checksum"},
		{"flipped checksum", edit(func(b []byte) []byte { b[len(b)-1] ^= 1; return b }), "checksum"},
		{"unsorted row, right checksum", edit(func(b []byte) []byte {
			row := g.RowPtr[0] // first row with 2+ arcs
			for v := 0; g.Degree(int32(v)) < 2; v++ {
				row = g.RowPtr[v+1]
			}
			a, c := l.col+4*row, l.col+4*row+4
			tmp := bytes.Clone(b[a : a+4])
			copy(b[a:a+4], b[c:c+4])
			copy(b[c:c+4], tmp)
			return rechecksum(b)
		}), "is not sorted"},
		{"column out of range, right checksum", edit(func(b []byte) []byte { le.PutUint32(b[l.col:], 1<<30); return rechecksum(b) }), "out of range"},
		{"RowPtr beyond arcs, right checksum", edit(func(b []byte) []byte { le.PutUint64(b[l.rowPtr+8*l.n:], 1<<50); return rechecksum(b) }), "RowPtr spans"},
	} {
		t.Run(c.name, func(t *testing.T) {
			for how, r := range map[string]io.Reader{"sized": bytes.NewReader(c.data), "unsized": unsized{bytes.NewReader(c.data)}} {
				g, err := ReadCache(r, "bad.hpg")
				if err == nil {
					t.Fatalf("%s: no error; read %+v", how, g)
				}
				if !errors.Is(err, ErrBadCache) || !strings.HasPrefix(err.Error(), "bad.hpg: ") || !strings.Contains(err.Error(), c.want) {
					t.Errorf("%s: error %q: want ErrBadCache, the file name and %q", how, err, c.want)
				}
			}
		})
	}
}

func TestReadCacheZeroVertices(t *testing.T) {
	b := cacheBytes(t, testGraphs(t)["undirected"])
	binary.LittleEndian.PutUint64(b[16:], 0)
	if _, err := ReadCache(bytes.NewReader(b), "zero.hpg"); !errors.Is(err, ErrEmptyGraph) {
		t.Errorf("error %v, want ErrEmptyGraph", err)
	}
}

// TestReadCacheEveryFlip flips every bit of a small cache file: each must
// give an error (never a panic, never a wrong graph).
func TestReadCacheEveryFlip(t *testing.T) {
	good := cacheBytes(t, testGraphs(t)["with ids"])
	for i := range len(good) * 8 {
		b := bytes.Clone(good)
		b[i/8] ^= 1 << (i % 8)
		if g, err := ReadCache(bytes.NewReader(b), "flip.hpg"); err == nil {
			t.Fatalf("bit %d flipped: no error, read %+v", i, g)
		}
		if g, err := ReadCache(unsized{bytes.NewReader(b)}, "flip.hpg"); err == nil {
			t.Fatalf("bit %d flipped (unsized): no error, read %+v", i, g)
		}
	}
}

// TestReadCacheHugeClaim: sizes in the header are checked against the
// input before anything is allocated for them.
func TestReadCacheHugeClaim(t *testing.T) {
	b := cacheBytes(t, testGraphs(t)["undirected"])
	binary.LittleEndian.PutUint64(b[24:], 1<<59)
	for how, r := range map[string]io.Reader{"sized": bytes.NewReader(b), "unsized": unsized{bytes.NewReader(b)}} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := ReadCache(r, "huge.hpg")
		runtime.ReadMemStats(&after)
		if err == nil {
			t.Fatalf("%s: no error", how)
		}
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 4<<20 {
			t.Errorf("%s: allocated %d bytes for a %d-byte file", how, alloc, len(b))
		}
	}
}
