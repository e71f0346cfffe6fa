package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/serve"
)

// loadgenServer serves a generated Kronecker graph of scale 8 (random
// weights) as "k8", on the CPU, at an httptest URL on 127.0.0.1.
func loadgenServer(t *testing.T, token string) string {
	t.Helper()
	dir := t.TempDir()
	g, _, err := generateWhere("kron", genParams{scale: 8, degree: 8, seed: 1},
		datasets.Options{Weights: datasets.WeightsRandom, WeightMin: 1, WeightMax: 9, Seed: 1}, "auto")
	if err != nil {
		t.Fatal(err)
	}
	if err := writeGraph(filepath.Join(dir, "k8.hpg"), g); err != nil {
		t.Fatal(err)
	}
	s, err := serve.New(serve.Config{DataDir: dir, Backend: "cpu", Token: token, Logf: func(string, ...any) {}})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.LoadGraph("k8", "k8.hpg", serve.LoadOptions{}); err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s.Handler())
	t.Cleanup(func() {
		hs.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		s.Shutdown(ctx)
	})
	return hs.URL
}

// loadgenCmd runs `hpgraph loadgen args...` in the process.
func loadgenCmd(args ...string) (string, error) {
	root := newRoot()
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&out)
	root.SetArgs(append([]string{"loadgen"}, args...))
	err := root.Execute()
	return out.String(), err
}

func TestLoadgen(t *testing.T) {
	url := loadgenServer(t, "tok")
	t.Setenv("HPGRAPH_TOKEN", "tok")
	dir := t.TempDir()
	for _, c := range []struct {
		algo  string
		lines []string // the summary lines' first words
	}{
		{"bfs", []string{"bfs", "all"}},
		{"bfs,sssp,pagerank-ldbc,cc", []string{"bfs", "sssp", "pagerank-ldbc", "cc", "all"}},
	} {
		js := filepath.Join(dir, "lg.json")
		out, err := loadgenCmd("--url", url, "--graph", "k8", "--algo", c.algo, "--sources", "random",
			"--clients", "4", "--queries", "160", "--duration", "2m", "--params", `{"iterations":5}`, "--json", js)
		if c.algo == "bfs" {
			// iterations is pagerank-ldbc's: refused for a bfs-only run.
			if err == nil || !strings.Contains(err.Error(), "iterations") {
				t.Fatalf("bfs with iterations: %v\n%s", err, out)
			}
			out, err = loadgenCmd("--url", url, "--graph", "k8", "--algo", c.algo, "--sources", "random",
				"--clients", "4", "--queries", "160", "--duration", "2m", "--json", js)
		}
		if err != nil {
			t.Fatalf("%s: %v\n%s", c.algo, err, out)
		}
		t.Log("\n" + out)
		var got []string
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			if strings.HasPrefix(line, "#") || strings.HasPrefix(line, "loadgen:") {
				continue
			}
			got = append(got, strings.Fields(line)[0])
			if !strings.Contains(line, " 0 errors;") || !strings.Contains(line, "p99") {
				t.Errorf("%s: line %q", c.algo, line)
			}
		}
		if strings.Join(got, " ") != strings.Join(c.lines, " ") {
			t.Errorf("%s: lines %v, want %v", c.algo, got, c.lines)
		}
		if !strings.Contains(out, "all           160 queries, 160 ok, 0 errors;") {
			t.Errorf("%s: overall line wrong:\n%s", c.algo, out)
		}
		b, err := os.ReadFile(js)
		if err != nil {
			t.Fatal(err)
		}
		var rec struct {
			Schema  string
			Algos   []map[string]any
			Overall map[string]any
		}
		if err := json.Unmarshal(b, &rec); err != nil {
			t.Fatal(err)
		}
		o := rec.Overall
		if rec.Schema != loadgenSchema || o["queries"] != 160.0 || o["ok"] != 160.0 || len(rec.Algos) != len(c.lines)-1 {
			t.Fatalf("%s: JSON %s", c.algo, b)
		}
		p50, p99, mx := o["latency_p50_ms"].(float64), o["latency_p99_ms"].(float64), o["latency_max_ms"].(float64)
		if !(0 < p50 && p50 <= p99 && p99 <= mx) || o["server_compute_p50_ms"].(float64) <= 0 {
			t.Errorf("%s: percentiles p50 %g p99 %g max %g", c.algo, p50, p99, mx)
		}
		total := 0.0
		for _, a := range rec.Algos {
			total += a["queries"].(float64)
		}
		if total != 160 {
			t.Errorf("%s: per-algorithm queries add up to %g", c.algo, total)
		}
	}
}

func TestLoadgenRefuses(t *testing.T) {
	url := loadgenServer(t, "")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--url", "http://10.1.2.3:8080", "--graph", "k8"}, "not a loopback address"},
		{[]string{"--url", url}, "--graph is required"},
		{[]string{"--url", url, "--graph", "k8", "--json", "/nonexistent-dir/x.json"}, "does not exist"},
		{[]string{"--url", url, "--graph", "k8", "--algo", "bfs,nope"}, `unknown algorithm "nope"`},
		{[]string{"--url", url, "--graph", "k8", "--clients", "0"}, "--clients"},
		{[]string{"--url", url, "--graph", "k8", "--duration", "0s"}, "--duration"},
		{[]string{"--url", url, "--graph", "k9"}, "404"},
	} {
		out, err := loadgenCmd(c.args...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want %q\n%s", c.args, err, c.want, out)
		}
	}
}
