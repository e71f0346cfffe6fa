// Package client is a Go client of `hpgraph serve` (package serve): list,
// load and drop graphs, run queries and stream their per-vertex results.
// It depends on the standard library only (and serve/wire, the types both
// sides of the wire share).
package client

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/hpgraph/hpgraph/serve/wire"
)

// Client talks to one server.
type Client struct {
	base  string
	token string
	// HTTP is the client requests go through (http.DefaultClient).
	HTTP *http.Client
}

// New returns a client of the server at baseURL (e.g.
// "http://127.0.0.1:8080"); token, when not empty, is sent as a bearer token.
func New(baseURL, token string) *Client {
	return &Client{base: strings.TrimRight(baseURL, "/"), token: token, HTTP: http.DefaultClient}
}

// Error is an error answer of the server.
type Error struct {
	Status     int    // the HTTP status
	Message    string `json:"error"`
	Field      string `json:"field"` // the request's field at fault, when one is
	RetryAfter time.Duration
}

func (e *Error) Error() string {
	return fmt.Sprintf("hpgraph serve: %d: %s", e.Status, e.Message)
}

// Graph describes a loaded graph (the server's answer, one type on both
// sides of the wire).
type Graph = wire.Graph

// LoadOptions are the load flags of `hpgraph run` (wire.LoadOptions: one
// type for the server, this client and the command line).
type LoadOptions = wire.LoadOptions

// Params (params_gen.go) are made from the apps' declarations by
// internal/tools/clientparams.
//go:generate go run ../../internal/tools/clientparams params_gen.go

// Ptr returns a pointer to v, for Params' fields.
func Ptr[T any](v T) *T { return &v }

// RunRequest is a query: Algo names one of the server's algorithms, as
// `hpgraph run` names them (serve.Algorithms, the apps' registry), and
// Params holds the parameters it takes.
type RunRequest struct {
	Algo      string `json:"algo"`
	Params    Params `json:"params"`
	Output    string `json:"output,omitempty"` // Run sets it
	TimeoutMS int64  `json:"timeout_ms,omitempty"`
}

// Summary is a query's answer: what `hpgraph run` prints, times included.
type Summary = wire.Summary

func (c *Client) do(ctx context.Context, method, path string, body any) (*http.Response, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		return nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	return c.send(req)
}

// send sends req with the token; an answer of 300 or more is an *Error.
func (c *Client) send(req *http.Request) (*http.Response, error) {
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode >= 300 {
		defer resp.Body.Close()
		e := &Error{Status: resp.StatusCode}
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		if json.Unmarshal(b, e) != nil || e.Message == "" {
			e.Message = strings.TrimSpace(string(b))
		}
		if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil {
			e.RetryAfter = time.Duration(s) * time.Second
		}
		return nil, e
	}
	return resp, nil
}

func (c *Client) call(ctx context.Context, method, path string, body, out any) error {
	resp, err := c.do(ctx, method, path, body)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if out == nil {
		_, err = io.Copy(io.Discard, resp.Body)
		return err
	}
	return json.NewDecoder(resp.Body).Decode(out)
}

func graphPath(name string) string { return "/v1/graphs/" + url.PathEscape(name) }

// Graphs lists the loaded graphs.
func (c *Client) Graphs(ctx context.Context) ([]Graph, error) {
	var out struct{ Graphs []Graph }
	err := c.call(ctx, "GET", "/v1/graphs", nil, &out)
	return out.Graphs, err
}

// Graph describes one loaded graph.
func (c *Client) Graph(ctx context.Context, name string) (*Graph, error) {
	var g Graph
	if err := c.call(ctx, "GET", graphPath(name), nil, &g); err != nil {
		return nil, err
	}
	return &g, nil
}

// Load loads the graph at path (relative to the server's data directory) as name.
func (c *Client) Load(ctx context.Context, name, path string, opt LoadOptions) (*Graph, error) {
	body := wire.LoadRequest{Name: name, Path: path, LoadOptions: opt}
	var g Graph
	if err := c.call(ctx, "POST", "/v1/graphs", body, &g); err != nil {
		return nil, err
	}
	return &g, nil
}

// Drop removes a graph.
func (c *Client) Drop(ctx context.Context, name string) error {
	return c.call(ctx, "DELETE", graphPath(name), nil, nil)
}

// Health returns the server's health report.
func (c *Client) Health(ctx context.Context) (map[string]any, error) {
	var h map[string]any
	err := c.call(ctx, "GET", "/v1/health", nil, &h)
	return h, err
}

// Run runs a query and returns its summary. Canceling ctx cancels the
// query on the server.
func (c *Client) Run(ctx context.Context, graph string, req RunRequest) (*Summary, error) {
	req.Output = "summary"
	var s Summary
	if err := c.call(ctx, "POST", graphPath(graph)+"/run", req, &s); err != nil {
		return nil, err
	}
	return &s, nil
}

// Row is one vertex's result: its original id and the algorithm's values
// by column (apps.App.Columns; for example bfs: depth, parent; sssp:
// dist, +Inf unreached; pagerank: rank; cc: component, its smallest id).
type Row struct {
	ID     int64
	Values map[string]float64
}

// Rows is a per-vertex answer being streamed; Close it when done.
type Rows struct {
	// Summary is the query's summary line (what `hpgraph run` prints).
	Summary string
	body    io.ReadCloser
	sc      *bufio.Scanner
	row     Row
	err     error
}

// RunRows runs a query and streams its per-vertex results (NDJSON).
func (c *Client) RunRows(ctx context.Context, graph string, req RunRequest) (*Rows, error) {
	req.Output = "ndjson"
	resp, err := c.do(ctx, "POST", graphPath(graph)+"/run", req)
	if err != nil {
		return nil, err
	}
	return &Rows{Summary: resp.Header.Get(wire.SummaryHeader), body: resp.Body, sc: bufio.NewScanner(resp.Body)}, nil
}

// Next advances to the next row; false at the end or on an error (Err).
func (r *Rows) Next() bool {
	if r.err != nil || !r.sc.Scan() {
		if r.err == nil {
			r.err = r.sc.Err()
		}
		return false
	}
	dec := json.NewDecoder(bytes.NewReader(r.sc.Bytes()))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		r.err = err
		return false
	}
	id, ok := m["id"].(json.Number)
	if !ok {
		r.err = errors.New("hpgraph serve: a row without an id")
		return false
	}
	n, err := id.Int64()
	if err != nil {
		r.err = err
		return false
	}
	r.row = Row{ID: n, Values: map[string]float64{}}
	for k, v := range m {
		if k == "id" {
			continue
		}
		x := math.Inf(1) // null: unreached
		if num, ok := v.(json.Number); ok {
			if x, err = num.Float64(); err != nil {
				r.err = err
				return false
			}
		}
		r.row.Values[k] = x
	}
	return true
}

// Row returns the current row.
func (r *Rows) Row() Row { return r.row }

// Err returns the error that stopped Next, if any.
func (r *Rows) Err() error { return r.err }

// Close ends the stream (and the query, if it still streams).
func (r *Rows) Close() error { return r.body.Close() }
