// Package serve is hpgraph's HTTP/JSON server (`hpgraph serve`): it loads
// graphs from a data directory, keeps them (and the HYB matrices their
// runs build) on the chosen backend, and answers queries of the built-in
// apps in the graphs' original ids.
//
// Endpoints (docs/serve-openapi.yaml describes them):
//
//	GET    /v1/health
//	GET    /v1/graphs
//	POST   /v1/graphs                {"name", "path", load options}
//	PUT    /v1/graphs/{name}         an edge-array body (upload.go)
//	GET    /v1/graphs/{name}
//	DELETE /v1/graphs/{name}
//	POST   /v1/graphs/{name}/run     {"algo", "params", "output"}
//	GET    /metrics                  (Prometheus)
//
// Queries go through a scheduler: DeviceWorkers workers on a device
// backend (their calls to the GPU are serialized; their host work
// overlaps), GOMAXPROCS on the CPU, behind a bounded
// queue that answers 503 with Retry-After when full. Each query has a
// timeout (504) and stops when its client goes away
// (vertexprog.Options.Context).
package serve

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/hpgraph/hpgraph/apps"
	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/serve/wire"
	"github.com/hpgraph/hpgraph/vertexprog"
)

// Defaults of Config's zero fields.
const (
	DefaultListen         = "127.0.0.1:8080"
	DefaultMaxQueue       = 64
	DefaultQueryTimeout   = 5 * time.Minute
	DefaultMaxBodyBytes   = 64 << 10
	DefaultMaxResultBytes = 1 << 30
	DefaultMaxUploadBytes = 1 << 30
)

// Config configures a Server. Zero fields take the defaults above.
type Config struct {
	// Listen is the address `hpgraph serve` listens on; New refuses an
	// address that is not a loopback one unless AllowRemote is set and
	// Token is not empty.
	Listen string
	// DataDir is the only directory graphs load from (required).
	DataDir string
	// Backend is vertexprog.Options.Backend: auto, cpu or cuda.
	Backend string
	// Token, when set, is the bearer token every request but /v1/health
	// must carry (Authorization: Bearer TOKEN).
	Token       string
	AllowRemote bool
	// MaxQueue is the number of queries that may wait for a worker;
	// beyond it a query is answered 503 with Retry-After.
	MaxQueue int
	// Workers is the number of queries that run at once: 0 is
	// DeviceWorkers on a device backend, GOMAXPROCS on the CPU.
	Workers int
	// QueryTimeout bounds a query, its wait in the queue included (504).
	QueryTimeout time.Duration
	// MaxBodyBytes bounds request bodies (413).
	MaxBodyBytes int64
	// MaxResultBytes bounds a per-vertex answer (413 before it runs).
	MaxResultBytes int64
	// MaxUploadBytes bounds an uploaded graph's body (413).
	MaxUploadBytes int64
	// DeviceBudget is the memory, in bytes, that the loaded graphs may
	// take on the backend: 0 is the device's total on a device backend
	// and no limit on the CPU. A graph whose estimate does not fit is
	// refused (507) with the bytes needed and available.
	DeviceBudget int64
	// Logf receives one line per load, drop and failed query (nil: log.Printf).
	Logf func(format string, args ...any)
}

// Server holds the loaded graphs and answers the API.
type Server struct {
	cfg     Config
	dataDir string // DataDir with its symlinks resolved
	device  bool   // the backend is a device (DeviceWorkers workers)
	metrics *metrics
	sched   *scheduler
	start   time.Time

	mu     sync.RWMutex
	graphs map[string]*loadedGraph
	// loading reserves names (and their budget) while a load runs.
	loading map[string]int64

	// testHook, when set, runs in the worker before each query (tests
	// block the worker with it).
	testHook func(ctx context.Context)
}

// loadedGraph is a graph in the registry.
type loadedGraph struct {
	name     string
	path     string // relative to the data directory
	g        *vertexprog.Graph
	d        *datasets.Graph
	opts     LoadOptions
	loadTime time.Duration
	loadedAt time.Time
	bytes    int64 // the estimate charged to the budget
	edges    int64
	queries  int64 // guarded by Server.mu
	// scratches hold what summary queries' apps keep for the next (a
	// finished BFS's arrays and, on a device, parked buffers, which the
	// next summary BFS writes into instead of allocating 8 bytes a
	// vertex): at most one a worker, each lent to one query at a time.
	scratchMu sync.Mutex
	scratches []*apps.Scratch
}

// takeScratch lends a summary query a scratch: a spare one, or a new one
// for runs on backend (a device backend's copies into it go by DMA).
func (lg *loadedGraph) takeScratch(backend string) *apps.Scratch {
	lg.scratchMu.Lock()
	defer lg.scratchMu.Unlock()
	if n := len(lg.scratches); n > 0 {
		s := lg.scratches[n-1]
		lg.scratches = lg.scratches[:n-1]
		return s
	}
	return &apps.Scratch{Backend: backend}
}

// putScratch gives s back for a later summary query.
func (lg *loadedGraph) putScratch(s *apps.Scratch) {
	lg.scratchMu.Lock()
	lg.scratches = append(lg.scratches, s)
	lg.scratchMu.Unlock()
}

// DeviceWorkers is the default number of queries that run at once on a
// device: one query's host work (Init, results) overlaps another's turn
// on the GPU, whose calls are serialized. Measured on an H200 (kron21
// BFS, 16 clients): 330 queries/s with one worker, 486 with four.
const DeviceWorkers = 4

var nameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// New checks cfg and returns a server with no graphs loaded. Call
// Shutdown to stop its workers.
func New(cfg Config) (*Server, error) {
	if cfg.Listen == "" {
		cfg.Listen = DefaultListen
	}
	if cfg.Backend == "" {
		cfg.Backend = "auto"
	}
	if cfg.MaxQueue == 0 {
		cfg.MaxQueue = DefaultMaxQueue
	}
	if cfg.QueryTimeout == 0 {
		cfg.QueryTimeout = DefaultQueryTimeout
	}
	if cfg.MaxBodyBytes == 0 {
		cfg.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if cfg.MaxResultBytes == 0 {
		cfg.MaxResultBytes = DefaultMaxResultBytes
	}
	if cfg.MaxUploadBytes == 0 {
		cfg.MaxUploadBytes = DefaultMaxUploadBytes
	}
	if cfg.Logf == nil {
		cfg.Logf = log.Printf
	}
	if cfg.MaxQueue < 0 || cfg.Workers < 0 || cfg.QueryTimeout < 0 || cfg.MaxBodyBytes < 0 || cfg.MaxResultBytes < 0 || cfg.MaxUploadBytes < 0 || cfg.DeviceBudget < 0 {
		return nil, errors.New("serve: negative limit in the configuration")
	}
	if err := checkListen(cfg.Listen, cfg.AllowRemote, cfg.Token); err != nil {
		return nil, err
	}
	if cfg.DataDir == "" {
		return nil, errors.New("serve: a data directory is required (--data-dir): graphs load only from it")
	}
	dir, err := filepath.Abs(cfg.DataDir)
	if err == nil {
		dir, err = filepath.EvalSymlinks(dir)
	}
	if err != nil {
		return nil, fmt.Errorf("serve: data directory: %w", err)
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("serve: data directory %s is not a directory", cfg.DataDir)
	}
	if err := vertexprog.Warm(cfg.Backend); err != nil {
		return nil, fmt.Errorf("serve: backend %s: %w", cfg.Backend, err)
	}
	s := &Server{cfg: cfg, dataDir: dir, start: time.Now(),
		graphs: map[string]*loadedGraph{}, loading: map[string]int64{}}
	s.device = isDevice(cfg.Backend)
	workers := cfg.Workers
	if workers == 0 {
		workers = runtime.GOMAXPROCS(0)
		if s.device {
			workers = DeviceWorkers
		}
	}
	s.metrics = newMetrics(s)
	s.sched = newScheduler(workers, cfg.MaxQueue, s.metrics)
	return s, nil
}

// isDevice says whether backend runs on a device: a named device backend,
// or auto where one is registered.
func isDevice(backend string) bool {
	switch backend {
	case "cpu":
		return false
	case "auto", "":
		return len(vertexprog.Backends()) > 1
	}
	return true
}

// checkListen refuses a non-loopback address without AllowRemote and a token.
func checkListen(addr string, allowRemote bool, token string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("serve: listen address %q: %w", addr, err)
	}
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	if !allowRemote {
		return fmt.Errorf("serve: listen address %q is not a loopback address: serving other hosts needs --allow-remote and --token", addr)
	}
	if token == "" {
		return fmt.Errorf("serve: listen address %q with --allow-remote needs a bearer token (--token)", addr)
	}
	return nil
}

// Config returns the configuration in effect (defaults filled in).
func (s *Server) Config() Config { return s.cfg }

// Shutdown stops accepting queries, waits for those running (or ctx),
// and drops every graph. The HTTP server's own Shutdown, called first,
// finishes the requests in flight.
func (s *Server) Shutdown(ctx context.Context) error {
	err := s.sched.close(ctx)
	s.mu.Lock()
	for name := range s.graphs {
		delete(s.graphs, name)
	}
	s.mu.Unlock()
	s.metrics.graphs.Set(0)
	s.metrics.graphBytes.Set(0)
	runtime.GC() // the graphs' host (and device-resident) memory
	return err
}

// Handler returns the API's handler.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/health", s.health)
	mux.HandleFunc("GET /v1/graphs", s.listGraphs)
	mux.HandleFunc("POST /v1/graphs", s.loadGraph)
	mux.HandleFunc("GET /v1/graphs/{name}", s.describeGraph)
	mux.HandleFunc("PUT /v1/graphs/{name}", s.uploadGraph)
	mux.HandleFunc("DELETE /v1/graphs/{name}", s.dropGraph)
	mux.HandleFunc("POST /v1/graphs/{name}/run", s.runGraph)
	mux.Handle("GET /metrics", s.metrics.handler())
	return s.guard(mux)
}

// guard checks the token, bounds the body and turns a panic into a 500.
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				s.cfg.Logf("serve: panic in %s %s: %v", r.Method, r.URL.Path, v)
				s.metrics.requestError(http.StatusInternalServerError)
				writeError(w, &apiError{code: http.StatusInternalServerError, msg: "internal error"})
			}
		}()
		if s.cfg.Token != "" && r.URL.Path != "/v1/health" && !s.authorized(r) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="hpgraph"`)
			s.fail(w, &apiError{code: http.StatusUnauthorized, msg: "missing or wrong bearer token (Authorization: Bearer TOKEN)", field: "Authorization"})
			return
		}
		if r.Body != nil {
			rest := r.Body
			r.Body = http.MaxBytesReader(w, r.Body, s.bodyLimit(r))
			defer drain(w, rest)
		}
		next.ServeHTTP(w, r)
	})
}

// drainBytes and drainTime bound what the server reads of a body that
// its handler left unread (past --max-body: a 413; after a JSON error: a
// 400) before the answer goes out: a client that sends its whole body
// before it reads the answer (Python's http.client, most simple clients)
// would otherwise get its connection reset under it while it still
// sends, and never read the answer (net/http reads at most 256 KB of
// what is left, then closes).
const (
	drainBytes = 256 << 20
	drainTime  = 10 * time.Second
)

// drain reads and discards what is left of a request's body, up to
// drainBytes within drainTime; a body larger still has its connection
// closed, as before.
func drain(w http.ResponseWriter, body io.Reader) {
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Now().Add(drainTime))
	_, _ = io.CopyN(io.Discard, body, drainBytes)
	_ = rc.SetReadDeadline(time.Time{}) // (net/http sets the next request's own)
}

// authorized says whether r carries the token: Authorization: Bearer
// TOKEN, the scheme in any case (RFC 7235: "bearer" is "Bearer").
func (s *Server) authorized(r *http.Request) bool {
	scheme, tok, ok := strings.Cut(strings.TrimSpace(r.Header.Get("Authorization")), " ")
	tok = strings.TrimLeft(tok, " ")
	return ok && strings.EqualFold(scheme, "Bearer") && subtle.ConstantTimeCompare([]byte(tok), []byte(s.cfg.Token)) == 1
}

func (s *Server) health(w http.ResponseWriter, r *http.Request) {
	s.mu.RLock()
	n := len(s.graphs)
	s.mu.RUnlock()
	writeJSON(w, http.StatusOK, map[string]any{
		"status": "ok", "backend": s.cfg.Backend, "device": s.device, "graphs": n,
		"workers": s.sched.workers, "queued": s.sched.queued(), "max_queue": s.cfg.MaxQueue,
		"uptime_s": time.Since(s.start).Seconds(),
	})
}

// GraphInfo describes a loaded graph (GET /v1/graphs/{name}): the
// client's Graph, one type on both sides of the wire.
type GraphInfo = wire.Graph

func (s *Server) info(lg *loadedGraph) GraphInfo {
	ids := "sparse"
	if lo, ok := contiguousIDs(lg.d); ok {
		ids = fmt.Sprintf("contiguous from %d", lo)
	}
	return GraphInfo{Name: lg.name, Path: lg.path, Vertices: lg.d.N, Edges: lg.edges, NNZ: lg.d.NNZ(),
		Directed: lg.d.Directed, Weighted: lg.d.W != nil, IDs: ids, LoadMS: ms(lg.loadTime), LoadedAt: lg.loadedAt,
		Bytes: lg.bytes, Queries: lg.queries, Options: lg.opts, Backend: s.cfg.Backend, SelfLoops: lg.d.Stats.SelfLoops}
}

func (s *Server) listGraphs(w http.ResponseWriter, r *http.Request) {
	s.mu.RLock()
	list := make([]GraphInfo, 0, len(s.graphs))
	for _, lg := range s.graphs {
		list = append(list, s.info(lg))
	}
	s.mu.RUnlock()
	sort.Slice(list, func(i, j int) bool { return list[i].Name < list[j].Name })
	writeJSON(w, http.StatusOK, map[string]any{"graphs": list})
}

func (s *Server) lookup(name string) (*loadedGraph, *apiError) {
	s.mu.RLock()
	lg := s.graphs[name]
	s.mu.RUnlock()
	if lg == nil {
		return nil, &apiError{code: http.StatusNotFound, msg: fmt.Sprintf("no graph named %q is loaded", name), field: "name"}
	}
	return lg, nil
}

func (s *Server) describeGraph(w http.ResponseWriter, r *http.Request) {
	lg, e := s.lookup(r.PathValue("name"))
	if e != nil {
		s.fail(w, e)
		return
	}
	s.mu.RLock()
	info := s.info(lg)
	s.mu.RUnlock()
	writeJSON(w, http.StatusOK, info)
}

func (s *Server) dropGraph(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	if !s.DropGraph(name) {
		s.fail(w, &apiError{code: http.StatusNotFound, msg: fmt.Sprintf("no graph named %q is loaded", name), field: "name"})
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"dropped": name})
}

// DropGraph removes a graph; queries running on it finish on their own
// reference. It reports whether the graph was loaded.
func (s *Server) DropGraph(name string) bool {
	s.mu.Lock()
	lg := s.graphs[name]
	delete(s.graphs, name)
	s.mu.Unlock()
	if lg == nil {
		return false
	}
	s.metrics.graphs.Dec()
	s.metrics.graphBytes.Sub(float64(lg.bytes))
	s.cfg.Logf("serve: dropped graph %s", name)
	return true
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
