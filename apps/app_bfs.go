package apps

import (
	"bufio"
	"errors"
	"fmt"
	"io"

	"github.com/hpgraph/hpgraph/apps/reference"
	"github.com/hpgraph/hpgraph/vertexprog"
)

var appBFS = &App{
	Name:    "bfs",
	About:   "breadth-first search from --src: depth and parent (direction-optimized)",
	Source:  true,
	Columns: []string{"depth", "parent"},
	LDBC:    LDBC{Output: true, Source: "bfs.source-vertex"},
	Program: &BFSProgram{},
	Traffic: traversalTraffic,
	run:     runBFS,
}

// errDepthsOnDevice is what a summary-only BFS answers when asked for
// more.
var errDepthsOnDevice = errors.New("bfs: the depths were left on the device (a summary-only query)")

func runBFS(g *vertexprog.Graph, req Request, opt vertexprog.Options) (*Result, error) {
	d := g.Dataset()
	var prev *BFSResult
	if req.Scratch != nil {
		prev = req.Scratch.bfs
	}
	opt.SummaryOnly = req.Need == NeedSummary
	r, err := BFSReusing(g, req.Source, opt, prev)
	if err != nil {
		return nil, err
	}
	if req.Scratch != nil {
		req.Scratch.bfs = r
	}
	// (the counts give reached and depth without a pass over Depth, which
	// cost ~11 ms of every kron21 query on the GPU machine)
	reached, depth := r.Reached()
	src := d.OriginalID(req.Source)
	res := &Result{
		Stats:   statsOf(r.Run),
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
	res.Rows = func(v int32, c []Cell) { c[0], c[1] = intCell(int64(r.Depth[v])), intCell(parent(v)) }
	res.WriteText = func(w io.Writer) error {
		return writeVertexLines(w, g, func(bw *bufio.Writer, v int32, id int64) {
			fmt.Fprintf(bw, "%d %d %d\n", id, r.Depth[v], parent(v))
		})
	}
	res.WriteLDBC = func(w io.Writer) error {
		return writeVertexLines(w, g, func(bw *bufio.Writer, v int32, id int64) {
			x := int64(r.Depth[v])
			if x < 0 {
				x = ldbcUnreachable
			}
			fmt.Fprintf(bw, "%d %d\n", id, x)
		})
	}
	res.Check = func() error { return reference.ValidateBFS(d, req.Source, r.Depth, r.Parent) }
	return res, nil
}

// traversalTraffic is the model of the traversals that read the matrix
// once and write a 4-byte value per vertex once (bfs, cc).
func traversalTraffic(in TrafficIn) Traffic {
	return Traffic{Bytes: 4*in.NNZ + 4*in.N,
		Model: "4*nnz + 4*n: each stored nonzero's int32 column index read once and each vertex's int32 depth/label written once, for the whole run"}
}
