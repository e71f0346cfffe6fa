package datasets

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// sharedDatasets is the project's shared dataset folder, beside the
// checkout; tests that need it skip when it is absent.
func sharedDatasets(t *testing.T) string {
	dir := filepath.Join("..", "..", "shared", "datasets")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("shared datasets not found at %s", dir)
	}
	return dir
}

// TestSharedDatasetsMatchReference loads every shipped graph and compares
// it with reference/computed_stats.tsv, whose numbers describe the
// undirected simple graph (self loops and duplicate or reverse arcs
// removed). The correspondences:
//
//   - vertices: for Matrix Market, N is the declared size and the
//     reference counts the id range [min_id, max_id]; min_id is 1 for every
//     file (1-based) and the declared size is max_id, so N == max_id. For
//     edge lists, N is the number of distinct ids: ids_present.
//   - entries: Stats.Entries (lines of the file; a symmetric file lists
//     each off-diagonal edge once, so this is not twice the edges).
//   - self_loops counts loop entries, and Build with Symmetrize (and self
//     loops dropped) counts each dropped loop entry once in
//     Stats.SelfLoops, whatever the symmetry, so they are equal.
//   - undirected_edges is Edges() of the symmetrized graph (loops dropped,
//     so no loop is counted), and max_degree_undirected its largest row.
//   - with dup_arcs = 0 (every shipped file), the arcs Build merges when
//     symmetrizing are exactly the reverse copies: Stats.Duplicates ==
//     2*(entries - self_loops - undirected_edges).
//   - for directed inputs loaded as directed, the arcs are the distinct
//     non-loop arcs, and reciprocated_arcs counts those whose reverse is an
//     arc too.
//
// components, triangles and BFS columns describe algorithms, not loading,
// and are checked by the apps' tests.
func TestSharedDatasetsMatchReference(t *testing.T) {
	dir := sharedDatasets(t)
	ref := readReference(t, filepath.Join(dir, "reference", "computed_stats.tsv"))
	var files []string
	for _, sub := range []string{"tiny", "small"} {
		ents, err := os.ReadDir(filepath.Join(dir, sub))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			files = append(files, sub+"/"+e.Name())
		}
	}
	for _, file := range files {
		t.Run(file, func(t *testing.T) {
			row, ok := ref[file]
			if !ok {
				t.Fatalf("%s has no row in computed_stats.tsv", file)
			}
			path := filepath.Join(dir, file)
			g, err := Load(path, Options{Symmetrize: true})
			if err != nil {
				t.Fatal(err)
			}
			isMTX := strings.Contains(file, ".mtx")
			wantN := row["ids_present"]
			if isMTX {
				if row["min_id"] != 1 {
					t.Fatalf("min_id = %d; the vertex comparison assumes 1-based files", row["min_id"])
				}
				wantN = row["max_id"]
			}
			maxDeg := 0
			for v := range g.N {
				maxDeg = max(maxDeg, g.Degree(int32(v)))
			}
			check := func(what string, got, want int64) {
				if got != want {
					t.Errorf("%s = %d, reference says %d", what, got, want)
				}
			}
			check("vertices", int64(g.N), wantN)
			check("entries", g.Stats.Entries, row["entries"])
			check("self loops", g.Stats.SelfLoops, row["self_loops"])
			check("undirected edges", g.Edges(), row["undirected_edges"])
			check("max degree", int64(maxDeg), row["max_degree_undirected"])
			if row["dup_arcs"] == 0 {
				check("merged reverse arcs", g.Stats.Duplicates, 2*(row["entries"]-row["self_loops"]-row["undirected_edges"]))
			}
			if err := g.Validate(); err != nil {
				t.Fatal(err)
			}

			d, err := Load(path, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if !d.Directed {
				return
			}
			var reciprocated int64
			for u := range int32(d.N) {
				for _, v := range d.Neighbors(u) {
					if _, found := slices.BinarySearch(d.Neighbors(v), u); found {
						reciprocated++
					}
				}
			}
			check("distinct non-loop arcs", d.NNZ(), row["distinct_arcs"]-row["self_loops"])
			check("reciprocated arcs", reciprocated, row["reciprocated_arcs"])
		})
	}
}

func readReference(t *testing.T, path string) map[string]map[string]int64 {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ref := map[string]map[string]int64{}
	var cols []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "#") {
			continue
		}
		fields := strings.Split(sc.Text(), "\t")
		if cols == nil {
			cols = fields
			continue
		}
		row := map[string]int64{}
		for i, c := range cols[1:] {
			if row[c], err = strconv.ParseInt(fields[i+1], 10, 64); err != nil {
				t.Fatalf("%s: %s: %v", path, fields[0], err)
			}
		}
		ref[fields[0]] = row
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return ref
}

func writeFile(t *testing.T, dir, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func gzipBytes(t *testing.T, data []byte) []byte {
	var buf bytes.Buffer
	z := gzip.NewWriter(&buf)
	if _, err := z.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func mustLoad(t *testing.T, path string, opt Options) *Graph {
	t.Helper()
	g, err := Load(path, opt)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func TestLoadDetectsFormat(t *testing.T) {
	dir := t.TempDir()
	karate, err := os.ReadFile(filepath.Join("testdata", "karate.mtx"))
	if err != nil {
		t.Fatal(err)
	}
	want := mustLoad(t, filepath.Join("testdata", "karate.mtx"), Options{})
	if want.N != 34 || want.Edges() != 78 || want.Directed {
		t.Fatalf("karate: N=%d edges=%d directed=%v", want.N, want.Edges(), want.Directed)
	}
	for name, data := range map[string][]byte{
		"karate.txt":    karate,                                               // banner wins over the extension
		"karate.mtx.gz": gzipBytes(t, karate),                                 // gzip by magic, then banner
		"karate.bin":    gzipBytes(t, karate),                                 // gzip by magic whatever the name
		"KARATE.MTX.GZ": gzipBytes(t, karate),                                 // extensions are case-insensitive
		"nobanner.mm":   karate[bytes.Index(karate, []byte("\n34 34 78"))+1:], // .mm without banner: pattern general
	} {
		g := mustLoad(t, writeFile(t, dir, name, data), Options{Symmetrize: true})
		sameGraph(t, g, want)
	}
	el := mustLoad(t, writeFile(t, dir, "g.dat", []byte("1 2\n2 3\n")), Options{})
	if el.N != 3 || !el.Directed || el.IDBase != 1 {
		t.Errorf("unknown extension: want an edge list, got N=%d directed=%v", el.N, el.Directed)
	}
	// Content decides before the extension: a banner makes Matrix Market
	// whatever the name, but a .hpg file without the magic is a bad cache.
	mustLoad(t, writeFile(t, dir, "mtx.hpg", karate), Options{})
	if _, err := Load(writeFile(t, dir, "text.hpg", []byte("1 2\n")), Options{}); !errors.Is(err, ErrBadCache) {
		t.Errorf(".hpg holding text: error %v, want ErrBadCache", err)
	}
	if _, err := Load(dir, Options{}); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("directory: error %v", err)
	}
	if _, err := Load(filepath.Join(dir, "missing.mtx"), Options{}); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: error %v", err)
	}
}

func TestLoadGzipErrors(t *testing.T) {
	dir := t.TempDir()
	karate, err := os.ReadFile(filepath.Join("testdata", "karate.mtx"))
	if err != nil {
		t.Fatal(err)
	}
	gz := gzipBytes(t, karate)
	cases := map[string][]byte{
		"magic only":      gz[:2],
		"header only":     gz[:10],
		"cut in the data": gz[:len(gz)/2],
		"cut in trailer":  gz[:len(gz)-3],
		"bad checksum":    append(bytes.Clone(gz[:len(gz)-8]), 0, 0, 0, 0, 0, 0, 0, 0),
		"trailing junk":   append(bytes.Clone(gz), 'x', 'y', 'z'),
	}
	for i := 20; i < len(gz)-8; i += 37 {
		b := bytes.Clone(gz)
		b[i] ^= 0x5a
		cases["flipped byte "+strconv.Itoa(i)] = b
	}
	for name, data := range cases {
		t.Run(name, func(t *testing.T) {
			path := writeFile(t, dir, "k.mtx.gz", data)
			_, err := Load(path, Options{})
			if err == nil {
				t.Fatal("no error")
			}
			if !strings.HasPrefix(err.Error(), path+":") {
				t.Errorf("error %q does not start with the file name", err)
			}
			r, err := Open(path)
			if err == nil {
				_, err = io.ReadAll(r)
				r.Close()
			}
			if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "gzip data is") {
				t.Errorf("Open and read: error %v, want one naming %s and the gzip problem", err, path)
			}
		})
	}
	_, err = Load(writeFile(t, dir, "t.mtx.gz", gz[:len(gz)/2]), Options{})
	if !strings.Contains(err.Error(), "gzip data is truncated") {
		t.Errorf("truncated: error %v", err)
	}
	_, err = Load(writeFile(t, dir, "c.mtx.gz", cases["bad checksum"]), Options{})
	if !strings.Contains(err.Error(), "gzip data is corrupt (checksum mismatch)") {
		t.Errorf("bad checksum: error %v", err)
	}
}

func TestOpenPlainAndGzip(t *testing.T) {
	dir := t.TempDir()
	text := []byte("0 1\n1 2\n")
	for name, data := range map[string][]byte{"p.txt": text, "z.txt.gz": gzipBytes(t, text), "empty": nil} {
		r, err := Open(writeFile(t, dir, name, data))
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(r)
		r.Close()
		if err != nil || (!bytes.Equal(got, text) && name != "empty") || (name == "empty" && len(got) != 0) {
			t.Errorf("%s: read %q, %v", name, got, err)
		}
	}
}

func TestLoadProgress(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	for i := range 200000 {
		b.WriteString(strconv.Itoa(i) + " " + strconv.Itoa(i*7%200000) + "\n")
	}
	for name, data := range map[string][]byte{"p.txt": []byte(b.String()), "p.txt.gz": gzipBytes(t, []byte(b.String()))} {
		path := writeFile(t, dir, name, data)
		var mu sync.Mutex
		var calls [][2]int64
		_, err := Load(path, Options{}, WithProgress(func(n, total int64) {
			mu.Lock()
			calls = append(calls, [2]int64{n, total})
			mu.Unlock()
		}))
		if err != nil {
			t.Fatal(err)
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
	}
}

// TestLoadCacheAppliesOptions: options that change the graph give, from a
// cache, what they give from the text.
func TestLoadCacheAppliesOptions(t *testing.T) {
	dir := t.TempDir()
	text := filepath.Join("testdata", "west0067.mtx") // directed, weighted, self loops
	cache := filepath.Join(dir, "west.hpg")
	if err := WriteCacheFile(cache, mustLoad(t, text, Options{})); err != nil {
		t.Fatal(err)
	}
	for _, opt := range []Options{
		{},
		{Symmetrize: true},
		{Weights: WeightsNone},
		{Symmetrize: true, Weights: WeightsRandom, WeightMin: 1, WeightMax: 64, Seed: 9},
	} {
		sameGraph(t, mustLoad(t, cache, opt), mustLoad(t, text, opt))
	}
	if _, err := Load(cache, Options{Weights: WeightMode(99)}); err == nil {
		t.Error("unknown weight mode on a cache: no error")
	}
}

func TestGraphEdgeListRebuilds(t *testing.T) {
	for name, g := range testGraphs(t) {
		opt := Options{KeepSelfLoops: true}
		back, err := Build(g.EdgeList(), opt)
		if err != nil {
			t.Fatal(err)
		}
		sameGraph(t, back, g)
		if !reflect.DeepEqual(back.IDs, g.IDs) || back.IDBase != g.IDBase {
			t.Errorf("%s: ids changed", name)
		}
	}
}

func TestLoadEdgeList(t *testing.T) {
	dir := t.TempDir()
	g := mustLoad(t, filepath.Join("testdata", "hartford_drug.edgelist"), Options{})
	cache := filepath.Join(dir, "h.hpg")
	if err := WriteCacheFile(cache, g); err != nil {
		t.Fatal(err)
	}
	fromCache, err := LoadEdgeList(cache)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(fromCache, g.EdgeList()) {
		t.Error("LoadEdgeList of a cache differs from Graph.EdgeList")
	}
	el, err := LoadEdgeList(filepath.Join("testdata", "hartford_drug.edgelist"))
	if err != nil {
		t.Fatal(err)
	}
	if el.N != 212 || len(el.Src) != 337 || len(el.IDs) != 212 {
		t.Errorf("hartford: N=%d entries=%d ids=%d", el.N, len(el.Src), len(el.IDs))
	}
}
