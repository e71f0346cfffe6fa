// Package cdlp is LDBC Graphalytics' community detection by label
// propagation (Program, a vertexprog.MultisetProgram), its hand-written
// device code (cdlp.cu) and its App for the front ends.
package cdlp

import (
	"github.com/hpgraph/hpgraph/apps"
	"github.com/hpgraph/hpgraph/vertexprog"
)

// Program is LDBC Graphalytics' community detection by label
// propagation, as a multiset program (vertexprog.MultisetProgram). Every
// vertex's label starts as its original id (vertexprog.Graph.ID); in each
// iteration every vertex takes the label that occurs most often among its
// neighbours' labels of the previous iteration, the smallest such label on
// ties, and a vertex without neighbours keeps its own. On a directed graph
// the neighbours are the in- and the out-neighbours counted separately (a
// vertex joined both ways counts twice, as LDBC says): the program gathers
// along vertexprog.InOutEdges, one label per arc at the vertex, parallel
// arcs and self loops included as loaded.
//
// The run stops after Iterations iterations, or earlier at a fixed point
// (no label changed: later iterations would change none). Its device code
// (device.go) runs it on a backend that gathers multisets
// (driver.MultisetBackend: the GPU), which auto picks where there is
// one.
type Program struct {
	// Iterations is LDBC's cdlp.max-iterations; 0 leaves every label at
	// the vertex's id.
	Iterations int
	id         func(v int32) int64
	g          *vertexprog.Graph // (Device: its ids' range)
}

// Choice is a vertex's summary of its neighbours' labels: the most
// frequent (smallest on ties), or Found false when it has no neighbours.
type Choice struct {
	Label int64
	Found bool
}

func (p *Program) Spec() vertexprog.Spec {
	return vertexprog.Spec{Edges: vertexprog.InOutEdges, GatherAll: true, MaxIterations: max(p.Iterations, 0)} // (Prepare refuses a negative count)
}

func (p *Program) Prepare(g *vertexprog.Graph) error {
	if err := apps.ParamIterations.Check(p.Iterations); err != nil {
		return apps.InvalidParam("cdlp", apps.ParamIterations, err)
	}
	p.id, p.g = g.Dataset().OriginalID, g
	return nil
}

// Init labels v with its original id; with no iterations to run, nothing
// is active.
func (p *Program) Init(v int32, _ *vertexprog.Step) (int64, bool) {
	return p.id(v), p.Iterations > 0
}

// Element is the neighbour's label.
func (p *Program) Element(_, _ int32, label int64, _ float32) int64 { return label }

// Summarize picks the most frequent label, the first (smallest) of those
// that tie.
func (p *Program) Summarize(_ int32, b vertexprog.Bag[int64]) Choice {
	if b.Size == 0 {
		return Choice{}
	}
	best := 0
	for i, c := range b.Counts {
		if c > b.Counts[best] {
			best = i
		}
	}
	return Choice{Label: b.Values[best], Found: true}
}

func (p *Program) Update(_ int32, c Choice, label *int64, _ *vertexprog.Step) bool {
	if !c.Found || c.Label == *label {
		return false
	}
	*label = c.Label
	return true
}

// Result is a label propagation run's output.
type Result struct {
	// Label[v] is vertex v's community label: an original id.
	Label []int64
	Run   *vertexprog.Result[int64]
}

// Run runs LDBC's community detection by label propagation for the given
// number of iterations (see Program). A negative count is an error.
func Run(g *vertexprog.Graph, iterations int, opt vertexprog.Options) (*Result, error) {
	if err := apps.CheckGraph(g); err != nil {
		return nil, err
	}
	if err := apps.ParamIterations.Check(iterations); err != nil {
		return nil, apps.InvalidParam("cdlp", apps.ParamIterations, err)
	}
	p := vertexprog.Multiset(vertexprog.MultisetProgram[int64, int64, Choice](&Program{Iterations: iterations}))
	r, err := p.Run(g, opt)
	if err != nil {
		return nil, err
	}
	return &Result{Label: r.X, Run: r}, nil
}
