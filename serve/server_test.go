package serve

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
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
