package datasets

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// addSeeds adds the testdata files matching pattern and the hand-made
// cases to the corpus.
func addSeeds(f *testing.F, pattern string, extra ...string) {
	files, err := filepath.Glob(filepath.Join("testdata", pattern))
	if err != nil {
		f.Fatal(err)
	}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, s := range extra {
		f.Add([]byte(s))
	}
}

// checkEdgeList is the fuzz property shared by the readers: an edge list
// that parsed is consistent, and Build either builds a valid graph from it
// or returns an error.
func checkEdgeList(t *testing.T, el *EdgeList) {
	if el.N <= 0 || len(el.Dst) != len(el.Src) || (el.W != nil && len(el.W) != len(el.Src)) {
		t.Fatalf("inconsistent edge list: N=%d, %d/%d/%d entries", el.N, len(el.Src), len(el.Dst), len(el.W))
	}
	for i := range el.Src {
		if el.Src[i] < 0 || int(el.Src[i]) >= el.N || el.Dst[i] < 0 || int(el.Dst[i]) >= el.N {
			t.Fatalf("entry %d (%d, %d) outside [0, %d)", i, el.Src[i], el.Dst[i], el.N)
		}
	}
	if el.IDs != nil && (len(el.IDs) != el.N || !slices.IsSorted(el.IDs) || len(slices.Compact(slices.Clone(el.IDs))) != el.N) {
		t.Fatalf("ids %v are not %d increasing ids", el.IDs, el.N)
	}
	for _, opt := range []Options{{}, {Symmetrize: true, KeepSelfLoops: true}} {
		if g, err := Build(el, opt); err == nil {
			if err := g.Validate(); err != nil {
				t.Fatalf("Build made an invalid graph: %v", err)
			}
		}
	}
}

func FuzzReadMatrixMarket(f *testing.F) {
	addSeeds(f, "*.mtx",
		"",
		"%%MatrixMarket matrix coordinate real symmetric\n3 3 2\n2 1 0.5\n3 3 -1e-3\n",
		"%%MatrixMarket matrix coordinate integer skew-symmetric\n2 2 1\n2 1 -4\n",
		"%%MatrixMarket matrix coordinate pattern hermitian\n%%GraphBLAS type bool\n\n2 2 1\n\n2 1\n",
		"%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 0\n",
		"%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n",
		"%%MatrixMarket matrix coordinate pattern general\n2147483647 2147483647 1000000000000\n1 2\n",
		"%%MatrixMarket matrix coordinate pattern general\n3 4 1\n1 1\n",
		"%%MatrixMarket matrix coordinate real general\n2 2 1\n1 2 nan\n",
		"3 3 2\n1 2 1\n2 3\n",
		"3 3 2\r\n1 2\r\n3 0\r\n",
		"%%MatrixMarket matrix coordinate real general\n2 2 2\n1 2 1e39\n2 1 99999999999999999999e-20\n",
		"%%MatrixMarket matrix coordinate pattern symmetric\n%hpgraph ids 70 5 9\n3 3 2\n2 1\n3 3\n",
		"%%MatrixMarket matrix coordinate pattern general\n%hpgraph idbase 0\n3 3 1\n2 1\n",
		"%%MatrixMarket matrix coordinate pattern general\n%hpgraph ids 1\n%hpgraph ids 1 2\n3 3 1\n2 1\n",
	)
	f.Fuzz(func(t *testing.T, data []byte) {
		el, err := ReadMatrixMarket(bytes.NewReader(data), "fuzz.mtx")
		if err != nil {
			return
		}
		if !bytes.Contains(data, []byte("%hpgraph")) && (el.IDBase != 1 || el.IDs != nil) {
			t.Fatalf("Matrix Market ids: IDBase=%d IDs=%v", el.IDBase, el.IDs)
		}
		if el.IDs != nil {
			// (in the file's row order, distinct)
			sorted := slices.Clone(el.IDs)
			slices.Sort(sorted)
			if len(el.IDs) != el.N || len(slices.Compact(sorted)) != el.N {
				t.Fatalf("ids %v are not %d distinct ids", el.IDs, el.N)
			}
			el.IDs = sorted[:el.N]
		}
		checkEdgeList(t, el)
	})
}

func FuzzReadEdgeList(f *testing.F) {
	addSeeds(f, "*.edgelist",
		"",
		"# c\n% c\n0 1\n1 2\n",
		"1,2,0.5\r\n2,3,1e-3\r\n",
		"9223372036854775807 0\n4294967296 7\n",
		"1000000000000 1000000000001\n",
		"5 5\n",
		"1 2\n3 4 5\n",
		"1 2 nan\n",
		"0 1\n-1 2\n",
		"# g\n#hpgraph edgelist directed=false weighted=true vertices=4 edges=2 ids=3..6\n3 4 0.5\n6 6 1\n",
		"#hpgraph edgelist directed=true weighted=false vertices=4 edges=1 ids=listed\n#hpgraph isolated 9 1000\n% c\n#hpgraph isolated 2\n5 9\n",
		"#hpgraph edgelist directed=true weighted=false vertices=3 edges=0 ids=listed\n#hpgraph isolated 7 8 9\n",
	)
	f.Fuzz(func(t *testing.T, data []byte) {
		el, err := ReadEdgeList(bytes.NewReader(data), "fuzz.txt")
		if err != nil {
			return
		}
		if el.IDs != nil && el.IDBase != 0 {
			t.Fatalf("IDBase %d with explicit ids", el.IDBase)
		}
		checkEdgeList(t, el)
	})
}

func FuzzParseReal(f *testing.F) {
	for _, s := range []string{"0", "-0", "1.5", "-.25", "1e-45", "3.4028235e38", "1e39", "nan", "inf", "0x1p3", "1_0", "9007199254740993", "1e22", "123456789012345678901"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, tok string) {
		checkParseReal(t, tok)
	})
}

func FuzzReadCache(f *testing.F) {
	for _, g := range testGraphs(f) {
		f.Add(cacheBytes(f, g))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		g, err := ReadCache(bytes.NewReader(data), "fuzz.hpg")
		if err != nil {
			return
		}
		if err := g.Validate(); err != nil {
			t.Fatalf("ReadCache returned an invalid graph: %v", err)
		}
		repeats := false
		for i := range g.Col {
			repeats = repeats || (i > 0 && g.Col[i] == g.Col[i-1] && !slices.Contains(g.RowPtr, int64(i)))
		}
		if g.RepeatFree == repeats {
			t.Fatalf("RepeatFree %v for a graph whose rows repeat a column: %v", g.RepeatFree, repeats)
		}
		// The host's derived graphs of whatever it reads are valid too.
		for _, d := range []*Graph{g.Transpose(), g.Symmetrized(nil)} {
			if err := d.Validate(); err != nil || d.N != g.N {
				t.Fatalf("a derived graph is invalid: %v", err)
			}
		}
		if tr := g.Transpose(); tr.NNZ() != g.NNZ() {
			t.Fatalf("the transpose has %d arcs, the graph %d", tr.NNZ(), g.NNZ())
		}
	})
}

// ldbcSeeds are LDBC Graphalytics' directed example (its .v and .e) and
// hand-made cases, as (vertex file, edge file).
var ldbcSeeds = [][2]string{
	{"1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n", "1 3 0.5\n1 5 0.3\n2 4 0.1\n2 5 0.3\n2 10 0.12\n3 1 0.53\n3 5 0.62\n3 8 0.21\n3 10 0.52\n5 3 0.69\n5 4 0.53\n5 8 0.1\n6 3 0.23\n6 4 0.39\n7 4 0.83\n8 1 0.39\n9 4 0.69\n"},
	{"2\n3\n4\n", "2 3\n3 4\n"},
	{"100\n5\n9223372036854775807\n", "5 100\n9223372036854775807 5\n"},
	{"1\n1\n", "1 1\n"},
	{"", ""},
	{"1\n2\n", "1 3\n"},
	{"10\n20\n", "10 20 nan\n"},
}

// FuzzReadLDBC reads a vertex file and an edge file as directed or not,
// weighted or not, or with the weights left unsaid (mode's low bits).
func FuzzReadLDBC(f *testing.F) {
	for i, s := range ldbcSeeds {
		f.Add([]byte(s[0]), []byte(s[1]), uint8(i))
	}
	f.Fuzz(func(t *testing.T, v, e []byte, mode uint8) {
		w := weightedness{weighted: mode&2 != 0, unknown: mode&4 != 0, why: "fuzz"}
		reopen := func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(e)), nil }
		el, err := readLDBC(source{r: bytes.NewReader(v), name: "fuzz.v", size: int64(len(v))},
			source{r: bytes.NewReader(e), name: "fuzz.e", size: int64(len(e))}, reopen, mode&1 != 0, w)
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("an error without a line: %v", err)
			}
			return
		}
		if el.Directed != (mode&1 != 0) || (el.W != nil) != w.weighted {
			t.Fatalf("directed=%v weighted=%v for mode %d", el.Directed, el.W != nil, mode)
		}
		checkEdgeList(t, el)
	})
}

func FuzzReadLDBCAdjacency(f *testing.F) {
	for _, s := range []string{
		"1 3 5\n2 4 5 10\n3 1 5 8 10\n4\n5 3 4 8\n6 3 4\n7 4\n8 1\n9 4\n10\n",
		"2 3 4\n3 2 4\n4 2 3\n",
		"3 1 7\n1 3\n7\n",
		"1 1\n1\n",
		"",
	} {
		f.Add([]byte(s), true)
		f.Add([]byte(s), false)
	}
	f.Fuzz(func(t *testing.T, data []byte, directed bool) {
		el, err := ReadLDBCAdjacency(bytes.NewReader(data), "fuzz-input", directed)
		if err != nil {
			return
		}
		if !directed {
			for i := range el.Src {
				if el.Src[i] > el.Dst[i] {
					t.Fatalf("undirected entry %d: %d > %d", i, el.Src[i], el.Dst[i])
				}
			}
		}
		checkEdgeList(t, el)
	})
}

func FuzzLDBCProperties(f *testing.F) {
	for _, s := range []string{
		"graph.g.directed = true\ngraph.g.bfs.source-vertex : 1\ngraph.g.pr.damping-factor=0.85\n",
		"graph.x.y.directed = false\n# c\n! c\ngraph.x.y.algorithms = bfs, \\\n  pr\n",
		"graph.a.directed true\ngraph.b.directed false\n",
		"graph..x\ngraph.g.\n\\\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := parseLDBCProperties(bytes.NewReader(data), "fuzz.properties", "g")
		if err != nil {
			return
		}
		for _, key := range []string{"directed", "bfs.source-vertex", "pr.damping-factor", "meta.vertices"} {
			p.Bool(key)
			p.Int(key)
			p.Float(key)
		}
		ldbcShape(Input{}, p, "fuzz.e")
	})
}
