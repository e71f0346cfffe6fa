package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/datasets/gen"
)

// kron10 generates GAP's Kronecker graph of scale 10 once per test.
func kron10(t *testing.T) (dir, g string) {
	t.Helper()
	dir = t.TempDir()
	g = filepath.Join(dir, "k10.hpg")
	if out, code := hpgraph(t, "gen", "kron", "--scale", "10", "-o", g); code != 0 {
		t.Fatalf("gen: exit %d:\n%s", code, out)
	}
	return dir, g
}

func readRecord(t *testing.T, path string) record { return readJSON[record](t, path) }

// readJSON decodes the JSON file at path as a T.
func readJSON[T any](t *testing.T, path string) T {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var r T
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	return r
}

// columns reads an --out file as id -> its first n columns after the id.
func columns(t *testing.T, path string, n int) map[string]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		f := strings.Fields(l)
		m[f[0]] = strings.Join(f[1:1+n], " ")
	}
	return m
}

// A batch of queries gives each source the result a run of its own gives.
func TestMultiSourceEqualsSingleRuns(t *testing.T) {
	dir, g := kron10(t)
	for _, c := range []struct {
		algo  string
		extra []string
		cols  int // compared columns (bfs: the depth; a parent may differ)
	}{{"bfs", nil, 1}, {"sssp", []string{"--weights", "random:1-64"}, 1}} {
		js := filepath.Join(dir, c.algo+".json")
		args := append([]string{"run", c.algo, g, "--backend", "cpu", "--src", "1,17,42", "--validate",
			"--out", filepath.Join(dir, c.algo+"-batch-{src}.txt"), "--json", js}, c.extra...)
		out, code := hpgraph(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d:\n%s", args, code, out)
		}
		for _, want := range []string{"3 sources", "src 1: reached", "src 17: reached", "src 42: reached", "3 queries on backend cpu", "validation: all 3 queries PASS", "time to answer"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s batch output lacks %q:\n%s", c.algo, want, out)
			}
		}
		rec := readRecord(t, js)
		if len(rec.Queries) != 3 || len(rec.RunsMS) != 3 || rec.Warmup != 0 {
			t.Fatalf("%s: %d queries, %d runs, warm-up %d; want 3, 3, 0", c.algo, len(rec.Queries), len(rec.RunsMS), rec.Warmup)
		}
		for i, src := range []int64{1, 17, 42} {
			q := rec.Queries[i]
			if q.Src != src || q.MS <= 0 || q.Iterations < 1 {
				t.Errorf("%s: query %d is %+v, want src %d", c.algo, i, q, src)
			}
			single := filepath.Join(dir, c.algo+"-single-"+strconv.FormatInt(src, 10)+".txt")
			args := append([]string{"run", c.algo, g, "--backend", "cpu", "--src", strconv.FormatInt(src, 10), "--out", single}, c.extra...)
			if out, code := hpgraph(t, args...); code != 0 {
				t.Fatalf("%v: exit %d:\n%s", args, code, out)
			}
			want, got := columns(t, single, c.cols), columns(t, outPath(filepath.Join(dir, c.algo+"-batch-{src}.txt"), src), c.cols)
			if len(want) != 1024 || len(got) != len(want) {
				t.Fatalf("%s src %d: %d and %d lines", c.algo, src, len(want), len(got))
			}
			reachedLines, deepest := 0, 0
			for id, w := range want {
				if got[id] != w {
					t.Fatalf("%s src %d: vertex %s: batch %q, single run %q", c.algo, src, id, got[id], w)
				}
				if d, err := strconv.Atoi(w); err == nil && d >= 0 {
					reachedLines++
					deepest = max(deepest, d)
				}
			}
			// The summary line agrees with the depths written.
			if line := fmt.Sprintf("src %d: reached %d vertices, depth %d;", src, reachedLines, deepest); c.algo == "bfs" && !strings.Contains(out, line) {
				t.Errorf("bfs src %d: the summary is not %q:\n%s", src, line, out)
			}
		}
	}
}

func TestSourceArguments(t *testing.T) {
	dir, g := kron10(t)
	bad := filepath.Join(dir, "sources.txt")
	if err := os.WriteFile(bad, []byte("# sources\n1\n17 # a hub?\n\nforty-two\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	good := filepath.Join(dir, "good.txt")
	if err := os.WriteFile(good, []byte("# sources\n1\n17 # a comment\n\n42\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "no-such-graph.hpg") // the checks come before any loading
	failCases(t, []failCase{
		{"bad line in @FILE", []string{"run", "bfs", g, "--src", "@" + bad}, bad + ":5"},
		{"missing @FILE", []string{"run", "bfs", g, "--src", "@" + filepath.Join(dir, "nope.txt")}, "nope.txt"},
		{"bad list", []string{"run", "bfs", g, "--src", "1,x"}, `"x" is not a vertex id`},
		{"bad gap count", []string{"run", "bfs", g, "--src", "gap:0"}, "gap:N"},
		{"--out without {src}", []string{"run", "bfs", missing, "--src", "1,2", "--out", filepath.Join(dir, "one.txt")}, "{src}"},
		{"several sources for pagerank", []string{"run", "pagerank", missing, "--src", "gap:4"}, "pagerank takes no source"},
		{"unknown id in a list", []string{"run", "bfs", g, "--src", "1,5000"}, "source 5000"},
	})
	if _, err := os.Stat(filepath.Join(dir, "one.txt")); err == nil {
		t.Error("--out without {src} wrote a file")
	}
	js := filepath.Join(dir, "f.json")
	if out, code := hpgraph(t, "run", "bfs", g, "--backend", "cpu", "--src", "@"+good, "--json", js); code != 0 {
		t.Fatalf("@FILE: exit %d:\n%s", code, out)
	}
	var srcs []int64
	for _, q := range readRecord(t, js).Queries {
		srcs = append(srcs, q.Src)
	}
	if !slices.Equal(srcs, []int64{1, 17, 42}) {
		t.Errorf("@FILE ran sources %v, want [1 17 42]", srcs)
	}
}

// gap:N picks vertices with out-edges, the same ones whatever --relabel.
func TestGAPSourcesThroughCLI(t *testing.T) {
	dir, g := kron10(t)
	reached := regexp.MustCompile(`(?m)^src (\d+): reached (\d+) vertices`)
	var picks [][]int64
	for _, rl := range []string{"none", "degree", "auto"} {
		js := filepath.Join(dir, rl+".json")
		out, code := hpgraph(t, "run", "bfs", g, "--backend", "cpu", "--src", "gap:4", "--relabel", rl, "--json", js)
		if code != 0 {
			t.Fatalf("--relabel %s: exit %d:\n%s", rl, code, out)
		}
		var srcs []int64
		for _, m := range reached.FindAllStringSubmatch(out, -1) {
			if n, _ := strconv.Atoi(m[2]); n < 2 {
				t.Errorf("--relabel %s: source %s reached %d vertices: it has no out-edges", rl, m[1], n)
			}
			id, _ := strconv.ParseInt(m[1], 10, 64)
			srcs = append(srcs, id)
		}
		var fromJSON []int64
		for _, q := range readRecord(t, js).Queries {
			fromJSON = append(fromJSON, q.Src)
		}
		if len(srcs) != 4 || !slices.Equal(srcs, fromJSON) {
			t.Fatalf("--relabel %s: sources %v printed, %v recorded; want 4", rl, srcs, fromJSON)
		}
		picks = append(picks, srcs)
	}
	if !slices.Equal(picks[0], picks[1]) || !slices.Equal(picks[0], picks[2]) {
		t.Errorf("gap:4 picked %v (none), %v (degree), %v (auto): want the same", picks[0], picks[1], picks[2])
	}
}

// gapSources skips vertices without out-edges, sizes the draw as GAP does
// (the largest vertex with an edge, plus one) and picks the same file ids
// after a relabelling.
func TestGAPSourcesSkipIsolated(t *testing.T) {
	// 10 vertices, 1-based ids; 4 and 10 have no edges, so GAP's
	// num_nodes is 9 (vertex 9 is the largest with an edge).
	el := &datasets.EdgeList{N: 10, IDBase: 1, Src: []int32{0, 0, 2, 4, 5, 6, 7}, Dst: []int32{1, 2, 5, 6, 7, 8, 8}}
	d, err := datasets.Build(el, datasets.Options{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := gapSources(d, 12)
	if err != nil {
		t.Fatal(err)
	}
	// The draws over [0, 9), those of the isolated vertex 3 (id 4) skipped.
	draws := gen.NewSourceDraws(gapSourceSeed, 9)
	var want []int64
	for len(want) < 12 {
		k := draws.Next()
		if k != 3 {
			want = append(want, int64(k)+1)
		}
	}
	ids := func(d *datasets.Graph, vs []int32) []int64 {
		var out []int64
		for _, v := range vs {
			if d.Degree(v) == 0 {
				t.Errorf("picked vertex %d of degree 0", d.OriginalID(v))
			}
			out = append(out, d.OriginalID(v))
		}
		return out
	}
	if ids := ids(d, got); !slices.Equal(ids, want) {
		t.Fatalf("picked %v, want %v", ids, want)
	}
	r := d.Permute([]int32{9, 8, 7, 6, 5, 4, 3, 2, 1, 0})
	got, err = gapSources(r, 12)
	if err != nil {
		t.Fatal(err)
	}
	if ids := ids(r, got); !slices.Equal(ids, want) {
		t.Fatalf("relabelled: picked %v, want %v", ids, want)
	}
	if _, err := gapSources(&datasets.Graph{N: 3, RowPtr: make([]int64, 4)}, 1); err == nil {
		t.Error("no error on a graph without edges")
	}
}

// run's time-to-answer line and record are there and add up.
func TestTimeToAnswer(t *testing.T) {
	dir, g := kron10(t)
	js := filepath.Join(dir, "one.json")
	out, code := hpgraph(t, "run", "bfs", g, "--json", js)
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	line := regexp.MustCompile(`(?m)^time to answer [0-9.]+ ms \(process start to result\): start [0-9.]+, load [0-9.]+.*, PREPROCESS [0-9.]+, compute [0-9.]+, copy back [0-9.]+, output [0-9.]+, other -?[0-9.]+; host peak [0-9]+ MiB \([0-9.]+x the file\)$`)
	if !line.MatchString(out) {
		t.Errorf("no time-to-answer line:\n%s", out)
	}
	if !strings.Contains(out, "one run, no warm-up") {
		t.Errorf("--runs 1 did not say it ran once:\n%s", out)
	}
	r := readRecord(t, js)
	st, _ := os.Stat(g)
	if r.Warmup != 0 || len(r.RunsMS) != 1 {
		t.Errorf("--runs 1: warm-up %d, %d runs; want 0, 1", r.Warmup, len(r.RunsMS))
	}
	if r.AnswerMS < r.LoadMS+r.ComputeTotalMS || r.AnswerMS <= 0 || r.LoadMS <= 0 || r.ComputeTotalMS <= 0 {
		t.Errorf("answer %v ms < load %v + compute %v", r.AnswerMS, r.LoadMS, r.ComputeTotalMS)
	}
	if sum := r.StartMS + r.LoadMS + r.SetupWaitMS + r.PreprocessTotalMS + r.ComputeTotalMS + r.CopyBackMS + r.OutputMS + r.OtherMS; math.Abs(sum-r.AnswerMS) > 1e-3 {
		t.Errorf("the parts add up to %v ms, the answer is %v", sum, r.AnswerMS)
	}
	if r.HostPeakBytes <= 0 || r.FileBytes != st.Size() || r.DevicePeakBytes != 0 {
		t.Errorf("host peak %d, file %d (size %d), device peak %d", r.HostPeakBytes, r.FileBytes, st.Size(), r.DevicePeakBytes)
	}
	if r.SetupMS < r.SetupHiddenMS || r.ComputeTotalMS != r.RunsMS[0] || r.PreprocessTotalMS != r.PreprocessMS {
		t.Errorf("setup %v hidden %v; compute %v of runs %v; preprocess %v, %v", r.SetupMS, r.SetupHiddenMS, r.ComputeTotalMS, r.RunsMS, r.PreprocessTotalMS, r.PreprocessMS)
	}
	js = filepath.Join(dir, "three.json")
	out, code = hpgraph(t, "run", "bfs", g, "--backend", "cpu", "--runs", "3", "--json", js)
	if code != 0 || !strings.Contains(out, "compute") || !strings.Contains(out, "1 warm-up + 3 runs") || !strings.Contains(out, "no device set-up") {
		t.Fatalf("--runs 3: exit %d:\n%s", code, out)
	}
	if r := readRecord(t, js); r.Warmup != 1 || len(r.RunsMS) != 3 || r.ComputeTotalMS < r.RunsMS[0]+r.RunsMS[1]+r.RunsMS[2] {
		t.Errorf("--runs 3: warm-up %d, runs %v, compute total %v", r.Warmup, r.RunsMS, r.ComputeTotalMS)
	}
}
