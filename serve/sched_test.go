package serve

// The scheduler: queries at once, a full queue, timeouts, cancellation,
// shutdown, metrics.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hpgraph/hpgraph/apps/reference"
	"github.com/hpgraph/hpgraph/apps/registry"
)

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
