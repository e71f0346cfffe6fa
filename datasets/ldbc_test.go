package datasets

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// ldbcExamples is the folder of LDBC Graphalytics' example graphs and
// outputs in the shared datasets.
func ldbcExamples(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(sharedDatasets(t), "reference", "ldbc-graphalytics", "example")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("LDBC examples not found: %v", err)
	}
	return dir
}

// writeFiles writes name -> content into dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// The LDBC examples read as the same graphs as LAGraph's Matrix Market
// copies of them (testdata), and their adjacency lists (the -input
// files) as the same graphs without weights.
func TestLDBCExamplesMatchOtherFormats(t *testing.T) {
	dir := ldbcExamples(t)
	for _, c := range []struct {
		name     string
		directed Override
	}{{"directed", OverrideYes}, {"undirected", OverrideNo}} {
		t.Run(c.name, func(t *testing.T) {
			base := filepath.Join(dir, "example-"+c.name)
			g, err := Load(base+".e", Options{Input: Input{Directed: c.directed, Weighted: OverrideYes}})
			if err != nil {
				t.Fatal(err)
			}
			ids, err := os.ReadFile(base + ".v")
			if err != nil {
				t.Fatal(err)
			}
			if g.N != len(strings.Fields(string(ids))) || g.Directed != (c.directed == OverrideYes) || g.W == nil {
				t.Fatalf("N=%d directed=%v weighted=%v", g.N, g.Directed, g.W != nil)
			}
			// The .v path names the same graph.
			if h, err := Load(base+".v", Options{Input: Input{Directed: c.directed, Weighted: OverrideYes}}); err != nil {
				t.Fatal(err)
			} else {
				sameGraph(t, h, g)
			}
			mm, err := Load(filepath.Join("testdata", "ldbc-"+c.name+"-example.mtx"), Options{})
			if err != nil {
				t.Fatal(err)
			}
			// LAGraph numbers the undirected example's ids 2..10 as rows 1..9:
			// compare by vertex, in increasing id order in both.
			sameGraph(t, g, mm)
			adj, err := Load(base+"-input", Options{Input: Input{Format: FormatLDBCAdjacency, Directed: c.directed}})
			if err != nil {
				t.Fatal(err)
			}
			plain := *g
			plain.W = nil
			sameGraphByIDs(t, adj, &plain)
		})
	}
}

// A .properties beside the files says what they do not; the caller's
// Input overrides it; its counts are checked.
func TestLDBCProperties(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"g.v": "5\n100\n7\n42\n9\n",
		"g.e": "5 100 1.5\n100 7 2\n42 5 0.25\n",
		"g.properties": "# a comment\n! another\ngraph.g.vertex-file = g.v\ngraph.g.edge-file = g.e\n" +
			"graph.g.meta.vertices = 5\ngraph.g.meta.edges = 3\ngraph.g.directed = false\n" +
			"graph.g.edge-properties.names = weight\ngraph.g.edge-properties.types = real\n" +
			"graph.g.bfs.source-vertex : 42\ngraph.g.pr.damping-factor=0.85\n" +
			"graph.g.algorithms = bfs, \\\n    pr, sssp\n",
	})
	for _, path := range []string{"g.e", "g.v", "g.properties", "g"} {
		in := Input{}
		if path == "g" {
			in.Format = FormatLDBC
		}
		g, err := Load(filepath.Join(dir, path), Options{Input: in})
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		// 9 has no edge and is a vertex; ids are sparse.
		if g.N != 5 || g.Directed || g.W == nil || g.NNZ() != 6 || !slices.Equal(g.IDs, []int64{5, 7, 9, 42, 100}) {
			t.Fatalf("%s: N=%d directed=%v weighted=%v nnz=%d ids=%v", path, g.N, g.Directed, g.W != nil, g.NNZ(), g.IDs)
		}
	}
	g, err := Load(filepath.Join(dir, "g.e"), Options{Input: Input{Directed: OverrideYes, Weighted: OverrideNo}})
	if err == nil || !strings.Contains(err.Error(), `g.e:1: expected "src dst": 2 vertex ids and no weight (as Input.Weighted says (unweighted))`) {
		t.Fatalf("--weighted=false over a weighted file: %v, %v", g, err)
	}
	if g, err = Load(filepath.Join(dir, "g.e"), Options{Input: Input{Directed: OverrideYes}}); err != nil || !g.Directed || g.NNZ() != 3 {
		t.Fatalf("--directed over the .properties: %v", err)
	}
	p, err := ReadLDBCProperties(filepath.Join(dir, "g.properties"))
	if err != nil {
		t.Fatal(err)
	}
	if src, ok, err := p.Int("bfs.source-vertex"); src != 42 || !ok || err != nil {
		t.Errorf("bfs.source-vertex: %d %v %v", src, ok, err)
	}
	if d, ok, err := p.Float("pr.damping-factor"); d != 0.85 || !ok || err != nil {
		t.Errorf("pr.damping-factor: %v %v %v", d, ok, err)
	}
	if v, _ := p.Get("algorithms"); v != "bfs, pr, sssp" {
		t.Errorf("a continued line: %q", v)
	}
	if _, _, err := p.Bool("bfs.source-vertex"); err == nil || !strings.Contains(err.Error(), "g.properties:10: graph.g.bfs.source-vertex: expected true or false") {
		t.Errorf("a bad value: %v", err)
	}

	// The counts declared are checked against the files.
	writeFiles(t, dir, map[string]string{"g.v": "5\n100\n7\n42\n"})
	if _, err := Load(filepath.Join(dir, "g.e"), Options{}); err == nil || !strings.Contains(err.Error(), "g.properties:5: graph.g.meta.vertices: declares 5, but") {
		t.Errorf("a short vertex file: %v", err)
	}
}

func TestLDBCErrors(t *testing.T) {
	for _, c := range []struct {
		name  string
		files map[string]string
		in    Input
		want  string
	}{
		{"bad vertex line", map[string]string{"g.v": "1\nx 2\n", "g.e": "1 1\n"}, Input{Directed: OverrideYes}, "g.v:2: expected one vertex id per line"},
		{"vertex twice", map[string]string{"g.v": "1\n\n2\n1\n", "g.e": "1 2\n"}, Input{Directed: OverrideYes}, "g.v:4: expected each vertex once, found id 1 again (first on line 1)"},
		{"vertex twice in order", map[string]string{"g.v": "1\n2\n2\n", "g.e": "1 2\n"}, Input{Directed: OverrideYes}, "g.v:3: expected each vertex once, found id 2 again (first on line 2)"},
		{"no vertices", map[string]string{"g.v": "\n", "g.e": "1 2\n"}, Input{Directed: OverrideYes}, "g.v:1: expected vertex ids"},
		{"unknown id, dense ids", map[string]string{"g.v": "1\n2\n3\n", "g.e": "1 2\n3 4\n"}, Input{Directed: OverrideYes}, "g.e:2: expected ids of vertices listed in"},
		{"unknown id, sparse ids", map[string]string{"g.v": "10\n20\n30\n", "g.e": "10 20\n\n20 30\n30 25\n"}, Input{Directed: OverrideYes}, "g.e:4: expected ids of vertices listed in"},
		{"missing weight", map[string]string{"g.v": "1\n2\n", "g.e": "1 2 0.5\n2 1\n"}, Input{Directed: OverrideYes, Weighted: OverrideYes}, "g.e:2: expected \"src dst weight\""},
		{"NaN weight", map[string]string{"g.v": "1\n2\n", "g.e": "1 2 nan\n"}, Input{Directed: OverrideYes, Weighted: OverrideYes}, "g.e:1: expected a finite value"},
		{"weights not declared", map[string]string{"g.v": "1\n2\n", "g.e": "1 2 0.5\n"}, Input{Directed: OverrideYes}, "g.e:1: expected \"src dst\" (2 vertex ids; a third column is read as the weight only when Input.Weighted"},
		{"directedness unknown", map[string]string{"g.v": "1\n2\n", "g.e": "1 2\n"}, Input{}, "say it with Input.Directed"},
		{"directedness not declared", map[string]string{"g.v": "1\n2\n", "g.e": "1 2\n", "g.properties": "graph.g.meta.edges = 1\n"}, Input{}, "no graph.g.directed"},
		{"bad directedness", map[string]string{"g.v": "1\n2\n", "g.e": "1 2\n", "g.properties": "graph.g.directed = yes\n"}, Input{}, "g.properties:1: graph.g.directed: expected true or false"},
		{"two edge properties", map[string]string{"g.v": "1\n2\n", "g.e": "1 2\n", "g.properties": "graph.g.directed = true\ngraph.g.edge-properties.names = weight, cost\n"}, Input{}, "g.properties:2: graph.g.edge-properties.names: expected at most one"},
		{"keys of two graphs", map[string]string{"g.v": "1\n2\n", "g.e": "1 2\n", "g.properties": "graph.a.directed = true\ngraph.b.directed = true\n"}, Input{}, "expected the keys of graph \"g\", found those of a, b"},
		{"no vertex file", map[string]string{"g.e": "1 2\n"}, Input{Directed: OverrideYes}, "g.v: no such file"},
		{"edge count", map[string]string{"g.v": "1\n2\n", "g.e": "1 2\n", "g.properties": "graph.g.directed = true\ngraph.g.meta.edges = 2\n"}, Input{}, "g.properties:2: graph.g.meta.edges: declares 2, but"},
		{"missing named file", map[string]string{"g.e": "1 2\n", "g.properties": "graph.g.directed = true\ngraph.g.vertex-file = other.v\n"}, Input{}, "g.properties:2: graph.g.vertex-file: the vertex file"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, c.files)
			_, err := Load(filepath.Join(dir, "g.e"), Options{Input: c.in})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want %q", err, c.want)
			}
		})
	}
	// Other formats say themselves whether they are directed.
	_, err := Load(filepath.Join("testdata", "karate.mtx"), Options{Input: Input{Directed: OverrideYes}})
	if err == nil || !strings.Contains(err.Error(), "is a Matrix Market file, which says itself") {
		t.Errorf("--directed on a Matrix Market file: %v", err)
	}
	// A plain edge list named .e is read as one when asked.
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"plain.e": "1 2\n2 3\n"})
	if el, err := LoadEdgeList(filepath.Join(dir, "plain.e"), WithInput(Input{Format: FormatEdgeList})); err != nil || el.N != 3 || !el.Directed {
		t.Errorf("--format edgelist: %+v, %v", el, err)
	}
	if _, err := LoadEdgeList(filepath.Join(dir, "plain.e")); err == nil || !strings.Contains(err.Error(), "Input.Format edgelist") {
		t.Errorf("a plain .e without --format: %v", err)
	}
}

func TestLDBCAdjacency(t *testing.T) {
	read := func(s string, directed bool) (*EdgeList, error) {
		return ReadLDBCAdjacency(strings.NewReader(s), "g-input", directed)
	}
	el, err := read("3 1 7\n1 3\n7 3\n9\n", false)
	if err != nil {
		t.Fatal(err)
	}
	if el.N != 4 || el.Directed || !slices.Equal(el.IDs, []int64{1, 3, 7, 9}) || len(el.Src) != 2 {
		t.Fatalf("got %+v", el)
	}
	if el, err = read("3 1 7\n1 3\n7\n9\n", true); err != nil || el.N != 4 || len(el.Src) != 3 || !el.Directed {
		t.Fatalf("directed: %+v, %v", el, err)
	}
	for _, c := range []struct {
		in       string
		directed bool
		want     string
	}{
		{"3 1 7\n1 3\n7\n", false, "g-input:1: an undirected list names each edge from both ends: vertex 3 lists 7, but the line of 7 (line 3) does not list 3"},
		{"3 1\n1 3 7\n7\n", false, "g-input:2: an undirected list names each edge from both ends: vertex 1 lists 7"},
		{"1 2\n2\n1\n", true, "g-input:3: expected one line per vertex, found vertex 1 again (first on line 1)"},
		{"1 2\n2 5\n", true, "g-input:2: expected neighbours that have a line of their own, found 5"},
		{"1 2\n2 x\n", true, "g-input:2: expected \"v n1 n2 ...\""},
		{"\n# only a comment\n", true, "g-input:2: expected lines"},
	} {
		if _, err := read(c.in, c.directed); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: got %v, want %q", c.in, err, c.want)
		}
	}
	if _, err := read("", true); !errors.Is(err, ErrEmptyGraph) {
		t.Errorf("empty list: %v", err)
	}
}
