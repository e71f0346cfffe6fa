package serve

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hpgraph/hpgraph/apps"
	"github.com/hpgraph/hpgraph/serve/client"
	"github.com/hpgraph/hpgraph/vertexprog"
)

// Algorithms are the apps a query may name, as the CLI's `run` names them
// (the client package's list, shared with loadgen).
var Algorithms = client.Algorithms

// Limits on parameters, so that no request asks for unbounded work.
const maxIterLimit = 1 << 20

// RunParams are a query's parameters: the CLI's flags under JSON names
// (--max-iter is max_iter, --per-vertex per_vertex), with its defaults.
// A field the algorithm does not take is refused.
type RunParams struct {
	Src        *int64   `json:"src,omitempty"`        // bfs, sssp: in the file's ids; default the highest-degree vertex
	Damping    *float64 `json:"damping,omitempty"`    // pagerank, pagerank-ldbc: 0.85
	Tolerance  *float64 `json:"tolerance,omitempty"`  // pagerank: 1e-6
	MaxIter    *int     `json:"max_iter,omitempty"`   // any: 0 (the algorithm's own; pagerank: 1000)
	Iterations *int     `json:"iterations,omitempty"` // pagerank-ldbc: 10
	Precision  *string  `json:"precision,omitempty"`  // pagerank-ldbc: float64 or float32 (pagerank: float64 only)
	PerVertex  *bool    `json:"per_vertex,omitempty"` // tc: count per vertex (implied by a per-vertex output)
	Delta      *float64 `json:"delta,omitempty"`      // sssp: -1 (apps.DefaultDelta); 0 Bellman-Ford
}

// RunRequest is POST /v1/graphs/{name}/run's body.
type RunRequest struct {
	Algo   string    `json:"algo"`
	Params RunParams `json:"params"`
	// Output is summary (default, JSON), ndjson or csv (per-vertex
	// results streamed in the file's ids).
	Output string `json:"output,omitempty"`
	// TimeoutMS shortens the server's query timeout for this query.
	TimeoutMS int64 `json:"timeout_ms,omitempty"`
}

// query is a checked request, with every parameter resolved.
type query struct {
	algo       string
	src        int32 // bfs, sssp
	damping    float64
	tolerance  float64
	maxIter    int
	iterations int
	precision  string
	perVertex  bool
	delta      float64
	output     string
}

// takes lists the parameters each algorithm takes (max_iter: all).
var takes = client.Takes

// check validates req against lg; the apiError names the field.
func (req *RunRequest) check(lg *loadedGraph) (*query, *apiError) {
	q := &query{algo: req.Algo, damping: 0.85, tolerance: 1e-6, iterations: 10, precision: "float64", delta: -1, output: req.Output}
	allowed, ok := takes[req.Algo]
	if !ok {
		if req.Algo == "" {
			return nil, badField("algo", "required: one of %s", strings.Join(Algorithms, ", "))
		}
		return nil, badField("algo", "unknown algorithm %q; want one of %s", req.Algo, strings.Join(Algorithms, ", "))
	}
	switch q.output {
	case "":
		q.output = "summary"
	case "summary", "ndjson", "csv":
	default:
		return nil, badField("output", "%q: want summary, ndjson or csv", req.Output)
	}
	if req.TimeoutMS < 0 {
		return nil, badField("timeout_ms", "%d: want a positive number of milliseconds", req.TimeoutMS)
	}
	p := req.Params
	given := map[string]bool{"src": p.Src != nil, "damping": p.Damping != nil, "tolerance": p.Tolerance != nil,
		"iterations": p.Iterations != nil, "precision": p.Precision != nil, "per_vertex": p.PerVertex != nil, "delta": p.Delta != nil}
	for _, name := range []string{"src", "damping", "tolerance", "iterations", "precision", "per_vertex", "delta"} {
		if given[name] && !slices.Contains(allowed, name) {
			return nil, badField("params."+name, "%s takes no %s (it takes %s)", req.Algo, name, describeTakes(allowed))
		}
	}
	if p.MaxIter != nil {
		if *p.MaxIter < 0 || *p.MaxIter > maxIterLimit {
			return nil, badField("params.max_iter", "%d: want 0 (the algorithm's own) to %d", *p.MaxIter, maxIterLimit)
		}
		q.maxIter = *p.MaxIter
	}
	if p.Damping != nil {
		if d := *p.Damping; !(d >= 0 && d <= 1) {
			return nil, badField("params.damping", "%g: want a number in [0, 1]", d)
		}
		q.damping = *p.Damping
	}
	if p.Tolerance != nil {
		if t := *p.Tolerance; !(t >= 0) || math.IsInf(t, 0) {
			return nil, badField("params.tolerance", "%g: want a finite number >= 0", t)
		}
		q.tolerance = *p.Tolerance
	}
	if p.Iterations != nil {
		if it := *p.Iterations; it < 0 || it > maxIterLimit {
			return nil, badField("params.iterations", "%d: want 0 to %d", it, maxIterLimit)
		}
		q.iterations = *p.Iterations
	}
	if p.Precision != nil {
		q.precision = *p.Precision
		switch {
		case q.precision != "float64" && q.precision != "float32":
			return nil, badField("params.precision", "%q: want float64 or float32", q.precision)
		case q.precision == "float32" && req.Algo == "pagerank":
			return nil, badField("params.precision", "float32: the paper's PageRank runs in float64 only; pagerank-ldbc takes float32")
		}
	}
	if p.PerVertex != nil {
		q.perVertex = *p.PerVertex
	}
	if req.Algo == "tc" && q.output != "summary" {
		q.perVertex = true
	}
	if p.Delta != nil {
		if d := *p.Delta; math.IsInf(d, 0) || math.IsNaN(d) || (d < 0 && d != -1) {
			return nil, badField("params.delta", "%g: want -1 (the default), 0 (Bellman-Ford) or a positive bucket width", d)
		}
		q.delta = *p.Delta
	}
	if slices.Contains(allowed, "src") {
		if p.Src == nil {
			q.src = defaultSource(lg)
		} else {
			v, err := lg.g.Vertex(*p.Src)
			if err != nil {
				return nil, badField("params.src", "%d is not a vertex of graph %s (%s)", *p.Src, lg.name, idRange(lg))
			}
			q.src = v
		}
	}
	return q, nil
}

func describeTakes(names []string) string {
	if len(names) == 0 {
		return "max_iter only"
	}
	return strings.Join(names, ", ") + " and max_iter"
}

// idRange describes the ids of lg's vertices for error messages.
func idRange(lg *loadedGraph) string {
	d := lg.d
	if d.N == 0 {
		return "it has no vertices"
	}
	if d.IDs == nil {
		return fmt.Sprintf("ids %d..%d", d.IDBase, d.IDBase+int64(d.N)-1)
	}
	lo, hi := d.IDs[0], d.IDs[0]
	for _, x := range d.IDs {
		lo, hi = min(lo, x), max(hi, x)
	}
	return fmt.Sprintf("%d sparse ids in %d..%d", d.N, lo, hi)
}

// defaultSource is the CLI's: the vertex of highest out-degree, lowest
// index on ties.
func defaultSource(lg *loadedGraph) int32 {
	d := lg.d
	best := int32(0)
	for v := int32(1); v < int32(d.N); v++ {
		if d.Degree(v) > d.Degree(best) {
			best = v
		}
	}
	return best
}

// answer is a query's result: the summary and, for a per-vertex output,
// its columns.
type answer struct {
	summary    string
	result     map[string]any
	backend    string
	iterations int
	preprocess time.Duration
	compute    time.Duration
	finish     time.Duration
	columns    []string // the per-vertex columns after "id"
	row        func(v int32, cells []cell)
}

// cell is one per-vertex value: an integer, or a float (f, isF).
type cell struct {
	i   int64
	f   float64
	isF bool
}

func statsOf[X any](a *answer, r *vertexprog.Result[X]) {
	a.backend, a.iterations, a.preprocess, a.compute, a.finish = r.Backend, r.Iterations, r.Preprocess, r.Compute, r.Finish
}

// run runs q on lg; it may take long and honours opt.Context.
func run(lg *loadedGraph, q *query, opt vertexprog.Options) (*answer, error) {
	g, d := lg.g, lg.d
	opt.MaxIterations = q.maxIter
	a := &answer{}
	switch q.algo {
	case "bfs":
		opt.SummaryOnly = q.output == "summary"
		var r *apps.BFSResult
		var err error
		if opt.SummaryOnly {
			// A summary's answer is the counts, which no later query
			// overwrites: its arrays go back for the next one.
			r, err = apps.BFSReusing(g, q.src, opt, lg.takeBFS())
			if err == nil {
				lg.putBFS(r)
			}
		} else {
			r, err = apps.BFS(g, q.src, opt)
		}
		if err != nil {
			return nil, err
		}
		statsOf(a, r.Run)
		reached, depth := r.Reached()
		a.summary = fmt.Sprintf("source %d: reached %d vertices, depth %d", d.OriginalID(q.src), reached, depth)
		a.result = map[string]any{"source": d.OriginalID(q.src), "reached": reached, "depth": depth}
		a.columns = []string{"depth", "parent"}
		a.row = func(v int32, c []cell) {
			parent := int64(-1)
			if r.Parent[v] >= 0 {
				parent = d.OriginalID(r.Parent[v])
			}
			c[0], c[1] = cell{i: int64(r.Depth[v])}, cell{i: parent}
		}
	case "sssp":
		delta := q.delta
		if delta < 0 {
			delta = apps.DefaultDelta(g)
		}
		r, err := apps.SSSPDelta(g, q.src, delta, opt)
		if err != nil {
			return nil, err
		}
		statsOf(a, r.Run)
		reached, far := 0, float32(0)
		for _, x := range r.Dist {
			if !math.IsInf(float64(x), 1) {
				reached++
				far = max(far, x)
			}
		}
		a.summary = fmt.Sprintf("source %d: reached %d vertices, farthest at %g", d.OriginalID(q.src), reached, far)
		a.result = map[string]any{"source": d.OriginalID(q.src), "reached": reached, "farthest": float64(far)}
		a.columns = []string{"dist"}
		a.row = func(v int32, c []cell) { c[0] = cell{f: float64(r.Dist[v]), isF: true} }
	case "pagerank":
		limit := q.maxIter
		if limit == 0 {
			limit = 1000 // the CLI's pageRankLimit
		}
		r, err := apps.PageRank(g, q.damping, q.tolerance, limit, opt)
		if err != nil {
			return nil, err
		}
		statsOf(a, r.Run)
		rankAnswer(a, lg, r.Rank)
	case "pagerank-ldbc":
		var rank []float64
		if q.precision == "float32" {
			r, err := apps.PageRankLDBCIn[float32](g, q.damping, q.iterations, opt)
			if err != nil {
				return nil, err
			}
			statsOf(a, r.Run)
			rank = r.Rank
		} else {
			r, err := apps.PageRankLDBCIn[float64](g, q.damping, q.iterations, opt)
			if err != nil {
				return nil, err
			}
			statsOf(a, r.Run)
			rank = r.Rank
		}
		rankAnswer(a, lg, rank)
	case "cc":
		r, err := apps.ConnectedComponents(g, opt)
		if err != nil {
			return nil, err
		}
		statsOf(a, r.Run)
		sizes := make([]int32, d.N)
		largest := int32(0)
		for _, l := range r.Label {
			sizes[l]++
			largest = max(largest, sizes[l])
		}
		a.summary = fmt.Sprintf("%d components, largest %d vertices", r.Components, largest)
		a.result = map[string]any{"components": r.Components, "largest": largest}
		a.columns = []string{"component"}
		if q.output != "summary" {
			first := make([]int64, d.N) // a component's smallest original id
			for l := range first {
				first[l] = math.MaxInt64
			}
			for v, l := range r.Label {
				first[l] = min(first[l], d.OriginalID(int32(v)))
			}
			a.row = func(v int32, c []cell) { c[0] = cell{i: first[r.Label[v]]} }
		}
	case "tc":
		r, err := apps.Triangles(g, q.perVertex, opt)
		if err != nil {
			return nil, err
		}
		statsOf(a, r.Run)
		a.summary = fmt.Sprintf("%d triangles", r.Total)
		a.result = map[string]any{"triangles": r.Total}
		a.columns = []string{"triangles"}
		a.row = func(v int32, c []cell) { c[0] = cell{i: r.PerVertex[v]} }
	default:
		return nil, fmt.Errorf("unknown algorithm %q", q.algo)
	}
	return a, nil
}

func rankAnswer(a *answer, lg *loadedGraph, rank []float64) {
	top := int32(0)
	for v, x := range rank {
		if x > rank[top] {
			top = int32(v)
		}
	}
	if len(rank) == 0 {
		a.summary = fmt.Sprintf("%d iterations; no vertices", a.iterations)
		a.result = map[string]any{"iterations": a.iterations}
	} else {
		a.summary = fmt.Sprintf("%d iterations; top vertex %d (rank %.6g)", a.iterations, lg.d.OriginalID(top), rank[top])
		a.result = map[string]any{"iterations": a.iterations, "top_vertex": lg.d.OriginalID(top), "top_rank": rank[top]}
	}
	a.columns = []string{"rank"}
	a.row = func(v int32, c []cell) { c[0] = cell{f: rank[v], isF: true} }
}

// perVertexColumns are the columns of each algorithm's per-vertex output.
var perVertexColumns = map[string]int{"bfs": 2, "sssp": 1, "pagerank": 1, "pagerank-ldbc": 1, "cc": 1, "tc": 1}

// maxResultBytes bounds the size of q's per-vertex output on n vertices:
// an id and each value at most 24 bytes, keys and punctuation.
func maxResultBytes(q *query, n int) int64 {
	cols := int64(perVertexColumns[q.algo])
	line := 26 + cols*26 // csv: "id,v1,v2\n"
	if q.output == "ndjson" {
		line = 32 + cols*40 // {"id":...,"name":...}\n
	}
	return 64 + int64(n)*line
}

// SummaryResponse is a summary answer (output summary, the default): the
// client's Summary, one type on both sides of the wire.
type SummaryResponse = client.Summary

func (q *query) paramsJSON(lg *loadedGraph) map[string]any {
	m := map[string]any{"max_iter": q.maxIter}
	for _, name := range takes[q.algo] {
		switch name {
		case "src":
			m["src"] = lg.d.OriginalID(q.src)
		case "damping":
			m["damping"] = q.damping
		case "tolerance":
			m["tolerance"] = q.tolerance
		case "iterations":
			m["iterations"] = q.iterations
		case "precision":
			m["precision"] = q.precision
		case "per_vertex":
			m["per_vertex"] = q.perVertex
		case "delta":
			m["delta"] = q.delta
		}
	}
	return m
}

func (s *Server) runGraph(w http.ResponseWriter, r *http.Request) {
	t0 := time.Now()
	lg, e := s.lookup(r.PathValue("name"))
	if e != nil {
		s.fail(w, e)
		return
	}
	var req RunRequest
	if e := decodeJSON(r, &req); e != nil {
		s.fail(w, e)
		return
	}
	q, e := req.check(lg)
	if e != nil {
		s.fail(w, e)
		return
	}
	algo := q.algo
	failQuery := func(e *apiError) {
		s.metrics.queries.WithLabelValues(algo, strconv.Itoa(e.code)).Inc()
		s.fail(w, e)
	}
	if q.output != "summary" {
		if b := maxResultBytes(q, lg.d.N); b > s.cfg.MaxResultBytes {
			failQuery(&apiError{code: http.StatusRequestEntityTooLarge, field: "output",
				msg: fmt.Sprintf("output: a per-vertex answer of %d vertices may take %d bytes, over the server's limit of %d; ask for the summary", lg.d.N, b, s.cfg.MaxResultBytes)})
			return
		}
	}
	timeout := s.cfg.QueryTimeout
	if req.TimeoutMS > 0 && time.Duration(req.TimeoutMS)*time.Millisecond < timeout {
		timeout = time.Duration(req.TimeoutMS) * time.Millisecond
	}
	ctx, cancel := context.WithTimeout(r.Context(), timeout)
	defer cancel()
	// The worker hands its result over the channel: a handler that gave
	// up (timeout, client gone) shares nothing with a run still going.
	type outcome struct {
		ans     *answer
		err     error
		started time.Time
	}
	res := make(chan outcome, 1)
	done, err := s.sched.submit(ctx, func(ctx context.Context) {
		started := time.Now()
		if s.testHook != nil {
			s.testHook(ctx)
		}
		ans, err := run(lg, q, vertexprogOptions(s, ctx))
		res <- outcome{ans, err, started}
	})
	if err != nil {
		if errors.Is(err, errQueueFull) {
			s.metrics.rejected.Inc()
		}
		failQuery(&apiError{code: http.StatusServiceUnavailable, msg: fmt.Sprintf("%v (%d queries waiting); retry later", err, s.cfg.MaxQueue)})
		return
	}
	select {
	case <-done:
	case <-ctx.Done():
	}
	var out outcome
	select {
	case out = <-res:
	default:
		out.err = ctx.Err() // still running, or skipped in the queue
	}
	ans, runErr, started := out.ans, out.err, out.started
	if runErr != nil {
		switch {
		case r.Context().Err() != nil:
			s.metrics.canceled.WithLabelValues("client").Inc()
			s.metrics.queries.WithLabelValues(algo, "499").Inc()
			s.cfg.Logf("serve: %s on %s: the client went away; query canceled", algo, lg.name)
			return
		case errors.Is(runErr, context.DeadlineExceeded) || errors.Is(ctx.Err(), context.DeadlineExceeded):
			s.metrics.canceled.WithLabelValues("timeout").Inc()
			failQuery(&apiError{code: http.StatusGatewayTimeout, field: "timeout_ms",
				msg: fmt.Sprintf("timeout_ms: the query did not finish within its timeout of %v", timeout)})
			return
		case errors.Is(runErr, apps.ErrInvalidInput):
			failQuery(&apiError{code: http.StatusBadRequest, field: "params", msg: "params: " + runErr.Error()})
			return
		}
		s.cfg.Logf("serve: %s on %s: %v", algo, lg.name, runErr)
		failQuery(&apiError{code: http.StatusInternalServerError, msg: fmt.Sprintf("%s failed: %v", algo, runErr)})
		return
	}
	s.mu.Lock()
	lg.queries++
	s.mu.Unlock()
	total := time.Since(t0)
	s.metrics.queries.WithLabelValues(algo, "200").Inc()
	s.metrics.latency.WithLabelValues(algo).Observe(total.Seconds())
	s.metrics.compute.WithLabelValues(algo).Observe(ans.compute.Seconds())
	times := map[string]float64{"queue": ms(started.Sub(t0)), "preprocess": ms(ans.preprocess), "compute": ms(ans.compute),
		"copy_back": ms(ans.finish), "total": ms(total)}
	if q.output == "summary" {
		resp := SummaryResponse{Graph: lg.name, Algo: algo, Backend: ans.backend, Params: q.paramsJSON(lg), Summary: ans.summary,
			Result: ans.result, Iterations: ans.iterations, Vertices: lg.d.N, Edges: lg.edges, TimesMS: times}
		if ans.compute > 0 {
			resp.MTEPS = float64(lg.edges) / (ms(ans.compute) * 1e3)
		}
		writeJSON(w, http.StatusOK, resp)
		return
	}
	h := w.Header()
	h.Set("X-Hpgraph-Summary", ans.summary)
	h.Set("X-Hpgraph-Backend", ans.backend)
	h.Set("X-Hpgraph-Iterations", strconv.Itoa(ans.iterations))
	h.Set("X-Hpgraph-Compute-Ms", strconv.FormatFloat(ms(ans.compute), 'f', 3, 64))
	if q.output == "csv" {
		h.Set("Content-Type", "text/csv; charset=utf-8")
	} else {
		h.Set("Content-Type", "application/x-ndjson")
	}
	w.WriteHeader(http.StatusOK)
	if err := writeRows(w, lg, ans, q.output == "csv", r.Context()); err != nil {
		s.cfg.Logf("serve: %s on %s: streaming the answer: %v", algo, lg.name, err)
	}
}

// vertexprogOptions are a query's engine options: the server's backend,
// the graph resident, ctx to stop it.
func vertexprogOptions(s *Server, ctx context.Context) vertexprog.Options {
	return vertexprog.Options{Backend: s.cfg.Backend, Resident: true, Context: ctx}
}

// writeRows streams one row per vertex, in the file's ids.
func writeRows(w http.ResponseWriter, lg *loadedGraph, ans *answer, csv bool, ctx context.Context) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	if csv {
		bw.WriteString("id," + strings.Join(ans.columns, ",") + "\n")
	}
	cells := make([]cell, len(ans.columns))
	var b []byte
	for v := int32(0); v < int32(lg.d.N); v++ {
		if v&0xffff == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		ans.row(v, cells)
		b = b[:0]
		if csv {
			b = strconv.AppendInt(b, lg.d.OriginalID(v), 10)
			for _, c := range cells {
				b = append(b, ',')
				b = appendCell(b, c, "Infinity")
			}
		} else {
			b = append(b, `{"id":`...)
			b = strconv.AppendInt(b, lg.d.OriginalID(v), 10)
			for i, c := range cells {
				b = append(b, `,"`...)
				b = append(b, ans.columns[i]...)
				b = append(b, `":`...)
				b = appendCell(b, c, "null")
			}
			b = append(b, '}')
		}
		b = append(b, '\n')
		if _, err := bw.Write(b); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// appendCell writes c; a float that is infinite or NaN (unreachable) as inf.
func appendCell(b []byte, c cell, inf string) []byte {
	if !c.isF {
		return strconv.AppendInt(b, c.i, 10)
	}
	if math.IsInf(c.f, 0) || math.IsNaN(c.f) {
		return append(b, inf...)
	}
	return strconv.AppendFloat(b, c.f, 'g', -1, 64)
}
