package loadgen

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/datasets/gen"
	"github.com/hpgraph/hpgraph/serve"
)

// newServer serves, on the CPU, a Kronecker graph of scale 8 with random
// weights as "k8" (contiguous ids) and an edge list with sparse ids as
// "sparse".
func newServer(t testing.TB, edit func(*serve.Config)) (*serve.Server, string) {
	t.Helper()
	dir := t.TempDir()
	el, err := gen.Kronecker(8, 8, 1)
	if err != nil {
		t.Fatal(err)
	}
	g, err := datasets.Build(el, datasets.Options{Weights: datasets.WeightsRandom, WeightMin: 1, WeightMax: 9, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := datasets.WriteCacheFile(filepath.Join(dir, "k8.hpg"), g); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for k := 0; k < 40; k++ {
		fmt.Fprintf(&b, "%d %d %d\n", 1000+7*k*k, 1000+7*((k+1)%40)*((k+1)%40), 1+k%5)
	}
	if err := os.WriteFile(filepath.Join(dir, "sparse.el"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := serve.Config{DataDir: dir, Backend: "cpu", Logf: func(string, ...any) {}}
	if edit != nil {
		edit(&cfg)
	}
	s, err := serve.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for name, path := range map[string]string{"k8": "k8.hpg", "sparse": "sparse.el"} {
		if err := s.LoadGraph(name, path, serve.LoadOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	hs := httptest.NewServer(s.Handler())
	t.Cleanup(func() {
		hs.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		s.Shutdown(ctx)
	})
	if !strings.HasPrefix(hs.URL, "http://127.0.0.1:") {
		t.Fatalf("httptest serves at %s, not on 127.0.0.1", hs.URL)
	}
	return s, hs.URL
}

// checkReport checks that r's counts add up to want queries and that its
// percentiles are ordered.
func checkReport(t *testing.T, r *Report, want int) {
	t.Helper()
	sum := 0
	for _, s := range append(r.Algos, r.Overall) {
		if s.OK+s.ErrorCount() != s.Queries {
			t.Errorf("%s: %d ok + %d errors != %d queries", s.Algo, s.OK, s.ErrorCount(), s.Queries)
		}
		if s.OK > 0 && !(0 < s.P50MS && s.P50MS <= s.P90MS && s.P90MS <= s.P99MS && s.P99MS <= s.MaxMS) {
			t.Errorf("%s: latency p50 %g p90 %g p99 %g max %g: not ordered", s.Algo, s.P50MS, s.P90MS, s.P99MS, s.MaxMS)
		}
		if s.OK > 0 && (s.ComputeP50MS <= 0 || s.QPS <= 0) {
			t.Errorf("%s: compute p50 %g, %g queries/s", s.Algo, s.ComputeP50MS, s.QPS)
		}
		if s != r.Overall {
			sum += s.Queries
		}
	}
	if sum != want || r.Overall.Queries != want || r.Overall.Canceled != 0 {
		t.Errorf("per algorithm %d queries, overall %d (%d canceled), want %d", sum, r.Overall.Queries, r.Overall.Canceled, want)
	}
	if r.StoppedBy != "queries" {
		t.Errorf("stopped by %s, want queries", r.StoppedBy)
	}
	if lines := r.Lines(); len(lines) != len(r.Algos)+1 || !strings.HasPrefix(lines[len(lines)-1], "all ") {
		t.Errorf("summary lines %q", lines)
	}
}

func TestBFSRandomSources(t *testing.T) {
	_, url := newServer(t, nil)
	for _, graph := range []string{"k8", "sparse"} {
		r, err := Run(context.Background(), Config{URL: url, Graph: graph, Algos: []string{"bfs"}, Sources: "random",
			Clients: 4, Queries: 4 * 40, Duration: 2 * time.Minute, Seed: 7})
		if err != nil {
			t.Fatal(err)
		}
		checkReport(t, r, 160)
		if r.Overall.ErrorCount() != 0 || r.Overall.OK != 160 {
			t.Fatalf("%s: %d ok, errors %v", graph, r.Overall.OK, r.Overall.Errors)
		}
		want := map[string]string{"k8": "contiguous", "sparse": "40 sparse ids"}[graph]
		if !strings.Contains(r.SourceIDs, want) {
			t.Errorf("%s: source ids %q, want %q", graph, r.SourceIDs, want)
		}
		t.Log(r.Lines())
	}
}

func TestMix(t *testing.T) {
	_, url := newServer(t, nil)
	mix := []string{"bfs", "sssp", "pagerank", "pagerank-ldbc", "cc", "tc", "bfs"}
	r, err := Run(context.Background(), Config{URL: url, Graph: "k8", Algos: mix, Sources: "random",
		// (iterations to pagerank-ldbc alone, delta to sssp, max_iter to all)
		Params: json.RawMessage(`{"iterations": 3, "delta": 0, "max_iter": 100}`), Clients: 4, Queries: 4 * 40, Duration: 2 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	checkReport(t, r, 160)
	if r.Overall.ErrorCount() != 0 {
		t.Fatalf("errors %v", r.Overall.Errors)
	}
	if len(r.Algos) != 6 || r.Algos[0].Algo != "bfs" {
		t.Fatalf("%d lines, first %s; want the 6 algorithms, bfs first", len(r.Algos), r.Algos[0].Algo)
	}
	// Query i runs mix[i mod 7]: bfs at 0 and 6 of each 7; 160 = 22*7 + 6
	// (the last 6 at 0..5).
	if n := r.Algos[0].Queries; n != 45 {
		t.Errorf("bfs: %d queries, want 45", n)
	}
	t.Log(strings.Join(r.Lines(), "\n"))
}

// TestQueueFullCounted: with one worker busy and its queue of one full,
// every query is answered 503: counted by status, the run itself succeeds.
func TestQueueFullCounted(t *testing.T) {
	s, url := newServer(t, func(c *serve.Config) { c.Workers, c.MaxQueue = 1, 1 })
	_ = s
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	defer func() { cancel(); wg.Wait() }()
	// Two long queries: one runs (a million supersteps), one waits.
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req, _ := http.NewRequestWithContext(ctx, "POST", url+"/v1/graphs/k8/run",
				strings.NewReader(`{"algo":"pagerank-ldbc","params":{"iterations":1048576}}`))
			if resp, err := http.DefaultClient.Do(req); err == nil {
				resp.Body.Close()
			}
		}()
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		var h struct{ Queued int }
		resp, err := http.Get(url + "/v1/health")
		if err != nil {
			t.Fatal(err)
		}
		json.NewDecoder(resp.Body).Decode(&h)
		resp.Body.Close()
		if h.Queued == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the blocking queries never filled the queue")
		}
	}
	r, err := Run(context.Background(), Config{URL: url, Graph: "k8", Algos: []string{"bfs", "cc"}, Sources: "random",
		Clients: 4, Queries: 4 * 40, Duration: 2 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if r.Overall.Queries != 160 || r.Overall.OK != 0 || r.Overall.Errors["503"] != 160 || len(r.Overall.Errors) != 1 {
		t.Fatalf("%d queries, %d ok, errors %v; want 160 answered 503", r.Overall.Queries, r.Overall.OK, r.Overall.Errors)
	}
	checkReport(t, r, 160)
	if !strings.Contains(r.Overall.Line(), "160 errors (503:160)") {
		t.Errorf("line %q", r.Overall.Line())
	}
}

func TestDuration(t *testing.T) {
	_, url := newServer(t, nil)
	t0 := time.Now()
	r, err := Run(context.Background(), Config{URL: url, Graph: "k8", Algos: []string{"cc"}, Clients: 2, Queries: -1, Duration: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(t0); d > 10*time.Second || r.StoppedBy != "duration" || r.Overall.OK == 0 {
		t.Fatalf("took %v, stopped by %s, %d ok", d, r.StoppedBy, r.Overall.OK)
	}
}

func TestRefusals(t *testing.T) {
	_, url := newServer(t, func(c *serve.Config) { c.Token = "s3cret" })
	base := Config{URL: url, Token: "s3cret", Graph: "k8", Algos: []string{"bfs"}, Queries: 4}
	for _, c := range []struct {
		edit func(*Config)
		want string
	}{
		{func(c *Config) { c.URL = "http://192.0.2.1:8080" }, "not a loopback address"},
		{func(c *Config) { c.URL = "http://example.com:8080" }, "not a loopback address"},
		{func(c *Config) { c.URL = "ftp://127.0.0.1/" }, "want http"},
		{func(c *Config) { c.Graph = "" }, "--graph"},
		{func(c *Config) { c.Algos = []string{"bfs", "dfs"} }, `unknown algorithm "dfs"`},
		{func(c *Config) { c.Algos = nil }, "--algo"},
		{func(c *Config) { c.Params = json.RawMessage(`{"src": 3}`) }, "--sources"},
		{func(c *Config) { c.Params = json.RawMessage(`{"damping": 0.9}`); c.Algos = []string{"bfs", "cc"} }, "no algorithm of bfs,cc takes it"},
		{func(c *Config) { c.Params = json.RawMessage(`[1]`) }, "--params"},
		{func(c *Config) { c.Sources = "1,x" }, "--sources"},
		{func(c *Config) { c.Token = "" }, "401"},
		{func(c *Config) { c.Graph = "nope" }, "404"},
		{func(c *Config) { c.Clients = -1 }, "--clients"},
	} {
		cfg := base
		c.edit(&cfg)
		_, err := Run(context.Background(), cfg)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want %q", cfg, err, c.want)
		}
	}
	if err := CheckURL("http://192.0.2.1:8080", true); err != nil {
		t.Errorf("--allow-remote: %v", err)
	}
	for _, u := range []string{"http://localhost:1", "http://[::1]:1", "http://127.0.0.2:1"} {
		if err := CheckURL(u, false); err != nil {
			t.Errorf("%s: %v", u, err)
		}
	}
	// A parameter the server refuses is counted, not fatal.
	cfg := base
	cfg.Params = json.RawMessage(`{"bogus": 1}`)
	r, err := Run(context.Background(), cfg)
	if err != nil || r.Overall.Errors["400"] != 4 {
		t.Fatalf("bogus parameter: %v, %+v", err, r)
	}
}

func TestSourcesAndPercentile(t *testing.T) {
	p, err := check(Config{Graph: "g", Algos: []string{"bfs"}, Sources: "5, 9,11", Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int64]int{}
	for i := range int64(300) {
		a, _ := p.source(i)
		b, _ := p.source(i)
		if a != b {
			t.Fatalf("query %d: sources %d and %d: not a function of (seed, i)", i, a, b)
		}
		seen[a]++
	}
	if len(seen) != 3 || seen[5] == 0 || seen[9] == 0 || seen[11] == 0 {
		t.Fatalf("sources drawn %v, want each of 5, 9, 11", seen)
	}
	p.list, p.lo, p.n = nil, 100, 10
	for i := range int64(200) {
		if s, _ := p.source(i); s < 100 || s >= 110 {
			t.Fatalf("source %d out of 100..109", s)
		}
	}
	x := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	for _, c := range []struct{ p, want float64 }{{50, 5}, {90, 9}, {99, 10}, {100, 10}, {1, 1}} {
		if got := Percentile(x, c.p); got != c.want {
			t.Errorf("p%g = %g, want %g", c.p, got, c.want)
		}
	}
	if Percentile(nil, 50) != 0 {
		t.Error("empty percentile")
	}
	var b bytes.Buffer
	json.NewEncoder(&b).Encode(&Report{Overall: &Stats{Algo: "all"}})
	if !strings.Contains(b.String(), `"latency_p99_ms"`) {
		t.Errorf("JSON %s", b.String())
	}
}

func TestHubAndListSources(t *testing.T) {
	_, url := newServer(t, nil)
	for _, src := range []string{"hub", "0,17,255", "300"} {
		r, err := Run(context.Background(), Config{URL: url, Graph: "k8", Algos: []string{"bfs", "sssp"}, Sources: src,
			Clients: 2, Queries: 20, Duration: time.Minute})
		if err != nil {
			t.Fatal(src, err)
		}
		checkReport(t, r, 20)
		if src == "300" { // no vertex of k8: the server's 400, counted
			if r.Overall.Errors["400"] != 20 {
				t.Errorf("sources 300: errors %v, want 20 times 400", r.Overall.Errors)
			}
		} else if r.Overall.OK != 20 || r.SourceIDs != "" {
			t.Errorf("sources %s: %d ok, errors %v, source ids %q", src, r.Overall.OK, r.Overall.Errors, r.SourceIDs)
		}
	}
}
