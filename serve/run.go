package serve

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hpgraph/hpgraph/apps"
	"github.com/hpgraph/hpgraph/apps/registry"
	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/internal/pipeline"
	"github.com/hpgraph/hpgraph/serve/wire"
	"github.com/hpgraph/hpgraph/vertexprog"
)

// Algorithms are the apps a query may name, as the CLI's `run` names them:
// apps' registry (registry.Apps), whose parameters, defaults, checks and
// per-vertex outputs serve's are.
var Algorithms = registry.Names()

// Limits on parameters, so that no request asks for unbounded work: an
// integer parameter (max_iter, iterations) counts supersteps.
const maxIterLimit = 1 << 20

// RunRequest is POST /v1/graphs/{name}/run's body.
type RunRequest struct {
	Algo string `json:"algo"`
	// Params are the app's parameters: `hpgraph run`'s flags under JSON
	// names (--max-iter is max_iter, --per-vertex per_vertex), with its
	// defaults, and src for the apps that run from a source (in the
	// file's ids; default the highest-degree vertex). A parameter the
	// algorithm does not take is refused.
	Params map[string]json.RawMessage `json:"params"`
	// Output is summary (default, JSON), ndjson or csv (per-vertex
	// results streamed in the file's ids), binary (binrows.go) or groups
	// (the vertices grouped by a column's value, rowsel.go).
	Output string `json:"output,omitempty"`
	// Columns are the app's columns a per-vertex output writes, in this
	// order (default all of them; groups: the first).
	Columns []string `json:"columns,omitempty"`
	// ReachedOnly leaves out of a per-vertex output of bfs or sssp the
	// vertices the source did not reach.
	ReachedOnly bool `json:"reached_only,omitempty"`
	// TimeoutMS shortens the server's query timeout for this query.
	TimeoutMS int64 `json:"timeout_ms,omitempty"`
}

// query is a checked request, with every parameter resolved.
type query struct {
	app    *apps.App
	req    apps.Request
	output string
	// cols are the indices in app.Columns of the columns a per-vertex
	// output writes; reachedOnly leaves out the unreached (selection).
	cols        []int
	reachedOnly bool
}

// srcParam is the source's name in params.
const srcParam = "src"

// check validates req against lg; the apiError names the field.
func (req *RunRequest) check(lg *loadedGraph) (*query, *apiError) {
	app := registry.Lookup(req.Algo)
	if app == nil {
		if req.Algo == "" {
			return nil, badField("algo", "required: one of %s", strings.Join(Algorithms, ", "))
		}
		return nil, badField("algo", "unknown algorithm %q; want one of %s", req.Algo, strings.Join(Algorithms, ", "))
	}
	return req.checkApp(app, registry.AllParams(), lg)
}

// checkApp validates req for app against lg, its params by app's
// declarations; all are every app's parameters (a name among them that
// app does not take is refused as such, any other as unknown).
func (req *RunRequest) checkApp(app *apps.App, all []apps.AnyParam, lg *loadedGraph) (*query, *apiError) {
	q := &query{app: app, req: apps.Request{Params: app.DefaultParams(), Need: apps.NeedRows}, output: req.Output}
	switch q.output {
	case "", "summary":
		q.output, q.req.Need = "summary", apps.NeedSummary
	case "ndjson", "csv", "binary", "groups":
	default:
		return nil, badField("output", "%q: want summary, ndjson, csv, binary or groups", req.Output)
	}
	if e := req.selection(q); e != nil {
		return nil, e
	}
	if req.TimeoutMS < 0 {
		return nil, badField("timeout_ms", "%d: want a positive number of milliseconds", req.TimeoutMS)
	}
	names := make([]string, 0, len(req.Params))
	for name, raw := range req.Params {
		if string(raw) != "null" { // (null: the default)
			names = append(names, name)
		}
	}
	slices.Sort(names)
	var src *int64
	for _, name := range names {
		raw := req.Params[name]
		if name == srcParam && app.Source {
			var id int64
			if e := decodeParam(name, raw, &id); e != nil {
				return nil, e
			}
			src = &id
			continue
		}
		prm := app.Param(name)
		if prm == nil || prm.JSONName() != name {
			if !known(name, all) {
				// (as encoding/json refuses an unknown field)
				return nil, badField(name, "unknown field")
			}
			return nil, badField("params."+name, "%s takes no %s (it takes %s)", app.Name, name, describeTakes(app))
		}
		if e := setParam(prm, raw, &q.req.Params); e != nil {
			return nil, e
		}
	}
	if pe := app.CheckParams(&q.req.Params); pe != nil {
		return nil, badField("params."+pe.Param.JSONName(), "%v", pe.Err)
	}
	if app.Source {
		if src == nil {
			q.req.Source = defaultSource(lg)
		} else {
			v, err := lg.g.Vertex(*src)
			if err != nil {
				return nil, badField("params.src", "%d is not a vertex of graph %s (%s)", *src, lg.name, idRange(lg))
			}
			q.req.Source = v
		}
	}
	return q, nil
}

// known says whether name is the JSON name of one of all, or src.
func known(name string, all []apps.AnyParam) bool {
	return name == srcParam || slices.ContainsFunc(all, func(p apps.AnyParam) bool { return p.JSONName() == name })
}

// setParam decodes a parameter's JSON value into p, by its type, checking
// it and bounding integers by maxIterLimit.
func setParam(prm apps.AnyParam, raw json.RawMessage, p *apps.Params) *apiError {
	switch x := prm.(type) {
	case *apps.Param[int]:
		return decodeInto(x, raw, p, func(n int) string {
			if n > maxIterLimit {
				return fmt.Sprintf("%d: want at most %d (the server's limit)", n, maxIterLimit)
			}
			return ""
		})
	case *apps.Param[float64]:
		return decodeInto(x, raw, p, nil)
	case *apps.Param[string]:
		return decodeInto(x, raw, p, nil)
	case *apps.Param[bool]:
		return decodeInto(x, raw, p, nil)
	}
	return badField("params."+prm.JSONName(), "the server cannot read a %T", prm)
}

// decodeInto decodes raw as prm's type, checks it (prm's check, then
// limit's) and sets it in p.
func decodeInto[T apps.ParamType](prm *apps.Param[T], raw json.RawMessage, p *apps.Params, limit func(T) string) *apiError {
	field := prm.JSONName()
	var v T
	if e := decodeParam(field, raw, &v); e != nil {
		return e
	}
	if prm.Check != nil {
		if err := prm.Check(v); err != nil {
			return badField("params."+field, "%v", err)
		}
	}
	if limit != nil {
		if msg := limit(v); msg != "" {
			return badField("params."+field, "%s", msg)
		}
	}
	prm.SetValue(p, v)
	return nil
}

// decodeParam decodes one parameter's JSON value; a value of the wrong
// type is an error naming params.NAME, as decodeJSON names a field.
func decodeParam(name string, raw json.RawMessage, v any) *apiError {
	err := json.Unmarshal(raw, v)
	if err == nil {
		return nil
	}
	field := "params." + name
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return badField(field, "want %s, got JSON %s", jsonType(te.Type.String()), te.Value)
	}
	return badField(field, "%v", err)
}

// describeTakes lists the parameters app takes, max_iter last.
func describeTakes(app *apps.App) string {
	var names []string
	if app.Source {
		names = append(names, srcParam)
	}
	for _, p := range app.Params {
		names = append(names, p.JSONName())
	}
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
	if lo, ok := contiguousIDs(d); ok {
		return fmt.Sprintf("ids %d..%d", lo, lo+int64(d.N)-1)
	}
	lo, hi := idBounds(d)
	return fmt.Sprintf("%d sparse ids in %d..%d", d.N, lo, hi)
}

// idBounds are the smallest and largest of d's original ids (d.N > 0).
func idBounds(d *datasets.Graph) (lo, hi int64) {
	if d.IDs == nil {
		return d.IDBase, d.IDBase + int64(d.N) - 1
	}
	lo, hi = d.IDs[0], d.IDs[0]
	for _, x := range d.IDs {
		lo, hi = min(lo, x), max(hi, x)
	}
	return lo, hi
}

// contiguousIDs reports whether d's original ids are lo..lo+N-1, in any
// order (a graph renumbered by degree keeps its file's ids; ids are
// distinct, so the bounds tell).
func contiguousIDs(d *datasets.Graph) (lo int64, ok bool) {
	if d.N == 0 {
		return d.IDBase, true
	}
	lo, hi := idBounds(d)
	return lo, hi-lo == int64(d.N)-1
}

// defaultSource is the CLI's (apps.DefaultSource).
func defaultSource(lg *loadedGraph) int32 { return apps.DefaultSource(lg.d) }

// maxResultBytes bounds the size of q's per-vertex output on n vertices:
// an id and each value at most 24 bytes, keys and punctuation.
func maxResultBytes(q *query, n int) int64 {
	cols := int64(len(q.cols))
	switch q.output {
	case "binary":
		return binRowsBytes(int64(n), cols)
	case "groups":
		return groupsBytes(int64(n))
	}
	line := 26 + cols*26 // csv: "id,v1,v2\n"
	if q.output == "ndjson" {
		line = 32 + cols*40 // {"id":...,"name":...}\n
	}
	return 64 + int64(n)*line
}

// run runs q on lg; it may take long and honours opt.Context. A summary
// query lends the app one of lg's scratches (a BFS's arrays: its answer is
// the counts, which no later query overwrites).
func run(lg *loadedGraph, q *query, opt vertexprog.Options) (*apps.Result, error) {
	req := q.req
	if req.Need == apps.NeedSummary {
		// (given back whatever the run's end: a query cancelled or timed
		// out left its scratch behind, and the next took a fresh one, its
		// arrays allocated and page-locked again)
		req.Scratch = lg.takeScratch(opt.Backend)
		defer lg.putScratch(req.Scratch)
	}
	return pipeline.Run(q.app, lg.g, req, opt)
}

// SummaryResponse is a summary answer (output summary, the default): the
// client's Summary, one type on both sides of the wire.
type SummaryResponse = wire.Summary

// paramsJSON are the parameters in effect, defaults included.
func (q *query) paramsJSON(lg *loadedGraph) map[string]any {
	m := map[string]any{}
	for _, p := range q.app.AllParams() {
		m[p.JSONName()] = p.Value(&q.req.Params)
	}
	if q.app.Source {
		m[srcParam] = lg.d.OriginalID(q.req.Source)
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
	if e == nil && !q.app.Device() && s.cfg.Backend != "cpu" && s.cfg.Backend != "auto" {
		e = badField("algo", "%s has no device code: it runs on the cpu backend only, and this server runs on %s", q.app.Name, s.cfg.Backend)
	}
	if e != nil {
		s.fail(w, e)
		return
	}
	algo := q.app.Name
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
		ans     *apps.Result
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
			failQuery(&apiError{code: http.StatusBadRequest, field: "params", msg: "params: " + describe(runErr)})
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
	st := ans.Stats
	s.metrics.compute.WithLabelValues(algo).Observe(st.Compute.Seconds())
	times := map[string]float64{"queue": ms(started.Sub(t0)), "preprocess": ms(st.Preprocess), "compute": ms(st.Compute),
		"copy_back": ms(st.Finish), "total": ms(total)}
	if q.output == "summary" {
		resp := SummaryResponse{Graph: lg.name, Algo: algo, Backend: st.Backend, Params: q.paramsJSON(lg), Summary: ans.Summary,
			Result: ans.Fields, Iterations: st.Iterations, Vertices: lg.d.N, Edges: lg.edges, TimesMS: times}
		if st.Compute > 0 {
			resp.MTEPS = float64(lg.edges) / (ms(st.Compute) * 1e3)
		}
		writeJSON(w, http.StatusOK, resp)
		return
	}
	h := w.Header()
	h.Set(wire.SummaryHeader, ans.Summary)
	h.Set("X-Hpgraph-Backend", st.Backend)
	h.Set("X-Hpgraph-Iterations", strconv.Itoa(st.Iterations))
	h.Set("X-Hpgraph-Compute-Ms", strconv.FormatFloat(ms(st.Compute), 'f', 3, 64))
	switch q.output {
	case "binary", "groups":
		write := writeBinaryRows
		if q.output == "groups" {
			write = writeGroups
		}
		if err := write(w, lg, q, ans.Rows, r.Context()); err != nil {
			s.cfg.Logf("serve: %s on %s: writing the answer: %v", algo, lg.name, err)
		}
		return
	}
	if q.output == "csv" {
		h.Set("Content-Type", "text/csv; charset=utf-8")
	} else {
		h.Set("Content-Type", "application/x-ndjson")
	}
	w.WriteHeader(http.StatusOK)
	if err := writeRows(w, lg, q, ans.Rows, q.output == "csv", r.Context()); err != nil {
		s.cfg.Logf("serve: %s on %s: streaming the answer: %v", algo, lg.name, err)
	}
}

// vertexprogOptions are a query's engine options: the server's backend,
// the graph resident, ctx to stop it.
func vertexprogOptions(s *Server, ctx context.Context) vertexprog.Options {
	return vertexprog.Options{Backend: s.cfg.Backend, Resident: true, Context: ctx}
}

// writeRows streams one row per vertex (q's columns, q's vertices), in
// the file's ids and the file's order (the order of the ids: the same
// whatever order the graph was loaded in, --relabel included, as run's
// --out lists them).
func writeRows(w http.ResponseWriter, lg *loadedGraph, q *query, row func(v int32, cells []apps.Cell), csv bool, ctx context.Context) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	columns := q.columnNames()
	if csv {
		bw.WriteString("id," + strings.Join(columns, ",") + "\n")
	}
	cells := make([]apps.Cell, len(q.app.Columns))
	var b []byte
	order := lg.g.FileOrder()
	for k := range int32(lg.d.N) {
		if k&0xffff == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		v := k
		if order != nil {
			v = order[k]
		}
		row(v, cells)
		if q.skip(cells) {
			continue
		}
		b = b[:0]
		if csv {
			b = strconv.AppendInt(b, lg.d.OriginalID(v), 10)
			for _, c := range q.cols {
				b = append(b, ',')
				b = appendCell(b, cells[c], "Infinity")
			}
		} else {
			b = append(b, `{"id":`...)
			b = strconv.AppendInt(b, lg.d.OriginalID(v), 10)
			for i, c := range q.cols {
				b = append(b, `,"`...)
				b = append(b, columns[i]...)
				b = append(b, `":`...)
				b = appendCell(b, cells[c], "null")
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
func appendCell(b []byte, c apps.Cell, inf string) []byte {
	if !c.IsFloat {
		return strconv.AppendInt(b, c.Int, 10)
	}
	if math.IsInf(c.Float, 0) || math.IsNaN(c.Float) {
		return append(b, inf...)
	}
	return strconv.AppendFloat(b, c.Float, 'g', -1, 64)
}
