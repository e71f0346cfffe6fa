package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hpgraph/hpgraph/apps/reference/refdata"
	"github.com/hpgraph/hpgraph/apps/registry"
)

// ldbcOutput reads an LDBC output file ("id value" per line) into a map.
func ldbcOutput(t *testing.T, path string) map[string]string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for i, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		f := strings.Fields(line)
		if len(f) != 2 {
			t.Fatalf("%s:%d: %q is not \"id value\"", path, i+1, line)
		}
		if _, dup := out[f[0]]; dup {
			t.Fatalf("%s:%d: vertex %s again", path, i+1, f[0])
		}
		out[f[0]] = f[1]
	}
	return out
}

// ldbcEpsilon is LDBC Graphalytics' EpsilonValidationRule (PageRank,
// SSSP): Infinity matches only Infinity, and a number b matches the
// expected a when |a-b| <= 1e-4 * a.
func ldbcEpsilon(want, got string) bool {
	if want == "Infinity" || got == "Infinity" {
		return want == got
	}
	a, errA := strconv.ParseFloat(want, 64)
	b, errB := strconv.ParseFloat(got, 64)
	return errA == nil && errB == nil && math.Abs(a-b) <= 1e-4*a
}

// compareLDBC checks an output against LDBC's expected one: every vertex
// once, its value as exact (BFS, WCC) or as LDBC's epsilon rule says.
func compareLDBC(t *testing.T, wantFile, gotFile string, exact bool) {
	t.Helper()
	want, got := ldbcOutput(t, wantFile), ldbcOutput(t, gotFile)
	if len(got) != len(want) {
		t.Fatalf("%s: %d vertices, LDBC's %s has %d", gotFile, len(got), filepath.Base(wantFile), len(want))
	}
	same := 0
	for v, w := range want {
		g, ok := got[v]
		switch {
		case !ok:
			t.Fatalf("%s: no vertex %s", gotFile, v)
		case g == w:
			same++
		case exact || !ldbcEpsilon(w, g):
			t.Fatalf("%s: vertex %s: %s, LDBC's %s says %s", gotFile, v, g, filepath.Base(wantFile), w)
		}
	}
	t.Logf("%s: %d of %d values as LDBC writes them, the rest within its epsilon", filepath.Base(wantFile), same, len(want))
}

// run bfs, sssp, pagerank-ldbc, cc, lcc and cdlp with --out-format ldbc on LDBC's
// example graphs give LDBC's expected outputs: with the parameters from
// a .properties beside the files (LDBC's example configuration), and
// with them on the command line.
func TestLDBCExamplesThroughRun(t *testing.T) {
	dir, ok := refdata.Dir()
	if !ok {
		t.Skip("shared datasets not found")
	}
	examples := filepath.Join(dir, "reference", "ldbc-graphalytics", "example")
	algos := []struct{ algo, expected string }{{"bfs", "BFS"}, {"sssp", "SSSP"}, {"pagerank-ldbc", "PR"}, {"cc", "WCC"}, {"lcc", "LCC"}, {"cdlp", "CDLP"}}
	for _, name := range refdata.LDBCExamples {
		t.Run(name, func(t *testing.T) {
			prm, err := refdata.LDBCExampleParams(name)
			if err != nil {
				t.Fatal(err)
			}
			el, err := refdata.LDBCExample(name)
			if err != nil {
				t.Fatal(err)
			}
			tmp := t.TempDir()
			// A copy with its .properties, as LDBC ships its graphs.
			for _, ext := range []string{".v", ".e"} {
				data, err := os.ReadFile(filepath.Join(examples, name+ext))
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(tmp, name+ext), data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			props := fmt.Sprintf("graph.%[1]s.vertex-file = %[1]s.v\ngraph.%[1]s.edge-file = %[1]s.e\ngraph.%[1]s.directed = %[2]v\n"+
				"graph.%[1]s.edge-properties.names = weight\ngraph.%[1]s.edge-properties.types = real\n"+
				"graph.%[1]s.bfs.source-vertex = %[3]d\ngraph.%[1]s.sssp.weight-property = weight\ngraph.%[1]s.sssp.source-vertex = %[4]d\n"+
				"graph.%[1]s.pr.damping-factor = %[5]v\ngraph.%[1]s.pr.num-iterations = %[6]d\ngraph.%[1]s.cdlp.max-iterations = %[7]d\n",
				name, el.Directed, prm.BFSSource, prm.SSSPSource, prm.Damping, prm.PRIterations, prm.CDLPIterations)
			if err := os.WriteFile(filepath.Join(tmp, name+".properties"), []byte(props), 0o644); err != nil {
				t.Fatal(err)
			}
			direction := "--undirected"
			if el.Directed {
				direction = "--directed"
			}
			for _, a := range algos {
				src := prm.BFSSource
				if a.algo == "sssp" {
					src = prm.SSSPSource
				}
				iters := prm.PRIterations
				if a.algo == "cdlp" {
					iters = prm.CDLPIterations
				}
				for how, args := range map[string][]string{
					"properties": {"run", a.algo, filepath.Join(tmp, name+".e")},
					"flags":      {"run", a.algo, filepath.Join(examples, name+".v"), direction, "--weighted"},
				} {
					if how == "flags" && registry.Lookup(a.algo).Takes("damping") {
						args = append(args, "--damping", fmt.Sprint(prm.Damping))
					}
					if how == "flags" && registry.Lookup(a.algo).Takes("iterations") {
						args = append(args, "--iterations", strconv.Itoa(iters))
					}
					out := filepath.Join(tmp, a.expected+"-"+how)
					args = append(args, "--out-format", "ldbc", "--out", out, "--validate")
					if how == "flags" && (a.algo == "bfs" || a.algo == "sssp") {
						args = append(args, "--src", strconv.FormatInt(src, 10))
					}
					if text, code := hpgraph(t, args...); code != 0 {
						t.Fatalf("%v: exit %d\n%s", args, code, text)
					}
					compareLDBC(t, filepath.Join(examples, name+"-"+a.expected), out, a.algo == "bfs" || a.algo == "cc" || a.algo == "cdlp")
				}
			}
		})
	}
}

func TestLDBCBadInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("g.v", "1\n2\n3\n")
	g := write("g.e", "1 2\n2 3\n")
	write("bad.v", "1\n2\n")
	bad := write("bad.e", "1 2\n2 x\n")
	mtx := write("m.mtx", "%%MatrixMarket matrix coordinate pattern general\n3 3 1\n1 2\n")
	failCases(t, []failCase{
		{"directedness unknown", []string{"run", "bfs", g}, "say it with --directed or --undirected"},
		{"bad edge line", []string{"run", "bfs", bad, "--directed"}, "bad.e:2:"},
		{"both directions", []string{"run", "bfs", g, "--directed", "--undirected"}, "give one"},
		{"bad --weighted", []string{"run", "bfs", g, "--directed", "--weighted=maybe"}, "want true or false"},
		{"bad --format", []string{"info", g, "--format", "xml"}, "want auto, mtx"},
		{"--directed on Matrix Market", []string{"info", mtx, "--directed"}, "says itself whether it is directed"},
		{"no LDBC output for tc", []string{"run", "tc", g, "--undirected", "--out-format", "ldbc"}, "tc has no LDBC output"},
		{"unknown output format", []string{"run", "bfs", g, "--directed", "--out-format", "xml"}, "want hpgraph or ldbc"},
		{"--out onto the vertex file", []string{"run", "bfs", g, "--directed", "--out", filepath.Join(dir, "g.v")}, "a file of the input graph"},
		{"convert onto the edge file", []string{"convert", filepath.Join(dir, "g.v"), g, "--directed"}, "a file of the input graph"},
		{"no adjacency weights", []string{"info", g, "--format", "ldbc-adj", "--directed", "--weighted"}, "carry no weights"},
	})
	// The adjacency list of the same graph runs like it.
	adj := write("g-input", "1 2\n2 3\n3\n")
	for _, args := range [][]string{{"run", "bfs", g, "--directed", "--src", "1"}, {"run", "bfs", adj, "--format", "ldbc-adj", "--directed", "--src", "1"}} {
		out, code := hpgraph(t, args...)
		if code != 0 || !strings.Contains(out, "source 1: reached 3 vertices, depth 2") {
			t.Fatalf("%v: exit %d\n%s", args, code, out)
		}
	}
}

// The README's LDBC commands run as written, on the example graphs that
// ship with their .properties, from the repository's root, and write
// LDBC's expected outputs (where ../shared has them).
func TestREADMELDBCCommands(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	dir, haveShared := refdata.Dir()
	expected := map[string]string{"pagerank-ldbc example-directed": "example-directed-PR", "sssp example-undirected": "example-undirected-SSSP",
		"cdlp example-undirected": "example-undirected-CDLP"}
	ran := 0
	for _, line := range strings.Split(string(readme), "\n") {
		cmdline, _, _ := strings.Cut(line, "#")
		args := strings.Fields(cmdline)
		if len(args) < 4 || args[0] != "bin/hpgraph" || !strings.Contains(cmdline, "datasets/testdata/ldbc/") {
			continue
		}
		args = args[1:]
		out := filepath.Join(t.TempDir(), "out.txt")
		for i, a := range args {
			switch {
			case strings.HasPrefix(a, "datasets/"):
				args[i] = filepath.Join("..", "..", a)
			case i > 0 && args[i-1] == "--out":
				args[i] = out
			}
		}
		text, code := hpgraph(t, args...)
		if code != 0 {
			t.Fatalf("README: %s: exit %d\n%s", line, code, text)
		}
		ran++
		graph := strings.TrimSuffix(filepath.Base(args[2]), filepath.Ext(args[2]))
		want, ok := expected[args[1]+" "+graph]
		if !ok {
			t.Fatalf("README: %s: no expected output known for %s on %s", line, args[1], graph)
		}
		if haveShared {
			compareLDBC(t, filepath.Join(dir, "reference", "ldbc-graphalytics", "example", want), out, args[1] != "pagerank-ldbc" && args[1] != "sssp")
		}
	}
	if ran != len(expected) {
		t.Fatalf("ran %d of the README's LDBC commands, want %d", ran, len(expected))
	}
}
