package apps

import (
	"math"

	"github.com/hpgraph/hpgraph/vertexprog"
)

// PageRankProgram is the paper's PageRank: PR(v) = (1-d) + d·Σ PR(u)/C(u)
// over in-neighbours u (C = out-degree), PR₀ = 1, dangling mass not
// redistributed. Every in-neighbour contributes every superstep (Jacobi
// iteration); a vertex is active while its rank moved by more than
// Tolerance, and the run stops when none did. A vertex's value is its
// contribution PR(u)/C(u).
type PageRankProgram struct {
	Damping, Tolerance float64
	MaxIterations      int
	// Rank is each vertex's rank after the run, written into the slice
	// it holds before when that has one element a vertex.
	Rank   []float64
	outDeg []int32 `devgen:"constant"` // (Graph.OutDegrees: read only)
}

func (p *PageRankProgram) Spec() vertexprog.Spec {
	return vertexprog.Spec{Edges: vertexprog.InEdges, GatherAll: true, MaxIterations: p.MaxIterations}
}

func (p *PageRankProgram) Prepare(g *vertexprog.Graph) error {
	if err := checkDamping(p.Damping); err != nil {
		return invalidParam("pagerank", paramDamping, err)
	}
	if err := checkTolerance(p.Tolerance); err != nil {
		return invalidParam("pagerank", paramTolerance, err)
	}
	if len(p.Rank) != g.N() { // (a caller may lend one: Scratch)
		p.Rank = make([]float64, g.N())
	}
	p.outDeg = g.OutDegrees()
	return nil
}

// share is what a vertex of rank r and out-degree d gives each out-neighbour.
func share(r float64, d int32) float64 {
	if d == 0 {
		return 0
	}
	return r / float64(d)
}

func (p *PageRankProgram) Init(v int32, _ *vertexprog.Step) (float64, bool) {
	p.Rank[v] = 1
	return share(1, p.outDeg[v]), true
}

// InitRange is Init over [lo, hi) in one loop (vertexprog.RangeIniter).
func (p *PageRankProgram) InitRange(lo, hi int32, x []float64, _ *vertexprog.Step) (bool, []int32) {
	fill(p.Rank[lo:hi], 1)
	for i, d := range p.outDeg[lo:hi] {
		x[i] = share(1, d)
	}
	return true, nil
}

func (p *PageRankProgram) Identity() float64 { return 0 }

func (p *PageRankProgram) Gather(acc float64, _, _ int32, xu float64, _ float32) float64 {
	return acc + xu
}

// GatherRow sums a row of contributions in one loop (vertexprog.RowGatherer).
func (p *PageRankProgram) GatherRow(acc float64, _ int32, nbrs []int32, _ []float32, x []float64) float64 {
	return sumOver(acc, nbrs, x)
}

// sumOver adds x[u] over nbrs to acc.
func sumOver(acc float64, nbrs []int32, x []float64) float64 {
	for _, u := range nbrs {
		acc += x[u]
	}
	return acc
}

func (p *PageRankProgram) Reduce(a, b float64) float64 { return a + b }

func (p *PageRankProgram) Update(v int32, acc float64, x *float64, _ *vertexprog.Step) bool {
	d := p.outDeg[v] // (read first: the generated device code then loads it with acc's arithmetic, not after the store to Rank)
	r := (1 - p.Damping) + p.Damping*acc
	moved := math.Abs(r-p.Rank[v]) > p.Tolerance
	p.Rank[v] = r
	*x = share(r, d)
	return moved
}

// Float is the precision of LDBC PageRank's contributions and sums.
type Float interface{ ~float32 | ~float64 }

// PageRankLDBCProgram is LDBC Graphalytics' PageRank: PR₀ = 1/n,
// PR(v) = (1-d)/n + d·Σ PR(u)/C(u) + (d/n)·Σ_{dangling w} PR(w), for a fixed
// number of iterations. The dangling sum is a global Sum aggregator: each
// dangling vertex adds its rank in Update, read in the next superstep.
//
// F is the precision of a vertex's contribution PR(u)/C(u) (its value, X)
// and of the sums over in-neighbours (the accumulator). Ranks, the
// dangling sum and Update's arithmetic are float64 either way. float32
// halves the bytes each gather and each partial sum moves, as the GPU
// peers' PageRanks and cuSPARSE's float SpMV do; the contribution is the
// float64 share rounded to float32, so a rank then agrees with the
// float64 program to about 1e-6 relative, not to the last bits.
type PageRankLDBCProgram[F Float] struct {
	Damping    float64
	Iterations int
	// Rank is as PageRankProgram's.
	Rank   []float64
	outDeg []int32 `devgen:"constant"` // (Graph.OutDegrees: read only)
	n      float64
}

func (p *PageRankLDBCProgram[F]) Spec() vertexprog.Spec {
	// (max: Prepare refuses a negative count, with the front ends' words)
	return vertexprog.Spec{Edges: vertexprog.InEdges, GatherAll: true, MaxIterations: max(p.Iterations, 0),
		Aggregators: []vertexprog.Aggregator{vertexprog.Sum}}
}

func (p *PageRankLDBCProgram[F]) Prepare(g *vertexprog.Graph) error {
	if err := checkDamping(p.Damping); err != nil {
		return invalidParam("pagerank-ldbc", paramDamping, err)
	}
	if err := checkLDBCIterations(p.Iterations); err != nil {
		return invalidParam("pagerank-ldbc", paramIterations, err)
	}
	p.n = float64(g.N())
	if len(p.Rank) != g.N() { // (a caller may lend one: Scratch)
		p.Rank = make([]float64, g.N())
	}
	p.outDeg = g.OutDegrees()
	return nil
}

// Init and Update set v's rank r, add it to the dangling sum when v has
// no out-edges, and give v's share of it, F(share(r, deg)).
func (p *PageRankLDBCProgram[F]) Init(v int32, s *vertexprog.Step) (F, bool) {
	deg := p.outDeg[v]
	r := 1 / p.n
	p.Rank[v] = r
	if deg == 0 {
		s.Add(0, r)
	}
	return F(share(r, deg)), true
}

// InitRange is Init over [lo, hi) in one loop (vertexprog.RangeIniter).
func (p *PageRankLDBCProgram[F]) InitRange(lo, hi int32, x []F, s *vertexprog.Step) (bool, []int32) {
	for i := range x {
		x[i], _ = p.Init(lo+int32(i), s)
	}
	return true, nil
}

func (p *PageRankLDBCProgram[F]) Identity() F { return 0 }

func (p *PageRankLDBCProgram[F]) Gather(acc F, _, _ int32, xu F, _ float32) F {
	return acc + xu
}

// GatherRow sums a row in float64 whatever F is (a float32 running sum
// over a hub's many in-neighbours would lose digits the GPU's shorter
// partial sums keep).
func (p *PageRankLDBCProgram[F]) GatherRow(acc F, _ int32, nbrs []int32, _ []float32, x []F) F {
	sum := float64(acc)
	for _, u := range nbrs {
		sum += float64(x[u])
	}
	return F(sum)
}

func (p *PageRankLDBCProgram[F]) Reduce(a, b F) F { return a + b }

func (p *PageRankLDBCProgram[F]) Update(v int32, acc F, x *F, s *vertexprog.Step) bool {
	deg := p.outDeg[v] // (read first: the device code then loads it with acc, not after the store to Rank)
	d := p.Damping
	r := (1-d)/p.n + d*float64(acc) + d/p.n*s.Aggregate(0)
	p.Rank[v] = r
	if deg == 0 {
		s.Add(0, r)
	}
	*x = F(share(r, deg))
	return true
}

// PageRankResult is a PageRank run's output; F is its contributions'
// precision (float64 but for PageRankLDBCIn[float32]).
type PageRankResult[F Float] struct {
	Rank []float64
	Run  *vertexprog.Result[F]
}

// PageRank runs the paper's variant until no rank moves by more than
// tolerance (or maxIter supersteps, 0 = no limit).
func PageRank(g *vertexprog.Graph, damping, tolerance float64, maxIter int, opt vertexprog.Options) (*PageRankResult[float64], error) {
	if err := checkGraph(g); err != nil {
		return nil, err
	}
	p := &PageRankProgram{Damping: damping, Tolerance: tolerance, MaxIterations: maxIter}
	opt.NoValues = true // (the ranks are the answer, not the contributions)
	r, err := vertexprog.Run(g, vertexprog.Program[float64, float64](p), opt)
	if err != nil {
		return nil, err
	}
	return &PageRankResult[float64]{Rank: p.Rank, Run: r}, nil
}

// PageRankLDBC runs the LDBC variant for the given number of iterations.
func PageRankLDBC(g *vertexprog.Graph, damping float64, iterations int, opt vertexprog.Options) (*PageRankResult[float64], error) {
	return PageRankLDBCIn[float64](g, damping, iterations, opt)
}

// PageRankLDBCIn runs the LDBC variant with contributions and sums in F
// (PageRankLDBCProgram).
func PageRankLDBCIn[F Float](g *vertexprog.Graph, damping float64, iterations int, opt vertexprog.Options) (*PageRankResult[F], error) {
	if err := checkGraph(g); err != nil {
		return nil, err
	}
	p := &PageRankLDBCProgram[F]{Damping: damping, Iterations: iterations}
	opt.NoValues = true // (the ranks are the answer, not the contributions)
	r, err := vertexprog.Run(g, vertexprog.Program[F, F](p), opt)
	if err != nil {
		return nil, err
	}
	return &PageRankResult[F]{Rank: p.Rank, Run: r}, nil
}
