package pagerank

import (
	"errors"
	"fmt"
	"io"

	"github.com/hpgraph/hpgraph/apps"
	"github.com/hpgraph/hpgraph/apps/reference"
	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/internal/huge"
	"github.com/hpgraph/hpgraph/internal/par"
	"github.com/hpgraph/hpgraph/vertexprog"
)

// App is the paper's PageRank for the front ends (apps/registry).
var App = &apps.App{
	Name:  "pagerank",
	About: "PageRank, the paper's variant: PR0=1, until no rank moves more than --tolerance",
	// (no precision: the paper's PageRank runs in float64 only, since it
	// stops when no rank moves more than its tolerance, finer than float32
	// sums resolve on ranks near 1)
	Params:    []apps.AnyParam{ParamDamping, ParamTolerance},
	Columns:   []string{"rank"},
	LDBC:      apps.LDBC{Output: true},
	Program:   &Program{},
	Tolerance: tolerance,
	Traffic:   traffic,
	Answer: func(g *vertexprog.Graph, req apps.Request, opt vertexprog.Options) (*apps.Result, error) {
		limit := req.MaxIter
		if limit == 0 {
			limit = Limit
		}
		p := &Program{Damping: req.Damping, Tolerance: req.Tolerance, MaxIterations: limit}
		r, err := runRanks[float64](g, p, &p.Rank, req, opt)
		if err != nil {
			return nil, err
		}
		return rankResult(g, r, func() []float64 {
			pr, _ := reference.PageRank(g.Dataset(), req.Damping, req.Tolerance, limit)
			return pr
		}, tolerance(&req.Params)), nil
	},
}

// LDBCApp is LDBC's PageRank for the front ends (apps/registry).
var LDBCApp = &apps.App{
	Name:    "pagerank-ldbc",
	About:   "PageRank, LDBC Graphalytics variant: PR0=1/n, dangling mass redistributed, --iterations iterations",
	Params:  []apps.AnyParam{ParamDamping, apps.ParamIterations, ParamPrecision},
	Columns: []string{"rank"},
	Check: func(p *apps.Params) *apps.ParamError {
		if err := checkLDBCIterations(p.Iterations); err != nil {
			return &apps.ParamError{Param: apps.ParamIterations, Err: err}
		}
		return nil
	},
	LDBC: apps.LDBC{Output: true, Params: []apps.LDBCParam{
		{Param: "damping", Key: "pr.damping-factor"},
		{Param: "iterations", Key: "pr.num-iterations"},
	}},
	Program:   &LDBCProgram[float32]{},
	Tolerance: ldbcTolerance,
	Traffic:   traffic,
	Variants: []apps.Variant{{
		Name:  "pagerank-iter",
		About: "one LDBC PageRank iteration: the time of one PageRank superstep",
		Set:   []apps.Setting{{Param: apps.ParamIterations, Value: "1"}},
	}},
	Answer: func(g *vertexprog.Graph, req apps.Request, opt vertexprog.Options) (*apps.Result, error) {
		switch req.Precision {
		case "float64":
			return ldbcIn[float64](g, req, opt)
		case "float32":
			return ldbcIn[float32](g, req, opt)
		}
		return nil, errors.New("pagerank-ldbc: unchecked precision") // (CheckParams refuses it)
	},
}

// tolerance is the paper's PageRank's, in float64.
func tolerance(*apps.Params) float64 { return 1e-6 }

// ldbcTolerance: contributions rounded to float32 every iteration
// are within ~1e-7 relative on the shipped graphs, checked to 1e-5.
func ldbcTolerance(p *apps.Params) float64 {
	if p.Precision == "float32" {
		return 1e-5
	}
	return 1e-6
}

// ldbcIn runs LDBC PageRank in precision F.
func ldbcIn[F Float](g *vertexprog.Graph, req apps.Request, opt vertexprog.Options) (*apps.Result, error) {
	p := &LDBCProgram[F]{Damping: req.Damping, Iterations: req.Iterations}
	r, err := runRanks[F](g, p, &p.Rank, req, opt)
	if err != nil {
		return nil, err
	}
	want := func() []float64 { return reference.PageRankLDBC(g.Dataset(), req.Damping, req.Iterations) }
	return rankResult(g, r, want, ldbcTolerance(&req.Params)), nil
}

// runRanks runs p, a PageRank whose ranks are *rank, writing the ranks
// and the values into the last answer's arrays where req's Scratch lends
// them, and keeping this answer's for the next. The values array is kept
// even where a device left the values on it (NoValues: the run's X is
// nil), so that the next run does not allocate one: a fresh 8 MB array
// was 0.85-0.97 ms of a served kron21 PageRank's PREPROCESS (H200).
func runRanks[F Float](g *vertexprog.Graph, p vertexprog.Program[F, F], rank *[]float64, req apps.Request, opt vertexprog.Options) (*Result[F], error) {
	*rank = req.Scratch.LentRanks()
	if req.Scratch != nil {
		xs := apps.Lent[F](req.Scratch)
		if len(xs) != g.N() {
			xs = huge.Make[F](g.N())
		}
		opt.Values = xs
	}
	opt.NoValues = true // (the ranks are the answer, not the contributions)
	run, err := vertexprog.Run(g, p, opt)
	if err != nil {
		return nil, err
	}
	// (the engine wrote X into the values array, or left it as it was)
	req.Scratch.Keep(*rank, opt.Values)
	return &Result[F]{Rank: *rank, Run: run}, nil
}

// rankResult is a PageRank's result, checked against the reference's
// ranks to rel (relative).
func rankResult[F Float](g *vertexprog.Graph, r *Result[F], want func() []float64, rel float64) *apps.Result {
	d := g.Dataset()
	res := &apps.Result{
		Stats:   apps.StatsOf(r.Run),
		Summary: fmt.Sprintf("%d iterations; no vertices", r.Run.Iterations),
		Fields:  map[string]any{"iterations": r.Run.Iterations},
		Rows:    func(v int32, c []apps.Cell) { c[0] = apps.FloatCell(r.Rank[v]) },
		WriteText: func(w io.Writer) error {
			return apps.WriteVertexLines(w, g, func(b []byte, v int32, id int64) []byte {
				return apps.AppendFloat(b, id, r.Rank[v], 'g', 12)
			})
		},
		WriteLDBC: func(w io.Writer) error { return apps.WriteLDBCFloats(w, g, r.Rank) },
		Check: func() error {
			return apps.CompareFloats("rank", d, want(), func(v int) float64 { return r.Rank[v] }, rel)
		},
	}
	if len(r.Rank) > 0 {
		top := topVertex(d, r.Rank)
		res.Summary = fmt.Sprintf("%d iterations; top vertex %d (rank %.6g)", r.Run.Iterations, d.OriginalID(top), r.Rank[top])
		res.Fields = map[string]any{"iterations": r.Run.Iterations, "top_vertex": d.OriginalID(top), "top_rank": r.Rank[top]}
	}
	return res
}

// topVertex is the vertex of highest rank, the lowest original id of
// those that tie (so renumbering the graph, --relabel, changes nothing):
// one pass on every core, where a sort of every vertex cost a time to
// answer ~1 s on kron21, and one pass on one core ~2 ms of a served
// query.
func topVertex(d *datasets.Graph, rank []float64) int32 {
	tops := make([]int32, par.Workers())
	better := func(v, top int32) bool {
		return rank[v] > rank[top] || rank[v] == rank[top] && d.OriginalID(v) < d.OriginalID(top)
	}
	par.Blocks(len(rank), func(w, lo, hi int) {
		if lo >= hi {
			return // (tops[w] stays vertex 0, a candidate like any)
		}
		top := int32(lo)
		for v := int32(lo) + 1; v < int32(hi); v++ {
			if better(v, top) {
				top = v
			}
		}
		tops[w] = top
	})
	top := tops[0]
	for _, t := range tops[1:] {
		if better(t, top) {
			top = t
		}
	}
	return top
}

// traffic: per iteration each stored nonzero's column index, the
// row pointer, the rank read and written.
func traffic(in apps.TrafficIn) apps.Traffic {
	return apps.Traffic{Bytes: int64(in.Iterations) * (4*in.NNZ + 24*in.N),
		Model: "iterations*(4*nnz + 8*n + 8*n + 8*n): per iteration each stored nonzero's int32 column index, the int64 row pointer, the float64 rank read and written"}
}
