package apps

import "github.com/hpgraph/hpgraph/vertexprog"

// CCProgram labels weakly connected components by min-label propagation
// over all edges: every vertex starts with its own id and takes the
// smallest label among its neighbours until nothing changes, so the label is
// the smallest vertex id in the component (the LDBC WCC convention). It
// declares so (Spec.Components): a backend with a union-find path runs
// that instead of supersteps (Afforest on the GPU).
type CCProgram struct{}

func (CCProgram) Spec() vertexprog.Spec {
	return vertexprog.Spec{Edges: vertexprog.AllEdges, Sparse: true, Idempotent: true, Components: true}
}

func (CCProgram) Init(v int32, _ *vertexprog.Step) (int32, bool) { return v, true }

// InitRange is Init over [lo, hi): every vertex its own label, all active
// (vertexprog.RangeIniter).
func (CCProgram) InitRange(lo, _ int32, l []int32, _ *vertexprog.Step) (bool, []int32) {
	for i := range l {
		l[i] = lo + int32(i)
	}
	return true, nil
}

func (CCProgram) Identity() int32 { return noParent }

func (CCProgram) Gather(acc int32, _, _ int32, lu int32, _ float32) int32 { return min(acc, lu) }

// GatherRow takes the smallest label of a row in one loop
// (vertexprog.RowGatherer).
func (CCProgram) GatherRow(acc int32, _ int32, nbrs []int32, _ []float32, l []int32) int32 {
	for _, u := range nbrs {
		acc = min(acc, l[u])
	}
	return acc
}

func (CCProgram) Reduce(a, b int32) int32 { return min(a, b) }

func (CCProgram) Update(_ int32, acc int32, l *int32, _ *vertexprog.Step) bool {
	if acc < *l {
		*l = acc
		return true
	}
	return false
}

// CCResult is a connected-components run's output.
type CCResult struct {
	// Label[v] is the smallest vertex id in v's component.
	Label      []int32
	Components int
	Run        *vertexprog.Result[int32]
}

// ConnectedComponents labels the weakly connected components of g with
// CCProgram: every vertex gets the smallest id in its component.
func ConnectedComponents(g *vertexprog.Graph, opt vertexprog.Options) (*CCResult, error) {
	if err := checkGraph(g); err != nil {
		return nil, err
	}
	r, err := vertexprog.Run(g, vertexprog.Program[int32, int32](CCProgram{}), opt)
	if err != nil {
		return nil, err
	}
	res := &CCResult{Label: r.X, Run: r}
	for v, l := range r.X {
		if int(l) == v {
			res.Components++
		}
	}
	return res, nil
}
