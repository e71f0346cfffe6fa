package main

import (
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/hpgraph/hpgraph/apps"
	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/hyb"
	"github.com/hpgraph/hpgraph/internal/measure"
	"github.com/hpgraph/hpgraph/vertexprog"
)

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b)) }

// TestBenchEndToEnd runs every algorithm on two generated graphs and checks
// that the JSON record is consistent with itself; it asserts nothing about
// how fast anything is.
func TestBenchEndToEnd(t *testing.T) {
	js := filepath.Join(t.TempDir(), "bench.json")
	out, code := hpgraph(t, "bench", "kron:8", "grid:10x12", "--backend", "cpu", "--runs", "2",
		"--copy-mib", "4", "--validate", "--json", js)
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	for _, want := range []string{"each undirected edge counted once", "MTEPS", "%copy", "kron:8", "grid:10x12", "pagerank-iter", "gpu ms"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	rec := readJSON[benchRecord](t, js)
	if rec.Schema != benchSchema || rec.Date == "" || rec.Host.CPUs < 1 || rec.EdgesCounted == "" {
		t.Errorf("record header: schema %q, date %q, cpus %d, edges_counted %q", rec.Schema, rec.Date, rec.Host.CPUs, rec.EdgesCounted)
	}
	cpu, ok := rec.Devices["cpu"]
	if !ok || cpu.CopyBandwidth <= 0 || cpu.Name == "" {
		t.Errorf("cpu device: %+v", rec.Devices)
	}
	if len(rec.Graphs) != 2 {
		t.Fatalf("%d graphs, want 2", len(rec.Graphs))
	}
	edges := map[string]int64{}
	for _, g := range rec.Graphs {
		if g.Error != "" || g.Kind != "generator" || g.Vertices <= 0 || g.Edges <= 0 || g.NNZ != 2*g.Edges {
			t.Errorf("graph %+v", g)
		}
		edges[g.Name] = g.Edges
	}
	if g := rec.Graphs[1]; g.Vertices != 120 || g.Edges != 10*11+9*12 {
		t.Errorf("grid:10x12 has %d vertices, %d edges; want 120, 218", g.Vertices, g.Edges)
	}
	algos := benchAlgoNames()
	if len(rec.Results) != 2*len(algos) {
		t.Fatalf("%d results, want %d", len(rec.Results), 2*len(algos))
	}
	for i, r := range rec.Results {
		name := r.Graph + " " + r.Algorithm
		if r.Algorithm != algos[i%len(algos)] || r.Backend != "cpu" {
			t.Errorf("result %d is %s on %s, want %s on cpu", i, name, r.Backend, algos[i%len(algos)])
		}
		if r.Error != "" || r.Skipped != "" || !r.Validated {
			t.Errorf("%s: error %q, skipped %q, validated %v", name, r.Error, r.Skipped, r.Validated)
			continue
		}
		for what, n := range map[string]int{"compute_ms": len(r.ComputeMS), "supersteps_ms": len(r.SuperstepsMS),
			"iterations": len(r.Iterations), "preprocess_ms": len(r.PreprocessMS), "transfer_ms": len(r.TransferMS)} {
			if r.Runs != 2 || n != 2 {
				t.Errorf("%s: runs %d, %d %s; want 2", name, r.Runs, n, what)
			}
		}
		med, lo, hi := measure.Stats(r.ComputeMS)
		if r.MedianMS != med || r.MinMS != lo || r.MaxMS != hi || lo > med || med > hi || lo <= 0 {
			t.Errorf("%s: median %v min %v max %v of %v", name, r.MedianMS, r.MinMS, r.MaxMS, r.ComputeMS)
		}
		if r.Edges != edges[r.Graph] || !near(r.MTEPS, float64(r.Edges)/(r.MedianMS*1e3)) {
			t.Errorf("%s: %d edges, MTEPS %v; want %d edges / %v ms", name, r.Edges, r.MTEPS, edges[r.Graph], r.MedianMS)
		}
		if r.NNZ <= 0 || r.Bytes <= 0 || r.BytesModel == "" || !near(r.GBs, float64(r.Bytes)/(r.MedianMS*1e6)) ||
			!near(r.CopyFraction, r.GBs*1e9/cpu.CopyBandwidth) {
			t.Errorf("%s: nnz %d, bytes %d (%q), %v GB/s, copy fraction %v", name, r.NNZ, r.Bytes, r.BytesModel, r.GBs, r.CopyFraction)
		}
		if len(r.DeviceMS) != 0 || r.DeviceMedianMS != 0 { // (no device clock on the CPU)
			t.Errorf("%s: device times %v, median %v on the cpu", name, r.DeviceMS, r.DeviceMedianMS)
		}
		if r.MSPerStep <= 0 || r.PreprocessFirstMS <= 0 || r.TransferMedianMS != 0 {
			t.Errorf("%s: ms/step %v, first preprocess %v, transfer %v", name, r.MSPerStep, r.PreprocessFirstMS, r.TransferMedianMS)
		}
		wantSource := r.Algorithm == "bfs" || r.Algorithm == "sssp"
		if (r.Source != nil) != wantSource {
			t.Errorf("%s: source %v", name, r.Source)
		}
		if (r.Algorithm == "sssp") != strings.HasPrefix(r.Weights, "random:1-64") {
			t.Errorf("%s: weights %q", name, r.Weights)
		}
		switch r.Algorithm {
		case "pagerank-iter":
			if slices.Max(r.Iterations) != 1 || r.MSPerStep != r.MedianMS {
				t.Errorf("%s: iterations %v, ms/step %v, median %v", name, r.Iterations, r.MSPerStep, r.MedianMS)
			}
		case "pagerank-ldbc":
			if slices.Min(r.Iterations) != 10 {
				t.Errorf("%s: iterations %v, want 10 (--iterations default)", name, r.Iterations)
			}
		case "tc":
			if r.DAGArcs != r.Edges {
				t.Errorf("%s: %d oriented arcs, want the %d edges", name, r.DAGArcs, r.Edges)
			}
		}
	}
}

func TestBenchBadArguments(t *testing.T) {
	dir := t.TempDir()
	cases := []failCase{
		{"bad scale", []string{"bench", "kron:x"}, "scale"},
		{"scale too large", []string{"bench", "urand:31"}, "scale"},
		{"bad grid", []string{"bench", "grid:10"}, "ROWSxCOLS"},
		{"unknown generator", []string{"bench", "torus:5"}, "not a generator"},
		{"missing file", []string{"bench", filepath.Join(dir, "nope.mtx")}, "nope.mtx"},
		{"unknown algorithm", []string{"bench", "grid:3x3", "--algo", "bfs,dfs"}, "unknown algorithm \"dfs\""},
		{"unknown backend", []string{"bench", "grid:3x3", "--backend", "tpu"}, "tpu"},
		{"no runs", []string{"bench", "grid:3x3", "--runs", "0"}, "--runs"},
		{"bad weights", []string{"bench", "grid:3x3", "--weights", "random:9-1"}, "random"},
		{"source out of range", []string{"bench", "grid:3x3", "--algo", "bfs", "--src", "99", "--copy-mib", "1"}, "source 99"},
	}
	failCases(t, cases)
}

func TestParseGraphArg(t *testing.T) {
	for arg, want := range map[string]graphSource{
		"kron:21":        {kind: "kron", p: genParams{scale: 21, degree: 16}},
		"kron:12:8":      {kind: "kron", p: genParams{scale: 12, degree: 8}},
		"urand:21":       {kind: "urand", p: genParams{scale: 21, degree: 16}},
		"grid:1000x1000": {kind: "grid", p: genParams{rows: 1000, cols: 1000, degree: 16}},
	} {
		got, err := parseGraphArg(arg)
		if err != nil {
			t.Errorf("%s: %v", arg, err)
			continue
		}
		if got.kind != want.kind || got.p.scale != want.p.scale || got.p.degree != want.p.degree ||
			got.p.rows != want.p.rows || got.p.cols != want.p.cols || got.p.seed != 27491095 || got.file != "" {
			t.Errorf("%s: %+v, want %+v", arg, got, want)
		}
	}
}

// TestTrafficModel checks the bytes model on a triangle 0-1-2 with a
// pendant 2-3: n = 4, 4 undirected edges, nnz = 8 stored arcs, and 4
// oriented arcs for triangle counting.
func TestTrafficModel(t *testing.T) {
	d, err := datasets.Build(&datasets.EdgeList{N: 4, Src: []int32{0, 1, 0, 2}, Dst: []int32{1, 2, 2, 3}}, datasets.Options{})
	if err != nil {
		t.Fatal(err)
	}
	g := vertexprog.NewGraph(d)
	for _, a := range benchAlgorithms() {
		nnz, err := traversedNNZ(g, a.app.Edges(), hyb.Options{})
		if err != nil || nnz != 8 {
			t.Errorf("%s: traversed nnz %d (%v), want 8", a.name, nnz, err)
		}
		if a.app.Traffic == nil {
			t.Errorf("%s: no traffic model", a.name)
		}
	}
	for _, c := range []struct {
		algo     string
		weighted bool
		iters    int
		want     int64
	}{
		{"pagerank", false, 3, 3 * (4*8 + 8*4 + 8*4 + 8*4)}, // 384
		{"pagerank-ldbc", false, 10, 10 * 128},
		{"pagerank-iter", false, 1, 128},
		{"bfs", false, 3, 4*8 + 4*4},       // 48
		{"cc", false, 2, 48},               // whole run: supersteps do not count
		{"sssp", true, 3, 4*8 + 4*8 + 4*4}, // 80: weights too
		{"sssp", false, 3, 48},
		{"tc", false, 1, 4*8 + 4*4 + 8*4},    // 80
		{"lcc", false, 1, 8*8 + 8*4},         // 96
		{"cdlp", false, 2, 2 * (4*8 + 16*4)}, // 192
	} {
		a, err := findBenchAlgos(c.algo)
		if err != nil {
			t.Fatal(err)
		}
		got := a[0].app.Traffic(apps.TrafficIn{Graph: g, N: 4, NNZ: 8, Weighted: c.weighted, Iterations: c.iters})
		if got.Bytes != c.want || got.Model == "" {
			t.Errorf("%s (weighted %v, %d iterations): %d bytes (%q), want %d", c.algo, c.weighted, c.iters, got.Bytes, got.Model, c.want)
		}
		if arcs := map[bool]int64{true: 4}[c.algo == "tc"]; got.OrientedArcs != arcs {
			t.Errorf("%s: %d oriented arcs, want %d", c.algo, got.OrientedArcs, arcs)
		}
	}
}

// bench --answer spawns fresh `hpgraph run` processes (the CLI binary the
// tests built) and records their time to answer; the generated graph's
// file is removed unless --keep.
func TestBenchAnswer(t *testing.T) {
	for _, keep := range []bool{false, true} {
		dir := t.TempDir()
		js := filepath.Join(dir, "bench.json")
		args := []string{"bench", "kron:8", "--algo", "bfs,sssp,pagerank-iter", "--backend", "cpu", "--runs", "2",
			"--copy-mib", "1", "--answer", "--dir", dir, "--relabel", "degree", "--json", js}
		if keep {
			args = append(args, "--keep")
		}
		out, code := hpgraph(t, args...)
		if code != 0 {
			t.Fatalf("exit %d:\n%s", code, out)
		}
		if !strings.Contains(out, "time to answer: fresh processes") || !regexp.MustCompile(`(?m)^\s+kron:8\s+bfs\s+cpu\s+[0-9.]+`).MatchString(out) {
			t.Errorf("no time-to-answer table:\n%s", out)
		}
		rec := readJSON[benchRecord](t, js)
		if !rec.Settings.Answer || len(rec.Results) != 3 {
			t.Fatalf("settings.answer %v, %d results", rec.Settings.Answer, len(rec.Results))
		}
		var file string
		for _, r := range rec.Results {
			a := r.Answer
			if a == nil || a.Error != "" {
				t.Fatalf("%s: answer %+v", r.Algorithm, a)
			}
			file = a.File
			if a.Runs != 2 || len(a.WallMS) != 2 || a.MinMS <= 0 || a.MedianMS < a.AnswerMS || a.AnswerMS < a.LoadMS+a.ComputeMS ||
				a.LoadMS <= 0 || a.RelabelMS <= 0 || a.HostPeakBytes <= 0 || a.FileBytes <= 0 {
				t.Errorf("%s: answer %+v", r.Algorithm, a)
			}
			cmd := strings.Join(a.Command, " ")
			wantAlgo := map[string]string{"bfs": " run bfs ", "sssp": " run sssp ", "pagerank-iter": " run pagerank-ldbc "}[r.Algorithm]
			if !strings.Contains(cmd, wantAlgo) || !strings.Contains(cmd, "--relabel=degree") || !strings.Contains(cmd, a.File) {
				t.Errorf("%s: command %q", r.Algorithm, cmd)
			}
			if w := map[bool]string{true: "--weights random:1-64", false: "--weights none"}[r.Algorithm == "sssp"]; !strings.Contains(cmd, w) {
				t.Errorf("%s: command %q lacks %q", r.Algorithm, cmd, w)
			}
		}
		if filepath.Dir(file) != dir {
			t.Errorf("graph written to %s, not --dir %s", file, dir)
		}
		if _, err := os.Stat(file); (err == nil) != keep {
			t.Errorf("--keep %v: %s exists: %v", keep, file, err == nil)
		}
	}
	if out, code := hpgraph(t, "bench", "grid:3x3", "--answer", "--answer-exe", filepath.Join(t.TempDir(), "nope")); code == 0 || !strings.Contains(out, "nope") {
		t.Errorf("a missing --answer-exe: exit %d:\n%s", code, out)
	}
}
