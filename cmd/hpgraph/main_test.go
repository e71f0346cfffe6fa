package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/hpgraph/hpgraph/apps/reference/refdata"
)

// binary builds the command once for the end-to-end tests.
func binary(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "hpgraph-cli")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "hpgraph")
		out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput()
		if err != nil {
			binErr = &buildError{string(out)}
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

type buildError struct{ out string }

func (e *buildError) Error() string { return "go build: " + e.out }

func hpgraph(t *testing.T, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(binary(t), args...)
	out, err := cmd.CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(out), "panic:") || strings.Contains(string(out), "goroutine ") {
		t.Fatalf("hpgraph %v panicked:\n%s", args, out)
	}
	return string(out), code
}

func TestMain(m *testing.M) {
	code := m.Run()
	if binPath != "" {
		os.RemoveAll(filepath.Dir(binPath))
	}
	os.Exit(code)
}

func TestGenReproducesGAP(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		gen   string
		edges int
		order string // what --relabel auto makes of it
	}{{"kron", 10496, "by decreasing degree"}, {"uniform", 16125, "the file's"}} {
		out, code := hpgraph(t, "gen", c.gen, "--scale", "10", "-o", filepath.Join(dir, c.gen+".mtx"))
		if code != 0 {
			t.Fatalf("gen %s: exit %d\n%s", c.gen, code, out)
		}
		if want := "1024 vertices, " + strconv.Itoa(c.edges) + " edges"; !strings.Contains(out, want) {
			t.Errorf("gen %s: %q lacks %q (GAP's count)", c.gen, out, want)
		}
		// The written file must load back to the same counts.
		info, code := hpgraph(t, "info", filepath.Join(dir, c.gen+".mtx"))
		if code != 0 || !regexp.MustCompile(`edges\s+`+strconv.Itoa(c.edges)+` `).MatchString(info) {
			t.Errorf("info of generated %s (exit %d):\n%s", c.gen, code, info)
		}
		if !regexp.MustCompile(`vertex order\s+` + c.order + ` \(--relabel auto`).MatchString(info) {
			t.Errorf("info of generated %s: vertex order is not %q:\n%s", c.gen, c.order, info)
		}
	}
}

// TestGenMatrixMarketIsOneBased: gen writes Matrix Market as the format
// numbers it, ids 1..N with no %hpgraph id comment (which other readers
// would not know: they would see ids one above hpgraph's), the same
// graph as its edge list's, GAP's vertex v being row v+1; hpgraph reads
// it so (--src 1 is the first row, --src 0 is no vertex).
func TestGenMatrixMarketIsOneBased(t *testing.T) {
	dir := t.TempDir()
	mtx, el := filepath.Join(dir, "k8.mtx"), filepath.Join(dir, "k8.el")
	for _, out := range []string{mtx, el} {
		if o, code := hpgraph(t, "gen", "kron", "--scale", "8", "-o", out); code != 0 {
			t.Fatalf("gen -o %s: exit %d\n%s", out, code, o)
		}
	}
	arcs := func(path string, comment string) (set map[[2]int64]bool, n int64) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		set = map[[2]int64]bool{}
		sizeLine := strings.HasSuffix(path, ".mtx")
		for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			if strings.HasPrefix(l, "%hpgraph") && strings.Contains(l, "id") {
				t.Errorf("%s: %q: ids the format cannot say", path, l)
			}
			if strings.HasPrefix(l, comment) {
				continue
			}
			f := strings.Fields(l)
			u, _ := strconv.ParseInt(f[0], 10, 64)
			v, _ := strconv.ParseInt(f[1], 10, 64)
			if sizeLine {
				sizeLine = false
				continue
			}
			set[[2]int64{min(u, v), max(u, v)}] = true
			n = max(n, u, v)
		}
		return set, n
	}
	m, mMax := arcs(mtx, "%")
	e, eMax := arcs(el, "#")
	if len(m) == 0 || len(m) != len(e) || mMax != eMax+1 {
		t.Fatalf("%d edges up to id %d in Matrix Market, %d up to %d in the edge list", len(m), mMax, len(e), eMax)
	}
	for a := range e {
		if !m[[2]int64{a[0] + 1, a[1] + 1}] {
			t.Fatalf("edge list's %v is not the Matrix Market file's %v", a, [2]int64{a[0] + 1, a[1] + 1})
		}
	}
	if out, code := hpgraph(t, "run", "bfs", mtx, "--src", "1"); code != 0 {
		t.Errorf("run bfs --src 1 on the generated Matrix Market file: exit %d\n%s", code, out)
	}
	if out, code := hpgraph(t, "run", "bfs", mtx, "--src", "0"); code == 0 || !strings.Contains(out, "source 0") {
		t.Errorf("run bfs --src 0 on a 1-based file: exit %d\n%s", code, out)
	}
}

func TestBadInputExitsNonZero(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cases := []failCase{
		{"missing file", []string{"info", filepath.Join(dir, "nope.mtx")}, "nope.mtx"},
		{"index beyond size", []string{"info", write("big.mtx", "%%MatrixMarket matrix coordinate pattern general\n3 3 1\n4 1\n")}, "big.mtx:3"},
		{"too few entries", []string{"run", "bfs", write("short.mtx", "%%MatrixMarket matrix coordinate pattern general\n3 3 2\n1 2\n")}, "short.mtx"},
		{"source out of range", []string{"run", "bfs", write("ok.mtx", "%%MatrixMarket matrix coordinate pattern general\n3 3 1\n1 2\n"), "--src", "9"}, "source 9"},
		{"negative sssp weight", []string{"run", "sssp", write("neg.mtx", "%%MatrixMarket matrix coordinate real general\n3 3 1\n1 2 -4\n")}, "weight -4"},
		{"unknown algorithm", []string{"run", "dfs", "x.mtx"}, "unknown algorithm"},
		{"unknown backend", []string{"run", "bfs", write("ok2.mtx", "%%MatrixMarket matrix coordinate pattern general\n3 3 1\n1 2\n"), "--backend", "tpu"}, "no backend named \"tpu\""},
		{"bad weights flag", []string{"info", write("ok3.mtx", "%%MatrixMarket matrix coordinate pattern general\n3 3 1\n1 2\n"), "--weights", "random:9-1"}, "random"},
		{"unknown precision", []string{"run", "pagerank-ldbc", write("ok4.mtx", "%%MatrixMarket matrix coordinate pattern general\n3 3 1\n1 2\n"), "--precision", "half"}, "want float64 or float32"},
		{"float32 paper pagerank", []string{"run", "pagerank", write("ok5.mtx", "%%MatrixMarket matrix coordinate pattern general\n3 3 1\n1 2\n"), "--precision", "float32"}, "pagerank takes no --precision"},
	}
	failCases(t, cases)
}

// TestPageRankPrecisions runs LDBC PageRank in both precisions through
// the CLI and checks each against the (float64) reference, and that the
// bench row and record say which precision ran: the default (float32)
// unmarked, float64 marked in the row.
func TestPageRankPrecisions(t *testing.T) {
	dir, ok := refdata.Dir()
	if !ok {
		t.Skip("shared datasets not found")
	}
	for _, c := range []struct {
		flags     []string
		row, prec string
	}{
		{nil, "pagerank-iter ", "float32"},
		{[]string{"--precision", "float64"}, "pagerank-iter/float64", "float64"},
		{[]string{"--precision", "float32"}, "pagerank-iter ", "float32"},
	} {
		out, code := hpgraph(t, append([]string{"verify", "--algo", "pagerank-ldbc", filepath.Join(dir, "tiny", "karate.mtx")}, c.flags...)...)
		if code != 0 || !strings.Contains(out, "all PASS") {
			t.Fatalf("verify %v exit %d:\n%s", c.flags, code, out)
		}
		js := filepath.Join(t.TempDir(), "b.json")
		out, code = hpgraph(t, append([]string{"bench", "grid:10x12", "--algo", "pagerank-iter", "--backend", "cpu", "--runs", "1", "--validate", "--json", js}, c.flags...)...)
		if code != 0 || !strings.Contains(out, c.row) {
			t.Fatalf("bench %v exit %d, want a row %q:\n%s", c.flags, code, c.row, out)
		}
		if rec, _ := os.ReadFile(js); !strings.Contains(string(rec), `"pagerank_precision": "`+c.prec+`"`) {
			t.Fatalf("bench %v: the record lacks precision %s:\n%s", c.flags, c.prec, rec)
		}
	}
}

func TestVerifyShippedGraphs(t *testing.T) {
	dir, ok := refdata.Dir()
	if !ok {
		t.Skip("shared datasets not found")
	}
	files, _ := filepath.Glob(filepath.Join(dir, "tiny", "*.mtx"))
	if testing.Short() {
		files = files[:3]
	}
	out, code := hpgraph(t, append([]string{"verify"}, files...)...)
	if code != 0 || !strings.Contains(out, "all PASS") {
		t.Fatalf("verify exit %d:\n%s", code, out)
	}
}

func TestRunWritesOutputs(t *testing.T) {
	dir, ok := refdata.Dir()
	if !ok {
		t.Skip("shared datasets not found")
	}
	tmp := t.TempDir()
	outFile, jsonFile := filepath.Join(tmp, "bfs.txt"), filepath.Join(tmp, "bfs.json")
	// karate from vertex 31 (1-based) = 30 (0-based), LAGraph's source.
	out, code := hpgraph(t, "run", "bfs", filepath.Join(dir, "tiny", "karate.mtx"), "--src", "31",
		"--runs", "3", "--validate", "--out", outFile, "--json", jsonFile)
	if code != 0 || !strings.Contains(out, "validation: PASS") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	k, err := refdata.LAGraphKarateBFS()
	if err != nil {
		t.Fatal(err)
	}
	lines, _ := os.ReadFile(outFile)
	for i, l := range strings.Split(strings.TrimSpace(string(lines)), "\n") {
		f := strings.Fields(l)
		if len(f) != 3 || f[0] != strconv.Itoa(i+1) || f[1] != strconv.Itoa(int(k.Levels[i])) {
			t.Fatalf("line %d %q: want id %d depth %d", i+1, l, i+1, k.Levels[i])
		}
	}
	js, _ := os.ReadFile(jsonFile)
	for _, key := range []string{`"schema_version": 1`, `"runs_ms"`, `"mteps"`, `"hostname"`} {
		if !strings.Contains(string(js), key) {
			t.Errorf("JSON record lacks %s", key)
		}
	}
}

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// failCase is a command line that must fail with a message containing want.
type failCase struct {
	name string
	args []string
	want string
}

func failCases(t *testing.T, cases []failCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, code := hpgraph(t, c.args...)
			if code == 0 {
				t.Fatalf("exit 0, want non-zero; output:\n%s", out)
			}
			if !strings.Contains(out, c.want) {
				t.Errorf("message %q does not mention %q", out, c.want)
			}
		})
	}
}

// Renumbering the vertices (--relabel) changes no output: the lines are
// in the same order (the file's ids, increasing), ids are the file's,
// components are labelled by their smallest id, and depths, distances,
// triangle counts, labels and ranks are the vertices' own, so a diff of
// the two files shows nothing but ranks' last digits (summed in another
// order) and BFS parents (one of several on a shortest path).
func TestRelabelKeepsOutputs(t *testing.T) {
	tmp := t.TempDir()
	g := filepath.Join(tmp, "k10.hpg")
	if out, code := hpgraph(t, "gen", "kron", "--scale", "10", "-o", g); code != 0 {
		t.Fatalf("gen: exit %d:\n%s", code, out)
	}
	read := func(algo, relabel string, extra ...string) (ids []string, lines map[string][]string) {
		t.Helper()
		f := filepath.Join(tmp, algo+"-"+relabel+".txt")
		args := append([]string{"run", algo, g, "--backend", "cpu", "--relabel", relabel, "--out", f}, extra...)
		if out, code := hpgraph(t, args...); code != 0 {
			t.Fatalf("%v: exit %d:\n%s", args, code, out)
		}
		data, _ := os.ReadFile(f)
		lines = map[string][]string{}
		for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			fs := strings.Fields(l)
			lines[fs[0]] = fs[1:]
			ids = append(ids, fs[0])
		}
		return ids, lines
	}
	for _, c := range []struct {
		algo  string
		extra []string
		cols  int     // compared columns after the id (bfs: depth, not the parent)
		rel   float64 // ranks (cols 0): relative difference allowed
	}{{"bfs", nil, 1, 0}, {"sssp", []string{"--weights", "random:1-9"}, 1, 0}, {"cc", nil, 1, 0}, {"tc", []string{"--per-vertex"}, 1, 0},
		// (float32 contributions summed in another order: their last bits)
		{"pagerank-ldbc", nil, 0, 1e-6}, {"pagerank-ldbc", []string{"--precision", "float64"}, 0, 1e-9}, {"pagerank", nil, 0, 1e-9}, {"lcc", nil, 1, 0}, {"cdlp", nil, 1, 0},
		{"pagerank-ldbc", []string{"--out-format", "ldbc"}, 0, 1e-6}, {"cc", []string{"--out-format", "ldbc"}, 1, 0}} {
		plainIDs, plain := read(c.algo, "none", c.extra...)
		degreeIDs, degree := read(c.algo, "degree", c.extra...)
		if len(plain) != 1024 || len(degree) != len(plain) {
			t.Fatalf("%s: %d and %d lines", c.algo, len(plain), len(degree))
		}
		if !slices.Equal(plainIDs, degreeIDs) {
			t.Fatalf("%s %v: the lines' ids are in another order after --relabel degree: %v..., %v...", c.algo, c.extra, plainIDs[:5], degreeIDs[:5])
		}
		if !slices.IsSortedFunc(plainIDs, func(a, b string) int {
			x, _ := strconv.Atoi(a)
			y, _ := strconv.Atoi(b)
			return x - y
		}) {
			t.Fatalf("%s %v: lines not in the order of the ids: %v...", c.algo, c.extra, plainIDs[:5])
		}
		for id, want := range plain {
			got := degree[id]
			if c.cols == 0 { // ranks: summed in another order
				a, _ := strconv.ParseFloat(want[0], 64)
				b, _ := strconv.ParseFloat(got[0], 64)
				if d := a - b; d > c.rel*a || d < -c.rel*a {
					t.Fatalf("%s: vertex %s: %v, relabelled %v", c.algo, id, a, b)
				}
				continue
			}
			if strings.Join(got[:c.cols], " ") != strings.Join(want[:c.cols], " ") {
				t.Fatalf("%s: vertex %s: %v, relabelled %v", c.algo, id, want, got)
			}
		}
	}
	if out, code := hpgraph(t, "run", "bfs", g, "--relabel", "random"); code == 0 || !strings.Contains(out, "want none, degree or auto") {
		t.Fatalf("--relabel random: exit %d:\n%s", code, out)
	}
}

// TestRelabelAutoPaysForOneAnswer: run's --relabel auto renumbers a
// skewed graph only where one answer gains more than the renumbering
// costs (triangle counting on the CPU), and bench's, where the graph
// stays loaded, always.
func TestRelabelAutoPaysForOneAnswer(t *testing.T) {
	tmp := t.TempDir()
	g := filepath.Join(tmp, "k10.hpg")
	if out, code := hpgraph(t, "gen", "kron", "--scale", "10", "-o", g); code != 0 {
		t.Fatalf("gen: exit %d:\n%s", code, out)
	}
	for _, c := range []struct {
		algo    string
		renamed bool
	}{{"bfs", false}, {"cc", false}, {"pagerank-ldbc", false}, {"tc", true}, {"lcc", false}} {
		out, code := hpgraph(t, "run", c.algo, g, "--backend", "cpu")
		if code != 0 {
			t.Fatalf("%s: exit %d:\n%s", c.algo, code, out)
		}
		if got := strings.Contains(out, ", relabel "); got != c.renamed {
			t.Errorf("run %s --relabel auto: renumbered %v, want %v:\n%s", c.algo, got, c.renamed, out)
		}
	}
	out, code := hpgraph(t, "bench", g, "--backend", "cpu", "--algo", "bfs", "--runs", "1")
	if code != 0 || !strings.Contains(out, "vertex order degree") {
		t.Errorf("bench --relabel auto on a skewed graph: exit %d, no renumbering reported:\n%s", code, out)
	}
}

// TestRunOutStdout: --out - writes the results to stdout, the same lines
// --out FILE writes and nothing else (the report goes to stderr), makes
// no file named "-", and is refused with several sources.
func TestRunOutStdout(t *testing.T) {
	g, err := filepath.Abs(filepath.Join("..", "..", "datasets", "testdata", "gap", "d.sg"))
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	file := filepath.Join(tmp, "bfs.txt")
	if out, code := hpgraph(t, "run", "bfs", g, "--src", "5", "--backend", "cpu", "--out", file); code != 0 {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	want, _ := os.ReadFile(file)
	cmd := exec.Command(binary(t), "run", "bfs", g, "--src", "5", "--backend", "cpu", "--out", "-")
	cmd.Dir = tmp
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v:\n%s", err, stderr.String())
	}
	if len(want) == 0 || stdout.String() != string(want) {
		t.Errorf("stdout %q, want the file's %q", stdout.String(), want)
	}
	if !strings.Contains(stderr.String(), "result: source 5: reached 6 vertices") {
		t.Errorf("stderr lacks the report:\n%s", stderr.String())
	}
	if _, err := os.Stat(filepath.Join(tmp, "-")); err == nil {
		t.Error(`--out - made a file named "-"`)
	}
	out, code := hpgraph(t, "run", "bfs", g, "--src", "gap:2", "--backend", "cpu", "--out", "-")
	if code == 0 || !strings.Contains(out, "--out - writes one query's results to stdout") {
		t.Errorf("several sources to stdout: exit %d:\n%s", code, out)
	}
}

// TestGAPFilesOut: gen writes GAP's Kronecker graph as a .sg byte for
// byte as GAP's converter does (datasets/testdata/gap, written by GAP),
// and convert keeps a GAP file's order when it writes one (GAP's files
// hold no ids), unless --relabel asks otherwise.
func TestGAPFilesOut(t *testing.T) {
	gapFile, err := filepath.Abs(filepath.Join("..", "..", "datasets", "testdata", "gap", "kron6.sg"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(gapFile)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	gen, conv, degree := filepath.Join(dir, "gen.sg"), filepath.Join(dir, "conv.sg"), filepath.Join(dir, "degree.sg")
	for _, args := range [][]string{
		{"gen", "kron", "--scale", "6", "-o", gen},
		{"convert", gapFile, conv},
		{"convert", gapFile, degree, "--relabel", "degree"},
	} {
		if out, code := hpgraph(t, args...); code != 0 {
			t.Fatalf("%v: exit %d\n%s", args, code, out)
		}
	}
	for _, f := range []string{gen, conv} {
		if got, _ := os.ReadFile(f); !bytes.Equal(got, want) {
			t.Errorf("%s: %d bytes, not GAP's file of %d", filepath.Base(f), len(got), len(want))
		}
	}
	if got, _ := os.ReadFile(degree); bytes.Equal(got, want) || len(got) != len(want) {
		t.Errorf("convert --relabel degree: %d bytes, want the same graph renumbered (%d bytes, other order)", len(got), len(want))
	}
	if out, code := hpgraph(t, "convert", gapFile, filepath.Join(dir, "x.wsg")); code == 0 || !strings.Contains(out, "has none") {
		t.Errorf("an unweighted graph to .wsg: exit %d\n%s", code, out)
	}
}
