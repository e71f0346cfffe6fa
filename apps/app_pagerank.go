package apps

import (
	"bufio"
	"errors"
	"fmt"
	"io"

	"github.com/hpgraph/hpgraph/apps/reference"
	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/internal/par"
	"github.com/hpgraph/hpgraph/vertexprog"
)

var appPageRank = &App{
	Name:    "pagerank",
	About:   "PageRank, the paper's variant: PR0=1, until no rank moves more than --tolerance",
	Params:  []AnyParam{paramDamping, paramTolerance, paramPrecision},
	Columns: []string{"rank"},
	LDBC:    LDBC{Output: true},
	Check: func(p *Params) *ParamError {
		if p.Precision != "float64" {
			return &ParamError{Param: paramPrecision, Err: fmt.Errorf("%s: the paper's PageRank runs in float64 only (it stops when no rank moves more than its tolerance, finer than float32 sums resolve on ranks near 1); pagerank-ldbc takes float32", p.Precision)}
		}
		return nil
	},
	Program:   &PageRankProgram{},
	Tolerance: pageRankTolerance,
	Traffic:   pageRankTraffic,
	run: func(g *vertexprog.Graph, req Request, opt vertexprog.Options) (*Result, error) {
		limit := req.MaxIter
		if limit == 0 {
			limit = PageRankLimit
		}
		p := &PageRankProgram{Damping: req.Damping, Tolerance: req.Tolerance, MaxIterations: limit}
		r, err := runRanks[float64](g, p, &p.Rank, req, opt)
		if err != nil {
			return nil, err
		}
		return rankResult(g, r, func() []float64 {
			pr, _ := reference.PageRank(g.Dataset(), req.Damping, req.Tolerance, limit)
			return pr
		}, pageRankTolerance(&req.Params)), nil
	},
}

var appPageRankLDBC = &App{
	Name:    "pagerank-ldbc",
	About:   "PageRank, LDBC Graphalytics variant: PR0=1/n, dangling mass redistributed, --iterations iterations",
	Params:  []AnyParam{paramDamping, paramIterations, paramPrecision},
	Columns: []string{"rank"},
	Check: func(p *Params) *ParamError {
		if err := checkLDBCIterations(p.Iterations); err != nil {
			return &ParamError{Param: paramIterations, Err: err}
		}
		return nil
	},
	LDBC: LDBC{Output: true, Params: []LDBCParam{
		{Param: "damping", Key: "pr.damping-factor"},
		{Param: "iterations", Key: "pr.num-iterations"},
	}},
	Program:   &PageRankLDBCProgram[float64]{},
	Tolerance: pageRankLDBCTolerance,
	Traffic:   pageRankTraffic,
	Variants: []Variant{{
		Name:  "pagerank-iter",
		About: "one LDBC PageRank iteration: the time of one PageRank superstep",
		Set:   []Setting{{Param: "iterations", Value: "1"}},
	}},
	run: func(g *vertexprog.Graph, req Request, opt vertexprog.Options) (*Result, error) {
		switch req.Precision {
		case "float64":
			return pageRankLDBCIn[float64](g, req, opt)
		case "float32":
			return pageRankLDBCIn[float32](g, req, opt)
		}
		return nil, errors.New("pagerank-ldbc: unchecked precision") // (CheckParams refuses it)
	},
}

// pageRankTolerance is the paper's PageRank's, in float64.
func pageRankTolerance(*Params) float64 { return 1e-6 }

// pageRankLDBCTolerance: contributions rounded to float32 every iteration
// are within ~1e-7 relative on the shipped graphs, checked to 1e-5.
func pageRankLDBCTolerance(p *Params) float64 {
	if p.Precision == "float32" {
		return 1e-5
	}
	return 1e-6
}

// pageRankLDBCIn runs LDBC PageRank in precision F.
func pageRankLDBCIn[F Float](g *vertexprog.Graph, req Request, opt vertexprog.Options) (*Result, error) {
	p := &PageRankLDBCProgram[F]{Damping: req.Damping, Iterations: req.Iterations}
	r, err := runRanks[F](g, p, &p.Rank, req, opt)
	if err != nil {
		return nil, err
	}
	want := func() []float64 { return reference.PageRankLDBC(g.Dataset(), req.Damping, req.Iterations) }
	return rankResult(g, r, want, pageRankLDBCTolerance(&req.Params)), nil
}

// runRanks runs p, a PageRank whose ranks are *rank, writing the ranks
// and the values into the last answer's arrays where req's Scratch lends
// them, and keeping this answer's for the next. The values array is kept
// even where a device left the values on it (NoValues: the run's X is
// nil), so that the next run does not allocate one: a fresh 8 MB array
// was 0.85-0.97 ms of a served kron21 PageRank's PREPROCESS (H200).
func runRanks[F Float](g *vertexprog.Graph, p vertexprog.Program[F, F], rank *[]float64, req Request, opt vertexprog.Options) (*PageRankResult[F], error) {
	*rank = req.Scratch.lentRanks()
	if req.Scratch != nil {
		xs := lentValues[F](req.Scratch)
		if len(xs) != g.N() {
			xs = make([]F, g.N())
		}
		opt.Values = xs
	}
	opt.NoValues = true // (the ranks are the answer, not the contributions)
	run, err := vertexprog.Run(g, p, opt)
	if err != nil {
		return nil, err
	}
	// (the engine wrote X into the values array, or left it as it was)
	req.Scratch.keep(*rank, opt.Values)
	return &PageRankResult[F]{Rank: *rank, Run: run}, nil
}

// rankResult is a PageRank's result, checked against the reference's
// ranks to rel (relative).
func rankResult[F Float](g *vertexprog.Graph, r *PageRankResult[F], want func() []float64, rel float64) *Result {
	d := g.Dataset()
	res := &Result{
		Stats:   statsOf(r.Run),
		Summary: fmt.Sprintf("%d iterations; no vertices", r.Run.Iterations),
		Fields:  map[string]any{"iterations": r.Run.Iterations},
		Rows:    func(v int32, c []Cell) { c[0] = floatCell(r.Rank[v]) },
		WriteText: func(w io.Writer) error {
			return writeVertexLines(w, g, func(bw *bufio.Writer, v int32, id int64) {
				fmt.Fprintf(bw, "%d %.12g\n", id, r.Rank[v])
			})
		},
		WriteLDBC: func(w io.Writer) error { return writeLDBCFloats(w, g, r.Rank) },
		Check: func() error {
			return compareFloats("rank", d, want(), func(v int) float64 { return r.Rank[v] }, rel)
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

// pageRankTraffic: per iteration each stored nonzero's column index, the
// row pointer, the rank read and written.
func pageRankTraffic(in TrafficIn) Traffic {
	return Traffic{Bytes: int64(in.Iterations) * (4*in.NNZ + 24*in.N),
		Model: "iterations*(4*nnz + 8*n + 8*n + 8*n): per iteration each stored nonzero's int32 column index, the int64 row pointer, the float64 rank read and written"}
}
