// Package loadgen is the load generator of `hpgraph loadgen`: clients
// that send queries to `hpgraph serve` (package serve) as fast as it
// answers them, for a bounded number of queries or a bounded time, and
// report throughput, client-side latency percentiles and the server's
// compute times per algorithm and overall.
//
// Query i of a run is the same whichever client sends it: its algorithm
// is the mix's (i mod len(mix))-th, its source (bfs, sssp) is drawn from
// a generator seeded by (Seed, i).
package loadgen

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hpgraph/hpgraph/apps/registry"
	"github.com/hpgraph/hpgraph/serve/client"
)

// Algorithms are the algorithms a query may name: apps' registry, whose
// parameters the server checks requests against.
var Algorithms = registry.Names()

// known says whether name is a parameter the server knows: an app's
// (max_iter included), or src.
func known(name string) bool {
	if name == "src" {
		return true
	}
	for _, p := range registry.AllParams() {
		if p.JSONName() == name {
			return true
		}
	}
	return false
}

// takes says whether algo takes the parameter name (its JSON name).
func takes(algo, name string) bool {
	a := registry.Lookup(algo)
	if name == "src" {
		return a.Source
	}
	p := a.Param(name)
	return p != nil && p.JSONName() == name
}

// Defaults of Config's zero fields.
const (
	DefaultURL      = "http://127.0.0.1:8080"
	DefaultQueries  = 1000
	DefaultDuration = 60 * time.Second
)

// Config is a load test.
type Config struct {
	// URL is the server's base URL; a host other than a loopback one
	// is refused unless AllowRemote is set.
	URL         string
	AllowRemote bool
	// Token, when set, is sent as a bearer token.
	Token string
	// Graph is the loaded graph the queries go to (required).
	Graph string
	// Algos is the mix: query i runs Algos[i mod len(Algos)]; an
	// algorithm named twice gets twice the queries.
	Algos []string
	// Params is a JSON object of run parameters. With one algorithm it
	// goes to the server as is; in a mix each algorithm gets the keys it
	// takes (and max_iter, and keys the server does not know, which it
	// then refuses). A key no algorithm of the mix takes, and src (see
	// Sources), are refused before the run.
	Params json.RawMessage
	// Sources picks bfs's and sssp's sources: "hub" (none sent: the
	// server's default, the highest-degree vertex), "random" (uniform
	// over the graph's vertex ids) or a comma list of ids (uniform over
	// the list). Empty is random.
	Sources string
	// Clients is the number of concurrent clients (default 1).
	Clients int
	// Queries bounds the queries sent (0: DefaultQueries; -1: no bound
	// but Duration).
	Queries int
	// Duration bounds the run (default DefaultDuration): at its end the
	// queries in flight are canceled, and counted as canceled.
	Duration time.Duration
	Seed     uint64
	// HTTP, when set, is the client the queries go through (default: a
	// client keeping Clients connections open).
	HTTP *http.Client
	// Logf, when set, receives a line on how the sources were found.
	Logf func(format string, args ...any)
}

// Report is a load test's result.
type Report struct {
	URL      string   `json:"url"`
	Graph    string   `json:"graph"`
	Vertices int      `json:"vertices"`
	Edges    int64    `json:"edges"`
	Backend  string   `json:"backend"`
	Mix      []string `json:"mix"`
	Params   any      `json:"params,omitempty"`
	Sources  string   `json:"sources"`
	// SourceIDs says where random sources come from: the id range the
	// describe endpoint reports, or a per-vertex cc query's ids.
	SourceIDs string  `json:"source_ids,omitempty"`
	Clients   int     `json:"clients"`
	Queries   int     `json:"queries_limit"`
	Duration  float64 `json:"duration_limit_s"`
	Seed      uint64  `json:"seed"`
	// StoppedBy is "queries" (all answered), "duration" or "canceled"
	// (Run's context ended).
	StoppedBy string    `json:"stopped_by"`
	Started   time.Time `json:"started"`
	WallS     float64   `json:"wall_s"`
	// Algos has a line per algorithm of the mix, in the mix's order;
	// Overall is all of them.
	Algos   []*Stats `json:"algos"`
	Overall *Stats   `json:"overall"`
}

// Stats are the results of some queries.
type Stats struct {
	Algo string `json:"algo"` // "all" for the overall line
	// Queries are the queries answered: OK plus the errors.
	Queries int `json:"queries"`
	OK      int `json:"ok"`
	// Errors counts the failed queries by HTTP status ("503"), or
	// "transport" (no answer) and "body" (a 200 whose summary did not
	// decode).
	Errors map[string]int `json:"errors"`
	// Canceled are the queries in flight when Duration ran out.
	Canceled int `json:"canceled"`
	// QPS is Queries per second of the run's wall time, OKQPS the
	// successful ones.
	QPS   float64 `json:"throughput_qps"`
	OKQPS float64 `json:"ok_qps"`
	// Client-side wall time of the successful queries (request sent to
	// answer read), nearest-rank percentiles, milliseconds.
	P50MS float64 `json:"latency_p50_ms"`
	P90MS float64 `json:"latency_p90_ms"`
	P99MS float64 `json:"latency_p99_ms"`
	MaxMS float64 `json:"latency_max_ms"`
	// The medians of the server's times_ms over the successful queries:
	// compute, and the wait in its queue.
	ComputeP50MS float64 `json:"server_compute_p50_ms"`
	QueueP50MS   float64 `json:"server_queue_p50_ms"`

	lat, compute, queue []float64
}

// ErrorCount is the number of failed queries.
func (s *Stats) ErrorCount() int {
	n := 0
	for _, c := range s.Errors {
		n += c
	}
	return n
}

// CheckURL refuses a URL that is not http(s) or, unless allowRemote, whose
// host is not a loopback one: load tests go to 127.0.0.1.
func CheckURL(raw string, allowRemote bool) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("--url %q: %w", raw, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("--url %q: want http://HOST:PORT or https://HOST:PORT", raw)
	}
	host := u.Hostname()
	if host == "" {
		return fmt.Errorf("--url %q: no host", raw)
	}
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	if !allowRemote {
		return fmt.Errorf("--url %q: %s is not a loopback address: load tests go to 127.0.0.1 unless --allow-remote is given", raw, host)
	}
	return nil
}

// plan is a checked Config.
type plan struct {
	cfg     Config
	mix     []string
	params  []map[string]json.RawMessage // by the mix's index
	sources string                       // hub, random, list
	list    []int64                      // list: the ids; random: sparse ids
	lo, n   int64                        // random over contiguous ids: lo..lo+n-1
}

// check validates cfg and fills in its defaults.
func check(cfg Config) (*plan, error) {
	if cfg.URL == "" {
		cfg.URL = DefaultURL
	}
	cfg.URL = strings.TrimRight(cfg.URL, "/")
	if err := CheckURL(cfg.URL, cfg.AllowRemote); err != nil {
		return nil, err
	}
	if cfg.Graph == "" {
		return nil, errors.New("--graph: required: the name of a graph the server has loaded")
	}
	if cfg.Clients == 0 {
		cfg.Clients = 1
	}
	if cfg.Clients < 0 || cfg.Clients > 1<<16 {
		return nil, fmt.Errorf("--clients %d: want 1 to %d", cfg.Clients, 1<<16)
	}
	if cfg.Queries == 0 {
		cfg.Queries = DefaultQueries
	}
	if cfg.Queries < -1 {
		return nil, fmt.Errorf("--queries %d: want a positive number", cfg.Queries)
	}
	if cfg.Duration == 0 {
		cfg.Duration = DefaultDuration
	}
	if cfg.Duration < 0 {
		return nil, fmt.Errorf("--duration %v: want a positive duration", cfg.Duration)
	}
	if len(cfg.Algos) == 0 {
		return nil, fmt.Errorf("--algo: required: one of %s, or a comma list of them", strings.Join(Algorithms, ", "))
	}
	p := &plan{}
	for _, a := range cfg.Algos {
		if registry.Lookup(a) == nil {
			return nil, fmt.Errorf("--algo: unknown algorithm %q; want %s, or a comma list of them", a, strings.Join(Algorithms, ", "))
		}
		p.mix = append(p.mix, a)
	}
	var params map[string]json.RawMessage
	if len(bytes.TrimSpace(cfg.Params)) > 0 {
		dec := json.NewDecoder(bytes.NewReader(cfg.Params))
		if err := dec.Decode(&params); err != nil || params == nil {
			return nil, fmt.Errorf("--params: want a JSON object of run parameters, like {\"damping\":0.9}: %v", err)
		}
		if _, err := dec.Token(); err != io.EOF {
			return nil, errors.New("--params: want a single JSON object")
		}
	}
	if _, ok := params["src"]; ok {
		return nil, errors.New("--params: src: give sources with --sources (hub, random or a list of ids)")
	}
	for k := range params {
		if !known(k) || k == "max_iter" {
			continue
		}
		taken := false
		for _, a := range p.mix {
			taken = taken || takes(a, k)
		}
		if !taken {
			return nil, fmt.Errorf("--params: %s: no algorithm of %s takes it", k, strings.Join(p.mix, ","))
		}
	}
	p.params = make([]map[string]json.RawMessage, len(p.mix))
	for i, a := range p.mix {
		m := map[string]json.RawMessage{}
		for k, v := range params {
			if len(p.mix) == 1 || !known(k) || k == "max_iter" || takes(a, k) {
				m[k] = v
			}
		}
		p.params[i] = m
	}
	switch s := strings.TrimSpace(cfg.Sources); s {
	case "", "random":
		p.sources, cfg.Sources = "random", "random"
	case "hub":
		p.sources = "hub"
	default:
		p.sources = "list"
		for _, f := range strings.Split(s, ",") {
			id, err := strconv.ParseInt(strings.TrimSpace(f), 10, 64)
			if err != nil {
				return nil, fmt.Errorf("--sources %q: want random, hub or a comma list of vertex ids", cfg.Sources)
			}
			p.list = append(p.list, id)
		}
	}
	if cfg.HTTP == nil {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.MaxIdleConns = cfg.Clients + 4
		tr.MaxIdleConnsPerHost = cfg.Clients + 4
		cfg.HTTP = &http.Client{Transport: tr}
	}
	if cfg.Logf == nil {
		cfg.Logf = func(string, ...any) {}
	}
	p.cfg = cfg
	return p, nil
}

func takesSource(algo string) bool { return registry.Lookup(algo).Source }

// Run runs the load test: it describes the graph (failing when the server
// cannot be reached, refuses the token or has no such graph), finds the
// vertex ids when random sources are asked for, sends the queries and
// returns the report. The errors of the queries themselves are counted,
// not returned. Canceling ctx stops the run early; the report covers the
// queries answered until then.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	p, err := check(cfg)
	if err != nil {
		return nil, err
	}
	cfg = p.cfg
	c := client.New(cfg.URL, cfg.Token)
	c.HTTP = cfg.HTTP
	dctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	g, err := c.Graph(dctx, cfg.Graph)
	cancel()
	if err != nil {
		return nil, fmt.Errorf("loadgen: graph %s at %s: %w", cfg.Graph, cfg.URL, err)
	}
	rep := &Report{URL: cfg.URL, Graph: cfg.Graph, Vertices: g.Vertices, Edges: g.Edges, Backend: g.Backend,
		Mix: p.mix, Sources: cfg.Sources, Clients: cfg.Clients, Queries: cfg.Queries,
		Duration: cfg.Duration.Seconds(), Seed: cfg.Seed}
	if len(cfg.Params) > 0 {
		rep.Params = json.RawMessage(cfg.Params)
	}
	needSources := false
	for _, a := range p.mix {
		needSources = needSources || takesSource(a)
	}
	if needSources && p.sources == "random" {
		if rep.SourceIDs, err = p.findIDs(ctx, c, g); err != nil {
			return nil, err
		}
		cfg.Logf("loadgen: random sources among %s", rep.SourceIDs)
	}

	// Stats by the mix's distinct algorithms, in its order.
	byAlgo := map[string]*Stats{}
	for _, a := range p.mix {
		if byAlgo[a] == nil {
			byAlgo[a] = &Stats{Algo: a, Errors: map[string]int{}}
			rep.Algos = append(rep.Algos, byAlgo[a])
		}
	}
	var mu sync.Mutex
	var next atomic.Int64
	runCtx, cancel := context.WithTimeout(ctx, cfg.Duration)
	defer cancel()
	rep.Started = time.Now()
	var wg sync.WaitGroup
	for range cfg.Clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for runCtx.Err() == nil {
				i := next.Add(1) - 1
				if cfg.Queries > 0 && i >= int64(cfg.Queries) {
					return
				}
				k := int(i % int64(len(p.mix)))
				r := p.query(runCtx, i, k)
				mu.Lock()
				r.add(byAlgo[p.mix[k]])
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	wall := time.Since(rep.Started)
	rep.WallS = wall.Seconds()
	rep.Overall = &Stats{Algo: "all", Errors: map[string]int{}}
	for _, s := range rep.Algos {
		s.finish(wall)
		o := rep.Overall
		o.Queries += s.Queries
		o.OK += s.OK
		o.Canceled += s.Canceled
		for k, v := range s.Errors {
			o.Errors[k] += v
		}
		o.lat = append(o.lat, s.lat...)
		o.compute = append(o.compute, s.compute...)
		o.queue = append(o.queue, s.queue...)
	}
	rep.Overall.finish(wall)
	// (next counts the queries taken, and one more per client that
	// found none left)
	switch {
	case cfg.Queries > 0 && next.Load() >= int64(cfg.Queries) && rep.Overall.Canceled == 0:
		rep.StoppedBy = "queries"
	case ctx.Err() != nil:
		rep.StoppedBy = "canceled"
	default:
		rep.StoppedBy = "duration"
	}
	return rep, nil
}

// findIDs prepares random sources: the describe endpoint's id range when
// the graph's ids are contiguous, else the ids of a per-vertex cc query
// (one query, before the run, not counted).
func (p *plan) findIDs(ctx context.Context, c *client.Client, g *client.Graph) (string, error) {
	if g.Vertices == 0 {
		return "", fmt.Errorf("loadgen: graph %s has no vertices to draw sources from", g.Name)
	}
	if base, ok := strings.CutPrefix(g.IDs, "contiguous from "); ok {
		lo, err := strconv.ParseInt(base, 10, 64)
		if err == nil {
			p.lo, p.n = lo, int64(g.Vertices)
			return fmt.Sprintf("ids %d..%d (contiguous, from the describe endpoint)", lo, lo+int64(g.Vertices)-1), nil
		}
	}
	rows, err := c.RunRows(ctx, g.Name, client.RunRequest{Algo: "cc"})
	if err != nil {
		return "", fmt.Errorf("loadgen: listing graph %s's vertex ids (a per-vertex cc query) for --sources random: %w; give --sources hub or a list of ids", g.Name, err)
	}
	defer rows.Close()
	ids := make([]int64, 0, g.Vertices)
	for rows.Next() {
		ids = append(ids, rows.Row().ID)
	}
	if err := rows.Err(); err != nil {
		return "", fmt.Errorf("loadgen: listing graph %s's vertex ids: %w", g.Name, err)
	}
	if len(ids) == 0 {
		return "", fmt.Errorf("loadgen: graph %s listed no vertex ids", g.Name)
	}
	p.list = ids
	return fmt.Sprintf("%d sparse ids (from a per-vertex cc query)", len(ids)), nil
}

// source is query i's source.
func (p *plan) source(i int64) (int64, bool) {
	if p.sources == "hub" {
		return 0, false
	}
	r := rand.New(rand.NewPCG(p.cfg.Seed, uint64(i)))
	if p.list != nil {
		return p.list[r.IntN(len(p.list))], true
	}
	return p.lo + r.Int64N(p.n), true
}

// result is one query's outcome.
type result struct {
	status   string // "" for success
	canceled bool
	latency  time.Duration
	compute  float64
	queue    float64
}

func (r result) add(s *Stats) {
	switch {
	case r.canceled:
		s.Canceled++
	case r.status != "":
		s.Queries++
		s.Errors[r.status]++
	default:
		s.Queries++
		s.OK++
		s.lat = append(s.lat, float64(r.latency)/float64(time.Millisecond))
		s.compute = append(s.compute, r.compute)
		s.queue = append(s.queue, r.queue)
	}
}

// query sends query i, the mix's k-th algorithm.
func (p *plan) query(ctx context.Context, i int64, k int) result {
	algo := p.mix[k]
	params := p.params[k]
	if takesSource(algo) {
		if src, ok := p.source(i); ok {
			m := make(map[string]json.RawMessage, len(params)+1)
			for key, v := range params {
				m[key] = v
			}
			m["src"] = json.RawMessage(strconv.FormatInt(src, 10))
			params = m
		}
	}
	body, err := json.Marshal(map[string]any{"algo": algo, "params": params})
	if err != nil {
		return result{status: "body"}
	}
	req, err := http.NewRequestWithContext(ctx, "POST", p.cfg.URL+"/v1/graphs/"+url.PathEscape(p.cfg.Graph)+"/run", bytes.NewReader(body))
	if err != nil {
		return result{status: "transport"}
	}
	req.Header.Set("Content-Type", "application/json")
	if p.cfg.Token != "" {
		req.Header.Set("Authorization", "Bearer "+p.cfg.Token)
	}
	t0 := time.Now()
	resp, err := p.cfg.HTTP.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return result{canceled: true}
		}
		return result{status: "transport"}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	lat := time.Since(t0)
	if err != nil {
		if ctx.Err() != nil {
			return result{canceled: true}
		}
		return result{status: "transport"}
	}
	if resp.StatusCode != http.StatusOK {
		return result{status: strconv.Itoa(resp.StatusCode)}
	}
	var sum struct {
		TimesMS map[string]float64 `json:"times_ms"`
	}
	if err := json.Unmarshal(b, &sum); err != nil || sum.TimesMS == nil {
		return result{status: "body"}
	}
	return result{latency: lat, compute: sum.TimesMS["compute"], queue: sum.TimesMS["queue"]}
}

// finish computes s's rates and percentiles over a run of wall.
func (s *Stats) finish(wall time.Duration) {
	if w := wall.Seconds(); w > 0 {
		s.QPS = float64(s.Queries) / w
		s.OKQPS = float64(s.OK) / w
	}
	sort.Float64s(s.lat)
	s.P50MS, s.P90MS, s.P99MS = Percentile(s.lat, 50), Percentile(s.lat, 90), Percentile(s.lat, 99)
	if len(s.lat) > 0 {
		s.MaxMS = s.lat[len(s.lat)-1]
	}
	sort.Float64s(s.compute)
	sort.Float64s(s.queue)
	s.ComputeP50MS, s.QueueP50MS = Percentile(s.compute, 50), Percentile(s.queue, 50)
}

// Percentile is the nearest-rank p-th percentile of sorted (0 when empty):
// the smallest value that at least p% of the values do not exceed.
func Percentile(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	k := int(math.Ceil(p / 100 * float64(len(sorted))))
	return sorted[min(max(k, 1), len(sorted))-1]
}

// Line is s as one summary line.
func (s *Stats) Line() string {
	errs := "0 errors"
	if n := s.ErrorCount(); n > 0 {
		keys := make([]string, 0, len(s.Errors))
		for k := range s.Errors {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = fmt.Sprintf("%s:%d", k, s.Errors[k])
		}
		errs = fmt.Sprintf("%d errors (%s)", n, strings.Join(parts, " "))
	}
	canceled := ""
	if s.Canceled > 0 {
		canceled = fmt.Sprintf(", %d canceled", s.Canceled)
	}
	return fmt.Sprintf("%-13s %d queries, %d ok, %s%s; %.1f queries/s (%.1f ok/s); latency p50 %s p90 %s p99 %s max %s; server compute p50 %s, queue p50 %s",
		s.Algo, s.Queries, s.OK, errs, canceled, s.QPS, s.OKQPS,
		fmtMS(s.P50MS), fmtMS(s.P90MS), fmtMS(s.P99MS), fmtMS(s.MaxMS), fmtMS(s.ComputeP50MS), fmtMS(s.QueueP50MS))
}

func fmtMS(ms float64) string {
	switch {
	case ms >= 100:
		return fmt.Sprintf("%.0fms", ms)
	case ms >= 10:
		return fmt.Sprintf("%.1fms", ms)
	}
	return fmt.Sprintf("%.3gms", ms)
}

// Lines are the report's summary lines: one per algorithm, then overall.
func (r *Report) Lines() []string {
	var out []string
	for _, s := range r.Algos {
		out = append(out, s.Line())
	}
	return append(out, r.Overall.Line())
}
