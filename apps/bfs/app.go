package bfs

import (
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/hpgraph/hpgraph/apps"
	"github.com/hpgraph/hpgraph/apps/reference"
	"github.com/hpgraph/hpgraph/vertexprog"
)

// App is bfs for the front ends (apps/registry).
var App = &apps.App{
	Name:    "bfs",
	About:   "breadth-first search from --src: depth and parent (direction-optimized)",
	Source:  true,
	Columns: []string{"depth", "parent"},
	LDBC:    apps.LDBC{Output: true, Source: "bfs.source-vertex"},
	Program: &Program{},
	Traffic: apps.TraversalTraffic,
	Answer:  answer,
}

// errDepthsOnDevice is what a summary-only BFS answers when asked for
// more.
var errDepthsOnDevice = errors.New("bfs: the depths were left on the device (a summary-only query)")

// heldKey holds a caller's last result in its apps.Scratch: the next
// search writes into its arrays.
type heldKey struct{}

func answer(g *vertexprog.Graph, req apps.Request, opt vertexprog.Options) (*apps.Result, error) {
	d := g.Dataset()
	prev, _ := req.Scratch.Held(heldKey{}).(*Result)
	opt.SummaryOnly = req.Need == apps.NeedSummary
	r, err := Reusing(g, req.Source, opt, prev)
	if err != nil {
		return nil, err
	}
	req.Scratch.Hold(heldKey{}, r)
	// (the counts give reached and depth without a pass over Depth, which
	// cost ~11 ms of every kron21 query on the GPU machine)
	reached, depth := r.Reached()
	src := d.OriginalID(req.Source)
	res := &apps.Result{
		Stats:   apps.StatsOf(r.Run),
		Summary: fmt.Sprintf("source %d: reached %d vertices, depth %d", src, reached, depth),
		Fields:  map[string]any{"source": src, "reached": reached, "depth": depth},
	}
	if r.Depth == nil {
		fail := func(io.Writer) error { return errDepthsOnDevice }
		res.WriteText, res.WriteLDBC, res.Check = fail, fail, func() error { return errDepthsOnDevice }
		return res, nil
	}
	parent := func(v int32) int64 {
		if r.Parent[v] < 0 {
			return -1
		}
		return d.OriginalID(r.Parent[v])
	}
	res.Rows = func(v int32, c []apps.Cell) { c[0], c[1] = apps.IntCell(int64(r.Depth[v])), apps.IntCell(parent(v)) }
	res.WriteText = func(w io.Writer) error {
		return apps.WriteVertexLines(w, g, func(b []byte, v int32, id int64) []byte {
			return apps.AppendInts(b, id, int64(r.Depth[v]), parent(v))
		})
	}
	res.WriteLDBC = func(w io.Writer) error {
		return apps.WriteVertexLines(w, g, func(b []byte, v int32, id int64) []byte {
			x := int64(r.Depth[v])
			if x < 0 {
				x = ldbcUnreachable
			}
			return apps.AppendInts(b, id, x)
		})
	}
	res.Check = func() error { return reference.ValidateBFS(d, req.Source, r.Depth, r.Parent) }
	return res, nil
}

// ldbcUnreachable is the depth LDBC's BFS output gives an unreachable
// vertex: the largest int64.
const ldbcUnreachable = math.MaxInt64
