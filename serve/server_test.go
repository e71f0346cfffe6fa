package serve

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hpgraph/hpgraph/apps/reference"
	"github.com/hpgraph/hpgraph/apps/registry"
	"github.com/hpgraph/hpgraph/datasets"
)

// sparseID is test vertex k's id in the edge list: not 0..N-1.
func sparseID(k int) int64 { return 5000 + int64(3*k*k+k) }

// writeTestGraph writes a weighted edge list with sparse ids: a large
// component with triangles and a small one apart, so that BFS and SSSP
// leave vertices unreached.
func writeTestGraph(t testing.TB, dir, name string) string {
	t.Helper()
	var b strings.Builder
	const n, apart = 80, 70
	for k := 0; k < apart; k++ {
		for _, j := range []int{(k*7 + 3) % apart, (k*13 + 5) % apart, (k + 1) % apart, (k + 2) % apart} {
			if j != k {
				fmt.Fprintf(&b, "%d %d %d\n", sparseID(k), sparseID(j), 1+(k*j)%9)
			}
		}
	}
	for k := apart; k < n; k++ {
		j := apart + (k-apart+1)%(n-apart)
		fmt.Fprintf(&b, "%d %d %d\n", sparseID(k), sparseID(j), 2)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

type testServer struct {
	*Server
	url  string
	dir  string
	http *httptest.Server
}

// testBackend is the backend the test servers use: the CPU, or
// $HPGRAPH_SERVE_TEST_BACKEND (cuda on the GPU machine, where the answers
// and the concurrent queries are checked on the device).
var testBackend = cmp.Or(os.Getenv("HPGRAPH_SERVE_TEST_BACKEND"), "cpu")

func newTestServer(t testing.TB, edit func(*Config)) *testServer {
	t.Helper()
	dir := t.TempDir()
	writeTestGraph(t, dir, "sparse.el")
	cfg := Config{DataDir: dir, Backend: testBackend, Logf: func(string, ...any) {}}
	if edit != nil {
		edit(&cfg)
	}
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s.Handler())
	t.Cleanup(func() {
		hs.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		s.Shutdown(ctx)
	})
	return &testServer{Server: s, url: hs.URL, dir: dir, http: hs}
}

// do sends a JSON body (a string as is) and returns the status and body.
func (ts *testServer) do(t testing.TB, method, path string, body any, header ...string) (int, http.Header, []byte) {
	t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	default:
		j, _ := json.Marshal(b)
		rd = bytes.NewReader(j)
	}
	req, err := http.NewRequest(method, ts.url+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, out
}

func (ts *testServer) load(t testing.TB, name, path string, extra map[string]any) {
	t.Helper()
	body := map[string]any{"name": name, "path": path}
	for k, v := range extra {
		body[k] = v
	}
	if code, _, out := ts.do(t, "POST", "/v1/graphs", body); code != http.StatusCreated {
		t.Fatalf("load %s: %d %s", path, code, out)
	}
}

func wantError(t *testing.T, code int, body []byte, wantCode int, field string) {
	t.Helper()
	if code != wantCode {
		t.Fatalf("status %d, want %d: %s", code, wantCode, body)
	}
	var e struct{ Error, Field string }
	if err := json.Unmarshal(body, &e); err != nil {
		t.Fatalf("error body %q: %v", body, err)
	}
	if e.Error == "" || e.Field != field || !strings.Contains(e.Error, field) {
		t.Fatalf("error %q naming field %q, want field %q named in the message", e.Error, e.Field, field)
	}
}

// referenceGraph loads the test graph as the server does.
func referenceGraph(t testing.TB, dir string) *datasets.Graph {
	d, err := datasets.Load(filepath.Join(dir, "sparse.el"), datasets.Options{Seed: 27491095})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func vertexOf(t testing.TB, d *datasets.Graph, id int64) int32 {
	for v := int32(0); v < int32(d.N); v++ {
		if d.OriginalID(v) == id {
			return v
		}
	}
	t.Fatalf("no vertex %d", id)
	return -1
}

// ndjsonRows reads NDJSON rows keyed by id.
func ndjsonRows(t testing.TB, body []byte) map[int64]map[string]any {
	t.Helper()
	rows := map[int64]map[string]any{}
	sc := bufio.NewScanner(bytes.NewReader(body))
	for sc.Scan() {
		dec := json.NewDecoder(strings.NewReader(sc.Text()))
		dec.UseNumber()
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		id, _ := m["id"].(json.Number).Int64()
		if _, dup := rows[id]; dup {
			t.Fatalf("id %d twice", id)
		}
		rows[id] = m
	}
	return rows
}

func num(t testing.TB, x any) float64 {
	if x == nil {
		return math.Inf(1)
	}
	f, err := x.(json.Number).Float64()
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func closeTo(a, b, rel float64) bool {
	return a == b || math.Abs(a-b) <= rel*math.Max(math.Abs(a), math.Abs(b))
}

// TestAppsMatchReference: every app's summary and per-vertex answer, in
// the file's sparse ids, equal the gonum reference's.
func TestAppsMatchReference(t *testing.T) {
	ts := newTestServer(t, nil)
	ts.load(t, "g", "sparse.el", nil)
	d := referenceGraph(t, ts.dir)
	src := sparseID(4)
	sv := vertexOf(t, d, src)
	run := func(algo string, params map[string]any, output string) (int, http.Header, []byte) {
		return ts.do(t, "POST", "/v1/graphs/g/run", map[string]any{"algo": algo, "params": params, "output": output})
	}
	summary := func(algo string, params map[string]any) SummaryResponse {
		t.Helper()
		code, _, body := run(algo, params, "")
		if code != 200 {
			t.Fatalf("%s: %d %s", algo, code, body)
		}
		var s SummaryResponse
		if err := json.Unmarshal(body, &s); err != nil {
			t.Fatal(err)
		}
		if s.Backend != testBackend || s.Vertices != d.N || s.TimesMS["total"] <= 0 {
			t.Fatalf("%s: summary %+v", algo, s)
		}
		return s
	}
	rows := func(algo string, params map[string]any) map[int64]map[string]any {
		t.Helper()
		code, h, body := run(algo, params, "ndjson")
		if code != 200 || h.Get("X-Hpgraph-Summary") == "" {
			t.Fatalf("%s ndjson: %d %s", algo, code, body)
		}
		r := ndjsonRows(t, body)
		if len(r) != d.N {
			t.Fatalf("%s: %d rows, want %d", algo, len(r), d.N)
		}
		for v := int32(0); v < int32(d.N); v++ {
			if _, ok := r[d.OriginalID(v)]; !ok {
				t.Fatalf("%s: no row for id %d", algo, d.OriginalID(v))
			}
		}
		return r
	}

	t.Run("bfs", func(t *testing.T) {
		want, err := reference.BFS(d, sv)
		if err != nil {
			t.Fatal(err)
		}
		reached, depth := 0, int32(0)
		for _, x := range want {
			if x >= 0 {
				reached++
				depth = max(depth, x)
			}
		}
		s := summary("bfs", map[string]any{"src": src})
		if w := fmt.Sprintf("source %d: reached %d vertices, depth %d", src, reached, depth); s.Summary != w {
			t.Fatalf("summary %q, want %q", s.Summary, w)
		}
		depthOf, parentOf := make([]int32, d.N), make([]int32, d.N)
		for id, row := range rows("bfs", map[string]any{"src": src}) {
			v := vertexOf(t, d, id)
			depthOf[v] = int32(num(t, row["depth"]))
			parentOf[v] = -1
			if p := int64(num(t, row["parent"])); p >= 0 {
				parentOf[v] = vertexOf(t, d, p)
			}
		}
		if err := reference.ValidateBFS(d, sv, depthOf, parentOf); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("sssp", func(t *testing.T) {
		want, err := reference.SSSP(d, sv)
		if err != nil {
			t.Fatal(err)
		}
		s := summary("sssp", map[string]any{"src": src})
		if !strings.HasPrefix(s.Summary, fmt.Sprintf("source %d: reached ", src)) {
			t.Fatal(s.Summary)
		}
		// (every backend reads delta, the CPU's buckets a sixteenth as
		// wide as a GPU's: the distances do not depend on it)
		for _, delta := range []any{nil, 0, 2} {
			unreached := 0
			for id, row := range rows("sssp", map[string]any{"src": src, "delta": delta}) {
				w := want[vertexOf(t, d, id)]
				if got := num(t, row["dist"]); !closeTo(got, w, 1e-6) {
					t.Fatalf("delta %v, id %d: dist %v, reference %v", delta, id, got, w)
				}
				if math.IsInf(w, 1) {
					unreached++
				}
			}
			if unreached == 0 || s.Result["reached"].(float64) != float64(d.N-unreached) {
				t.Fatalf("reached %v, unreached %d", s.Result["reached"], unreached)
			}
		}
	})
	t.Run("pagerank", func(t *testing.T) {
		want, _ := reference.PageRank(d, 0.85, 1e-6, 1000)
		summary("pagerank", nil)
		for id, row := range rows("pagerank", nil) {
			if got, w := num(t, row["rank"]), want[vertexOf(t, d, id)]; !closeTo(got, w, 1e-6) {
				t.Fatalf("id %d: rank %v, reference %v", id, got, w)
			}
		}
	})
	t.Run("pagerank-ldbc", func(t *testing.T) {
		for _, prec := range []string{"float64", "float32"} {
			want := reference.PageRankLDBC(d, 0.9, 7)
			s := summary("pagerank-ldbc", map[string]any{"damping": 0.9, "iterations": 7, "precision": prec})
			if s.Params["iterations"].(float64) != 7 || s.Params["precision"] != prec {
				t.Fatalf("params %v", s.Params)
			}
			for id, row := range rows("pagerank-ldbc", map[string]any{"damping": 0.9, "iterations": 7, "precision": prec}) {
				if got, w := num(t, row["rank"]), want[vertexOf(t, d, id)]; !closeTo(got, w, 1e-5) {
					t.Fatalf("%s: id %d: rank %v, reference %v", prec, id, got, w)
				}
			}
		}
	})
	t.Run("cc", func(t *testing.T) {
		want := reference.Components(d)
		s := summary("cc", nil)
		if s.Result["components"].(float64) != 2 {
			t.Fatalf("result %v", s.Result)
		}
		for id, row := range rows("cc", nil) {
			if got, w := int64(num(t, row["component"])), d.OriginalID(want[vertexOf(t, d, id)]); got != w {
				t.Fatalf("id %d: component %d, reference %d", id, got, w)
			}
		}
	})
	t.Run("tc", func(t *testing.T) {
		total, per := reference.Triangles(d)
		if total == 0 {
			t.Fatal("the test graph has no triangles")
		}
		if s := summary("tc", nil); s.Summary != fmt.Sprintf("%d triangles", total) {
			t.Fatalf("summary %q, reference %d", s.Summary, total)
		}
		for id, row := range rows("tc", nil) {
			if got, w := int64(num(t, row["triangles"])), per[vertexOf(t, d, id)]; got != w {
				t.Fatalf("id %d: %d triangles, reference %d", id, got, w)
			}
		}
	})
	// An app without device code (lcc) is refused by a server on a device.
	cpuOnly := func(t *testing.T, algo string) bool {
		t.Helper()
		if testBackend == "cpu" || testBackend == "auto" || registry.Lookup(algo).Device() {
			return false
		}
		code, _, body := run(algo, nil, "")
		wantError(t, code, body, http.StatusBadRequest, "algo")
		return true
	}
	t.Run("lcc", func(t *testing.T) {
		if cpuOnly(t, "lcc") {
			return
		}
		want := reference.LCC(d)
		positive := 0
		for _, x := range want {
			if x > 0 {
				positive++
			}
		}
		s := summary("lcc", nil)
		if !strings.HasSuffix(s.Summary, fmt.Sprintf(" over %d vertices; %d with lcc > 0", d.N, positive)) || s.Result["positive"].(float64) != float64(positive) {
			t.Fatalf("summary %q, result %v; reference: %d with lcc > 0", s.Summary, s.Result, positive)
		}
		for id, row := range rows("lcc", nil) {
			if got, w := num(t, row["lcc"]), want[vertexOf(t, d, id)]; !closeTo(got, w, 1e-12) {
				t.Fatalf("id %d: lcc %v, reference %v", id, got, w)
			}
		}
	})
	t.Run("cdlp", func(t *testing.T) {
		if cpuOnly(t, "cdlp") {
			return
		}
		for _, iters := range []int{0, 1, 5} {
			want := reference.CDLP(d, iters)
			s := summary("cdlp", map[string]any{"iterations": iters})
			if s.Params["iterations"].(float64) != float64(iters) {
				t.Fatalf("params %v", s.Params)
			}
			for id, row := range rows("cdlp", map[string]any{"iterations": iters}) {
				if got, w := int64(num(t, row["community"])), want[vertexOf(t, d, id)]; got != w {
					t.Fatalf("%d iterations: id %d: community %d, reference %d", iters, id, got, w)
				}
			}
		}
		// The default: run's --iterations.
		if s := summary("cdlp", nil); s.Params["iterations"].(float64) != 10 {
			t.Fatalf("default params %v", s.Params)
		}
	})
	t.Run("csv", func(t *testing.T) {
		code, h, body := run("cc", nil, "csv")
		if code != 200 || !strings.HasPrefix(h.Get("Content-Type"), "text/csv") {
			t.Fatalf("%d %v", code, h)
		}
		lines := strings.Split(strings.TrimSpace(string(body)), "\n")
		if lines[0] != "id,component" || len(lines) != d.N+1 {
			t.Fatalf("header %q, %d lines", lines[0], len(lines))
		}
		code, _, body = run("sssp", map[string]any{"src": src}, "csv")
		if code != 200 || !strings.Contains(string(body), ",Infinity\n") {
			t.Fatalf("%d: unreached vertices should read Infinity", code)
		}
	})
	t.Run("default source", func(t *testing.T) {
		best := int32(0)
		for v := int32(1); v < int32(d.N); v++ {
			if d.Degree(v) > d.Degree(best) {
				best = v
			}
		}
		s := summary("bfs", nil)
		if s.Params["src"].(float64) != float64(d.OriginalID(best)) {
			t.Fatalf("default src %v, want %d", s.Params["src"], d.OriginalID(best))
		}
	})
}

// TestConcurrentQueries: many clients at once get their own answers.
func TestConcurrentQueries(t *testing.T) {
	for _, workers := range []int{0, 1, 4} { // summary BFSs reuse spare arrays, one a worker at most
		t.Run(fmt.Sprint("workers=", workers), func(t *testing.T) { testConcurrentQueries(t, workers) })
	}
}

func testConcurrentQueries(t *testing.T, workers int) {
	ts := newTestServer(t, func(c *Config) { c.Workers = workers })
	ts.load(t, "g", "sparse.el", nil)
	d := referenceGraph(t, ts.dir)
	want := map[int64]string{}
	for k := 0; k < 80; k += 3 {
		id := sparseID(k)
		dist, _ := reference.BFS(d, vertexOf(t, d, id))
		reached, depth := 0, int32(0)
		for _, x := range dist {
			if x >= 0 {
				reached++
				depth = max(depth, x)
			}
		}
		want[id] = fmt.Sprintf("source %d: reached %d vertices, depth %d", id, reached, depth)
	}
	ids := make([]int64, 0, len(want))
	for id := range want {
		ids = append(ids, id)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8*20)
	for c := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 20 {
				id := ids[(c*20+i)%len(ids)]
				algo := "bfs"
				if i%4 == 3 {
					algo = "cc"
				}
				body, _ := json.Marshal(map[string]any{"algo": algo, "params": map[string]any{"src": id}})
				if algo == "cc" {
					body = []byte(`{"algo":"cc"}`)
				}
				resp, err := http.Post(ts.url+"/v1/graphs/g/run", "application/json", bytes.NewReader(body))
				if err != nil {
					errs <- err
					return
				}
				var s SummaryResponse
				err = json.NewDecoder(resp.Body).Decode(&s)
				resp.Body.Close()
				switch {
				case err != nil || resp.StatusCode != 200:
					errs <- fmt.Errorf("status %d: %v", resp.StatusCode, err)
				case algo == "bfs" && s.Summary != want[id]:
					errs <- fmt.Errorf("src %d: %q, want %q", id, s.Summary, want[id])
				case algo == "cc" && s.Summary != "2 components, largest 70 vertices":
					errs <- fmt.Errorf("cc: %q", s.Summary)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// blockWorker makes every query wait in the worker until release closes
// or its context ends; started receives each query's start.
func blockWorker(s *Server) (started chan struct{}, release chan struct{}) {
	started, release = make(chan struct{}, 16), make(chan struct{})
	s.testHook = func(ctx context.Context) {
		started <- struct{}{}
		select {
		case <-release:
		case <-ctx.Done():
		}
	}
	return started, release
}

func TestQueueFull(t *testing.T) {
	ts := newTestServer(t, func(c *Config) { c.Workers, c.MaxQueue = 1, 1 })
	ts.load(t, "g", "sparse.el", nil)
	started, release := blockWorker(ts.Server)
	results := make(chan int, 2)
	post := func() {
		resp, err := http.Post(ts.url+"/v1/graphs/g/run", "application/json", strings.NewReader(`{"algo":"cc"}`))
		if err != nil {
			results <- -1
			return
		}
		resp.Body.Close()
		results <- resp.StatusCode
	}
	go post()
	<-started // the worker is busy
	go post()
	for deadline := time.Now().Add(10 * time.Second); ts.sched.queued() < 1; {
		if time.Now().After(deadline) {
			t.Fatal("the second query never queued")
		}
		time.Sleep(time.Millisecond)
	}
	code, h, body := ts.do(t, "POST", "/v1/graphs/g/run", `{"algo":"cc"}`)
	if code != http.StatusServiceUnavailable || h.Get("Retry-After") == "" {
		t.Fatalf("queue full: %d (Retry-After %q) %s", code, h.Get("Retry-After"), body)
	}
	close(release)
	for range 2 {
		if c := <-results; c != 200 {
			t.Fatalf("a queued query answered %d", c)
		}
	}
}

func TestTimeout(t *testing.T) {
	ts := newTestServer(t, func(c *Config) { c.QueryTimeout = 50 * time.Millisecond })
	ts.load(t, "g", "sparse.el", nil)
	blockWorker(ts.Server)
	code, _, body := ts.do(t, "POST", "/v1/graphs/g/run", `{"algo":"pagerank"}`)
	wantError(t, code, body, http.StatusGatewayTimeout, "timeout_ms")
}

func TestClientDisconnectCancels(t *testing.T) {
	ts := newTestServer(t, nil)
	ts.load(t, "g", "sparse.el", nil)
	started, _ := blockWorker(ts.Server)
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "POST", ts.url+"/v1/graphs/g/run", strings.NewReader(`{"algo":"bfs"}`))
	errc := make(chan error, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		errc <- err
	}()
	<-started
	cancel()
	<-errc
	for deadline := time.Now().Add(10 * time.Second); counterValue(t, ts, `hpgraph_queries_canceled_total{reason="client"}`) < 1; {
		if time.Now().After(deadline) {
			t.Fatal("the query was not canceled when its client went away")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// counterValue reads one metric line from /metrics (0 when absent).
func counterValue(t testing.TB, ts *testServer, series string) float64 {
	_, _, body := ts.do(t, "GET", "/metrics", nil, "Authorization", "Bearer "+ts.cfg.Token)
	for _, line := range strings.Split(string(body), "\n") {
		if v, ok := strings.CutPrefix(line, series+" "); ok {
			f, _ := strconv.ParseFloat(v, 64)
			return f
		}
	}
	return 0
}

func TestMetrics(t *testing.T) {
	ts := newTestServer(t, nil)
	ts.load(t, "g", "sparse.el", nil)
	ts.do(t, "POST", "/v1/graphs/g/run", `{"algo":"cc"}`)
	ts.do(t, "POST", "/v1/graphs/g/run", `{"algo":"nope"}`)
	if v := counterValue(t, ts, `hpgraph_queries_total{algo="cc",code="200"}`); v != 1 {
		t.Errorf("queries: %v", v)
	}
	if v := counterValue(t, ts, `hpgraph_http_errors_total{code="400"}`); v != 1 {
		t.Errorf("errors: %v", v)
	}
	if v := counterValue(t, ts, `hpgraph_query_duration_seconds_count{algo="cc"}`); v != 1 {
		t.Errorf("latency count: %v", v)
	}
	if v := counterValue(t, ts, `hpgraph_host_memory_bytes`); v <= 0 {
		t.Errorf("host memory: %v", v)
	}
	if v := counterValue(t, ts, `hpgraph_graphs_loaded`); v != 1 {
		t.Errorf("graphs: %v", v)
	}
}

func TestGraphLifecycle(t *testing.T) {
	ts := newTestServer(t, nil)
	ts.load(t, "g", "sparse.el", map[string]any{"weights": "none"})
	code, _, body := ts.do(t, "POST", "/v1/graphs", `{"name":"g","path":"sparse.el"}`)
	wantError(t, code, body, http.StatusConflict, "name")
	code, _, body = ts.do(t, "GET", "/v1/graphs/g", nil)
	var info GraphInfo
	if code != 200 || json.Unmarshal(body, &info) != nil || info.Vertices != 80 || info.Weighted || info.IDs != "sparse" {
		t.Fatalf("describe: %d %s", code, body)
	}
	code, _, body = ts.do(t, "GET", "/v1/graphs", nil)
	if code != 200 || !strings.Contains(string(body), `"name": "g"`) {
		t.Fatalf("list: %d %s", code, body)
	}
	if code, _, body = ts.do(t, "DELETE", "/v1/graphs/g", nil); code != 200 {
		t.Fatalf("drop: %d %s", code, body)
	}
	code, _, body = ts.do(t, "GET", "/v1/graphs/g", nil)
	wantError(t, code, body, http.StatusNotFound, "name")
	code, _, body = ts.do(t, "POST", "/v1/graphs/g/run", `{"algo":"cc"}`)
	wantError(t, code, body, http.StatusNotFound, "name")
	if code, _, _ = ts.do(t, "GET", "/v1/health", nil); code != 200 {
		t.Fatal("health", code)
	}
}

func TestDataDirEscapes(t *testing.T) {
	ts := newTestServer(t, nil)
	outside := t.TempDir()
	writeTestGraph(t, outside, "secret.el")
	if err := os.Symlink(filepath.Join(outside, "secret.el"), filepath.Join(ts.dir, "link.el")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(ts.dir, "linkdir")); err != nil {
		t.Fatal(err)
	}
	os.Mkdir(filepath.Join(ts.dir, "sub"), 0o755)
	rel, _ := filepath.Rel(ts.dir, filepath.Join(outside, "secret.el"))
	for _, p := range []string{"../secret.el", rel, filepath.Join(outside, "secret.el"), "/etc/passwd", "sub/../../secret.el",
		"link.el", "linkdir/secret.el", "sub", "", "a\x00b"} {
		code, _, body := ts.do(t, "POST", "/v1/graphs", map[string]any{"name": "x", "path": p})
		if code != 400 {
			t.Errorf("path %q: %d %s", p, code, body)
			continue
		}
		wantError(t, code, body, 400, "path")
		if !strings.Contains(p, outside) && strings.Contains(string(body), outside) {
			t.Errorf("path %q: the message shows a path outside: %s", p, body)
		}
	}
	code, _, body := ts.do(t, "POST", "/v1/graphs", `{"name":"x","path":"missing.el"}`)
	wantError(t, code, body, 404, "path")
	// A symlink that stays inside is fine.
	os.Symlink("sparse.el", filepath.Join(ts.dir, "inside.el"))
	ts.load(t, "inside", "inside.el", nil)
}

func TestListenNeedsTokenAndFlag(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		cfg Config
		ok  bool
	}{
		{Config{Listen: "127.0.0.1:8080"}, true},
		{Config{Listen: "localhost:8080"}, true},
		{Config{Listen: "[::1]:8080"}, true},
		{Config{Listen: "0.0.0.0:8080"}, false},
		{Config{Listen: ":8080"}, false},
		{Config{Listen: "0.0.0.0:8080", AllowRemote: true}, false},
		{Config{Listen: "0.0.0.0:8080", Token: "t"}, false},
		{Config{Listen: "0.0.0.0:8080", AllowRemote: true, Token: "t"}, true},
	} {
		c.cfg.DataDir, c.cfg.Backend = dir, "cpu"
		s, err := New(c.cfg)
		if (err == nil) != c.ok {
			t.Errorf("%+v: error %v", c.cfg, err)
		}
		if s != nil {
			s.Shutdown(context.Background())
		}
	}
	if _, err := New(Config{Backend: "cpu"}); err == nil {
		t.Error("no data directory: no error")
	}
}

func TestToken(t *testing.T) {
	ts := newTestServer(t, func(c *Config) { c.Token = "s3cret" })
	code, h, body := ts.do(t, "GET", "/v1/graphs", nil)
	if code != 401 || h.Get("WWW-Authenticate") == "" {
		t.Fatalf("no token: %d %s", code, body)
	}
	if code, _, _ = ts.do(t, "GET", "/v1/graphs", nil, "Authorization", "Bearer wrong"); code != 401 {
		t.Fatalf("wrong token: %d", code)
	}
	if code, _, _ = ts.do(t, "GET", "/metrics", nil); code != 401 {
		t.Fatalf("metrics without token: %d", code)
	}
	if code, _, _ = ts.do(t, "GET", "/v1/graphs", nil, "Authorization", "Bearer s3cret"); code != 200 {
		t.Fatalf("right token: %d", code)
	}
	if code, _, _ = ts.do(t, "GET", "/v1/health", nil); code != 200 {
		t.Fatalf("health needs no token: %d", code)
	}
}

func TestBadRequests(t *testing.T) {
	ts := newTestServer(t, func(c *Config) { c.MaxBodyBytes = 1024; c.MaxResultBytes = 2000 })
	ts.load(t, "g", "sparse.el", nil)
	for _, c := range []struct {
		body  string
		code  int
		field string
	}{
		{`{"algo":`, 400, "body"},
		{`not json`, 400, "body"},
		{``, 400, "body"},
		{`{"algo":"cc"} {}`, 400, "body"},
		{`{"algo":"dijkstra"}`, 400, "algo"},
		{`{}`, 400, "algo"},
		{`{"algo":7}`, 400, "algo"},
		{`{"algo":"bfs","params":{"src":"12"}}`, 400, "params.src"},
		{`{"algo":"bfs","params":{"src":1.5}}`, 400, "params.src"},
		{`{"algo":"bfs","params":{"src":5001}}`, 400, "params.src"},
		{`{"algo":"bfs","params":{"src":-3}}`, 400, "params.src"},
		{`{"algo":"bfs","params":{"src":99999999999999999999}}`, 400, "params.src"},
		{`{"algo":"pagerank","params":{"src":5000}}`, 400, "params.src"},
		{`{"algo":"pagerank","params":{"damping":1.5}}`, 400, "params.damping"},
		{`{"algo":"pagerank","params":{"damping":"x"}}`, 400, "params.damping"},
		{`{"algo":"pagerank","params":{"precision":"float32"}}`, 400, "params.precision"},
		{`{"algo":"pagerank-ldbc","params":{"iterations":-1}}`, 400, "params.iterations"},
		{`{"algo":"pagerank-ldbc","params":{"iterations":0}}`, 400, "params.iterations"},
		{`{"algo":"cc","params":{"max_iter":-1}}`, 400, "params.max_iter"},
		{`{"algo":"sssp","params":{"delta":-2}}`, 400, "params.delta"},
		{`{"algo":"tc","params":{"per_vertex":1}}`, 400, "params.per_vertex"},
		{`{"algo":"pagerank-ldbc","params":{"iterations":2000000}}`, 400, "params.iterations"},
		{`{"algo":"cc","params":{"max_iter":2000000}}`, 400, "params.max_iter"},
		{`{"algo":"pagerank","params":{"tolerance":-1}}`, 400, "params.tolerance"},
		{`{"algo":"pagerank-ldbc","params":{"precision":"half"}}`, 400, "params.precision"},
		{`{"algo":"lcc","params":{"iterations":3}}`, 400, "params.iterations"},
		{`{"algo":"lcc","params":{"src":5000}}`, 400, "params.src"},
		{`{"algo":"lcc","params":{"max_iter":"x"}}`, 400, "params.max_iter"},
		{`{"algo":"cdlp","params":{"iterations":-1}}`, 400, "params.iterations"},
		{`{"algo":"cdlp","params":{"iterations":"3"}}`, 400, "params.iterations"},
		{`{"algo":"cdlp","params":{"damping":0.5}}`, 400, "params.damping"},
		{`{"algo":"cdlp","params":{"max-iter":2}}`, 400, "max-iter"},
		{`{"algo":"cc","params":{"bogus":1}}`, 400, "bogus"},
		{`{"algo":"cc","output":"xml"}`, 400, "output"},
		{`{"algo":"cc","output":"ndjson"}`, 413, "output"},
		{`{"algo":"cc","timeout_ms":-5}`, 400, "timeout_ms"},
		{`{"algo":"cc","params":{"x":"` + strings.Repeat("a", 2000) + `"}}`, 413, "body"},
	} {
		code, _, body := ts.do(t, "POST", "/v1/graphs/g/run", c.body)
		t.Run(c.body[:min(len(c.body), 40)], func(t *testing.T) { wantError(t, code, body, c.code, c.field) })
	}
	for _, c := range []struct {
		body  string
		field string
	}{
		{`{"name":"bad name","path":"sparse.el"}`, "name"},
		{`{"name":"x","path":"sparse.el","weights":"random:9-1"}`, "weights"},
		{`{"name":"x","path":"sparse.el","format":"xml"}`, "format"},
		{`{"name":"x","path":"sparse.el","relabel":"random"}`, "relabel"},
		{`{"name":"x","path":"sparse.el","symmetrize":"yes"}`, "symmetrize"},
		{`{"name":"x","path":"sparse.el","directed":true,"undirected":true}`, "undirected"},
	} {
		code, _, body := ts.do(t, "POST", "/v1/graphs", c.body)
		wantError(t, code, body, 400, c.field)
	}
}

func TestDeviceBudget(t *testing.T) {
	ts := newTestServer(t, func(c *Config) { c.DeviceBudget = 1000 })
	code, _, body := ts.do(t, "POST", "/v1/graphs", `{"name":"g","path":"sparse.el"}`)
	wantError(t, code, body, http.StatusInsufficientStorage, "path")
	var e struct {
		Needed    int64 `json:"bytes_needed"`
		Available int64 `json:"bytes_available"`
	}
	json.Unmarshal(body, &e)
	if e.Needed <= 1000 || e.Available != 1000 {
		t.Fatalf("needed %d, available %d: %s", e.Needed, e.Available, body)
	}
}

func TestShutdownFinishesQueries(t *testing.T) {
	ts := newTestServer(t, nil)
	ts.load(t, "g", "sparse.el", nil)
	started, release := blockWorker(ts.Server)
	res := make(chan int, 1)
	go func() {
		resp, err := http.Post(ts.url+"/v1/graphs/g/run", "application/json", strings.NewReader(`{"algo":"cc"}`))
		if err != nil {
			res <- -1
			return
		}
		resp.Body.Close()
		res <- resp.StatusCode
	}()
	<-started
	shut := make(chan error, 1)
	go func() { shut <- ts.Shutdown(context.Background()) }()
	time.Sleep(20 * time.Millisecond)
	close(release)
	if err := <-shut; err != nil {
		t.Fatal(err)
	}
	if c := <-res; c != 200 {
		t.Fatalf("the query in flight answered %d", c)
	}
	if code, _, _ := ts.do(t, "POST", "/v1/graphs/g/run", `{"algo":"cc"}`); code != 404 && code != 503 {
		t.Fatalf("after shutdown: %d", code)
	}
}

// TestRunHonoursContext: every app stops on a canceled context (what a
// disconnected client or a timeout gives a running query).
func TestRunHonoursContext(t *testing.T) {
	ts := newTestServer(t, nil)
	ts.load(t, "g", "sparse.el", nil)
	lg, _ := ts.lookup("g")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, algo := range Algorithms {
		if a := registry.Lookup(algo); !a.Device() && testBackend != "cpu" && testBackend != "auto" {
			continue // (no device code: the server refuses it)
		}
		req := RunRequest{Algo: algo}
		q, e := req.check(lg)
		if e != nil {
			t.Fatal(e)
		}
		_, err := run(lg, q, vertexprogOptions(ts.Server, ctx))
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%s: error %v, want context.Canceled", algo, err)
		}
	}
}

// TestRowsInFileOrder: a graph renumbered by degree lists its per-vertex
// rows as one loaded in the file's order does (the ids increasing), so
// that the two answers diff clean but for what the order of a sum or a
// parent's choice changes.
func TestRowsInFileOrder(t *testing.T) {
	ts := newTestServer(t, nil)
	ts.load(t, "plain", "sparse.el", map[string]any{"relabel": "none"})
	ts.load(t, "degree", "sparse.el", map[string]any{"relabel": "degree"})
	for _, output := range []string{"csv", "ndjson"} {
		for _, algo := range []string{"sssp", "cc", "cdlp", "tc"} {
			body := map[string]any{"algo": algo, "output": output, "params": map[string]any{}}
			if algo == "tc" {
				body["params"] = map[string]any{"per_vertex": true}
			}
			var answers [2][]string
			for i, g := range []string{"plain", "degree"} {
				code, _, out := ts.do(t, "POST", "/v1/graphs/"+g+"/run", body)
				if code != http.StatusOK {
					t.Fatalf("%s %s on %s: %d %s", algo, output, g, code, out)
				}
				answers[i] = strings.Split(strings.TrimSpace(string(out)), "\n")
			}
			if strings.Join(answers[0], "\n") != strings.Join(answers[1], "\n") {
				t.Errorf("%s %s: renumbered by degree, the rows differ from the file's order's:\n%v\n%v", algo, output, answers[0][:4], answers[1][:4])
			}
			var last int64 = -1
			for _, line := range answers[0] {
				var id int64
				if output == "csv" {
					if strings.HasPrefix(line, "id,") {
						continue
					}
					id, _ = strconv.ParseInt(strings.SplitN(line, ",", 2)[0], 10, 64)
				} else {
					fmt.Sscanf(line, `{"id":%d`, &id)
				}
				if id <= last {
					t.Fatalf("%s %s: id %d after %d: rows not in the ids' order", algo, output, id, last)
				}
				last = id
			}
		}
	}
}

// A client that sends its whole body before it reads the answer (Python's
// http.client) gets the 413 of a body over --max-body, or the 400 of one
// that is no JSON, not a connection reset under it while it still sends:
// the server reads the rest of the body (up to drainBytes) before it
// answers (and, past the limit, closes).
func TestOversizedBodyGets413(t *testing.T) {
	ts := newTestServer(t, nil)
	ts.load(t, "g", "sparse.el", nil)
	for _, c := range []struct {
		size       int
		json       bool // the body's start is JSON (413), or not (400)
		code       int
		field      string
		closesConn bool
	}{{1 << 20, true, http.StatusRequestEntityTooLarge, "body", true}, {64 << 20, true, http.StatusRequestEntityTooLarge, "body", true},
		{64 << 20, false, http.StatusBadRequest, "body", false}} {
		size := c.size
		conn, err := net.Dial("tcp", strings.TrimPrefix(ts.url, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		conn.SetDeadline(time.Now().Add(60 * time.Second))
		body := `{"algo":"cc","params":{"x":"` + strings.Repeat("a", size) + `"}}`
		if !c.json {
			body = strings.Repeat("x", size)
		}
		req := fmt.Sprintf("POST /v1/graphs/g/run HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", len(body))
		if _, err := io.WriteString(conn, req+body); err != nil {
			t.Fatalf("%d bytes: sending the body: %v (the server closed while the client still sent)", size, err)
		}
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatalf("%d bytes: reading the answer: %v", size, err)
		}
		out, _ := io.ReadAll(resp.Body)
		conn.Close()
		wantError(t, resp.StatusCode, out, c.code, c.field)
		if resp.Close != c.closesConn {
			t.Errorf("%d bytes: %d closes the connection: %v, want %v", size, c.code, resp.Close, c.closesConn)
		}
	}
}

// The scheme of Authorization is case-insensitive (RFC 7235): bearer,
// BEARER and Bearer carry the token alike; the token is not.
func TestBearerSchemeAnyCase(t *testing.T) {
	ts := newTestServer(t, func(c *Config) { c.Token = "s3cret" })
	for _, h := range []string{"Bearer s3cret", "bearer s3cret", "BEARER s3cret", "bEaReR  s3cret"} {
		if code, _, body := ts.do(t, "GET", "/v1/graphs", nil, "Authorization", h); code != 200 {
			t.Errorf("%q: %d %s", h, code, body)
		}
	}
	for _, h := range []string{"Bearer S3CRET", "Basic s3cret", "Bearers3cret", "s3cret", "Bearer"} {
		if code, _, _ := ts.do(t, "GET", "/v1/graphs", nil, "Authorization", h); code != 401 {
			t.Errorf("%q: %d, want 401", h, code)
		}
	}
}

// A summary query that fails (here: times out while it runs) gives its
// scratch back as one that succeeds does: the next query reuses it
// instead of allocating (and on a device page-locking) its arrays again,
// garbage a server's memory grew by under load with timeouts.
func TestFailedQueryGivesScratchBack(t *testing.T) {
	ts := newTestServer(t, func(c *Config) { c.Workers = 1 })
	ts.load(t, "g", "sparse.el", nil)
	lg, _ := ts.lookup("g")
	spare := func() int {
		lg.scratchMu.Lock()
		defer lg.scratchMu.Unlock()
		return len(lg.scratches)
	}
	for q := range 3 {
		code, _, body := ts.do(t, "POST", "/v1/graphs/g/run", `{"algo":"pagerank-ldbc","params":{"iterations":1000000},"timeout_ms":30}`)
		wantError(t, code, body, http.StatusGatewayTimeout, "timeout_ms")
		for deadline := time.Now().Add(10 * time.Second); spare() != 1; time.Sleep(5 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("query %d: %d spare scratches after a failed query, want its one back", q, spare())
			}
		}
	}
}

// A load error names the request's fields, not the CLI's flags nor the
// library's options: an LDBC graph of unknown direction asks for
// "directed" or "undirected".
func TestLoadErrorNamesFields(t *testing.T) {
	ts := newTestServer(t, nil)
	for name, body := range map[string]string{"x.v": "1\n2\n", "x.e": "1 2\n"} {
		if err := os.WriteFile(filepath.Join(ts.dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, _, body := ts.do(t, "POST", "/v1/graphs", map[string]any{"name": "x", "path": "x.e"})
	if code != http.StatusBadRequest || !strings.Contains(string(body), `say it with \"directed\": true or \"undirected\": true`) ||
		strings.Contains(string(body), "--") || strings.Contains(string(body), "Input.") {
		t.Fatalf("%d %s", code, body)
	}
	ts.load(t, "x", "x.e", map[string]any{"undirected": true})
}
